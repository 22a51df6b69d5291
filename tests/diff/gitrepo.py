"""A git repository with hundreds of commits, written at once with `git fast-import`."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

GIT_ENV = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.org",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.org",
}


def git(repo: Path, *args: str) -> str:
    env = {**os.environ, **GIT_ENV}
    done = subprocess.run(
        ["git", *args], cwd=repo, env=env, capture_output=True, text=True, check=True
    )
    return done.stdout


def agents_text(n: int) -> str:
    """AGENTS.md as commit `n` writes it: one more rule per commit."""
    return "# Agents\n" + "".join(f"- rule {i}: keep answers short\n" for i in range(n + 1))


def make_repo(root: Path, commits: int, fixed: dict[str, str]) -> Path:
    """A repository at `root` whose folder `ws/` holds `fixed` files from the first commit
    and an AGENTS.md that grows by a line per commit; the work tree is checked out at the
    last commit. Returns the workspace folder."""
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    stream: list[bytes] = []

    def blob(path: str, text: str) -> None:
        data = text.encode()
        stream.append(f"M 100644 inline {path}\ndata {len(data)}\n".encode() + data + b"\n")

    for n in range(commits):
        message = f"commit {n}".encode()
        stream.append(
            f"commit refs/heads/main\nmark :{n + 1}\n"
            f"committer t <t@example.org> {1_700_000_000 + n} +0000\n"
            f"data {len(message)}\n".encode()
            + message
            + b"\n"
        )
        if n:
            stream.append(f"from :{n}\n".encode())
        if n == 0:
            for path, text in fixed.items():
                blob(f"ws/{path}", text)
        blob("ws/AGENTS.md", agents_text(n))
        stream.append(b"\n")
    env = {**os.environ, **GIT_ENV}
    subprocess.run(
        ["git", "fast-import", "--quiet"],
        cwd=root,
        env=env,
        input=b"".join(stream),
        check=True,
        capture_output=True,
    )
    git(root, "reset", "-q", "--hard", "main")
    return root / "ws"
