"""Extends chains: walk leaf -> root, compose root-first, dedupe, suppress, attenuate.

- Context items of every position are composed root-first; a repeated id keeps its first
  (root-most) occurrence and later ones are marked `deduplicated`.
- `<suppress>` is the union over the whole chain and applies to every position: if any
  directive of the chain suppresses an id, it stays out for all descendants.
- Permissions attenuate: the leaf's capabilities (or, when it declares none, the nearest
  ancestor's) are intersected with every ancestor that declares permissions, so a child never
  holds more than its bases grant.
"""

from __future__ import annotations

from dataclasses import field
from fnmatch import fnmatchcase

from ctxscope.core.model import Diagnostic
from ctxscope.core.record import record
from ctxscope.runtimes.rye.threaddata import (
    POSITIONS,
    ChainNode,
    ComposedItem,
    Directive,
    ItemStatus,
)
from ctxscope.runtimes.rye.tiers import Resolver


@record
class Chain:
    nodes: list[ChainNode] = field(default_factory=list)
    """Leaf first, root last."""
    directives: list[Directive] = field(default_factory=list)
    """Parsed directives in the same order (a broken or missing node has none)."""
    error: str | None = None
    unread: bool = False
    """The error is a parent whose file links out of its space: ctxscope does not read it,
    though the runtime would."""


def _node(d: Directive, extends: str | None, routed_by: str | None) -> ChainNode:
    return ChainNode(
        d.id, d.tier, d.path, extends, d.context, d.capabilities, d.signed, d.shadowed, routed_by
    )


def walk_chain(
    leaf: Directive,
    extends: str | None,
    routed_by: str | None,
    resolver: Resolver,
    runtime: str | None = None,
) -> tuple[Chain, list[Diagnostic]]:
    """Follow `extends` from the leaf to the root. Errors name the chain; the part walked so
    far is kept so the rest of the thread still builds.

    With `runtime` (ryeos 0.1), a parent the runtime's parser rejects (no ```xml block,
    malformed XML, an unknown tag in `<permissions>`) is no error: it stays in the chain as
    a directive with no context, permissions or extends, and the chain ends there."""
    chain = Chain([_node(leaf, extends, routed_by)], [leaf])
    diags: list[Diagnostic] = []
    names = [leaf.id]
    current_extends = extends
    child = leaf
    while current_extends:
        parent_id = current_extends
        if parent_id in names:
            text = " → ".join([*names, parent_id])
            chain.error = f"Circular extends chain: {text}"
            diags.append(Diagnostic("error", chain.error, child.path, code="extends-cycle"))
            break
        names.append(parent_id)
        parent = resolver.load_directive(parent_id)
        locs = resolver.directives.get(parent_id)
        if runtime and locs and (parent is None or parent.ryeos_parse_error):
            why = parent.ryeos_parse_error if parent is not None else "it cannot be parsed"
            diags.append(
                Diagnostic(
                    "warning",
                    f"base directive '{parent_id}' is unreadable to {runtime} ({why}): it "
                    "stays in the chain without its context, permissions or extends",
                    locs[0].path,
                    code="rye-base-unparsable",
                )
            )
            chain.nodes.append(ChainNode(parent_id, locs[0].tier, locs[0].path, None, {}, []))
            break
        if parent is None:
            known = bool(resolver.directives.get(parent_id))
            unread = resolver.unread(resolver.directives, parent_id)
            chain.unread = unread is not None
            what = (
                f"not read: {unread}"
                if unread
                else "cannot be parsed"
                if known
                else "not found in any tier"
            )
            chain.error = (
                f"Missing parent directive '{parent_id}' ({what}); "
                f"extends chain: {' → '.join(names)}"
            )
            diags.append(Diagnostic("error", chain.error, child.path, code="extends-missing"))
            chain.nodes.append(ChainNode(parent_id, None, None, None, {}, []))
            break
        chain.nodes.append(_node(parent, parent.extends, None))
        chain.directives.append(parent)
        child = parent
        current_extends = parent.extends
    return chain, diags


