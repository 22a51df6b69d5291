"""Tool sources: each gives the palette what parsing every file in turn gives; `Remembered`
keeps a quiet tools folder's results for every palette built on the same snapshot."""

from __future__ import annotations

from conftest import Space

from ctxscope.infra.snapshot import Snapshot
from ctxscope.runtimes.rye import build_thread
from ctxscope.runtimes.rye.toolsource import Remembered, Serial


def tool(space: Space, name: str, description: str) -> str:
    text = f'__tool_description__ = "{description}"\nCONFIG_SCHEMA = {{"type": "object"}}\n'
    return str(space.write(f"tools/kit/{name}.py", text))


def description(report: object, path: str) -> str | None:
    palette = report.palette  # type: ignore[attr-defined]
    entry = next(t for t in palette.registered + palette.skipped if t.path == path)
    return entry.description  # type: ignore[no-any-return]


def test_a_quiet_folder_is_kept_for_each_palette_built_on_the_snapshot(space: Space) -> None:
    """Two directives granting different tools of one folder (or the two Rye profiles the
    app compares): neither build makes the other's results be looked at again."""
    first = tool(space, "first", "First tool")
    second = tool(space, "second", "Second tool")
    space.directive("one", permissions="<execute><tool>kit/first</tool></execute>")
    space.directive("two", permissions="<execute><tool>kit/second</tool></execute>")
    snap, source = Snapshot(), Remembered(Serial())
    snap.changes.watching([space.root])

    def build(directive: str) -> object:
        return build_thread(space.root, directive, snapshot=snap, tools=source)

    assert description(build("one"), first) == "First tool"
    assert description(build("two"), second) == "Second tool"
    # Edits the watcher did not report: both folders' results are trusted.
    tool(space, "first", "First, edited")
    tool(space, "second", "Second, edited")
    assert description(build("one"), first) == "First tool"
    assert description(build("two"), second) == "Second tool"
    snap.changes.changed([first])  # reported: the folder is read again, for every palette
    assert description(build("two"), second) == "Second, edited"
    assert description(build("one"), first) == "First, edited"
