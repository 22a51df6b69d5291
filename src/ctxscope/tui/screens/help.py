"""The help screen (`?`, F1): every key, and what each colour means."""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from ctxscope.tui.widgets.common import color

PANE_KEYS = (
    ("j / k, ↑ / ↓", "a line down / up in a pane; the next / previous row in a table"),
    ("space, pgdn / pgup", "a page down / up"),
    ("g / G", "the top / bottom of a pane; the first / last row of a table"),
    ("n / ]", "next section of the focused pane (after a / search: next match)"),
    ("N / [", "previous section (after a / search: previous match)"),
    ("J", "next truncation marker in the pane"),
    ("esc", "clear the / search"),
    (
        "enter",
        "in a pane: open a folded section (▸), else why it is there in each session; "
        "in a panel: act on the row (show it, put a run beside the prediction)",
    ),
    (
        "click",
        "in a pane: select a section (on a ▸ / ▾ heading: open / fold it); in a table: "
        "move the cursor to the row (a double click acts as Enter)",
    ),
    ("← / → , home / end", "in a table: scroll sideways (long reasons are never cut)"),
    ("← / →", "on the panel tabs: the previous / next panel"),
    (
        "tab / shift+tab",
        "move between the panes, the panel tabs and the panel (a panel key "
        "already puts the focus in its panel)",
    ),
    ("ctrl+p", "the command palette: every action, switch target/requester/directive/profile"),
)
MARKS = (
    ("▌", "the selected section (the one c copies, w explains, o opens)"),
    ("▸ / ▾", "runtime text folded to its heading (Enter or a click opens it) / opened"),
    ("~", "a section the last rebuild changed (for a few seconds); in diff mode: changed"),
    ("−", "diff mode (d): lost, what the main session has and the subagent does not"),
    ("+", "diff mode (d): gained, what only the subagent has (its first user message)"),
    ("◐", "in Why and the Map: present but cut (truncated) or with a [MISSING] marker"),
    ("⟦…⟧", "runtime text ctxscope stands in for: its size is the runtime's, the words are not"),
    ("✗ ⚠ ▲ ·", "in Problems: error, warning, a check finding that fails CI, a note"),
)
COLOURS = (
    ("ctx-heading", "a section heading"),
    ("ctx-truncated", "truncated: cut to a budget (its marker, the file, the budget bar)"),
    ("ctx-missing", "missing or an error: a [MISSING] marker, a failed script, a forbidden spawn"),
    ("ctx-removed", "lost: what the other session has and this one does not (diff mode)"),
    ("ctx-added", "gained, or fine: what only this session has; a passing check"),
    ("ctx-changed", "changed: in diff mode, or by the last rebuild (the ~ mark)"),
    ("ctx-budget-high", "a budget above 75 %"),
    ("ctx-placeholder", "runtime text ctxscope stands in for (its size is the runtime's)"),
    ("ctx-muted", "figures and sources beside a heading"),
)


