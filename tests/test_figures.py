"""One figures type for what a session is told: a build, a recorded run and a revision's
build all project onto `ctxscope.core.figures.SessionFigures`, what a side does not hold being the
value `NOT_RECORDED`."""

from __future__ import annotations

from pathlib import Path

from ctxscope.core.figures import NOT_RECORDED, NotRecorded, digest
from ctxscope.diff.build import build_side
from ctxscope.diff.runside import RunSide
from ctxscope.diff.sides import Base, opened, parse_side
from tests.diff.gitrepo import make_repo
from tests.runs.stores import MAIN, real_state, report_2026_2, workspace

CONFIG = '{"agents": {"defaults": {"workspace": "."}}}\n'


def test_a_recorded_run_is_figures_with_what_it_does_not_hold_not_recorded(tmp_path: Path):
    state = real_state(tmp_path)
    ws = workspace(tmp_path)
    side = parse_side(f"run:{MAIN}", Base(ws, state=str(state)))
    assert isinstance(side.build, RunSide)
    fig = side.build.figures()
    assert fig.session_key == MAIN and fig.recorded
    assert fig.runtime_release == "2026.9.6"
    # a record holds chars: its sections, tokens and digests are not recorded, as values
    assert fig.sections is NOT_RECORDED and fig.listed is NOT_RECORDED
    assert fig.prompt.tokens is NOT_RECORDED and fig.total is NOT_RECORDED
    assert fig.prompt.chars > 0 and fig.prompt.chars4() == -(-fig.prompt.chars // 4)
    soul = next(f for f in fig.files if f.name == "SOUL.md")
    assert (soul.status, soul.injected_chars, soul.digest) == ("injected", 1079, NOT_RECORDED)
    assert fig.sent and "read" in fig.sent
    assert str(fig.sections) == "not recorded"
    # the side built from the record carries the same figures, so a comparison sees them
    built = build_side(side)
    assert built.recorded and built.session_figures()[MAIN] == fig


def test_a_revision_and_the_workspace_now_project_onto_the_same_figures(tmp_path: Path):
    ws = make_repo(tmp_path / "repo", 2, {"openclaw.json": CONFIG, "SOUL.md": "# Soul\nCalm.\n"})
    base = Base(ws)
    figures = {}
    for spec in ("HEAD~1", "now"):
        with opened(parse_side(spec, base)) as ready:
            built = build_side(ready)
            figures[spec] = built.session_figures()[built.requester_key or ""]
    then, now = figures["HEAD~1"], figures["now"]
    assert not then.recorded and not now.recorded
    assert isinstance(then.total, int)
    by_name = {spec: {f.name: f for f in fig.files} for spec, fig in figures.items()}
    # the same text read from the revision's scratch copy and from the work tree: one digest
    assert by_name["HEAD~1"]["SOUL.md"].digest == by_name["now"]["SOUL.md"].digest
    assert by_name["HEAD~1"]["AGENTS.md"].digest != by_name["now"]["AGENTS.md"].digest
    # a revision's headings name the repository's folder, not its scratch copy
    assert not isinstance(then.sections, NotRecorded)
    assert not isinstance(now.sections, NotRecorded)
    assert [s.heading for s in then.sections] == [s.heading for s in now.sections]


def test_a_record_holds_what_the_causes_of_a_difference_need(tmp_path: Path):
    """The prompt's hash, the skills, the tool schemas' chars, the bootstrap limits and the
    recording time are a record's figures; a file without its size on disk is not recorded."""
    from ctxscope.runs.figures import run_figures
    from ctxscope.runs.recorded import RecordedRun

    ws = workspace(tmp_path)
    report = report_2026_2(MAIN, ws, 1_700_000_000_000)
    report["skills"]["entries"] = [{"name": "weather", "blockChars": 120}]
    del report["injectedWorkspaceFiles"][0]["rawChars"]
    run = RecordedRun(MAIN, "main", "sessions.json", "json", report=report)
    fig = run_figures(run, "main", "full", 200_000)
    assert fig.prompt_hash is NOT_RECORDED  # 2026.2 records no hash
    assert fig.skills == ("weather",)
    assert fig.tool_schema_chars == 9000
    assert fig.limits == (20000, 150000)
    assert fig.generated_at == 1_700_000_000_000
    assert fig.files[0].raw_chars is NOT_RECORDED and fig.files[0].injected_chars == 2032
    # what a record lacks is not recorded, not an empty list or a zero
    report = report_2026_2(MAIN, ws, 1)
    del report["skills"], report["tools"], report["bootstrapMaxChars"]
    bare = run_figures(RecordedRun(MAIN, "main", "s", "json", report=report), "main", "full", 1)
    assert bare.skills is NOT_RECORDED and bare.tool_schema_chars is NOT_RECORDED
    assert bare.limits == (NOT_RECORDED, 150000)


def test_a_build_holds_its_prompt_hash_skills_and_tool_schemas(tmp_path: Path):
    ws = make_repo(tmp_path / "repo", 1, {"openclaw.json": CONFIG, "SOUL.md": "# Soul\nCalm.\n"})
    with opened(parse_side("now", Base(ws))) as ready:
        built = build_side(ready)
    session = built.sessions[built.requester_key or ""]
    fig = built.session_figures()[built.requester_key or ""]
    assert fig.prompt_hash == digest(session.system_prompt)
    assert fig.skills == tuple(s.name for s in session.skills if s.listed)
    assert session.wire is not None
    assert fig.tool_schema_chars == session.wire.tool_schema_chars > 0
    # a build's limits and time come from its config, not from the figures
    assert fig.limits == (NOT_RECORDED, NOT_RECORDED) and fig.generated_at is NOT_RECORDED
