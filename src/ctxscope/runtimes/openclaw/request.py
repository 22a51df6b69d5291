"""The whole request a session's model gets: the system prompt, the tools sent beside it and
the messages.

What the runtime adds to the prompt at run time (from the release's catalog facts, or an
installed package's): the tool schemas under the tool policy (Tool Search's visible tools and
the search tools, or the full catalog), the `[Wed 2026-11-25 23:59 UTC] ` prefix of every user
message, the `Runtime:` line moved from the prompt into the first user message by transports
that relocate it (`openai-completions`), and the internal-context user message that lists
active exec sessions and subagents.
"""

from __future__ import annotations

import dataclasses
import datetime
import platform
import re
import socket
import zoneinfo
from collections.abc import Mapping
from typing import Any

from ctxscope.core.model import Session, SessionTokens
from ctxscope.core.record import record
from ctxscope.core.tokens import Tokenizer, estimate_tokens, text_chars
from ctxscope.runtimes.openclaw.config import GatewayConfig, as_dict
from ctxscope.runtimes.openclaw.timezone import host_zone, valid_zone
from ctxscope.runtimes.openclaw.toolcatalog import Catalog, SessionTools

USER_WORDS = "⟨the user's message⟩"
"""Stands for a main session's own first message, which ctxscope cannot know (not counted)."""
SESSION_ID = "⟨session id⟩"
"""Stands for a session's id in the `Runtime:` line: a UUID, counted at its 36 chars."""
SESSION_ID_CHARS = 36
NODE = "⟨node⟩"
"""Stands for the gateway's Node version (`process.version`), which ctxscope does not run
Node to learn: counted at the length of the release's minimum Node (`v24.16.0`)."""
NODE_CHARS = len("v24.16.0")
_ARCH = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "i386": "ia32", "i686": "ia32"}


@record(frozen=True)
class RequestTool:
    """A tool sent beside the prompt, by size."""

    name: str
    description_chars: int
    schema_chars: int

    @property
    def chars(self) -> int:
        return len(self.name) + self.description_chars + self.schema_chars

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description_chars": self.description_chars,
            "schema_chars": self.schema_chars,
        }


@record(frozen=True)
class RequestMessage:
    """One message of the request before the model answers."""

    role: str
    kind: str
    """`task` (a subagent's first message), `user` (a main session's turn, its words not
    known), `internal-context`."""
    text: str
    """What ctxscope knows of it (empty for a message known only by its size)."""
    chars: int
    tokens: int
    estimate: bool = False
    """Counted by chars/4 from a measured size (no text)."""

    def to_dict(self) -> dict[str, Any]:
        return {"role": self.role, "kind": self.kind, "chars": self.chars, "tokens": self.tokens}


@record(frozen=True)
class RequestPlan:
    """What the runtime adds to one session's prompt, decided before the prompt's text."""

    tools: SessionTools | None
    catalog_source: str
    """Where the tools' sizes come from (`stand-in: …`, `installed …`, or why none)."""
    time_prefix: str
    runtime_line: str
    """The `Runtime:` line the transport moves into the first user message ("" when not)."""
    internal_context_chars: int
    transport_api: str
    separator_chars: int = 1
    """What joins the prompt's sections."""
    relocated_newlines: int = 0
    """Newlines that leave the prompt with the moved `Runtime:` line besides its own."""
    attempt_markers: tuple[tuple[str, int], ...] = ()
    """(where, chars) of the runner's attempt markers the sent prompt carries."""
    runtime_line_chars: int = 0
    """What the moved `Runtime:` line counts (its stand-ins at the length of what they stand
    for); 0: its text's length."""
    machine: tuple[tuple[str, int], ...] = ()
    """(field, chars) of the gateway machine's values the line counts (this machine's)."""

    @property
    def line_chars(self) -> int:
        return self.runtime_line_chars or text_chars(self.runtime_line)

    @property
    def attempt_chars(self) -> int:
        return sum(chars for _, chars in self.attempt_markers)


