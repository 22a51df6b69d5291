"""`ctxscope runs` on the `sessions.json` the real OpenClaw 2026.2.19 gateway left after a wire
capture of the sample (`tests/openclaw/wirecapture.py`: an `openclaw agent` turn of the main
agent that spawned a child labelled `wire`; the first spawn attempt, made before the capture
approved the device scope upgrade, left a bare child entry). 2026.2.19 records no
`systemPromptReport` for such turns: every session is listed, none with a report."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

from ctxscope import Inspector
from ctxscope.diff.runlist import list_runs
from ctxscope.output import render
from ctxscope.runs.store import read_state
from tests.conftest import SAMPLE

STORE = Path(__file__).parent / "data" / "sessions-2026.2.19.json.gz"


def state_of(tmp: Path) -> Path:
    sessions = tmp / "state" / "agents" / "main" / "sessions"
    sessions.mkdir(parents=True)
    (sessions / "sessions.json").write_bytes(gzip.decompress(STORE.read_bytes()))
    return tmp / "state"


def test_the_real_2026_2_store_lists_the_spawn_tree_without_reports(tmp_path: Path) -> None:
    state = state_of(tmp_path)
    before = (state / "agents/main/sessions/sessions.json").read_bytes()
    ws = tmp_path / "ws"
    shutil.copytree(SAMPLE, ws)
    view = list_runs(Inspector(ws), state=state)
    rows = [(r.level, r.run.session_key, r.run.spawned_by, r.run.label) for r in view.rows]
    main = "agent:main:main"
    spawned = [key for _, key, parent, label in rows if parent == main and label == "wire"]
    assert len(spawned) == 1 and spawned[0].startswith("agent:main:subagent:")
    assert (1, spawned[0], main, "wire") in rows and (0, main, None, None) in rows
    # The spawn the device scope upgrade held back names no parent: a root of its own.
    assert {level for level, key, _, _ in rows if key not in (main, spawned[0])} == {0}
    assert all(row.run.report is None and row.comparison is None for row in view.rows)
    lines = render(view, "text").splitlines()
    for key in (main, spawned[0]):
        [line] = [line for line in lines if key in line]
        assert line.rstrip().endswith("no report recorded")
    # The model the child's entry names (its report-less run's), where the main's names none.
    [child_line] = [line for line in lines if spawned[0] in line]
    assert " wire/wire-model " in child_line
    shown = json.loads(render(view, "json"))
    assert [s["recorded"] for s in shown["sessions"]] == [None] * len(rows)
    assert (state / "agents/main/sessions/sessions.json").read_bytes() == before
    assert sorted(p.name for p in (state / "agents/main/sessions").iterdir()) == ["sessions.json"]


def test_the_real_2026_2_store_reads_every_entry(tmp_path: Path) -> None:
    read = read_state(state_of(tmp_path))
    data = json.loads(gzip.decompress(STORE.read_bytes()))
    assert sorted(r.session_key for r in read.runs) == sorted(data)
    assert [r.store_kind for r in read.runs] == ["json"] * len(data)
    assert read.problems == []


def test_a_2026_2_store_is_predicted_with_2026_2_rules_and_the_release_named(
    tmp_path: Path,
) -> None:
    """A `sessions.json` store is what the 2026.2 line writes: its run is predicted with
    2026.2's rules (TOOLS.md and HEARTBEAT.md listed, its bootstrap limits), and the other
    release the workspace runs now is named; a limit the config does not set is never a
    config change."""
    from tests.runs.stores import MAIN, RECORDED_AT, report_2026_2, workspace

    ws = workspace(tmp_path)
    sessions = tmp_path / "state" / "agents" / "main" / "sessions"
    sessions.mkdir(parents=True)
    entry = {"sessionId": "s1", "systemPromptReport": report_2026_2(MAIN, ws, RECORDED_AT)}
    (sessions / "sessions.json").write_text(json.dumps({MAIN: entry}))
    view = list_runs(Inspector(ws), state=tmp_path / "state", session=MAIN)
    made = view.rows[0].comparison
    assert made is not None
    names = [f["name"] for f in made.files]
    assert "TOOLS.md" in names and "HEARTBEAT.md" in names
    assert not any(d.item == "limits" for d in made.differences)
    (runtime,) = [d for d in made.differences if d.item == "runtime"]
    assert runtime.cause == "runtime"
    assert "OpenClaw 2026.2 recorded the run (a sessions.json store" in runtime.why
    assert "the workspace runs 2026.9.6 now" in runtime.why
    assert "runtime version change" in made.summary
    # `--profile` keeps the rules asked for: the limit is the release's, not the config's
    asked = (
        list_runs(
            Inspector(ws, scenario={"profile": "openclaw-2026.9"}),
            state=tmp_path / "state",
            session=MAIN,
        )
        .rows[0]
        .comparison
    )
    assert asked is not None
    (limit,) = [d for d in asked.differences if d.item == "limits"]
    assert limit.cause == "runtime" and "the config sets none" in limit.why
    assert "config change: bootstrapTotalMaxChars" not in str(asked.to_dict())


def test_a_limit_the_config_sets_is_named_with_its_line(tmp_path: Path) -> None:
    from tests.runs.stores import MAIN, RECORDED_AT, report_2026_2, workspace

    ws = workspace(tmp_path)
    config = json.loads((ws / "openclaw.json").read_text())
    config.setdefault("agents", {}).setdefault("defaults", {})["bootstrapMaxChars"] = 9000
    (ws / "openclaw.json").write_text(json.dumps(config, indent=2))
    line = next(
        n
        for n, text in enumerate((ws / "openclaw.json").read_text().splitlines(), 1)
        if "bootstrapMaxChars" in text
    )
    sessions = tmp_path / "state" / "agents" / "main" / "sessions"
    sessions.mkdir(parents=True)
    entry = {"sessionId": "s1", "systemPromptReport": report_2026_2(MAIN, ws, RECORDED_AT)}
    (sessions / "sessions.json").write_text(json.dumps({MAIN: entry}))
    made = list_runs(Inspector(ws), state=tmp_path / "state", session=MAIN).rows[0].comparison
    assert made is not None
    (limit,) = [d for d in made.differences if d.item == "limits"]
    assert limit.cause == "config"
    assert limit.why == (
        f"config change: bootstrapMaxChars was 20,000, now 9,000 (openclaw.json:{line})"
    )


def test_the_app_puts_a_2026_2_run_beside_its_own_releases_prediction(tmp_path: Path) -> None:
    """What the Runs panel shows of a 2026.2 run (`runs.beside`): the figures it sets beside
    the record are those of the prediction the comparison made, by 2026.2's rules."""
    from ctxscope.tui.recorded import beside
    from tests.runs.stores import MAIN, RECORDED_AT, report_2026_2, workspace

    ws = workspace(tmp_path)
    sessions = tmp_path / "state" / "agents" / "main" / "sessions"
    sessions.mkdir(parents=True)
    entry = {"sessionId": "s1", "systemPromptReport": report_2026_2(MAIN, ws, RECORDED_AT)}
    (sessions / "sessions.json").write_text(json.dumps({MAIN: entry}))
    run = read_state(tmp_path / "state").runs[0]
    shown = beside(Inspector(ws), run, str(tmp_path / "state"))
    assert shown.figures[0].item == "prompt"
    assert shown.figures[0].predicted == shown.comparison.predicted_prompt_chars
    assert "TOOLS.md" in {f.item for f in shown.figures}
    assert any(d.item == "runtime" for d in shown.comparison.differences)


