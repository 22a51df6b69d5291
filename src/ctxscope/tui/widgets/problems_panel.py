"""Problems panel: what `ctxscope check` reports and every diagnostic, a row each, severity
marked and coloured. Enter on a row about a session's file shows that file's section in its
pane and explains it (Why); `o` opens the row's file at its line."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Static

from ctxscope.core.record import record
from ctxscope.tui.build import Build
from ctxscope.tui.shorten import home_path
from ctxscope.tui.widgets.common import color
from ctxscope.tui.widgets.tables import KeyedTable

COLUMNS = ("", "kind", "where", "problem")
MARK = {"error": "✗", "warning": "⚠", "finding": "▲", "info": "·"}
"""The severity marks, worst first: errors, warnings, findings that fail a CI run, notes."""


@record(frozen=True)
class Target:
    """What a problem row points at: a session's file (`side`, `item`) and a place on disk."""

    side: str | None = None
    item: str | None = None
    path: str | None = None
    line: int | None = None


def on_disk(path: str, base: str) -> str:
    """A problem's `path` as an absolute path: one written relative (a script's file, as
    the config names it) is the workspace's `base`'s; a URL stays as it is."""
    if "://" in path:
        return path
    return os.path.normpath(os.path.join(base, path))


def where(path: str | None, line: int | None, base: str, home: str | None = None) -> str:
    """The "where" column: one kind of path for every row. Inside the workspace `base`,
    relative to it; elsewhere, absolute (the home folder as `~`); a URL as it is."""
    if not path:
        return "-"
    shown = on_disk(path, base)
    if "://" not in shown:
        inside = _inside(shown, os.path.normpath(base))
        if inside is None:  # the workspace or the file named through a link
            inside = _inside(os.path.realpath(shown), os.path.realpath(base))
        shown = inside if inside is not None else home_path(shown, home)
    return f"{shown}:{line}" if line else shown


def _inside(path: str, root: str) -> str | None:
    """`path` relative to `root` when it is inside it, else None (the workspace itself is
    named whole: `.` would say nothing)."""
    if path.startswith(root.rstrip(os.sep) + os.sep):
        return os.path.relpath(path, root)
    return None


def _message(message: str, path: str | None) -> str:
    """The message without a leading `NAME: ` that repeats the file the row names."""
    name = os.path.basename(path or "")
    return message[len(name) + 2 :] if name and message.startswith(f"{name}: ") else message


class ProblemsPanel(Vertical):
    """A row per problem; `targets` maps row keys to what they point at."""

    class Chosen(Message):
        """Enter on a problem row."""

        def __init__(self, target: Target, text: str) -> None:
            super().__init__()
            self.target, self.text = target, text

    DEFAULT_CSS = """
    ProblemsPanel { height: 1fr; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.targets: dict[str, Target] = {}
        self._texts: dict[str, str] = {}
        self._summary = ""

    def compose(self) -> ComposeResult:
        yield Static(markup=False, id="problems-summary", classes="panel-summary")
        yield KeyedTable(COLUMNS, id="problems-table")

    def show(self, build: Build, error: Any = None, app_problems: Sequence[Any] = ()) -> None:
        base = str(build.inputs.workspace)
        files: dict[str, tuple[str, str]] = {}
        for side, session in (("main", build.source.requester), ("child", build.source.child)):
            for entry in session.files if session is not None else []:
                files.setdefault(entry.path, (side, entry.name))
        rows: list[tuple[str, tuple[Text | str, ...]]] = []
        self.targets, self._texts = {}, {}
        styles = {
            "error": f"bold {color(self.app, 'error')}",
            "warning": color(self.app, "warning"),
            "finding": color(self.app, "ctx-truncated"),
            "info": color(self.app, "ctx-placeholder"),
        }

        def add(level: str, kind: str, path: str | None, line: int | None, text: str) -> None:
            key = f"problem:{len(rows)}"
            side, item = files.get(path or "", (None, None))
            self.targets[key] = Target(side, item, on_disk(path, base) if path else None, line)
            message = _message(text, path)
            self._texts[key] = message
            style = styles[level]
            rows.append(
                (
                    key,
                    (
                        Text(MARK[level], style=style),
                        Text(kind, style=style),
                        where(path, line, base),
                        Text(message, style=style),
                    ),
                )
            )

        if error is not None:
            add("error", "build", None, None, f"{error} (showing the last good build)")
        for d in app_problems:
            add(d.severity if d.severity in styles else "info", "watch", d.path, d.line, d.message)
        for f in build.findings:
            add("info" if f.info else "finding", f.kind, f.path, f.line, f.message)
        for d in build.diagnostics:
            level = d.severity if d.severity in styles else "info"
            add(level, d.code or d.severity, d.path, d.line, d.message)
        failing = sum(not f.info for f in build.findings)
        parts = [f"ctxscope check: {failing} finding(s) that fail a CI run"]
        if build.check_pending:
            parts.append("checking every project Rye directive and item… (their findings follow)")
        parts.append("Enter: show the file and why · o: open it at the line")
        summary = "  ·  ".join(parts) if rows or build.check_pending else "No problems found."
        if summary != self._summary:
            self._summary = summary
            self.query_one("#problems-summary", Static).update(summary)
        self.query_one(KeyedTable).set_rows(rows)

    @property
    def plain(self) -> str:
        """The panel as plain text (what a copy or a test reads)."""
        return "\n".join([self._summary, *self.query_one(KeyedTable).plain_rows()])

    @on(KeyedTable.Selected)
    def _chosen(self, event: KeyedTable.Selected) -> None:
        event.stop()  # Enter here jumps to the file (w still explains the row's item)
        target = self.targets.get(event.key)
        if target is not None:
            self.post_message(self.Chosen(target, self._texts.get(event.key, "")))
