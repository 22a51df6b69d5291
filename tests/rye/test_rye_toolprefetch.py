"""Tool files parsed in forked or started processes give exactly what parsing them in turn
gives."""

from __future__ import annotations

import gc
import json
import marshal
import os
import shutil
import sys
import threading
import time
from pathlib import Path

import pytest
from conftest import Space

from ctxscope.core.model import Diagnostic
from ctxscope.infra import crew, tuning
from ctxscope.infra.snapshot import MAX_READ_BYTES, Snapshot
from ctxscope.runtimes.rye import build_thread, tiers, toolmeta, toolprefetch, toolworker
from ctxscope.runtimes.rye.tiers import cache_for
from ctxscope.runtimes.rye.toolcache import ToolCache
from ctxscope.runtimes.rye.toolmeta import tool_metadata
from ctxscope.runtimes.rye.toolsource import Workers

N = 320  # over MIN_FILES, so two processes are worth it
REAL_CAN_FORK = toolprefetch.can_fork

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="forks on Linux only")


@pytest.fixture(autouse=True)
def two_workers(monkeypatch) -> None:
    """Two processes, forked, whatever this machine's CPUs and the threads earlier tests left."""
    monkeypatch.setattr(toolprefetch, "workers", lambda: 2)
    monkeypatch.setattr(toolprefetch, "can_fork", lambda: True)


def write_tools(space: Space) -> list[str]:
    """Tools of every kind a space holds: good ones, broken ones, YAML, undecodable bytes."""
    paths = []
    for i in range(N):
        kind = i % 6
        if kind == 0:
            text = f'__tool_description__ = "Tool {i}"\nCONFIG_SCHEMA = {{"type": "object"}}\n'
        elif kind == 1:
            text = f"CONFIG_SCHEMA = {{'a': {i},\n"  # a syntax error
        elif kind == 2:
            text = "import os\nCONFIG_SCHEMA = dict(a=os.sep)\n"  # not a literal
        elif kind == 3:
            text = f"description: yaml tool {i}\nparameters:\n  - name: x\n    required: true\n"
        elif kind == 4:
            text = "description: [unclosed\n"
        else:
            text = f'CONFIG_SCHEMA = {{"d": "caf\\xe9 {i}", "n": {{1, 2}}}}\n'
        ext = ".yaml" if kind in (3, 4) else ".py"
        paths.append(str(space.write(f"tools/gen/ns{i % 7}/t{i}{ext}", text)))
    bad = Path(paths[0])
    bad.write_bytes(b'__tool_description__ = "\xff\xfe bytes"\nCONFIG_SCHEMA = {}\n')
    return paths


