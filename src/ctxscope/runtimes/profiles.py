"""Runtime profiles: heading order, mode gating, allowlists, limits and identity lines as data.

Bundled profiles live beside this module (`profiles/<name>.yaml`, each read from its parsed form
`<name>.parsed.json` while that matches it); `--profile FILE.yaml` loads a user's own. A profile
file is validated; a bad one is an error naming the file and the field.
"""

from __future__ import annotations

import json
import re
import zlib
from collections.abc import Callable
from dataclasses import field
from functools import cache
from pathlib import Path
from typing import Any

from ctxscope.core.model import Diagnostic
from ctxscope.core.record import record
from ctxscope.core.yamlload import load_yaml, yaml, yaml_diagnostic
from ctxscope.infra.paths import replace_file
from ctxscope.infra.snapshot import FileRead, Snapshot
from ctxscope.runtimes.sectionspec import MODES, SECTION_KINDS, SectionSpec
from ctxscope.runtimes.skillrules import BudgetRules, budget_rules

BUNDLED = Path(__file__).with_name("profiles")
"""The bundled profiles' folder."""

TRUNCATIONS = ("head70-tail20", "fit75-25")
"""How a file over its limit is cut: 2026.2's head 70 % + marker + tail 20 % of the limit (the
result exceeds it), or 2026.9's 75/25 split of what is left of the limit after the marker."""
LINK_RULES = {"symlinks": ("follow", "reject"), "hardlinks": ("allow", "reject")}


class ProfileError(Exception):
    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(str(diagnostic))
        self.diagnostic = diagnostic


