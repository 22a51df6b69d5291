"""One figures type for what a session is told: a build, a recorded run and a revision's
build all project onto `ctxscope.figures.SessionFigures`, what a side does not hold being the
value `NOT_RECORDED`."""

from __future__ import annotations

from pathlib import Path

from ctxscope.diff.build import build_side
from ctxscope.diff.runside import RunSide
from ctxscope.diff.sides import Base, opened, parse_side
from ctxscope.figures import NOT_RECORDED, NotRecorded
from tests.diff.gitrepo import make_repo
from tests.runs.stores import MAIN, real_state, workspace

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
