"""Three-tier resolution: project `WORKSPACE/.ai`, the user space, the bundled system space.

First match wins; every lower-tier copy is kept as `shadowed`. Folder listings are cached by
each folder's mtime and parsed items by the snapshot's `FileRead` identity, so a rebuild after
one edit re-reads and re-parses only that file.
"""

from __future__ import annotations

import os
import sys
import weakref
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any, TypeVar

from ctxscope.core.model import Diagnostic
from ctxscope.core.record import record
from ctxscope.infra.snapshot import Listing, Snapshot
from ctxscope.runtimes.rye.items import parse_directive, parse_knowledge
from ctxscope.runtimes.rye.threaddata import Directive, KnowledgeItem, Located, Tier

SYSTEM_SPACE = Path(__file__).parent / "system" / ".ai"
KNOWLEDGE_EXTS = (".md", ".yaml", ".yml")
DIRECTIVE_EXTS = (".md",)
TOOL_EXTS = (".py", ".yaml", ".yml", ".cjs", ".js", ".mjs", ".ts")
"""Tool file types ryeos 0.1 has a parser for, in the order ctxscope takes them (ryeos takes
them in a set's order, which varies between its runs)."""
MAX_WALK_FILES = 50_000
"""The most files one folder walk of a space reads (a link to `/` or a huge tree stops)."""
_SKIP_DIRS = {"__pycache__", ".git", "node_modules", ".venv"}


@record(frozen=True)
class Space:
    tier: Tier
    root: Path
    """The `.ai` folder."""


def user_space_root(user_space: Path | str | None) -> Path | None:
    """`DIR/.ai` when it exists, else `DIR` itself; None for no user space."""
    if user_space is None or str(user_space) == "":
        return None
    p = Path(user_space).expanduser()
    return p / ".ai" if (p / ".ai").is_dir() else p


def spaces_for(
    workspace: Path | str,
    user_space: Path | str | None,
    system: list[Path] | None = None,
) -> list[Space]:
    """Project, user (when given), then the system tier: the real bundles' `.ai` folders in
    ryeos's order when `system` names them, else the bundled stand-in."""
    out = [Space("project", Path(workspace).resolve() / ".ai")]
    user = user_space_root(user_space)
    if user is not None:
        out.append(Space("user", user.resolve()))
    out += [Space("system", ai) for ai in system] if system else [Space("system", SYSTEM_SPACE)]
    return out


T = TypeVar("T")


class _Cache:
    def __init__(self) -> None:
        self.parsed: dict[tuple[str, str], tuple[Any, Any, tuple[int, int, int]]] = {}
        self.walks: dict[
            tuple[str, tuple[str, ...], str],
            tuple[list[tuple[str, int]], dict[str, str], list[str], str],
        ] = {}
        self.indexes: dict[
            tuple[Any, ...], tuple[list[dict[str, str]], dict[str, list[Located]]]
        ] = {}
        self.memo: dict[tuple[Any, ...], tuple[Any, Any]] = {}
        """Derived results keyed by what they were computed from (compared by identity)."""
        self.walk_notes: dict[str, list[Diagnostic]] = {}
        """What each folder's last walk says: the links out of the space it did not follow,
        the file limit it stopped at."""
        self.walk_refused: dict[str, dict[str, Diagnostic]] = {}
        """For each folder's last walk: the item ids whose file links out of the space, each
        with the warning naming that link."""


_CACHES: weakref.WeakKeyDictionary[Snapshot, _Cache] = weakref.WeakKeyDictionary()


def cache_for(snapshot: Snapshot) -> _Cache:
    c = _CACHES.get(snapshot)
    if c is None:
        c = _CACHES[snapshot] = _Cache()
    return c


def derived(
    snapshot: Snapshot,
    key: tuple[Any, ...],
    same: tuple[Any, ...],
    equal: tuple[Any, ...],
    compute: Callable[[], T],
) -> T:
    """`compute()`, or what it gave for `key` in this snapshot when it was last computed from
    the very objects `same` (compared by identity: results of the snapshot's memos, which
    stay the same objects while their files are unchanged) and values equal to `equal`."""
    memo = cache_for(snapshot).memo
    hit = memo.get(key)
    if hit is not None:
        (was_same, was_equal), value = hit
        if (
            len(was_same) == len(same)
            and all(a is b for a, b in zip(was_same, same, strict=True))
            and was_equal == equal
        ):
            return value
    value = compute()
    memo[key] = ((same, equal), value)
    return value


def _unchanged(dirs: list[tuple[str, int]]) -> bool:
    for path, mtime in dirs:
        try:
            if os.stat(path).st_mtime_ns != mtime:
                return False
        except OSError:
            return False
    return True


