"""Live: the installed OpenClaw 2026.9.6 gateway runs the sample against a model on
127.0.0.1 (`wirecapture`), and ctxscope's request for the same workspace is held to what it
sent: the system prompt (within 1 %, each section within 2 %), the tools (names, schema
chars within 2 %), the message kinds, the subagent's first message (identical apart from
time, ids and the gateway machine's fields) and the internal-context message; in exact mode,
both system prompts are the gateway's text (after the capture's normalisation) and the tools
are the ones it sent. About a minute each; `-m "not wire"` leaves them out. The generated
workspaces' captures are recorded (`test_wire_cases`).

The Tool Search capture also runs until the gateway's session store holds both sessions'
reports, and `ctxscope runs` is held to that store (one capture serves every test): in exact
mode, each session's prompt hashes to what the gateway recorded."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from ctxscope import Inspector
from ctxscope.cli import main as cli_main
from ctxscope.diff.causes import EXACT
from ctxscope.diff.runlist import list_runs
from ctxscope.runs import read_state
from ctxscope.runs.identity import identity_of
from tests import runtimes
from tests.conftest import SAMPLE
from tests.openclaw.record_wire import session_facts
from tests.openclaw.test_request import normalised
from tests.openclaw.wirecapture import MAIN, capture, user_texts, write_capture_config
from tests.openclaw.wirecases import PACKAGE, ROOT, STATE, mismatches, values
from tests.runs.stores import listing

pytestmark = pytest.mark.wire


@pytest.fixture(scope="session")
def node24() -> str:
    return str(runtimes.get("node24"))


@pytest.fixture(scope="session")
def openclaw_package() -> Path:
    return Path(runtimes.get("openclaw_package"))


_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_STATE = re.compile(r"<location>[^<\n]*?/state/")


def normalised_prompt(text: str) -> str:
    """A system prompt with the capture's normalisation: ids alike, the state folder (the
    gateway's, or exact mode's private one) alike."""
    return _STATE.sub("<location><state>/", _UUID.sub("<uuid>", text))


def as_transported(prompt: str) -> str:
    """Exact mode's prompt as the `openai-completions` transport sends it: the relocated
    `Runtime:` line (and its blank lines) moved out into the first user message."""
    return re.sub(r"\n+Runtime: [^\n]*", "", prompt, count=1)


def schema_chars(tool: dict[str, Any]) -> int:
    params = (tool.get("function") or {}).get("parameters")
    return len(json.dumps(params, separators=(",", ":"), ensure_ascii=False))


def both_recorded(state: Path) -> bool:
    """The store holds the main run's report and its child's."""
    runs = read_state(state).runs
    return {r.depth for r in runs if r.report is not None} >= {0, 1}


Capture = tuple[Path, Path, list[dict[str, Any]]]
"""The workspace, the state folder the gateway left, and the request bodies."""


@pytest.fixture(scope="module")
def captures(tmp_path_factory: pytest.TempPathFactory, node24: str, openclaw_package: Path) -> Any:
    """One capture per config, made on first use and shared by the module's tests."""
    made: dict[str, Capture] = {}

    def get(extra: dict[str, Any]) -> Capture:
        name = json.dumps(extra, sort_keys=True)
        if name not in made:
            root = tmp_path_factory.mktemp("wire")
            ws = root / "ws"
            shutil.copytree(SAMPLE, ws)
            (ws / "openclaw.json").unlink()  # the gateway reads the capture's config
            (ws / "BOOTSTRAP.md").unlink()  # deleted by the runtime once IDENTITY/USER are set
            settled = both_recorded if not extra else None
            bodies = capture(node24, openclaw_package, ws, root / "scratch", extra, settled=settled)
            made[name] = (ws, root / "scratch" / "state", bodies)
        return made[name]

    return get


