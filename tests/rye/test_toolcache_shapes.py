"""A tool cache entry that reads back as valid `marshal` data but not in the shape ctxscope
stores (a cache written by another build of the same version, or edited by hand) is dropped
as if never stored: the tool is parsed again, the cache is saved with the new entry, and no
command fails, the first time or later."""

from __future__ import annotations

import json
import marshal
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctxscope.core.model import Diagnostic
from ctxscope.infra.snapshot import Snapshot
from ctxscope.output import dump_json
from ctxscope.runtimes.rye.toolcache import ToolCache, stamp_of
from ctxscope.runtimes.rye.toolmeta import tool_metadata
from tests.conftest import SAMPLE

DIRECTIVE = "project/deploy/deploy_staging"
TOOL = (
    '__tool_description__ = "Deploy it"\n'
    'CONFIG_SCHEMA = {"type": "object", "properties": {"env": {"type": "string"}}}\n'
)

hashable = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text() | st.binary(),
    lambda inner: st.tuples(inner, inner) | st.frozensets(inner, max_size=3),
    max_leaves=4,
)
anything = st.recursive(
    hashable | st.sampled_from(["\udc80", "a\ud800b"]),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.tuples(inner)
        | st.dictionaries(hashable, inner, max_size=3)
        | st.sets(hashable, max_size=3)
    ),
    max_leaves=8,
)


def good_entry(path: str) -> list[Any]:
    stamp = stamp_of(path)
    assert stamp is not None
    meta = {
        "schema": {"type": "object", "properties": {"env": {"type": "string"}}},
        "description": "Deploy it",
        "chars": 72,
        "repr_chars": 70,
    }
    diag = Diagnostic("warning", "x is not a literal", path, 3, None, "rye-tool-literal")
    return [stamp, meta, [diag.to_dict()]]


PLACES = (
    *("entry", "short", "long", "stamp", "stamp item"),
    *("meta", "meta field", "meta extra", "schema item"),
    *("diags", "diag", "diag field", "diag extra"),
)


@st.composite
def wrong(draw: st.DrawFn, entry: list[Any]) -> Any:
    """`entry` with one part, at any depth, replaced by anything `marshal` carries."""
    stamp, meta, diags = entry
    value = draw(anything)
    where = draw(st.sampled_from(PLACES))
    meta, diag = dict(meta), dict(diags[0])
    if where == "entry":
        return value
    if where == "short":
        return entry[:2]
    if where == "long":
        return [*entry, value]
    if where == "stamp":
        return [value, meta, diags]
    if where == "stamp item":
        return [(stamp[0], value, stamp[2]), meta, diags]
    if where == "meta":
        return [stamp, value, diags]
    if where == "meta field":
        meta[draw(st.sampled_from(sorted(meta)))] = value
    elif where == "meta extra":
        meta["extra"] = value
    elif where == "schema item":
        meta["schema"] = {**meta["schema"], "properties": {"env": value}}
    elif where == "diags":
        return [stamp, meta, value]
    elif where == "diag":
        return [stamp, meta, [value]]
    elif where == "diag field":
        diag[draw(st.sampled_from(sorted(diag)))] = value
    else:
        diag["extra"] = value
    return [stamp, meta, [diag]]


