"""Answers to "is ITEM there, and why?" over a build: for a bootstrap file, a memory note, a
prompt section, a skill, a tool, a context script, or a Rye item. Answers come from the
provenance the engine recorded, not from a second computation."""

from __future__ import annotations

from ctxscope.core.model import Explanation, Session
from ctxscope.infra.snapshot import Snapshot
from ctxscope.inputs import Inputs
from ctxscope.remedies import file_remedies, section_remedies
from ctxscope.report import Report
from ctxscope.runtimes.profiles import Profile
from ctxscope.scripts import default_entries


def explain_file(
    session: Session, item: str, profile: Profile, snapshot: Snapshot | None = None
) -> Explanation | None:
    wanted = item.strip().lstrip("./")
    for f in session.files:
        if f.name == wanted or f.path == item or f.name.lower() == wanted.lower():
            present = f.injected_chars > 0
            remedies = file_remedies(session, f, profile, snapshot)
            return Explanation(
                f.name, session.session_key, present, f.status, f.reason, f.path, remedies
            )
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
        return Explanation(
            section_id,
            session.session_key,
            True,
            "placeholder" if sec.placeholder else "present",
            sec.rule,
            sec.source,
        )
    specs = [s for s in profile.sections if s.id == section_id]
    mode, kind = session.prompt_mode, session.kind
    if mode == "none":
        return Explanation(
            section_id,
            session.session_key,
            False,
            "gated",
            "prompt mode none: only the identity line is sent",
            f"profile:{profile.name}",
        )
    if specs and not any(s.applies(mode, kind) for s in specs):
        spec = specs[0]
        who = f" and {'/'.join(spec.kinds)} sessions" if spec.kinds else ""
        return Explanation(
            section_id,
            session.session_key,
            False,
            "gated",
            f"only in {'/'.join(spec.modes)} mode{who}; this is a {kind} session in "
            f"{mode} mode ({session.kind_rule})",
            f"profile:{profile.name}",
            section_remedies(session, profile, section_id),
        )
    return Explanation(
        section_id,
        session.session_key,
        False,
        "no-input",
        session.absent_sections.get(section_id, "its input does not exist"),
        f"profile:{profile.name}",
    )


def explain_tool(session: Session, tools: list[str], item: str) -> Explanation:
    tooling = session.section("tooling")
    if item in tools and tooling is not None:
        return Explanation(
            item,
            session.session_key,
            True,
            "listed",
            "listed in the scenario's tools: shown in ## Tooling",
            "scenario:tools",
        )
    return Explanation(
        item,
        session.session_key,
        False,
        "not-listed",
        "not among the scenario's tools",
        "scenario:tools",
    )


def explain_script(inputs: Inputs, report: Report, item: str) -> list[Explanation]:
    if report.spawn is None:
        return []
    scope = f"spawn by {inputs.scenario.requester}"
    for r in report.spawn.scripts.results:
        if r.id == item:
            return [
                Explanation(
                    item,
                    scope,
                    r.status == "ok",
                    r.status,
                    f"{r.summary} (priority {r.priority:g}, {r.position})",
                    r.uri,
                )
            ]
    defaults, _ = default_entries(inputs.config.data, config_path=inputs.config.path)
    if any(e.id == item for e in defaults):
        return [
            Explanation(
                item,
                scope,
                False,
                "ignored",
                f"a default script the requester {inputs.scenario.requester} "
                "ignores (subagents.contextScripts.ignore)",
                inputs.config.path or "",
            )
        ]
    return []


def explain_skill(session: Session, profile: Profile, item: str) -> Explanation | None:
    entry = next((k for k in session.skills if k.name == item), None)
    if entry is None:
        return None
    section = explain_section(session, profile, "skills")
    rule = entry.reason if section.present else section.rule
    return Explanation(
        item,
        session.session_key,
        entry.listed,
        "listed" if entry.listed else "absent",
        rule,
        section.source,
    )


def explain(
    inputs: Inputs, report: Report, item: str, *, snapshot: Snapshot, directive: str | None = None
) -> list[Explanation]:
    """Every answer for `item` in `report` (empty when nothing by that name is known)."""
    sessions = report.sessions
    out = [
        e for s in sessions if (e := explain_file(s, item, inputs.profile, snapshot)) is not None
    ]
    if out:
        return out
    section_id = _find_spec(inputs.profile, item)
    if section_id:
        return [explain_section(s, inputs.profile, section_id) for s in sessions]
    tools = inputs.scenario.tools
    if item in tools:
        return [explain_tool(s, tools, item) for s in sessions]
    skills = [e for s in sessions if (e := explain_skill(s, inputs.profile, item)) is not None]
    if skills:
        return skills
    scripts = explain_script(inputs, report, item)
    if scripts:
        return scripts
    if "/" in item or "." in item or "_" in item:
        from ctxscope.runtimes.rye import explain_item  # the Rye engine only for a Rye item

        return explain_item(
            inputs.workspace,
            item,
            directive=directive,
            user_space=inputs.user_space,
            inputs=inputs.scenario.inputs,
            snapshot=snapshot,
            tokenizer=inputs.tokenizer,
        )
    return []
