"""Assemble a GoClaw system prompt section by section, in the order the profile lists them
(GoClaw's builder, then what the gateway appends), with sizes and provenance.

A section whose text is GoClaw's own is a placeholder of the size measured on GoClaw's code
(`Profile.measured`), plus what depends on inputs (tool lines, the channel, the workspace
path, the user, the skills, the context status). Files, the role's prompt and the runtime
line are written out. Sizes are Unicode code points.
"""

from __future__ import annotations

import datetime
import platform
import socket
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import field
from pathlib import Path

from ctxscope.core.model import Diagnostic, Marker, Section, Session, SessionTokens, SkillEntry
from ctxscope.core.record import record
from ctxscope.core.tokens import Tokenizer, estimate_tokens, text_chars
from ctxscope.infra.snapshot import Snapshot
from ctxscope.runtimes.goclaw.skills import list_skills
from ctxscope.runtimes.goclaw.users import Role, Setup, User
from ctxscope.runtimes.goclaw.workspace import Loaded, load_files
from ctxscope.runtimes.openclaw.promptcontext import placeholder
from ctxscope.runtimes.profiles import Profile, SectionSpec

WHAT_IF = (
    "what-if: GoClaw's builder has a subagent mode that nothing in GoClaw calls (GoClaw does "
    "not spawn subagents)"
)


@record
class Request:
    """Everything one GoClaw prompt depends on besides the workspace files."""

    key: str
    workspace: Path
    tools: list[str]
    """The registered tools (GoClaw lists every one, whatever the user's role)."""
    user: User | None
    role: Role | None
    setup: Setup
    model: str | None = None
    channel: str | None = None
    subagent: bool = False
    context_tokens: int = 200_000
    used_tokens: int = 0
    media_root: str | None = None
    """The gateway's media folder (None: no media instructions, as in the subagent mode)."""
    time_in_prompt: bool = False
    skills_enabled: bool = True
    kind_rule: str = ""
    diagnostics: list[Diagnostic] = field(default_factory=list)
    today: datetime.date | None = None
    env: Mapping[str, str] = field(default_factory=dict, repr=False)
    """The environment the session decides with (the inputs'): a skill's required variables."""


@record
class _Build:
    req: Request
    profile: Profile
    snapshot: Snapshot
    loaded: Loaded
    diagnostics: list[Diagnostic]
    skills: list[SkillEntry] = field(default_factory=list)


def _sized(
    spec: SectionSpec, profile: Profile, size: int, rule: str, stand_in: str = ""
) -> Section:
    """A placeholder for GoClaw's own text of `size` code points (heading line included)."""
    body = placeholder(spec, profile, size, summary=bool(stand_in))
    if stand_in:
        body = f"{body}\n{stand_in}"
    text = f"{spec.heading}\n{body}" if spec.heading else body
    typical = size - len(spec.heading) - 1 if spec.heading else size
    return Section(
        spec.id,
        spec.heading,
        text,
        "runtime",
        rule,
        placeholder=True,
        typical_chars=typical,
        markers=[Marker(len(text) - len(body), len(text), "placeholder")],
    )


def _exact(spec_id: str, heading: str, text: str, source: str, rule: str) -> Section:
    sec = Section(spec_id, heading, text, source, rule)
    if text_chars(text) != len(text):
        sec.real_chars = len(text)  # GoClaw counts code points
    return sec


Made = Section | list[Section] | str
"""A generator's result: the section(s), or why the section is absent."""


def _m(b: _Build, name: str) -> int:
    return b.profile.measured.get(name, 0)


def _fixed(b: _Build, spec: SectionSpec) -> Made:
    if spec.id not in b.profile.measured:
        return f"profile {b.profile.name} has no measured size for {spec.id}"
    if spec.id.startswith("media_") and b.req.media_root is None:
        return "the gateway appends it to the prompts it sends (not to the builder's own)"
    size = _m(b, spec.id)
    rule, stand_in = "GoClaw's fixed text", ""
    if spec.id == "message_tool":
        rule = "the `message` tool is registered"
        if b.req.channel:
            size += _m(b, "message_tool_channel") + len(b.req.channel)
            stand_in = f"channel: {b.req.channel}"
    if spec.id == "media_storage":
        size += len(b.req.media_root or "")
        rule = "appended by the gateway, which always creates a media store"
        stand_in = f"media folder: {b.req.media_root}"
    return _sized(spec, b.profile, size, rule, stand_in)


def _tooling(b: _Build, spec: SectionSpec) -> Made:
    tools = sorted(b.req.tools)
    if not tools:
        return "no tools are registered"
    size = _m(b, "tooling") + sum(spec.tool_lines.get(t, 0) for t in tools)
    rule = "every registered tool, sorted by name (the role does not change the list)"
    return _sized(spec, b.profile, size, rule, "tools: " + ", ".join(tools))


