"""Runtime profiles: heading order, mode gating, allowlists, limits and identity lines as data.

Bundled profiles live beside this module (`profiles/<name>.yaml`); `--profile FILE.yaml` loads a
user's own. A profile file is validated; a bad one is an error naming the file and the field.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from ctxscope.model import Diagnostic
from ctxscope.snapshot import FileRead, Snapshot
from ctxscope.yamlload import load_yaml, yaml_diagnostic

SECTION_KINDS = {
    "tooling",
    "runtime",
    "skills",
    "memory_recall",
    "model_aliases",
    "workspace",
    "sandbox",
    "user_identity",
    "current_time",
    "voice",
    "subagent_context",
    "project_context",
    "runtime_line",
    "task",
}
MODES = ("full", "minimal", "none")


class ProfileError(Exception):
    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(str(diagnostic))
        self.diagnostic = diagnostic


@dataclass(frozen=True)
class SectionSpec:
    id: str
    heading: str
    kind: str
    modes: tuple[str, ...]
    kinds: tuple[str, ...] | None = None
    typical_chars: int = 0
    fields: tuple[str, ...] = ()

    def applies(self, mode: str, session_kind: str) -> bool:
        return mode in self.modes and (self.kinds is None or session_kind in self.kinds)


@dataclass(frozen=True)
class Profile:
    name: str
    description: str
    runtime_name: str
    path: str
    identity: dict[str, str]
    subagent_prefixes: tuple[str, ...]
    cron_prefixes: tuple[str, ...]
    legacy_subagent_prefixes: tuple[str, ...]
    subagent_markers: tuple[str, ...]
    minimal_kinds: tuple[str, ...]
    child_key: str
    files: tuple[str, ...]
    optional_files: tuple[str, ...]
    dedupe_same_file: bool
    minimal_allowlist: tuple[str, ...]
    max_chars: int | None
    total_max_chars: int | None
    min_remaining: int
    missing_body: str
    not_injected_globs: tuple[str, ...]
    project_heading: str
    file_heading: str
    project_intro: str
    soul_line: str
    soul_line_modes: tuple[str, ...]
    separator: str
    sections: tuple[SectionSpec, ...]
    task_message: str
    extra: dict[str, Any] = field(default_factory=dict)


def bundled_profiles() -> list[str]:
    folder = resources.files("ctxscope.openclaw") / "profiles"
    return sorted(p.name[:-5] for p in folder.iterdir() if p.name.endswith(".yaml"))


@cache
def _load_bundled(name: str) -> Profile:
    ref = resources.files("ctxscope.openclaw") / "profiles" / f"{name}.yaml"
    return parse_profile(ref.read_text(encoding="utf-8"), f"<bundled profile {name}>")


def load_profile(
    spec: str, read: Callable[[Path], FileRead] | None = None, *, base: Path | None = None
) -> Profile:
    """A bundled profile by name (`openclaw`, `goclaw`) or a YAML file by path (a relative
    one taken from `base`, the workspace, never the current folder), read with `read` (a
    Snapshot's: only regular files, the read cap and its diagnostics apply)."""
    if spec in bundled_profiles():
        return _load_bundled(spec)
    path = Path(spec).expanduser()
    if base is not None and not path.is_absolute():
        path = base / path
    if not path.suffix and not path.exists():
        raise ProfileError(
            Diagnostic(
                "error",
                f"unknown profile {spec!r}: use one of {', '.join(bundled_profiles())} "
                "or a path to a profile YAML file",
                code="profile-unknown",
            )
        )
    fr = (read or Snapshot().read)(path)
    if not fr.exists:
        why = fr.diagnostics[0].message if fr.diagnostics else "no such file"
        raise ProfileError(
            Diagnostic("error", f"cannot read profile: {why}", fr.path, code="profile-unreadable")
        )
    return parse_profile(fr.text, fr.path)


def parse_profile(text: str, path: str) -> Profile:
    try:
        data = load_yaml(text)
    except yaml.YAMLError as exc:
        raise ProfileError(yaml_diagnostic(exc, path, "profile-parse")) from None
    if not isinstance(data, dict):
        raise ProfileError(
            Diagnostic("error", "a profile must be a mapping", path, 1, code="profile-shape")
        )

    def fail(msg: str) -> ProfileError:
        return ProfileError(Diagnostic("error", msg, path, code="profile-field"))

    def section(key: str) -> dict[str, Any]:
        value = data.get(key, {})
        if not isinstance(value, dict):
            raise fail(f"`{key}` must be a mapping")
        return value

    def strs(obj: dict[str, Any], key: str, where: str) -> tuple[str, ...]:
        value = obj.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise fail(f"`{where}.{key}` must be a list of strings")
        return tuple(value)

    def opt_int(obj: dict[str, Any], key: str, where: str) -> int | None:
        value = obj.get(key)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise fail(f"`{where}.{key}` must be a non-negative integer or null")
        return value

    name = data.get("name")
    if not isinstance(name, str) or not name:
        raise fail("`name` is required")
    identity = section("identity")
    for mode in MODES:
        if not isinstance(identity.get(mode, ""), str):
            raise fail(f"`identity.{mode}` must be a string")
    sessions = section("sessions")
    boot = section("bootstrap")
    proj = section("project_context")
    sub = section("subagent")
    raw_sections = data.get("sections")
    if not isinstance(raw_sections, list) or not raw_sections:
        raise fail("`sections` must be a non-empty list")
    specs: list[SectionSpec] = []
    for i, raw in enumerate(raw_sections):
        if not isinstance(raw, dict):
            raise fail(f"sections[{i}] must be a mapping")
        kind = raw.get("kind")
        if kind not in SECTION_KINDS:
            raise fail(f"sections[{i}].kind {kind!r} is not one of {sorted(SECTION_KINDS)}")
        modes = strs(raw, "modes", f"sections[{i}]")
        if any(m not in MODES for m in modes):
            raise fail(f"sections[{i}].modes must name modes among {list(MODES)}")
        kinds = strs(raw, "kinds", f"sections[{i}]") if "kinds" in raw else None
        specs.append(
            SectionSpec(
                id=str(raw.get("id") or kind),
                heading=str(raw.get("heading", "")),
                kind=kind,
                modes=modes,
                kinds=kinds,
                typical_chars=int(raw.get("typical_chars", 0) or 0),
                fields=strs(raw, "fields", f"sections[{i}]"),
            )
        )
    return Profile(
        name=name,
        description=str(data.get("description", "")),
        runtime_name=str(data.get("runtime_name", name)),
        path=path,
        identity={m: str(identity.get(m, "")) for m in MODES},
        subagent_prefixes=strs(sessions, "subagent_prefixes", "sessions"),
        cron_prefixes=strs(sessions, "cron_prefixes", "sessions"),
        legacy_subagent_prefixes=strs(sessions, "legacy_subagent_prefixes", "sessions"),
        subagent_markers=strs(sessions, "subagent_markers", "sessions"),
        minimal_kinds=strs(sessions, "minimal_kinds", "sessions"),
        child_key=str(sessions.get("child_key", "agent:{agent}:subagent:{id}")),
        files=strs(boot, "files", "bootstrap"),
        optional_files=strs(boot, "optional_files", "bootstrap"),
        dedupe_same_file=bool(boot.get("dedupe_same_file", True)),
        minimal_allowlist=strs(boot, "minimal_allowlist", "bootstrap"),
        max_chars=opt_int(boot, "max_chars", "bootstrap"),
        total_max_chars=opt_int(boot, "total_max_chars", "bootstrap"),
        min_remaining=opt_int(boot, "min_remaining", "bootstrap") or 0,
        missing_body=str(boot.get("missing_body", "[MISSING] Expected at: {path}")),
        not_injected_globs=strs(boot, "not_injected_globs", "bootstrap"),
        project_heading=str(proj.get("heading", "# Project Context")),
        file_heading=str(proj.get("file_heading", "## {path}")),
        project_intro=str(proj.get("intro", "")),
        soul_line=str(proj.get("soul_line", "")),
        soul_line_modes=strs(proj, "soul_line_modes", "project_context"),
        separator=str(data.get("separator", "\n")),
        sections=tuple(specs),
        task_message=str(sub.get("task_message", "{task}")),
    )
