"""Where Rye's documentation and ryeos disagree for one directive: the same thread built under
both profiles, compared part by part.

`disagreements` gives one line per difference, at most `WIDTH` characters, led by the name of
the profile rule behind it (`prompt.placeholders: docs …; ryeos 0.1.30 …`); `details` gives the
same differences in full."""

from __future__ import annotations

from ctxscope.runtimes.rye.threadreport import ThreadReport

WIDTH = 120


def _parts(report: ThreadReport, kinds: tuple[str, ...]) -> list[str]:
    return [f"{p.source} ({len(p.text)} ch)" for p in report.parts if p.kind.startswith(kinds)]


def _tools(report: ThreadReport) -> list[str]:
    return [f"{t.api_name} ({t.chars} ch)" for t in report.palette.registered]


def _say(items: list[str]) -> str:
    return ", ".join(items) if items else "nothing"


def _differences(docs: ThreadReport, real: ThreadReport) -> list[tuple[str, str, str]]:
    """(rule, what the docs say, what ryeos does) for each point where the reports differ."""
    out: list[tuple[str, str, str]] = []
    if docs.extends != real.extends:
        out.append(("hooks.resolve_extends_order", repr(docs.extends), repr(real.extends)))
    if docs.chain_ids() != real.chain_ids():
        out.append(
            (
                "extends.unparsable_base",
                " → ".join(docs.chain_ids()),
                " → ".join(real.chain_ids()),
            )
        )
    if docs.system_message != real.system_message:
        out.append(
            (
                "hooks.system_prompt_hooks",
                f"a {len(docs.system_message)}-char system message",
                f"a {len(real.system_message)}-char one",
            )
        )
    pa, pb = _parts(docs, ("directive_prompt",)), _parts(real, ("directive_prompt",))
    if pa != pb:
        size = lambda r: sum(len(p.text) for p in r.parts if p.kind == "directive_prompt")  # noqa: E731
        out.append(
            (
                "prompt.placeholders",
                f"a {size(docs)}-char directive prompt",
                f"a {size(real)}-char one",
            )
        )
    groups = (
        ("hooks.item_kind_key", ("hook_",)),
        ("knowledge.frontmatter", ("extends_", "directive_before", "directive_after")),
    )
    for rule, kinds in groups:
        a, b = _parts(docs, kinds), _parts(real, kinds)
        if a != b:
            gone = [p for p in a if p not in b]
            new = [p for p in b if p not in a]
            if gone or new:
                out.append((rule, "also " + _say(gone), "also " + _say(new)))
            else:
                out.append((rule, "order " + _say(a), "order " + _say(b)))
    if docs.palette.capabilities != real.palette.capabilities:
        out.append(
            (
                "permissions.inherit",
                f"{_say(docs.palette.capabilities)} (from {docs.capability_source})",
                f"{_say(real.palette.capabilities)} (from {real.capability_source})",
            )
        )
    ta, tb = _tools(docs), _tools(real)
    if ta != tb:
        out.append(("palette", _say(ta), _say(tb)))
    ea = [e["event"] for e in docs.events]
    eb = [e["event"] for e in real.events]
    if ea != eb:
        out.append(("events", _say(ea), _say(eb)))
    if bool(docs.refused) != bool(real.refused):
        out.append(
            (
                "refusals",
                "refused" if docs.refused else "the thread is shown",
                "refuses it: " + real.refused[0] if real.refused else "starts it",
            )
        )
    links = [d for d in real.diagnostics if d.code == "rye-link-outside" and d.path]
    if links:
        first = links[0].path or ""
        out.append(
            (
                "links",
                f"ctxscope reads no file linked out of the space ({len(links)} here: "
                f"{first}{', …' if len(links) > 1 else ''})",
                "follows the links and reads them",
            )
        )
    return out


def _clip(text: str, room: int) -> str:
    return text if len(text) <= room else text[: max(room - 1, 0)] + "…"


def _line(rule: str, said: str, does: str, runtime: str) -> str:
    """`rule: docs <said>; <runtime> <does>` in at most WIDTH characters (`ctxscope …`
    instead of `docs …` where the difference is ctxscope's own rule)."""
    who = "" if said.startswith("ctxscope") else "docs "
    fixed = len(f"{rule}: {who}; {runtime} ")
    room = WIDTH - fixed
    if len(said) + len(does) > room:
        half = room // 2
        said_room = max(half, room - len(does)) if len(does) < half else half
        said = _clip(said, said_room)
        does = _clip(does, room - len(said))
    return f"{rule}: {who}{said}; {runtime} {does}"


def disagreements(docs: ThreadReport, real: ThreadReport) -> list[str]:
    """One line (at most WIDTH characters) per point where the two reports differ, each led
    by the rule behind it."""
    runtime = real.profile.runtime
    return [_line(r, a, b, runtime) for r, a, b in _differences(docs, real)]


def details(docs: ThreadReport, real: ThreadReport) -> list[str]:
    """The same differences in full."""
    runtime = real.profile.runtime
    return [
        f"{r}: {'' if a.startswith('ctxscope') else 'docs say '}{a}; {runtime} does {b}"
        for r, a, b in _differences(docs, real)
    ]