def within(real: str, top: str) -> bool:
    """True when the resolved path `real` is the resolved folder `top` or under it."""
    return real == top or real.startswith(top if top.endswith(os.sep) else top + os.sep)


MAX_LINK_NOTES = 20
"""The most links out of a space one walk names; the rest are counted in one more note."""


def link_note(link: str, real: str, top: str) -> Diagnostic:
    """The warning for `link`, which resolves to `real`, outside the space `top`."""
    return Diagnostic(
        "warning",
        f"links outside the Rye space {top} (to {real}): not read (ryeos itself follows "
        "links, so what it would load from there is not shown)",
        link,
        code="rye-link-outside",
    )


def outside_space(space: Space, path: str) -> Diagnostic | None:
    """The warning when `path`, a file of `space` read by its fixed name (hooks.yaml,
    resilience.yaml), resolves to an existing file outside the space; else None."""
    real = os.path.realpath(path)
    top = os.path.realpath(space.root)
    if within(real, top) or not os.path.exists(real):
        return None
    return link_note(path, real, top)


def walk_ids(
    snapshot: Snapshot, root: Path, exts: tuple[str, ...], *, space: Path
) -> dict[str, str]:
    """item id (relative path without extension) -> absolute path, for files under `root`,
    a folder of the Rye space `space` (its `.ai`).

    A file or folder whose real path is outside the space (a link out of it) is never read:
    each one is named by a warning in `cache_for(snapshot).walk_notes[str(root)]`, and the
    item ids it would have given are in `walk_refused[str(root)]`. A link to another place
    inside the space is followed.

    The result is reused while no folder of the tree changed its mtime (a file added,
    removed or renamed changes its folder's mtime; an edit in place does not matter here)
    and every link it followed still resolves inside the space.
    """
    cache = cache_for(snapshot)
    key = (str(root), exts, str(space))
    hit = cache.walks.get(key)
    if hit is not None and _unchanged(hit[0]) and _links_inside(hit[2], hit[3]):
        return hit[1]
    walk = _Walk(snapshot, root, exts, os.path.realpath(space))
    walk.run()
    cache.walk_notes[str(root)] = walk.notes
    cache.walk_refused[str(root)] = walk.refused
    cache.walks[key] = (walk.visited, walk.ids, walk.followed, walk.top)
    return walk.ids


class _Walk:
    """One walk of `root`, a folder of the Rye space whose real path is `top`: the item ids
    it finds, and what it met on the way (see `walk_ids`)."""

    def __init__(self, snapshot: Snapshot, root: Path, exts: tuple[str, ...], top: str) -> None:
        self.snapshot, self.root, self.exts, self.top = snapshot, root, exts, top
        self.ids: dict[str, str] = {}
        self.visited: list[tuple[str, int]] = []
        """Each folder listed, with its mtime then."""
        self.followed: list[str] = []
        """The links taken (each must still resolve inside the space for the walk to hold)."""
        self.linked_dirs: set[str] = set()
        self.refused: dict[str, Diagnostic] = {}
        self.notes: list[Diagnostic] = []
        self.outside = 0
        """The links out of the space met."""

    def run(self) -> None:
        """Walks the folders depth first, stopping after `MAX_WALK_FILES` files."""
        stack: list[tuple[str, str]] = [(str(self.root), "")]
        seen_real: set[str] = set()
        seen_files = 0
        while stack:
            path, prefix = stack.pop()
            real = os.path.realpath(path)
            if real in seen_real:  # symlink loop guard
                continue
            if not within(real, self.top):
                if os.path.isdir(real):  # a link out of the space: never followed
                    self.refuse(path, real, None)
                continue
            if path in self.linked_dirs:
                self.followed.append(path)
            seen_real.add(real)
            listing = self.snapshot.listdir(path)
            self.visited.append((path, listing.mtime))
            seen_files += len(listing.files)
            if seen_files > MAX_WALK_FILES:
                self.notes.append(
                    Diagnostic(
                        "warning",
                        f"more than {MAX_WALK_FILES:,} files under this folder: the rest is "
                        "not read",
                        str(self.root),
                        code="rye-too-many-files",
                    )
                )
                break
            self.take_files(path, prefix, listing)
            stack.extend(self.subfolders(path, prefix, listing))
        if self.outside > MAX_LINK_NOTES:
            self.notes.append(
                Diagnostic(
                    "warning",
                    f"{self.outside - MAX_LINK_NOTES:,} more links outside the Rye space "
                    f"{self.top}: not read",
                    str(self.root),
                    code="rye-link-outside",
                )
            )

    def take_files(self, path: str, prefix: str, listing: Listing) -> None:
        """The item ids of the folder's files of the walk's types (`prefix`: the folder's
        own id part); a file linking out of the space is refused."""
        base = path if path.endswith(os.sep) else path + os.sep
        links, exts, top, ids = listing.links, self.exts, self.top, self.ids
        for name in listing.files:
            if name.endswith(exts):  # each ext is one dot and a word: what splitext takes
                stem = name[: name.rfind(".")]
                if stem.strip("."):  # not `.py` or `..py`: splitext sees no extension there
                    full = base + name
                    if links and name in links:
                        target = os.path.realpath(full)
                        if not within(target, top):
                            self.refuse(full, target, prefix + stem)
                            continue
                        self.followed.append(full)
                    ids.setdefault(prefix + stem, full)

    def subfolders(self, path: str, prefix: str, listing: Listing) -> list[tuple[str, str]]:
        """The folder's subfolders to walk, with their id prefixes, last first (the walk
        pops them)."""
        links = listing.links
        found = []
        for d in reversed([d for d in listing.dirs if d not in _SKIP_DIRS]):
            sub = os.path.join(path, d)
            if links and d in links:
                self.linked_dirs.add(sub)
            found.append((sub, f"{prefix}{d}/"))
        return found

    def refuse(self, link: str, real: str, item: str | None) -> None:
        """A link out of the space, not followed: named by a note (up to `MAX_LINK_NOTES`),
        and the item id it would have given kept as refused."""
        self.outside += 1
        note = link_note(link, real, self.top)
        if self.outside <= MAX_LINK_NOTES:
            self.notes.append(note)
        if item is not None:
            self.refused.setdefault(item, note)


