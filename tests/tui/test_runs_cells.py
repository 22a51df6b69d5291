"""`ctxscope runs` and the Runs panel answer "which model, which files" for a run with the
same code and in the same words."""

from __future__ import annotations

import pytest
from rich.text import Text

from ctxscope.diff.runlist import RunRow
from ctxscope.output.runs import HEADERS, _tree_cells
from ctxscope.runs.recorded import RecordedRun
from ctxscope.tui.widgets.runs_panel import COLUMNS, _cells

KEY = "agent:main:main"
FILES = [
    {"name": "AGENTS.md", "path": "/ws/AGENTS.md", "rawChars": 30_000, "truncated": True},
    {"name": "SOUL.md", "path": "/ws/SOUL.md", "missing": True},
    {"name": "TOOLS.md", "path": "/ws/TOOLS.md", "rawChars": 900, "injectedChars": 900},
]


def cli(run: RecordedRun, column: str) -> str:
    return _tree_cells([RunRow(run, 0)])[0][HEADERS.index(column)]


def panel(run: RecordedRun, column: str) -> str:
    cell = _cells(RunRow(run, 0), False, "", "")[COLUMNS.index(column)]
    return cell.plain if isinstance(cell, Text) else cell


@pytest.mark.parametrize(
    ("report", "entry_model", "model", "files"),
    [
        (
            {"provider": "anthropic", "model": "claude-x", "injectedWorkspaceFiles": FILES},
            None,
            "anthropic/claude-x",
            "3 (1 truncated, 1 missing)",
        ),
        ({"systemPrompt": {"chars": 10}}, "openai/gpt-5", "openai/gpt-5", "0"),
        (None, "openai/gpt-5", "openai/gpt-5", "no report"),
        (None, None, "-", "no report"),
    ],
    ids=["recorded", "model-from-the-entry", "no-report", "nothing"],
)
def test_the_command_and_the_panel_show_one_model_and_one_files_cell(
    report: dict[str, object] | None, entry_model: str | None, model: str, files: str
) -> None:
    run = RecordedRun(KEY, "main", "store", "sqlite", report=report, entry_model=entry_model)
    assert cli(run, "model") == panel(run, "model") == model
    assert cli(run, "files") == panel(run, "files") == files
