"""Hostile revisions: a git revision is data. Crafted trees (built with git's plumbing, as an
attacker would) never write outside the scratch copy, the repository's filters, attributes
and hooks never act, and a revision that cannot be read is one clear error (exit 2)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_cli import ctxscope

from .gitrepo import GIT_ENV, git

JSON = ("--format", "json")


def git_in(repo: Path, *args: str, data: bytes = b"") -> str:
    env = {**os.environ, **GIT_ENV}
    done = subprocess.run(
        ["git", *args], cwd=repo, env=env, input=data, capture_output=True, check=True
    )
    return done.stdout.decode().strip()


def blob(repo: Path, data: bytes) -> bytes:
    return bytes.fromhex(git_in(repo, "hash-object", "-w", "--stdin", data=data))


def tree(repo: Path, *entries: tuple[str, str, bytes]) -> bytes:
    """A tree object holding `entries` (mode, name, object id) as given, unchecked (`git
    hash-object --literally`: duplicates and odd modes included)."""
    raw = b"".join(f"{mode} {name}".encode() + b"\0" + oid for mode, name, oid in entries)
    out = git_in(repo, "hash-object", "-w", "-t", "tree", "--literally", "--stdin", data=raw)
    return bytes.fromhex(out)


def commit(repo: Path, top: bytes, branch: str) -> None:
    made = git_in(repo, "commit-tree", top.hex(), "-m", branch)
    git_in(repo, "update-ref", f"refs/heads/{branch}", made)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository whose `ws/` holds a small workspace, committed and checked out."""
    top = tmp_path / "repo"
    (top / "ws").mkdir(parents=True)
    (top / "ws" / "SOUL.md").write_text("# Soul\nCalm.\n")
    (top / "ws" / "AGENTS.md").write_text("# Agents\nBe brief.\n")
    git(top, "init", "-q", "-b", "main")
    git(top, "add", ".")
    git(top, "commit", "-q", "-m", "first")
    return top


def changed_files(stdout: str) -> set[str]:
    """The files `diff --format json` shows changed in agent:main:main."""
    session = next(
        s for s in json.loads(stdout)["sessions"] if s["session_key"] == "agent:main:main"
    )
    return {f["name"] for f in session["files"]}


def crafted_ws(repo: Path, *entries: tuple[str, str, bytes]) -> None:
    """Branch `crafted`: a top tree whose `ws` holds AGENTS.md and `entries`."""
    agents = ("100644", "AGENTS.md", blob(repo, b"# Agents\n"))
    ws = tree(repo, agents, *entries)
    commit(repo, tree(repo, ("40000", "ws", ws)), "crafted")


@pytest.mark.parametrize("outside", [True, False], ids=["elsewhere", "work-tree"])
def test_a_link_then_a_file_of_one_name_writes_nowhere(
    repo: Path, tmp_path: Path, outside: bool
) -> None:
    victim = tmp_path / "victim.txt" if outside else repo / "ws" / "AGENTS.md"
    victim.write_text("untouched")
    crafted_ws(
        repo,
        ("120000", "SOUL.md", blob(repo, str(victim).encode())),
        ("100644", "SOUL.md", blob(repo, b"pwned")),
    )
    out = ctxscope("diff", repo / "ws", "--from", "crafted")
    assert out.returncode == 2, out.stderr
    assert "'ws/SOUL.md' at crafted" in out.stderr
    assert "names this path twice" in out.stderr
    assert victim.read_text() == "untouched"
    assert (repo / "ws" / "SOUL.md").read_text() == "# Soul\nCalm.\n"


def test_a_link_to_the_hooks_then_a_folder_of_that_name_plants_no_hook(repo: Path) -> None:
    hooks = repo / ".git" / "hooks"
    before = sorted(os.listdir(hooks))
    hook = tree(repo, ("100755", "post-checkout", blob(repo, b"#!/bin/sh\ntouch /tmp/x\n")))
    crafted_ws(
        repo,
        ("120000", "hooks", blob(repo, str(hooks).encode())),
        ("40000", "hooks", hook),
    )
    out = ctxscope("diff", repo / "ws", "--from", "crafted")
    assert out.returncode == 2, out.stderr
    assert "'ws/hooks' at crafted" in out.stderr
    assert sorted(os.listdir(hooks)) == before


@pytest.mark.parametrize("name", ["..", ".git", ".GIT"])
def test_names_git_never_checks_out_are_refused_with_the_path(repo: Path, name: str) -> None:
    crafted_ws(repo, ("100644", name, blob(repo, b"x")))
    out = ctxscope("diff", repo / "ws", "--from", "crafted")
    assert out.returncode == 2, out.stderr
    assert f"'ws/{name}' at crafted" in out.stderr
    assert "refused" in out.stderr


