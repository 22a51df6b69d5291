"""Answers to "is ITEM there, and why?" over a build: for a bootstrap file, a memory note, a
prompt section, a skill, a tool, a context script, or a Rye item. Answers come from the
provenance the engine recorded, not from a second computation."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ctxscope.model import Explanation, Session
from ctxscope.openclaw.profiles import Profile
from ctxscope.openclaw.skills import discover_skills

if TYPE_CHECKING:
    from ctxscope.api import Inspector, Report

# What each conditional section needs, for the "absent" answer.
SECTION_INPUTS = {
    "skills": "no workspace skill (skills/*/SKILL.md) passed the agent's `skills` allowlist",
    "memory_recall": "no memory tool (memory_search / memory_get) is listed in the scenario",
    "model_aliases": "no alias is configured in agents.defaults.models",
    "sandbox": "sandbox mode is off or unset",
    "user_identity": "commands.ownerAllowFrom is not configured",
    "voice": "messages.tts.auto is not enabled",
    "subagent_context": "the session is not a spawned subagent",
    "task": "the session is not a spawned subagent",
    "project_context": "no bootstrap file is left to inject",
}


def sessions_of(report: Report) -> list[Session]:
    return [report.requester] + ([report.child] if report.child else [])


def explain_file(session: Session, item: str) -> Explanation | None:
    wanted = item.strip().lstrip("./")
    for f in session.files:
        if f.name == wanted or f.path == item or f.name.lower() == wanted.lower():
            present = f.injected_chars > 0
            return Explanation(f.name, session.session_key, present, f.status, f.reason, f.path)
    return None


def _find_spec(profile: Profile, item: str) -> str | None:
    norm = item.strip().lower().lstrip("#").strip()
    for spec in profile.sections:
        if norm in (spec.id, spec.heading.lstrip("#").strip().lower()):
            return spec.id
    if norm in ("identity", "identity line"):
        return "identity"
    return None


def explain_section(session: Session, profile: Profile, section_id: str) -> Explanation:
    sec = session.section(section_id)
    if sec is not None:
        return Explanation(section_id, session.session_key, True,
                           "placeholder" if sec.placeholder else "present", sec.rule, sec.source)
    specs = [s for s in profile.sections if s.id == section_id]
    mode, kind = session.prompt_mode, session.kind
    if mode == "none":
        return Explanation(section_id, session.session_key, False, "gated",
                           "prompt mode none: only the identity line is sent",
                           f"profile:{profile.name}")
    if specs and not any(s.applies(mode, kind) for s in specs):
        spec = specs[0]
        who = f" and {'/'.join(spec.kinds)} sessions" if spec.kinds else ""
        return Explanation(
            section_id, session.session_key, False, "gated",
            f"only in {'/'.join(spec.modes)} mode{who}; this is a {kind} session in "
            f"{mode} mode ({session.kind_rule})", f"profile:{profile.name}")
    return Explanation(section_id, session.session_key, False, "no-input",
                       SECTION_INPUTS.get(section_id, "its input does not exist"),
                       f"profile:{profile.name}")


def explain_tool(session: Session, tools: list[str], item: str) -> Explanation:
    tooling = session.section("tooling")
    if item in tools and tooling is not None:
        return Explanation(item, session.session_key, True, "listed",
                           "listed in the scenario's tools: shown in ## Tooling", "scenario:tools")
    return Explanation(item, session.session_key, False, "not-listed",
                       "not among the scenario's tools", "scenario:tools")


def explain_script(inspector: Inspector, report: Report, item: str) -> list[Explanation]:
    from ctxscope.scripts import default_entries

    if report.spawn is None:
        return []
    scope = f"spawn by {inspector.scenario.requester}"
    for r in report.spawn.scripts.results:
        if r.id == item:
            return [Explanation(item, scope, r.status == "ok", r.status,
                                f"{r.summary} (priority {r.priority:g}, {r.position})", r.uri)]
    defaults, _ = default_entries(inspector.config.data, config_path=inspector.config.path)
    if any(e.id == item for e in defaults):
        return [Explanation(item, scope, False, "ignored",
                            f"a default script the requester {inspector.scenario.requester} "
                            "ignores (subagents.contextScripts.ignore)",
                            inspector.config.path or "")]
    return []


def explain(inspector: Inspector, item: str, report: Report | None = None,
            directive: str | None = None) -> list[Explanation]:
    """Every answer for `item` (empty when nothing by that name is known)."""
    report = report or inspector.report()
    sessions = sessions_of(report)
    out = [e for s in sessions if (e := explain_file(s, item)) is not None]
    if out:
        return out
    section_id = _find_spec(inspector.profile, item)
    if section_id:
        return [explain_section(s, inspector.profile, section_id) for s in sessions]
    tools = inspector.scenario.tools
    if item in tools:
        return [explain_tool(s, tools, item) for s in sessions]
    skills, _ = discover_skills(inspector.workspace_for(report.requester.agent_id),
                                inspector.snapshot)
    if any(s.name == item for s in skills):
        out = []
        for s in sessions:
            sec = s.section("skills")
            listed = sec is not None and f"<name>{item}</name>" in sec.text
            why = explain_section(s, inspector.profile, "skills")
            out.append(Explanation(item, s.session_key, listed, "listed" if listed else "absent",
                                   why.rule if listed or sec is None else
                                   "filtered out by the agent's `skills` allowlist", why.source))
        return out
    scripts = explain_script(inspector, report, item)
    if scripts:
        return scripts
    if "/" in item or "." in item or "_" in item:
        from ctxscope.rye import explain_item

        return explain_item(inspector.workspace, item, directive=directive,
                            user_space=inspector.user_space, inputs=inspector.scenario.inputs,
                            snapshot=inspector.snapshot, tokenizer=inspector.tokenizer)
    return []
