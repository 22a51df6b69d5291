"""A git revision of the workspace's repository, as files in a scratch folder.

A revision is data, never code: its trees are listed (`git ls-tree`) and its blobs read
(`git cat-file --batch`) as stored, with no checkout conversion, so no filter, attribute
(`export-ignore`, `export-subst`, `eol`), hook or `core.*` setting of the repository acts.
Every git call gets a clean environment and `-c` overrides (`_git_command`). The files are
written into a scratch folder made fresh, outside the repository, each opened relative to
its folder without following a link and created only where nothing is (`_write_entries`):
a tree naming one path twice, a name git would never check out (`..`, `.git`) or a mode that
is no file, link, folder or submodule is refused with its path. The repository's work tree,
index and refs are never touched, and no command that refreshes the index runs. The scratch
folder is removed when the side is closed.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import stat
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from ctxscope.core.record import record
from ctxscope.infra import processes

if TYPE_CHECKING:
    from subprocess import CompletedProcess


class GitError(Exception):
    """The revision cannot be read (no repository, unknown revision, git missing, a tree
    that cannot be written as files)."""


class DubiousOwnership(GitError):
    """Git refuses the repository: another user owns it (`safe.directory`)."""


_ENV = {
    "GIT_OPTIONAL_LOCKS": "0",  # never take the index lock for an optional refresh
    "GIT_TERMINAL_PROMPT": "0",  # never ask for credentials
    "GIT_NO_REPLACE_OBJECTS": "1",  # a commit is what its hash says
    "GIT_NO_LAZY_FETCH": "1",  # a partial clone never fetches (git >= 2.45)
    "GIT_ATTR_NOSYSTEM": "1",
    "GIT_LITERAL_PATHSPECS": "1",  # a path is a path, never `:(magic)`
    "LC_ALL": "C",
}
_KEPT_ENV = ("PATH", "HOME", "XDG_CONFIG_HOME", "TMPDIR", "SYSTEMROOT")
"""What git keeps of ctxscope's environment (`HOME` for the user's `safe.directory`); no
`GIT_*` variable (GIT_DIR, GIT_CONFIG_PARAMETERS, GIT_EXTERNAL_DIFF, ...) passes."""
_OVERRIDES = (
    "core.fsmonitor=false",
    "core.hooksPath=/dev/null",
    "core.attributesFile=/dev/null",
    "core.sshCommand=false",
    "core.pager=cat",
    "protocol.allow=never",
    "credential.helper=",
)
"""`-c` settings on every call: whatever the repository's config says, no command of its
runs (a monitor, a hook, a transport for a lazy fetch) and no attribute file is read."""


def _git_command(*args: str) -> list[str]:
    out = ["git"]
    for setting in _OVERRIDES:
        out += ["-c", setting]
    return [*out, *args]


def _git_env() -> dict[str, str]:
    kept = {k: v for k, v in os.environ.items() if k in _KEPT_ENV}
    return {**kept, **_ENV}


def _git(cwd: Path, *args: str, input: bytes | None = None) -> CompletedProcess[bytes]:
    try:
        done = processes.run(
            "git",
            _git_command(*args),
            cwd=cwd,
            env=_git_env(),
            input=input,
            stdin=processes.DEVNULL if input is None else None,
            capture_output=True,
            timeout=60,
        )
    except (FileNotFoundError, NotADirectoryError):
        if not os.path.isdir(cwd):
            raise GitError(f"{cwd} is not a folder") from None
        raise GitError("git is not installed (needed to read a revision)") from None
    except processes.TimeoutExpired:
        raise GitError(f"git {args[0]} took more than 60 s") from None
    if b"dubious ownership" in done.stderr:
        raise DubiousOwnership(
            f"git refuses the repository holding {cwd}: detected dubious ownership (another "
            "user owns it; `git config --global --add safe.directory PATH` trusts it)"
        )
    return done


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
    # three lines (an empty prefix prints an empty one), the commit's last; a newline in a
    # folder's name makes more, and then the prefix is asked for alone
    # (a range, `A..B`, adds `^A` after B: B is the commit, as it always was)
    text = done.stdout.decode("utf-8", "surrogateescape").rstrip("\n")
    rest, _, commit = text.rpartition("\n")
    while commit.startswith("^"):
        rest, _, commit = rest.rpartition("\n")
    if rest.count("\n") == 1:
        top, _, prefix = rest.partition("\n")
    else:
        asked = _git(workspace, "rev-parse", "--show-prefix")
        prefix = asked.stdout.decode("utf-8", "surrogateescape").removesuffix("\n")
        top = rest.removesuffix("\n" + prefix)
        if asked.returncode != 0 or top == rest:
            return None
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


_MODES = {
    b"100644": "file",
    b"100755": "program",
    b"120000": "link",
    b"040000": "tree",
    b"160000": "submodule",
}
"""The modes a tree entry may have; anything else (a crafted tree) is refused."""


@record(frozen=True)
class Entry:
    """One entry of a tree at the revision."""

    kind: str
    """A value of `_MODES`."""
    oid: str
    path: bytes
    """From the repository's top, `/`-separated, as stored."""

    def named(self) -> str:
        return self.path.decode("utf-8", "backslashreplace")