def _links_inside(links: list[str], top: str) -> bool:
    """Every link a walk followed still resolves inside the space (a link retargeted out of
    it need not change any folder's mtime)."""
    return all(within(os.path.realpath(link), top) for link in links)


def rglob_all(folder: Path) -> list[str]:
    """`[str(p) for p in folder.rglob("*")]`: every entry under `folder` in the order this
    Python's pathlib gives it (the order Rye finds tools in), without a path object for
    each. Python 3.11 and 3.12 are followed here (a folder's entries in listing order; 3.11
    then goes into each subfolder in turn, 3.12 lists all of a folder's subfolders before
    going into the first); any other version asks pathlib itself. Links are listed, never
    followed into; a folder that cannot be listed adds nothing."""
    if sys.version_info[:2] not in ((3, 11), (3, 12)):
        return [str(p) for p in folder.rglob("*")]
    out: list[str] = []

    def subfolders(path: str) -> list[str]:
        """Lists `path` into `out`; returns its subfolders, in listing order."""
        try:
            with os.scandir(path) as it:
                entries = list(it)
        except OSError:
            return []
        base = "" if path == "." else path if path.endswith(os.sep) else path + os.sep
        found = []
        for entry in entries:
            out.append(base + entry.name)
            try:
                if entry.is_dir(follow_symlinks=False):
                    found.append(base + entry.name)
            except OSError:
                continue
        return found

    top = str(folder)
    if sys.version_info[:2] == (3, 11):
        pending = [top]  # depth first: a folder's entries, then each subfolder's whole tree
        while pending:
            pending.extend(reversed(subfolders(pending.pop())))
    else:
        # 3.12 walks top-down (pathlib's walk) and, at each folder, lists every subfolder
        # before the walk goes into the first of them.
        walk = [subfolders(top)]
        while walk:
            level = walk.pop()
            walk.extend(reversed([subfolders(d) for d in level]))
    return out


class Index:
    """All ids of one kind across the tiers: id -> [Located, ...] (winner first)."""

    def __init__(
        self, snapshot: Snapshot, spaces: list[Space], folder: str, exts: tuple[str, ...]
    ) -> None:
        walks = [
            walk_ids(snapshot, space.root / folder, exts, space=space.root) for space in spaces
        ]
        cache = cache_for(snapshot)
        self.notes = [n for s in spaces for n in cache.walk_notes.get(str(s.root / folder), ())]
        """What the walks say: links out of a space not followed, the file limit reached."""
        self.refused: dict[str, Diagnostic] = {}
        """Item ids whose file links out of its space, with the warning naming the link."""
        for s in spaces:
            for item_id, note in cache.walk_refused.get(str(s.root / folder), {}).items():
                self.refused.setdefault(item_id, note)
        key = (folder, exts, tuple((s.tier, str(s.root)) for s in spaces))
        hit = cache.indexes.get(key)
        if hit is not None and all(a is b for a, b in zip(hit[0], walks, strict=True)):
            self.entries = hit[1]
            return
        self.entries = {}
        for space, walk in zip(spaces, walks, strict=True):
            for item_id, path in walk.items():
                self.entries.setdefault(item_id, []).append(Located(space.tier, path))
        cache.indexes[key] = (walks, self.entries)

    def ids(self, tier: Tier | None = None) -> list[str]:
        if tier is None:
            return list(self.entries)
        return [i for i, locs in self.entries.items() if locs[0].tier == tier]

    def get(self, item_id: str) -> list[Located]:
        return self.entries.get(item_id, [])