@record(frozen=True, eq=False)  # compared by identity: one per profile file
class Profile:
    """A runtime version's rules as data: sections and their order, bootstrap files and
    limits, session-key rules, identity lines, truncation and link handling."""

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
    max_chars: int | None
    total_max_chars: int | None
    min_remaining: int
    missing_body: str
    not_injected_globs: tuple[str, ...]
    project_heading: str
    file_heading: str
    project_intro: str
    file_lines: dict[str, str]
    line_chars: dict[str, int]
    """The runtime's own size of the Project Context intro (`intro`) and of each file's line
    (empty: the lines are the runtime's text as written in the profile)."""
    """Intro lines of Project Context, one per injected file name that has one."""
    soul_line_modes: tuple[str, ...]
    """The prompt modes that get those lines."""
    separator: str
    sections: tuple[SectionSpec, ...]
    task_message: str
    version: str = ""
    """The runtime release this profile was measured on (e.g. `2026.9.6`)."""
    family: str = ""
    """The runtime the profile belongs to (`openclaw`), for choosing by version."""
    allowlists: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Per session kind, the only bootstrap files it gets (kinds not named: every file)."""
    private_files: tuple[str, ...] = ()
    """Files kept out of group and channel chats (`private_chat_types`)."""
    private_chat_types: tuple[str, ...] = ()
    file_caps: dict[str, int] = field(default_factory=dict)
    """Fixed per-file limits applied on top of `bootstrapMaxChars` (the smaller wins)."""
    truncation: str = "head70-tail20"
    policy_digest_files: tuple[str, ...] = ()
    """Files cut with the policy-digest strategy instead of `truncation`."""
    unreadable_body: str | None = None
    """What an unreadable file injects (`{reason}`); None: it counts as missing."""
    unreadable_dropped: tuple[str, ...] = ()
    """Memory files left out (no notice) unless their real path is a memory file inside the
    workspace (the runtime's memory-provenance check)."""
    symlinks: str = "follow"
    hardlinks: str = "allow"
    setup_files: tuple[str, ...] = ()
    """Files injected only while workspace setup is pending (bootstrap mode `full`)."""
    onboarding_files: tuple[str, ...] = ()
    """Files onboarding deletes when done: missing is `info` for `check`, not a finding."""
    retired_files: tuple[str, ...] = ()
    """Files an older version loaded and this one ignores (named when present)."""
    prompt_strip: tuple[re.Pattern[str], ...] = ()
    """Patterns the prompt builder removes from each file's text (before collapsing blank
    lines; the budgets are spent on the text as loaded)."""
    first_run: dict[str, Any] = field(default_factory=dict)
    """What the runner writes into a workspace before its first run (`openclaw.firstrun`):
    `writes`, `optional`, `templates` (folder in the install), `setup_when`."""
    collapse_blank_lines: bool = False
    """Runs of 3+ newlines in a file become 2 in the prompt text (after the budgets)."""
    crlf_to_lf_modes: tuple[str, ...] = ()
    """Prompt modes whose prompt text has a file's CRLF line ends as LF."""
    per_agent_limits: bool = False
    """`agents.list[].bootstrapMaxChars` / `bootstrapTotalMaxChars` override the defaults."""
    case_fold_keys: bool = False
    """Session keys are lower-cased before they are parsed."""
    tool_rules: dict[str, Any] = field(default_factory=dict)
    """Tool policy data: `aliases`, `groups`, `profiles`, `subagent_deny`,
    `leaf_subagent_deny` (empty: tools are not filtered)."""
    config_rules: dict[str, Any] = field(default_factory=dict)
    """How the version reads its config: `missing_env` (`refuse`|`warn`), `agent_entries`
    (whether `agents.entries` is a roster)."""
    context_chars: dict[str, int] = field(default_factory=dict)
    """The runtime's Subagent Context block size before its values, by variant (`first`,
    `first_spawning`, `nested_leaf`, `nested_spawning`); empty: not measured."""
    context_has_task: bool = False
    """Whether the runtime's Subagent Context block carries the task text."""
    spawn: dict[str, Any] = field(default_factory=dict)
    """Spawn policy: `max_spawn_depth`, `max_children`, error templates, allowAgents rules."""
    measured: dict[str, int] = field(default_factory=dict)
    """Sizes of the runtime's fixed texts, measured on its code (a family's builder reads
    them by name; e.g. GoClaw's)."""
    skills_budget: BudgetRules | None = None
    """How the release fits its skills catalog to its limits (`openclaw.skillbudget`)."""
    skill_audit: dict[str, str] = field(default_factory=dict)
    """Patterns (name -> regular expression, ASCII classes) any line of a skill's file may
    match for the runtime to leave the skill out (e.g. GoClaw's audit)."""
    note: str = ""
    """A line every session built with this profile carries (e.g. that it models a plan,
    not a runtime)."""

    def allowlist(self, kind: str) -> tuple[str, ...] | None:
        return self.allowlists.get(kind)

    def load_order(self) -> list[str]:
        """Every candidate file name, in load order (optional files not in `files` last)."""
        return list(self.files) + [n for n in self.optional_files if n not in self.files]


def bundled_profiles() -> list[str]:
    return sorted(p.name[:-5] for p in BUNDLED.iterdir() if p.name.endswith(".yaml"))


_HEADER = re.compile(r'(?m)^(family|version):[ \t]*"?([^"\s#]+)')


@cache
def bundled_releases() -> dict[str, tuple[str, str]]:
    """Each bundled profile's `(family, version)`, read from its header lines (cheaper than
    loading every profile to choose one)."""
    out = {}
    for name in bundled_profiles():
        ref = BUNDLED / f"{name}.yaml"
        fields = dict(_HEADER.findall(ref.read_text(encoding="utf-8")))
        out[name] = (fields.get("family", ""), fields.get("version", ""))
    return out


@cache
def _load_bundled(name: str) -> Profile:
    raw = (BUNDLED / f"{name}.yaml").read_bytes()
    path = f"<bundled profile {name}>"
    data = _parsed_form(name, raw)
    if data is None:
        return parse_profile(raw.decode("utf-8"), path)
    return _profile_from(data, path)


def _parsed_form(name: str, raw: bytes) -> Any:
    """A bundled profile as its YAML parses, from the JSON `write_parsed_forms` keeps beside
    it (parsing the YAML costs ~8 ms a process, the JSON a tenth of that); None when that
    file is missing or was made from other YAML (its CRC-32 differs): the YAML is read."""
    try:
        stored = json.loads(_parsed_path(name).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(stored, dict) or stored.get("yaml_crc32") != zlib.crc32(raw):
        return None
    return stored.get("profile")


def _parsed_path(name: str) -> Path:
    return BUNDLED / f"{name}.parsed.json"


def write_parsed_forms() -> list[Path]:
    """Write each bundled profile's parsed form (run after editing one:
    `python -m ctxscope.runtimes.profiles`)."""
    written = []
    for name in bundled_profiles():
        raw = (BUNDLED / f"{name}.yaml").read_bytes()
        data = load_yaml(raw.decode("utf-8"))
        if json.loads(json.dumps(data)) != data:
            raise ValueError(f"{name}.yaml holds values JSON cannot carry")
        stored = {"yaml_crc32": zlib.crc32(raw), "profile": data}
        replace_file(_parsed_path(name), (json.dumps(stored, indent=1) + "\n").encode("utf-8"))
        written.append(_parsed_path(name))
    return written


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
    return _profile_from(data, path)


def _profile_from(data: Any, path: str) -> Profile:
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

    def section_of(obj: dict[str, Any], key: str) -> dict[str, Any]:
        value = obj.get(key, {})
        if not isinstance(value, dict):
            raise fail(f"`bootstrap.{key}` must be a mapping")
        return value

    def int_map(obj: dict[str, Any], key: str, where: str) -> dict[str, int]:
        value = obj.get(key, {})
        if not isinstance(value, dict) or not all(
            isinstance(v, int) and not isinstance(v, bool) for v in value.values()
        ):
            raise fail(f"`{where}.{key}` must map names to integers")
        return {str(k): int(v) for k, v in value.items()}

    def opt_int(obj: dict[str, Any], key: str, where: str) -> int | None:
        value = obj.get(key)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise fail(f"`{where}.{key}` must be a non-negative integer or null")
        return value

    def patterns(obj: dict[str, Any], key: str) -> list[re.Pattern[str]]:
        out = []
        for i, text in enumerate(strs(obj, key, "bootstrap")):
            try:
                out.append(re.compile(text))
            except re.error as exc:
                raise fail(f"`bootstrap.{key}[{i}]` is not a valid pattern: {exc}") from None
        return out

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
        when = raw.get("when_tools", {})
        if not isinstance(when, dict):
            raise fail(f"sections[{i}].when_tools must be a mapping of mode to tool names")
        specs.append(
            SectionSpec(
                id=str(raw.get("id") or kind),
                heading=str(raw.get("heading", "")),
                kind=kind,
                modes=modes,
                kinds=kinds,
                typical_chars=int(raw.get("typical_chars", 0) or 0),
                fields=strs(raw, "fields", f"sections[{i}]"),
                when_tools={str(m): strs(when, m, f"sections[{i}].when_tools") for m in when},
                fallback_chars=opt_int(raw, "fallback_chars", f"sections[{i}]") or 0,
                tool_chars=int_map(raw, "tool_chars", f"sections[{i}]"),
                tool_lines=int_map(raw, "tool_lines", f"sections[{i}]"),
                deferred_lines=int_map(raw, "deferred_lines", f"sections[{i}]"),
                directory_chars=opt_int(raw, "directory_chars", f"sections[{i}]") or 0,
                line_pairs=int_map(raw, "line_pairs", f"sections[{i}]"),
                deferred_pairs=int_map(raw, "deferred_pairs", f"sections[{i}]"),
                model_line_chars=opt_int(raw, "model_line_chars", f"sections[{i}]") or 0,
                channel_chars=int_map(raw, "channel_chars", f"sections[{i}]"),
                docs_chars=opt_int(raw, "docs_chars", f"sections[{i}]") or 0,
                docs_tool_chars=int_map(raw, "docs_tool_chars", f"sections[{i}]"),
                tool_pairs=int_map(raw, "tool_pairs", f"sections[{i}]"),
                channel_tool_chars=int_map(raw, "channel_tool_chars", f"sections[{i}]"),
                suggest_chars=opt_int(raw, "suggest_chars", f"sections[{i}]") or 0,
                chat_chars=int_map(raw, "chat_chars", f"sections[{i}]"),
                file_chars=int_map(raw, "file_chars", f"sections[{i}]"),
                heartbeat=int_map(raw, "heartbeat", f"sections[{i}]"),
                docs_file=str(raw.get("docs_file", "")),
                default_model=str(raw.get("default_model", "")),
                docs_stand_in=str(raw.get("docs_stand_in", "")),
            )
        )
    lines = proj.get("file_lines", {})
    if not isinstance(lines, dict):
        raise fail("`project_context.file_lines` must be a mapping of file name to line")
    file_lines = {str(k): str(v) for k, v in lines.items()}
    if proj.get("soul_line"):
        file_lines.setdefault("SOUL.md", str(proj["soul_line"]))
    allowlists = section_of(boot, "allowlists")
    caps = section_of(boot, "file_caps")
    spawn = section("spawn")
    truncation = boot.get("truncation", "head70-tail20")
    if truncation not in TRUNCATIONS:
        raise fail(f"`bootstrap.truncation` must be one of {list(TRUNCATIONS)}")
    links = section_of(boot, "links")
    for key, choices in LINK_RULES.items():
        if links.get(key, choices[0]) not in choices:
            raise fail(f"`bootstrap.links.{key}` must be one of {list(choices)}")
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
        max_chars=opt_int(boot, "max_chars", "bootstrap"),
        total_max_chars=opt_int(boot, "total_max_chars", "bootstrap"),
        min_remaining=opt_int(boot, "min_remaining", "bootstrap") or 0,
        missing_body=str(boot.get("missing_body", "[MISSING] Expected at: {path}")),
        not_injected_globs=strs(boot, "not_injected_globs", "bootstrap"),
        project_heading=str(proj.get("heading", "# Project Context")),
        file_heading=str(proj.get("file_heading", "## {path}")),
        project_intro=str(proj.get("intro", "")),
        file_lines=file_lines,
        line_chars=int_map(proj, "line_chars", "project_context"),
        soul_line_modes=strs(proj, "soul_line_modes", "project_context"),
        separator=str(data.get("separator", "\n")),
        sections=tuple(specs),
        task_message=str(sub.get("task_message", "{task}")),
        version=str(data.get("version", "")),
        family=str(data.get("family", "")),
        allowlists={str(k): strs(allowlists, k, "bootstrap.allowlists") for k in allowlists}
        or {
            k: strs(boot, "minimal_allowlist", "bootstrap")
            for k in strs(sessions, "minimal_kinds", "sessions")
        },
        private_files=strs(boot, "private_files", "bootstrap"),
        private_chat_types=strs(boot, "private_chat_types", "bootstrap"),
        file_caps={str(k): opt_int(caps, k, "bootstrap.file_caps") or 0 for k in caps},
        truncation=truncation,
        policy_digest_files=strs(boot, "policy_digest_files", "bootstrap"),
        unreadable_body=(
            str(boot["unreadable_body"]) if boot.get("unreadable_body") is not None else None
        ),
        unreadable_dropped=strs(boot, "unreadable_dropped", "bootstrap"),
        symlinks=str(links.get("symlinks", "follow")),
        hardlinks=str(links.get("hardlinks", "allow")),
        setup_files=strs(boot, "setup_files", "bootstrap"),
        retired_files=strs(boot, "retired_files", "bootstrap"),
        onboarding_files=strs(boot, "onboarding_files", "bootstrap"),
        prompt_strip=tuple(patterns(boot, "prompt_strip")),
        collapse_blank_lines=bool(boot.get("collapse_blank_lines", False)),
        crlf_to_lf_modes=strs(boot, "crlf_to_lf_modes", "bootstrap"),
        first_run=section_of(boot, "first_run"),
        per_agent_limits=bool(boot.get("per_agent_limits", False)),
        case_fold_keys=bool(sessions.get("case_fold", False)),
        spawn=spawn,
        context_chars=int_map(sub, "context_chars", "subagent"),
        config_rules=section("config"),
        tool_rules=section("tools"),
        context_has_task=bool(sub.get("context_has_task", False)),
        measured=int_map(data, "measured", "profile"),
        skills_budget=budget_rules(section("skills_budget"), fail),
        skill_audit=_patterns(data.get("skill_audit", {}), fail),
        note=str(data.get("note", "")),
    )


def _patterns(value: Any, fail: Callable[[str], ProfileError]) -> dict[str, str]:
    """`skill_audit`: names to regular expressions that compile."""
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise fail("`skill_audit` must map names to regular expressions")
    for name, pattern in value.items():
        try:
            re.compile(pattern, re.ASCII)
        except re.error as exc:
            raise fail(f"`skill_audit.{name}` is not a regular expression: {exc}") from None
    return {str(k): v for k, v in value.items()}


if __name__ == "__main__":
    for written in write_parsed_forms():
        print(written)