@pytest.mark.parametrize(
    "extra",
    # Tool Search off, the generated workspaces and 2026.2.19 are recorded as sizes
    # (`tests/openclaw/data/wire/`, held offline by test_request and test_wire_cases); the
    # default config is captured live again on every run.
    [{}],
    ids=["tool-search-on"],
)
def test_ctxscope_sends_what_the_gateway_sent(
    captures: Any,
    extra: dict[str, Any],
    openclaw_package: Path,
    node24: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ws, state, bodies = captures(extra)
    main = next(b for b in bodies if MAIN in user_texts(b)[0])
    child = next(b for b in bodies if "[Subagent Task]" in user_texts(b)[0])

    write_capture_config(ws, extra)
    root = ws.parent
    sent_at = {ROOT: str(root), PACKAGE: str(openclaw_package), STATE: str(state)}
    with monkeypatch.context() as env:
        # The model as a user without an install sees it; the machine's folders apart.
        env.setenv("OPENCLAW_STATE_DIR", str(state))
        env.setenv("PATH", str(root / "no-bin"))
        env.setenv("npm_config_prefix", str(root / "no-npm"))
        report = Inspector(ws).report(run_scripts=False)
    assert report.child is not None
    for body, session in ((main, report.requester), (child, report.child)):
        request = session.wire
        assert request is not None
        sent = body.get("tools") or []
        assert [t.name for t in request.tools] == [t["function"]["name"] for t in sent]
        wire_schema = sum(schema_chars(t) for t in sent)
        assert abs(request.tool_schema_chars - wire_schema) <= 0.02 * wire_schema
        users = user_texts(body)
        assert [m.role for m in request.messages] == ["user"] * len(users)
        assert request.messages[1].kind == "internal-context"
        assert request.messages[1].chars == len(users[1])
        assert mismatches(session, session_facts(body, sent_at), values(root)) == []
    first = report.child.wire.messages[0].text
    assert normalised(first) == normalised(user_texts(child)[0])

    # Exact mode: the runtime's runner prepares both sessions; its text is what was sent.
    ins = Inspector(ws, exact=True, runtime=openclaw_package, node=node24)
    try:
        exact = ins.report(run_scripts=False)
    finally:
        ins.close()
    assert exact.child is not None
    for body, session in ((main, exact.requester), (child, exact.child)):
        assert session.exact.startswith("OpenClaw 2026.9.6")
        sent_prompt = body["messages"][0]["content"]
        assert normalised_prompt(as_transported(session.system_prompt)) == normalised_prompt(
            sent_prompt
        )
        assert session.wire is not None
        sent = body.get("tools") or []
        assert [t.name for t in session.wire.tools] == [t["function"]["name"] for t in sent]
        assert session.wire.tool_schema_chars == sum(schema_chars(t) for t in sent)
        assert session.wire.plan.catalog_source.startswith("installed: OpenClaw 2026.9.6")


def test_runs_shows_what_the_gateway_recorded(captures: Any) -> None:
    """`ctxscope runs` on the store the gateway left: main and child as a tree with their
    recorded figures and the comparison; SOUL.md edited afterwards is named as changed."""
    ws, state, bodies = captures({})
    write_capture_config(ws, {})
    view = list_runs(Inspector(ws), state=state)
    assert [(r.run.depth, r.level) for r in view.rows] == [(0, 0), (1, 1)]
    main, child = view.rows
    assert main.run.session_key == "agent:main:main"
    assert child.run.spawned_by == "agent:main:main" and child.run.label == "wire"
    sent = next(b for b in bodies if "[Subagent Task]" in user_texts(b)[0])
    assert (
        child.run.figure("tools", "entries")
        and child.run.figure("systemPrompt", "chars") > len(sent["messages"][0]["content"]) - 1000
    )
    assert [f.name for f in main.run.files()] == [
        "AGENTS.md",
        "SOUL.md",
        "IDENTITY.md",
        "USER.md",
        "MEMORY.md",
    ]
    for row in view.rows:
        assert row.comparison is not None
        assert {f["status"] for f in row.comparison.files} == {"same"}
    soul = ws / "SOUL.md"
    text, times = soul.read_text(), (soul.stat().st_atime_ns, soul.stat().st_mtime_ns)
    try:
        soul.write_text(text + "\nAnswer in one line.\n")
        again = list_runs(Inspector(ws), state=state).rows[0].comparison
        assert again is not None
        assert any(
            d.item == "file:SOUL.md" and d.cause == "changed-since-run" for d in again.differences
        )
        assert "SOUL.md changed since the run" in again.summary
    finally:
        soul.write_text(text)
        os.utime(soul, ns=times)


def test_runs_in_exact_mode_is_exactly_what_was_sent(
    captures: Any,
    openclaw_package: Path,
    node24: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`ctxscope runs --exact` on the store the gateway left: the installed runtime builds
    each recorded session with the run's identity (the child's own key, its requester and
    label, the session id, the state folder), and its prompt's sha256 is the one the gateway
    recorded, for the main session and the child; SOUL.md edited afterwards is named as
    changed since the run. Nothing in the state folder changes."""
    ws, state, _ = captures({})
    write_capture_config(ws, {})
    before = listing(state)
    # The command line first: the same verdicts from `runs WS --state DIR --exact`.
    code = cli_main(
        [
            "runs",
            str(ws),
            "--state",
            str(state),
            "--exact",
            "--runtime",
            str(openclaw_package),
            "--node",
            node24,
            "--format",
            "json",
        ]
    )
    assert code == 0
    sessions = json.loads(capsys.readouterr().out)["sessions"]
    assert [(s["spawn_depth"] or 0, s["comparison"]["verdict"]) for s in sessions] == [
        (0, "exact"),
        (1, "exact"),
    ]
    ins = Inspector(ws, exact=True, runtime=openclaw_package, node=node24)
    soul = ws / "SOUL.md"
    text, times = soul.read_text(), (soul.stat().st_atime_ns, soul.stat().st_mtime_ns)
    try:
        view = list_runs(ins, state=state)
        assert [r.level for r in view.rows] == [0, 1]
        for row in view.rows:
            assert row.comparison is not None
            assert (row.comparison.verdict, row.comparison.summary) == ("exact", EXACT)
            assert row.comparison.predicted_sha256 == row.run.figure("systemPrompt", "hash")
        # The runtime's own report of the prompt it built is the one the gateway recorded.
        for row in view.rows:
            built = ins.session(
                row.run.session_key, run=identity_of(row.run, state, ins.inputs.env)
            )
            assert built.exact_figures is not None
            assert built.exact_figures["systemPrompt"] == row.run.figure("systemPrompt")
            assert [
                (e["name"], e["blockChars"]) for e in built.exact_figures["skills"]["entries"]
            ] == [(e["name"], e["blockChars"]) for e in row.run.figure("skills", "entries")]
        soul.write_text(text + "\nAnswer in one line.\n")
        again = list_runs(ins, state=state).rows[0].comparison
        assert again is not None and again.verdict == "differs"
        assert any(
            d.item == "file:SOUL.md" and d.cause == "changed-since-run" for d in again.differences
        )
        assert "SOUL.md changed since the run" in again.summary
    finally:
        ins.close()
        soul.write_text(text)
        os.utime(soul, ns=times)
    assert listing(state) == before
