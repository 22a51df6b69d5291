"""Lay ctxscope's provenance over the text an installed OpenClaw built, and list where
ctxscope's model of the same scenario disagrees with it (`drift`).

The runtime's system prompt is cut into sections by finding, in order, each heading the
model expects; a file's section skips over the file's text (which may hold headings of its
own). A modelled section with no heading (the identity line, exec-approval guidance) stays
with the text around it. A heading the runtime wrote that the model does not know becomes a
section of its own, sourced `runtime`, and is reported as drift; a heading inside a context
file's text (as the runtime injected it) never starts a section.

Where the runtime's runner prepared the attempt itself, the tools it would send replace the
catalog's in the session's request, and what ctxscope handed the runner in place of a gateway
is named.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Sequence
from typing import Any

from ctxscope.core.model import Diagnostic, PromptMode, Section, Session, SessionTokens
from ctxscope.core.record import record
from ctxscope.core.tokens import Tokenizer, text_chars
from ctxscope.runtimes.openclaw.request import SESSION_ID_CHARS, RequestPlan, with_request
from ctxscope.runtimes.openclaw.toolcatalog import SessionTools, ToolFact

_HEADING = re.compile(r"^#{1,2} \S.*$", re.MULTILINE)
_ATTEMPT_MARKER = re.compile(r"<!-- /?openclaw:attempt:[A-Z_]+ -->")
"""A marker of the runner's (2026.9) around the stable and the dynamic part of its prompt."""
MACHINE_FIELDS = frozenset({"host", "os", "arch", "node", "shell"})
"""`Runtime:` fields whose values are the gateway machine's."""
_OWN_FIELDS = MACHINE_FIELDS | {"sessionId"}
"""`Runtime:` fields whose values differ from machine to machine or from run to run."""
# Sections whose own text holds sub-headings (the subagent envelope, a file's text).
_NESTED = {"subagent_context", "project_context"}


@record(frozen=True)
class RuntimeAnswer:
    """What the runtime built for one session."""

    system_prompt: str
    files: list[tuple[str, str]]
    """(path, text) of each context file, as the runtime injects it."""
    task_message: str | None
    """The first user message, when the runtime has a function that builds it."""
    prompt_mode: str | None = None
    """The prompt mode the runtime built in (its own rule for the key, unless forced)."""
    strategy: str = "builders"
    """`runner`: the runtime's runner prepared the attempt; `builders`: its prompt builders
    were called with inputs ctxscope gathered."""
    tools: tuple[ToolFact, ...] | None = None
    """The tools the runner would send beside the prompt (None: not known)."""
    deferred: tuple[str, ...] = ()
    """The tools Tool Search holds back (listed in the prompt, fetched on demand)."""
    supplied: tuple[str, ...] = ()
    """What ctxscope handed the runner in place of a gateway."""
    sha256: str | None = None
    """The sha256 of the runner's prompt before the transports' edits (runner only)."""
    figures: dict[str, Any] | None = None
    """What a run records of that prompt, by the runtime's report builder (runner only)."""
    session_id: str | None = None
    """The session id the runner was handed when no recorded run gave one (a stand-in, not
    as long as the UUID a gateway makes)."""


# The prompt builder's boundary markers (2026.9: prompt caching, the relocatable Runtime
# facts). Every model transport strips them before the request is sent: a marker with its
# newlines around it becomes one newline, a closing one disappears.
_MARKERS_TO_NEWLINE = (
    "\n<!-- OPENCLAW_CACHE_BOUNDARY -->\n",
    "\n<!-- OPENCLAW-RELOCATABLE-BOUNDARY -->\n",
)
_MARKERS_REMOVED = (
    "\n<!-- /OPENCLAW-RELOCATABLE-BOUNDARY -->",
    "<!-- OPENCLAW_CACHE_BOUNDARY -->",
    "<!-- OPENCLAW-RELOCATABLE-BOUNDARY -->",
    "<!-- /OPENCLAW-RELOCATABLE-BOUNDARY -->",
)


def as_sent(prompt: str) -> str:
    """The system prompt as the model receives it: the builder's boundary markers
    stripped, as the transports strip them."""
    if "<!-- " not in prompt:
        return prompt
    for marker in _MARKERS_TO_NEWLINE:
        prompt = prompt.replace(marker, "\n")
    for marker in _MARKERS_REMOVED:
        prompt = prompt.replace(marker, "")
    return prompt


