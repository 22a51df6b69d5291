"""Workspace hooks that run on `agent:bootstrap`: code that may change a session's file list
at run time. ctxscope never runs them; it names them (`hooks/<name>/HOOK.md`, whose
frontmatter `metadata.openclaw.events` lists the events a hook handles), and lists the files
the bundled `bootstrap-extra-files` hook's patterns match (`hook_files`)."""

from __future__ import annotations

import fnmatch
import os
from pathlib import Path
from typing import Any

from ctxscope.core.model import Diagnostic, FileEntry
from ctxscope.core.yamlload import yaml
from ctxscope.infra.snapshot import Snapshot
from ctxscope.runtimes.openclaw.config import as_dict, string_list
from ctxscope.runtimes.openclaw.skills import frontmatter
from ctxscope.runtimes.profiles import Profile

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


MAX_HOOK_WALK = 20_000
"""Files looked at per `bootstrap-extra-files` pattern before giving up (a huge tree)."""


def extra_file_patterns(config: dict[str, Any]) -> list[str]:
    """The `bootstrap-extra-files` hook's patterns (`paths`, else `patterns`, else `files`)
    when the hook is configured and enabled."""
    entry = hook_config(config, "bootstrap-extra-files")
    if entry.get("enabled") is False:
        return []
    for key in ("paths", "patterns", "files"):
        found = string_list(entry.get(key))
        if found:
            return found
    return []


def hook_files(workspace: Path, profile: Profile, patterns: list[str]) -> list[FileEntry]:
    """What the `bootstrap-extra-files` hook's patterns match in the workspace: listed, not
    injected by ctxscope, because the hook adds them at run time. Only bootstrap file names
    count; a pattern may not leave the workspace; links are not followed."""
    names = set(profile.load_order())
    root = os.path.realpath(workspace)
    out: dict[str, FileEntry] = {}
    for pattern in patterns:
        base = os.path.normpath(os.path.join(root, _walk_root(pattern)))
        if base != root and not base.startswith(root + os.sep):
            continue
        seen = 0
        for folder, dirs, files in os.walk(base):
            dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(folder, d))]
            for name in files:
                seen += 1
                path = os.path.join(folder, name)
                rel = os.path.relpath(path, root).replace(os.sep, "/")
                if name in names and "/" in rel and fnmatch.fnmatchcase(rel, pattern):
                    out.setdefault(
                        path,
                        FileEntry(
                            rel,
                            path,
                            "not-injected",
                            0,
                            0,
                            f"matched by the bootstrap-extra-files hook pattern {pattern!r}: "
                            "the hook may add it to the file list at run time (ctxscope "
                            "does not spend budget on it)",
                        ),
                    )
            if seen > MAX_HOOK_WALK:
                break
    return sorted(out.values(), key=lambda e: e.name)


def _walk_root(pattern: str) -> str:
    """The folders of a glob before its first wildcard (its last part names the file)."""
    fixed = []
    for part in pattern.split("/")[:-1]:
        if any(c in part for c in "*?["):
            break
        fixed.append(part)
    return "/".join(fixed) or "."