@record
class ModelRequest:
    """A session's whole request: system prompt, tools and messages, with sizes and tokens."""

    plan: RequestPlan
    system_prompt_chars: int
    system_tokens: int
    tools: tuple[RequestTool, ...]
    messages: tuple[RequestMessage, ...]
    tool_tokens: int
    relocated_line_tokens: int = 0

    @property
    def deferred(self) -> tuple[str, ...]:
        return self.plan.tools.deferred if self.plan.tools else ()

    @property
    def tool_search(self) -> bool | None:
        """On or off; None for a release without Tool Search (or tools not known)."""
        tools = self.plan.tools
        return tools.tool_search if tools and tools.searchable else None

    @property
    def stand_in(self) -> bool:
        return self.plan.catalog_source.startswith("stand-in")

    @property
    def tool_schema_chars(self) -> int:
        return sum(t.schema_chars for t in self.tools)

    @property
    def tool_chars(self) -> int:
        """Names, descriptions and schemas of the tools sent."""
        return sum(t.chars for t in self.tools)

    @property
    def message_chars(self) -> int:
        return sum(m.chars for m in self.messages)

    @property
    def message_tokens(self) -> int:
        return sum(m.tokens for m in self.messages)

    @property
    def total_chars(self) -> int:
        return self.system_prompt_chars + self.tool_chars + self.message_chars

    @property
    def tokens(self) -> int:
        return self.system_tokens + self.tool_tokens + self.message_tokens

    def to_dict(self) -> dict[str, Any]:
        return {
            "system_prompt_chars": self.system_prompt_chars,
            "tool_schema_chars": self.tool_schema_chars,
            "tool_search": self.tool_search,
            "tools": [t.to_dict() for t in self.tools],
            "deferred_tools": list(self.deferred),
            "tools_source": self.plan.catalog_source,
            "transport_api": self.plan.transport_api or None,
            "messages": [m.to_dict() for m in self.messages],
            "total_chars": self.total_chars,
            "tokens": self.tokens,
        }


def model_primary(value: object) -> str | None:
    """The primary model of a `model` setting (a string, or `{primary: ...}`)."""
    if isinstance(value, str) and value:
        return value
    if isinstance(value, dict) and isinstance(value.get("primary"), str):
        return str(value["primary"])
    return None


def transport_api(config: GatewayConfig, model: str | None) -> str:
    """The `api` of the model's provider in `models.providers` ("" when not configured)."""
    if not model or "/" not in model:
        return ""
    provider = model.split("/", 1)[0]
    entry = as_dict(as_dict(as_dict(config.data.get("models")).get("providers")).get(provider))
    api = entry.get("api")
    return api if isinstance(api, str) else ""


def time_prefix(zone_name: str | None, now: datetime.datetime | None = None, tz: str = "") -> str:
    """`[Wed 2026-11-25 23:59 UTC] ` in the user's time zone (without one, the host's:
    `tz`, the environment's `$TZ`, else the system's)."""
    zone = zoneinfo.ZoneInfo(valid_zone(zone_name) or host_zone(tz))
    moment = (now or datetime.datetime.now(datetime.UTC)).astimezone(zone)
    return f"[{moment.strftime('%a %Y-%m-%d %H:%M')} {zone_label(moment)}] "


US_ZONE_NAMES = frozenset(
    f"{zone}{kind}T" for zone in ("E", "C", "M", "P", "AK", "H") for kind in ("S", "D")
)
"""The zone names Node's `en-US` short format writes (the US ones); elsewhere it writes the
offset."""


def zone_label(moment: datetime.datetime) -> str:
    """The zone of `moment` as the runtime's `en-US` short format names it: `UTC`, a US
    zone's name (`EST`), else the offset from GMT (`GMT+9`, `GMT+5:30`, `GMT`)."""
    name = moment.tzname() or "UTC"
    if name == "UTC" or name in US_ZONE_NAMES:
        return name
    offset = moment.utcoffset() or datetime.timedelta()
    minutes = int(offset.total_seconds()) // 60
    if not minutes:
        return "GMT"
    sign, minutes = ("+" if minutes > 0 else "-"), abs(minutes)
    return f"GMT{sign}{minutes // 60}" + (f":{minutes % 60:02d}" if minutes % 60 else "")


