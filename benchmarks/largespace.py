"""The large workspace, written for the benchmarks.

`write_rye`: a Rye space (2,000 knowledge items, 500 directives in 25 chains 20 deep,
`tools` tool files (5,000), 50 hooks) under root/.ai. `write_bootstrap`: eight 2 MiB
bootstrap files. `write_combined`: both in one folder, with a ctxscope.yaml whose scenario
names the deepest directive, so the app shows the sessions and the Rye thread together.
"""

from __future__ import annotations

from pathlib import Path

BOOTSTRAP = [
    "AGENTS.md",
    "SOUL.md",
    "TOOLS.md",
    "IDENTITY.md",
    "USER.md",
    "HEARTBEAT.md",
    "BOOTSTRAP.md",
    "MEMORY.md",
]
LINE = "Generated line of workspace text for the large benchmark.\n"
MARKER = "Bench marker"
"""AGENTS.md begins with `Bench marker 0000`: the terminal benchmark edits that number."""

N_KNOWLEDGE, N_CHAINS, DEPTH, N_TOOLS, N_HOOKS = 2000, 25, 20, 5000, 50


def write_rye(root: Path, tools: int = N_TOOLS) -> tuple[str, Path]:
    """Write the large space under root/.ai; return (a deepest leaf id, a knowledge file it
    injects)."""
    ai = root / ".ai"
    for i in range(N_KNOWLEDGE):
        p = ai / "knowledge" / "gen" / f"k{i % 40}" / f"item{i}.md"
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(
            f"```yaml\nname: item{i}\ntitle: Item {i}\n```\n\n"
            + f"Knowledge item {i}. " * 20
            + "\n"
        )
    for c in range(N_CHAINS):
        for level in range(DEPTH):
            did = f"gen/c{c}/d{level}"
            parent = (
                f' extends="gen/c{c}/d{level - 1}"' if level else ' extends="rye/agent/core/base"'
            )
            k = (c * DEPTH + level) % N_KNOWLEDGE
            ctx = (
                f"<before>gen/k{k % 40}/item{k}</before>"
                f"<after>gen/k{(k + 1) % 40}/item{k + 1}</after>"
            )
            if level == DEPTH - 1:
                ctx += "<suppress>rye/agent/core/protocol/sign</suppress>"
            perms = (
                (
                    "<permissions><execute><tool>gen.*</tool><tool>gen.ns0.tool0</tool>"
                    "</execute><fetch>*</fetch></permissions>"
                )
                if level == DEPTH - 1
                else ""
            )
            p = ai / "directives" / f"{did}.md"
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(
                f'# d\n\n```xml\n<directive name="d{level}" version="1"{parent}>\n'
                f"<metadata><description>level {level}</description>"
                f"<context>{ctx}</context>{perms}</metadata>\n</directive>\n```\n\n"
                "Do step one, then step two.\n"
            )
    for t in range(tools):
        p = ai / "tools" / "gen" / f"ns{t % 50}" / f"tool{t}.py"
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(
            f'__tool_description__ = "Generated tool {t}"\n'
            'CONFIG_SCHEMA = {"type": "object", "properties": '
            '{"a": {"type": "string"}, "b": {"type": "integer"}}, "required": ["a"]}\n'
            "def main():\n    return 1\n"
        )
    hooks = ["hooks:"]
    for h in range(N_HOOKS):
        event = "resolve_extends" if h % 2 else "thread_started"
        hooks += [
            f"  - id: h{h}",
            f"    event: {event}",
            f"    layer: {h % 4}",
            "    condition:",
            "      all:",
            f"        - {{path: directive, op: regex, value: '^gen/c{h}/'}}",
            f"        - {{path: inputs.env, op: in, value: [e{h}, x]}}",
            "    action: {set_extends: gen/c0/d0}"
            if h % 2
            else f"    action: {{item_type: knowledge, item_id: gen/k0/item{h}}}",
        ]
    cfg = ai / "config" / "agent" / "hooks.yaml"
    cfg.parent.mkdir(parents=True, exist_ok=True)
    cfg.write_text("\n".join(hooks) + "\n")
    leaf = f"gen/c3/d{DEPTH - 1}"
    k = 3 * DEPTH + DEPTH - 1
    return leaf, ai / "knowledge" / "gen" / f"k{k % 40}" / f"item{k}.md"


def marker_line(n: int) -> str:
    return f"{MARKER} {n:04d}"


def agents_text(n: int) -> str:
    """AGENTS.md of the large workspace, its first line `marker_line(n)`."""
    return marker_line(n) + "\n" + LINE * (2 * 1024 * 1024 // len(LINE) - 1)


def write_bootstrap(root: Path) -> None:
    root.mkdir(parents=True, exist_ok=True)
    body = LINE * (2 * 1024 * 1024 // len(LINE))
    for name in BOOTSTRAP:
        (root / name).write_text(agents_text(0) if name == "AGENTS.md" else body, encoding="utf-8")


def write_combined(root: Path, tools: int = N_TOOLS) -> tuple[str, Path]:
    """Both, with the scenario naming the deepest directive; returns what `write_rye` does."""
    write_bootstrap(root)
    leaf, knowledge = write_rye(root, tools)
    (root / "ctxscope.yaml").write_text(
        f"directive: {leaf}\ninputs:\n  env: bench\n", encoding="utf-8"
    )
    return leaf, knowledge
