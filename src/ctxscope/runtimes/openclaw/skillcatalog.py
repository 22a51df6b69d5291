"""The skills catalog a session is given: the workspace's skills and the runtime's, in the
release's order, fitted to its budget (`skillbudget`) with the limits the config sets."""

from __future__ import annotations

from typing import Any, Protocol

from ctxscope.core.tokens import text_chars
from ctxscope.runtimes.openclaw.config import GatewayConfig, as_dict
from ctxscope.runtimes.openclaw.skillbudget import (
    DESCRIPTION_LINE,
    ENTRY_WITHOUT_DESCRIPTION,
    Entry,
    Fitted,
    entry,
    escape,
    fit,
    for_context,
    shortened,
)
from ctxscope.runtimes.openclaw.skills import Skill
from ctxscope.runtimes.openclaw.toolcatalog import SkillFact, skill_chars
from ctxscope.runtimes.skillrules import BudgetRules


def runtime_entry(fact: SkillFact, package: str, state: str) -> Entry:
    """A runtime skill's entry from its measured (or read) sizes (`state`: the runtime's
    state folder)."""
    whole = skill_chars(fact, package, state)
    name = text_chars(escape(fact.name))
    described = fact.description_chars
    location = whole - ENTRY_WITHOUT_DESCRIPTION - DESCRIPTION_LINE - name - described
    return Entry(fact.name, name, max(0, location), None, described, described, runtime=True)


def _name_order(e: Entry) -> tuple[str, str]:
    """Names as the runtime sorts them (case set aside first, lower case before upper)."""
    return e.name.casefold(), e.name.swapcase()


def ordered(rules: BudgetRules, skills: list[Skill], runtime: list[Entry]) -> list[Entry]:
    """The catalog in the release's order: by name (`compact`), or the runtime's skills
    first, then the workspace's by folder (`cut`)."""
    own = [entry(s.name, s.path, s.description) for s in skills]
    if rules.style == "compact":
        return sorted(runtime + own, key=_name_order)
    return runtime + own


