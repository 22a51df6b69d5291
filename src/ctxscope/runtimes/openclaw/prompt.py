"""Assemble one session's system prompt from a profile, the workspace, the config and the
scenario, section by section, with sizes and provenance."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import field
from pathlib import Path
from typing import Any

from ctxscope.core.model import (
    FileEntry,
    Marker,
    Section,
    Session,
    SessionTokens,
    SkillEntry,
)
from ctxscope.core.record import record
from ctxscope.core.tokens import Tokenizer, estimate_tokens
from ctxscope.infra.paths import openclaw_state_dir
from ctxscope.infra.snapshot import Snapshot
from ctxscope.runtimes.openclaw.bootstrap import BootstrapResult, build_bootstrap
from ctxscope.runtimes.openclaw.config import GatewayConfig, int_setting
from ctxscope.runtimes.openclaw.firstrun import NONE as NO_FIRST_RUN
from ctxscope.runtimes.openclaw.firstrun import FirstRun, first_run
from ctxscope.runtimes.openclaw.hooks import bootstrap_hooks, extra_file_patterns
from ctxscope.runtimes.openclaw.promptcontext import Absent, PromptContext, RuntimeText, placeholder
from ctxscope.runtimes.openclaw.runtimeskills import custodian_owner, gate, installed_skills
from ctxscope.runtimes.openclaw.sections import GENERATORS, project_context_sections
from ctxscope.runtimes.openclaw.sessionkeys import SessionInfo, delegation_mode
from ctxscope.runtimes.openclaw.skillbudget import Entry, Fitted
from ctxscope.runtimes.openclaw.skillcatalog import fit_catalog, runtime_entry
from ctxscope.runtimes.openclaw.skills import Skill, discover_skills, select_skills
from ctxscope.runtimes.openclaw.subagent import SubagentInfo, task_message
from ctxscope.runtimes.openclaw.toolcatalog import catalog_for
from ctxscope.runtimes.openclaw.versions import package_version, parse_version
from ctxscope.runtimes.profiles import Profile, SectionSpec

DEFAULT_CONTEXT_TOKENS = 200_000


@record
class SessionRequest:
    """Everything that varies between two sessions of one build."""

    info: SessionInfo
    workspace: Path
    tools: list[str]
    model: str | None = None
    thinking: str | None = None
    channel: str | None = None
    timezone: str | None = None
    subagent: SubagentInfo | None = None
    context_tokens: int | None = None
    setup_completed: bool = False
    removed_tools: dict[str, str] = field(default_factory=dict)
    """Scenario tools the config's tool policy takes away (tool -> rule)."""
    package: str = ""
    """The installed `openclaw` package folder, when known (its `docs/` folder)."""
    first_run: bool = True
    """Show what the runtime writes before its first run (off: the folder as it is, as
    exact mode asks the runtime)."""
    deferred: frozenset[str] = frozenset()
    """Tools of `tools` that Tool Search defers (listed in the Tooling section's deferred
    list)."""
    env: Mapping[str, str] = field(default_factory=dict, compare=False, repr=False)
    """The environment the session is built in (the inputs'; none: no variable set): a
    skill's required variables, the host's time zone, OpenClaw's state folder."""


def budget_limits(
    profile: Profile, config: GatewayConfig, agent_id: str | None = None
) -> tuple[int | None, int | None]:
    """Per-file and total bootstrap limits: the config's values where the profile truncates
    (the agent's own, where the version reads per-agent limits)."""
    per_file = profile.max_chars
    total = profile.total_max_chars
    agent = config.agent(agent_id) if agent_id and profile.per_agent_limits else None
    if per_file is not None:
        per_file = _agent_limit(agent, "bootstrapMaxChars") or int_setting(
            config, "bootstrapMaxChars", per_file
        )
    if total is not None:
        total = _agent_limit(agent, "bootstrapTotalMaxChars") or int_setting(
            config, "bootstrapTotalMaxChars", total
        )
    return per_file, total


def _agent_limit(agent: dict[str, Any] | None, key: str) -> int | None:
    """An agent's own limit when it is a positive finite number (floored), else None."""
    value = (agent or {}).get(key)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return int(value) if math.isfinite(value) and value > 0 else None


def installed_is_release(package: str, profile: Profile) -> bool:
    """Whether the installed `package` is the release (year.month) `profile` models: only
    then are its skills the ones the session gets."""
    if not package:
        return False
    version = package_version(Path(package))
    wanted = parse_version(profile.version)
    return version is not None and wanted is not None and version[:2] == wanted[:2]


