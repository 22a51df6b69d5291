"""A Rye thread as sectioned plain text and as markdown."""

from __future__ import annotations

import json
import os
from typing import Any

from ctxscope.core.safetext import line_safe
from ctxscope.output import dump_json, renders
from ctxscope.output.table import short_path
from ctxscope.runtimes.rye import ThreadReport
from ctxscope.runtimes.rye.measured import measured_from


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


def thread_text(report: ThreadReport) -> str:
    """A sectioned plain-text report (no colour; readable in a pipe)."""
    data = _one_line(report.to_dict())
    base = os.getcwd()
    d = data["directive"]
    tok = report.tokenizer.label
    approx = "" if report.tokenizer.exact else "≈"
    out: list[str] = []
    out.append(f"Rye thread: {d['id']}  [{d['tier']} tier, {d['signature']}]")
    out.append(f"  file: {short_path(d['path'], base)}")
    inputs = ", ".join(f"{k}={v}" for k, v in d["inputs"].items()) or "none"
    out.append(f"  inputs: {inputs}   model: {d['model'] or '-'}")
    prof = report.profile
    out.append(f"  semantics: {prof.name} ({prof.description})")
    if report.system_stand_in:
        out.append(
            "  system tier: ctxscope's stand-in (its text is ctxscope's own; bundled tools and "
            f"primaries are charged {measured_from()}'s measured sizes; install ryeos or pass "
            "--rye-system for the real text)"
        )
    else:
        spaces = report.resolver.spaces if report.resolver else []
        roots = [short_path(str(s.root), base) for s in spaces if s.tier == "system"]
        out.append(f"  system tier: installed ryeos ({', '.join(roots)})")
    for note in report.stand_in_text:
        out.append(f"  stand-in: {note}")
    out.append(f"  signatures: {signature_rule(report)}")
    for why in report.refused:
        out.append(f"  ⛔ {prof.runtime} would not start this thread: {why}")
    out.append("")
    order = (
        "layer order"
        if prof.resolve_extends_order is None
        else ", ".join(prof.resolve_extends_order) + " in file order"
    )
    out.append(f"resolve_extends hooks ({order}, first match wins)")
    for h in d["hooks"]["resolve_extends"] or []:
        out.append(
            f"  {_mark(h['applied'])} {h['id']} (layer {h['layer']}, "
            f"{h['tier'] or 'built-in'}): {h['reason']}"
        )
    if not d["hooks"]["resolve_extends"]:
        out.append("  (no resolve_extends hooks)")
    ext = d["extends"]
    if ext["value"]:
        out.append(f"  → extends {ext['value']} ({ext['source']})")
    else:
        out.append("  → no extends: layer 3 (extends chain) is skipped")
    out.append("")
    out.append("Extends chain (leaf → root)")
    for i, node in enumerate(data["chain"]):
        lead = "  " + ("   " * (i - 1) + "└─ " if i else "")
        tier = node["tier"] or "MISSING"
        shadow = f" (shadows {len(node['shadowed'])})" if node["shadowed"] else ""
        sig = f", {node['signature']}" if node["tier"] else ""
        out.append(f"{lead}{node['id']}  [{tier}{shadow}{sig}]  {short_path(node['path'], base)}")
    if report.chain_error:
        out.append(f"  ! {report.chain_error}")
    out.append("")
    out.append("Composed context (root-first)")
    for pos in ("system", "before", "after"):
        items = data["system"]["items"] if pos == "system" else data[pos]
        out.append(f"  {pos}:")
        if not items:
            out.append("    (none)")
        for it in items:
            ok = it["status"] == "included"
            where = f" → {it['tier']} tier" if it["tier"] else ""
            if it["tier"] == "system" and report.system_stand_in:
                real = it.get("ryeos_chars")
                where += f" (stand-in; ryeos: {real} ch)" if real else " (stand-in)"
            shadow = ""
            k = report.knowledge.get(it["item_id"])
            if ok and k is not None and k.shadowed:
                shadow = " (shadows " + ", ".join(s.tier for s in k.shadowed) + ")"
            extra = f", {approx}{it['tokens']} tok" if ok else f" — {it['rule']}"
            out.append(
                f"    {_mark(ok)} {it['item_id']}  [{it['status']}; from "
                f"{it['origin']}{where}{shadow}{extra}]"
            )
    out.append("")
    sysd = data["system"]
    out.append(f"System message ({sysd['chars']} chars, {sysd['tokens']} tokens {tok})")
    for h in d["hooks"].get("build_system_prompt") or []:
        out.append(f"  {_mark(h['applied'])} build_system_prompt hook {h['id']}: {h['reason']}")
    out.append(_indent(sysd["text"]))
    out.append("")
    fm = data["first_message"]
    out.append(f"First user message ({fm['chars']} chars, {fm['tokens']} tokens {tok})")
    for i, p in enumerate(fm["parts"], 1):
        how = " wrapped" if p["wrapped"] else ""
        out.append(f"  {i}. {p['kind']:<17} {p['source']}{how}  ({approx}{p['tokens']} tok)")
    out.append(_indent(fm["text"]))
    out.append("")
    tools = data["tools"]
    if not tools["enabled"]:
        out.append("Tool palette: disabled (tool_preload.enabled is false)")
    else:
        out.append(
            f"Tool palette: {tools['used_tokens']} / {tools['budget_tokens']} tokens "
            "(≈4 chars/token; primaries "
            + ("counted)" if prof.primaries_charged else "outside the budget)")
        )
    for note in tools.get("notes", []):
        out.append(f"  ! {note}")
    for t in tools["registered"]:
        kind = "primary" if t["primary"] else "tool"
        out.append(f"  ✓ {t['api_name']:<32} {kind:<8} ≈{t['tokens']:>4} tok  {t['reason']}")
    for t in tools["skipped"]:
        out.append(f"  ✗ {t['api_name']:<32} {'':<8} ≈{t['tokens']:>4} tok  {t['reason']}")
    out.append("")
    cap = data["capabilities_tree"]
    out.append(
        "Capabilities"
        + (
            f" (from {cap['source']})"
            if cap["source"]
            else " (no permissions declared: primary actions only)"
        )
    )
    for c in cap["capabilities"]:
        out.append(f"  {c}")
    for n in cap["notes"]:
        out.append(f"  ! {n}")
    out.append(_indent(cap["text"], "  "))
    out.append("")
    out.append("Transcript events")
    for e in data["events"]:
        shown = dict(e)
        if "text" in shown:
            shown["text"] = f"<{len(e['text'])} chars>"
        out.append("  " + json.dumps(shown, ensure_ascii=False))
    if report.disagreements:
        out.append("")
        out.append("Where Rye's docs and ryeos disagree for this directive")
        out += [f"  ≠ {line}" for line in report.disagreements]
    if report.diagnostics:
        out.append("")
        out.append("Diagnostics")
        for diag in report.diagnostics:
            out.append(f"  {diag}")
    return "\n".join(out)