def answer_of(raw: dict[str, Any]) -> RuntimeAnswer:
    files = [(str(p), str(t)) for p, t in raw.get("files") or []]
    task = raw.get("taskMessage")
    mode = raw.get("promptMode")
    tools = raw.get("tools")
    return RuntimeAnswer(
        as_sent(str(raw.get("systemPrompt") or "")),
        files,
        task if isinstance(task, str) else None,
        mode if isinstance(mode, str) else None,
        str(raw.get("strategy") or "builders"),
        tuple(sorted((ToolFact(str(n), int(d), int(c)) for n, d, c in tools), key=lambda t: t.name))
        if isinstance(tools, list)
        else None,
        tuple(str(n) for n in raw.get("deferred") or ()),
        tuple(str(x) for x in raw.get("supplied") or ()),
        raw["sha256"] if isinstance(raw.get("sha256"), str) else None,
        raw["report"] if isinstance(raw.get("report"), dict) else None,
        raw["standInSessionId"] if isinstance(raw.get("standInSessionId"), str) else None,
    )


def exact_session(
    model: Session, answer: RuntimeAnswer, *, runtime: str, tokenizer: Tokenizer
) -> Session:
    """`model` with the runtime's own text in every section (provenance kept from the model),
    the runtime's first message where it builds one, and a `drift` diagnostic for every
    disagreement between the two."""
    where = f"{runtime} vs profile {model.profile}"
    drift: list[str] = []
    mode: PromptMode = model.prompt_mode
    real_mode = answer.prompt_mode
    if real_mode in ("full", "minimal", "none") and real_mode != mode:
        drift.append(
            f"prompt mode: ctxscope's model gives {model.session_key} {mode}, the runtime "
            f"{real_mode}"
        )
        mode = real_mode  # type: ignore[assignment]
    # The runner's attempt markers stand in its own text (2026.9); the model counts them in
    # its request, apart from its sections.
    carried = _ATTEMPT_MARKER.search(answer.system_prompt) is not None
    markers = dict(model.wire.plan.attempt_markers) if carried and model.wire else {}
    sections = _align(model, answer, drift, markers)
    for sec in sections:
        sec.tokens = tokenizer.count(sec.text)
    drift += _file_drift(model, answer)
    task = model.task_message
    if answer.task_message is not None:
        if model.task_message is not None and answer.task_message != model.task_message:
            drift.append(
                f"first user message: ctxscope's model {text_chars(model.task_message):,} chars, "
                f"the runtime {text_chars(answer.task_message):,}"
            )
        task = answer.task_message
    system = sum(s.tokens for s in sections)
    task_tokens = tokenizer.count(task) if task else 0
    diagnostics = [*model.diagnostics] + [
        Diagnostic("warning", f"drift ({where}): {d}", code="drift") for d in drift
    ]
    if answer.supplied:
        how = (
            "the runtime's runner prepared this session; ctxscope supplied what a gateway hands it"
            if answer.strategy == "runner"
            else "the runtime's prompt builders built this session, not its runner"
        )
        diagnostics.append(
            Diagnostic(
                "info", f"drift ({where}): {how}: {'; '.join(answer.supplied)}", code="drift"
            )
        )
    diagnostics += _skills_note(sections, model.workspace, runtime)
    exact = dataclasses.replace(
        model,
        system_prompt=answer.system_prompt,
        prompt_mode=mode,
        sections=sections,
        tokens=SessionTokens(system, task_tokens, system + task_tokens),
        task_message=task,
        task_markers=model.task_markers if task == model.task_message else [],
        diagnostics=diagnostics,
        exact=runtime,
        exact_sha256=answer.sha256,
        exact_figures=answer.figures,
    )
    if model.wire is None:
        return exact
    if answer.tools is not None:
        diagnostics += _tool_drift(model, answer, where)
    return with_request(exact, _runtime_plan(model.wire.plan, answer, runtime, carried), tokenizer)


def _skills_note(sections: list[Section], workspace: str, runtime: str) -> list[Diagnostic]:
    """What the runtime lists of skills from outside the workspace (not in the model)."""
    extra = [
        entry
        for sec in sections
        if "<available_skills>" in sec.text
        for entry in outside_skills(sec.text, workspace)
    ]
    if not extra:
        return []
    return [
        Diagnostic(
            "info",
            f"{runtime} also lists {len(extra)} skill(s) from outside the workspace "
            f"(bundled with it or installed for the user; "
            f"{sum(text_chars(b) for b in extra):,} chars), which ctxscope's model "
            "does not count",
            code="exact-skills",
        )
    ]