def test_forked_parse_equals_parsing_in_turn(space: Space, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("CTXSCOPE_CACHE_DIR", str(tmp_path / "cache"))
    paths = write_tools(space)
    in_turn = [tool_metadata(Snapshot(), p) for p in paths]

    snap, disk = Snapshot(), ToolCache(tmp_path / "cache" / "tools.marshal")
    assert len(toolprefetch.prefetch(snap, paths, disk)) == N
    assert snap.reads == 0  # the results came back from the children and the parent's share
    assert [tool_metadata(snap, p, disk) for p in paths] == in_turn
    assert snap.reads == 0  # ... and the build finds them without reading a file again
    assert all(disk.has(p, cache_for(snap).parsed[("tool", p)][2]) for p in paths)
    assert any(d.code == "rye-tool-syntax" for _, diags in in_turn for d in diags)

    def no_parse(*_args: object) -> list[toolworker.Parsed]:
        raise AssertionError("parsed a file the cache holds")

    monkeypatch.setattr(toolworker, "_parse", no_parse)
    again = Snapshot()
    cached = toolprefetch.prefetch(again, paths, disk)  # all known to the cache now
    assert [cached[p] for p in paths] == in_turn
    assert [tool_metadata(again, p, disk) for p in paths] == in_turn and again.reads == 0


def test_files_read_a_batch_at_a_time_are_parsed_in_order(space: Space, monkeypatch) -> None:
    paths = write_tools(space)[:40]
    in_turn = [tool_metadata(Snapshot(), p) for p in paths]
    fifo = space.ai / "tools" / "fifo.py"
    os.mkfifo(fifo)  # never opened to wait for a writer: not a regular file
    listed = [*paths[:10], str(fifo), str(space.ai / "tools" / "gone.py"), *paths[10:]]
    sizes = [os.path.getsize(p) for p in paths]
    monkeypatch.setattr(toolworker, "BATCH_BYTES", sum(sizes[:25]))  # 25 files, then 15 left
    assert sum(sizes[25:]) < toolworker.BATCH_BYTES

    parsed = toolworker._parse(listed, MAX_READ_BYTES)
    assert [path for path, *_ in parsed] == paths  # the unreadable left to the caller
    assert [(meta, [Diagnostic(**d) for d in diags]) for _, _, meta, diags in parsed] == in_turn
    for path, stamp, *_ in parsed:
        st = os.stat(path)
        assert stamp == (st.st_mtime_ns, st.st_size, st.st_ino)


class Runs(list[list[str]]):
    """The runs of files this process parsed, as they were parsed."""

    def __int__(self) -> int:
        return sum(len(run) for run in self)


def slow_here(monkeypatch, pause: float = 0.02) -> Runs:
    """This process (not a child) pauses before each run of files it takes."""
    here, runs = os.getpid(), Runs()
    real = toolworker._parse

    def parse(paths: list[str], cap: int) -> list[toolworker.Parsed]:
        if os.getpid() == here:
            runs.append(paths)
            time.sleep(pause)
        return real(paths, cap)

    monkeypatch.setattr(toolworker, "_parse", parse)
    return runs


def test_a_slower_process_takes_fewer_files(space: Space, monkeypatch) -> None:
    paths = write_tools(space)
    runs = slow_here(monkeypatch)
    snap = Snapshot()
    assert len(toolprefetch.prefetch(snap, paths, None)) == N
    assert 0 < int(runs) < N // 2  # the child, not held up, took most of the runs
    assert snap.reads == 0


def test_a_child_that_fails_leaves_its_files_to_the_caller(space: Space, monkeypatch) -> None:
    paths = write_tools(space)
    in_turn = [tool_metadata(Snapshot(), p) for p in paths]

    def refuse(*_args: object, **_kwargs: object) -> bytes:
        raise RuntimeError("the child cannot send its results")

    monkeypatch.setattr(marshal, "dumps", refuse)  # only the children write results
    runs = slow_here(monkeypatch)  # ... and the child takes runs before this process is done
    snap = Snapshot()
    parsed = len(toolprefetch.prefetch(snap, paths, None))
    assert parsed == int(runs) < N  # what this process took; the child's runs are lost
    assert [tool_metadata(snap, p) for p in paths] == in_turn  # ... and parsed in turn


def test_the_palette_is_the_same_with_and_without_workers(space: Space, monkeypatch) -> None:
    write_tools(space)
    space.directive("job", permissions="<execute><tool>gen/*</tool></execute>")
    counts: list[int] = []
    real = toolprefetch.prefetch

    def counted(*args, **kwargs):  # type: ignore[no-untyped-def]
        fresh = real(*args, **kwargs)
        counts.append(len(fresh))
        return fresh

    monkeypatch.setattr(toolprefetch, "prefetch", counted)
    serial = build_thread(space.root, "job").to_dict()  # the default source: no workers
    monkeypatch.setattr(toolprefetch, "workers", lambda: 1)
    alone = build_thread(space.root, "job", tools=Workers()).to_dict()
    monkeypatch.setattr(toolprefetch, "workers", lambda: 2)
    forked = build_thread(space.root, "job", tools=Workers()).to_dict()
    assert counts == [0, N]  # in turn, then forked
    assert forked == alone == serial
    palette = alone["tools"]
    assert len(palette["registered"]) + len(palette["skipped"]) > N


def test_workers_only_fork_where_it_is_safe(monkeypatch) -> None:
    monkeypatch.undo()  # the real count and test (this test's fixtures patch nothing else)
    monkeypatch.setenv("CTXSCOPE_WORKERS", "1")
    assert toolprefetch.workers() == 1
    monkeypatch.setenv("CTXSCOPE_WORKERS", "64")
    assert 1 <= toolprefetch.workers() <= crew.MAX_WORKERS
    assert toolprefetch.can_fork() == (threading.active_count() == 1)
    release = threading.Event()
    other = threading.Thread(target=release.wait)
    other.start()
    try:
        assert not toolprefetch.can_fork()  # never fork beside another thread
    finally:
        release.set()
        other.join()


def no_fork(*_args: object) -> int:
    raise AssertionError("forked beside another thread")


def test_beside_another_thread_started_children_parse_as_in_turn(
    space: Space, tmp_path: Path, monkeypatch
) -> None:
    """The app's case: the build runs on a thread, so the children are new interpreters."""
    paths = write_tools(space)
    in_turn = [tool_metadata(Snapshot(), p) for p in paths]
    monkeypatch.setattr(toolprefetch, "SPAWN_SHARE", 100)
    monkeypatch.setattr(toolprefetch, "can_fork", REAL_CAN_FORK)  # the real test of threads
    monkeypatch.setattr(os, "fork", no_fork)  # ... and forking beside them fails this test
    # A workspace is often the current folder: a module there must not be imported.
    monkeypatch.chdir(space.root)
    marker = tmp_path / "imported"
    (space.root / "yaml.py").write_text(f"open({str(marker)!r}, 'w').close()\n")
    snap, disk = Snapshot(), ToolCache(tmp_path / "cache" / "tools.marshal")
    started = spy_on_started(monkeypatch)
    runs = slow_here(monkeypatch, 0.3)  # 6 s in all: the child starts (≈0.07 s) and takes some
    parsed: list[int] = []
    worker = threading.Thread(
        target=lambda: parsed.append(len(toolprefetch.prefetch(snap, paths, disk)))
    )
    worker.start()
    worker.join()
    assert parsed == [N] and len(started) == 1  # two processes: this one and a started one
    assert int(runs) < N  # ... which took some of the runs
    assert snap.reads == 0  # the results came back from the child and this thread's runs
    assert [tool_metadata(snap, p, disk) for p in paths] == in_turn
    assert not marker.exists()


def test_a_started_child_that_fails_leaves_its_files_to_the_caller(
    space: Space, monkeypatch
) -> None:
    paths = write_tools(space)
    in_turn = [tool_metadata(Snapshot(), p) for p in paths]
    monkeypatch.setattr(toolprefetch, "SPAWN_SHARE", 100)
    monkeypatch.setattr(toolprefetch, "can_fork", lambda: False)
    monkeypatch.setattr(sys, "executable", shutil.which("false") or "/bin/false")
    snap = Snapshot()
    parsed = len(toolprefetch.prefetch(snap, paths, None))
    assert parsed == N  # the child took nothing: the caller took every run
    assert [tool_metadata(snap, p) for p in paths] == in_turn


def spy_on_started(monkeypatch) -> list[object]:
    """The started children, as they are made."""
    made: list[object] = []
    real = toolprefetch._Started.start

    def start(*args: object) -> object:
        made.append(child := real(*args))  # type: ignore[arg-type]
        return child

    monkeypatch.setattr(toolprefetch._Started, "start", start)
    return made


@pytest.mark.parametrize("enabled", [True, False])
def test_the_collector_is_off_while_parsing_and_left_as_it_was(
    space: Space, monkeypatch, enabled: bool, tuned: None
) -> None:
    paths = write_tools(space)
    seen: list[bool] = []
    real = toolworker.parse_tool

    def watched(text: str, path: str):  # type: ignore[no-untyped-def]
        seen.append(gc.isenabled())
        return real(text, path)

    monkeypatch.setattr(toolworker, "parse_tool", watched)
    (gc.enable if enabled else gc.disable)()
    try:
        assert len(toolprefetch.prefetch(Snapshot(), paths, None)) == N
        assert gc.isenabled() is enabled
    finally:
        gc.enable()
    assert seen and not any(seen)  # the parent's share, parsed with the collector off


@pytest.mark.parametrize("workers", [False, True])
def test_a_python_api_build_leaves_the_collector_alone(
    space: Space, monkeypatch, workers: bool
) -> None:
    """A program using ctxscope keeps its collector as it set it: enabled throughout a build
    that parses hundreds of tool files (in this process by default, in workers when the
    program asks for them), the same thresholds, nothing moved out of its young generation.
    By default no process is started."""
    from ctxscope import Inspector
    from ctxscope.infra import processes

    write_tools(space)
    space.directive("job", permissions="<execute><tool>gen/*</tool></execute>")
    seen: list[bool] = []
    started: list[str] = []

    def watching(module: object, name: str) -> None:
        real = getattr(module, name)

        def watched(*args, **kwargs):  # type: ignore[no-untyped-def]
            seen.append(gc.isenabled())  # this process parses its share of the files
            return real(*args, **kwargs)

        monkeypatch.setattr(module, name, watched)

    watching(toolworker, "parse_taken")
    watching(toolmeta, "parse_tool")
    for name in ("fork", "popen"):
        real = getattr(processes, name)
        monkeypatch.setattr(
            processes, name, lambda *a, real=real, **k: started.append(a[0]) or real(*a, **k)
        )
    before = gc.get_threshold()
    host = (1_000_000_000, 10, 10)  # the host's own thresholds: no collection meanwhile
    gc.set_threshold(*host)
    try:
        young = [[i] for i in range(100)]  # the host's own objects, in the young generation
        ids = {id(obj) for obj in young}
        tools = Workers() if workers else None
        inspector = Inspector(space.root, scenario={"directive": "job"}, tools=tools)
        report = inspector.report(run_scripts=False)
        assert report.thread is not None and report.thread.palette.registered
        assert seen and all(seen)
        assert gc.isenabled() and gc.get_threshold() == host
        assert sum(id(o) in ids for o in gc.get_objects(generation=0)) == len(ids)
        assert bool(started) is workers
    finally:
        gc.set_threshold(*before)


def project_spaces(space: Space) -> list[tiers.Space]:
    """The project space alone (`ahead` passes the system tier over)."""
    return [tiers.Space("project", space.ai), tiers.Space("system", tiers.SYSTEM_SPACE)]


def test_children_started_ahead_parse_while_the_build_does_other_work(
    space: Space, monkeypatch
) -> None:
    paths = write_tools(space)
    in_turn = [tool_metadata(Snapshot(), p) for p in paths]
    snap, source = Snapshot(), Workers()
    with source.ahead(snap, project_spaces(space)):
        time.sleep(0.5)  # the build's other work; the child needs ~0.05 s for all of it
        runs = slow_here(monkeypatch)
        fresh = source.metadata(snap, {space.ai / "tools": paths})
    assert len(fresh) == N and int(runs) < N // 2  # the child had done most already
    assert snap.reads == 0
    assert [tool_metadata(snap, p) for p in paths] == in_turn


def test_what_the_palette_does_not_want_is_left_to_the_children(space: Space, monkeypatch) -> None:
    paths = write_tools(space)
    wanted = paths[::3]
    runs = slow_here(monkeypatch)
    snap, source = Snapshot(), Workers()
    with source.ahead(snap, project_spaces(space)):
        fresh = source.metadata(snap, {space.ai / "tools": wanted})
    assert set(wanted) <= set(fresh)
    assert runs and all(path in wanted for run in runs for path in run)
    assert [tool_metadata(snap, p) for p in wanted] == [
        tool_metadata(Snapshot(), p) for p in wanted
    ]


def test_children_started_ahead_are_stopped_when_the_build_never_wants_them(
    space: Space,
) -> None:
    write_tools(space)
    snap, source = Snapshot(), Workers()
    with source.ahead(snap, project_spaces(space)):
        crew = source._crews.get(snap)
        assert crew is not None and crew.children
        pids = [child.pid for child in crew.children]  # type: ignore[attr-defined]
    assert source._crews.get(snap) is None
    for pid in pids:  # reaped: no such child any more
        with pytest.raises(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)


def test_nothing_starts_ahead_once_a_cache_holds_results_or_the_snapshot_has_looked(
    space: Space, tmp_path: Path
) -> None:
    paths = write_tools(space)
    disk = ToolCache(tmp_path / "cache" / "tools.marshal")
    assert disk.blank()
    snap, source = Snapshot(), Workers(disk)
    with source.ahead(snap, project_spaces(space)):
        assert source._crews.get(snap) is not None  # a first look
        source.metadata(snap, {space.ai / "tools": paths})
    with source.ahead(snap, project_spaces(space)):
        assert source._crews.get(snap) is None  # the same snapshot: its rebuilds
    source.save()
    later = Workers(ToolCache(tmp_path / "cache" / "tools.marshal"))
    assert later.cache is not None and not later.cache.blank()
    fresh = Snapshot()
    with later.ahead(fresh, project_spaces(space)):
        assert later._crews.get(fresh) is None  # a later run finds them in the cache


def test_a_report_is_the_same_with_children_ahead_and_without(
    space: Space, tmp_path: Path, monkeypatch
) -> None:
    from ctxscope import Inspector

    write_tools(space)
    space.directive("job", permissions="<execute><tool>gen/*</tool></execute>")
    reports = []
    for count in (1, 2):
        monkeypatch.setattr(toolprefetch, "workers", lambda count=count: count)
        cache = ToolCache(tmp_path / f"cache{count}" / "tools.marshal")
        inspector = Inspector(space.root, scenario={"directive": "job"}, tools=Workers(cache))
        data = inspector.report(run_scripts=False).to_dict()
        thread = {"thread": data["thread"], "diagnostics": data["diagnostics"]}
        reports.append(json.dumps(thread, sort_keys=True).replace(str(tmp_path), "TMP"))
    assert reports[0] == reports[1]
    assert '"registered"' in reports[0] and f"gen/ns{(N - 5) % 7}/t{N - 5}" in reports[0]


def test_a_started_worker_that_finds_another_ctxscope_first_takes_no_run(tmp_path: Path) -> None:
    """Another copy of ctxscope (another version) could parse otherwise: its worker exits at
    once, leaving every run to the caller; one of this copy takes them all."""
    import subprocess

    code = "import sys; from ctxscope.runtimes.rye import toolworker as m; m.serve(sys.argv[1])"
    for home, works in ((str(tmp_path), False), (toolworker.package_root(), True)):
        queue, fill = os.pipe()
        os.write(fill, bytes(range(3)))
        os.close(fill)
        try:
            done = subprocess.run(
                [sys.executable, "-c", code, home],
                input=marshal.dumps((["/nonexistent.py"] * 3, 1, queue, 1 << 21)),
                capture_output=True,
                pass_fds=(queue,),
                check=False,
            )
            assert (done.returncode == 0) is works
            assert len(os.read(queue, 16)) == (0 if works else 3)  # the runs left
        finally:
            os.close(queue)


def test_results_parsed_by_workers_are_moved_to_the_oldest_generation(
    space: Space, tuned: None
) -> None:
    """They live as long as the build: young, every collection would scan them again. A
    process that froze objects (the app, after its first build) keeps them frozen."""
    paths = write_tools(space)

    def young(results: dict[str, toolprefetch.Result]) -> int:
        ids = {id(meta) for meta, _ in results.values() if meta is not None}
        return sum(id(o) in ids for gen in (0, 1) for o in gc.get_objects(generation=gen))

    results = toolprefetch.prefetch(Snapshot(), paths, None)
    assert any(meta is not None for meta, _ in results.values())
    assert young(results) == 0
    kept = [{"frozen": True}]  # a container that lives on, frozen with the rest
    tuning.calm_app()
    try:
        again = toolprefetch.prefetch(Snapshot(), paths, None)
        # Frozen objects may die meanwhile (the count may drop), but none is unfrozen:
        # the container is in no generation the collector scans.
        assert gc.get_freeze_count() > 0
        assert not any(o is kept for gen in (0, 1, 2) for o in gc.get_objects(generation=gen))
        assert young(again) > 0  # ... and nothing moved
    finally:
        gc.unfreeze()


@pytest.mark.parametrize("enabled", [True, False])
def test_a_first_build_with_workers_runs_with_the_collector_off_and_settles(
    space: Space, enabled: bool, tuned: None
) -> None:
    """What a first build of a large space makes is mostly kept: the collector stays off
    while it runs (as it was found afterwards) and what it made leaves the young
    generations at its end."""
    write_tools(space)
    small = Space(space.root.parent / "small")
    small.write("tools/t/x.py", 'CONFIG_SCHEMA = {"type": "object"}\n')
    (gc.enable if enabled else gc.disable)()
    try:
        with Workers().ahead(Snapshot(), project_spaces(small)):
            assert gc.isenabled() is enabled  # too few tools for workers: as it was
        snap = Snapshot()
        with Workers().ahead(snap, project_spaces(space)):
            assert not gc.isenabled()
            kept = [[i] for i in range(1000)]  # lists are always tracked
        assert gc.isenabled() is enabled
        ids = {id(k) for k in kept}
        assert not any(id(o) in ids for gen in (0, 1) for o in gc.get_objects(generation=gen))
    finally:
        gc.enable()
