"""Git revisions as sides: read from git objects, never checking anything out."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from ctxscope.diff import SideError, compare_specs
from tests.conftest import SAMPLE

from .gitrepo import agents_text, git, make_repo

COMMITS = 300
CONFIG = '{ agents: { list: [ { id: "main", default: true } ] } }'


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("history") / "repo"
    return make_repo(root, COMMITS, {"openclaw.json": CONFIG, "SOUL.md": "# Soul\nCalm.\n"})


def tree_state(top: Path) -> dict[str, tuple[bytes, int]]:
    """Every file of the work tree (not .git) with its bytes and mtime."""
    out = {}
    for folder, dirs, files in os.walk(top):
        dirs[:] = [d for d in dirs if d != ".git"]
        for name in files:
            path = Path(folder) / name
            out[str(path.relative_to(top))] = (path.read_bytes(), path.stat().st_mtime_ns)
    return out


def git_state(top: Path) -> tuple[bytes, int, str, str]:
    index = top / ".git" / "index"
    return (
        index.read_bytes(),
        index.stat().st_mtime_ns,
        (top / ".git" / "HEAD").read_text(),
        git(top, "for-each-ref"),
    )


def main_file(result, name: str):  # type: ignore[no-untyped-def]
    session = next(s for s in result.sessions if s.session_key == "agent:main:main")
    return session, next((f for f in session.files if f.name == name), None)


def test_two_revisions_of_a_long_history_leave_work_tree_and_index_alone(
    repo: Path, monkeypatch: pytest.MonkeyPatch
):
    from ctxscope.diff import gitside

    made: list[Path] = []
    real = gitside.scratch_folder
    monkeypatch.setattr(gitside, "scratch_folder", lambda top: made.append(real(top)) or made[-1])
    top = repo.parent
    # A work tree in use: an edit, a staged file, an untracked file.
    (repo / "SOUL.md").write_text("# Soul\nCalm, and brief.\n")
    (repo / "USER.md").write_text("# User\nDana\n")
    git(top, "add", "ws/USER.md")
    (repo / "notes.txt").write_text("scratch\n")
    status = git(top, "status", "--porcelain")
    assert status  # the status compared below is not an empty one
    files, state = tree_state(top), git_state(top)

    result = compare_specs(repo, "HEAD~250", "HEAD~1")

    assert git_state(top) == state  # index bytes and mtime, HEAD and refs
    assert tree_state(top) == files
    assert git(top, "status", "--porcelain") == status
    session, agents = main_file(result, "AGENTS.md")
    assert agents is not None and agents.before is not None and agents.after is not None
    old, new = agents_text(COMMITS - 251).rstrip(), agents_text(COMMITS - 2).rstrip()
    assert agents.before["injected_chars"] == len(old)
    assert agents.after["injected_chars"] == len(new)
    assert session.delta > 0
    # Neither revision has the work tree's edits.
    assert main_file(result, "SOUL.md")[1] is None
    assert main_file(result, "USER.md")[1] is None
    assert len(made) == 2 and not any(p.exists() for p in made)  # the copies are gone
    assert not any(top in p.parents for p in made)


def test_a_revision_against_the_work_tree_shows_the_uncommitted_edit(tmp_path: Path):
    repo = make_repo(tmp_path / "repo", 3, {"openclaw.json": CONFIG, "SOUL.md": "# Soul\nCalm.\n"})
    (repo / "SOUL.md").write_text("# Soul\nCalm, and brief, and kind.\n")
    result = compare_specs(repo, "HEAD", "now")
    session, soul = main_file(result, "SOUL.md")
    # Only the edit: the copy's path takes the same room in the prompt as the workspace's.
    assert [f.name for f in session.files] == ["SOUL.md"]
    assert {c.id for c in session.sections} == {"file:SOUL.md"}
    assert result.notes == []
    assert soul is not None and soul.before is not None and soul.after is not None
    assert soul.before["injected_chars"] == len("# Soul\nCalm.")
    assert soul.after["injected_chars"] == len("# Soul\nCalm, and brief, and kind.")


def test_a_revision_the_repository_lacks_is_named(repo: Path):
    with pytest.raises(SideError, match="no commit named 'no-such-branch'"):
        compare_specs(repo, "git:no-such-branch", "now")
    with pytest.raises(SideError, match="names no side"):
        compare_specs(repo, "no-such-branch", "now")


def test_a_workspace_outside_any_repository(tmp_path: Path):
    ws = tmp_path / "plain"
    ws.mkdir()
    (ws / "AGENTS.md").write_text("# Agents\n")
    with pytest.raises(SideError, match="not in a git repository"):
        compare_specs(ws, "git:HEAD", "now")


def test_a_config_beside_the_workspace_and_agent_workspaces_elsewhere_come_from_the_revision(
    tmp_path: Path,
):
    """OpenClaw's state layout: the config in the workspace's parent folder, one agent in
    `workspace-<id>` beside it, another in a folder the config names elsewhere in the
    repository. All of them are read as at each revision."""
    top = tmp_path / "repo"
    (top / "state" / "workspace").mkdir(parents=True)
    (top / "state" / "workspace-coder").mkdir()
    (top / "shared" / "reviewer").mkdir(parents=True)

    def config(limit: int) -> str:
        return (
            '{ meta: { lastTouchedVersion: "2026.2.19" }, agents: { defaults: '
            f'{{ bootstrapMaxChars: {limit} }}, list: [ {{ id: "main", default: true }}, '
            '{ id: "coder" }, { id: "reviewer", workspace: "../shared/reviewer" } ] } }'
        )

    (top / "state" / "openclaw.json").write_text(config(20000))
    (top / "state" / "workspace" / "AGENTS.md").write_text("# Main\n" + "x" * 500 + "\n")
    (top / "state" / "workspace-coder" / "AGENTS.md").write_text("# Coder\n")
    (top / "shared" / "reviewer" / "AGENTS.md").write_text("# Reviewer\n")
    git(top, "init", "-q", "-b", "main")
    git(top, "add", "-A")
    git(top, "commit", "-q", "-m", "first")
    (top / "state" / "openclaw.json").write_text(config(300))
    (top / "state" / "workspace-coder" / "AGENTS.md").write_text("# Coder\nRun the tests.\n")
    (top / "shared" / "reviewer" / "AGENTS.md").write_text("# Reviewer\nBe strict.\n")
    git(top, "commit", "-q", "-am", "second")
    # The work tree moves on: neither revision may see this.
    (top / "shared" / "reviewer" / "AGENTS.md").write_text("# Reviewer\nwork tree only\n")

    result = compare_specs(top / "state" / "workspace", "HEAD~1", "HEAD")
    sessions = {s.session_key: s for s in result.sessions}

    def agents(key: str):  # type: ignore[no-untyped-def]
        return next(f for f in sessions[key].files if f.name == "AGENTS.md")

    main = agents("agent:main:main")
    assert main.cut and "300-char limit" in main.why  # the parent folder's config
    coder = agents("agent:coder:main")
    assert (coder.before["injected_chars"], coder.after["injected_chars"]) == (
        len("# Coder"),
        len("# Coder\nRun the tests."),
    )
    reviewer = agents("agent:reviewer:main")
    assert (reviewer.before["injected_chars"], reviewer.after["injected_chars"]) == (
        len("# Reviewer"),
        len("# Reviewer\nBe strict."),
    )
    # Paths are named as in the repository, not as in the scratch copy.
    [heading] = [
        c.heading for c in sessions["agent:coder:main"].sections if c.id == "file:AGENTS.md"
    ]
    assert heading == f"## {top / 'state' / 'workspace-coder' / 'AGENTS.md'}"


def test_an_edit_that_keeps_the_size_is_a_change(tmp_path: Path) -> None:
    """A file whose text changed and whose size did not is changed: its content decides,
    not its size alone."""
    ws = tmp_path / "ws"
    shutil.copytree(SAMPLE, ws)
    git(ws, "init", "-q", "-b", "main")
    git(ws, "add", "-A")
    git(ws, "commit", "-qm", "before")
    soul = ws / "SOUL.md"
    text = soul.read_text()
    soul.write_text(text.replace("a", "e", 1))
    git(ws, "commit", "-qam", "after")
    result = compare_specs(ws, "HEAD~1")
    main = next(d for d in result.sessions if d.role == "main")
    (change,) = main.files
    assert change.name == "SOUL.md"
    assert change.before is not None and change.after is not None
    assert change.before["injected_chars"] == change.after["injected_chars"]
    assert change.why.endswith("its text changed, its size did not")
