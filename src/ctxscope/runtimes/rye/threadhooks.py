"""What hooks add to a Rye thread: the parent a `resolve_extends` hook routes the directive
to, and the knowledge blocks `build_system_prompt` and the thread-start hooks inject. Every
hook's decision goes to the report; problems go to the diagnostics given.
"""

from __future__ import annotations

from typing import Any

from ctxscope.core.model import Diagnostic
from ctxscope.runtimes.rye import hooks as hooks_mod
from ctxscope.runtimes.rye.items import universal_newlines
from ctxscope.runtimes.rye.prompt import wrap
from ctxscope.runtimes.rye.semantics import RyeSemantics
from ctxscope.runtimes.rye.threaddata import Directive, HookDecision, KnowledgeItem, MessagePart
from ctxscope.runtimes.rye.threadreport import ThreadReport
from ctxscope.runtimes.rye.tiers import Resolver


def resolve_extends(
    report: ThreadReport,
    leaf: Directive,
    hook_list: list[hooks_mod.Hook],
    ctx: dict[str, Any],
    diags: list[Diagnostic],
) -> None:
    """The parent `leaf` extends: the one it declares, unless the first matching
    `resolve_extends` hook sets another."""
    report.extends = leaf.extends
    report.extends_source = "declared" if leaf.extends else None
    winner: str | None = None
    for h in hooks_mod.ordered(hook_list, "resolve_extends", report.profile):
        target = h.action.get("set_extends")
        dec = HookDecision(h.id, h.event, h.layer, h.source, h.tier, False, "", h.action)
        if winner is not None:
            dec.reason = f"not evaluated: {winner} matched first (first match wins)"
        else:
            dec.matched, dec.reason = hooks_mod.check(h, ctx, diags, report.profile)
            if dec.matched and not target:
                dec.reason += "; but its action has no set_extends"
            elif dec.matched:
                winner, dec.applied = h.id, True
                was = f" (overriding declared {leaf.extends})" if leaf.extends else ""
                dec.reason += f"; set extends → {target}{was}"
                report.extends, report.extends_source = str(target), f"hook {h.id}"
        report.resolve_hooks.append(dec)


def context_hooks(
    report: ThreadReport,
    hook_list: list[hooks_mod.Hook],
    event: str,
    ctx: dict[str, Any],
    resolver: Resolver,
    diags: list[Diagnostic],
) -> list[MessagePart]:
    """The knowledge blocks the `event` hooks inject, as the profile's runtime loads, wraps and
    interpolates them; every hook's decision goes to the report."""
    profile = report.profile
    suppressed_by = {
        sid: node.id
        for node in reversed(report.chain)
        for sid in node.context.get("suppress", [])
        if profile.suppress_hooks
    }
    decisions = report.system_hooks if event == "build_system_prompt" else report.context_hooks
    parts: list[MessagePart] = []
    for h in hooks_mod.ordered(hook_list, event, profile):
        dec = HookDecision(
            h.id, h.event, h.layer, h.source, h.tier, False, "", h.action, h.position, h.wrap
        )
        decisions.append(dec)
        hit = next((k for k in (h.id, h.action.get("item_id")) if k in suppressed_by), None)
        if hit is not None:
            dec.reason = f"suppressed by <suppress>{hit}</suppress> in {suppressed_by[hit]}"
            continue
        dec.matched, dec.reason = hooks_mod.check(h, ctx, diags, profile)
        if not dec.matched:
            continue
        for action in h.actions:
            part = _inject(report, h, action, ctx, resolver, diags, dec)
            if part is not None:
                dec.applied = True
                parts.append(part)
    return parts


