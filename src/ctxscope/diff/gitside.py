"""A git revision of the workspace's repository, as files in a scratch folder.

Everything is read from git objects (`git rev-parse`, `git ls-tree`, `git archive`): the
repository's work tree, index and refs are never touched, and no command that refreshes the
index (`git status`, `git diff`) runs. The scratch folder lies outside the repository and is
removed when the side is closed.
"""

from __future__ import annotations

import os
import secrets
import shutil
import tarfile
import tempfile
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from ctxscope import processes
from ctxscope.record import record

if TYPE_CHECKING:
    from subprocess import CompletedProcess


class GitError(Exception):
    """The revision cannot be read (no repository, unknown revision, git missing)."""


_ENV = {"GIT_OPTIONAL_LOCKS": "0", "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"}
"""Never take the index lock for an optional refresh; never ask for credentials."""


def _git(cwd: Path, *args: str, binary: bool = False) -> CompletedProcess[bytes]:
    env = {**os.environ, **_ENV}
    try:
        return processes.run(
            "git", ["git", *args], cwd=cwd, env=env, capture_output=True, timeout=60
        )
    except FileNotFoundError:
        raise GitError("git is not installed (needed to read a revision)") from None
    except processes.TimeoutExpired:
        raise GitError(f"git {args[0]} took more than 60 s") from None


@record(frozen=True)
class Revision:
    """A commit of the repository holding a workspace."""

    spec: str
    """The revision as typed (`HEAD~1`, a branch, a tag, a hash)."""
    commit: str
    top: Path
    """The repository's top folder (its work tree)."""
    prefix: str
    """The workspace's path inside the repository (`""` at the top, else ending in `/`)."""


def find_revision(workspace: Path, spec: str) -> Revision | None:
    """The commit `spec` names in the repository holding `workspace`; None when the
    workspace is in no repository or `spec` names no commit there."""
    if spec.startswith("-"):
        return None  # never an option to git
    done = _git(workspace, "rev-parse", "--show-toplevel", "--show-prefix", f"{spec}^{{commit}}")
    if done.returncode != 0:
        return None
    lines = done.stdout.decode("utf-8", "surrogateescape").splitlines()
    if len(lines) < 3:
        # an empty prefix prints an empty line; three lines are expected either way
        return None
    top, prefix, commit = lines[0], lines[1], lines[2]
    return Revision(spec, commit.strip(), Path(top), prefix)


def why_not_revision(workspace: Path, spec: str) -> str:
    """Why `spec` is not a revision of the workspace's repository, in words."""
    done = _git(workspace, "rev-parse", "--show-toplevel")
    if done.returncode != 0:
        return f"{workspace} is not in a git repository"
    return f"no commit named {spec!r} in the repository at {done.stdout.decode().strip()}"


MEMORY_FOLDER = Path("/dev/shm")
"""A folder in memory on Linux: writing a revision's files there and removing them costs a
third of what it costs on a disk (folders especially)."""


def scratch_base() -> Path:
    """Where scratch copies go: the temporary folder the user chose (`TMPDIR`), else a
    writable folder in memory, else the system's temporary folder."""
    usable = MEMORY_FOLDER.is_dir() and os.access(MEMORY_FOLDER, os.W_OK | os.X_OK)
    if usable and not os.environ.get("TMPDIR"):
        return MEMORY_FOLDER
    return Path(tempfile.gettempdir())


def scratch_folder(top: Path) -> Path:
    """A new empty folder (private to the user) outside the repository at `top`, whose path
    is as long as `top`'s where it can be: the prompt names the workspace's path (file
    headings, the Workspace section), so a copy at a path of another length would change
    every size that includes it. Tried under `scratch_base()`, then (unless `TMPDIR` names
    the place) the system's temporary folder and `/tmp`; else a folder of any length (see
    `same_length`)."""
    top = top.resolve()
    bases = [scratch_base().resolve()]
    if not os.environ.get("TMPDIR"):  # else only where the user said
        bases += [Path(tempfile.gettempdir()).resolve(), Path("/tmp")]
    for base in dict.fromkeys(bases):
        if base == top or top in base.parents or not base.is_dir():
            continue
        room = len(str(top)) - len(str(base)) - 1
        if room < 6 or room > 255:
            continue
        for _ in range(20):
            name = "c" + secrets.token_hex(room)[: room - 1]
            try:
                (base / name).mkdir(mode=0o700)
            except FileExistsError:
                continue
            except OSError:
                break
            return base / name
    base = scratch_base().resolve()
    if base == top or top in base.parents:
        base = Path.home()  # the temporary folder lies inside the repository
    return Path(tempfile.mkdtemp(prefix="ctxscope-rev-", dir=base))


def same_length(scratch: Path, top: Path) -> bool:
    """Whether sizes that include the workspace's path are the same in the copy: paths of
    one length, both ASCII (a token estimate weighs other characters differently)."""
    a, b = str(scratch), str(top.resolve())
    return len(a) == len(b) and a.isascii() and b.isascii()