def runtime_skills(
    profile: Profile,
    config: GatewayConfig,
    agent_id: str,
    workspace: list[Skill],
    package: str,
    env: Mapping[str, str],
) -> list[Entry]:
    """The `<skill>` entry (by its sizes) of each skill bundled with the runtime or its
    default plugins that the session's catalog holds: not shadowed by a workspace skill of
    the same name, and passing the same `skills` allowlist. Read from the installed `package`
    when there is one (gated as the runtime gates them on this machine), else the release's
    measured facts stand in."""
    catalog = catalog_for(profile)
    if catalog is None:
        return []
    own = {s.name for s in workspace}
    listed = (
        installed_skills(Path(package), catalog, config, env)
        if installed_is_release(package, profile)
        else catalog.skills
    )
    owner = custodian_owner(config)
    facts = {
        k.name: k for k in listed if k.name not in own and (not k.custodian or agent_id == owner)
    }
    stand_ins = [Skill(name, "runtime skill", "") for name in facts]
    kept, _, _ = select_skills(
        stand_ins,
        config.agent(agent_id) or {},
        config.defaults,
        use_defaults=bool(profile.config_rules.get("skills_defaults")),
    )
    state = str(openclaw_state_dir(env))
    return [runtime_entry(facts[s.name], package, state) for s in kept]


def docs_folder(workspace: Path, package: str, profile: Profile) -> tuple[str | None, bool]:
    """The local docs folder the runtime names, and whether it is a stand-in: the
    workspace's `docs/`, else the installed package's, where the version finds it usable
    (2026.2: it exists; 2026.9: it holds a `docs.json`). With no install known, the profile's
    stand-in for the runtime's own package (every release ships its docs)."""
    spec = next((s for s in profile.sections if s.kind == "documentation"), None)
    need = spec.docs_file if spec is not None else "docs.json"

    def usable(folder: Path) -> bool:
        return (folder / need).exists() if need else folder.exists()

    if usable(workspace / "docs"):
        return str(workspace / "docs"), False
    if package:
        docs = Path(package) / "docs"
        return (str(docs), False) if usable(docs) else (None, False)
    if spec is not None and spec.docs_stand_in:
        return spec.docs_stand_in, True
    return None, False


def bootstrap_mode(
    info: SessionInfo, workspace: Path, setup_completed: bool, seeded: bool = False
) -> str:
    """`completed` when the scenario says workspace setup is done (the runtime records that
    outside the workspace); else `full` while it is pending (BOOTSTRAP.md exists, or the
    first run writes it: `seeded`) in a primary interactive session; `none` for cron and
    subagent runs and when nothing is pending."""
    if setup_completed:
        return "completed"
    if not seeded and not (workspace / "BOOTSTRAP.md").is_file():
        return "none"
    return "none" if info.kind in ("cron", "subagent") else "full"


@record
class _SkillCatalog:
    """The skills a session's catalog is made from, and what came of each."""

    found: list[Skill]
    """Every skill in the workspace."""
    gated: dict[str, str]
    """Skills the runtime leaves out on this machine, with why."""
    kept: list[Skill]
    """The skills the allowlist lets through."""
    rule: str
    """The rule that lets them through."""
    where: str
    """Whose `skills` allowlist decided (`agent` or `agents.defaults`)."""
    runtime: list[Entry]
    """The runtime's own skills in the catalog."""
    fitted: Fitted | None
    """The catalog fitted to the release's limits (None: the release sets none)."""


def build_session(
    req: SessionRequest,
    profile: Profile,
    config: GatewayConfig,
    snapshot: Snapshot,
    tokenizer: Tokenizer,
) -> Session:
    """The session `req` asks for: its system prompt section by section, its files and
    skills and what came of each, its token counts."""
    info = req.info
    seed = _first_run(req, profile, config, snapshot)
    seeded = "BOOTSTRAP.md" in seed.templates or "BOOTSTRAP.md" in seed.measured
    mode = (
        bootstrap_mode(info, req.workspace, req.setup_completed, seeded)
        if profile.setup_files
        else ""
    )
    boot = _bootstrap(req, profile, config, snapshot, mode, seed)
    diagnostics = [*boot.diagnostics, *seed.notes(profile.runtime_name, str(req.workspace))]
    files = boot.files
    if info.mode == "none":
        files = [_not_in_mode_none(f) for f in files]
    found, skill_diags = discover_skills(req.workspace, snapshot)
    diagnostics.extend(skill_diags)
    diagnostics.extend(bootstrap_hooks(req.workspace, config.data, snapshot))
    window = req.context_tokens or int_setting(config, "contextTokens", DEFAULT_CONTEXT_TOKENS)
    catalog = _skill_catalog(req, profile, config, found, window)
    ctx = _prompt_context(req, profile, config, files, catalog, mode, repo=seed.git_init)
    sections, absent = _prompt_sections(ctx, tokenizer)
    task, task_markers = task_message(profile, req.subagent) if req.subagent else (None, [])
    shown = any(s.id == "skills" for s in sections)
    system_tokens = sum(s.tokens for s in sections)
    task_tokens = tokenizer.count(task) if task else 0
    return Session(
        session_key=info.key,
        agent_id=info.agent_id,
        kind=info.kind,
        prompt_mode=info.mode,
        profile=profile.name,
        workspace=str(req.workspace),
        system_prompt=profile.separator.join(s.text for s in sections),
        sections=sections,
        files=files,
        tokens=SessionTokens(system_tokens, task_tokens, system_tokens + task_tokens),
        context_window=window,
        task_message=task,
        model=req.model,
        tokenizer=tokenizer.label,
        diagnostics=diagnostics,
        kind_rule=info.rule,
        absent_sections=absent,
        skills=_skill_entries(catalog, shown),
        task_markers=task_markers,
        removed_tools=dict(req.removed_tools),
        request=req,
        runtime_skill_chars=_runtime_skill_chars(ctx) if shown else 0,
    )


