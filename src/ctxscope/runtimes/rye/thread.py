"""Assembly of a Rye thread: hooks, extends chain, system message, first user message, tool
palette, transcript events. `build_thread` never raises on user content.

First user message order: hook before-context (thread_started hooks, wrapped unless
`wrap: false`), extends-chain <before> items, the directive's own <before> items, the directive
prompt (body + outputs), <after> items, then any `position: after` hook items.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ctxscope.core.model import Diagnostic
from ctxscope.core.tokens import ESTIMATE, Tokenizer
from ctxscope.infra.snapshot import Snapshot
from ctxscope.runtimes.rye import hooks as hooks_mod
from ctxscope.runtimes.rye.extends import compose, effective_capabilities, walk_chain
from ctxscope.runtimes.rye.integrity import Verifier, check_chain
from ctxscope.runtimes.rye.items import universal_newlines
from ctxscope.runtimes.rye.limits import resolve_limits
from ctxscope.runtimes.rye.prompt import directive_prompt, resolve_inputs, wrap
from ctxscope.runtimes.rye.risk import blocked
from ctxscope.runtimes.rye.runtime_text import STAND_IN, outputs_wording
from ctxscope.runtimes.rye.semantics import RyeSemantics
from ctxscope.runtimes.rye.semantics import load as load_profile
from ctxscope.runtimes.rye.threaddata import (
    ComposedItem,
    Directive,
    HookDecision,
    MessagePart,
)
from ctxscope.runtimes.rye.threadreport import ThreadReport
from ctxscope.runtimes.rye.tiers import Resolver, Space, spaces_for
from ctxscope.runtimes.rye.tools import build_palette
from ctxscope.runtimes.rye.toolsource import Serial, ToolSource


def build_thread(
    workspace: Path | str,
    directive: str,
    *,
    inputs: dict[str, str] | None = None,
    user_space: Path | str | None = None,
    model: str | None = None,
    snapshot: Snapshot | None = None,
    tokenizer: Tokenizer = ESTIMATE,
    continued: bool = False,
    tools: ToolSource | None = None,
    profile: RyeSemantics | None = None,
    system: list[Path] | None = None,
    dev_mode: bool = False,
    home: Path | None = None,
) -> ThreadReport:
    """Build what a thread running `directive` is told under `profile` (default: what ryeos
    0.1 does). Errors go to `report.diagnostics`. Tool metadata is asked of `tools` (default:
    each file parsed in this process; a cache it holds is never saved: the caller saves it).
    Signatures are verified as ryeos does outside its dev mode; `dev_mode` loads every item
    and only reports them. `home`: the user space ryeos trusts keys of when no user space is
    given (default: the home folder)."""
    profile = profile if profile is not None else load_profile()
    snapshot = snapshot if snapshot is not None else Snapshot()
    spaces = spaces_for(workspace, user_space, system)
    tools = tools if tools is not None else Serial()
    with tools.ahead(snapshot, spaces):  # a first look: the source may start early
        return _build(
            workspace,
            directive,
            spaces,
            snapshot,
            profile,
            inputs=inputs,
            model=model,
            tokenizer=tokenizer,
            continued=continued,
            tools=tools,
            system=system,
            verifier=Verifier(
                snapshot,
                spaces,
                dev_mode=dev_mode,
                stand_in=not system,
                home=home if home is not None else Path.home(),
            ),
        )


def _build(
    workspace: Path | str,
    directive: str,
    spaces: list[Space],
    snapshot: Snapshot,
    profile: RyeSemantics,
    *,
    inputs: dict[str, str] | None,
    model: str | None,
    tokenizer: Tokenizer,
    continued: bool,
    tools: ToolSource,
    system: list[Path] | None,
    verifier: Verifier,
) -> ThreadReport:
    resolver = Resolver(snapshot, spaces)
    directive = directive.strip().removesuffix(".md")
    report = ThreadReport(
        directive,
        tokenizer=tokenizer,
        resolver=resolver,
        hook_event="thread_continued" if continued else "thread_started",
        profile=profile,
        system_stand_in=not system,
        dev_mode=verifier.dev_mode,
        verifier=verifier,
    )
    diags: list[Diagnostic] = []
    leaf = resolver.load_directive(directive)
    if leaf is None:
        locs = resolver.directives.get(directive)
        if locs and profile.refusals:  # there, but the runtime cannot parse it either
            why = next(
                (d.message for d in resolver.diagnostics if d.path == locs[0].path), "unreadable"
            )
            report.refused.append(f"the directive cannot be parsed: {why}")
            diags.append(_refusal(profile, report.refused[-1], locs[0].path))
        if not resolver.directives.get(directive):
            expected = spaces[0].root / "directives" / f"{directive}.md"
            unread = resolver.unread(resolver.directives, directive)
            diags.append(
                Diagnostic(
                    "error",
                    f"directive '{directive}' "
                    + (
                        f"not read: {unread}"
                        if unread
                        else "not found in project, user or system space"
                    ),
                    str(expected),
                    code="rye-directive-missing",
                )
            )
        report.diagnostics = resolver.diagnostics + diags
        return report
    report.directive_item = leaf
    given = dict(inputs or {})
    values, d = resolve_inputs(leaf, given, "error" if profile.refusals else "warning")
    diags += d
    report.inputs = values
    refusals: list[str] = []
    if profile.refusals:
        if leaf.ryeos_parse_error:
            refusals.append(leaf.ryeos_parse_error)
            diags.append(_refusal(profile, leaf.ryeos_parse_error, leaf.path))
        refusals += [x.message for x in d]
    report.limits, limit_problem = resolve_limits(snapshot, spaces, leaf)
    report.model = model or leaf.model
    hook_list, d = hooks_mod.load_hooks(snapshot, spaces, profile, leaf)
    diags += d
    hook_inputs = values if profile.hook_inputs_defaults else given
    ctx = {
        "directive": leaf.id,
        "has_extends": bool(leaf.extends),
        "category": leaf.category,
        "inputs": hook_inputs,
        "model": report.model,
    }
    _resolve_extends(report, leaf, hook_list, ctx, diags)
    chain, d = walk_chain(
        leaf,
        report.extends,
        _router(report),
        resolver,
        profile.runtime if profile.unparsable_base == "empty" else None,
    )
    diags += d
    report.chain, report.chain_error = chain.nodes, chain.error
    report.composed = compose(chain, resolver, profile.frontmatter_loads)
    unsigned, checked = check_chain(verifier, report.chain, report.composed)
    diags += checked
    for cause, where in unsigned:
        refusals.append(cause)
        diags.append(_refusal(profile, cause, where))
    hook_names = (
        {n for h in hook_list for n in (h.id, h.action.get("item_id")) if isinstance(n, str)}
        if profile.suppress_hooks
        else set()
    )
    diags += _composition_diagnostics(report, chain.directives, hook_names)
    for items in report.composed.values():
        for item in items:
            if item.knowledge is not None:
                item.tokens = tokenizer.count(item.knowledge.body)
                report.knowledge[item.item_id] = item.knowledge
    caps, notes, source = effective_capabilities(chain, profile.inherit)
    if profile.slashes_to_dots:
        caps = list(dict.fromkeys(c.replace("/", ".") for c in caps))
    report.capability_source, report.capability_notes = source, notes
    report.palette, d = build_palette(
        snapshot, spaces, caps, source is not None, leaf.outputs, tools, profile
    )
    diags += d
    body_text = "\n".join(filter(None, [leaf.id, leaf.description, leaf.body.strip()]))
    system_hooks: list[MessagePart] = []
    if profile.system_prompt_hooks:
        sys_ctx = {
            "directive": leaf.id,
            "directive_body": body_text,
            "model": report.model,
            "limits": report.limits,
            "inputs": hook_inputs,
        }
        system_hooks = _context_hooks(
            report, hook_list, "build_system_prompt", sys_ctx, resolver, diags
        )
    system_items = [i for i in report.composed["system"] if i.present]
    report.system_hook_parts = system_hooks
    report.system_message = "\n\n".join(
        [p.text for p in system_hooks]
        + [i.knowledge.body.strip() for i in system_items if i.knowledge and i.knowledge.body]
    )
    if profile.is_docs:
        started_ctx = ctx
    else:
        # runner.run: the thread's resolved limits, and the capabilities the harness holds
        # (slashes read as dots; directive_return's added when the directive has outputs).
        held = list(caps)
        if leaf.outputs:
            held.append(DIRECTIVE_RETURN_CAP)
        started_ctx = {
            "directive": leaf.id,
            "directive_body": body_text,
            "model": report.model,
            "limits": report.limits,
            "inputs": hook_inputs,
            "project_path": str(Path(workspace).resolve()),
            "depth": 0,
            "parent_thread_id": "none",
            "spend_limit": report.limits.get("spend", "unlimited"),
            "max_turns": report.limits.get("turns", "unlimited"),
            "capabilities_summary": ", ".join(held) if held else "unrestricted",
        }
        if continued:
            started_ctx = {
                k: started_ctx[k]
                for k in ("directive", "directive_body", "model", "limits", "inputs")
            }
            started_ctx["previous_thread_id"] = None
    hook_parts = _context_hooks(report, hook_list, report.hook_event, started_ctx, resolver, diags)
    wording = None
    if profile.ryeos_outputs:
        wording = outputs_wording(snapshot, system or [])
        if wording is None:
            wording = STAND_IN
            if leaf.outputs:
                report.stand_in_text.append(
                    "the outputs instruction in the directive prompt is ctxscope's own wording "
                    f"(its length differs from {profile.runtime}'s; install ryeos or pass "
                    "--rye-system for the real text)"
                )
    _assemble(report, leaf, values, hook_parts, wording)
    report.events = _events(report, system_items)
    mine = f"{profile.runtime} would not start this thread: "
    refusals += [
        x.message
        for x in diags
        if x.code == "rye-thread-refused" and not x.message.startswith(mine)
    ]
    if profile.refusals and report.chain_error and not chain.unread:
        refusals.append(report.chain_error)
    if profile.refusals and limit_problem:
        refusals.append(limit_problem)
        diags.append(_refusal(profile, limit_problem, leaf.path))
    if profile.refusals:
        granted = list(caps)
        if leaf.outputs:
            granted.append(DIRECTIVE_RETURN_CAP)
        risk, d = blocked(snapshot, spaces, granted, leaf.acknowledged)
        diags += d
        if risk:
            refusals.append(risk)
            diags.append(_refusal(profile, risk, leaf.path))
    report.refused = list(dict.fromkeys(refusals))
    linked = any(t.unread for t in report.palette.skipped)  # the runtime may register them
    if profile.refusals and not report.palette.registered and not linked:
        why = (
            f"no tools: {profile.runtime} refuses a thread that can call nothing (the chain "
            "grants no tool and the directive declares no <outputs>)"
        )
        report.refused.append(why)
        diags.append(_refusal(profile, why, leaf.path))
    report.diagnostics = _dedupe(resolver.diagnostics + diags)
    return report


DIRECTIVE_RETURN_CAP = "rye.execute.tool.rye.agent.threads.directive_return"
"""The capability ryeos grants a directive that declares `<outputs>`."""


def _refusal(profile: RyeSemantics, cause: str, path: str | None) -> Diagnostic:
    """The error diagnostic for one reason the runtime would not start the thread."""
    return Diagnostic(
        "error",
        f"{profile.runtime} would not start this thread: {cause}",
        path,
        code="rye-thread-refused",
    )


def _events(report: ThreadReport, system_items: list[ComposedItem]) -> list[dict[str, Any]]:
    """The transcript events `system_prompt` and `context_injected` as the profile's runtime
    writes them."""
    profile = report.profile
    events: list[dict[str, Any]] = []
    if report.system_message or profile.system_prompt_when_empty:
        layers = (
            [p.written_id or p.item_id or p.source for p in report.system_hook_parts]
            if profile.system_layers == "hooks"
            else [i.item_id for i in system_items]
        )
        events.append({"event": "system_prompt", "text": report.system_message, "layers": layers})
    if profile.context_injected == "single":
        events.append(
            {
                "event": "context_injected",
                "before": [p.source for p in report.parts if p.kind.endswith("before")],
                "after": [p.source for p in report.parts if p.kind.endswith("after")],
            }
        )
        return events
    for position in ("before", "after"):
        blocks = [p.written_id or p.item_id for p in report.parts if p.kind == f"hook_{position}"]
        if blocks:
            events.append({"event": "context_injected", "position": position, "blocks": blocks})
    return events


def _router(report: ThreadReport) -> str | None:
    src = report.extends_source or ""
    return src[5:] if src.startswith("hook ") else None


def _resolve_extends(
    report: ThreadReport,
    leaf: Directive,
    hook_list: list[hooks_mod.Hook],
    ctx: dict[str, Any],
    diags: list[Diagnostic],
) -> None:
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


def _composition_diagnostics(
    report: ThreadReport, directives: list[Directive], hook_names: set[str]
) -> list[Diagnostic]:
    paths = {d.id: d.path for d in directives}
    out: list[Diagnostic] = []
    declared: set[str] = set()
    for pos, items in report.composed.items():
        for item in items:
            declared.add(item.item_id)
            if item.status == "missing":
                r = report.resolver
                unread = r.unread(r.knowledge, item.item_id) if r is not None else None
                out.append(
                    Diagnostic(
                        "error",
                        f"knowledge item '{item.item_id}' (in <{pos}> of {item.origin}) "
                        + (
                            f"not read: {unread}"
                            if unread
                            else "not found in project, user or system space"
                        ),
                        paths.get(item.origin),
                        code="rye-knowledge-missing",
                    )
                )
    for node in report.chain:
        for sid in node.context.get("suppress", []):
            if sid not in declared and sid not in hook_names:
                out.append(
                    Diagnostic(
                        "warning",
                        f"<suppress>{sid}</suppress> in {node.id} matches nothing "
                        "declared in the chain",
                        node.path,
                        code="rye-suppress-unused",
                    )
                )
    return out


def _context_hooks(
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
        return None
    item_id = hooks_mod.interpolate(str(raw_id), ctx)
    item = resolver.load_knowledge(item_id)
    if item is None:
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
    body = item.body
    if fetched:
        body = universal_newlines(resolver.snapshot.read(item.path).text) or item.body
    if profile.interpolate_content:
        body = hooks_mod.interpolate(body, ctx)
    body = body.strip()
    if not h.wrap:
        text = body
    elif profile.wrap_tag == "name":
        text = wrap(item)
    else:  # ryeos names the block with the item_id as written, `${…}` and all
        written = str(raw_id)
        tag = written.rsplit("/", 1)[-1] or "context"
        item_type = action.get("item_type", "")
        type_attr = f' type="{item_type}"' if item_type else ""
        text = f'<{tag} id="{written}"{type_attr}>\n{body}\n</{tag}>'
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


def _assemble(
    report: ThreadReport,
    leaf: Directive,
    values: dict[str, Any],
    hook_parts: list[MessagePart],
    wording: tuple[str, str] | None,
) -> None:
    tok = report.tokenizer
    parts = [p for p in hook_parts if p.kind == "hook_before"]
    for pos in ("before", "after"):
        if pos == "after":
            raw = report.profile.permissions_prompt == "raw"
            text = directive_prompt(leaf, values, raw, wording, report.profile.ryeos_placeholders)
            parts.append(
                MessagePart(
                    "directive_prompt", leaf.id, text, None, leaf.tier, False, tok.count(text)
                )
            )
        for item in report.composed[pos]:
            if not item.present or item.knowledge is None or not item.knowledge.body:
                continue
            kind = f"directive_{pos}" if item.origin == leaf.id else f"extends_{pos}"
            k = item.knowledge
            parts.append(
                MessagePart(kind, item.item_id, k.body, item.item_id, k.tier, False, item.tokens)
            )
    parts += [p for p in hook_parts if p.kind == "hook_after"]
    report.parts = parts


def _dedupe(diags: list[Diagnostic]) -> list[Diagnostic]:
    seen: set[tuple[Any, ...]] = set()
    out = []
    for d in diags:
        key = (d.path, d.line, d.message)
        if key not in seen:
            seen.add(key)
            out.append(d)
    return out