def usable(meta: dict[str, Any] | None, diags: list[Diagnostic]) -> None:
    """What the build does with a result: size it, write it as JSON and as text."""
    if meta is not None:
        assert isinstance(meta["description"], str)
        assert meta.get("chars", 0) + meta.get("repr_chars", 0) >= 0
        assert json.loads(dump_json(meta)) is not None
    for d in diags:
        assert d.severity in ("error", "warning", "info") and isinstance(d.message, str)
        assert str(d) and json.loads(dump_json(d.to_dict()))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_an_entry_of_any_wrong_shape_is_parsed_again_and_replaced(data: st.DataObject) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        tool = Path(tmp, "t.py")
        tool.write_text(TOOL)
        path = str(tool)
        bad = data.draw(wrong(good_entry(path)), label="entry")
        file = Path(tmp, "cache.marshal")
        try:
            file.write_bytes(marshal.dumps((marshal.version, {path: bad})))
        except ValueError:  # marshal cannot carry it (a set of lists): no such file exists
            return
        first = tool_metadata(Snapshot(), path, ToolCache(file))
        usable(*first)
        disk = ToolCache(file)
        tool_metadata(Snapshot(), path, disk)
        disk.save()
        again = Snapshot()
        second = tool_metadata(again, path, ToolCache(file))  # a new process
        assert again.reads == 0  # from the cache, saved with an entry it can use
        usable(*second)


def test_a_thread_over_a_cache_of_wrong_entries_is_the_thread_over_a_good_one(
    tmp_path: Path,
) -> None:
    ws = tmp_path / "ws"
    shutil.copytree(SAMPLE, ws, symlinks=True)
    cache_dir = Path(os.environ["CTXSCOPE_CACHE_DIR"])

    def thread(fmt: str) -> str:
        out = subprocess.run(
            [
                *(sys.executable, "-m", "ctxscope", "thread", str(ws), DIRECTIVE),
                *("--format", fmt, "--allow", "refused"),
            ],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert out.returncode == 0, out.stderr
        return out.stdout

    clean = {fmt: thread(fmt) for fmt in ("text", "json", "markdown")}
    (file,) = cache_dir.glob("rye-tools-*.marshal")
    version, entries = marshal.loads(file.read_bytes())
    good = dict(entries)
    shapes = [
        7,
        [],
        "x",
        [None, None, None],
        [[1, 2], None, []],
        lambda e: [e[0], [1, 2], e[2]],
        lambda e: [e[0], {"description": "no schema"}, []],
        lambda e: [e[0], {**e[1], "schema": {"a": {1, 2}}}, []] if e[1] else 5,
        lambda e: [e[0], {**e[1], "chars": "many"}, []] if e[1] else 5,
        lambda e: [e[0], e[1], ["not a diagnostic"]],
        lambda e: [e[0], e[1], [{"severity": "fatal", "message": "x"}]],
        lambda e: [e[0], e[1], [{"severity": "error", "message": 5}]],
    ]
    for i, (path, entry) in enumerate(good.items()):
        shape = shapes[i % len(shapes)]
        entries[path] = shape(entry) if callable(shape) else shape
    file.write_bytes(marshal.dumps((version, entries)))
    for fmt, expected in clean.items():
        assert thread(fmt) == expected, fmt
    assert marshal.loads(file.read_bytes())[1] == good  # saved again, as it was


def test_a_cache_file_that_is_a_fifo_a_folder_or_cut_short_is_not_used(tmp_path: Path) -> None:
    """The cache file is read back as untrusted input: a FIFO put in its place never blocks
    the read (the command would hang), and a folder or a file cut short is a cache that is
    not there."""
    ws = tmp_path / "ws"
    shutil.copytree(SAMPLE, ws, symlinks=True)
    cache_dir = Path(os.environ["CTXSCOPE_CACHE_DIR"])

    def thread() -> str:
        out = subprocess.run(
            [
                *(sys.executable, "-m", "ctxscope", "thread", str(ws), DIRECTIVE),
                *("--format", "json", "--allow", "refused"),
            ],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert out.returncode == 0, out.stderr
        return out.stdout

    clean = thread()
    (file,) = cache_dir.glob("rye-tools-*.marshal")
    whole = file.read_bytes()
    file.unlink()
    os.mkfifo(file)
    assert thread() == clean
    file.unlink()
    file.mkdir()
    assert thread() == clean
    file.rmdir()
    file.write_bytes(whole[: len(whole) // 2])
    assert thread() == clean
    assert file.read_bytes() == whole  # saved again whole
