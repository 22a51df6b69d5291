"""The app's actions on what is selected: which item is under the cursor (for Why), find in
a pane (`/`, n/N), copy a section or the whole prompt (OSC 52 and a file), and open the file
behind the selection in the user's editor."""

from __future__ import annotations

import os
import shlex
from pathlib import Path
from typing import TYPE_CHECKING

from textual.app import App, SuspendNotSupported

from ctxscope.core.model import FileEntry, Session
from ctxscope.infra import processes
from ctxscope.tui import export as export_mod
from ctxscope.tui.render import Block
from ctxscope.tui.screens.cut import CutScreen
from ctxscope.tui.screens.search import SearchScreen
from ctxscope.tui.widgets.chain_panel import ChainTree
from ctxscope.tui.widgets.lost_line import LOST, LostLine
from ctxscope.tui.widgets.pane import PromptPane
from ctxscope.tui.widgets.problems_panel import ProblemsPanel, Target
from ctxscope.tui.widgets.prompt_view import PromptView
from ctxscope.tui.widgets.tables import KeyedTable

if TYPE_CHECKING:
    import datetime as dt
    from collections.abc import Callable

    from ctxscope.tui.build import Build
    from ctxscope.tui.controller import Controller


class PaneActions(App[None]):
    """Pane actions of the inspector (mixed into `CtxscopeApp`)."""

    build: Build | None
    ctl: Controller
    rye_pane: bool
    export_dir: Path | None
    clock: Callable[[], dt.datetime]
    last_export: dict[str, Path]

    def current_item(self) -> str | None:
        """The item under the cursor of the focused widget, as `ctxscope explain` names it."""
        focused = self.focused
        if isinstance(focused, LostLine):
            return LOST
        if isinstance(focused, PromptView):
            key = focused.selected
            if key is None:
                anchor = focused.top_anchor()
                key = anchor[0] if anchor else None
            return item_for_key(key) if key else None
        if isinstance(focused, KeyedTable):
            key = focused.current_key
            if key is not None and key.startswith("problem:"):
                return self._problem(key).item or self._problem(key).path
            return item_for_key(key) if key else None
        if isinstance(focused, ChainTree):
            node = focused.cursor_node
            if node is not None and node.data and node.data.get("id"):
                return str(node.data["id"])
        return None

    def _pane_view(self) -> PromptView:
        """The focused prompt view, else the main pane's."""
        focused = self.focused
        if isinstance(focused, PromptView):
            return focused
        return self.query_one("#main", PromptPane).view

    def action_search(self) -> None:
        view = self._pane_view()
        pane = "subagent" if view.id == "child-view" else "main"
        self.push_screen(
            SearchScreen(pane, view.query_text), lambda q: self._search_answer(view, q)
        )

    def _search_answer(self, view: PromptView, query: str | None) -> None:
        if query is None:
            return
        count = view.search(query)
        view.focus()
        if not query:
            return
        elsewhere = self._found_elsewhere(view, query)
        if not count:
            pane = "subagent" if view.id == "child-view" else "main"
            self.notify(
                markup=False,
                message=f"{query!r}: not in the {pane} pane"
                + (f"; {elsewhere}" if elsewhere else ""),
                severity="warning",
                timeout=10 if elsewhere else 5,
            )
        else:
            more = f" ({elsewhere})" if elsewhere else ""
            self.notify(markup=False, message=f"{query!r}: {count} match(es){more}; n / N to move")

    def _found_elsewhere(self, view: PromptView, query: str) -> str:
        """Where else `query` is: the other pane's matches and their sections, and why the
        subagent lacks those it does not get (`3 in the main pane: IDENTITY.md, USER.md; the
        subagent does not get IDENTITY.md, USER.md: …`); "" when the other pane has none."""
        views = {v.id: v for v in self.query(PromptView)}
        other = views.get("main-view" if view.id == "child-view" else "child-view")
        if other is None:
            return ""
        needle = query.lower()
        hits = [(b, b.body.lower().count(needle)) for b in other.blocks]
        hits = [(b, n) for b, n in hits if n]
        if not hits:
            return ""
        pane = "main" if other.id == "main-view" else "subagent"
        lost = {e.item: e for e in (self.build.lost if self.build is not None else [])}
        labels = [
            b.key.removeprefix("file:") if b.key.startswith("file:") else b.heading.lstrip("# ")
            for b, _ in hits
        ]
        gone = [name for name in labels if name in lost]
        shown = ", ".join(labels[:4]) + (f" +{len(labels) - 4} more" if len(labels) > 4 else "")
        total = sum(n for _, n in hits)
        why = f"; the subagent does not get {', '.join(gone)}: {lost[gone[0]].rule}" if gone else ""
        return f"{total} in the {pane} pane: {shown}{why}"

    def _pane_of(self, view: PromptView) -> tuple[str, Session | None]:
        """("main" | "child", the session the view shows; None for the Rye thread)."""
        build = self.build
        if view.id == "child-view":
            return "child", build.child if build else None
        thread = build.report.thread if build and self.rye_pane else None
        return "main", None if thread is not None else (build.report.requester if build else None)

    def _current_block(self, view: PromptView) -> Block | None:
        key = view.selected
        if key is None:
            anchor = view.top_anchor()
            key = anchor[0] if anchor else None
        return next((b for b in view.blocks if b.key == key), None)

    def action_copy_section(self) -> None:
        """`c`: the selected section's text (exactly as sent) to the clipboard and a file."""
        view = self._pane_view()
        block = self._current_block(view)
        if block is None:
            return
        _, session = self._pane_of(view)
        section = session.section(block.key) if session is not None else None
        if session is not None and block.key == "task":
            text = session.task_message or ""
        elif section is not None:
            text = section.text
        else:
            text = block.body
        self.copy_out(text, f"section {block.heading}", block.key)

    def action_copy_prompt(self) -> None:
        """`C`: the pane's whole prompt: system prompt, then the first user message."""
        view = self._pane_view()
        side, session = self._pane_of(view)
        thread = self.build.report.thread if self.build else None
        if session is not None:
            parts = [session.system_prompt, session.task_message or ""]
        elif thread is not None:
            parts = [thread.system_message, thread.first_message]
        else:
            return
        self.copy_out("\n\n".join(p for p in parts if p), f"the {side} prompt", side)

    def copy_out(self, text: str, what: str, name: str) -> None:
        """`text` to the clipboard (OSC 52) and to a `.txt` file in the export folder."""
        self.copy_to_clipboard(text)  # OSC 52: works over ssh and in tmux with set-clipboard
        folder = export_mod.export_folder(self.ctl.workspace, self.export_dir)
        stem = "ctxscope-" + self.clock().strftime("%Y%m%d-%H%M%S") + "-" + _slug(name)
        try:
            path = export_mod.write_export(folder, stem, "txt", text)
        except OSError as exc:
            self.notify(markup=False, message=f"copied {what}; file not written: {exc}")
            return
        self.last_export["txt"] = path
        self.notify(markup=False, message=f"copied {what} ({len(text):,} chars); also in {path}")

    def _source_path(self) -> tuple[Path, int] | None:
        """The file behind the selected section, files-table row or Rye part, and the line to
        open it at (where the last search hit or `J` went in that section, else 1)."""
        focused = self.focused
        if isinstance(focused, KeyedTable) and (focused.current_key or "").startswith("problem:"):
            target = self._problem(focused.current_key or "")
            return (Path(target.path), target.line or 1) if target.path else None
        item = self.current_item()
        if item is None or self.build is None:
            return None
        build = self.build
        real = build.source  # the shown build masks values from the environment, paths too
        sessions = [real.requester] + ([real.child] if real.child else [])
        if isinstance(focused, PromptView):
            side, session = self._pane_of(focused)
            pane = real.child if side == "child" else real.requester
            sessions = [pane] if session is not None and pane is not None else []
        elif isinstance(focused, KeyedTable) and focused.current_key:
            side = focused.current_key.split(":", 1)[0]  # a Files row: `child:AGENTS.md`
            if side in ("main", "child"):
                pane = real.child if side == "child" else real.requester
                sessions = [pane] if pane is not None else []
        for s in sessions:
            f = s.file(item)
            if f is not None and f.path:
                line = self._point_line(focused, s, f) if isinstance(focused, PromptView) else 1
                return Path(f.path), line
        thread = real.thread
        if thread is not None:
            k = thread.knowledge.get(item)
            if k is not None:
                return Path(k.path), 1
            if thread.directive_item is not None and item == thread.directive:
                return Path(thread.directive_item.path), 1
        return None

    def _problem(self, key: str) -> Target:
        return self.query_one(ProblemsPanel).targets.get(key) or Target()

    def _point_line(self, view: PromptView, session: Session, entry: FileEntry) -> int:
        """The file's line under the view's last search hit or `J` (1 when there is none in
        the selected section)."""
        point = view.point
        block = self._current_block(view)
        section = session.section(f"file:{entry.name}")
        if point is None or block is None or section is None or point[0] != block.key:
            return 1
        start = section.text.find(entry.body) if entry.body else -1
        if start < 0:
            return 1
        in_section = len(section.text) - len(block.body) + point[1]
        return self.ctl.file_line(entry, in_section - start)

    def action_view_cut(self) -> None:
        """`v`: the text a truncation dropped from the selected file's section."""
        view = self._pane_view()
        block = self._current_block(view)
        side, session = self._pane_of(view)
        if session is not None and self.build is not None:  # the file as read, not as shown
            real = self.build.source
            session = real.child if side == "child" else real.requester
        entry = (
            session.file(block.key.removeprefix("file:"))
            if session is not None and block is not None and block.key.startswith("file:")
            else None
        )
        cut = self.ctl.cut_text(entry) if entry is not None else None
        if entry is None or cut is None:
            self.notify(
                markup=False,
                message="Select a truncated file's section first (J jumps to the next cut).",
                severity="warning",
            )
            return
        first, last, total, text = cut
        title = f"What the runtime cut from {entry.name}: ≈ lines {first}–{last} of {total}"
        name = f"cut-{entry.name}"
        self.push_screen(
            CutScreen(
                title,
                text,
                lambda t: self.copy_out(t, f"the text cut from {entry.name}", name),
                lambda: self.open_in_editor(Path(entry.path), first),
            )
        )

    def action_open_editor(self) -> None:
        """`o`: open the file behind the selection in $VISUAL / $EDITOR (the app suspends)."""
        found = self._source_path()
        if found is None:
            self.notify(
                markup=False,
                message="Select a workspace file's section, row or Rye part first.",
                severity="warning",
            )
            return
        self.open_in_editor(*found)

    def open_in_editor(self, path: Path, line: int = 1) -> None:
        """Hand the terminal to $VISUAL / $EDITOR on `path` at `line`."""
        editor = shlex.split(os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi")
        try:
            with self.suspend():
                processes.run("editor", editor_command(editor, path, line))
        except SuspendNotSupported:
            self.notify(
                markup=False,
                message=f"this terminal cannot hand over the screen: open {path} yourself",
                severity="warning",
            )
        except OSError as exc:
            self.notify(markup=False, message=f"{editor[0]}: {exc}", severity="error")


def editor_command(editor: list[str], path: Path, line: int) -> list[str]:
    """The editor's command line: `+LINE` before the file (vi, vim, nano, emacs, micro,
    kakoune and less all read it) when the line is past the first."""
    return [*editor, f"+{line}", str(path)] if line > 1 else [*editor, str(path)]


def _slug(text: str) -> str:
    return "".join(c if c.isalnum() or c in "-." else "-" for c in text)[:40].strip("-")


def item_for_key(key: str) -> str:
    """A pane/table key as the item name `ctxscope explain` understands."""
    if key.startswith("rye:"):
        return key.split(":", 2)[2]
    for prefix in ("lost:", "main:", "child:"):
        key = key.removeprefix(prefix)
    return key.removeprefix("file:")