def _entries(rev: Revision, paths: list[str]) -> list[Entry]:
    """Every entry of the revision at or under `paths` (from the top; `""` is the whole
    tree), folders before what they hold, in git's order. GitError when a path is listed
    twice, a name is one git never checks out, or a mode is not a file, link, folder or
    submodule."""
    args = ["ls-tree", "-r", "-t", "-z", "--full-tree", rev.commit]
    if "" not in paths:
        args += ["--", *paths]
    done = _git(rev.top, *args)
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GitError(
            f"git ls-tree {rev.spec}: {message[-1] if message else f'exit {done.returncode}'}"
        )
    out: list[Entry] = []
    seen: set[bytes] = set()
    for line in done.stdout.split(b"\0"):
        if not line:
            continue
        meta, _, path = line.partition(b"\t")
        mode, _, rest = meta.partition(b" ")
        oid = rest.partition(b" ")[2].decode("ascii", "replace")
        entry = Entry(_MODES.get(mode, ""), oid, path)
        where = f"{entry.named()!r} at {rev.spec} ({rev.commit[:12]})"
        if not entry.kind:
            raise GitError(
                f"{where}: mode {mode.decode('ascii', 'replace')} is not a file, "
                "link, folder or submodule; the revision is refused"
            )
        if path in seen:
            raise GitError(f"{where}: the tree names this path twice; the revision is refused")
        if any(part in (b"", b".", b"..") or part.lower() == b".git" for part in path.split(b"/")):
            raise GitError(f"{where}: a name git never checks out; the revision is refused")
        seen.add(path)
        out.append(entry)
    return out


def _blobs(rev: Revision, entries: list[Entry]) -> dict[str, bytes]:
    """The bytes of every file and link in `entries`, by object id, as stored (`git cat-file
    --batch`: no filter, no conversion)."""
    wanted = list(dict.fromkeys(e.oid for e in entries if e.kind in ("file", "program", "link")))
    if not wanted:
        return {}
    done = _git(rev.top, "cat-file", "--batch", input="".join(f"{o}\n" for o in wanted).encode())
    if done.returncode != 0:
        raise GitError(f"git cat-file {rev.spec}: exit {done.returncode}")
    data, at, out = done.stdout, 0, {}
    for oid in wanted:
        end = data.find(b"\n", at)
        header = data[at:end].split() if end >= 0 else []
        if len(header) != 3 or header[1] != b"blob":
            raise GitError(f"git cat-file {rev.spec}: object {oid} is not a readable blob")
        size = int(header[2])
        out[oid] = data[end + 1 : end + 1 + size]
        at = end + 2 + size
    return out


_NO_FOLLOW = os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)


