"""Chain panel: the Rye directive's extends chain as a Tree.

The first lines name the Rye semantics in use and, when the runtime would not start the
thread, why. Each chain node (leaf first) shows its tier and its system/before/after/suppress
items; a knowledge item expands to its body. A "hooks" branch lists every hook of the thread
with why it fired or not, a "tools" branch the palette. Open nodes and the cursor survive
rebuilds (nodes are matched by a path key kept in their data).
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.strip import Strip
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from ctxscope.tui.safe import safe_text
from ctxscope.tui.widgets.common import color
from ctxscope.tui.widgets.frame_style import FrameStyled
from ctxscope.tui.widgets.scrollbars import LightScrollBars

NO_THREAD = "No directive in the scenario: set one with e (edit scenario)."
BUILDING = "The Rye thread is being built: a moment."

BODY_LINES = 40
POSITIONS = ("system", "before", "after", "suppress")


class ChainTree(FrameStyled, LightScrollBars, Tree[dict[str, Any]]):
    """The extends chain. Node data: {"key": path key, "kind": ..., "id": ...}."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("chain", id=id)
        self.show_root = False
        self.guide_depth = 3

    def process_label(self, label: str | Text) -> Text:
        """A label as it is (a string is text, not markup), made safe for the terminal."""
        return super().process_label(safe_text(Text(label) if isinstance(label, str) else label))

    def render_line(self, y: int) -> Strip:
        # Textual's Tree works the widget's style out for every line; this once per frame
        # (Textual is pinned: `_render_line` is stable).
        scroll_x, scroll_y = self.scroll_offset
        right = scroll_x + self.size.width
        return self._render_line(y + scroll_y, scroll_x, right, self.base_style)

    def _open_keys(self) -> set[str]:
        keys: set[str] = set()

        def walk(node: TreeNode[dict[str, Any]]) -> None:
            for child in node.children:
                if child.is_expanded and child.data:
                    keys.add(child.data["key"])
                walk(child)

        walk(self.root)
        return keys

    def show(self, thread: Any, *, pending: bool = False) -> None:
        """Rebuild the tree for `thread` (a Rye ThreadReport or None; `pending`: the
        scenario's thread is still being built)."""
        first = not self.root.children
        opened = self._open_keys()
        cursor = (
            self.cursor_node.data["key"] if self.cursor_node and self.cursor_node.data else None
        )
        self.clear()
        if thread is None:
            self.root.add_leaf(Text(BUILDING if pending else NO_THREAD))
            return
        self._fill(thread)
        target: TreeNode[dict[str, Any]] | None = None

        def restore(node: TreeNode[dict[str, Any]]) -> None:
            nonlocal target
            for child in node.children:
                key = child.data["key"] if child.data else None
                if key in opened or (first and child.data and child.data.get("open")):
                    child.expand()
                if key is not None and key == cursor:
                    target = child
                restore(child)

        restore(self.root)
        if target is not None:
            self.move_cursor(target, animate=False)

    def _fill(self, thread: Any) -> None:
        muted = color(self.app, "ctx-placeholder")
        bad = f"bold {color(self.app, 'ctx-missing')}"
        self._add_heading(thread, muted, bad)
        for depth, node in enumerate(thread.chain):
            self._add_directive(thread, node, depth, muted, bad)
        self._add_composed(thread, muted)
        self._add_hooks(thread, muted)
        self._add_tools(thread, muted)

    def _add_heading(self, thread: Any, muted: str, bad: str) -> None:
        """The semantics line, then why the runtime would not start the thread and what is
        wrong with the chain, if anything."""
        profile = thread.profile
        tier = "stand-in system tier" if thread.system_stand_in else "installed ryeos"
        sigs = (
            "dev mode: signatures reported, every item loads"
            if thread.dev_mode
            else "signatures verified (RYE_DEV_MODE=1 for dev mode)"
        )
        self.root.add_leaf(
            Text(f"semantics: {profile.name} ({profile.runtime}) · {tier} · {sigs}", style=muted),
            {"key": "semantics", "kind": "info"},
        )
        for n, why in enumerate(thread.refused):
            self.root.add_leaf(
                Text(f"⛔ {profile.runtime} would not start this thread: {why}", style=bad),
                {"key": f"refused/{n}", "kind": "error"},
            )
        if getattr(thread, "chain_error", None):
            self.root.add_leaf(
                Text(f"✗ {thread.chain_error}", style=bad), {"key": "error", "kind": "error"}
            )
        if not thread.chain and not getattr(thread, "chain_error", None):
            self.root.add_leaf(
                Text(f"✗ directive {thread.directive} not found", style=bad),
                {"key": "error", "kind": "error"},
            )

    def _add_directive(self, thread: Any, node: Any, depth: int, muted: str, bad: str) -> None:
        """A directive of the chain (the leaf open at first) with its items by position."""
        label = Text.assemble((node.id, "bold"), (f"  [{node.tier or '?'}]", muted))
        if node.extends:
            label.append(f"  extends {node.extends}", style=muted)
        if node.routed_by:
            label.append(f" (hook {node.routed_by})", style=muted)
        if node.tier and not node.signature.startswith(("signed (verified)", "stand-in")):
            label.append(f"  {node.signature}", style=bad)
        branch = self.root.add(
            label,
            {"key": f"chain/{node.id}", "kind": "directive", "id": node.id, "open": depth == 0},
        )
        for pos in POSITIONS:
            items = node.context.get(pos, [])
            pos_node = branch.add(
                Text(f"{pos} ({len(items)})", style=muted),
                {"key": f"chain/{node.id}/{pos}", "kind": "position", "open": bool(items)},
                allow_expand=bool(items),
            )
            for item_id in items:
                self._item(
                    pos_node,
                    thread,
                    item_id,
                    f"chain/{node.id}/{pos}/{item_id}",
                    suppress=pos == "suppress",
                )

    def _add_composed(self, thread: Any, muted: str) -> None:
        """The composed context: each position's items, with their status and rule."""
        composed = self.root.add(
            Text("composed context", style="bold"), {"key": "composed", "kind": "composed"}
        )
        for pos, items in thread.composed.items():
            pos_node = composed.add(
                Text(f"{pos} ({len(items)})", style=muted),
                {"key": f"composed/{pos}", "kind": "position"},
                allow_expand=bool(items),
            )
            for item in items:
                self._item(
                    pos_node,
                    thread,
                    item.item_id,
                    f"composed/{pos}/{item.item_id}",
                    status=item.status,
                    rule=item.rule,
                )

    def _add_hooks(self, thread: Any, muted: str) -> None:
        """Every hook of the thread, with why it applied or not."""
        decisions = thread.resolve_hooks + thread.system_hooks + thread.context_hooks
        fired = sum(1 for h in decisions if h.applied)
        hooks = self.root.add(
            Text(f"hooks ({fired} of {len(decisions)} applied)", style="bold"),
            {"key": "hooks", "kind": "hooks"},
            allow_expand=bool(decisions),
        )
        for h in decisions:
            mark = "✓" if h.applied else "✗"
            hooks.add_leaf(
                Text.assemble(f"{mark} {h.event} {h.id}", (f"  {h.reason}", muted)),
                {"key": f"hooks/{h.event}/{h.id}", "kind": "hook", "id": h.id},
            )

    def _add_tools(self, thread: Any, muted: str) -> None:
        """The tool palette: registered tools, then skipped ones, each with its reason."""
        pal = thread.palette
        tools = self.root.add(
            Text(
                f"tools ({len(pal.registered)} registered, "
                f"{len(pal.skipped)} skipped; {pal.used_tokens:,}/"
                f"{pal.budget_tokens:,} ≈tok)",
                style="bold",
            ),
            {"key": "tools", "kind": "tools"},
        )
        for tool in pal.registered + pal.skipped:
            mark = "✓" if tool.status == "registered" else "✗"
            tools.add_leaf(
                Text.assemble(f"{mark} {tool.api_name}", (f"  {tool.reason}", muted)),
                {"key": f"tools/{tool.id}", "kind": "tool", "id": tool.id},
            )

    def _item(
        self,
        parent: TreeNode[dict[str, Any]],
        thread: Any,
        item_id: str,
        key: str,
        *,
        suppress: bool = False,
        status: str | None = None,
        rule: str = "",
    ) -> None:
        muted = color(self.app, "ctx-placeholder")
        item = thread.knowledge.get(item_id)
        label = Text(item_id)
        if item is not None:
            label.append(f"  [{item.tier}]", style=muted)
        if status and status != "included":
            label.append(f"  {status}", style=f"bold {color(self.app, 'ctx-truncated')}")
        if rule:
            label.append(f"  {rule}", style=muted)
        data = {"key": key, "kind": "knowledge", "id": item_id}
        if suppress or item is None:
            parent.add_leaf(label, data)
            return
        node = parent.add(label, data)
        lines = item.body.splitlines() or [""]
        for n, line in enumerate(lines[:BODY_LINES]):
            node.add_leaf(
                Text(line or " ", style=muted),
                {"key": f"{key}#{n}", "kind": "knowledge-body", "id": item_id},
            )
        if len(lines) > BODY_LINES:
            node.add_leaf(
                Text(f"… {len(lines) - BODY_LINES} more lines", style=muted),
                {"key": f"{key}#more", "kind": "knowledge-body", "id": item_id},
            )