def compose(
    chain: Chain, resolver: Resolver, frontmatter_loads: bool = True
) -> dict[str, list[ComposedItem]]:
    """Composed items per position (root-first), with statuses for dedupe/suppress/missing;
    without `frontmatter_loads` (ryeos 0.1) an item with `---` metadata is unloadable."""
    suppressors: dict[str, list[str]] = {}
    for node in reversed(chain.nodes):
        for sid in node.context.get("suppress", []):
            suppressors.setdefault(sid, []).append(node.id)
    out: dict[str, list[ComposedItem]] = {p: [] for p in POSITIONS}
    first_seen: dict[tuple[str, str], str] = {}
    for node in reversed(chain.nodes):
        for pos in POSITIONS:
            for kid in node.context.get(pos, []):
                item = None
                by: list[str] = []
                status: ItemStatus
                if (pos, kid) in first_seen:
                    status = "deduplicated"
                    rule = f"already declared by {first_seen[(pos, kid)]} (root-most kept)"
                else:
                    first_seen[(pos, kid)] = node.id
                    by = suppressors.get(kid, [])
                    item = None if by else resolver.load_knowledge(kid)
                    if by:
                        status, rule = "suppressed", f"suppressed by {', '.join(by)}"
                    elif item is None:
                        status = "missing"
                        unread = resolver.unread(resolver.knowledge, kid)
                        rule = (
                            f"not read: {unread}"
                            if unread
                            else "knowledge item not found in project, user or system space"
                        )
                    elif item.frontmatter and not frontmatter_loads:
                        status = "unloadable"
                        rule = (
                            "not loaded: its `---` frontmatter is a parse error to the runtime "
                            "(use a leading ```yaml block)"
                        )
                    else:
                        status, rule = "included", f"declared in <{pos}> of {node.id}"
                out[pos].append(
                    ComposedItem(
                        kid,
                        pos,
                        node.id,
                        node.tier,
                        status,
                        rule,
                        suppressed_by=list(by),
                        knowledge=item,
                    )
                )
    return out


def covers(pattern: str, cap: str) -> bool:
    """True when capability `pattern` grants everything `cap` grants."""
    if pattern == cap:
        return True
    if pattern.endswith(".*") and cap.startswith(pattern[:-1]):
        return True
    return fnmatchcase(cap, pattern)


def _intersect(child: list[str], parent: list[str]) -> list[str]:
    out = [c for c in child if any(covers(p, c) for p in parent)]
    out += [p for p in parent if p not in out and any(covers(c, p) for c in child)]
    return out


def effective_capabilities(
    chain: Chain, inherit: str = "intersect"
) -> tuple[list[str], list[str], str | None]:
    """(capabilities, attenuation notes, the directive whose permissions were used).

    `intersect` (Rye's docs): the nearest directive with permissions, narrowed by every
    ancestor's. `root_most` (ryeos 0.1): the leaf's own, else the root-most ancestor's that
    declares any; nothing is intersected."""
    if inherit == "root_most":
        # ryeos reads an empty <permissions/> as none at all.
        granting = [d for d in chain.directives if d.capabilities]
        if not granting:
            return [], [], None
        source = chain.directives[0] if chain.directives[0].capabilities else granting[-1]
        notes: list[str] = []
        if source is not chain.directives[0]:
            notes.append(
                f"{chain.directives[0].id} declares no permissions: the root-most ancestor with "
                f"permissions ({source.id}) supplies them, unnarrowed"
            )
        return list(source.capabilities), notes, source.id
    declared = [d for d in chain.directives if d.declares_permissions]
    if not declared:
        return [], [], None
    source = declared[0]
    caps = list(source.capabilities)
    notes = []
    for ancestor in declared[1:]:
        narrowed = _intersect(caps, ancestor.capabilities)
        dropped = [c for c in caps if c not in narrowed]
        if dropped:
            notes.append(
                f"{', '.join(dropped)} narrowed by {ancestor.id} "
                f"(grants {', '.join(ancestor.capabilities) or 'nothing'})"
            )
        caps = narrowed
    return caps, notes, source.id