@pytest.mark.parametrize("target", ["ws", "../.git"])
def test_a_workspace_that_is_a_link_at_the_revision_is_named(repo: Path, target: str) -> None:
    commit(repo, tree(repo, ("120000", "ws", blob(repo, target.encode()))), "linked")
    out = ctxscope("diff", repo / "ws", "--from", "linked")
    assert out.returncode == 2, out.stderr
    assert "the workspace folder ws is a link, not a folder, at linked" in out.stderr


@pytest.mark.parametrize("where", ["committed", "info"])
def test_the_repository_filters_never_run(repo: Path, tmp_path: Path, where: str) -> None:
    marker = tmp_path / "ran"
    rule = "* filter=evil\n"
    if where == "committed":
        (repo / "ws" / ".gitattributes").write_text(rule)
        git(repo, "add", "ws/.gitattributes")
        git(repo, "commit", "-q", "-m", "attrs")
    else:
        (repo / ".git" / "info" / "attributes").write_text(rule)
    git(repo, "config", "filter.evil.smudge", f"sh -c 'touch {marker}; cat'")
    git(repo, "config", "filter.evil.process", f"sh -c 'touch {marker}'")
    git(repo, "config", "filter.evil.required", "true")
    out = ctxscope("diff", repo / "ws", "--from", "HEAD", "--format", "json")
    assert out.returncode == 0, out.stderr
    assert not marker.exists()


def test_export_attributes_do_not_change_a_clean_revision(repo: Path) -> None:
    (repo / "ws" / "SOUL.md").write_text("# Soul\n$Format:%H$\n")
    (repo / "ws" / ".gitattributes").write_text("SOUL.md export-subst\nAGENTS.md export-ignore\n")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "attrs")
    out = ctxscope("diff", repo / "ws", "--from", "HEAD", "--format", "json")
    assert out.returncode == 0, out.stderr
    assert not {"AGENTS.md", "SOUL.md"} & changed_files(out.stdout)


@pytest.mark.skipif(os.geteuid() != 0, reason="making a repository another user owns needs root")
def test_a_repository_another_user_owns_is_reported_as_such(repo: Path) -> None:
    for folder, dirs, files in os.walk(repo):
        for name in [folder, *(os.path.join(folder, n) for n in dirs + files)]:
            os.chown(name, 65534, 65534, follow_symlinks=False)
    for spec in ["HEAD", "git:HEAD"]:
        out = ctxscope("diff", repo / "ws", "--from", spec)
        assert out.returncode == 2, out.stderr
        assert "dubious ownership" in out.stderr
        assert "not in a git repository" not in out.stderr


def test_a_spec_longer_than_a_file_name_names_no_side(repo: Path) -> None:
    out = ctxscope("diff", repo / "ws", "--from", "a" * 300)
    assert out.returncode == 2, out.stderr
    assert "names no side" in out.stderr
    assert "internal error" not in out.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["diff", "--from=--"],
        ["diff", "--from", "HEAD", "--to=--"],
        ["check", "--against=--"],
        ["runs", "--session=--"],
        ["runs", "--since=--"],
        ["runs", "--state=--"],
    ],
)
def test_a_double_dash_is_no_option_value(repo: Path, args: list[str]) -> None:
    out = ctxscope(args[0], repo / "ws", *args[1:])
    assert out.returncode == 2, out.stderr
    assert "expected one value" in out.stderr
    assert "internal error" not in out.stderr


def test_no_git_variable_of_the_caller_reaches_git(repo: Path, tmp_path: Path) -> None:
    """GIT_DIR pointing at another repository would read another history."""
    other = tmp_path / "other"
    shutil.copytree(repo, other)
    (other / "ws" / "SOUL.md").write_text("# Soul\nOther.\n")
    git(other, "commit", "-q", "-am", "other")
    env = {**os.environ, "GIT_DIR": str(other / ".git")}
    out = subprocess.run(
        [sys.executable, "-m", "ctxscope", "diff", str(repo / "ws"), "--from", "HEAD", *JSON],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert "SOUL.md" not in changed_files(out.stdout)


def test_a_workspace_folder_whose_name_holds_a_newline_is_read_at_the_revision(
    tmp_path: Path,
) -> None:
    """git prints the folder's path on lines of its own: a newline in it must not make a
    part of the name be taken for the revision."""
    top = tmp_path / "repo"
    ws = top / "ws\nHEAD"
    ws.mkdir(parents=True)
    (ws / "SOUL.md").write_text("# Soul\nCalm.\n")
    (ws / "AGENTS.md").write_text("# Agents\nBe brief.\n")
    git(top, "init", "-q", "-b", "main")
    git(top, "add", ".")
    git(top, "commit", "-q", "-m", "first")
    (ws / "SOUL.md").write_text("# Soul\nRestless.\n")
    git(top, "commit", "-q", "-am", "second")
    out = ctxscope("diff", ws, "--from", "HEAD~1", "--to", "HEAD", *JSON)
    assert out.returncode == 0, out.stderr
    assert "SOUL.md" in changed_files(out.stdout)