def _write_entries(rev: Revision, entries: list[Entry], dest: Path) -> None:
    """Write `entries` under `dest`: each opened in its folder's descriptor, never through a
    link, created only where nothing is (a crafted tree cannot write outside `dest`, or
    through a link it made a moment before)."""
    blobs = _blobs(rev, entries)
    root = os.open(dest, os.O_RDONLY | os.O_DIRECTORY | _NO_FOLLOW)
    chain: list[tuple[bytes, int]] = [(b"", root)]
    try:
        for entry in entries:
            parent, _, name = entry.path.rpartition(b"/")
            folder = _folder(chain, parent, rev, entry)
            try:
                if entry.kind in ("tree", "submodule"):
                    try:
                        os.mkdir(name, 0o755, dir_fd=folder)
                    except FileExistsError:  # made for an earlier entry's path
                        os.close(_open_folder(name, folder))
                elif entry.kind == "link":
                    os.symlink(blobs[entry.oid], name, dir_fd=folder)
                else:
                    mode = 0o755 if entry.kind == "program" else 0o644
                    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NO_FOLLOW
                    fd = os.open(name, flags, mode, dir_fd=folder)
                    with os.fdopen(fd, "wb") as fh:
                        fh.write(blobs[entry.oid])
            except (OSError, ValueError) as exc:
                raise GitError(
                    f"{entry.named()!r} at {rev.spec} cannot be written as a file "
                    f"({getattr(exc, 'strerror', None) or exc}); the revision is refused"
                ) from None
    finally:
        for _, fd in chain:
            os.close(fd)


def _open_folder(name: bytes, folder: int) -> int:
    fd = os.open(name, os.O_RDONLY | os.O_DIRECTORY | _NO_FOLLOW, dir_fd=folder)
    if not stat.S_ISDIR(os.fstat(fd).st_mode):
        os.close(fd)
        raise NotADirectoryError(name)
    return fd


def _folder(chain: list[tuple[bytes, int]], path: bytes, rev: Revision, entry: Entry) -> int:
    """The descriptor of folder `path` under the scratch root (`chain[0]`), `chain` holding
    the folders from the root down to the one used last: kept where the paths share their
    start, the rest opened (made if absent) one name at a time without following links."""
    parts = path.split(b"/") if path else []
    keep = 1
    while keep < len(chain) and keep <= len(parts) and chain[keep][0] == b"/".join(parts[:keep]):
        keep += 1
    for _, fd in chain[keep:]:
        os.close(fd)
    del chain[keep:]
    for depth in range(keep - 1, len(parts)):
        name, above = parts[depth], chain[-1][1]
        try:
            with contextlib.suppress(FileExistsError):
                os.mkdir(name, 0o755, dir_fd=above)
            fd = _open_folder(name, above)
        except OSError as exc:
            made = b"/".join(parts[: depth + 1]).decode("utf-8", "backslashreplace")
            raise GitError(
                f"{entry.named()!r} at {rev.spec}: {made!r} is not a folder "
                f"({exc.strerror or exc}); the revision is refused"
            ) from None
        chain.append((b"/".join(parts[: depth + 1]), fd))
    return chain[-1][1]


def extract(rev: Revision, paths: list[str], dest: Path) -> list[Entry]:
    """Write `paths` (from the repository's top; a folder with all it holds; `""` the whole
    tree) as they are at the revision into `dest` (see the module doc). Returns the
    entries written."""
    entries = _entries(rev, paths)
    _write_entries(rev, entries, dest)
    return entries


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


def checkout_free_copy(rev: Revision) -> Path:
    """A scratch folder holding, as at the revision, the workspace folder, the files of its
    parent folder (where a gateway config may sit) and the parent's `workspace*` folders
    (OpenClaw's per-agent workspaces beside the config). Returns the scratch folder; the
    workspace is `folder / rev.prefix`."""
    dest = scratch_folder(rev.top)
    try:
        prefix = rev.prefix.rstrip("/")
        parent = prefix.rpartition("/")[0] + "/" if "/" in prefix else ""
        paths = [prefix]
        if prefix:
            for kind, path in _listed(rev, parent):
                name = path.rpartition("/")[2]
                beside = kind == "blob" or (kind == "tree" and name.startswith("workspace"))
                if beside and path != prefix:
                    paths.append(path)
        written = extract(rev, paths, dest)
        if prefix:
            at = os.fsencode(prefix)
            found = next((e for e in written if e.path == at), None)
            if found is None:
                raise GitError(
                    f"the workspace folder {prefix} does not exist at {rev.spec} "
                    f"({rev.commit[:12]})"
                )
            if found.kind != "tree":
                raise GitError(
                    f"the workspace folder {prefix} is a {found.kind}, not a folder, at "
                    f"{rev.spec} ({rev.commit[:12]})"
                )
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
