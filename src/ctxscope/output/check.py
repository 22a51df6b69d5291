"""`ctxscope check`: the findings that fail, those allowed, and the notes."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from ctxscope.check import Finding
from ctxscope.output import dump_json, renders
from ctxscope.output.table import md_table, relative_path, text_table


@dataclass
class Checked:
    """A check's findings with the kinds the user allowed (`--allow`): those fail the
    check unless allowed; notes (`info`) never do."""

    findings: list[Finding]
    allowed: frozenset[str] = field(default_factory=frozenset)

    @classmethod
    def of(cls, findings: Iterable[Finding], allowed: Iterable[str] = ()) -> Checked:
        return cls(list(findings), frozenset(allowed))

    @property
    def failing(self) -> list[Finding]:
        return [f for f in self.findings if f.kind not in self.allowed and not f.info]

    @property
    def relaxed(self) -> list[Finding]:
        """Findings of an allowed kind."""
        return [f for f in self.findings if f.kind in self.allowed and not f.info]

    @property
    def notes(self) -> list[Finding]:
        return [f for f in self.findings if f.info]

    @property
    def ok(self) -> bool:
        return not self.failing


def checked_json(checked: Checked) -> str:
    return dump_json(
        {
            "ok": checked.ok,
            "findings": [f.to_dict() for f in checked.failing],
            "allowed": [f.to_dict() for f in checked.relaxed],
            "info": [f.to_dict() for f in checked.notes],
        }
    )


def checked_markdown(checked: Checked) -> str:
    failing = checked.failing
    table = md_table(
        ("kind", "scope", "finding", "where"),
        [(f.kind, f.scope, f.message, f.location) for f in failing],
    )
    info = "".join(f"\n- info: {f.scope}: {f.message}" for f in checked.notes)
    return "# ctxscope check\n\n" + (table if failing else "No findings.") + info


def checked_text(checked: Checked) -> str:
    failing, relaxed = checked.failing, checked.relaxed
    lines = [f"info: {f.scope}: {f.message}" for f in checked.notes]
    if failing:
        located = [(f.kind, f.scope, relative_path(f.location), f.message) for f in failing]
        lines.append(text_table(("kind", "scope", "where", "finding"), located))
        lines.append(
            f"\n{len(failing)} finding(s)" + (f"; {len(relaxed)} allowed" if relaxed else "")
        )
    else:
        lines.append("ok: no findings" + (f" ({len(relaxed)} allowed)" if relaxed else ""))
    return "\n".join(lines)


renders(Checked, text=checked_text, markdown=checked_markdown, json=checked_json)
