"""The parse memo of Rye files: a file is parsed again exactly when it changed since it was
read, including a change made while it was being parsed."""

from __future__ import annotations

import os
from pathlib import Path

from ctxscope.core.model import Diagnostic
from ctxscope.infra.snapshot import Snapshot
from ctxscope.runtimes.rye.tiers import parse_cached


def test_the_stamp_is_the_files_state_when_it_was_read(tmp_path: Path) -> None:
    path = tmp_path / "tool.py"
    path.write_text("X = 1\n")
    snapshot = Snapshot()
    assert snapshot.stamp(path) is None  # never read
    snapshot.read(path)
    st = os.stat(path)
    assert snapshot.stamp(path) == (st.st_mtime_ns, st.st_size, st.st_ino)
    path.write_text("X = 12\n")
    assert snapshot.stamp(path) == (st.st_mtime_ns, st.st_size, st.st_ino)  # until read again
    assert snapshot.stamp(tmp_path / "missing.py") is None


def test_a_file_is_parsed_again_only_when_it_changed(tmp_path: Path) -> None:
    path = tmp_path / "tool.py"
    path.write_text("one\n")
    snapshot = Snapshot()
    seen: list[str] = []

    def parse(text: str) -> tuple[str, list[Diagnostic]]:
        seen.append(text)
        return text.strip(), []

    assert parse_cached(snapshot, "tool", str(path), parse) == ("one", [])
    assert parse_cached(snapshot, "tool", str(path), parse) == ("one", [])
    path.write_text("three\n")
    assert parse_cached(snapshot, "tool", str(path), parse) == ("three", [])
    assert seen == ["one\n", "three\n"]


def test_an_edit_made_while_parsing_is_seen_by_the_next_build(tmp_path: Path) -> None:
    path = tmp_path / "tool.py"
    path.write_text("before\n")
    snapshot = Snapshot()

    def parse_while_saved(text: str) -> tuple[str, list[Diagnostic]]:
        if text == "before\n":
            path.write_text("after the save\n")  # an editor saves during the parse
        return text.strip(), []

    assert parse_cached(snapshot, "tool", str(path), parse_while_saved) == ("before", [])
    assert parse_cached(snapshot, "tool", str(path), parse_while_saved) == ("after the save", [])
