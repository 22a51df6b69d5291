""" "Is ITEM in this directive's context, and why?" — answered from a built ThreadReport.

An item may be a knowledge id, a directive id (a chain member), or a tool id / API name.
"""

from __future__ import annotations

from ctxscope.core.model import Explanation
from ctxscope.runtimes.rye.capabilities import api_name
from ctxscope.runtimes.rye.hooks import interpolate
from ctxscope.runtimes.rye.threaddata import Located
from ctxscope.runtimes.rye.threadreport import ThreadReport
from ctxscope.runtimes.rye.tiers import TOOL_EXTS, Index


def _shadow_note(shadowed: list[Located]) -> str:
    if not shadowed:
        return ""
    hidden = ", ".join(f"{s.tier} copy {s.path}" for s in shadowed)
    return f"; shadows the {hidden}"


def explain_in_report(report: ThreadReport, item: str) -> Explanation:
    """Whether `item` is in the thread's context and why: a directive of its chain, knowledge
    a hook injects or the chain declares, a tool of its palette; else what it is and why it
    is left out."""
    scope = f"directive {report.directive}"
    chain_text = " → ".join(report.chain_ids()) or report.directive
    if not report.found:
        return Explanation(
            item,
            scope,
            False,
            "unavailable",
            "the directive itself could not be loaded (see diagnostics)",
        )
    return (
        _in_chain(report, item, scope, chain_text)
        or _hook_injected(report, item, scope)
        or _declared(report, item, scope)
        or _in_palette(report, item, scope)
        or _left_out(report, item, scope, chain_text)
    )


def _in_chain(report: ThreadReport, item: str, scope: str, chain_text: str) -> Explanation | None:
    """`item` as a directive of the extends chain (None: it is none)."""
    for depth, node in enumerate(report.chain):
        if node.id != item:
            continue
        if node.tier is None:
            unread = _unread(report, "directives", item)
            return Explanation(
                item,
                scope,
                False,
                "missing",
                f"named as a parent in the chain {chain_text} but "
                + (f"not read: {unread}" if unread else "not found"),
                report.chain[depth - 1].path or "",
            )
        how = "the directive itself" if depth == 0 else f"extends level {depth}"
        routed = ""
        if depth == 1 and report.extends_source and report.extends_source.startswith("hook"):
            routed = f", routed by resolve_extends {report.extends_source}"
        return Explanation(
            item,
            scope,
            True,
            "in-chain",
            f"{how} of {chain_text} ({node.tier} tier{routed})" + _shadow_note(node.shadowed),
            node.path or "",
        )
    return None


def _hook_injected(report: ThreadReport, item: str, scope: str) -> Explanation | None:
    """`item` as knowledge an applied hook injects (None: no hook does)."""
    hook_hits = [
        h
        for h in report.system_hooks + report.context_hooks
        if h.applied
        and h.action.get("item_id")
        and report.knowledge.get(item) is not None
        and _hook_item(h.action, report) == item
    ]
    if not hook_hits:
        return None
    h = hook_hits[0]
    k = report.knowledge[item]
    return Explanation(
        item,
        scope,
        True,
        "injected",
        f"injected by {h.event} hook {h.id} ({h.position}, "
        f"{'wrapped' if h.wrap else 'raw'}); resolved from the {k.tier} tier"
        + _shadow_note(k.shadowed),
        h.source,
    )


