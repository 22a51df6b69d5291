"""A Rye thread as sectioned plain text and as markdown."""

from __future__ import annotations

import json
import os
from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from typing import Any

from ctxscope.core.safetext import line_safe
from ctxscope.output import dump_json, renders
from ctxscope.output.table import relative_path
from ctxscope.runtimes.rye import ThreadReport, measured_from


def _mark(ok: bool) -> str:
    return "✓" if ok else "✗"


def _indent(text: str, prefix: str = "    │ ") -> str:
    return "\n".join(prefix + line for line in text.split("\n")) if text else prefix + "(empty)"


def _one_line(value: Any, key: str = "") -> Any:
    """The report's data with every name in it on one line (`line_safe`: a tool or
    directive name cannot start a forged row); the texts (`text`) stay as they are."""
    if isinstance(value, str):
        return value if key == "text" else line_safe(value)
    if isinstance(value, dict):
        return {k: _one_line(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_one_line(v, key) for v in value]
    return value


def signature_rule(report: ThreadReport) -> str:
    """How this report treats signatures, in one phrase."""
    if report.dev_mode:
        return (
            "dev mode (RYE_DEV_MODE=1): checked and reported, every item loads; ryeos's "
            "default verifies them"
        )
    return (
        "verified as ryeos does (Ed25519, trusted keys): an item that fails is not loaded "
        "(--rye-dev-mode or RYE_DEV_MODE=1 reads as dev mode)"
    )


class _Writer(ABC):
    """One format's way of writing each part of a Rye thread report. `write` puts the parts
    in the order both formats share, a blank line between; a part with nothing to say (no
    disagreements, no diagnostics) is left out."""

    DISAGREEMENTS = ""
    """The heading of the part naming where Rye's docs and ryeos disagree."""
    DISAGREEMENT_MARK = ""
    """How a line of that part starts."""
    NOTE_MARK = ""
    """How a line of the diagnostics starts."""

    def __init__(self, report: ThreadReport) -> None:
        self.report = report
        self.data = _one_line(report.to_dict())
        self.directive = self.data["directive"]

    def write(self) -> str:
        report = self.report
        parts = [
            self.header(),
            self.resolve_hooks(),
            self.chain(),
            self.composed(),
            self.system_message(),
            self.first_message(),
            self.tools(),
            self.capabilities(),
            self.events(),
            self.notes(self.DISAGREEMENTS, report.disagreements, self.DISAGREEMENT_MARK),
            self.notes("Diagnostics", report.diagnostics, self.NOTE_MARK),
        ]
        return "\n\n".join("\n".join(lines) for lines in parts if lines)

    @abstractmethod
    def heading(self, title: str) -> list[str]:
        """A part's heading."""

    def notes(self, title: str, lines: Sequence[object], mark: str) -> list[str]:
        """A closing list under its heading (no lines: nothing)."""
        if not lines:
            return []
        return [*self.heading(title), *(f"{mark}{line}" for line in lines)]

    def composed_items(self) -> Iterator[tuple[str, list[dict[str, Any]]]]:
        """Each position of the composed context with its items (the system tier first)."""
        for pos in ("system", "before", "after"):
            yield pos, self.data["system"]["items"] if pos == "system" else self.data[pos]

    @abstractmethod
    def header(self) -> list[str]:
        """The directive: its tier, file, inputs, the semantics and signature rule in use."""

    @abstractmethod
    def resolve_hooks(self) -> list[str]:
        """The resolve_extends hooks and what the directive extends."""

    @abstractmethod
    def chain(self) -> list[str]:
        """The extends chain, leaf to root."""

    @abstractmethod
    def composed(self) -> list[str]:
        """The composed context, position by position."""

    @abstractmethod
    def system_message(self) -> list[str]:
        """The system message and its size."""

    @abstractmethod
    def first_message(self) -> list[str]:
        """The first user message, part by part."""

    @abstractmethod
    def tools(self) -> list[str]:
        """The tool palette: what is registered, what is skipped and why."""

    @abstractmethod
    def capabilities(self) -> list[str]:
        """The capabilities the thread's permissions grant."""

    @abstractmethod
    def events(self) -> list[str]:
        """The transcript's events."""


class _Text(_Writer):
    """Sectioned plain text: a heading line, then its lines indented."""

    DISAGREEMENTS = "Where Rye's docs and ryeos disagree for this directive"
    DISAGREEMENT_MARK = "  ≠ "
    NOTE_MARK = "  "

    def __init__(self, report: ThreadReport) -> None:
        super().__init__(report)
        self.base = os.getcwd()
        self.approx = "" if report.tokenizer.exact else "≈"

    def heading(self, title: str) -> list[str]:
        return [title]

    def header(self) -> list[str]:
        report, d = self.report, self.directive
        prof = report.profile
        inputs = ", ".join(f"{k}={v}" for k, v in d["inputs"].items()) or "none"
        return [
            f"Rye thread: {d['id']}  [{d['tier']} tier, {d['signature']}]",
            f"  file: {relative_path(d['path'], self.base)}",
            f"  inputs: {inputs}   model: {d['model'] or '-'}",
            f"  semantics: {prof.name} ({prof.description})",
            self.system_tier(),
            *(f"  stand-in: {note}" for note in report.stand_in_text),
            f"  signatures: {signature_rule(report)}",
            *(f"  ⛔ {prof.runtime} would not start this thread: {why}" for why in report.refused),
        ]

    def system_tier(self) -> str:
        """Where the system tier's items come from: ctxscope's stand-in or installed ryeos."""
        report = self.report
        if report.system_stand_in:
            return (
                "  system tier: ctxscope's stand-in (its text is ctxscope's own; bundled tools "
                f"and primaries are charged {measured_from()}'s measured sizes; install ryeos or "
                "pass --rye-system for the real text)"
            )
        spaces = report.resolver.spaces if report.resolver else []
        roots = [relative_path(str(s.root), self.base) for s in spaces if s.tier == "system"]
        return f"  system tier: installed ryeos ({', '.join(roots)})"

    def resolve_hooks(self) -> list[str]:
        prof, d = self.report.profile, self.directive
        order = (
            "layer order"
            if prof.resolve_extends_order is None
            else ", ".join(prof.resolve_extends_order) + " in file order"
        )
        out = [f"resolve_extends hooks ({order}, first match wins)"]
        hooks = d["hooks"]["resolve_extends"]
        out += [
            f"  {_mark(h['applied'])} {h['id']} (layer {h['layer']}, "
            f"{h['tier'] or 'built-in'}): {h['reason']}"
            for h in hooks or []
        ]
        if not hooks:
            out.append("  (no resolve_extends hooks)")
        ext = d["extends"]
        if ext["value"]:
            out.append(f"  → extends {ext['value']} ({ext['source']})")
        else:
            out.append("  → no extends: layer 3 (extends chain) is skipped")
        return out

    def chain(self) -> list[str]:
        out = ["Extends chain (leaf → root)"]
        for i, node in enumerate(self.data["chain"]):
            lead = "  " + ("   " * (i - 1) + "└─ " if i else "")
            tier = node["tier"] or "MISSING"
            shadow = f" (shadows {len(node['shadowed'])})" if node["shadowed"] else ""
            sig = f", {node['signature']}" if node["tier"] else ""
            path = relative_path(node["path"], self.base)
            out.append(f"{lead}{node['id']}  [{tier}{shadow}{sig}]  {path}")
        if self.report.chain_error:
            out.append(f"  ! {self.report.chain_error}")
        return out

    def composed(self) -> list[str]:
        out = ["Composed context (root-first)"]
        for pos, items in self.composed_items():
            out.append(f"  {pos}:")
            if not items:
                out.append("    (none)")
            out += [self.composed_item(it) for it in items]
        return out

    def composed_item(self, it: dict[str, Any]) -> str:
        """An item of the composed context: included or why not, from where, its tokens."""
        report = self.report
        ok = it["status"] == "included"
        where = f" → {it['tier']} tier" if it["tier"] else ""
        if it["tier"] == "system" and report.system_stand_in:
            real = it.get("ryeos_chars")
            where += f" (stand-in; ryeos: {real} ch)" if real else " (stand-in)"
        shadow = ""
        k = report.knowledge.get(it["item_id"])
        if ok and k is not None and k.shadowed:
            shadow = " (shadows " + ", ".join(s.tier for s in k.shadowed) + ")"
        extra = f", {self.approx}{it['tokens']} tok" if ok else f" — {it['rule']}"
        return (
            f"    {_mark(ok)} {it['item_id']}  [{it['status']}; from "
            f"{it['origin']}{where}{shadow}{extra}]"
        )

    def system_message(self) -> list[str]:
        sysd, tok = self.data["system"], self.report.tokenizer.label
        return [
            f"System message ({sysd['chars']} chars, {sysd['tokens']} tokens {tok})",
            *(
                f"  {_mark(h['applied'])} build_system_prompt hook {h['id']}: {h['reason']}"
                for h in self.directive["hooks"].get("build_system_prompt") or []
            ),
            _indent(sysd["text"]),
        ]

    def first_message(self) -> list[str]:
        fm, tok = self.data["first_message"], self.report.tokenizer.label
        out = [f"First user message ({fm['chars']} chars, {fm['tokens']} tokens {tok})"]
        for i, p in enumerate(fm["parts"], 1):
            how = " wrapped" if p["wrapped"] else ""
            out.append(
                f"  {i}. {p['kind']:<17} {p['source']}{how}  ({self.approx}{p['tokens']} tok)"
            )
        out.append(_indent(fm["text"]))
        return out

    def tools(self) -> list[str]:
        tools = self.data["tools"]
        if not tools["enabled"]:
            out = ["Tool palette: disabled (tool_preload.enabled is false)"]
        else:
            out = [
                f"Tool palette: {tools['used_tokens']} / {tools['budget_tokens']} tokens "
                "(≈4 chars/token; primaries "
                + ("counted)" if self.report.profile.primaries_charged else "outside the budget)")
            ]
        out += [f"  ! {note}" for note in tools.get("notes", [])]
        for t in tools["registered"]:
            kind = "primary" if t["primary"] else "tool"
            out.append(f"  ✓ {t['api_name']:<32} {kind:<8} ≈{t['tokens']:>4} tok  {t['reason']}")
        for t in tools["skipped"]:
            out.append(f"  ✗ {t['api_name']:<32} {'':<8} ≈{t['tokens']:>4} tok  {t['reason']}")
        return out

    def capabilities(self) -> list[str]:
        cap = self.data["capabilities_tree"]
        source = (
            f" (from {cap['source']})"
            if cap["source"]
            else " (no permissions declared: primary actions only)"
        )
        return [
            "Capabilities" + source,
            *(f"  {c}" for c in cap["capabilities"]),
            *(f"  ! {n}" for n in cap["notes"]),
            _indent(cap["text"], "  "),
        ]

    def events(self) -> list[str]:
        out = ["Transcript events"]
        for e in self.data["events"]:
            shown = dict(e)
            if "text" in shown:
                shown["text"] = f"<{len(e['text'])} chars>"
            out.append("  " + json.dumps(shown, ensure_ascii=False))
        return out


class _Markdown(_Writer):
    """Markdown: a `##` heading per part, tables and fenced texts."""

    DISAGREEMENTS = "Where Rye's docs and ryeos disagree"
    DISAGREEMENT_MARK = "- "
    NOTE_MARK = "- "

    def __init__(self, report: ThreadReport) -> None:
        super().__init__(report)
        self.tok = "≈tokens" if not report.tokenizer.exact else "tokens"

    def heading(self, title: str) -> list[str]:
        return [f"## {title}", ""]

    def header(self) -> list[str]:
        d, tokenizer = self.directive, self.report.tokenizer
        return [
            f"# Rye thread `{d['id']}`",
            "",
            f"- tier: {d['tier']} ({d['signature']}), file `{d['path']}`",
            f"- tokens: {tokenizer.label}"
            + ("" if tokenizer.exact else " (estimates)")
            + "; the tool palette's are ≈4 chars/token",
            f"- inputs: {', '.join(f'`{k}={v}`' for k, v in d['inputs'].items()) or 'none'}",
            f"- extends: `{d['extends']['value']}` ({d['extends']['source']})"
            if d["extends"]["value"]
            else "- extends: none",
        ]

    def resolve_hooks(self) -> list[str]:
        hooks = [
            f"- {_mark(h['applied'])} `{h['id']}` (layer {h['layer']}): {h['reason']}"
            for h in self.directive["hooks"]["resolve_extends"]
        ]
        return [*self.heading("resolve_extends hooks"), *(hooks or ["- none"])]

    def chain(self) -> list[str]:
        return [
            *self.heading("Extends chain (leaf → root)"),
            "| # | directive | tier | path |",
            "|---|---|---|---|",
            *(
                f"| {i} | `{n['id']}` | {n['tier'] or 'missing'} | `{n['path'] or '-'}` |"
                for i, n in enumerate(self.data["chain"])
            ),
        ]

    def composed(self) -> list[str]:
        out = [
            *self.heading("Composed context"),
            f"| position | item | status | origin | tier | {self.tok} |",
            "|---|---|---|---|---|---|",
        ]
        for pos, items in self.composed_items():
            out += [
                f"| {pos} | `{i['item_id']}` | {i['status']}: {i['rule']} | `{i['origin']}` | "
                f"{i['tier'] or '-'} | {i['tokens']} |"
                for i in items
            ]
        return out

    def system_message(self) -> list[str]:
        sysd = self.data["system"]
        return [
            *self.heading(f"System message ({sysd['tokens']} {self.tok})"),
            *_fenced("text", [sysd["text"]]),
        ]

    def first_message(self) -> list[str]:
        fm = self.data["first_message"]
        return [
            *self.heading(f"First user message ({fm['tokens']} {self.tok})"),
            *(
                f"{n}. {p['kind']} — `{p['source']}` ({p['tokens']} {self.tok})"
                for n, p in enumerate(fm["parts"], 1)
            ),
            "",
            *_fenced("text", [fm["text"]]),
        ]

    def tools(self) -> list[str]:
        tools = self.data["tools"]
        return [
            *self.heading(
                f"Tool palette ({tools['used_tokens']} / {tools['budget_tokens']} ≈tokens)"
            ),
            "| tool | status | ≈tokens | reason |",
            "|---|---|---|---|",
            *(
                f"| `{t['api_name']}` | {t['status']} | {t['tokens']} | {t['reason']} |"
                for t in tools["registered"] + tools["skipped"]
            ),
        ]

    def capabilities(self) -> list[str]:
        text = self.data["capabilities_tree"]["text"]
        return [*self.heading("Capabilities"), *_fenced("text", [text])]

    def events(self) -> list[str]:
        events = [json.dumps(e, ensure_ascii=False) for e in self.data["events"]]
        return [*self.heading("Transcript events"), *_fenced("json", events)]


def _fenced(language: str, lines: list[str]) -> list[str]:
    """Lines in a fenced code block."""
    return [f"```{language}", *lines, "```"]


def thread_text(report: ThreadReport) -> str:
    """A sectioned plain-text report (no colour; readable in a pipe)."""
    return _Text(report).write()


def thread_markdown(report: ThreadReport) -> str:
    """The report as markdown: tables and fenced texts."""
    return _Markdown(report).write()


renders(
    ThreadReport,
    text=thread_text,
    markdown=thread_markdown,
    json=lambda report: dump_json(report.to_dict()),
)