def _first_run(
    req: SessionRequest, profile: Profile, config: GatewayConfig, snapshot: Snapshot
) -> FirstRun:
    """What the runtime writes into the workspace before its first run (nothing when the
    request shows the folder as it is)."""
    if not req.first_run:
        return NO_FIRST_RUN
    return first_run(
        req.workspace,
        profile,
        config,
        req.package,
        snapshot,
        setup_completed=req.setup_completed,
    )


def _bootstrap(
    req: SessionRequest,
    profile: Profile,
    config: GatewayConfig,
    snapshot: Snapshot,
    mode: str,
    seed: FirstRun,
) -> BootstrapResult:
    """The session's bootstrap files under its limits, with what the first run writes."""
    info = req.info
    per_file, total = budget_limits(profile, config, info.agent_id)
    return build_bootstrap(
        req.workspace,
        profile,
        snapshot,
        session_kind=info.kind,
        max_chars=per_file,
        total_max_chars=total,
        chat_type=info.chat_type,
        bootstrap_mode=mode,
        extra_patterns=(
            extra_file_patterns(config.data)
            if profile.config_rules.get("extra_files_hook")
            else None
        ),
        templates=seed.templates,
        stand_ins=(seed.release, seed.measured),
    )


def _skill_catalog(
    req: SessionRequest, profile: Profile, config: GatewayConfig, found: list[Skill], window: int
) -> _SkillCatalog:
    """The workspace's skills the runtime keeps on this machine and the allowlist lets
    through, with the runtime's own, fitted to the release's limits."""
    agent_id = req.info.agent_id
    gated = {
        s.name: why
        for s in found
        if s.requires and (why := gate(s.name, json.loads(s.requires), config, req.env))
    }
    kept, rule, where = select_skills(
        [s for s in found if s.name not in gated],
        config.agent(agent_id) or {},
        config.defaults,
        use_defaults=bool(profile.config_rules.get("skills_defaults")),
    )
    runtime = runtime_skills(profile, config, agent_id, found, req.package, req.env)
    fitted = (
        fit_catalog(profile.skills_budget, config, agent_id, kept, runtime, window)
        if profile.skills_budget is not None
        else None
    )
    return _SkillCatalog(found, gated, kept, rule, where, runtime, fitted)


def _prompt_context(
    req: SessionRequest,
    profile: Profile,
    config: GatewayConfig,
    files: list[FileEntry],
    catalog: _SkillCatalog,
    mode: str,
    *,
    repo: bool,
) -> PromptContext:
    """What the section generators read (`repo`: the first run makes the workspace a git
    repository)."""
    info = req.info
    docs = docs_folder(req.workspace, req.package, profile)
    return PromptContext(
        profile=profile,
        info=info,
        workspace=req.workspace,
        config=config,
        tools=req.tools,
        files=files,
        skills=catalog.kept,
        skills_rule=catalog.rule,
        runtime_skills=catalog.runtime,
        skills_fit=catalog.fitted,
        package=req.package if installed_is_release(req.package, profile) else "",
        model=req.model,
        thinking=req.thinking,
        channel=req.channel,
        timezone=req.timezone,
        subagent=req.subagent,
        bootstrap_mode=mode,
        removed_tools=req.removed_tools,
        deferred=req.deferred,
        docs_folder=docs[0],
        docs_stand_in=docs[1],
        delegation=delegation_mode(
            config.data, config.agent(info.agent_id) or {}, info.agent_id, info.key
        ),
        repo_root=str(req.workspace) if repo else None,
        env=req.env,
    )


