"""Where the tokens go: categories of a session and their share of a cell grid."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from ctxscope.api import inspect
from ctxscope.core.contextmap import MapCategory, cells, colour_vars, context_map, grid, lost_labels

SAMPLE = Path(__file__).resolve().parents[1] / "sample_workspace"


def test_categories_add_up_to_the_session_and_the_window() -> None:
    report = inspect(SAMPLE, target="coder", task="Review the PR")
    for session in (report.requester, report.child):
        assert session is not None
        cats = context_map(session)
        used = [c for c in cats if c.kind != "free"]
        assert sum(c.tokens for c in used) == session.tokens.total
        assert cats[-1].kind == "free"
        assert cats[-1].tokens == session.context_window - session.tokens.total
        sections = [s for c in used for s in c.sections if s not in ("task", "schemas")]
        assert sorted(sections) == sorted(s.id for s in session.sections)  # each exactly once
    main = {c.label for c in context_map(report.requester)}
    child = {c.label for c in context_map(report.child)}  # type: ignore[arg-type]
    assert {"SOUL.md", "MEMORY.md", "skills"} <= main - child  # what the subagent loses
    assert {"messages", "tool schemas", "subagent context"} <= child


@given(
    tokens=st.lists(st.integers(0, 10**6), min_size=1, max_size=12),
    count=st.integers(1, 400),
)
def test_cells_fill_the_grid_exactly_and_show_every_category(tokens: list[int], count: int) -> None:
    cats = [MapCategory(str(i), str(i), "file", t) for i, t in enumerate(tokens)]
    shares = cells(cats, count)
    if sum(tokens) == 0:
        assert shares == [0] * len(tokens)
        return
    assert sum(shares) == count
    assert all(n >= 0 for n in shares)
    holding = [i for i, t in enumerate(tokens) if t > 0]
    if len(holding) <= count // 2:
        assert all(shares[i] >= 1 for i in holding)
    assert all(shares[i] == 0 for i, t in enumerate(tokens) if t == 0)


def test_grid_shares_one_cell_size_between_sessions() -> None:
    """Drawn on the main session's scale, the subagent's grid fills cells in proportion to
    its tokens and leaves the rest empty; the main grid is full."""
    report = inspect(SAMPLE, target="coder", task="Review the PR")
    child = report.child
    assert child is not None
    main_cats, child_cats = context_map(report.requester), context_map(child)
    scale = report.requester.tokens.total
    main_cells = grid([c for c in main_cats if c.kind != "free"], scale, 400)
    child_cells = grid([c for c in child_cats if c.kind != "free"], scale, 400)
    assert len(main_cells) == len(child_cells) == 400
    assert None not in main_cells
    filled = sum(c is not None for c in child_cells)
    assert abs(filled - 400 * child.tokens.total / scale) <= 1
    assert child_cells[filled:] == [None] * (400 - filled)  # the empty part comes last
    assert lost_labels(main_cats, child_cats) == [
        "SOUL.md",
        "IDENTITY.md",
        "USER.md",
        "HEARTBEAT.md",
        "BOOTSTRAP.md",
        "MEMORY.md",
        "skills",
    ]
    colours = colour_vars(main_cats)
    files = [colours[c.key] for c in main_cats if c.kind == "file"]
    assert files[:6] == [f"ctx-map-file-{i}" for i in range(1, 7)]  # in turn
    assert colours["tools"] == "ctx-map-tools" and colours["free"] == "ctx-section-rule"