def _runtime_plan(
    plan: RequestPlan, answer: RuntimeAnswer, runtime: str, carried: bool
) -> RequestPlan:
    """The model's request plan around the runtime's own prompt and first message: the
    runner's own tools and `Runtime:` line where it gave them, and no attempt markers added
    where its text `carried` them already."""
    if carried:
        plan = dataclasses.replace(plan, attempt_markers=())
    if answer.tools is None:
        return plan
    tools = SessionTools(
        tuple((t, t.description_chars) for t in answer.tools),
        answer.deferred,
        plan.tools.removed if plan.tools else {},
        bool(answer.deferred),
        True,
    )
    line = _runtime_line(answer.system_prompt) if plan.runtime_line else ""
    return dataclasses.replace(
        plan,
        tools=tools,
        catalog_source=f"installed: {runtime} (its runner, exact mode)",
        runtime_line=line or plan.runtime_line,
        runtime_line_chars=_line_chars(line, answer) if line else plan.runtime_line_chars,
        machine=_machine(line) if line else plan.machine,
    )


def _runtime_line(prompt: str) -> str:
    """The prompt's last `Runtime:` line ("" when it has none)."""
    return next((ln for ln in reversed(prompt.splitlines()) if ln.startswith("Runtime: ")), "")


def _fields(line: str) -> list[tuple[str, str]]:
    """(name, value) of each field of a `Runtime:` line, in order."""
    out = []
    for part in line.removeprefix("Runtime: ").split(" | "):
        name, _, value = part.partition("=")
        out.append((name, value))
    return out


def _line_chars(line: str, answer: RuntimeAnswer) -> int:
    """What the runtime's `Runtime:` line counts on the wire: the session id the runner was
    handed in place of a gateway's at the length of the UUID a gateway makes."""
    chars = text_chars(line)
    sid = answer.session_id
    if sid is not None and ("sessionId", sid) in _fields(line):
        chars += SESSION_ID_CHARS - text_chars(sid)
    return chars


def _machine(line: str) -> tuple[tuple[str, int], ...]:
    """(field, chars) of this machine's values in the runtime's `Runtime:` line."""
    return tuple((k, text_chars(v)) for k, v in _fields(line) if k in MACHINE_FIELDS)


def _line_drift(mine: str, theirs: str, whole: bool) -> list[str]:
    """Where the runtime's `Runtime:` line disagrees with ctxscope's (`whole`: the model's
    line names every field the runtime writes; else only some): the machine's values and
    the session id are left out, they differ from run to run."""
    real = {k: v for k, v in _fields(theirs) if k not in _OWN_FIELDS}
    modelled = {k: v for k, v in _fields(mine) if k not in _OWN_FIELDS}
    out = []
    for name in [*modelled, *(k for k in real if k not in modelled)]:
        if name not in real:
            out.append(f"the `Runtime:` line: ctxscope's model has {name}=, the runtime not")
        elif name not in modelled:
            if whole:
                out.append(f"the `Runtime:` line: the runtime has {name}=, ctxscope's model not")
        elif real[name] != modelled[name]:
            out.append(
                f"the `Runtime:` line: {name}= is {modelled[name]!r} in ctxscope's model, "
                f"{real[name]!r} in the runtime's"
            )
    return out


def _tool_drift(model: Session, answer: RuntimeAnswer, where: str) -> list[Diagnostic]:
    """Where the tools the model sends differ from the runner's."""
    if model.wire is None or answer.tools is None:
        return []
    mine = {t.name: t for t in model.wire.tools}
    real = {t.name: t for t in answer.tools}
    out = []
    if mine.keys() != real.keys():
        only_model = sorted(mine.keys() - real.keys())
        only_real = sorted(real.keys() - mine.keys())
        parts = []
        if only_real:
            parts.append(f"the runtime also sends {', '.join(only_real)}")
        if only_model:
            parts.append(f"ctxscope's model also sends {', '.join(only_model)}")
        out.append(f"tools: {'; '.join(parts)}")
    have = sum(t.schema_chars for t in mine.values())
    want = sum(t.schema_chars for t in real.values())
    if have != want:
        out.append(
            f"tool schemas: ctxscope's model {have:,} chars, the runtime {want:,} "
            f"({want - have:+,})"
        )
    return [Diagnostic("warning", f"drift ({where}): {d}", code="drift") for d in out]