def _prompt_sections(
    ctx: PromptContext, tokenizer: Tokenizer
) -> tuple[list[Section], dict[str, str]]:
    """The system prompt's sections, counted (the identity line, then, unless the prompt
    mode is `none`, the profile's sections that apply), and why the others are absent."""
    profile, mode = ctx.profile, ctx.info.mode
    sections = [
        Section(
            "identity",
            "",
            profile.identity[mode],
            f"profile:{profile.name}",
            f"the {mode}-mode identity line of profile {profile.name}",
        )
    ]
    absent: dict[str, str] = {}
    if mode != "none":
        sections += _sections(ctx, absent)
    for sec in sections:
        sec.tokens = estimate_tokens(sec.chars) if sec.placeholder else tokenizer.count(sec.text)
    return sections, absent


def _skill_entries(catalog: _SkillCatalog, shown: bool) -> list[SkillEntry]:
    """Each workspace skill, whether the prompt lists it (`shown`: it has a skills
    section) and why."""
    fitted = catalog.fitted
    kept = {s.name for s in catalog.kept}
    listed = kept if fitted is None else {e.name for e in fitted.kept}
    return [
        SkillEntry(
            s.name, s.path, shown and s.name in listed, _skill_reason(s, catalog, kept, listed)
        )
        for s in catalog.found
    ]


def _skill_reason(skill: Skill, catalog: _SkillCatalog, kept: set[str], listed: set[str]) -> str:
    """Why a workspace skill is listed in the catalog or not (`kept`: by the allowlist;
    `listed`: in the fitted catalog)."""
    if skill.name in kept:
        if catalog.fitted is not None and skill.name not in listed:
            return f"cut by the skills budget: {catalog.fitted.reason}"
        return catalog.rule
    if skill.name in catalog.gated:
        return f"the runtime leaves it out on this machine: {catalog.gated[skill.name]}"
    if not skill.description:
        return "no description in its frontmatter: the runtime does not list it"
    return f"filtered out by the {catalog.where}'s `skills` allowlist"


def _runtime_skill_chars(ctx: PromptContext) -> int:
    """Chars the runtime's own skills take in the catalog, each with its line break."""
    fitted = ctx.skills_fit
    if fitted is None:
        return sum(1 + e.chars(None) for e in ctx.runtime_skills)
    return sum(1 + e.chars(fitted.describe) for e in fitted.kept if e.runtime)


def _sections(ctx: PromptContext, absent: dict[str, str]) -> list[Section]:
    """The profile's sections that apply; `absent` collects why the others added nothing."""
    out: list[Section] = []
    for spec in ctx.profile.sections:
        if not spec.applies(ctx.info.mode, ctx.info.kind):
            continue
        gated = spec.missing_tools(ctx.info.mode, ctx.tools)
        if gated is not None:
            absent[spec.id] = gated
            continue
        if spec.kind == "project_context":
            files = project_context_sections(ctx, spec)
            if isinstance(files, Absent):
                absent[spec.id] = files.reason
            else:
                out += files
            continue
        if spec.kind == "runtime":
            size = spec.size(
                ctx.tools,
                ctx.channel,
                suggest=ctx.delegation == "suggest",
                chat=ctx.info.chat_type,
            )
            out.append(_runtime_text(ctx, spec, size, None))
            continue
        made = GENERATORS[spec.kind](ctx, spec)
        if isinstance(made, Absent):
            absent[spec.id] = made.reason
            continue
        if isinstance(made, RuntimeText):
            out.append(_runtime_text(ctx, spec, made.chars, made.rule, made.stand_in))
            continue
        body, source, rule = made
        out.append(Section(spec.id, spec.heading, f"{spec.heading}\n{body}", source, rule))
    return out


def _runtime_text(
    ctx: PromptContext, spec: SectionSpec, chars: int, rule: str | None, stand_in: str = ""
) -> Section:
    """A section whose text is the runtime's own: a placeholder of its measured size (with
    ctxscope's summary of what it carries, when there is one)."""
    body = placeholder(spec, ctx.profile, chars, summary=bool(stand_in))
    if stand_in:
        body = f"{body}\n{stand_in}"
    text = f"{spec.heading}\n{body}" if spec.heading else body
    return Section(
        spec.id,
        spec.heading,
        text,
        "runtime",
        rule or f"runtime boilerplate in {'/'.join(spec.modes)} mode",
        placeholder=True,
        typical_chars=chars,
        markers=[Marker(len(text) - len(body), len(text), "placeholder")],
    )


def _not_in_mode_none(entry: FileEntry) -> FileEntry:
    if entry.status in ("excluded", "not-injected", "empty"):
        return entry
    return FileEntry(
        entry.name,
        entry.path,
        "excluded",
        entry.raw_chars,
        0,
        "prompt mode none: only the identity line is sent",
    )
