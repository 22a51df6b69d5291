"""Assembly of a Rye thread: hooks, extends chain, system message, first user message, tool
palette, transcript events. `build_thread` never raises on user content.

First user message order (seed 001): hook before-context (thread_started hooks, wrapped unless
`wrap: false`), extends-chain <before> items, the directive's own <before> items, the directive
prompt (body + outputs), <after> items, then any `position: after` hook items.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ctxscope.model import Diagnostic
from ctxscope.rye import hooks as hooks_mod
from ctxscope.rye.extends import compose, effective_capabilities, walk_chain
from ctxscope.rye.model import (
    POSITIONS,
    ChainNode,
    ComposedItem,
    Directive,
    HookDecision,
    KnowledgeItem,
    MessagePart,
    Palette,
)
from ctxscope.rye.prompt import directive_prompt, resolve_inputs, wrap
from ctxscope.rye.tiers import Resolver, spaces_for
from ctxscope.rye.toolcache import ToolCache
from ctxscope.rye.tools import build_palette
from ctxscope.snapshot import Snapshot
from ctxscope.tokens import ESTIMATE, Tokenizer


@dataclass
class ThreadReport:
    """Everything a Rye thread is told before it runs, with provenance.

    `to_dict()` gives the SPEC §6 thread object:

    - `directive`: `{"id", "found", "tier", "path", "signature", "shadowed", "category",
      "model", "inputs", "extends": {"value", "source"}, "hooks": {"resolve_extends": [hook],
      "<thread_started|thread_continued>": [hook]}}`; a hook is `{"id", "event", "layer",
      "source", "tier", "matched", "applied", "reason", "action", "position", "wrap"}`.
    - `chain`: leaf → root, each `{"id", "tier", "path", "extends", "routed_by", "system",
      "before", "after", "suppress", "capabilities", "signature", "shadowed"}`.
    - `system`: `{"text", "chars", "tokens", "items": [item]}`; `before` / `after`:
      `[item]`; an item is `{"item_id", "position", "origin", "origin_tier", "status"
      (included|deduplicated|suppressed|missing), "rule", "suppressed_by", "tier", "path",
      "chars", "tokens"}`.
    - `first_message`: `{"text", "chars", "tokens", "tokenizer", "parts": [{"kind",
      "source", "item_id", "tier", "wrapped", "chars", "tokens", "text"}]}`.
    - `tools`: `{"enabled", "registered": [tool], "skipped": [tool], "budget_tokens",
      "used_tokens"}`; a tool is `{"id", "api_name", "status", "reason", "tier", "path",
      "capability", "primary", "description", "chars", "tokens"}`.
    - `capabilities_tree`: `{"capabilities", "source", "notes", "tree", "text"}`.
    - `events`: the transcript events `system_prompt` and `context_injected`.
    - `diagnostics`: `[Diagnostic.to_dict()]`.
    """

    directive: str
    directive_item: Directive | None = None
    inputs: dict[str, Any] = field(default_factory=dict)
    model: str = ""
    extends: str | None = None
    extends_source: str | None = None
    """`declared`, `hook <id>`, or None."""
    hook_event: str = "thread_started"
    resolve_hooks: list[HookDecision] = field(default_factory=list)
    context_hooks: list[HookDecision] = field(default_factory=list)
    chain: list[ChainNode] = field(default_factory=list)
    """Leaf first, root last."""
    chain_error: str | None = None
    composed: dict[str, list[ComposedItem]] = field(
        default_factory=lambda: {p: [] for p in POSITIONS}
    )
    system_message: str = ""
    parts: list[MessagePart] = field(default_factory=list)
    palette: Palette = field(default_factory=Palette)
    capability_source: str | None = None
    capability_notes: list[str] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    knowledge: dict[str, KnowledgeItem] = field(default_factory=dict)
    """Every knowledge item resolved for this thread: its tier, path and body."""
    diagnostics: list[Diagnostic] = field(default_factory=list)
    tokenizer: Tokenizer = ESTIMATE
    resolver: Resolver | None = field(default=None, repr=False)

    @property
    def first_message(self) -> str:
        return "\n\n".join(p.text for p in self.parts if p.text)

    @property
    def found(self) -> bool:
        return self.directive_item is not None

    def chain_ids(self) -> list[str]:
        return [n.id for n in self.chain]

    def to_dict(self) -> dict[str, Any]:
        d = self.directive_item
        first = self.first_message
        return {
            "directive": {
                "id": self.directive,
                "found": d is not None,
                "tier": d.tier if d else None,
                "path": d.path if d else None,
                "signature": d.signed if d else None,
                "shadowed": [s.to_dict() for s in d.shadowed] if d else [],
                "category": d.category if d else "",
                "model": self.model,
                "inputs": self.inputs,
                "extends": {"value": self.extends, "source": self.extends_source},
                "hooks": {
                    "resolve_extends": [h.to_dict() for h in self.resolve_hooks],
                    self.hook_event: [h.to_dict() for h in self.context_hooks],
                },
            },
            "chain": [n.to_dict() for n in self.chain],
            "system": {
                "text": self.system_message,
                "chars": len(self.system_message),
                "tokens": self.tokenizer.count(self.system_message),
                "items": [i.to_dict() for i in self.composed["system"]],
            },
            "before": [i.to_dict() for i in self.composed["before"]],
            "after": [i.to_dict() for i in self.composed["after"]],
            "first_message": {
                "text": first,
                "chars": len(first),
                "tokens": self.tokenizer.count(first),
                "tokenizer": self.tokenizer.label,
                "parts": [p.to_dict() for p in self.parts],
            },
            "tools": {
                "enabled": self.palette.enabled,
                "registered": [t.to_dict() for t in self.palette.registered],
                "skipped": [t.to_dict() for t in self.palette.skipped],
                "budget_tokens": self.palette.budget_tokens,
                "used_tokens": self.palette.used_tokens,
            },
            "capabilities_tree": {
                "capabilities": self.palette.capabilities,
                "source": self.capability_source,
                "notes": self.capability_notes,
                "tree": self.palette.tree,
                "text": self.palette.tree_text,
            },
            "events": self.events,
            "diagnostics": [x.to_dict() for x in self.diagnostics],
        }


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
    tool_cache: ToolCache | None = None,
) -> ThreadReport:
    """Build what a thread running `directive` is told. Errors go to `report.diagnostics`.
    `tool_cache` is read and added to, never saved: the caller saves it."""
    snapshot = snapshot if snapshot is not None else Snapshot()
    spaces = spaces_for(workspace, user_space)
    resolver = Resolver(snapshot, spaces)
    directive = directive.strip().removesuffix(".md")
    report = ThreadReport(
        directive,
        tokenizer=tokenizer,
        resolver=resolver,
        hook_event="thread_continued" if continued else "thread_started",
    )
    diags: list[Diagnostic] = []
    leaf = resolver.load_directive(directive)
    if leaf is None:
        if not resolver.directives.get(directive):
            expected = spaces[0].root / "directives" / f"{directive}.md"
            diags.append(
                Diagnostic(
                    "error",
                    f"directive '{directive}' not found in project, user or system space",
                    str(expected),
                    code="rye-directive-missing",
                )
            )
        report.diagnostics = resolver.diagnostics + diags
        return report
    report.directive_item = leaf
    values, d = resolve_inputs(leaf, dict(inputs or {}))
    diags += d
    report.inputs = values
    report.model = model or leaf.model
    hook_list, d = hooks_mod.load_hooks(snapshot, spaces)
    diags += d
    ctx = {
        "directive": leaf.id,
        "has_extends": bool(leaf.extends),
        "category": leaf.category,
        "inputs": values,
        "model": report.model,
    }
    _resolve_extends(report, leaf, hook_list, ctx, diags)
    chain, d = walk_chain(leaf, report.extends, _router(report), resolver)
    diags += d
    report.chain, report.chain_error = chain.nodes, chain.error
    report.composed = compose(chain, resolver)
    diags += _composition_diagnostics(report, chain.directives)
    for items in report.composed.values():
        for item in items:
            if item.knowledge is not None:
                item.tokens = tokenizer.count(item.knowledge.body)
                report.knowledge[item.item_id] = item.knowledge
    system_items = [i for i in report.composed["system"] if i.present]
    report.system_message = "\n\n".join(
        i.knowledge.body for i in system_items if i.knowledge and i.knowledge.body
    )
    caps, notes, source = effective_capabilities(chain)
    report.capability_source, report.capability_notes = source, notes
    report.palette, d = build_palette(
        snapshot, spaces, caps, source is not None, leaf.outputs, tool_cache
    )
    diags += d
    hook_parts = _context_hooks(report, hook_list, ctx, resolver, diags)
    _assemble(report, leaf, values, hook_parts)
    report.events = [
        {
            "event": "system_prompt",
            "text": report.system_message,
            "layers": [i.item_id for i in system_items],
        },
        {
            "event": "context_injected",
            "before": [p.source for p in report.parts if p.kind.endswith("before")],
            "after": [p.source for p in report.parts if p.kind.endswith("after")],
        },
    ]
    report.diagnostics = _dedupe(resolver.diagnostics + diags)
    return report


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
    for h in hooks_mod.ordered(hook_list, "resolve_extends"):
        target = h.action.get("set_extends")
        dec = HookDecision(h.id, h.event, h.layer, h.source, h.tier, False, "", h.action)
        if winner is not None:
            dec.reason = f"not evaluated: {winner} matched first (first match wins)"
        else:
            dec.matched, dec.reason = hooks_mod.check(h, ctx, diags)
            if dec.matched and not target:
                dec.reason += "; but its action has no set_extends"
            elif dec.matched:
                winner, dec.applied = h.id, True
                was = f" (overriding declared {leaf.extends})" if leaf.extends else ""
                dec.reason += f"; set extends → {target}{was}"
                report.extends, report.extends_source = str(target), f"hook {h.id}"
        report.resolve_hooks.append(dec)


def _composition_diagnostics(report: ThreadReport, directives: list[Directive]) -> list[Diagnostic]:
    paths = {d.id: d.path for d in directives}
    out: list[Diagnostic] = []
    declared: set[str] = set()
    for pos, items in report.composed.items():
        for item in items:
            declared.add(item.item_id)
            if item.status == "missing":
                out.append(
                    Diagnostic(
                        "error",
                        f"knowledge item '{item.item_id}' (in <{pos}> of {item.origin}) "
                        "not found in project, user or system space",
                        paths.get(item.origin),
                        code="rye-knowledge-missing",
                    )
                )
    for node in report.chain:
        for sid in node.context.get("suppress", []):
            if sid not in declared:
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
    ctx: dict[str, Any],
    resolver: Resolver,
    diags: list[Diagnostic],
) -> list[MessagePart]:
    parts: list[MessagePart] = []
    for h in hooks_mod.ordered(hook_list, report.hook_event):
        dec = HookDecision(
            h.id, h.event, h.layer, h.source, h.tier, False, "", h.action, h.position, h.wrap
        )
        dec.matched, dec.reason = hooks_mod.check(h, ctx, diags)
        report.context_hooks.append(dec)
        if not dec.matched:
            continue
        item_type = h.action.get("item_type", "knowledge")
        raw_id = h.action.get("item_id")
        if item_type != "knowledge" or not raw_id:
            dec.reason += f"; action ({item_type} {raw_id or '?'}) injects no knowledge"
            continue
        item_id = hooks_mod.interpolate(str(raw_id), ctx)
        item = resolver.load_knowledge(item_id)
        if item is None:
            dec.reason += f"; knowledge item '{item_id}' not found"
            diags.append(
                Diagnostic(
                    "error",
                    f"hook {h.id} names knowledge item '{item_id}', "
                    "which is not in project, user or system space",
                    h.source if h.origin != "built-in" else None,
                    h.line,
                    code="rye-hook-missing-item",
                )
            )
            continue
        dec.applied = True
        report.knowledge[item_id] = item
        text = wrap(item) if h.wrap else item.body
        parts.append(
            MessagePart(
                f"hook_{h.position}",
                h.id,
                text,
                item_id,
                item.tier,
                h.wrap,
                report.tokenizer.count(text),
            )
        )
    return parts


def _assemble(
    report: ThreadReport, leaf: Directive, values: dict[str, Any], hook_parts: list[MessagePart]
) -> None:
    tok = report.tokenizer
    parts = [p for p in hook_parts if p.kind == "hook_before"]
    for pos in ("before", "after"):
        if pos == "after":
            text = directive_prompt(leaf, values)
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