def _whole(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def limits(rules: BudgetRules, config: GatewayConfig, agent_id: str) -> tuple[int, int, str]:
    """The catalog's character and count limits, and where the character limit comes from."""
    set_limits = as_dict(as_dict(config.data.get("skills")).get("limits"))
    count = _whole(set_limits.get("maxSkillsInPrompt"))
    chars = _whole(set_limits.get("maxSkillsPromptChars"))
    where = "skills.limits.maxSkillsPromptChars" if chars is not None else "the release's default"
    if rules.agent_limits:
        agent = config.agent(agent_id) or {}
        own = _whole(as_dict(agent.get("skillsLimits")).get("maxSkillsPromptChars"))
        if "skillsLimits" in agent and own is not None:
            chars, where = own, f"the agent's skillsLimits.maxSkillsPromptChars ({agent_id})"
    return (
        rules.max_chars if chars is None else chars,
        rules.max_count if count is None else count,
        where,
    )


def fit_catalog(
    rules: BudgetRules,
    config: GatewayConfig,
    agent_id: str,
    skills: list[Skill],
    runtime: list[Entry],
    window: int,
) -> Fitted:
    """What the session's catalog lists once fitted to the release's limits and, where the
    release does so, to the context window (`window` tokens)."""
    chars, count, where = limits(rules, config, agent_id)
    fitted = fit(rules, ordered(rules, skills, runtime), chars, count)
    if fitted.kept or fitted.note_chars:
        # The catalog as the runtime holds it: the note and its line break before the
        # catalog's own leading blank lines (`note_chars` counts those two as well).
        note = fitted.note_chars - 2 if fitted.note_chars else 0
        prompt = note + rules.intro_chars + fitted.load_line + catalog_list_chars(fitted)
        fitted = for_context(rules, fitted, prompt, window)
    return Fitted(
        fitted.kept,
        fitted.total,
        fitted.describe,
        fitted.note_chars,
        fitted.load_line,
        fitted.limit,
        fitted.count_limit,
        f"{fitted.reason} (limits: {chars:,} chars from {where}, {count} skills)",
    )


def catalog_list_chars(fitted: Fitted) -> int:
    """Chars from `<available_skills>` to its closing tag."""
    if not fitted.kept:
        return 0
    return len("<available_skills>") + fitted.entries_chars() + len("\n</available_skills>")


def listing(fitted: Fitted | None, skills: list[Skill], runtime: list[Entry]) -> list[str]:
    """ctxscope's rendering of the catalog: each workspace skill's entry in the form the
    runtime lists it, the runtime's skills named in one line, the cut skills in another."""
    kept = {e.name for e in fitted.kept} if fitted is not None else None
    describe = fitted.describe if fitted is not None else None
    lines = ["<available_skills>"]
    for s in skills:
        if kept is not None and s.name not in kept:
            continue
        lines += ["  <skill>", f"    <name>{s.name}</name>"]
        text = s.description if describe is None else shortened(s.description, describe)
        if describe != 0 and text:
            lines.append(f"    <description>{text}</description>")
        lines += [f"    <location>{s.path}</location>", "  </skill>"]
    shown = [e for e in runtime if kept is None or e.name in kept]
    if shown:
        names = ", ".join(e.name for e in shown)
        lines.append(f"  ⟨{len(shown)} skills of the runtime and its plugins: {names}⟩")
    if fitted is not None and len(fitted.kept) < fitted.total:
        cut = fitted.total - len(fitted.kept)
        lines.append(f"  ⟨{cut} more skills not listed: {fitted.reason}⟩")
    lines.append("</available_skills>")
    return lines


class _Said(Protocol):
    """What the Skills section is made from (the prompt's context)."""

    skills: list[Skill]
    runtime_skills: list[Entry]
    skills_fit: Fitted | None
    skills_rule: str
    package: str

    @property
    def profile(self) -> Any: ...


def skills_section(ctx: _Said, typical: int) -> tuple[str, int, str] | str:
    """The Skills section as ctxscope shows it, its chars where the runtime's own lines
    above the list are measured (`typical`), and its rule; or why it is left out."""
    fitted = ctx.skills_fit
    if fitted is not None and not fitted.kept and not fitted.note_chars:
        return f"the skills budget leaves no room for a skill: {fitted.reason}"
    intro = (
        "Before replying, check the skills below; when one clearly applies, read its "
        "SKILL.md first and follow it."
    )
    text = intro + "\n" + "\n".join(listing(fitted, ctx.skills, ctx.runtime_skills))
    rule = ctx.skills_rule if fitted is None else f"{ctx.skills_rule}; {fitted.reason}"
    # The list is sized entry by entry in the form the budget gives (the lines naming the
    # runtime's skills and the cut ones are ctxscope's, not counted).
    if fitted is None:
        listed = [entry(s.name, s.path, s.description) for s in ctx.skills] + ctx.runtime_skills
        fitted = Fitted(listed, len(listed), None, 0, 0, 0, 0, "")
    chars = typical + catalog_list_chars(fitted) + fitted.extra_chars()
    budget = ctx.profile.skills_budget
    if not fitted.kept and budget is not None:  # only the note is left, not the catalog
        chars = typical - (budget.intro_chars - 2) + fitted.note_chars
    return text, chars, rule + _runtime_said(ctx.package, sum(e.runtime for e in fitted.kept))


def _runtime_said(package: str, count: int) -> str:
    if not count:
        return (
            "; only workspace skills are counted (skills installed for the user are "
            "not: `--exact` shows them)"
        )
    where = (
        f"read from the install at {package}"
        if package
        else "by the sizes measured on the release (stand-in: no install found)"
    )
    return (
        f"; {count} skills bundled with OpenClaw or its default plugins counted, {where}; "
        "skills installed for the user are not counted (`--exact` shows them)"
    )