def _file_spans(real: str, answer: RuntimeAnswer) -> list[tuple[int, int]]:
    """Where each context file's text (as the runtime injected it) stands in the prompt."""
    spans = []
    cursor = 0
    for _, body in answer.files:
        if not body.strip():
            continue
        at = real.find(body, cursor)
        if at < 0:
            at = real.find(body)
        if at >= 0:
            spans.append((at, at + len(body)))
            cursor = at + len(body)
    return spans


def _align(
    model: Session, answer: RuntimeAnswer, drift: list[str], markers: dict[str, int]
) -> list[Section]:
    real = answer.system_prompt
    bodies = {os.path.basename(p): t for p, t in answer.files}
    inside = _file_spans(real, answer)
    spans: list[tuple[Section, int, int]] = []  # model section, start of its heading, skip-to
    cursor = 0
    for sec in model.sections:
        if not sec.heading:
            continue
        at = _find_line(real, sec.heading, cursor)
        if at < 0:
            drift.append(
                f"section {sec.heading!r}: in ctxscope's model ({sec.chars:,} chars), "
                "not in the runtime's prompt"
            )
            continue
        skip = at + len(sec.heading)
        if sec.id.startswith("file:"):
            body = sec.text[len(sec.heading) :]
            real_body = bodies.get(sec.id[len("file:") :], "")
            skip += min(len(body), len(real_body) + 2)
        spans.append((sec, at, skip))
        cursor = skip
    out: list[Section] = []
    first = spans[0][1] if spans else len(real)
    lead = real[:first].removesuffix("\n")
    if lead:
        ident = next((s for s in model.sections if not s.heading), None)
        out.append(_real(ident, lead) if ident else _unmodelled("", lead))
    for i, (sec, at, skip) in enumerate(spans):
        end = spans[i + 1][1] if i + 1 < len(spans) else len(real)
        text = real[at:end].removesuffix("\n")
        pieces = [(sec.heading, text)]
        if sec.id not in _NESTED and not sec.id.startswith("file:"):
            kept = [(a - at, b - at) for a, b in inside if b > at and a < end]
            pieces = _split_unknown(text, skip - at, kept)
        out.append(_real(sec, pieces[0][1]))
        compared = [pieces[0][1]]  # what stands for `sec` and the model's untitled sections
        for heading, text in pieces[1:]:
            out.append(_unmodelled(heading, text))
            if _only_outside_skills(text, model.workspace):
                # The runtime's own skills, noted apart; text after the list (untitled, like
                # a hint line) is still the model's.
                end = text.find("</available_skills>")
                tail = text[end + len("</available_skills>") + 1 :] if end >= 0 else ""
                compared += [tail] if tail else []
                continue
            drift.append(f"section {heading!r}: in the runtime's prompt, not in ctxscope's model")
        # The runner's attempt markers in this stretch, as the model counts them: the cache
        # boundary's where its heading-less section stands, the closing one after the last.
        last = markers.get("close", 0) if i == len(spans) - 1 else 0
        _size_drift(model, sec, "\n".join(compared), drift, markers.get("boundary", 0), last)
    return out


def _find_line(text: str, line: str, start: int) -> int:
    """Where `line` stands as a whole line in `text` at or after `start` (-1: nowhere)."""
    at = start
    while True:
        at = text.find(line, at)
        if at < 0:
            return -1
        end = at + len(line)
        if (at == 0 or text[at - 1] == "\n") and (end == len(text) or text[end] == "\n"):
            return at
        at += 1


def _split_unknown(
    text: str, after: int, files: Sequence[tuple[int, int]] = ()
) -> list[tuple[str, str]]:
    """The section's text, then (heading, text) of each heading in it (past `after`) that
    starts a section the model does not know; a heading inside a context file's text
    (`files`: spans within `text`) is the file's own and starts nothing."""
    cuts = [
        m
        for m in _HEADING.finditer(text)
        if m.start() >= after and not any(a <= m.start() < b for a, b in files)
    ]
    if not cuts:
        return [("", text)]
    out = [("", text[: cuts[0].start()].removesuffix("\n"))]
    for i, m in enumerate(cuts):
        end = cuts[i + 1].start() if i + 1 < len(cuts) else len(text)
        out.append((m.group(0), text[m.start() : end].removesuffix("\n")))
    return out


