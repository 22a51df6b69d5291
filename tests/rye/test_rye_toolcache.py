"""The persistent tool-metadata cache: reused by a new process, invalidated by edits, never
in the workspace, harmless when corrupt."""

from __future__ import annotations

import json
import marshal
import os
from pathlib import Path

import pytest

from ctxscope.infra.snapshot import Snapshot
from ctxscope.runtimes.rye import toolcache
from ctxscope.runtimes.rye.toolmeta import tool_metadata
from ctxscope.runtimes.rye.toolsource import Serial

TOOL = '__tool_description__ = "{d}"\nCONFIG_SCHEMA = {{"type": "object", "title": "{d}"}}\n'


_process: list[toolcache.ToolCache] = []


def disk() -> toolcache.ToolCache:
    """This "process"'s persistent cache, opened on first use like the CLI opens it."""
    if not _process:
        _process.append(toolcache.ToolCache.default())
    return _process[0]


def new_process() -> None:
    """Forget everything held in memory, as a new process would."""
    _process.clear()


@pytest.fixture(autouse=True)
def fresh_process() -> None:
    new_process()


def write_tool(tmp_path: Path, desc: str) -> str:
    path = tmp_path / "ws" / ".ai" / "tools" / "t.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(TOOL.format(d=desc))
    return str(path)


def test_new_process_reuses_metadata_without_reading_the_file(tmp_path: Path):
    path = write_tool(tmp_path, "first")
    meta, _ = tool_metadata(Snapshot(), path, disk())
    disk().save()
    new_process()
    snap = Snapshot()
    again, _ = tool_metadata(snap, path, disk())
    assert again == meta and again["description"] == "first"
    assert snap.reads == 0
    cache_files = list(Path(os.environ["CTXSCOPE_CACHE_DIR"]).iterdir())
    assert [f.name for f in cache_files] == [f"rye-tools-{toolcache.__version__}.marshal"]
    assert not any(p.name.startswith("rye-tools") for p in (tmp_path / "ws").rglob("*"))


def test_an_edit_invalidates_the_cached_metadata(tmp_path: Path):
    path = write_tool(tmp_path, "first")
    tool_metadata(Snapshot(), path, disk())
    disk().save()
    new_process()
    Path(path).write_text(TOOL.format(d="second, longer"))
    meta, _ = tool_metadata(Snapshot(), path, disk())
    assert meta["description"] == "second, longer"


def test_diagnostics_survive_the_cache(tmp_path: Path):
    path = tmp_path / "broken.py"
    path.write_text("CONFIG_SCHEMA = {\n")
    _, diags = tool_metadata(Snapshot(), str(path), disk())
    disk().save()
    new_process()
    _, again = tool_metadata(Snapshot(), str(path), disk())
    assert again == diags and again[0].code == "rye-tool-syntax"


def test_corrupt_or_unwritable_cache_is_ignored(tmp_path: Path, monkeypatch):
    cache = tmp_path / "cache"
    cache.mkdir()
    monkeypatch.setenv("CTXSCOPE_CACHE_DIR", str(cache))
    file = cache / f"rye-tools-{toolcache.__version__}.marshal"
    path = write_tool(tmp_path, "ok")
    valid = marshal.dumps((marshal.version, {path: [[0, 0, 0], None, []]}))
    for corrupt in (
        b"{not marshal",
        valid[: len(valid) // 2],  # a save cut short
        marshal.dumps((marshal.version - 1, {})),  # another Python's format
        marshal.dumps((marshal.version, ["not", "a", "dict"])),
        marshal.dumps("no header"),
    ):
        file.write_bytes(corrupt)
        new_process()
        meta, _ = tool_metadata(Snapshot(), path, disk())
        assert meta["description"] == "ok"
    monkeypatch.setenv("CTXSCOPE_CACHE_DIR", str(tmp_path / "file-not-dir"))
    (tmp_path / "file-not-dir").write_text("x")
    new_process()
    tool_metadata(Snapshot(), write_tool(tmp_path, "again"), disk())
    disk().save()  # cannot write: no error


def test_each_workspace_has_its_own_cache_pruned_of_vanished_tools(tmp_path: Path):
    from ctxscope import Inspector

    path = write_tool(tmp_path, "kept")
    gone = write_tool(tmp_path / "other", "deleted later")
    first = toolcache.ToolCache.default(tmp_path / "ws")
    tool_metadata(Snapshot(), path, first)
    tool_metadata(Snapshot(), gone, first)
    first.save()  # the first save of a process prunes: both files still exist
    Path(gone).unlink()
    again = toolcache.ToolCache.default(tmp_path / "ws")  # a new process
    again.put(path, toolcache.stamp_of(path) or (0, 0, 0), ({"chars": 1}, []))
    again.save()
    assert not again.has(gone, (0, 0, 0)) and gone not in again._load()
    assert path in again._load()
    assert toolcache.ToolCache.default(tmp_path / "a").file != again.file
    # The Inspector uses its workspace's own cache file.
    tools = Inspector(tmp_path / "ws").caches.tools
    assert tools is not None and tools.cache is not None and tools.cache.file == again.file


def test_ryeos_sizes_by_the_schema_repr_whether_parsed_or_read_back(space) -> None:
    """ryeos measures a tool by its schema's Python repr (`é` where JSON writes `\\u00e9`);
    the size stays that when a new process reads the result from the cache instead of
    parsing the file."""
    from ctxscope.runtimes.rye.thread import build_thread

    tool = space.write(
        "tools/t/x.py",
        '__tool_description__ = "Wide é"\n'
        'CONFIG_SCHEMA = {"type": "object", "additionalProperties": False, '
        '"default": None, "enum": ["a", "b"], "title": "Café"}\n',
    )
    space.directive("job", permissions="<execute><tool>t.x</tool></execute>")

    x = build_thread(space.root, "job", tools=Serial(disk())).palette.find("t_x")
    assert x is not None and x.schema is not None and x.status == "registered"
    expected = len(str(x.schema)) + len("Wide é")
    assert x.chars == expected != len(json.dumps(x.schema)) + len("Wide é")
    disk().save()
    new_process()
    snap = Snapshot()
    again = build_thread(space.root, "job", tools=Serial(disk()), snapshot=snap).palette.find("t_x")
    assert again is not None and again.chars == expected
    assert snap.stamp(tool) is None  # read back from the cache: the file was not read


def test_a_save_that_cannot_replace_the_file_leaves_nothing_behind(tmp_path: Path, monkeypatch):
    cache = tmp_path / "cache"
    monkeypatch.setenv("CTXSCOPE_CACHE_DIR", str(cache))
    (cache / f"rye-tools-{toolcache.__version__}.marshal").mkdir(parents=True)  # in the way
    tool_metadata(Snapshot(), write_tool(tmp_path, "x"), disk())
    disk().save()  # no error
    assert [p.name for p in cache.iterdir()] == [f"rye-tools-{toolcache.__version__}.marshal"]


def test_a_loaded_cache_is_kept_out_of_the_young_generations(tmp_path: Path, tuned: None) -> None:
    """A large space's cache is tens of thousands of containers, kept as long as the
    process: collections of the young generations should not scan them."""
    import gc

    path = write_tool(tmp_path, "loaded")
    put = disk()
    for i in range(2000):
        put.put(f"{path}.{i}", (i, i, i), ({"schema": {"n": [i]}, "description": "d"}, []))
    put.save()
    new_process()
    disk().held(path)  # loads the file
    entries = {id(e) for e in disk()._load().values()}
    assert len(entries) == 2000
    assert not any(id(o) in entries for gen in (0, 1) for o in gc.get_objects(generation=gen))