def _workspace(b: _Build, spec: SectionSpec) -> Made:
    path = str(b.req.workspace)
    size = _m(b, "workspace") + len(path)
    return _sized(spec, b.profile, size, "GoClaw's working folder", f"folder: {path}")


def _user(b: _Build, spec: SectionSpec) -> Made:
    user = b.req.user
    if user is None:
        return "no user: GoClaw would not run the session"
    lines = [f"Name: {user.name}" if user.name else f"ID: {user.id}"]
    if user.role:
        lines.append(f"Role: {user.role}")
    role = user.role if user.role in ("owner", "user", "guest") else "other"
    size = len(spec.heading) + sum(1 + len(x) for x in lines) + _m(b, f"access_{role}")
    rule = f"{b.req.kind_rule}; access lines for role {user.role}"
    return _sized(spec, b.profile, size, rule, "; ".join(lines))


def _role_prompt(b: _Build, spec: SectionSpec) -> Made:
    role = b.req.role
    if role is None or not (role.system_prompt or role.system_prompt_file):
        return "the user's role has no systemPrompt or systemPromptFile"
    parts = []
    sources = []
    if role.system_prompt:
        parts.append(role.system_prompt.strip())
        sources.append(f"{role.source}.systemPrompt")
    if role.system_prompt_file:
        path = Path(role.system_prompt_file)
        path = path if role.system_prompt_file.startswith("/") else b.req.workspace / path
        fr = b.snapshot.read(path)
        if fr.exists:
            parts.append(fr.text.strip())
            sources.append(f"workspace:{fr.path}")
        else:
            why = fr.diagnostics[0].message if fr.diagnostics else "no such file"
            b.diagnostics.append(
                Diagnostic(
                    "warning",
                    f"role {role.name}'s systemPromptFile cannot be read ({why}): GoClaw "
                    "leaves it out",
                    fr.path,
                    code="goclaw-role-prompt",
                )
            )
    if not parts:
        return "the role's systemPromptFile cannot be read"
    text = f"{spec.heading}\n\n" + "\n\n".join(parts)
    return _exact(spec.id, spec.heading, text, sources[0], f"role {role.name}'s own prompt")


def _time(b: _Build, spec: SectionSpec) -> Made:
    if not b.req.time_in_prompt:
        return "promptCache.timeInSystemPrompt is off (GoClaw's default)"
    now = time.localtime()
    zone = time.strftime("%Z", now)
    lines = [
        f"Time zone: {zone}",
        f"Current time: {time.strftime('%Y-%m-%d %H:%M:%S', now)} {zone}",
        f"Day of week: {time.strftime('%A', now)}",
    ]
    size = len(spec.heading) + sum(1 + len(x) for x in lines)
    return _sized(spec, b.profile, size, "promptCache.timeInSystemPrompt is on", "; ".join(lines))


def _project(b: _Build, spec: SectionSpec) -> Made:
    loaded = b.loaded
    size = len(spec.heading) + 2 + _m(b, "project_intro") + 1
    rule = "the intro GoClaw puts before the files"
    if loaded.soul:
        size += _m(b, "soul_line") + 1
        rule += ", with its SOUL.md line (SOUL.md exists)"
    out = [_sized(spec, b.profile, size, rule)]
    for e in loaded.entries:
        if e.status == "injected":
            out.append(
                _exact(f"file:{e.name}", f"## {e.name}", e.body, f"workspace:{e.path}", e.reason)
            )
    return out


def _skills(b: _Build, spec: SectionSpec) -> Made:
    if not b.req.skills_enabled:
        return "skills.enabled is false: GoClaw has no skill manager"
    cfg = b.req.setup.get("skills", {})
    listed, entries, diags = list_skills(
        b.req.workspace,
        cfg if isinstance(cfg, dict) else {},
        b.req.role,
        b.snapshot,
        b.profile.skill_audit,
        b.req.env,
    )
    b.skills = entries
    b.diagnostics += diags
    has_tool = b.req.role is None or b.req.role.can_use_tool("skills")
    if not listed and not has_tool:
        return "no skill to list and the role may not use the skills tool"
    size = _m(b, "skills")
    if listed:
        size += _m(b, "skills_list") + sum(len(s.line()) + 1 for s in listed)
    if not has_tool:
        size += _m(b, "skills_without_tool")
    names = ", ".join(s.name for s in listed) or "none"
    tool = "with" if has_tool else "without"
    rule = f"the skills block, {tool} the skills tool's guidance"
    return _sized(spec, b.profile, size, rule, f"skills listed: {names}")


