"""`ctxscope explain`: is an item present in each session, and by which rule."""

from __future__ import annotations

from dataclasses import dataclass, field

from ctxscope.core.model import Diagnostic, Explanation
from ctxscope.output import dump_json, renders
from ctxscope.output.table import md_table, text_table

HEADERS = ("scope", "present", "status", "rule")


@dataclass
class Explained:
    """The answers for `item` (one per session or Rye directive) and the problems of the
    config and ctxscope.yaml found on the way."""

    item: str
    answers: list[Explanation]
    diagnostics: list[Diagnostic] = field(default_factory=list)


def _rows(answers: list[Explanation]) -> list[tuple[str, str, str, str]]:
    return [(a.scope, "present" if a.present else "absent", a.status, a.rule) for a in answers]


def _unknown(item: str) -> str:
    return (
        f"{item}: not a bootstrap file, section, skill, tool, script or Rye item "
        "known to this workspace"
    )


def explained_markdown(found: Explained) -> str:
    answers = found.answers
    if not answers:
        text = _unknown(found.item)
    else:
        remedies = "".join(f"\n- `{a.scope}`: {r}" for a in answers for r in a.remedies)
        rows = [(*r, a.source) for r, a in zip(_rows(answers), answers, strict=True)]
        text = (
            f"# `{found.item}`\n\n"
            + md_table((*HEADERS, "source"), rows)
            + (f"\n\n## Remedies\n{remedies}" if remedies else "")
        )
    if found.diagnostics:
        text += "\n\n## Diagnostics\n\n" + "\n".join(f"- {d}" for d in found.diagnostics)
    return text


def explained_text(found: Explained) -> str:
    answers = found.answers
    if not answers:
        text = _unknown(found.item)
    else:
        remedies = "".join(f"\n  {a.scope}: {r}" for a in answers for r in a.remedies)
        text = (
            f"{found.item}\n"
            + text_table(HEADERS, _rows(answers))
            + (f"\n\nRemedies{remedies}" if remedies else "")
        )
    if found.diagnostics:
        text += "\n\nDiagnostics\n" + "\n".join(f"  {d}" for d in found.diagnostics)
    return text


def explained_json(found: Explained) -> str:
    return dump_json(
        {
            "item": found.item,
            "answers": [a.to_dict() for a in found.answers],
            "diagnostics": [d.to_dict() for d in found.diagnostics],
        }
    )


renders(Explained, text=explained_text, markdown=explained_markdown, json=explained_json)
