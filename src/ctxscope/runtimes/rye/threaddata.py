"""Dataclasses of the Rye layered-context engine.

Everything here is plain data with provenance: which tier and file an item came from, which
directive of the chain declared it, which hook or rule decided its fate.
"""

from __future__ import annotations

from dataclasses import field
from typing import Any, Literal

from ctxscope.core.record import record

Tier = Literal["project", "user", "system"]
TIERS: tuple[Tier, ...] = ("project", "user", "system")
Position = Literal["system", "before", "after"]
POSITIONS: tuple[Position, ...] = ("system", "before", "after")


@record(frozen=True)
class Located:
    """One copy of an item on disk: its tier and absolute path."""

    tier: Tier
    path: str

    def to_dict(self) -> dict[str, str]:
        return {"tier": self.tier, "path": self.path}


def signature_status(signature: str | None) -> str:
    """How a parsed item's signature line reads before it is checked (a thread replaces it
    with ryeos's verdict, see `rye.integrity`)."""
    return "signed (unverified)" if signature else "unsigned"


@record
class KnowledgeItem:
    """A knowledge item resolved through the tiers (first match wins)."""

    id: str
    tier: Tier
    path: str
    metadata: dict[str, Any]
    body: str
    signature: str | None = None
    shadowed: list[Located] = field(default_factory=list)
    """Copies in lower tiers hidden by this one."""
    frontmatter: bool = False
    """Its metadata is `---` frontmatter (ryeos 0.1 refuses to execute such an item)."""

    @property
    def name(self) -> str:
        name = self.metadata.get("name")
        return str(name) if name else self.id.rsplit("/", 1)[-1]

    @property
    def signed(self) -> str:
        return signature_status(self.signature)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "tier": self.tier,
            "path": self.path,
            "name": self.name,
            "title": self.metadata.get("title"),
            "signature": self.signed,
            "chars": len(self.body),
            "shadowed": [s.to_dict() for s in self.shadowed],
        }


@record
class Directive:
    """A parsed directive file."""

    id: str
    tier: Tier
    path: str
    name: str
    version: str
    extends: str | None
    description: str
    category: str
    model: str
    capabilities: list[str]
    """Capability strings from `<permissions>` (`rye.execute.tool.x.*`, ...)."""
    permissions_xml: str
    context: dict[str, list[str]]
    """`system`, `before`, `after`, `suppress` -> knowledge ids, in declaration order."""
    inputs: list[dict[str, Any]]
    outputs: list[dict[str, Any]]
    body: str
    signature: str | None = None
    shadowed: list[Located] = field(default_factory=list)
    permissions_raw: str = ""
    """The file's first `<permissions>…</permissions>`, exactly as written (what ryeos puts
    in the directive prompt)."""
    acknowledged: list[str] = field(default_factory=list)
    """Risks acknowledged with `<permissions><acknowledge risk="…">`."""
    limits: dict[str, Any] = field(default_factory=dict)
    """`<limits …>` attributes, numbers as ryeos reads them."""
    hooks: list[dict[str, Any]] = field(default_factory=list)
    """Directive-level `<hooks>`, each as ryeos's parser gives it."""
    ryeos_parse_error: str | None = None
    """Why ryeos's directive parser rejects this file although ctxscope reads it (an unknown
    tag inside `<permissions>`): ryeos then has no directive at all."""

    @property
    def declares_permissions(self) -> bool:
        """True when `<permissions>` grants anything: an empty `<permissions/>` (as on the
        standard general base) neither grants nor narrows."""
        return bool(self.capabilities)

    @property
    def signed(self) -> str:
        return signature_status(self.signature)


