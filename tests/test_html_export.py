"""The HTML page: context maps on one cell size, both sessions, the spawn; safe to open."""

from __future__ import annotations

import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import yaml

from ctxscope.api import inspect
from ctxscope.core.contextmap import context_map
from ctxscope.output.html import COLUMNS, PALETTE, ROWS
from ctxscope.output.report import report_html

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample_workspace"


class Page(HTMLParser):
    """Collects each grid's cells (their titles) and each table's rows (cell texts)."""

    def __init__(self) -> None:
        super().__init__()
        self.grids: list[list[str]] = []
        self.tables: list[list[list[str]]] = []
        self.scripts = 0
        self._in_grid = False
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "script":
            self.scripts += 1
        elif tag == "div" and a.get("class") == "grid":
            self.grids.append([])
            self._in_grid = True
        elif tag == "i" and self._in_grid:
            self.grids[-1].append(a.get("title") or "")
        elif tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "div":
            self._in_grid = False
        elif tag in ("td", "th") and self._cell is not None:
            self.tables[-1][-1].append("".join(self._cell).strip())
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def parse(text: str) -> Page:
    page = Page()
    page.feed(text)
    return page


def test_the_page_draws_both_maps_on_one_scale_with_the_lost_rows(tmp_path: Path) -> None:
    report = inspect(SAMPLE, target="coder", task="Review the PR")
    assert report.child is not None
    text = report_html(report)
    assert text.startswith("<!doctype html>")
    page = parse(text)
    main, child = page.grids
    assert len(main) == len(child) == COLUMNS * ROWS
    assert "unused" not in main  # the larger session fills its grid
    filled = sum(t != "unused" for t in child)
    expected = COLUMNS * ROWS * report.child.tokens.total / report.requester.tokens.total
    assert abs(filled - expected) <= 1
    assert main.count("SOUL.md") > 0 and "SOUL.md" not in child
    legends = [t for t in page.tables if t[0] and t[0][1:3] == ["category", "≈tokens"]]
    child_legend = legends[1]
    lost = [row[1] for row in child_legend if row[-1] == "lost"]
    assert lost[0] == "SOUL.md" and "skills" in lost
    rows = {row[1]: row for row in legends[0][1:]}
    memory = next(c for c in context_map(report.requester) if c.label == "MEMORY.md")
    assert rows["MEMORY.md"][2] == f"{memory.tokens:,}"
    assert report.requester.system_prompt.splitlines()[0] in text
    assert "Policy checks" in text and page.scripts == 0


def test_workspace_text_is_escaped(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "AGENTS.md").write_text("# Rules\n<script>alert(1)</script> & <b>bold</b>\n")
    text = report_html(inspect(ws))
    assert "<script>" not in text and "&lt;script&gt;alert(1)&lt;/script&gt;" in text
    assert parse(text).scripts == 0


def test_the_palette_is_the_light_theme() -> None:
    theme = yaml.safe_load((ROOT / "themes" / "ctxscope-light.yaml").read_text())
    assert {k: v.upper() for k, v in PALETTE.items()} == {
        k: theme["variables"][k].upper() for k in PALETTE
    }


def test_render_and_spawn_write_html_from_the_command_line(tmp_path: Path) -> None:
    def run(*args: str) -> str:
        done = subprocess.run(
            [sys.executable, "-m", "ctxscope", *args, str(SAMPLE), "--format", "html"],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    one = parse(run("render"))
    assert len(one.grids) == 1 and len(one.grids[0]) == COLUMNS * ROWS
    both = run("spawn", "--target", "coder", "--task", "Review the PR")
    assert len(parse(both).grids) == 2 and "Context scripts" in both