def test_a_profile_of_no_family_keeps_its_own_rules_for_a_recorded_run(tmp_path: Path) -> None:
    """Only a profile of a runtime modelled release by release (OpenClaw's) is swapped for
    the recording release's: a user's profile that names no family is taken as it is, as
    `--profile` is."""
    from ctxscope.runtimes.profiles import BUNDLED
    from tests.runs.stores import MAIN, RECORDED_AT, report_2026_2, workspace

    ws = workspace(tmp_path)
    text = (BUNDLED / "openclaw-2026.9.yaml").read_text(encoding="utf-8")
    (ws / "mine.yaml").write_text(text.replace("family: openclaw\n", ""), encoding="utf-8")
    scenario = ws / "ctxscope.yaml"
    scenario.write_text(scenario.read_text(encoding="utf-8") + "profile: mine.yaml\n")
    sessions = tmp_path / "state" / "agents" / "main" / "sessions"
    sessions.mkdir(parents=True)
    entry = {"sessionId": "s1", "systemPromptReport": report_2026_2(MAIN, ws, RECORDED_AT)}
    (sessions / "sessions.json").write_text(json.dumps({MAIN: entry}))
    inspector = Inspector(ws)
    assert inspector.inputs.profile.family == ""
    made = list_runs(inspector, state=tmp_path / "state", session=MAIN).rows[0].comparison
    assert made is not None
    (limit,) = [d for d in made.differences if d.item == "limits"]  # 2026.9's, not the run's
    assert limit.cause == "runtime" and "the config sets none" in limit.why