def _context(b: _Build, spec: SectionSpec) -> Made:
    used, window = b.req.used_tokens, b.req.context_tokens
    if window <= 0:
        return "no context window"
    percent = int(used / window * 100)
    status = f"[Context: {used // 1000}k/{window // 1000}k tokens ({percent}%)]"
    size = len(spec.heading) + 2 + len(status)
    warn = next((t for t in (90, 75, 50) if percent >= t), None)
    if warn is not None:
        size += 1 + _m(b, f"context_warning_{warn}")
    rule = "tokens used so far of the model's window (a fresh session: none)"
    return _sized(spec, b.profile, size, rule, status)


def host_os() -> str:
    """`os (arch)` as Go names them."""
    goos = {"darwin": "darwin", "win32": "windows"}.get(sys.platform, sys.platform)
    arch = platform.machine().lower()
    goarch = {"x86_64": "amd64", "aarch64": "arm64", "i686": "386", "i386": "386"}.get(arch, arch)
    return f"{goos.rstrip('0123456789')} ({goarch})"


def _runtime(b: _Build, spec: SectionSpec) -> Made:
    parts = []
    host = socket.gethostname()
    if host:
        parts.append(f"host={host}")
    parts.append(f"os={host_os()}")
    if b.req.model:
        parts.append(f"model={b.req.model}")
    if b.req.channel:
        parts.append(f"channel={b.req.channel}")
    parts.append(f"timezone={time.strftime('%Z')}")
    text = f"{spec.heading}\n\nRuntime: " + " | ".join(parts)
    rule = "this host's name, OS and time zone (the gateway passes no user time zone)"
    return _exact(spec.id, spec.heading, text, "runtime", rule)


GENERATORS: dict[str, Callable[[_Build, SectionSpec], Made]] = {
    "tooling": _tooling,
    "workspace": _workspace,
    "user_identity": _user,
    "role_prompt": _role_prompt,
    "current_time": _time,
    "project_context": _project,
    "skills": _skills,
    "context_status": _context,
    "runtime_line": _runtime,
    "runtime": _fixed,
}


def build_prompt(
    req: Request, profile: Profile, snapshot: Snapshot, tokenizer: Tokenizer
) -> Session:
    mode = "minimal" if req.subagent else "full"
    kind = "subagent" if req.subagent else _kind(req.key)
    loaded = load_files(
        req.workspace,
        profile,
        snapshot,
        full_memory=req.role is None or req.role.full_memory,
        subagent=req.subagent,
        today=req.today,
    )
    b = _Build(req, profile, snapshot, loaded, list(req.diagnostics) + loaded.diagnostics)
    ident = SectionSpec(id="identity", heading="", kind="runtime", modes=())
    sections = [
        _sized(ident, profile, _m(b, f"identity_{mode}"), f"GoClaw's {mode}-mode identity line")
    ]
    joins: list[str] = []
    absent: dict[str, str] = {}
    for spec in profile.sections:
        if not spec.applies(mode, "any"):
            absent.setdefault(spec.id, _not_in_mode(mode))
            continue
        gated = spec.missing_tools(mode, req.tools)
        if gated is not None:
            absent[spec.id] = f"no `{' / '.join(spec.when_tools[mode])}` tool registered"
            continue
        made = GENERATORS.get(spec.kind, _fixed)(b, spec)
        if isinstance(made, str):
            absent[spec.id] = made
            continue
        made = made if isinstance(made, list) else [made]
        for i, sec in enumerate(made):
            joins.append("\n" if i else "\n\n")
            sections.append(sec)
    for sec in sections:
        sec.tokens = estimate_tokens(sec.chars) if sec.placeholder else tokenizer.count(sec.text)
    prompt = sections[0].text + "".join(
        j + s.text for j, s in zip(joins, sections[1:], strict=True)
    )
    system = sum(s.tokens for s in sections)
    return Session(
        session_key=req.key,
        agent_id="main",
        kind=kind,  # type: ignore[arg-type]
        prompt_mode=mode,  # type: ignore[arg-type]
        profile=profile.name,
        workspace=str(req.workspace),
        system_prompt=prompt,
        sections=sections,
        files=loaded.entries,
        tokens=SessionTokens(system, 0, system),
        context_window=req.context_tokens,
        model=req.model,
        tokenizer=tokenizer.label,
        diagnostics=b.diagnostics,
        kind_rule=WHAT_IF if req.subagent else req.kind_rule,
        absent_sections=absent,
        skills=b.skills,
        request=req,
    )


def prompt_chars(session: Session) -> int:
    """The prompt's size as GoClaw sends it: its sections and the blank lines between them
    (one newline between the Project Context files)."""
    total = sum(s.chars for s in session.sections)
    files = sum(1 for s in session.sections if s.id.startswith("file:"))
    return total + 2 * (len(session.sections) - 1 - files) + files


def _kind(key: str) -> str:
    if key == "primary":
        return "main"
    if key.startswith("cron:"):
        return "cron"
    return "other"


def _not_in_mode(mode: str) -> str:
    if mode == "minimal":
        return "the builder's subagent mode leaves it out"
    return "only in the builder's subagent mode"
