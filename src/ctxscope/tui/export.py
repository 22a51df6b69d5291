"""Export of the app's current build: JSON, markdown (and the SVG screenshot, in the app).

Exports are written to the export folder (the current folder, unless it lies inside the
workspace — ctxscope never writes there — in which case the user's ctxscope folder
`.../ctxscope/exports` is used).
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

from ctxscope.output.session import session_markdown
from ctxscope.output.table import md_table
from ctxscope.scripts.trust import config_dir
from ctxscope.secrets import mask_secrets
from ctxscope.tui.build import Build


def export_folder(workspace: Path, preferred: Path | None = None) -> Path:
    """Where exports go: `preferred` or the current folder, unless inside `workspace`."""
    folder = (preferred or Path.cwd()).absolute()
    ws = workspace.absolute()
    if folder == ws or ws in folder.parents:
        folder = config_dir() / "exports"
    return folder


def build_dict(build: Build) -> dict[str, Any]:
    """The build as one JSON object (snake_case; secret-named values masked)."""
    report = build.report
    spawn = report.spawn
    data: dict[str, Any] = {
        "workspace": report.workspace,
        "config_path": report.config_path,
        "scenario": dataclasses.asdict(report.scenario),
        "requester": report.requester.to_dict(),
        "child": build.child.to_dict() if build.child is not None else None,
    }
    if spawn is not None:
        sd = spawn.to_dict()
        sd.pop("requester", None)
        sd.pop("child", None)
        data["spawn"] = sd
    if report.thread is not None:
        data["thread"] = report.thread.to_dict()
    data["diagnostics"] = [d.to_dict() for d in build.diagnostics]
    return mask_secrets(data)


def export_json(build: Build) -> str:
    return json.dumps(build_dict(build), indent=2, ensure_ascii=False) + "\n"


def export_markdown(build: Build) -> str:
    report = build.report
    out = [
        "# ctxscope export",
        "",
        f"- workspace: `{report.workspace}`",
        f"- config: `{report.config_path or '(none)'}`",
        "",
        "---",
        "",
        session_markdown(report.requester),
    ]
    if build.child is not None:
        out += ["", "---", "", session_markdown(build.child)]
    spawn = report.spawn
    if spawn is not None:
        pol = spawn.policy
        out += [
            "",
            "---",
            "",
            "# Spawn",
            "",
            f"- allowed: **{'yes' if pol.allowed else 'no'}**"
            + (f" — {pol.error}" if pol.error else ""),
            f"- target agent: `{spawn.target_agent_id}` (requested `{spawn.requested_target}`)",
            f"- model: `{spawn.model.value}` ← {spawn.model.source}",
            f"- thinking: `{spawn.thinking.value}` ← {spawn.thinking.source}",
            "",
            "## Policy checks",
            "",
            md_table(
                ("check", "ok", "detail"),
                [(c.name, "✓" if c.ok else "✗", c.detail) for c in pol.checks],
            ),
            "",
            "## Context scripts",
            "",
        ]
        results = spawn.scripts.results
        out.append(
            md_table(
                ("id", "status", "ms", "chars", "position", "priority", "detail"),
                [
                    (
                        r.id,
                        r.status,
                        f"{r.duration_ms:.0f}",
                        r.chars,
                        r.position,
                        f"{r.priority:g}",
                        (r.error or r.summary).replace("\n", " "),
                    )
                    for r in results
                ],
            )
            if results
            else "(none)"
        )
    thread = report.thread
    if thread is not None:
        out += [
            "",
            "---",
            "",
            f"# Rye thread `{thread.directive}`",
            "",
            "Chain (leaf → root): " + " → ".join(f"`{n.id}` [{n.tier}]" for n in thread.chain),
        ]
        if thread.chain_error:
            out.append(f"\n**{thread.chain_error}**")
    if build.diagnostics:
        out += ["", "# Diagnostics", ""] + [f"- {d}" for d in build.diagnostics]
    return "\n".join(out) + "\n"


def write_export(folder: Path, stem: str, kind: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{stem}.{kind}"
    path.write_text(text, encoding="utf-8")
    return path
