"""One section a profile names (`SectionSpec`): its kind, heading, modes, sizes and texts."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import field

from ctxscope.core.record import record

SECTION_KINDS = {
    "tooling",
    "runtime",
    "skills",
    "memory_recall",
    "model_aliases",
    "workspace",
    "directory_roles",
    "project_memory",
    "sandbox",
    "user_identity",
    "current_time",
    "voice",
    "subagent_context",
    "project_context",
    "runtime_line",
    "task",
    "bootstrap_pending",
    "bootstrap_notice",
    "documentation",
    "delegation",
    "role_prompt",
    "context_status",
    "heartbeats",
}


MODES = ("full", "minimal", "none")


@record(frozen=True)
class SectionSpec:
    """One section of the system prompt as a profile declares it: heading, kind, the prompt
    modes that show it and what its size depends on."""

    id: str
    heading: str
    kind: str
    modes: tuple[str, ...]
    kinds: tuple[str, ...] | None = None
    typical_chars: int = 0
    fields: tuple[str, ...] = ()
    when_tools: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Per prompt mode, the tools one of which the session must have for the section to
    appear (`"*"`: any tool). Modes not named here have no such condition."""
    fallback_chars: int = 0
    """For `tooling`: the size of the runtime's own default tool list, used when the scenario
    lists no tools (0: the section says none are listed)."""
    tool_chars: dict[str, int] = field(default_factory=dict)
    """Chars a runtime section gains (or loses) when the session has a tool."""
    tool_lines: dict[str, int] = field(default_factory=dict)
    """For `tooling` shown as runtime text: each tool's line (`typical_chars` is the rest)."""
    deferred_lines: dict[str, int] = field(default_factory=dict)
    """For `tooling`: what a tool adds when Tool Search defers it (its entry in the deferred
    list in place of its line, plus any line it adds elsewhere in the section)."""
    line_pairs: dict[str, int] = field(default_factory=dict)
    """For `tooling`: `a+b` -> chars a tool's line gains when the other tool is listed too
    (both shown with their line, neither deferred)."""
    deferred_pairs: dict[str, int] = field(default_factory=dict)
    """For `tooling`: `a+b` -> chars `a`'s deferred entry gains when `b` is among the tools
    too (its description names the other tool)."""
    directory_chars: int = 0
    """For `tooling`: the deferred list's own lines (heading, intro and closing lines), sent
    when Tool Search defers a tool."""
    model_line_chars: int = 0
    """For `runtime_line`: the runtime's model identity line, without the model's name."""
    channel_chars: dict[str, int] = field(default_factory=dict)
    """Chars a runtime section gains (or loses) when the session's channel is one of these."""
    docs_chars: int = 0
    """For `documentation`: the size when the runtime knows a local docs folder (its path
    not counted); `typical_chars` is the size without one (0: no section then)."""
    docs_tool_chars: dict[str, int] = field(default_factory=dict)
    """For `documentation` with a local docs folder: what each tool adds."""
    default_model: str = ""
    """For `runtime_line`: the model the runtime runs when none is configured (its built-in
    default provider/model), named on the Runtime line."""
    docs_file: str = ""
    """For `documentation`: the file a `docs/` folder must hold for the runtime to name it
    (empty: the folder existing is enough)."""
    docs_stand_in: str = ""
    """For `documentation`: the docs folder assumed when no installed OpenClaw is found (the
    runtime names its own package's; its path's length is a stand-in)."""

    channel_tool_chars: dict[str, int] = field(default_factory=dict)
    """Tool -> chars the section gains when the session has the tool and a channel, plus
    twice the channel's name (the runtime names it twice)."""
    chat_chars: dict[str, int] = field(default_factory=dict)
    """Chat type (`group`, `channel`) -> chars the section gains in such a chat when the
    session has the message tool (the runtime delivers replies there through it)."""
    suggest_chars: int = 0
    """Chars the section gains when the runtime only suggests delegation (the session is
    not the agent's main one) and the session can spawn (`sessions_spawn`)."""
    tool_pairs: dict[str, int] = field(default_factory=dict)
    """`a+b` -> chars the section gains (or loses) when the session has both tools, beyond
    what each adds alone (the runtime merges their lines)."""

    heartbeat: dict[str, int] = field(default_factory=dict)
    """For `heartbeats`: the size of the runtime's default heartbeat prompt (`default`) and
    of what stands in its place for an agent that is not the default one (`other_agent`);
    `typical_chars` is the rest of the section."""
    file_chars: dict[str, int] = field(default_factory=dict)
    """Bootstrap file -> chars the section gains when the session loads that file (found,
    not filtered out for the session; it need not reach the prompt)."""

    def size(
        self,
        tools: Iterable[str],
        channel: str | None = None,
        *,
        suggest: bool = False,
        chat: str | None = None,
    ) -> int:
        """The runtime text's size for a session with `tools` on `channel` (measured one
        tool at a time, and pair by pair where two tools share a line); `suggest`: the
        runtime suggests delegation rather than preferring it."""
        name = (channel or "").strip().lower()
        have = set(tools)
        extra = self.channel_chars.get(name, 0)
        if name:
            extra += sum(c + 2 * len(name) for t, c in self.channel_tool_chars.items() if t in have)
        if suggest and "sessions_spawn" in have:
            extra += self.suggest_chars
        if chat and "message" in have:
            extra += self.chat_chars.get(chat, 0)
        return (
            self.typical_chars
            + extra
            + sum(self.tool_chars.get(t, 0) for t in have)
            + self.pairs_size(have)
        )

    def pairs_size(self, tools: set[str], pairs: dict[str, int] | None = None) -> int:
        """What the `tool_pairs` (or `pairs`) of which `tools` hold both add."""
        return sum(
            delta
            for pair, delta in (self.tool_pairs if pairs is None else pairs).items()
            if all(t in tools for t in pair.split("+"))
        )

    def applies(self, mode: str, session_kind: str) -> bool:
        """Whether the prompt mode and session kind get this section (tools aside)."""
        return mode in self.modes and (self.kinds is None or session_kind in self.kinds)

    def missing_tools(self, mode: str, tools: Iterable[str]) -> str | None:
        """Why `when_tools` keeps the section out of a session with `tools` (None: it does
        not)."""
        needed = self.when_tools.get(mode)
        tools = list(tools)
        if needed is None or (tools and ("*" in needed or any(t in needed for t in tools))):
            return None
        wanted = "a tool" if "*" in needed else " / ".join(needed)
        return f"{mode} mode shows it only with {wanted}"
