"""Exact mode on a recorded run, offline: the identity a run gives the runtime (read from the
real 2026.9.6 store), and the verdict decided by the runner's own prompt hash. The runtime
building each session with that identity is held to a live gateway's store in
`tests/openclaw/test_wire_live.py`."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from ctxscope import Inspector
from ctxscope.diff.causes import EXACT, GAP
from ctxscope.runs import read_state
from ctxscope.runs.identity import identity_of, shown_state
from ctxscope.runs.store import read_whole
from tests.runs.stores import CHILD, MAIN, real_state, workspace
from tests.runs.stores import verdict as compare


def test_a_recorded_run_gives_its_own_identity(tmp_path: Path) -> None:
    state = real_state(tmp_path)
    runs = {r.session_key: r for r in read_whole(read_state(state).runs)}
    child = identity_of(runs[CHILD], state, {"SHELL": "/bin/zsh", "TERM": "xterm"})
    assert child.session_id == runs[CHILD].report["sessionId"]
    assert child.session_id and child.session_id != runs[MAIN].report["sessionId"]
    assert (child.spawned_by, child.label, child.spawn_depth) == (MAIN, "wire", 1)
    assert child.state_shown == str(state)
    assert child.helper_fields() == {
        "sessionId": child.session_id,
        "stateDir": str(state),
        "shell": {"SHELL": "/bin/zsh"},
    }
    spawn = child.subagent("the scenario's task", 5, None)
    assert spawn is not None
    assert (spawn.requester_session_key, spawn.child_session_key, spawn.label) == (
        MAIN,
        CHILD,
        "wire",
    )
    main = identity_of(runs[MAIN], state, {})
    assert main.shell == () and main.subagent("task", 5, None) is None


def test_the_state_folder_as_a_prompt_path_shows_it(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert shown_state(home / ".openclaw", home) == "~/.openclaw"
    assert shown_state(tmp_path / "home-other" / "state", home) == str(
        tmp_path / "home-other" / "state"
    )
    assert shown_state(home, home) == str(home)


def test_exact_verdict_is_the_runners_hash_of_the_prompt_before_transport(
    tmp_path: Path,
) -> None:
    """The runtime's runner hashes its prompt with the boundary markers the transports strip:
    the verdict is that hash against the record's, not a hash of the text shown."""
    state = real_state(tmp_path)
    run = next(r for r in read_whole(read_state(state).runs) if r.session_key == MAIN)
    model = Inspector(workspace(tmp_path)).session(MAIN)
    recorded = run.figure("systemPrompt", "hash")
    sent = dataclasses.replace(model, exact="OpenClaw 2026.9.6", exact_sha256=recorded)
    same = compare(run, sent, limits=(20000, 60000))
    assert (same.verdict, same.summary, same.predicted_sha256) == ("exact", EXACT, recorded)

    other = dataclasses.replace(sent, exact_sha256="0" * 64)
    drift = compare(run, other, limits=(20000, 60000))
    assert drift.verdict == "differs"
    assert {f["status"] for f in drift.files} == {"same"}
    prompt = next(d for d in drift.differences if d.item == "prompt")
    assert prompt.cause == GAP and "drift in ctxscope" in prompt.why
    assert "Runtime line" in prompt.why and "$SHELL" in prompt.why
    assert "spawn task" not in prompt.why

    # The runtime's own figures of its prompt name the part that differs.
    entries = run.report["skills"]["entries"]
    figures = {
        "systemPrompt": dict(run.report["systemPrompt"], hash="0" * 64),
        "skills": {"entries": [*entries[1:], {"name": "my-own", "blockChars": 99}]},
    }
    skills = compare(run, dataclasses.replace(other, exact_figures=figures))
    why = next(d.why for d in skills.differences if d.item == "prompt")
    first = entries[0]["name"]
    assert f"only the run had {first}; only the runtime lists my-own now" in why
    assert "project context" not in why
    figures["skills"] = dict(run.report["skills"])
    same_sizes = compare(run, dataclasses.replace(other, exact_figures=figures))
    why = next(d.why for d in same_sizes.differences if d.item == "prompt")
    assert "a value of the same length" in why and "skills list" not in why

    child = next(r for r in read_whole(read_state(state).runs) if r.session_key == CHILD)
    made = Inspector(workspace(tmp_path / "again")).session(CHILD)
    built = dataclasses.replace(made, exact="OpenClaw 2026.9.6", exact_sha256="0" * 64)
    why = next(d.why for d in compare(child, built).differences if d.item == "prompt")
    assert "the record holds no spawn task" in why