@record
class ChainNode:
    """One directive of the extends chain (the TUI draws these as a tree)."""

    id: str
    tier: Tier | None
    path: str | None
    extends: str | None
    context: dict[str, list[str]]
    capabilities: list[str]
    signature: str = "unsigned"
    shadowed: list[Located] = field(default_factory=list)
    routed_by: str | None = None
    """The resolve_extends hook that set this node's `extends`, if any."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "tier": self.tier,
            "path": self.path,
            "extends": self.extends,
            "routed_by": self.routed_by,
            "system": self.context.get("system", []),
            "before": self.context.get("before", []),
            "after": self.context.get("after", []),
            "suppress": self.context.get("suppress", []),
            "capabilities": self.capabilities,
            "signature": self.signature,
            "shadowed": [s.to_dict() for s in self.shadowed],
        }


ItemStatus = Literal[
    "included", "deduplicated", "suppressed", "missing", "unloadable", "unverified"
]
"""`unverified`: its signature check failed, so the runtime does not load it."""


@record
class ComposedItem:
    """A knowledge id declared somewhere in the chain, and what became of it."""

    item_id: str
    position: Position
    origin: str
    """The directive that declared it."""
    origin_tier: Tier | None
    status: ItemStatus
    rule: str
    suppressed_by: list[str] = field(default_factory=list)
    knowledge: KnowledgeItem | None = None
    tokens: int = 0
    integrity: str | None = None
    """What the runtime's signature check says of it (None: not checked)."""

    @property
    def present(self) -> bool:
        return self.status == "included" and self.knowledge is not None

    def to_dict(self) -> dict[str, Any]:
        k = self.knowledge
        return {
            "item_id": self.item_id,
            "position": self.position,
            "origin": self.origin,
            "origin_tier": self.origin_tier,
            "status": self.status,
            "rule": self.rule,
            "suppressed_by": self.suppressed_by,
            "tier": k.tier if k else None,
            "path": k.path if k else None,
            "chars": len(k.body) if k else 0,
            "tokens": self.tokens,
            "integrity": self.integrity,
        }


@record
class HookDecision:
    """One hook considered for an event: did it match, and what did it do."""

    id: str
    event: str
    layer: int
    source: str
    """`built-in`, or the hooks.yaml path."""
    tier: Tier | None
    matched: bool
    reason: str
    action: dict[str, Any]
    position: str = "before"
    wrap: bool = True
    applied: bool = False
    """True when the match took effect (first resolve_extends match; injected item)."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "event": self.event,
            "layer": self.layer,
            "source": self.source,
            "tier": self.tier,
            "matched": self.matched,
            "applied": self.applied,
            "reason": self.reason,
            "action": self.action,
            "position": self.position,
            "wrap": self.wrap,
        }


@record
class MessagePart:
    """One block of the first user message, in order, with where it came from."""

    kind: str
    """`hook_before`, `extends_before`, `directive_before`, `directive_prompt`,
    `directive_after`, `extends_after`, `hook_after`."""
    source: str
    """Hook id, knowledge id, or the directive id for the prompt."""
    text: str
    item_id: str | None = None
    tier: Tier | None = None
    wrapped: bool = False
    tokens: int = 0
    written_id: str | None = None
    """The hook's `item_id` as written when the runtime loads it interpolated but names it
    raw (ryeos: the tag, its `id` attribute and the event's block id keep `${…}`)."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "source": self.source,
            "item_id": self.item_id,
            "written_id": self.written_id,
            "tier": self.tier,
            "wrapped": self.wrapped,
            "chars": len(self.text),
            "tokens": self.tokens,
            "text": self.text,
        }


@record
class ToolEntry:
    """A tool considered for the palette."""

    id: str
    api_name: str
    status: Literal["registered", "skipped"]
    reason: str
    tier: Tier | None = None
    path: str | None = None
    description: str = ""
    schema: dict[str, Any] | None = None
    capability: str = ""
    """The capability string that granted it."""
    primary: str | None = None
    """`execute`/`fetch`/`sign` for primary actions (outside the budget)."""
    chars: int = 0
    tokens: int = 0
    over_budget: bool = False
    """True when it was skipped because it did not fit `tool_preload.max_tokens`."""
    unread: bool = False
    """True when it was skipped because its file links out of its space (not read; the
    runtime would follow the link)."""
    measured: bool = False
    """True when `chars` is ryeos's measured size of the bundled tool this stand-in tool
    stands in for (its text here is ctxscope's own)."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "api_name": self.api_name,
            "status": self.status,
            "reason": self.reason,
            "tier": self.tier,
            "path": self.path,
            "capability": self.capability,
            "primary": self.primary,
            "description": self.description,
            "chars": self.chars,
            "tokens": self.tokens,
            "size": "measured" if self.measured else "file",
        }


@record
class Palette:
    registered: list[ToolEntry] = field(default_factory=list)
    skipped: list[ToolEntry] = field(default_factory=list)
    enabled: bool = True
    budget_tokens: int = 2000
    used_tokens: int = 0
    capabilities: list[str] = field(default_factory=list)
    tree: dict[str, Any] = field(default_factory=dict)
    tree_text: str = ""
    notes: list[str] = field(default_factory=list)
    """What the user should know about how certain this palette is."""

    def find(self, name: str) -> ToolEntry | None:
        for t in self.registered + self.skipped:
            if name in (t.id, t.api_name):
                return t
        return None