class HelpScreen(ModalScreen[None]):
    """Lists the app's keys (from its bindings, so it never falls behind) and the colours."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,q,question_mark,f1", "close", "Close")]

    def compose(self) -> ComposeResult:
        with Vertical(id="help-dialog", classes="dialog"):
            yield Static("ctxscope — keys and colours", classes="dialog-title", markup=False)
            with VerticalScroll():
                yield Static(self._body(), id="help-body")
            yield Static("Esc closes", classes="dialog-hint")

    def _body(self) -> Group:
        keys = Table.grid(padding=(0, 2))
        keys.add_column(no_wrap=True, style=f"bold {color(self.app, 'ctx-heading')}")
        keys.add_column()
        for key, what in key_rows(self.app.BINDINGS):
            keys.add_row(key, what)
        marks = Table.grid(padding=(0, 2))
        marks.add_column(no_wrap=True, style="bold")
        marks.add_column()
        for mark, what in MARKS:
            marks.add_row(mark, what)
        legend = Table.grid(padding=(0, 2))
        legend.add_column(no_wrap=True)
        legend.add_column()
        for variable, meaning in COLOURS:
            legend.add_row(Text("■ sample", style=f"bold {color(self.app, variable)}"), meaning)
        return Group(
            Text("Keys", style="bold"),
            keys,
            Text(""),
            Text("Marks", style="bold"),
            marks,
            Text(""),
            Text("Colours (the same meaning in every pane, panel and bar)", style="bold"),
            legend,
        )

    @property
    def text(self) -> str:
        """The keys and colours as plain text (for tests)."""
        from io import StringIO

        from rich.console import Console

        console = Console(width=100, file=StringIO(), record=True)
        console.print(self._body())
        return console.export_text()

    def action_close(self) -> None:
        self.dismiss(None)


_DETAILS = {
    "quit": "quit",
    "edit_scenario": "edit the scenario (target, task, tools, prompt mode, ...)",
    "toggle_diff": "diff mode: what the subagent lost or gained against the main session",
    "toggle_link": "link the panes' scrolling",
    "why": "why the selected section or file is (not) in each session",
    "why_lost": "what the subagent lacks (the lost line), each with why and the remedies",
    "pin_before": "pin a before side (a git revision, a profile, a config or scenario file, "
    "now, a recorded run:KEY): the Δ strip, d and the map compare against it; typing unpin "
    "unpins",
    "next_panel": "next panel",
    "next_theme": "next colour theme",
    "trust": "trust the workspace: run its context scripts",
    "rerun_scripts": "forget cached script results and run them again",
    "export_all": "export the screen (SVG) and the build (JSON, markdown, HTML with the maps)",
    "zoom": "hide or show the panels",
    "toggle_exact": "exact mode: the installed OpenClaw writes the text",
    "maximise_panel": "give the panels the whole screen (the panes hide), or give it back",
    "toggle_rye": "the Rye thread (the scenario's directive) in the main pane, or back",
    "search": "find in the focused pane; it also says how often the other pane has it",
    "copy_section": "copy the selected section exactly as sent (clipboard and a .txt file)",
    "copy_prompt": "copy the pane's whole prompt: system prompt, then the first user message",
    "open_editor": "open the file behind the selection in $VISUAL / $EDITOR, at the line",
    "view_cut": "view the text a truncation cut from the selected file",
    "help": "this help: every key, the marks and the colours",
}


KEY_NAMES = {
    "question_mark": "?",
    "slash": "/",
    "left_square_bracket": "[",
    "right_square_bracket": "]",
}
"""Keys as they are typed, where Textual names them otherwise."""


def key_rows(bindings: Iterable[BindingType]) -> list[tuple[str, str]]:
    """Every key of the app (its `bindings`, then the pane and table keys) and what it does:
    the help screen's rows, and the key table of docs/tui.md (`keys_markdown`; the README
    shows a few of its rows)."""
    rows: list[tuple[str, str]] = []
    seen: set[str] = set()
    for binding in bindings:
        if not isinstance(binding, Binding) or binding.action in seen:
            continue
        seen.add(binding.action)
        shown = " / ".join(KEY_NAMES.get(k, k) for k in binding.key.split(","))
        rows.append((shown, _describe(binding)))
    return rows + list(PANE_KEYS)


def keys_markdown(bindings: Iterable[BindingType]) -> str:
    """The key table of docs/tui.md: the help screen's rows as a markdown table."""
    lines = ["| key | what it does |", "|---|---|"]
    for key, what in key_rows(bindings):
        cell = what.replace("|", "\\|")
        lines.append(f"| `{key}` | {cell} |")
    return "\n".join(lines)


def _describe(binding: Binding) -> str:
    if binding.action.startswith("panel("):
        return f"the {binding.description} panel"
    return _DETAILS.get(binding.action, binding.description)
