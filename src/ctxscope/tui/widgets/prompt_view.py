"""A scrollable, highlighted view of one assembled prompt (Line API).

The view shows `Block`s: a heading line per section (heading, chars, ≈tokens, source) and the
wrapped body. A one-cell gutter marks the selected block and diff marks. Wrapped lines are
cached per block and per line, so a rebuild re-wraps only the lines that changed. Scroll
position is kept across updates by anchoring on the block at the top of the view.
"""

from __future__ import annotations

import dataclasses
from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from rich.text import Span, Text
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from ctxscope.core.record import record
from ctxscope.tui.render import Block
from ctxscope.tui.widgets.frame_style import FrameStyled, Run
from ctxscope.tui.widgets.prompt_wrap import (
    LineKey,
    find_all,
    heading_line,
    wrap,
    wrap_by_line,
)
from ctxscope.tui.widgets.scrollbars import LightScrollBars

ROLES = (
    "heading",
    "heading-truncated",
    "heading-missing",
    "heading-task",
    "heading-lost",
    "metrics",
    "placeholder",
    "md-heading",
    "truncated",
    "missing",
    "label",
    "selected",
    "match",
    "match-current",
    "notice",
    "gutter-lost",
    "gutter-gained",
    "gutter-changed",
    "gutter-selected",
)
GUTTER = {"lost": "−", "gained": "+", "changed": "~"}


@record(slots=True)
class _Line:
    run: Run
    block: int
    header: bool

    @property
    def strip(self) -> Strip:
        return Strip(*self.run)


