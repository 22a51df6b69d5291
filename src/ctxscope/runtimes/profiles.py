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


def unknown_family(profile: Profile) -> Diagnostic | None:
    """A warning for a profile whose `family` is none of the bundled profiles' (the runtimes
    ctxscope models, `registry.RUNTIMES`): its sessions are then built as OpenClaw builds
    them. None for a known family or none given."""
    known = sorted({family for family, _ in bundled_releases().values() if family})
    if not profile.family or profile.family in known:
        return None
    return Diagnostic(
        "warning",
        f"profile family {profile.family!r} is not a runtime ctxscope models "
        f"({', '.join(known)}): its sessions are built as OpenClaw builds them",
        profile.path,
        code="profile-family",
    )


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


@record(frozen=True)
class _Fields:
    """Reads a profile file's fields, each checked for its type; a bad one is a
    `ProfileError` naming the file and the field."""

    path: str

    def fail(self, msg: str) -> ProfileError:
        return ProfileError(Diagnostic("error", msg, self.path, code="profile-field"))

    def mapping(self, obj: dict[str, Any], key: str, where: str = "") -> dict[str, Any]:
        value = obj.get(key, {})
        if not isinstance(value, dict):
            raise self.fail(f"`{where}{key}` must be a mapping")
        return value

    def strs(self, obj: dict[str, Any], key: str, where: str) -> tuple[str, ...]:
        value = obj.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self.fail(f"`{where}.{key}` must be a list of strings")
        return tuple(value)

    def int_map(self, obj: dict[str, Any], key: str, where: str) -> dict[str, int]:
        value = obj.get(key, {})
        if not isinstance(value, dict) or not all(
            isinstance(v, int) and not isinstance(v, bool) for v in value.values()
        ):
            raise self.fail(f"`{where}.{key}` must map names to integers")
        return {str(k): int(v) for k, v in value.items()}

    def opt_int(self, obj: dict[str, Any], key: str, where: str) -> int | None:
        value = obj.get(key)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise self.fail(f"`{where}.{key}` must be a non-negative integer or null")
        return value

    def patterns(self, obj: dict[str, Any], key: str) -> tuple[re.Pattern[str], ...]:
        out = []
        for i, text in enumerate(self.strs(obj, key, "bootstrap")):
            try:
                out.append(re.compile(text))
            except re.error as exc:
                raise self.fail(f"`bootstrap.{key}[{i}]` is not a valid pattern: {exc}") from None
        return tuple(out)


def _profile_from(data: Any, path: str) -> Profile:
    """A profile from its file's parsed data, every field checked (the first bad one, in
    the order below, is the error)."""
    if not isinstance(data, dict):
        raise ProfileError(
            Diagnostic("error", "a profile must be a mapping", path, 1, code="profile-shape")
        )
    f = _Fields(path)
    name = data.get("name")
    if not isinstance(name, str) or not name:
        raise f.fail("`name` is required")
    identity = _identity(data, f)
    sessions, boot, proj, sub = (f.mapping(data, key) for key in _PARTS)
    specs = _section_specs(data, f)
    file_lines = _file_lines(proj, f)
    allowlists = f.mapping(boot, "allowlists", "bootstrap.")
    caps = f.mapping(boot, "file_caps", "bootstrap.")
    spawn = f.mapping(data, "spawn")
    truncation = _truncation(boot, f)
    links = _links(boot, f)
    return Profile(
        name=name,
        description=str(data.get("description", "")),
        runtime_name=str(data.get("runtime_name", name)),
        path=path,
        identity={m: str(identity.get(m, "")) for m in MODES},
        **_session_rules(sessions, f),
        **_bootstrap_limits(boot, f),
        **_project_context(proj, file_lines, f),
        separator=str(data.get("separator", "\n")),
        sections=specs,
        task_message=str(sub.get("task_message", "{task}")),
        version=str(data.get("version", "")),
        family=str(data.get("family", "")),
        **_bootstrap_rules(boot, sessions, allowlists, caps, f),
        truncation=truncation,
        **_file_handling(boot, links, f),
        **_runtime_rules(data, sessions, sub, spawn, f),
    )


_PARTS = ("sessions", "bootstrap", "project_context", "subagent")
"""The mappings a profile groups its fields in, in the order they are checked."""


def _identity(data: dict[str, Any], f: _Fields) -> dict[str, Any]:
    """The identity line of each prompt mode."""
    identity = f.mapping(data, "identity")
    for mode in MODES:
        if not isinstance(identity.get(mode, ""), str):
            raise f.fail(f"`identity.{mode}` must be a string")
    return identity