def _declared(report: ThreadReport, item: str, scope: str) -> Explanation | None:
    """`item` as knowledge the chain declares: included, or why not (None: the chain does
    not declare it)."""
    declared = [i for items in report.composed.values() for i in items if i.item_id == item]
    if not declared:
        return None
    first = next((i for i in declared if i.status != "deduplicated"), declared[0])
    if first.status == "included" and first.knowledge is not None:
        k = first.knowledge
        dup = [i.origin for i in declared if i.status == "deduplicated"]
        extra = f"; also declared by {', '.join(dup)} (deduplicated)" if dup else ""
        return Explanation(
            item,
            scope,
            True,
            "injected",
            f"{first.rule} ({first.origin_tier} tier), resolved from the "
            f"{k.tier} tier{extra}" + _shadow_note(k.shadowed),
            k.path,
        )
    if first.status in ("suppressed", "unloadable", "unverified"):
        return Explanation(
            item,
            scope,
            False,
            first.status,
            f"declared in <{first.position}> of {first.origin} but {first.rule}",
            first.origin,
        )
    unread = _unread(report, "knowledge", item)
    return Explanation(
        item,
        scope,
        False,
        "missing",
        f"declared in <{first.position}> of {first.origin} but "
        + (f"not read: {unread}" if unread else "not found in project, user or system space"),
        first.origin,
    )


def _in_palette(report: ThreadReport, item: str, scope: str) -> Explanation | None:
    """`item` as a tool (by id or API name) the palette registered or skipped (None: the
    palette does not hold it)."""
    tool = report.palette.find(item) or report.palette.find(api_name(item))
    if tool is None:
        return None
    if tool.status == "registered":
        return Explanation(
            item,
            scope,
            True,
            "registered",
            f"registered as {tool.api_name}: {tool.reason} (≈{tool.tokens} tokens)",
            tool.path or "",
        )
    status = (
        "skipped-budget"
        if tool.over_budget
        else "not-granted"
        if tool.primary is not None
        else "skipped"
    )
    return Explanation(item, scope, False, status, tool.reason, tool.path or "")


def _left_out(report: ThreadReport, item: str, scope: str, chain_text: str) -> Explanation:
    """Why `item`, in the context neither by the chain, a hook nor the palette, is left out:
    what it is in the spaces, if anything."""
    resolver = report.resolver
    if resolver is not None and resolver.knowledge.get(item):
        locs = resolver.knowledge.get(item)
        hooks_named = [h for h in report.context_hooks if _hook_item(h.action, report) == item]
        if hooks_named:
            h = hooks_named[0]
            return Explanation(
                item,
                scope,
                False,
                "hook-not-matched",
                f"{h.event} hook {h.id} would inject it, but {h.reason}",
                h.source,
            )
        return Explanation(
            item,
            scope,
            False,
            "not-declared",
            f"not declared anywhere in the chain {chain_text} and no matching "
            f"hook injects it (exists in the {locs[0].tier} tier)",
            locs[0].path,
        )
    if resolver is not None and _is_tool(resolver, item):
        caps = ", ".join(report.palette.capabilities) or "none"
        return Explanation(
            item, scope, False, "not-granted", f"not granted by permissions (capabilities: {caps})"
        )
    if resolver is not None and resolver.directives.get(item):
        return Explanation(
            item,
            scope,
            False,
            "not-in-chain",
            f"a directive, but not part of the chain {chain_text}",
        )
    unread = _unread(report, "knowledge", item) or _unread(report, "directives", item)
    if unread:
        return Explanation(item, scope, False, "missing", f"not read: {unread}")
    return Explanation(
        item, scope, False, "unknown", "no knowledge item, directive or tool by this id in any tier"
    )


def _unread(report: ThreadReport, kind: str, item: str) -> str | None:
    """Why `item` (a knowledge item or a directive) is in no tier when its file links out of
    its space, else None."""
    resolver = report.resolver
    if resolver is None:
        return None
    return resolver.unread(getattr(resolver, kind), item)


def _hook_item(action: dict[str, object], report: ThreadReport) -> str:
    ctx = {"directive": report.directive, "inputs": report.inputs, "model": report.model}
    return interpolate(str(action.get("item_id") or ""), ctx)


def _is_tool(resolver: object, item: str) -> bool:
    snap = getattr(resolver, "snapshot", None)
    spaces = getattr(resolver, "spaces", None)
    if snap is None or spaces is None:
        return False
    index = Index(snap, spaces, "tools", TOOL_EXTS)
    return item in index.entries or any(api_name(i) == item for i in index.entries)
