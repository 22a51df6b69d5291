"""Rye semantics as data: what ryeos really does (`ryeos-0.1`, the default) and what Rye's
documentation describes (`rye-docs`). Bundled profiles live in `profiles/<name>.yaml`; a
thread names one with `--rye-profile`, and `thread`/`explain` list where the two disagree.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from ctxscope.core.record import record
from ctxscope.core.yamlload import load_yaml

BUNDLED = Path(__file__).with_name("profiles")
DEFAULT = "ryeos-0.1"
DOCS = "rye-docs"

_CHOICES: dict[str, tuple[Any, ...]] = {
    "hooks.item_kind_key": ("kind", "item_type"),
    "hooks.actions": ("several", "one"),
    "hooks.conditions_file": ("merged", "ignored"),
    "hooks.default_item_kind": ("tool", "knowledge"),
    "hooks.wrap_tag": ("id_segment", "name"),
    "hooks.wrap_type_from": ("item_type", "always"),
    "permissions.inherit": ("root_most", "intersect"),
    "extends.unparsable_base": ("empty", "missing"),
    "permissions.slashes": ("dots", "kept"),
    "knowledge.frontmatter": ("error", "metadata"),
    "hooks.inputs": ("given", "with_defaults"),
    "hooks.conditions": ("ryeos", "docs"),
    "prompt.permissions": ("raw", "normalised"),
    "prompt.placeholders": ("ryeos", "inputs"),
    "prompt.outputs": ("ryeos", "docs"),
    "palette.size": ("python_repr", "json"),
    "palette.no_permissions": ("nothing", "primaries"),
    "palette.tool_search": ("rglob", "sorted"),
    "events.system_layers": ("hooks", "items"),
    "events.context_injected": ("per_position", "single"),
}
_ORIGINS = ("project", "user", "directive", "built-in", "system")


class RyeProfileError(ValueError):
    pass


@record(frozen=True, eq=False)
class RyeSemantics:
    name: str
    runtime: str
    description: str
    builtin_hooks: tuple[dict[str, Any], ...]
    resolve_extends_order: tuple[str, ...] | None
    """Origins in the order their resolve_extends hooks are tried (file order within each);
    None: sorted by layer."""
    context_order: tuple[str, ...]
    """Origins whose context hooks fire, in tie order within a layer; others are ignored."""
    item_kind_key: str
    several_actions: bool
    hook_conditions_merge: bool
    """A user's or project's config/agent/hook_conditions.yaml merges over the runtime's
    own by hook id (ryeos 0.1's config cascade)."""
    """A hook's `actions:` list runs each action in turn (ryeos 0.1); else only `action`."""
    default_item_kind: str
    interpolate_content: bool
    wrap_tag: str
    wrap_type_from: str
    system_prompt_hooks: bool
    suppress_hooks: bool
    fetch_whole_file: bool
    hook_inputs_defaults: bool
    ryeos_conditions: bool
    frontmatter_loads: bool
    inherit: str
    unparsable_base: str
    slashes_to_dots: bool
    """A `/` in a capability is read as `.` (ryeos 0.1's SafetyHarness)."""
    """`empty`: a base directive the runtime cannot parse stays in the chain with nothing
    (ryeos 0.1); `missing`: the chain is broken there."""
    permissions_prompt: str
    ryeos_placeholders: bool
    """The body's placeholders are filled as ryeos's inputs/interpolate does (`{env:…}`,
    `{input:x:default}`, `{input:x|default}`, `${inputs.x}`); else `{input:x}` only."""
    ryeos_outputs: bool
    primaries_charged: bool
    no_permissions_primaries: bool
    primary_ids: tuple[str, ...]
    narrow_primary_description: bool
    rglob_tools: bool
    return_when_disabled: bool
    execute_wrapper_types: frozenset[str]
    broad_execute_grants_tools: bool
    size: str
    refusals: bool
    system_prompt_when_empty: bool
    system_layers: str
    context_injected: str

    @property
    def is_docs(self) -> bool:
        return self.name == DOCS


def _get(data: dict[str, Any], dotted: str, name: str) -> Any:
    node: Any = data
    for key in dotted.split("."):
        if not isinstance(node, dict) or key not in node:
            raise RyeProfileError(f"Rye profile {name}: missing {dotted}")
        node = node[key]
    allowed = _CHOICES.get(dotted)
    if allowed is not None and node not in allowed:
        raise RyeProfileError(
            f"Rye profile {name}: {dotted} is {node!r}, expected one of {', '.join(allowed)}"
        )
    return node


def _origins(value: Any, dotted: str, name: str) -> tuple[str, ...]:
    if not isinstance(value, list) or any(v not in _ORIGINS for v in value):
        raise RyeProfileError(f"Rye profile {name}: {dotted} must list {', '.join(_ORIGINS)}")
    return tuple(value)


def parse_profile(data: Any, name: str) -> RyeSemantics:
    if not isinstance(data, dict):
        raise RyeProfileError(f"Rye profile {name}: not a mapping")
    g = lambda dotted: _get(data, dotted, name)  # noqa: E731
    builtin = g("hooks.builtin")
    if not isinstance(builtin, list) or not all(isinstance(h, dict) for h in builtin):
        raise RyeProfileError(f"Rye profile {name}: hooks.builtin must be a list of hooks")
    order = g("hooks.resolve_extends_order")
    return RyeSemantics(
        name=str(g("name")),
        runtime=str(g("runtime")),
        description=str(g("description")),
        builtin_hooks=tuple(builtin),
        resolve_extends_order=(
            None if order == "layer" else _origins(order, "hooks.resolve_extends_order", name)
        ),
        context_order=_origins(g("hooks.context_order"), "hooks.context_order", name),
        item_kind_key=g("hooks.item_kind_key"),
        several_actions=g("hooks.actions") == "several",
        hook_conditions_merge=g("hooks.conditions_file") == "merged",
        default_item_kind=g("hooks.default_item_kind"),
        interpolate_content=bool(g("hooks.interpolate_content")),
        wrap_tag=g("hooks.wrap_tag"),
        wrap_type_from=g("hooks.wrap_type_from"),
        system_prompt_hooks=bool(g("hooks.system_prompt_hooks")),
        suppress_hooks=bool(g("hooks.suppress_hooks")),
        fetch_whole_file=bool(g("hooks.fetch_whole_file")),
        hook_inputs_defaults=g("hooks.inputs") == "with_defaults",
        ryeos_conditions=g("hooks.conditions") == "ryeos",
        frontmatter_loads=g("knowledge.frontmatter") == "metadata",
        inherit=g("permissions.inherit"),
        unparsable_base=g("extends.unparsable_base"),
        slashes_to_dots=g("permissions.slashes") == "dots",
        permissions_prompt=g("prompt.permissions"),
        ryeos_placeholders=g("prompt.placeholders") == "ryeos",
        ryeos_outputs=g("prompt.outputs") == "ryeos",
        primaries_charged=bool(g("palette.primaries_charged")),
        no_permissions_primaries=g("palette.no_permissions") == "primaries",
        primary_ids=tuple(str(t) for t in g("palette.primary_ids")),
        narrow_primary_description=bool(g("palette.narrow_primary_description")),
        rglob_tools=g("palette.tool_search") == "rglob",
        return_when_disabled=bool(g("palette.return_when_disabled")),
        execute_wrapper_types=frozenset(g("palette.execute_wrapper_types")),
        broad_execute_grants_tools=bool(g("palette.broad_execute_grants_tools")),
        size=g("palette.size"),
        refusals=bool(g("refusals")),
        system_prompt_when_empty=bool(g("events.system_prompt_when_empty")),
        system_layers=g("events.system_layers"),
        context_injected=g("events.context_injected"),
    )


def names() -> list[str]:
    return sorted(p.stem for p in BUNDLED.glob("*.yaml"))


@cache
def load(name: str = DEFAULT) -> RyeSemantics:
    """A bundled Rye profile by name; RyeProfileError names the known ones."""
    path = BUNDLED / f"{name}.yaml"
    if not path.is_file():
        raise RyeProfileError(f"unknown Rye profile {name!r} (known: {', '.join(names())})")
    return parse_profile(load_yaml(path.read_text(encoding="utf-8")), name)
