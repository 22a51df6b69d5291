"""Section generators, one per section `kind` a profile can name.

Everything derived from the workspace, the config and the scenario is rendered for real;
runtime boilerplate (Safety, the CLI reference, ...) is a one-line placeholder naming the
section and its typical size, because that text belongs to the runtime, not to the user.
"""

from __future__ import annotations

import datetime as dt
import re
import zoneinfo
from collections.abc import Callable

from ctxscope.core.model import Marker, Section
from ctxscope.core.tokens import text_chars
from ctxscope.infra.snapshot import JS_WHITESPACE
from ctxscope.runtimes.openclaw.config import GatewayConfig
from ctxscope.runtimes.openclaw.places import (
    gen_directory_roles,
    gen_sandbox,
    gen_workspace,
)
from ctxscope.runtimes.openclaw.promptcontext import (
    Absent,
    Generated,
    PromptContext,
    RuntimeText,
)
from ctxscope.runtimes.openclaw.skillcatalog import skills_section
from ctxscope.runtimes.openclaw.subagent import context_size, subagent_context
from ctxscope.runtimes.openclaw.timezone import host_zone, valid_zone
from ctxscope.runtimes.profiles import Profile, SectionSpec

# One-line summaries of the runtime's core tools, in ctxscope's words.
TOOL_SUMMARIES = {
    "read": "read a file",
    "write": "create or overwrite a file",
    "edit": "edit part of a file",
    "apply_patch": "apply a multi-file patch",
    "grep": "search file contents",
    "find": "find files by name",
    "ls": "list a folder",
    "exec": "run a shell command",
    "process": "manage background processes",
    "web_search": "search the web",
    "web_fetch": "fetch a web page",
    "browser": "drive a web browser",
    "canvas": "show a canvas",
    "nodes": "use paired devices",
    "cron": "schedule jobs",
    "message": "send a message",
    "gateway": "control the gateway",
    "agents_list": "list agents",
    "sessions_list": "list sessions",
    "sessions_history": "read a session's history",
    "sessions_send": "send to another session",
    "sessions_spawn": "spawn a subagent",
    "session_status": "show session status",
    "image": "analyse an image",
    "memory_search": "search memory notes",
    "memory_get": "read a memory note",
    "tts": "speak text aloud",
}
MEMORY_TOOLS = ("memory_search", "memory_get")
_BLANK_RUNS = re.compile(r"\n{3,}")
_CRLF = re.compile("\r\n")


def gen_tooling(ctx: PromptContext, spec: SectionSpec) -> Generated:
    made = _tooling(ctx, spec)
    if ctx.removed_tools and not isinstance(made, Absent):
        gone = "; ".join(f"{t}: {why}" for t, why in ctx.removed_tools.items())
        if isinstance(made, RuntimeText):
            return RuntimeText(
                made.chars, f"{made.rule}; left out by tool policy: {gone}", made.stand_in
            )
        return made[0], made[1], f"{made[2]}; left out by tool policy: {gone}"
    return made


def _tooling(ctx: PromptContext, spec: SectionSpec) -> Generated:
    if not ctx.tools and spec.fallback_chars:
        return RuntimeText(
            spec.fallback_chars,
            "no tools in the scenario: the runtime lists its own default tools",
        )
    if spec.tool_lines and ctx.tools:
        return tool_list_size(ctx.tools, spec, ctx.deferred)
    if not ctx.tools:
        return (
            "Tool availability: none listed in the scenario.",
            "scenario:tools",
            "always present",
        )
    lines = ["Tool availability (filtered by policy):"]
    lines += [f"- {t}: {TOOL_SUMMARIES.get(t, 'tool')}" for t in ctx.tools]
    return "\n".join(lines), "scenario:tools", "always present; tools from the scenario"