def _listed(rev: Revision, folder: str) -> list[tuple[str, str]]:
    """(type, path from the top) of each entry directly in `folder` (`""`: the top) at the
    revision."""
    spec = f"{rev.commit}:{folder}" if folder else f"{rev.commit}:"
    done = _git(rev.top, "ls-tree", "-z", spec)
    if done.returncode != 0:
        return []
    out = []
    for entry in done.stdout.split(b"\0"):
        if not entry:
            continue
        meta, _, name = entry.partition(b"\t")
        kind = meta.split()[1].decode()
        path = folder + name.decode("utf-8", "surrogateescape")
        out.append((kind, path))
    return out


def extract(rev: Revision, paths: list[str], dest: Path) -> None:
    """Write `paths` (from the repository's top; a folder with all it holds) as they are at
    the revision into `dest`, from `git archive`'s tar stream."""
    wanted = [p for p in paths if p is not None]
    if not wanted:
        return
    args = ["archive", "--format=tar", rev.commit, "--", *[p or "." for p in wanted]]
    env = {**os.environ, **_ENV}
    try:
        proc = processes.popen(
            "git",
            ["git", *args],
            cwd=rev.top,
            env=env,
            stdout=processes.PIPE,
            stderr=processes.PIPE,
        )
    except FileNotFoundError:
        raise GitError("git is not installed (needed to read a revision)") from None
    assert proc.stdout is not None
    try:
        with tarfile.open(fileobj=proc.stdout, mode="r|") as tar:
            for member in tar:
                _write(tar, member, dest)
    except tarfile.TarError as exc:
        proc.kill()
        raise GitError(f"git archive {rev.spec}: {exc}") from None
    finally:
        proc.stdout.close()
        err = proc.stderr.read() if proc.stderr else b""
        code = proc.wait()
        processes.discard(proc.pid)
        if proc.stderr:
            proc.stderr.close()
    if code != 0:
        message = err.decode("utf-8", "replace").strip().splitlines()
        raise GitError(f"git archive {rev.spec}: {message[-1] if message else f'exit {code}'}")


def _write(tar: tarfile.TarFile, member: tarfile.TarInfo, dest: Path) -> None:
    """One archive member under `dest`: a folder, a file (its bytes, and its execute bits)
    or a link (as recorded); anything else, and any name leaving `dest`, is skipped. Plainer
    than `TarFile.extract`, which also sets owners and times: nothing reads those here."""
    name = member.name
    if PurePosixPath(name).is_absolute() or ".." in name.split("/"):
        return
    path = os.path.join(dest, name)
    if member.isdir():
        os.makedirs(path, exist_ok=True)
    elif member.isfile():
        source = tar.extractfile(member)
        data = source.read() if source is not None else b""
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as fh:
            fh.write(data)
        if member.mode & 0o111:
            os.chmod(path, 0o755)
    elif member.issym():
        os.makedirs(os.path.dirname(path), exist_ok=True)
        os.symlink(member.linkname, path)


def checkout_free_copy(rev: Revision) -> Path:
    """A scratch folder holding, as at the revision, the workspace folder, the files of its
    parent folder (where a gateway config may sit) and the parent's `workspace*` folders
    (OpenClaw's per-agent workspaces beside the config). Returns the scratch folder; the
    workspace is `folder / rev.prefix`."""
    dest = scratch_folder(rev.top)
    try:
        prefix = rev.prefix.rstrip("/")
        parent = prefix.rpartition("/")[0] + "/" if "/" in prefix else ""
        paths = [prefix] if prefix else [""]
        if prefix:
            for kind, path in _listed(rev, parent):
                name = path.rpartition("/")[2]
                beside = kind == "blob" or (kind == "tree" and name.startswith("workspace"))
                if beside and path != prefix:
                    paths.append(path)
        try:
            extract(rev, paths, dest)
        except GitError:
            if not prefix or not _listed(rev, rev.prefix):
                raise GitError(
                    f"the workspace folder {prefix or '.'} does not exist at {rev.spec} "
                    f"({rev.commit[:12]})"
                ) from None
            raise
        (dest / prefix).mkdir(parents=True, exist_ok=True)
    except BaseException:
        shutil.rmtree(dest, ignore_errors=True)
        raise
    return dest


def fill_in(rev: Revision, dest: Path, folders: list[Path]) -> None:
    """Extract `folders` (inside `dest`, absent there) from the revision when it has them:
    an agent workspace the config names elsewhere in the repository."""
    wanted = []
    for folder in folders:
        try:
            rel = folder.resolve().relative_to(dest.resolve())
        except ValueError:
            continue
        if folder.exists() or not rel.parts:
            continue
        path = rel.as_posix()
        parent = path.rpartition("/")[0]
        if any(p == path for _, p in _listed(rev, parent + "/" if parent else "")):
            wanted.append(path)
    if wanted:
        extract(rev, wanted, dest)