def thread_markdown(report: ThreadReport) -> str:
    data = _one_line(report.to_dict())
    d = data["directive"]
    tok = "≈tokens" if not report.tokenizer.exact else "tokens"
    out = [
        f"# Rye thread `{d['id']}`",
        "",
        f"- tier: {d['tier']} ({d['signature']}), file `{d['path']}`",
        f"- tokens: {report.tokenizer.label}"
        + ("" if report.tokenizer.exact else " (estimates)")
        + "; the tool palette's are ≈4 chars/token",
        f"- inputs: {', '.join(f'`{k}={v}`' for k, v in d['inputs'].items()) or 'none'}",
        f"- extends: `{d['extends']['value']}` ({d['extends']['source']})"
        if d["extends"]["value"]
        else "- extends: none",
        "",
        "## resolve_extends hooks",
        "",
    ]
    out += [
        f"- {_mark(h['applied'])} `{h['id']}` (layer {h['layer']}): {h['reason']}"
        for h in d["hooks"]["resolve_extends"]
    ] or ["- none"]
    out += [
        "",
        "## Extends chain (leaf → root)",
        "",
        "| # | directive | tier | path |",
        "|---|---|---|---|",
    ]
    out += [
        f"| {i} | `{n['id']}` | {n['tier'] or 'missing'} | `{n['path'] or '-'}` |"
        for i, n in enumerate(data["chain"])
    ]
    out += [
        "",
        "## Composed context",
        "",
        f"| position | item | status | origin | tier | {tok} |",
        "|---|---|---|---|---|---|",
    ]
    for pos in ("system", "before", "after"):
        items = data["system"]["items"] if pos == "system" else data[pos]
        out += [
            f"| {pos} | `{i['item_id']}` | {i['status']}: {i['rule']} | `{i['origin']}` | "
            f"{i['tier'] or '-'} | {i['tokens']} |"
            for i in items
        ]
    out += [
        "",
        f"## System message ({data['system']['tokens']} {tok})",
        "",
        "```text",
        data["system"]["text"],
        "```",
        "",
        f"## First user message ({data['first_message']['tokens']} {tok})",
        "",
    ]
    out += [
        f"{n}. {p['kind']} — `{p['source']}` ({p['tokens']} {tok})"
        for n, p in enumerate(data["first_message"]["parts"], 1)
    ]
    out += [
        "",
        "```text",
        data["first_message"]["text"],
        "```",
        "",
        f"## Tool palette ({data['tools']['used_tokens']} / "
        f"{data['tools']['budget_tokens']} ≈tokens)",
        "",
        "| tool | status | ≈tokens | reason |",
        "|---|---|---|---|",
    ]
    out += [
        f"| `{t['api_name']}` | {t['status']} | {t['tokens']} | {t['reason']} |"
        for t in data["tools"]["registered"] + data["tools"]["skipped"]
    ]
    out += [
        "",
        "## Capabilities",
        "",
        "```text",
        data["capabilities_tree"]["text"],
        "```",
        "",
        "## Transcript events",
        "",
        "```json",
    ]
    out += [json.dumps(e, ensure_ascii=False) for e in data["events"]]
    out += ["```"]
    if report.disagreements:
        out += ["", "## Where Rye's docs and ryeos disagree", ""]
        out += [f"- {line}" for line in report.disagreements]
    if report.diagnostics:
        out += ["", "## Diagnostics", ""] + [f"- {x}" for x in report.diagnostics]
    return "\n".join(out)


renders(
    ThreadReport,
    text=thread_text,
    markdown=thread_markdown,
    json=lambda report: dump_json(report.to_dict()),
)
