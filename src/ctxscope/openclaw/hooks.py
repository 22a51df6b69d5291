"""Workspace hooks that run on `agent:bootstrap`: code that may change a session's file list
at run time. ctxscope never runs them; it names them (`hooks/<name>/HOOK.md`, whose
frontmatter `metadata.openclaw.events` lists the events a hook handles)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from ctxscope.model import Diagnostic
from ctxscope.openclaw.skills import frontmatter
from ctxscope.snapshot import Snapshot

BOOTSTRAP_EVENT = "agent:bootstrap"


def bootstrap_hooks(
    workspace: Path, config: dict[str, Any], snapshot: Snapshot
) -> list[Diagnostic]:
    """An info diagnostic for each workspace hook that handles `agent:bootstrap`, saying
    whether the config enables it."""
    folder = workspace / "hooks"
    entries = _dict(_dict(_dict(config).get("hooks")).get("internal")).get("entries")
    out: list[Diagnostic] = []
    for name in snapshot.listdir(folder).dirs:
        fr = snapshot.read(folder / name / "HOOK.md")
        if not fr.exists:
            continue
        try:
            meta, _ = frontmatter(fr.text)
        except yaml.YAMLError:
            continue  # a broken hook is the runtime's to refuse; it cannot run either
        events = _dict(_dict((meta or {}).get("metadata")).get("openclaw")).get("events")
        if not isinstance(events, list) or BOOTSTRAP_EVENT not in events:
            continue
        hook = str((meta or {}).get("name") or name)
        entry = _dict(entries).get(hook) if isinstance(entries, dict) else None
        state = (
            "enabled in hooks.internal.entries"
            if isinstance(entry, dict) and entry.get("enabled") is True
            else "not enabled in the config (`openclaw hooks enable` turns it on)"
        )
        out.append(
            Diagnostic(
                "info",
                f"hook {hook} handles agent:bootstrap: it may change the file list at run "
                f"time, which ctxscope does not run ({state})",
                fr.path,
                code="bootstrap-hook",
            )
        )
    return out


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}
