"""TextLines and RichLines: text drawn line by line (RichLines as high as it wraps, laid out
once per width)."""

from __future__ import annotations

from collections.abc import Iterator

from rich.console import Console, ConsoleOptions
from rich.text import Text
from textual.app import App, ComposeResult

from ctxscope.tui.widgets.text_lines import RichLines, TextLines

WORDS = " ".join(f"word{i}" for i in range(30))


def wrapped(width: int) -> int:
    """How many lines Rich wraps WORDS into at `width`."""
    console = Console(width=width)
    return len(console.render_lines(Text(WORDS), console.options, pad=False))


class Counted:
    """Wrapped text that counts how often it is laid out."""

    def __init__(self, text: str) -> None:
        self.text = Text(text)
        self.renders = 0

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> Iterator[Text]:
        self.renders += 1
        yield self.text


class LinesApp(App[None]):
    def compose(self) -> ComposeResult:
        yield RichLines()


def drawn(widget: RichLines) -> list[str]:
    return ["".join(s.text for s in widget.render_line(y)) for y in range(widget.size.height)]


async def test_the_height_follows_the_wrapping_and_each_width_is_laid_out_once() -> None:
    app = LinesApp()
    async with app.run_test(size=(60, 20)) as pilot:
        widget = app.query_one(RichLines)
        body = Counted(WORDS)
        widget.update(body)
        await pilot.pause()
        assert widget.size.height == wrapped(60) == 4
        assert drawn(widget)[0].startswith("word0 word1") and len(drawn(widget)[0]) == 60
        assert "word29" in drawn(widget)[3]
        renders = body.renders
        widget.refresh()
        await pilot.resize_terminal(30, 20)
        await pilot.pause()
        assert widget.size.height == wrapped(30) > wrapped(60)
        await pilot.resize_terminal(60, 20)
        await pilot.pause()
        widget.refresh(layout=True)
        await pilot.pause()
        assert widget.size.height == 4
        assert body.renders == renders + 1  # 30 columns; 60 was kept


async def test_a_plain_string_is_text_not_markup() -> None:
    app = LinesApp()
    async with app.run_test(size=(40, 5)) as pilot:
        widget = app.query_one(RichLines)
        widget.update("[bold]not markup[/]")
        await pilot.pause()
        assert drawn(widget)[0].rstrip() == "[bold]not markup[/]"


class FewLinesApp(App[None]):
    def compose(self) -> ComposeResult:
        yield TextLines()


async def test_a_line_keeps_the_style_of_the_whole_text_it_came_from() -> None:
    app = FewLinesApp()
    async with app.run_test(size=(40, 5)) as pilot:
        widget = app.query_one(TextLines)
        text = Text("all red\n", style="red")
        text.append("blue", style="blue")
        widget.update(text)
        await pilot.pause()
        first, second = widget.render_line(0), widget.render_line(1)
        red = next(s for s in first if s.text.startswith("all red"))
        blue = next(s for s in second if s.text.startswith("blue"))
        assert red.style is not None and red.style.color is not None
        assert red.style.color.name == "red"
        assert blue.style is not None and blue.style.color is not None
        assert blue.style.color.name == "blue"