_SHELL_VARS = (
    ("POWERSHELL_DISTRIBUTION_CHANNEL", "pwsh"),
    ("BASH_VERSION", "bash"),
    ("ZSH_VERSION", "zsh"),
    ("FISH_VERSION", "fish"),
    ("KSH_VERSION", "ksh"),
    ("NU_VERSION", "nu"),
    ("NUSHELL_VERSION", "nu"),
)


def _shell_name(value: str) -> str:
    base = value.strip().replace("\\", "/").rsplit("/", 1)[-1]
    return re.sub(r"[^a-zA-Z0-9_-]", "", re.sub(r"\.(exe|cmd|bat)$", "", base, flags=re.I))


def runtime_shell(env: Mapping[str, str]) -> str | None:
    """The shell the runtime names in its `Runtime:` line when it runs with `env`, or None
    when it names none and leaves the field out: `OPENCLAW_SHELL`, else `SHELL` unless it is
    `false`/`nologin`, else a shell's own version variable (OpenClaw 2026.9 on a POSIX
    host)."""
    override = _shell_name(env.get("OPENCLAW_SHELL", ""))
    if override:
        return override
    shell = env.get("SHELL", "").strip()
    if shell and shell.rsplit("/", 1)[-1] not in ("false", "nologin") and _shell_name(shell):
        return _shell_name(shell)
    return next((name for var, name in _SHELL_VARS if env.get(var)), None)


def machine_fields(env: Mapping[str, str]) -> dict[str, str]:
    """This machine's values of the `Runtime:` line's machine fields as the runtime writes
    them when its gateway runs here (in the environment `env`): `host` (the host name
    without `.local`), `os` (the system and its release, with the CPU architecture as Node
    names it), `shell` (when the runtime finds one, see `runtime_shell`); `node` is the
    `⟨node⟩` stand-in."""
    host = re.sub(r"\.local$", "", socket.gethostname().strip(), flags=re.I) or "openclaw"
    system = platform.system()
    if system == "Darwin":
        label = f"macOS {platform.mac_ver()[0]}"
    elif system == "Windows":
        label = f"Windows_NT {platform.version()}"
    else:
        label = f"{system} {platform.release()}"
    machine = platform.machine().lower()
    fields = {"host": host, "os": f"{label} ({_ARCH.get(machine, machine)})", "node": NODE}
    shell = runtime_shell(env)
    if shell:
        fields["shell"] = shell
    return fields


def runtime_line(
    session: Session, config: GatewayConfig, channel: str | None, env: Mapping[str, str]
) -> tuple[str, int, tuple[tuple[str, int], ...]]:
    """The full `Runtime:` line as the runtime writes it (OpenClaw 2026.9 field order) on this
    machine, the chars it counts, and (field, chars) of the machine's values in it. The
    session id and the Node version are stand-ins (`⟨session id⟩`, `⟨node⟩`) counted at the
    length of what they stand for."""
    default = model_primary(config.defaults.get("model"))
    machine = machine_fields(env)
    fields = [
        ("agent", session.agent_id),
        ("session", session.session_key),
        ("sessionId", SESSION_ID),
        ("host", machine["host"]),
        ("repo", _repo_in_prompt(session)),
        ("os", machine["os"]),
        ("node", machine["node"]),
        ("active_node", "unknown"),
        ("model", session.model or ""),
        ("default_model", default or ""),
        ("shell", machine.get("shell", "")),
        ("channel", channel or ""),
        ("capabilities", "none" if channel else ""),
    ]
    line = "Runtime: " + " | ".join(f"{k}={v}" for k, v in fields if v)
    chars = (
        text_chars(line) + SESSION_ID_CHARS - text_chars(SESSION_ID) + NODE_CHARS - text_chars(NODE)
    )
    counted = tuple((k, NODE_CHARS if k == "node" else text_chars(v)) for k, v in machine.items())
    return line, chars, counted