def _size_drift(
    model: Session, sec: Section, text: str, drift: list[str], boundary: int = 0, close: int = 0
) -> None:
    """A size disagreement for `sec`: the model's size of it plus any heading-less sections
    the model places right after it (they stand in the same stretch of the runtime's text).
    The skills the runtime lists from outside the workspace (bundled with it, installed for
    the user) are left out on both sides: the runtime's builder is given some of them, the
    model counts those the run adds (`Session.runtime_skill_chars`). The runner's attempt
    markers (`boundary` at the cache boundary, `close` at the end) are the model's request's,
    not its sections': they are added to the model's side. A `Runtime:` line the model sums
    up (its machine's fields not counted) is compared field by field, apart from the rest."""
    order = model.sections
    i = order.index(sec)
    group = [sec]
    for nxt in order[i + 1 :]:
        if nxt.heading:
            break
        group.append(nxt)
    modelled = sum(s.chars for s in group) + len(group) - 1 + close
    modelled += boundary if any(s.id == "cache_boundary" for s in group) else 0
    real = text_chars(text)
    if sec.id == "skills":
        real -= sum(text_chars(b) for b in outside_skills(text, model.workspace))
        modelled -= model.runtime_skill_chars
    mine = next((_runtime_line(s.text) for s in group if s.placeholder), "")
    theirs = _runtime_line(text) if mine else ""
    if theirs:
        modelled -= text_chars(mine)
        real -= text_chars(theirs)
        full = model.wire.plan.runtime_line if model.wire else ""
        drift += _line_drift(full or mine, theirs, bool(full))
    if modelled != real:
        also = "".join(f" + {s.id}" for s in group[1:])
        drift.append(
            f"section {sec.heading!r}{also}: ctxscope's model {modelled:,} chars, "
            f"the runtime {real:,} ({real - modelled:+,})"
        )


_SKILL = re.compile(r"\n  <skill>\n.*?\n  </skill>", re.DOTALL)
_LOCATION = re.compile(r"<location>(.*?)</location>")


def outside_skills(text: str, workspace: str) -> list[str]:
    """The `<skill>` entries of a skills section whose file is not in `workspace`."""
    inside = workspace.rstrip("/") + "/"
    out = []
    for m in _SKILL.finditer(text):
        where = _LOCATION.search(m.group(0))
        if where is None or not where.group(1).startswith(inside):
            out.append(m.group(0))
    return out


def _only_outside_skills(text: str, workspace: str) -> bool:
    """True for a skills list naming no skill of the workspace (so none the model counts)."""
    entries = _SKILL.findall(text)
    return bool(entries) and len(outside_skills(text, workspace)) == len(entries)


def _real(sec: Section, text: str) -> Section:
    return dataclasses.replace(
        sec,
        text=text,
        placeholder=False,
        typical_chars=0,
        markers=sec.markers if text == sec.text else [],
    )


def _unmodelled(heading: str, text: str) -> Section:
    slug = re.sub(r"[^a-z0-9]+", "_", heading.lstrip("# ").lower()).strip("_") or "text"
    return Section(
        f"runtime:{slug}",
        heading,
        text,
        "runtime",
        "written by the runtime; ctxscope's profile does not model this section",
    )


def _file_drift(model: Session, answer: RuntimeAnswer) -> list[str]:
    """Each context file whose injected text differs between the model and the runtime."""
    out = []
    real = {os.path.basename(p): _sent(t) for p, t in answer.files}
    mine = {f.name: _sent(f.body) for f in model.files if f.body}
    for name in sorted(mine.keys() | real.keys()):
        want, have = real.get(name), mine.get(name)
        if want == have:
            continue
        if have is None:
            out.append(f"{name}: the runtime injects it, ctxscope's model does not")
        elif want is None:
            out.append(f"{name}: ctxscope's model injects it, the runtime does not")
        else:
            out.append(
                f"{name}: injected text differs (ctxscope's model {text_chars(have):,} chars, "
                f"the runtime {text_chars(want):,})"
            )
    return out


def _sent(text: str) -> str:
    """`text` as an encoder sends it: half a surrogate pair (JavaScript can cut one, and
    ctxscope writes U+FFFD there) becomes U+FFFD."""
    if text.isascii():
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