Item = TypeVar("Item", KnowledgeItem, Directive)


def parse_cached(
    snapshot: Snapshot,
    kind: str,
    path: str,
    parse: Callable[[str], tuple[T, list[Diagnostic]]],
) -> tuple[T, list[Diagnostic]] | None:
    """Read `path` through the snapshot and parse it, reusing the last parse when unchanged.

    None when the file cannot be read at all.
    """
    cache = cache_for(snapshot)
    hit = cache.parsed.get((kind, path))
    if hit is not None:
        # Fast path: the same (mtime, size, inode) as when it was parsed -> same result.
        try:
            st = os.stat(path)
        except OSError:
            st = None
        if st is not None and (st.st_mtime_ns, st.st_size, st.st_ino) == hit[2]:
            cached: tuple[T, list[Diagnostic]] = hit[1]
            return cached
    read = snapshot.read(path)
    if not read.exists:
        return None
    if hit is not None and hit[0] is read:
        same: tuple[T, list[Diagnostic]] = hit[1]
        return same
    value, diags = parse(read.text)
    result = (value, list(read.diagnostics) + diags)
    stamp = snapshot.stamp(path) or (-1, -1, -1)
    cache.parsed[(kind, path)] = (read, result, stamp)
    return result


class Resolver:
    """Loads directives and knowledge items through the tiers, collecting diagnostics once."""

    def __init__(self, snapshot: Snapshot, spaces: list[Space]) -> None:
        self.snapshot = snapshot
        self.spaces = spaces
        self.directives = Index(snapshot, spaces, "directives", DIRECTIVE_EXTS)
        self.knowledge = Index(snapshot, spaces, "knowledge", KNOWLEDGE_EXTS)
        self.diagnostics: list[Diagnostic] = self.directives.notes + self.knowledge.notes
        self._seen_diag: set[tuple[str | None, int | None, str]] = set()
        self._k: dict[str, KnowledgeItem | None] = {}
        self._d: dict[str, Directive | None] = {}

    def report(self, diags: list[Diagnostic]) -> None:
        for d in diags:
            key = (d.path, d.line, d.message)
            if key not in self._seen_diag:
                self._seen_diag.add(key)
                self.diagnostics.append(d)

    def unread(self, index: Index, item_id: str) -> str | None:
        """Why no tier has `item_id` when its file links out of its space (it is not read),
        else None."""
        note = index.refused.get(item_id) if not index.get(item_id) else None
        return None if note is None else f"its file {note.path} links outside the Rye space"

    def load_knowledge(self, item_id: str) -> KnowledgeItem | None:
        return self._load_winner("knowledge", self.knowledge, _knowledge_parser, self._k, item_id)

    def load_directive(self, item_id: str) -> Directive | None:
        return self._load_winner("directive", self.directives, _directive_parser, self._d, item_id)

    def _load_winner(
        self,
        kind: str,
        index: Index,
        parser: Callable[[Located, str], Callable[[str], tuple[Item | None, list[Diagnostic]]]],
        memo: dict[str, Item | None],
        item_id: str,
    ) -> Item | None:
        """The first tier's copy of `item_id`, with the lower tiers' copies as `shadowed`."""
        if item_id in memo:
            return memo[item_id]
        result: Item | None = None
        locs = index.get(item_id)
        for i, loc in enumerate(locs):
            res = parse_cached(self.snapshot, kind, loc.path, parser(loc, item_id))
            if res is None:
                continue  # unreadable: the next tier answers
            parsed, diags = res
            self.report(diags)
            if parsed is not None:
                result = replace(parsed, shadowed=list(locs[i + 1 :]))
            break  # a broken winner still shadows the lower tiers: report, do not fall back
        memo[item_id] = result
        return result


def _knowledge_parser(
    loc: Located, item_id: str
) -> Callable[[str], tuple[KnowledgeItem, list[Diagnostic]]]:
    return lambda text: parse_knowledge(text, loc.path, item_id, loc.tier)


def _directive_parser(
    loc: Located, item_id: str
) -> Callable[[str], tuple[Directive | None, list[Diagnostic]]]:
    return lambda text: parse_directive(text, loc.path, item_id, loc.tier)
