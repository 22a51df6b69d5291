"""Whole-space questions: which directives a workspace has, is an item in a directive's
context, and what is broken in the project space."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ctxscope.core.model import Diagnostic, Explanation
from ctxscope.core.tokens import ESTIMATE, Tokenizer
from ctxscope.infra.snapshot import Snapshot
from ctxscope.runtimes.rye.build import scenario_thread
from ctxscope.runtimes.rye.disagree import details
from ctxscope.runtimes.rye.explain import explain_in_report
from ctxscope.runtimes.rye.hooks import load_hooks
from ctxscope.runtimes.rye.semantics import DEFAULT, DOCS
from ctxscope.runtimes.rye.semantics import load as load_profile
from ctxscope.runtimes.rye.threaddata import TIERS
from ctxscope.runtimes.rye.tiers import TOOL_EXTS, Index, Resolver, Space, cache_for, spaces_for
from ctxscope.runtimes.rye.toolmeta import tool_metadata


def list_directives(
    workspace: Path | str, user_space: Path | str | None = None, *, snapshot: Snapshot | None = None
) -> list[str]:
    """Directive ids available to the workspace: project first, then user, then system."""
    snap = snapshot if snapshot is not None else Snapshot()
    index = Index(snap, spaces_for(workspace, user_space), "directives", (".md",))
    out: list[str] = []
    for tier in TIERS:
        out += sorted(index.ids(tier))
    return out


def _project_directives(
    workspace: Path | str, user_space: Path | str | None, snap: Snapshot
) -> list[str]:
    index = Index(snap, spaces_for(workspace, user_space), "directives", (".md",))
    return sorted(index.ids("project"))


def explain_item(
    workspace: Path | str,
    item_id: str,
    *,
    directive: str | None = None,
    user_space: Path | str | None = None,
    inputs: dict[str, str] | None = None,
    model: str | None = None,
    snapshot: Snapshot | None = None,
    tokenizer: Tokenizer = ESTIMATE,
) -> list[Explanation]:
    """For `directive` (or every project directive): is `item_id` in its context, and why —
    as ryeos does it, with what Rye's docs say instead where they disagree."""
    snap = snapshot if snapshot is not None else Snapshot()
    ids = [directive] if directive else _project_directives(workspace, user_space, snap)
    out: list[Explanation] = []
    for did in ids:
        threads = [
            scenario_thread(
                workspace,
                did,
                inputs=inputs,
                user_space=user_space,
                model=model,
                rye_profile=name,
                snapshot=snap,
                tokenizer=tokenizer,
                compare=False,
            )
            for name in (DEFAULT, DOCS)
        ]
        real, docs = (explain_in_report(t, item_id) for t in threads)
        if (real.present, real.status) != (docs.present, docs.status):
            real.rule += f" — docs say {docs.status}: {docs.rule}"
        if item_id.removesuffix(".md") == did and threads[0].found:
            # the directive itself: every point where the docs and ryeos differ, in full
            differ = details(threads[1], threads[0])
            if differ:
                real.rule += " — where the docs differ: " + "; ".join(differ)
        out.append(real)
    return out


def check_space(
    workspace: Path | str, user_space: Path | str | None = None, *, snapshot: Snapshot | None = None
) -> list[Diagnostic]:
    """Build every project directive and parse every project item; return the problems
    (errors and warnings, each once). Missing required inputs are not reported: a check has
    no inputs to give.

    Under the app's watcher the result is kept while no change is reported under the
    project or user space (the system tier, installed or ctxscope's stand-in, is not
    watched): an edit elsewhere in the workspace does not re-check every directive."""
    return check_space_cancellable(workspace, user_space, snapshot=snapshot) or []


def kept_space_check(
    workspace: Path | str, user_space: Path | str | None, snapshot: Snapshot
) -> list[Diagnostic] | None:
    """The last `check_space` result while it still holds (see there), else None."""
    spaces = spaces_for(workspace, user_space)
    hit = cache_for(snapshot).memo.get(_check_key(spaces))
    if hit is not None and all(
        snapshot.changes.quiet(s.root, hit[0]) for s in spaces if s.tier != "system"
    ):
        kept: list[Diagnostic] = hit[1]
        return list(kept)
    return None


def check_space_cancellable(
    workspace: Path | str,
    user_space: Path | str | None = None,
    *,
    snapshot: Snapshot | None = None,
    cancelled: Callable[[], bool] = lambda: False,
) -> list[Diagnostic] | None:
    """`check_space`, given up (None) as soon as `cancelled()` turns true between two
    directives: the app checks in the background and a newer edit takes precedence."""
    snap = snapshot if snapshot is not None else Snapshot()
    kept = kept_space_check(workspace, user_space, snap)
    if kept is not None:
        return kept
    spaces = spaces_for(workspace, user_space)
    since = snap.changes.now()
    out = _check(workspace, user_space, snap, spaces, cancelled)
    if out is not None:
        cache_for(snap).memo[_check_key(spaces)] = (since, out)
    return None if out is None else list(out)


def _check_key(spaces: list[Space]) -> tuple[str, tuple[str, ...]]:
    return ("check-space", tuple(str(s.root) for s in spaces))


def _check(
    workspace: Path | str,
    user_space: Path | str | None,
    snap: Snapshot,
    spaces: list[Space],
    cancelled: Callable[[], bool],
) -> list[Diagnostic] | None:
    found: list[Diagnostic] = []
    for did in _project_directives(workspace, user_space, snap):
        if cancelled():
            return None
        found += scenario_thread(
            workspace, did, user_space=user_space, snapshot=snap, compare=False
        ).diagnostics
    resolver = Resolver(snap, spaces)
    for kid in resolver.knowledge.ids("project"):
        resolver.load_knowledge(kid)
    found += resolver.diagnostics
    found += load_hooks(snap, spaces, load_profile())[1]
    tools = Index(snap, spaces, "tools", TOOL_EXTS)
    for tid in tools.ids("project"):
        found += tool_metadata(snap, tools.get(tid)[0].path)[1]
    seen: set[tuple[object, ...]] = set()
    out: list[Diagnostic] = []
    for d in found:
        key = (d.path, d.line, d.message)
        if key not in seen and d.severity in ("error", "warning") and d.code != "rye-input":
            seen.add(key)
            out.append(d)
    return out