def _section_specs(data: dict[str, Any], f: _Fields) -> tuple[SectionSpec, ...]:
    """The prompt's sections, in order (at least one)."""
    raw_sections = data.get("sections")
    if not isinstance(raw_sections, list) or not raw_sections:
        raise f.fail("`sections` must be a non-empty list")
    return tuple(_section_spec(raw, i, f) for i, raw in enumerate(raw_sections))


def _section_spec(raw: Any, i: int, f: _Fields) -> SectionSpec:
    """`sections[i]`: its kind, the modes and session kinds it applies to, its sizes."""
    if not isinstance(raw, dict):
        raise f.fail(f"sections[{i}] must be a mapping")
    kind = raw.get("kind")
    if kind not in SECTION_KINDS:
        raise f.fail(f"sections[{i}].kind {kind!r} is not one of {sorted(SECTION_KINDS)}")
    where = f"sections[{i}]"
    modes = f.strs(raw, "modes", where)
    if any(m not in MODES for m in modes):
        raise f.fail(f"sections[{i}].modes must name modes among {list(MODES)}")
    kinds = f.strs(raw, "kinds", where) if "kinds" in raw else None
    when = raw.get("when_tools", {})
    if not isinstance(when, dict):
        raise f.fail(f"sections[{i}].when_tools must be a mapping of mode to tool names")
    return SectionSpec(
        id=str(raw.get("id") or kind),
        heading=str(raw.get("heading", "")),
        kind=kind,
        modes=modes,
        kinds=kinds,
        typical_chars=int(raw.get("typical_chars", 0) or 0),
        fields=f.strs(raw, "fields", where),
        when_tools={str(m): f.strs(when, m, f"{where}.when_tools") for m in when},
        fallback_chars=f.opt_int(raw, "fallback_chars", where) or 0,
        tool_chars=f.int_map(raw, "tool_chars", where),
        tool_lines=f.int_map(raw, "tool_lines", where),
        deferred_lines=f.int_map(raw, "deferred_lines", where),
        directory_chars=f.opt_int(raw, "directory_chars", where) or 0,
        line_pairs=f.int_map(raw, "line_pairs", where),
        deferred_pairs=f.int_map(raw, "deferred_pairs", where),
        model_line_chars=f.opt_int(raw, "model_line_chars", where) or 0,
        channel_chars=f.int_map(raw, "channel_chars", where),
        docs_chars=f.opt_int(raw, "docs_chars", where) or 0,
        docs_tool_chars=f.int_map(raw, "docs_tool_chars", where),
        tool_pairs=f.int_map(raw, "tool_pairs", where),
        channel_tool_chars=f.int_map(raw, "channel_tool_chars", where),
        suggest_chars=f.opt_int(raw, "suggest_chars", where) or 0,
        chat_chars=f.int_map(raw, "chat_chars", where),
        file_chars=f.int_map(raw, "file_chars", where),
        heartbeat=f.int_map(raw, "heartbeat", where),
        docs_file=str(raw.get("docs_file", "")),
        default_model=str(raw.get("default_model", "")),
        docs_stand_in=str(raw.get("docs_stand_in", "")),
    )


def _file_lines(proj: dict[str, Any], f: _Fields) -> dict[str, str]:
    """Project Context's intro line per file name (`soul_line`: SOUL.md's, the older key)."""
    lines = proj.get("file_lines", {})
    if not isinstance(lines, dict):
        raise f.fail("`project_context.file_lines` must be a mapping of file name to line")
    file_lines = {str(k): str(v) for k, v in lines.items()}
    if proj.get("soul_line"):
        file_lines.setdefault("SOUL.md", str(proj["soul_line"]))
    return file_lines


def _truncation(boot: dict[str, Any], f: _Fields) -> str:
    truncation = boot.get("truncation", "head70-tail20")
    if truncation not in TRUNCATIONS:
        raise f.fail(f"`bootstrap.truncation` must be one of {list(TRUNCATIONS)}")
    return str(truncation)


def _links(boot: dict[str, Any], f: _Fields) -> dict[str, Any]:
    """`bootstrap.links`: how the loader treats symbolic and hard links."""
    links = f.mapping(boot, "links", "bootstrap.")
    for key, choices in LINK_RULES.items():
        if links.get(key, choices[0]) not in choices:
            raise f.fail(f"`bootstrap.links.{key}` must be one of {list(choices)}")
    return links


def _session_rules(sessions: dict[str, Any], f: _Fields) -> dict[str, Any]:
    """How session keys are read: the prefixes and markers of each kind, a child's key."""
    return {
        "subagent_prefixes": f.strs(sessions, "subagent_prefixes", "sessions"),
        "cron_prefixes": f.strs(sessions, "cron_prefixes", "sessions"),
        "legacy_subagent_prefixes": f.strs(sessions, "legacy_subagent_prefixes", "sessions"),
        "subagent_markers": f.strs(sessions, "subagent_markers", "sessions"),
        "minimal_kinds": f.strs(sessions, "minimal_kinds", "sessions"),
        "child_key": str(sessions.get("child_key", "agent:{agent}:subagent:{id}")),
    }


