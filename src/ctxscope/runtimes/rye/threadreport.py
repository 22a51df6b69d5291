"""What a Rye thread is told before it runs, as a report (`ThreadReport`): its chain, system
and first message part by part, its hooks and tool palette, with provenance;
`rye.thread.build_thread` makes one."""

from __future__ import annotations

from dataclasses import field
from typing import Any

from ctxscope.core.model import Diagnostic
from ctxscope.core.record import record
from ctxscope.core.tokens import ESTIMATE, Tokenizer
from ctxscope.runtimes.rye.integrity import Verifier
from ctxscope.runtimes.rye.measured import knowledge_chars, measured_from
from ctxscope.runtimes.rye.semantics import RyeSemantics
from ctxscope.runtimes.rye.semantics import load as load_profile
from ctxscope.runtimes.rye.threaddata import (
    POSITIONS,
    ChainNode,
    ComposedItem,
    Directive,
    HookDecision,
    KnowledgeItem,
    MessagePart,
    Palette,
)
from ctxscope.runtimes.rye.tiers import Resolver


@record
class ThreadReport:
    """Everything a Rye thread is told before it runs, with provenance.

    `to_dict()` gives the thread object of `ctxscope thread --format json`:

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
    system_hooks: list[HookDecision] = field(default_factory=list)
    """build_system_prompt hooks (ryeos): their items open the system message."""
    system_hook_parts: list[MessagePart] = field(default_factory=list)
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
    profile: RyeSemantics = field(default_factory=load_profile, repr=False)
    system_stand_in: bool = True
    """The system tier is ctxscope's stand-in (own words, own sizes), not an installed
    ryeos: every system-tier size is an estimate of the real one."""
    stand_in_text: list[str] = field(default_factory=list)
    """Text in this report that is ctxscope's stand-in for the runtime's own."""
    refused: list[str] = field(default_factory=list)
    """Why the profile's runtime would not start this thread at all (empty: it starts),
    in the order the runtime checks; each is also an error diagnostic."""
    limits: dict[str, Any] = field(default_factory=dict)
    """The thread's limits (resilience.yaml `limits.defaults`, then the leaf's `<limits>`)."""
    disagreements: list[str] = field(default_factory=list)
    """Where Rye's docs and ryeos disagree for this directive, one line of at most 120
    characters each, led by the rule's name (filled by the caller that built both; see
    `rye.disagree`)."""
    disagreement_details: list[str] = field(default_factory=list)
    """The same differences, in full."""
    dev_mode: bool = False
    """Built as ryeos's dev mode (`RYE_DEV_MODE=1`) runs: signatures are checked and
    reported, but every item loads."""
    verifier: Verifier | None = field(default=None, repr=False)

    def _item(self, item: ComposedItem) -> dict[str, Any]:
        """A composed item's dict; from the stand-in system tier, with `ryeos_chars`: the
        size ryeos 0.1.30 gives the bundled item it stands in for (None: not measured)."""
        d = item.to_dict()
        if self.system_stand_in and d["tier"] == "system":
            d["ryeos_chars"] = knowledge_chars(item.item_id)
        return d

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
                "signature": (self.chain[0].signature if self.chain else d.signed) if d else None,
                "shadowed": [s.to_dict() for s in d.shadowed] if d else [],
                "category": d.category if d else "",
                "model": self.model,
                "inputs": self.inputs,
                "extends": {"value": self.extends, "source": self.extends_source},
                "hooks": {
                    "resolve_extends": [h.to_dict() for h in self.resolve_hooks],
                    "build_system_prompt": [h.to_dict() for h in self.system_hooks],
                    self.hook_event: [h.to_dict() for h in self.context_hooks],
                },
            },
            "profile": {
                "name": self.profile.name,
                "runtime": self.profile.runtime,
                "system_tier": "stand-in" if self.system_stand_in else "installed",
                "dev_mode": self.dev_mode,
                "stand_in_sizes": measured_from() if self.system_stand_in else None,
                "stand_in_text": self.stand_in_text,
            },
            "chain": [n.to_dict() for n in self.chain],
            "system": {
                "hook_parts": [p.to_dict() for p in self.system_hook_parts],
                "text": self.system_message,
                "chars": len(self.system_message),
                "tokens": self.tokenizer.count(self.system_message),
                "items": [self._item(i) for i in self.composed["system"]],
            },
            "before": [self._item(i) for i in self.composed["before"]],
            "after": [self._item(i) for i in self.composed["after"]],
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
                "notes": self.palette.notes,
            },
            "capabilities_tree": {
                "capabilities": self.palette.capabilities,
                "source": self.capability_source,
                "notes": self.capability_notes,
                "tree": self.palette.tree,
                "text": self.palette.tree_text,
            },
            "events": self.events,
            "refused": self.refused,
            "disagreements": self.disagreements,
            "disagreement_details": self.disagreement_details,
            "diagnostics": [x.to_dict() for x in self.diagnostics],
        }