def tool_list_size(
    tools: list[str], spec: SectionSpec, deferred: frozenset[str] = frozenset()
) -> RuntimeText:
    """The runtime's own tool list: its intro plus one measured line per tool (a tool the
    profile has no measure for counts as the median line, an estimate); a tool Tool Search
    defers counts as its entry in the deferred list, which adds its own lines."""
    known = sorted(spec.tool_lines.values())
    median = known[len(known) // 2] if known else 0
    names = list(dict.fromkeys(tools))
    later = [t for t in names if t in deferred and t in spec.deferred_lines]
    unknown = [t for t in names if t not in spec.tool_lines]
    size = spec.typical_chars + sum(
        spec.deferred_lines[t] if t in later else spec.tool_lines.get(t, median) for t in names
    )
    size += sum(spec.tool_chars.get(t, 0) for t in names)  # lines the tools add below
    shown = [t for t in names if t not in later]
    size += max(0, len(names) - 1) + spec.pairs_size(set(names))
    size += spec.pairs_size(set(shown), spec.line_pairs)
    size += sum(
        delta
        for pair, delta in spec.deferred_pairs.items()
        if pair.split("+")[0] in later and pair.split("+")[1] in names
    )
    if later:
        size += spec.directory_chars
    rule = f"the runtime's tool list for {', '.join(shown)}"
    if later:
        rule += f"; Tool Search defers {len(later)} more, listed by name and description"
    if unknown:
        rule += f" (size estimated for {', '.join(unknown)}: not measured)"
    listed = "\n".join(f"- {t}: {TOOL_SUMMARIES.get(t, 'tool')}" for t in shown)
    if later:
        listed += f"\n⟨deferred: {', '.join(later)}⟩"
    return RuntimeText(size, rule, listed)


def gen_skills(ctx: PromptContext, spec: SectionSpec) -> Generated:
    if not ctx.skills and not ctx.runtime_skills:
        return Absent(
            "no workspace skill (skills/*/SKILL.md) passed the agent's `skills` allowlist"
        )
    made = skills_section(ctx, spec.typical_chars)
    if isinstance(made, str):
        return Absent(made)
    text, chars, rule = made
    if not spec.typical_chars:
        return text, f"workspace:{ctx.workspace / 'skills'}", rule
    return RuntimeText(chars, rule, text)


def gen_memory_recall(ctx: PromptContext, spec: SectionSpec) -> Generated:
    listed = [t for t in MEMORY_TOOLS if t in ctx.tools]
    if not listed:
        return Absent("no memory tool (memory_search / memory_get) is listed in the scenario")
    summary = (
        "Before answering about past work, decisions, people or preferences, search "
        "MEMORY.md and memory/*.md with " + " and ".join(listed) + "; say so when nothing is found."
    )
    rule = f"memory tools listed ({', '.join(listed)})"
    if spec.typical_chars:  # the runtime's own text, measured
        return RuntimeText(spec.typical_chars, rule, summary)
    return summary, "scenario:tools", rule


def gen_model_aliases(ctx: PromptContext, spec: SectionSpec) -> Generated:
    models = ctx.config.defaults.get("models")
    if not isinstance(models, dict):
        return Absent("no alias is configured in agents.defaults.models")
    aliases = model_aliases(ctx.config)
    if not aliases:
        return Absent("no alias is configured in agents.defaults.models")
    lines = "\n".join(f"- {alias}: {model}" for alias, model in aliases)
    stand_in = f"Prefer these aliases when naming a model:\n{lines}"
    if spec.typical_chars:  # the runtime's own line above the list, measured
        return RuntimeText(
            spec.typical_chars + 1 + text_chars(lines), "model aliases configured", stand_in
        )
    return stand_in, "config:agents.defaults.models", "model aliases configured"


def model_aliases(config: GatewayConfig) -> list[tuple[str, str]]:
    """(alias, model) of each `agents.defaults.models` entry with an alias, ordered by alias
    as the runtime lists them."""
    models = config.defaults.get("models")
    if not isinstance(models, dict):
        return []
    found = [
        (v["alias"].strip(), str(k).strip())
        for k, v in models.items()
        if str(k).strip()
        and isinstance(v, dict)
        and isinstance(v.get("alias"), str)
        and v["alias"].strip()
    ]
    return sorted(found, key=lambda pair: (pair[0].casefold(), pair[0]))


def gen_user_identity(ctx: PromptContext, spec: SectionSpec) -> Generated:
    owners = ctx.config.get("commands.ownerAllowFrom")
    if not isinstance(owners, list) or not owners:
        return Absent("commands.ownerAllowFrom is not configured")
    return (
        "Messages from these senders come from your owner: " + ", ".join(str(o) for o in owners),
        "config:commands.ownerAllowFrom",
        "owner senders configured",
    )


def gen_current_time(ctx: PromptContext, spec: SectionSpec) -> Generated:
    configured = ctx.timezone or ctx.config.defaults.get("userTimezone")
    zone = valid_zone(configured)
    if zone is not None:
        source = "scenario:timezone" if ctx.timezone else "config:agents.defaults.userTimezone"
        rule = "always present"
    else:
        zone, source = host_zone(ctx.env.get("TZ", "")), "runtime"
        rule = (
            "always present; no valid userTimezone, so the runtime uses the gateway host's "
            f"time zone (ctxscope assumes this machine's: {zone})"
        )
    lines = [f"Time zone: {zone}"]
    if "date" in spec.fields:
        today = dt.datetime.now(zoneinfo.ZoneInfo(zone)).date().isoformat()
        lines.insert(0, f"Current date: {today}")
    body = "\n".join(lines)
    extra = sum(spec.tool_chars.get(t, 0) for t in set(ctx.tools))
    if extra:  # the runtime adds a line of its own for some tools
        return RuntimeText(text_chars(body) + extra, rule, body)
    return body, source, rule


def gen_voice(ctx: PromptContext, spec: SectionSpec) -> Generated:
    tts = ctx.config.get("messages.tts")
    if not isinstance(tts, dict) or tts.get("auto") in (None, False, "off"):
        return Absent("messages.tts.auto is not enabled")
    return (
        f"Replies may be spoken aloud (messages.tts.auto = {tts.get('auto')}).",
        "config:messages.tts",
        "text-to-speech enabled",
    )


def gen_documentation(ctx: PromptContext, spec: SectionSpec) -> Generated:
    tools = set(ctx.tools)
    extra = sum(spec.tool_chars.get(t, 0) for t in tools)
    if ctx.docs_folder and spec.docs_chars:
        docs = sum(spec.docs_tool_chars.get(t, 0) for t in tools)
        where = (
            f"the docs folder of its own install (no installed OpenClaw found: the path "
            f"{ctx.docs_folder} is a stand-in, its length moves the size)"
            if ctx.docs_stand_in
            else ctx.docs_folder
        )
        return RuntimeText(
            spec.docs_chars + docs + extra + text_chars(ctx.docs_folder),
            f"the runtime points at its local docs folder, {where}",
        )
    if not spec.typical_chars:
        return Absent("no local OpenClaw docs folder was found")
    return RuntimeText(spec.typical_chars + extra, "no local docs folder: the online docs")


def gen_heartbeats(ctx: PromptContext, spec: SectionSpec) -> Generated:
    """The heartbeat section: the default agent's sessions quote the heartbeat prompt
    (`agents.defaults.heartbeat.prompt`, trimmed, else the runtime's default); other agents
    get a placeholder word instead of the prompt."""
    if ctx.info.agent_id != ctx.config.default_agent_id():
        return RuntimeText(
            spec.typical_chars + spec.heartbeat.get("other_agent", 0),
            f"{ctx.info.agent_id} is not the default agent "
            f"({ctx.config.default_agent_id()}): the heartbeat prompt is not quoted",
        )
    raw = ctx.config.get("agents.defaults.heartbeat.prompt")
    custom = raw.strip(JS_WHITESPACE) if isinstance(raw, str) else ""
    if custom:
        return RuntimeText(
            spec.typical_chars + text_chars(custom),
            "the default agent: quotes agents.defaults.heartbeat.prompt",
            f"Heartbeat prompt: {custom}",
        )
    return RuntimeText(
        spec.typical_chars + spec.heartbeat.get("default", 0),
        "the default agent: quotes the runtime's default heartbeat prompt",
    )


def gen_delegation(ctx: PromptContext, spec: SectionSpec) -> Generated:
    if ctx.delegation != "prefer":
        return Absent(
            "the runtime only suggests delegation here (not the agent's main session, or "
            "subagents.delegationMode is not `prefer`)"
        )
    return RuntimeText(
        spec.size(ctx.tools, ctx.channel), "delegation preferred: the agent's main session"
    )


def gen_subagent_context(ctx: PromptContext, spec: SectionSpec) -> Generated:
    if ctx.subagent is None:
        return Absent("the session is not a spawned subagent")
    rule = "a spawned subagent: the spawn's extra system prompt"
    size = context_size(ctx.profile, ctx.subagent)
    if size is None:
        return subagent_context(ctx.subagent), "spawn", rule
    memory = project_memory_chars(ctx)
    if memory:  # the runner's project-memory instruction ends the block, after a blank line
        size += 3 + memory
        rule += "; the project-memory instruction of its git repository"
    return RuntimeText(
        size,
        f"{rule} (ctxscope's summary of it; the size is the runtime text's)",
        subagent_context(ctx.subagent, with_task=ctx.profile.context_has_task),
    )


def project_memory_chars(ctx: PromptContext) -> int:
    """The runner's instruction to key repository memory entries (2026.9, a profile with a
    `project_memory` section): its measured size plus the key, `path:<root>` escaped."""
    spec = next((s for s in ctx.profile.sections if s.kind == "project_memory"), None)
    if spec is None or not ctx.repo_root:
        return 0
    key = "path:" + ctx.repo_root.translate(_KEY_ESCAPES)
    return spec.typical_chars + text_chars(key)


_KEY_ESCAPES = str.maketrans(
    {"%": "%25", ";": "%3b", "<": "%3c", ">": "%3e", "\r": "%0d", "\n": "%0a"}
)


def gen_project_memory(ctx: PromptContext, spec: SectionSpec) -> Generated:
    chars = project_memory_chars(ctx)
    if not chars:
        return Absent("the session's folder is not a git repository ctxscope knows of")
    return RuntimeText(chars, "a git repository (its first run makes the new folder one)")


def gen_bootstrap_pending(ctx: PromptContext, spec: SectionSpec) -> Generated:
    if ctx.bootstrap_mode != "full":
        return Absent("workspace setup is not pending (no BOOTSTRAP.md, or setup_completed)")
    return RuntimeText(spec.typical_chars, "BOOTSTRAP.md exists: workspace setup is pending")


def gen_bootstrap_notice(ctx: PromptContext, spec: SectionSpec) -> Generated:
    # Cut or dropped by a budget; BOOTSTRAP.md counts only while it reaches the prompt.
    cut = [
        f.name
        for f in ctx.files
        if f.status == "truncated" and (f.name != "BOOTSTRAP.md" or ctx.bootstrap_mode == "full")
    ]
    if not cut:
        return Absent("no bootstrap file was truncated or dropped by a budget")
    return RuntimeText(spec.typical_chars, f"truncated: {', '.join(cut)}")


def gen_task(ctx: PromptContext, spec: SectionSpec) -> Generated:
    if ctx.subagent is None:
        return Absent("the session is not a spawned subagent")
    return ctx.subagent.task.strip(), "spawn:task", "the spawn's task"


def gen_runtime_line(ctx: PromptContext, spec: SectionSpec) -> Generated:
    # No model configured: the runtime runs (and names) its built-in default.
    model = ctx.model or spec.default_model or None
    defaulted = (
        f"; no model is configured: the runtime's default {model}"
        if model and not ctx.model
        else ""
    )
    primary = ctx.config.defaults.get("model")
    if isinstance(primary, dict):
        primary = primary.get("primary")
    values = {
        "agent": ctx.info.agent_id,
        "default_model": primary if isinstance(primary, str) else "",
        "model": model or "(default)",
        "channel": ctx.channel or "(none)",
        "thinking": ctx.thinking or "off",
        "session": ctx.info.key,
        "repo": ctx.repo_root or "",
    }
    fields = spec.fields or ("agent", "model", "channel", "thinking")
    if spec.typical_chars:
        # The version's line leaves out what it does not know, and has lines around it.
        values["model"], values["channel"] = model or "", ctx.channel or ""
        if ctx.channel:
            values["capabilities"] = "none"
        order = [g for f in fields for g in ((f, "capabilities") if f == "channel" else (f,))]
        shown = [f for f in order if values.get(f)]
        line = "Runtime: " + " | ".join(f"{f}={values[f]}" for f in shown)
        model_line = (
            spec.model_line_chars + text_chars(model) if model and spec.model_line_chars else 0
        )
        return RuntimeText(
            spec.typical_chars + model_line + text_chars(line),
            "always present; the gateway machine's host, os, node and shell fields are not "
            f"counted (ctxscope cannot know them){defaulted}",
            line,
        )
    line = " | ".join(f"{f}={values.get(f, '')}" for f in fields)
    return f"Runtime: {line}", "scenario+config", f"always present{defaulted}"


GENERATORS: dict[str, Callable[[PromptContext, SectionSpec], Generated]] = {
    "tooling": gen_tooling,
    "skills": gen_skills,
    "memory_recall": gen_memory_recall,
    "model_aliases": gen_model_aliases,
    "workspace": gen_workspace,
    "sandbox": gen_sandbox,
    "user_identity": gen_user_identity,
    "current_time": gen_current_time,
    "documentation": gen_documentation,
    "delegation": gen_delegation,
    "heartbeats": gen_heartbeats,
    "voice": gen_voice,
    "subagent_context": gen_subagent_context,
    "task": gen_task,
    "bootstrap_pending": gen_bootstrap_pending,
    "bootstrap_notice": gen_bootstrap_notice,
    "runtime_line": gen_runtime_line,
    "project_memory": gen_project_memory,
    "directory_roles": gen_directory_roles,
}


def project_context_sections(ctx: PromptContext, spec: SectionSpec) -> list[Section] | Absent:
    """`# Project Context` and one `## <path>` section per injected file (none when no file
    is left)."""
    injected = [f for f in ctx.files if f.body]
    if not injected:
        return Absent("no bootstrap file is left to inject")
    profile = ctx.profile
    lines = [("intro", profile.project_intro)] if profile.project_intro else []
    if ctx.info.mode in profile.soul_line_modes:
        names = {f.name for f in injected}
        lines += [(name, line) for name, line in profile.file_lines.items() if name in names]
    out = [_project_intro(profile, lines, len(injected))]
    for f in injected:
        heading = profile.file_heading.format(path=f.path, name=f.name)
        at = len(heading) + 1
        body, markers = f.body, f.markers
        for pattern in profile.prompt_strip:  # text the builder takes out of every file
            body, markers = substitute(body, markers, pattern, "")
        if profile.collapse_blank_lines and "\n\n\n" in body:
            body, markers = collapse_blank_lines(body, markers)
        if ctx.info.mode in profile.crlf_to_lf_modes and "\r\n" in body:
            body, markers = substitute(body, markers, _CRLF, "\n")
        out.append(
            Section(
                f"file:{f.name}",
                heading,
                f"{heading}\n{body}",
                f"workspace:{f.path}",
                f.reason,
                markers=[m.shifted(at) for m in markers],
                # A measured stand-in (a first-run template no install was found to read).
                placeholder=f.stand_in,
                typical_chars=f.injected_chars if f.stand_in else 0,
            )
        )
    return out


def _project_intro(profile: Profile, lines: list[tuple[str, str]], files: int) -> Section:
    """The `# Project Context` heading and the lines under it. Where the profile gives the
    runtime's own size of each line, the lines are ctxscope's words standing in for the
    runtime's (a placeholder of the real size)."""
    heading = profile.project_heading
    text = "\n".join([heading, *(line for _, line in lines)])
    rule = f"{files} file(s) injected"
    if not profile.line_chars:
        return Section("project_context", heading, text, "workspace", rule)
    size = sum(profile.line_chars.get(name, len(line)) + 1 for name, line in lines) - 1
    return Section(
        "project_context",
        heading,
        text,
        "runtime",
        f"{rule} (ctxscope's summary of the runtime's lines; the size is theirs)",
        placeholder=True,
        typical_chars=max(size, 0),
        markers=[Marker(len(heading) + 1, len(text), "placeholder")] if lines else [],
    )


def collapse_blank_lines(text: str, markers: list[Marker]) -> tuple[str, list[Marker]]:
    """Runs of 3+ newlines made 2, with the markers moved to where their text went."""
    return substitute(text, markers, _BLANK_RUNS, "\n\n")


def substitute(
    text: str, markers: list[Marker], pattern: re.Pattern[str], repl: str
) -> tuple[str, list[Marker]]:
    """Every match of `pattern` replaced by `repl` (a plain string), with the markers moved
    to where their text went."""
    removed: list[tuple[int, int]] = []  # (position in the old text, chars removed before it)
    total = 0
    for m in pattern.finditer(text):
        total += len(m.group()) - len(repl)
        removed.append((m.end(), total))
    if not removed:
        return text, markers

    def moved(pos: int) -> int:
        before = 0
        for end, count in removed:
            if end > pos:
                break
            before = count
        return max(0, pos - before)

    return pattern.sub(lambda _: repl, text), [
        Marker(moved(m.start), moved(m.end), m.kind) for m in markers
    ]