def _bootstrap_limits(boot: dict[str, Any], f: _Fields) -> dict[str, Any]:
    """The bootstrap files, their budgets and what a missing file injects."""
    return {
        "files": f.strs(boot, "files", "bootstrap"),
        "optional_files": f.strs(boot, "optional_files", "bootstrap"),
        "dedupe_same_file": bool(boot.get("dedupe_same_file", True)),
        "max_chars": f.opt_int(boot, "max_chars", "bootstrap"),
        "total_max_chars": f.opt_int(boot, "total_max_chars", "bootstrap"),
        "min_remaining": f.opt_int(boot, "min_remaining", "bootstrap") or 0,
        "missing_body": str(boot.get("missing_body", "[MISSING] Expected at: {path}")),
        "not_injected_globs": f.strs(boot, "not_injected_globs", "bootstrap"),
    }


def _project_context(
    proj: dict[str, Any], file_lines: dict[str, str], f: _Fields
) -> dict[str, Any]:
    """How the Project Context section introduces and heads each file."""
    return {
        "project_heading": str(proj.get("heading", "# Project Context")),
        "file_heading": str(proj.get("file_heading", "## {path}")),
        "project_intro": str(proj.get("intro", "")),
        "file_lines": file_lines,
        "line_chars": f.int_map(proj, "line_chars", "project_context"),
        "soul_line_modes": f.strs(proj, "soul_line_modes", "project_context"),
    }


def _bootstrap_rules(
    boot: dict[str, Any],
    sessions: dict[str, Any],
    allowlists: dict[str, Any],
    caps: dict[str, Any],
    f: _Fields,
) -> dict[str, Any]:
    """Which session gets which file (allowlists, private files) and each file's cap; a
    profile without `allowlists` gives each minimal kind the `minimal_allowlist`."""
    return {
        "allowlists": {str(k): f.strs(allowlists, k, "bootstrap.allowlists") for k in allowlists}
        or {
            k: f.strs(boot, "minimal_allowlist", "bootstrap")
            for k in f.strs(sessions, "minimal_kinds", "sessions")
        },
        "private_files": f.strs(boot, "private_files", "bootstrap"),
        "private_chat_types": f.strs(boot, "private_chat_types", "bootstrap"),
        "file_caps": {str(k): f.opt_int(caps, k, "bootstrap.file_caps") or 0 for k in caps},
    }


def _file_handling(boot: dict[str, Any], links: dict[str, Any], f: _Fields) -> dict[str, Any]:
    """How the loader reads, cuts and cleans each file, and which files it special-cases."""
    unreadable = boot.get("unreadable_body")
    return {
        "policy_digest_files": f.strs(boot, "policy_digest_files", "bootstrap"),
        "unreadable_body": str(boot["unreadable_body"]) if unreadable is not None else None,
        "unreadable_dropped": f.strs(boot, "unreadable_dropped", "bootstrap"),
        "symlinks": str(links.get("symlinks", "follow")),
        "hardlinks": str(links.get("hardlinks", "allow")),
        "setup_files": f.strs(boot, "setup_files", "bootstrap"),
        "retired_files": f.strs(boot, "retired_files", "bootstrap"),
        "onboarding_files": f.strs(boot, "onboarding_files", "bootstrap"),
        "prompt_strip": f.patterns(boot, "prompt_strip"),
        "collapse_blank_lines": bool(boot.get("collapse_blank_lines", False)),
        "crlf_to_lf_modes": f.strs(boot, "crlf_to_lf_modes", "bootstrap"),
        "first_run": f.mapping(boot, "first_run", "bootstrap."),
        "per_agent_limits": bool(boot.get("per_agent_limits", False)),
    }


def _runtime_rules(
    data: dict[str, Any],
    sessions: dict[str, Any],
    sub: dict[str, Any],
    spawn: dict[str, Any],
    f: _Fields,
) -> dict[str, Any]:
    """The rest of the release's behaviour: spawning, its subagent block, config and tool
    rules, measured sizes, skills, and the note its sessions carry."""
    return {
        "case_fold_keys": bool(sessions.get("case_fold", False)),
        "spawn": spawn,
        "context_chars": f.int_map(sub, "context_chars", "subagent"),
        "config_rules": f.mapping(data, "config"),
        "tool_rules": f.mapping(data, "tools"),
        "context_has_task": bool(sub.get("context_has_task", False)),
        "measured": f.int_map(data, "measured", "profile"),
        "skills_budget": budget_rules(f.mapping(data, "skills_budget"), f.fail),
        "skill_audit": _patterns(data.get("skill_audit", {}), f.fail),
        "note": str(data.get("note", "")),
    }


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
