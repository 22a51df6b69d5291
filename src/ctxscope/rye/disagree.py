"""Where Rye's documentation and ryeos disagree for one directive: the same thread built under
both profiles, compared part by part ("docs say …; ryeos 0.1.30 does …")."""

from __future__ import annotations

from ctxscope.rye.thread import ThreadReport


def _parts(report: ThreadReport) -> list[str]:
    return [f"{p.kind} {p.source} ({len(p.text)} ch)" for p in report.parts]


def _tools(report: ThreadReport) -> list[str]:
    return [t.api_name for t in report.palette.registered]


def _say(items: list[str]) -> str:
    return ", ".join(items) if items else "nothing"


def disagreements(docs: ThreadReport, real: ThreadReport) -> list[str]:
    """One line per point where the two reports differ, docs first."""
    runtime = real.profile.runtime
    out: list[str] = []

    def differ(what: str, said: str, does: str) -> None:
        out.append(f"{what}: docs say {said}; {runtime} does {does}")

    if docs.extends != real.extends:
        differ("extends", repr(docs.extends), repr(real.extends))
    if docs.chain_ids() != real.chain_ids():
        differ("chain", " → ".join(docs.chain_ids()), " → ".join(real.chain_ids()))
    if docs.system_message != real.system_message:
        differ(
            "system message",
            f"{len(docs.system_message)} chars",
            f"{len(real.system_message)} chars",
        )
    a, b = _parts(docs), _parts(real)
    if a != b:
        gone = [p for p in a if p not in b]
        new = [p for p in b if p not in a]
        if gone or new:
            differ(
                "first message",
                "also " + _say(gone) if gone else "the same parts",
                "also " + _say(new) if new else "without them",
            )
        else:
            differ("first message order", _say(a), _say(b))
    if docs.palette.capabilities != real.palette.capabilities:
        differ(
            f"capabilities (docs from {docs.capability_source}, {runtime} from "
            f"{real.capability_source})",
            _say(docs.palette.capabilities),
            _say(real.palette.capabilities),
        )
    ta, tb = _tools(docs), _tools(real)
    if ta != tb:
        differ("tools", _say(ta), _say(tb))
    ea = [e["event"] for e in docs.events]
    eb = [e["event"] for e in real.events]
    if ea != eb:
        differ("transcript events", _say(ea), _say(eb))
    return out