class PromptView(FrameStyled, LightScrollBars, ScrollView, can_focus=True):
    """One prompt, block by block. Post `Selected` on click/keys and `Scrolled` on scroll."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {f"prompt--{role}" for role in ROLES}

    def watch_has_focus(self, _has_focus: bool) -> None:
        """Nothing in the stylesheet styles a focused prompt view (a test keeps it so), and
        Textual's restyle on focus recomputes all the role styles: ≈3-7 ms per Tab, for
        nothing. The pane shows focus with its border."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("j", "scroll_down", "Line down", show=False),
        Binding("k", "scroll_up", "Line up", show=False),
        Binding("g", "scroll_home", "Top", show=False),
        Binding("G", "scroll_end", "Bottom", show=False),
        Binding("space", "page_down", "Page down", show=False),
        Binding("right_square_bracket", "next_section", "Next section", show=False),
        Binding("left_square_bracket", "prev_section", "Prev section", show=False),
        Binding("n", "next_match", "Next match / section", show=False),
        Binding("N", "prev_match", "Previous match / section", show=False),
        Binding("escape", "clear_search", "Clear search", show=False),
        Binding("J", "next_cut", "Next truncation marker", show=False),
        Binding("enter", "why", "Why", show=False),
    ]

    class Selected(Message):
        """A block was selected (click, `n`/`N`)."""

        def __init__(self, view: PromptView, key: str) -> None:
            super().__init__()
            self.view = view
            self.key = key

    class Scrolled(Message):
        """The view scrolled; `key`/`offset` locate the top line."""

        def __init__(self, view: PromptView, key: str, offset: int) -> None:
            super().__init__()
            self.view = view
            self.key = key
            self.offset = offset

    class WhyRequested(Message):
        """Enter was pressed on a selected block."""

        def __init__(self, view: PromptView, key: str) -> None:
            super().__init__()
            self.view = view
            self.key = key

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.blocks: list[Block] = []
        self.notice: str = ""
        self.selected: str | None = None
        """Key of the selected block (kept across updates)."""
        self._lines: list[_Line] | None = None
        self._whole = True
        """False while `_lines` holds only the first screen: the view's first layout, made
        for the app's first frame; the rest is laid out once that frame is drawn."""
        self._laid_out = False
        """The view has been laid out once (its next layouts are whole)."""
        self._opening = False
        """The view is where it opened (`_open_at_files`) and the user has not moved it: a
        resize places it by the same rule (the screen's layout may settle after the first
        frame)."""
        self._wrap_cache: dict[tuple[int, str, str, int], tuple[list[Run], list[LineKey]]] = {}
        """Each block's wrapped body, and the lines it was wrapped from."""
        self._line_cache: dict[LineKey, list[Run]] = {}
        """Each body line wrapped: a block that changed re-wraps only its changed lines."""
        self._header_cache: dict[tuple[str, str, str, int], Run] = {}
        """Each block's heading line, by heading, role, metrics and width (the last layout's)."""
        self._role_styles: dict[str, Style] | None = None
        self._styles_stale = False
        self._quiet_target: int | None = None
        """A scroll position reached by syncing, not by the user: not reported."""
        self.query_text = ""
        """The active `/` search ("" for none)."""
        self.matches: list[tuple[int, int, int]] = []
        """(block index, start, end) of each match in the block bodies, in order."""
        self.match_at = -1
        self.opened: set[str] = set()
        """Runtime placeholder blocks shown whole (the others show their heading line only)."""
        self.point: tuple[str, int] | None = None
        """(block key, body offset) of the last place a search hit or `J` went to: where `o`
        opens the file."""

    # -- content -----------------------------------------------------------------------
    def set_blocks(self, blocks: list[Block], notice: str = "") -> None:
        """Show `blocks`, keeping the scroll anchor and selection where they still exist."""
        if blocks == self.blocks and notice == self.notice and self._lines is not None:
            return  # a rebuild that changed nothing here: no layout, no redraw
        anchor = self.top_anchor()
        first = not self.blocks and bool(blocks)
        self.blocks = blocks
        self.notice = notice
        self._lines = None
        self._find()
        self._relayout()
        if anchor is not None:
            self.scroll_to_anchor(*anchor, animate=False, quiet=True)
        self._opening = first  # new text after the first: a resize keeps the top line
        if first:
            self.call_after_refresh(self._open_at_files)
        self.refresh()

    def _open_at_files(self) -> None:
        """The first prompt shown opens with its workspace files in view: when the runtime
        sections before them fill the screen (120×40), it is scrolled so the first file's
        heading sits a third of the way down, the sections before it above. Called again on
        a resize until the user scrolls or selects, or new text comes (`_opening`); a pane
        the user scrolled or selected in is left alone."""
        if not self._opening or self.selected is not None:
            return
        start = next((self.line_of(b.key) for b in self.blocks if b.key.startswith("file:")), None)
        height = self.scrollable_content_region.height
        target = 0
        if start is not None and height and start >= height - 2:
            target = min(round(self.max_scroll_y), max(0, start - height // 3))
        if target != round(self.scroll_y):
            self._quiet_target = target  # not the user's move: a linked pane does not follow
            self.scroll_to(y=target, animate=False, immediate=True)

    def block_keys(self) -> list[str]:
        return [b.key for b in self.blocks]

    @property
    def plain_text(self) -> str:
        """The view's content as plain text (headings, metrics and bodies)."""
        parts = [self.notice] if self.notice else []
        for b in self.blocks:
            parts.append(f"{b.heading}  [{b.metrics}]")
            if b.body:
                parts.append(b.body)
        return "\n".join(parts)

    # -- styles ------------------------------------------------------------------------
    def notify_style_update(self) -> None:
        """Wrapped lines carry the role styles: they are laid out again (at the next draw,
        when the component styles are up to date) only if those changed — a theme switch,
        not a focus change, which restyles the widget too."""
        super().notify_style_update()
        self._styles_stale = True
        self.refresh()

    def _check_styles(self) -> None:
        if not self._styles_stale:
            return
        self._styles_stale = False
        before = self._role_styles
        self._role_styles = None
        if before is not None and self._styles() == before:
            return
        self._wrap_cache.clear()
        self._line_cache.clear()
        self._header_cache.clear()
        self._lines = None

    def _styles(self) -> dict[str, Style]:
        if self._role_styles is None:
            self._role_styles = {
                role: self.get_component_rich_style(f"prompt--{role}", partial=True)
                for role in ROLES
            }
        return self._role_styles

    # -- layout ------------------------------------------------------------------------
    @property
    def _text_width(self) -> int:
        return max(8, self.scrollable_content_region.width - 1)

    def _relayout(self) -> None:
        if not self.size.width:  # not on screen yet: its first resize lays the text out
            self._lines = None
            return
        width = self._text_width
        first_screen = None if self._laid_out else self.scrollable_content_region.height
        self._laid_out = True
        self._lines, self._whole = self._layout(width, first_screen)
        if not self._whole:
            self.call_after_refresh(self._complete)
        # No scrollbar thumb until the whole text is laid out: its length is not known yet.
        size = Size(width + 1, len(self._lines) if self._whole else 0)
        if size.width != self.virtual_size.width or not self.container_size:
            self.virtual_size = size
            return
        # Only the number of lines changed: the scrollbar follows without laying the whole
        # screen out (what Textual itself does for a size known not to need it); a scrollbar
        # that appears or goes still lays the screen out itself.
        self.set_reactive(PromptView.virtual_size, size)
        self._scroll_update(size)
        self.scroll_y = self.validate_scroll_y(self.scroll_y)

    def _complete(self) -> None:
        """Lay out the rest of a view laid out for its first screen only."""
        if not self._whole and self._lines is not None:
            self._relayout()
            self.refresh()

    def _layout(self, width: int, rows: int | None = None) -> tuple[list[_Line], bool]:
        """The view's lines at `width`, and whether they are all of them: with `rows`, the
        layout stops after the block that fills that many."""
        console = self.app.console
        styles = self._styles()
        lines: list[_Line] = []
        if self.notice:
            text = Text(self.notice, style=styles["notice"])
            for run in wrap(text, width, console):
                lines.append(_Line(run, -1, False))
        used: set[tuple[int, str, str, int]] = set()
        used_lines: set[LineKey] = set()
        headers: dict[tuple[str, str, str, int], Run] = {}
        for index, block in enumerate(self.blocks):
            folded = self.folded(block)
            if block.placeholder and block.body:
                block = dataclasses.replace(
                    block, heading=("▸ " if folded else "▾ ") + block.heading
                )
            head_key = (block.heading, block.heading_role, block.metrics, width)
            header = self._header_cache.get(head_key) or heading_line(
                block.heading,
                styles.get(block.heading_role, Style()),
                Text(block.metrics, style=styles["metrics"]),
                width,
                console,
            )
            headers[head_key] = header
            lines.append(_Line(header, index, True))
            if not block.body or folded:
                continue
            found = [(s, e) for b, s, e in self.matches if b == index]
            current = (
                self.matches[self.match_at] if 0 <= self.match_at < len(self.matches) else None
            )
            key = (
                hash(block.body),
                block.key,
                repr(block.spans[:3]) + str(len(block.spans)) + repr(found) + repr(current),
                width,
            )
            used.add(key)
            wrapped = self._wrap_cache.get(key)
            if wrapped is None:
                spans = [Span(s, e, styles.get(r, Style())) for s, e, r in block.spans]
                for s, e in found:
                    role = "match-current" if current == (index, s, e) else "match"
                    spans.append(Span(s, e, styles[role]))
                text = Text(block.body, spans=spans)
                wrapped = wrap_by_line(text, width, console, self._line_cache)
                self._wrap_cache[key] = wrapped
            used_lines.update(wrapped[1])
            lines.extend(_Line(run, index, False) for run in wrapped[0])
            if rows is not None and len(lines) >= rows and index < len(self.blocks) - 1:
                return lines, False  # the first screen: the caches are kept whole
        for stale in set(self._wrap_cache) - used:
            del self._wrap_cache[stale]
        for stale_line in set(self._line_cache) - used_lines:
            del self._line_cache[stale_line]
        self._header_cache = headers
        return lines, True

    def folded(self, block: Block) -> bool:
        """A runtime placeholder shows its heading line only until opened (Enter, a click)."""
        return block.placeholder and bool(block.body) and block.key not in self.opened

    def toggle_open(self, key: str) -> None:
        """Open a folded runtime placeholder block, or fold it again."""
        self.opened ^= {key}
        anchor = self.top_anchor()
        self._lines = None
        self._relayout()
        if anchor is not None:
            self.scroll_to_anchor(*anchor, animate=False, quiet=True)
        self.refresh()

    def on_resize(self, event: events.Resize) -> None:
        if self._opening and self._lines is not None:
            self._relayout()
            self._open_at_files()
            return
        anchor = self.top_anchor()
        self._relayout()
        if anchor is not None:
            self.scroll_to_anchor(*anchor, animate=False, quiet=True)

    # -- rendering ---------------------------------------------------------------------
    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        base = self.base_style
        self._check_styles()
        if self._lines is None:
            self._relayout()
        lines = self._lines or []
        index = self.scroll_offset.y + y
        if index >= len(lines):
            return Strip.blank(width, base)
        line = lines[index]
        styles = self._styles()
        block = self.blocks[line.block] if line.block >= 0 else None
        gutter_char, gutter_style = " ", base
        if block is not None:
            if block.key == self.selected:
                gutter_char, gutter_style = "▌", base + styles["gutter-selected"]
            elif block.mark:
                gutter_char = GUTTER[block.mark] if line.header else "▏"
                gutter_style = base + styles[f"gutter-{block.mark}"]
        strip = line.strip
        if block is not None and line.header and block.key == self.selected:
            strip = strip.apply_style(styles["selected"])
        content = Strip([Segment(gutter_char, gutter_style)], 1) + strip.apply_style(base)
        return content.crop_extend(0, width, base)

    # -- anchors and scrolling -----------------------------------------------------------
    # Keys move the view at once, as a pager does: an animated page is some twenty frames,
    # each drawing this view, its scrollbar and the linked pane following it.
    def action_scroll_up(self) -> None:
        self.scroll_up(animate=False)

    def action_scroll_down(self) -> None:
        self.scroll_down(animate=False)

    def action_page_up(self) -> None:
        self.scroll_page_up(animate=False)

    def action_page_down(self) -> None:
        self.scroll_page_down(animate=False)

    def action_scroll_home(self) -> None:
        self.scroll_home(animate=False)

    def action_scroll_end(self) -> None:
        self.scroll_end(animate=False)

    def top_anchor(self) -> tuple[str, int] | None:
        """(block key, lines into the block) of the top visible line."""
        if not self._lines or not self.blocks:
            return None
        top = min(int(self.scroll_y), len(self._lines) - 1)
        block = self._lines[top].block
        if block < 0:
            return None
        start = self._block_start(block)
        return self.blocks[block].key, top - start

    def _block_start(self, block: int) -> int:
        for i, line in enumerate(self._lines or []):
            if line.block == block:
                return i
        return 0

    def line_of(self, key: str) -> int | None:
        """The first line of the block `key`."""
        self._complete()  # the block may lie past the first screen
        for i, block in enumerate(self.blocks):
            if block.key == key:
                return self._block_start(i)
        return None

    def follow(self, leader: PromptView, key: str, offset: int) -> None:
        """Show what `leader` shows at its top (line `offset` of block `key`), quietly; a
        block this view lacks gives way to the first block after it that this view has."""
        self._opening = False
        if self.line_of(key) is None:
            theirs, mine = leader.block_keys(), set(self.block_keys())
            after = theirs[theirs.index(key) + 1 :] if key in theirs else []
            key, offset = next((k for k in after if k in mine), ""), 0
        self.scroll_to_anchor(key, offset, quiet=True)

    def scroll_to_anchor(
        self, key: str, offset: int, *, animate: bool = False, quiet: bool = False
    ) -> None:
        """Scroll so that line `offset` of block `key` is at the top (no-op when absent)."""
        start = self.line_of(key)
        if start is None:
            return
        target = max(0, min(start + offset, round(self.max_scroll_y)))
        if quiet:
            self._quiet_target = None if target == round(self.scroll_y) else target
        self.scroll_to(y=target, animate=animate, immediate=True)

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if round(old_value) == round(new_value):
            return
        quiet, self._quiet_target = self._quiet_target, None
        if quiet is not None and round(new_value) == quiet:
            return  # the linked pane's move reached: not the user's, not reported
        self._opening = False
        anchor = self.top_anchor()
        if anchor is not None:
            self.post_message(self.Scrolled(self, *anchor))

    # -- selection ---------------------------------------------------------------------
    def select(self, key: str | None, *, scroll: bool = False) -> None:
        self._opening = False
        self.selected = key
        self.point = None
        if key is not None:
            if scroll:
                start = self.line_of(key)
                if start is not None:
                    self.scroll_to(y=start, animate=False, immediate=True)
            self.post_message(self.Selected(self, key))
        self.refresh()

    def on_click(self, event: events.Click) -> None:
        lines = self._lines or []
        index = int(self.scroll_y) + event.y
        if 0 <= index < len(lines) and lines[index].block >= 0:
            block = self.blocks[lines[index].block]
            self.select(block.key)
            if lines[index].header and block.placeholder and block.body:
                self.toggle_open(block.key)

    def _step(self, delta: int) -> None:
        keys = [b.key for b in self.blocks]
        if not keys:
            return
        if self.selected in keys:
            pos = keys.index(self.selected) + delta
        else:
            anchor = self.top_anchor()
            pos = keys.index(anchor[0]) if anchor else 0
            pos = pos if delta > 0 else pos - 1
        self.select(keys[max(0, min(len(keys) - 1, pos))], scroll=True)

    def action_next_section(self) -> None:
        self._step(1)

    def action_prev_section(self) -> None:
        self._step(-1)

    def action_why(self) -> None:
        """Enter: open a folded runtime placeholder; on an open block, why (`w` explains a
        folded one too)."""
        block = next((b for b in self.blocks if b.key == self.selected), None)
        if block is not None and self.folded(block):
            self.toggle_open(block.key)
        elif self.selected is not None:
            self.post_message(self.WhyRequested(self, self.selected))

    # -- search --------------------------------------------------------------------------
    def search(self, query: str) -> int:
        """Highlight every case-insensitive match of `query` in the bodies and go to the first
        one at or below the top line; returns how many there are."""
        self.query_text = query
        self.match_at = -1
        self._find()
        self._lines = None
        self._relayout()
        if self.matches:
            anchor = self.top_anchor()
            top = self.block_keys().index(anchor[0]) if anchor else 0
            first = next((i for i, m in enumerate(self.matches) if m[0] >= top), 0)
            self._go(first)
        self.refresh()
        return len(self.matches)

    def _find(self) -> None:
        self.matches = find_all([block.body for block in self.blocks], self.query_text)
        if self.match_at >= len(self.matches):
            self.match_at = len(self.matches) - 1

    def _go(self, at: int) -> None:
        self.match_at = at % len(self.matches)
        index, start, _ = self.matches[self.match_at]
        self._show_offset(index, start)

    def _show_offset(self, index: int, start: int) -> None:
        """Select block `index` and scroll so the line holding char `start` of its body shows."""
        block = self.blocks[index]
        if self.folded(block):
            self.opened.add(block.key)  # a hit inside shows the block whole
        before = wrap(Text(block.body[:start]), self._text_width, self.app.console)
        line = self._block_start(index) + 1 + max(0, len(before) - 1)
        self.selected = block.key
        self.point = (block.key, start)
        self._lines = None
        self._relayout()
        self.scroll_to(y=max(0, line - 2), animate=False, immediate=True)
        self.post_message(self.Selected(self, block.key))
        self.refresh()

    def action_next_match(self) -> None:
        if not self.matches:
            self._step(1)
            return
        self._go(self.match_at + 1)

    def action_prev_match(self) -> None:
        if not self.matches:
            self._step(-1)
            return
        self._go(self.match_at - 1)

    def action_next_cut(self) -> None:
        """`J`: the next truncation marker (where a file was cut), from the selection on."""
        cuts = [
            (i, s)
            for i, b in enumerate(self.blocks)
            for s, _, role in b.spans
            if role == "truncated"
        ]
        if not cuts:
            self.app.notify("No truncation marker in this pane.", timeout=3)
            return
        keys = self.block_keys()
        here = keys.index(self.selected) if self.selected in keys else -1
        index, start = next(((i, s) for i, s in cuts if i > here), cuts[0])
        self._show_offset(index, start)

    def action_clear_search(self) -> None:
        if self.query_text:
            self.search("")
