"""Workspace hooks that run on `agent:bootstrap`: code that may change a session's file list
at run time. ctxscope never runs them; it names them (`hooks/<name>/HOOK.md`, whose
frontmatter `metadata.openclaw.events` lists the events a hook handles)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ctxscope.core.model import Diagnostic
from ctxscope.core.yamlload import yaml
from ctxscope.infra.snapshot import Snapshot
from ctxscope.runtimes.openclaw.config import as_dict
from ctxscope.runtimes.openclaw.skills import frontmatter

BOOTSTRAP_EVENT = "agent:bootstrap"


def hook_config(config: dict[str, Any], name: str) -> dict[str, Any]:
    """`hooks.internal.entries.<name>` ({} when absent or when internal hooks are off)."""
    internal = as_dict(as_dict(as_dict(config).get("hooks")).get("internal"))
    if internal.get("enabled") is False:
        return {}
    return as_dict(as_dict(internal.get("entries")).get(name))


def bootstrap_hooks(
    workspace: Path, config: dict[str, Any], snapshot: Snapshot
) -> list[Diagnostic]:
    """An info diagnostic for each workspace hook that handles `agent:bootstrap`, saying
    whether the config enables it."""
    folder = workspace / "hooks"
    out: list[Diagnostic] = []
    for name in snapshot.listdir(folder).dirs:
        fr = snapshot.read(folder / name / "HOOK.md")
        if not fr.exists:
            continue
        try:
            meta, _ = frontmatter(fr.text)
        except yaml.YAMLError:
            continue  # a broken hook is the runtime's to refuse; it cannot run either
        events = as_dict(as_dict((meta or {}).get("metadata")).get("openclaw")).get("events")
        if not isinstance(events, list) or BOOTSTRAP_EVENT not in events:
            continue
        hook = str((meta or {}).get("name") or name)
        state = (
            "enabled in hooks.internal.entries"
            if hook_config(config, hook).get("enabled") is True
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