def _inject(
    report: ThreadReport,
    h: hooks_mod.Hook,
    action: dict[str, Any],
    ctx: dict[str, Any],
    resolver: Resolver,
    diags: list[Diagnostic],
    dec: HookDecision,
) -> MessagePart | None:
    """The block one action of matched hook `h` injects (None: nothing); why goes to
    `dec.reason`."""
    profile = report.profile
    kind = action.get(profile.item_kind_key, profile.default_item_kind)
    raw_id = action.get("item_id")
    if kind != "knowledge" or not raw_id:
        _no_knowledge(profile, h, action, kind, raw_id, diags, dec)
        return None
    item_id = hooks_mod.interpolate(str(raw_id), ctx)
    item = resolver.load_knowledge(item_id)
    if item is None:
        _item_missing(h, item_id, resolver, diags, dec)
        return None
    if report.verifier and not report.verifier.hook_item(h.id, item, item_id, diags, dec):
        return None
    fetched = profile.fetch_whole_file and action.get("primary") == "fetch"
    if item.frontmatter and not profile.frontmatter_loads and not fetched:
        dec.reason += (
            f"; '{item_id}' has `---` frontmatter, which {profile.runtime} cannot parse: "
            "nothing injected"
        )
        return None
    report.knowledge[item_id] = item
    body = _loaded_body(profile, item, fetched, ctx, resolver)
    text = _block(profile, h, action, item, body, str(raw_id))
    return MessagePart(
        "system_hook" if h.event == "build_system_prompt" else f"hook_{h.position}",
        h.id,
        text,
        item_id,
        item.tier,
        h.wrap,
        report.tokenizer.count(text),
        str(raw_id) if profile.wrap_tag != "name" and raw_id != item_id else None,
    )


def _no_knowledge(
    profile: RyeSemantics,
    h: hooks_mod.Hook,
    action: dict[str, Any],
    kind: Any,
    raw_id: Any,
    diags: list[Diagnostic],
    dec: HookDecision,
) -> None:
    """Why an action that names no knowledge item injects nothing; a warning when the hook
    file meant one but named its type the way the runtime does not read."""
    dec.reason += f"; action ({kind} {raw_id or '?'}) injects no knowledge"
    if kind == "tool" and "kind" not in action and action.get("item_type"):
        dec.reason += (
            f" ({profile.runtime} reads `kind`, default tool: `item_type: "
            f"{action['item_type']}` alone loads nothing)"
        )
        if h.origin != "built-in":
            diags.append(
                Diagnostic(
                    "warning",
                    f"hook {h.id} names its item with `item_type` but no `kind`: "
                    f"{profile.runtime} looks for a tool '{raw_id}' and injects "
                    "nothing (add `kind: knowledge`)",
                    h.source,
                    h.line,
                    code="rye-hook-kind",
                )
            )


def _item_missing(
    h: hooks_mod.Hook,
    item_id: str,
    resolver: Resolver,
    diags: list[Diagnostic],
    dec: HookDecision,
) -> None:
    """Why the knowledge item hook `h` names is in no tier: to its decision and as an error."""
    unread = resolver.unread(resolver.knowledge, item_id)
    dec.reason += f"; knowledge item '{item_id}' " + (
        f"not read: {unread}" if unread else "not found"
    )
    diags.append(
        Diagnostic(
            "error",
            f"hook {h.id} names knowledge item '{item_id}', "
            + (
                f"which is not read: {unread}"
                if unread
                else "which is not in project, user or system space"
            ),
            h.source if h.origin != "built-in" else None,
            h.line,
            code="rye-hook-missing-item",
        )
    )


def _loaded_body(
    profile: RyeSemantics,
    item: KnowledgeItem,
    fetched: bool,
    ctx: dict[str, Any],
    resolver: Resolver,
) -> str:
    """The text a hook injects from `item`: its body (the whole file when `fetched`),
    interpolated when the profile's runtime does so."""
    body = item.body
    if fetched:
        body = universal_newlines(resolver.snapshot.read(item.path).text) or item.body
    if profile.interpolate_content:
        body = hooks_mod.interpolate(body, ctx)
    return body.strip()


def _block(
    profile: RyeSemantics,
    h: hooks_mod.Hook,
    action: dict[str, Any],
    item: KnowledgeItem,
    body: str,
    written: str,
) -> str:
    """The injected block: `body` alone when hook `h` does not wrap, else wrapped in a tag
    as the profile's runtime names it (`written`: the item id as the hook wrote it)."""
    if not h.wrap:
        return body
    if profile.wrap_tag == "name":
        return wrap(item)
    # ryeos names the block with the item_id as written, `${…}` and all
    tag = written.rsplit("/", 1)[-1] or "context"
    item_type = action.get("item_type", "")
    type_attr = f' type="{item_type}"' if item_type else ""
    return f'<{tag} id="{written}"{type_attr}>\n{body}\n</{tag}>'