def plan_for(
    session: Session,
    catalog: Catalog | None,
    tools: SessionTools | None,
    config: GatewayConfig,
    *,
    channel: str | None,
    timezone: str | None,
    env: Mapping[str, str],
    separator: str = "\n",
) -> RequestPlan:
    """What the runtime adds to `session`'s prompt (nothing known without a catalog), as a
    gateway running in the environment `env` adds it."""
    api = transport_api(config, session.model)
    if catalog is None:
        return RequestPlan(
            None, "no tool catalog measured for this runtime", "", "", 0, api, len(separator)
        )
    zone = timezone or config.defaults.get("userTimezone")
    line, line_chars, machine = (
        runtime_line(session, config, channel, env)
        if api in catalog.relocating_apis
        else ("", 0, ())
    )
    return RequestPlan(
        tools,
        catalog.source,
        time_prefix(zone if isinstance(zone, str) else None, tz=env.get("TZ", ""))
        if catalog.time_prefix
        else "",
        line,
        catalog.internal_context_chars,
        api,
        len(separator),
        catalog.relocated_newlines,
        tuple(catalog.attempt_markers.items()) if session.prompt_mode != "none" else (),
        line_chars,
        machine,
    )


def _line_in_prompt(session: Session) -> str:
    """The `Runtime:` line of the session's prompt ("" when it has none)."""
    section = session.section("runtime")
    if section is None:
        return ""
    return next(
        (ln for ln in reversed(section.text.splitlines()) if ln.startswith("Runtime: ")), ""
    )


_REPO = re.compile(r"(?:^Runtime: |\| )repo=(.*?)(?= \| |$)")


def _repo_in_prompt(session: Session) -> str:
    """The git repository the prompt's own `Runtime:` line names ("" : none)."""
    found = _REPO.search(_line_in_prompt(session))
    return found.group(1) if found else ""


def build_request(session: Session, plan: RequestPlan, tokenizer: Tokenizer) -> ModelRequest:
    """`session`'s whole request under `plan`."""
    # The size the runtime sends: a placeholder counts as the real section it stands for.
    system_chars = sum(s.chars for s in session.sections) + plan.separator_chars * max(
        0, len(session.sections) - 1
    )
    # The runner's attempt markers around the stable and dynamic parts (measured; their few
    # tokens are left out of the token totals, which follow the prompt's sections).
    system_chars += plan.attempt_chars
    system_tokens = session.tokens.system
    moved_tokens = 0
    suffix = ""
    if plan.runtime_line:
        line = _line_in_prompt(session)
        if line:
            system_chars -= text_chars(line) + 1 + plan.relocated_newlines
            moved_tokens = tokenizer.count(line)
            system_tokens -= moved_tokens
        suffix = f"\n\n{plan.runtime_line}"
    # The line's stand-ins count at the length of what they stand for.
    stood_for = plan.line_chars - text_chars(plan.runtime_line) if plan.runtime_line else 0
    messages: list[RequestMessage] = []
    if session.task_message is not None:
        text = f"{plan.time_prefix}{session.task_message}{suffix}"
        messages.append(
            RequestMessage(
                "user", "task", text, text_chars(text) + stood_for, tokenizer.count(text)
            )
        )
    else:
        text = f"{plan.time_prefix}{USER_WORDS}{suffix}"
        known = text.replace(USER_WORDS, "")
        messages.append(
            RequestMessage(
                "user", "user", text, text_chars(known) + stood_for, tokenizer.count(known)
            )
        )
    if plan.internal_context_chars:
        chars = plan.internal_context_chars
        messages.append(
            RequestMessage("user", "internal-context", "", chars, estimate_tokens(chars), True)
        )
    tools = (
        tuple(RequestTool(t.name, desc, t.schema_chars) for t, desc in plan.tools.sent)
        if plan.tools
        else ()
    )
    tool_tokens = sum(estimate_tokens(t.chars) for t in tools)
    return ModelRequest(
        plan, system_chars, system_tokens, tools, tuple(messages), tool_tokens, moved_tokens
    )


def with_request(session: Session, plan: RequestPlan, tokenizer: Tokenizer) -> Session:
    """`session` carrying its whole request, its token totals counting all of it: the system
    prompt (the relocated `Runtime:` line still counted there), the tools and the messages."""
    request = build_request(session, plan, tokenizer)
    system = session.tokens.system
    task = session.tokens.task
    messages = request.message_tokens - request.relocated_line_tokens
    tokens = SessionTokens(
        system, task, system + request.tool_tokens + messages, request.tool_tokens, messages
    )
    return dataclasses.replace(session, wire=request, tokens=tokens)
