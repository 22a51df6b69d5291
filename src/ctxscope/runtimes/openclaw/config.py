"""Gateway config discovery, parsing (JSON5 / YAML) and lookups.

Discovery, first found: `--config PATH`; `WORKSPACE/openclaw.json`, `.json5`, `.yaml`; the same
names in the workspace's parent folder (the standard `~/.openclaw/openclaw.json` beside
`~/.openclaw/workspace/`). No config is fine: every default applies.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Mapping
from dataclasses import field
from functools import cached_property
from pathlib import Path
from typing import Any

from ctxscope.core.ids import DEFAULT_AGENT_ID, is_valid_agent_id, normalize_agent_id
from ctxscope.core.keylines import KeyPath, key_lines, parse_path
from ctxscope.core.model import Diagnostic, Severity
from ctxscope.core.record import record
from ctxscope.core.secrets import describe
from ctxscope.infra.paths import home_relative, openclaw_home, openclaw_path
from ctxscope.infra.snapshot import Snapshot
from ctxscope.runtimes.openclaw.configparse import ConfigError, parse_config_text, parse_json5
from ctxscope.runtimes.openclaw.configread import (
    INCLUDE_KEY,
    EnvString,
    MissingEnv,
    config_env,
    resolve_includes,
    substitute_env,
)

CONFIG_NAMES = ("openclaw.json", "openclaw.json5", "openclaw.yaml")


@record
class GatewayConfig:
    """A parsed gateway config (or the empty default when there is none)."""

    data: dict[str, Any] = field(default_factory=dict)
    path: str | None = None
    text: str = ""
    diagnostics: list[Diagnostic] = field(default_factory=list)
    included: tuple[tuple[str, str], ...] = ()
    """(path, text) of every `$include`d file, in the order read."""
    missing_env: tuple[MissingEnv, ...] = ()
    """`${NAME}` references whose variable is unset (left as written)."""
    env_strings: tuple[EnvString, ...] = ()
    """Every string a variable's value went into (shown masked, see `secrets.EnvMask`)."""
    entries_roster: bool = False
    """Read `agents.entries` (id -> agent) as the roster when present (OpenClaw 2026.9)."""
    home: Path | None = None
    """The folder OpenClaw's `~` stands for in the config's paths (`paths.openclaw_home` of
    the environment it was read with; None: this process's)."""
    workspace_owner: str = "default"
    """Which agent without its own `workspace` runs in the default workspace: `default`
    (the default agent; OpenClaw 2026.2) or `sole-or-marked` (the one agent marked
    `default: true` unless `agents.ownership` is explicit, else the only agent; 2026.9,
    where the others run in `<agents.defaults.workspace>/<id>`)."""

    @cached_property
    def _key_lines(self) -> dict[KeyPath, int]:
        return key_lines(self.text, self.path)

    def line_of(self, dotted: str) -> int | None:
        """The line where the key `a.b[1].c` is written in the config file (None when it
        is not written there, e.g. it came from an `$include`)."""
        return self._key_lines.get(parse_path(dotted)) if self.text else None

    @property
    def folder(self) -> Path | None:
        return Path(self.path).parent if self.path else None

    @property
    def digest(self) -> str:
        """sha256 of the config text ("" when there is no config)."""
        if not self.path:
            return ""

        return hashlib.sha256(self.text.encode()).hexdigest()

    # -- lookups -------------------------------------------------------------------------
    @property
    def defaults(self) -> dict[str, Any]:
        return as_dict(as_dict(self.data.get("agents")).get("defaults"))

    @cached_property
    def agent_list(self) -> list[dict[str, Any]]:
        """The configured agents: `agents.entries` (each with its key as `id`) when the
        version reads it and it is there, else `agents.list`."""
        agents = as_dict(self.data.get("agents"))
        entries = agents.get("entries")
        if self.entries_roster and isinstance(entries, dict):
            return [{**v, "id": str(k)} for k, v in entries.items() if isinstance(v, dict)]
        raw = agents.get("list")
        return [a for a in raw if isinstance(a, dict)] if isinstance(raw, list) else []

    @cached_property
    def _agents_by_id(self) -> dict[str, dict[str, Any]]:
        """Agents by case-folded id, the first of a repeated id winning (one lookup per agent
        instead of a scan: thousands of agents stay fast)."""
        out: dict[str, dict[str, Any]] = {}
        for entry in self.agent_list:
            out.setdefault(normalize_agent_id(str(entry.get("id", ""))), entry)
        return out

    def agent(self, agent_id: str) -> dict[str, Any] | None:
        """The configured entry for `agent_id` (case-folded), or None."""
        return self._agents_by_id.get(normalize_agent_id(agent_id))

    def agent_ids(self) -> list[str]:
        """Configured agent ids; the implicit `main` when the list is empty."""
        return list(self._agent_ids)

    @cached_property
    def _agent_ids(self) -> tuple[str, ...]:
        """Computed once per config (a build asks several times; thousands of agents)."""
        ids = [normalize_agent_id(str(a.get("id", ""))) for a in self.agent_list if a.get("id")]
        return tuple(ids or [DEFAULT_AGENT_ID])

    def default_agent_id(self) -> str:
        return self._default_agent_id

    @cached_property
    def _default_agent_id(self) -> str:
        """The first agent marked `default: true`, else the first configured (once per
        config: every agent's workspace asks)."""
        for entry in self.agent_list:
            if entry.get("default") is True and entry.get("id"):
                return normalize_agent_id(str(entry["id"]))
        ids = self.agent_ids()
        return ids[0]

    def get(self, dotted: str, default: Any = None) -> Any:
        """Look up `a.b.c` in the config data."""
        node: Any = self.data
        for part in dotted.split("."):
            if not isinstance(node, dict) or part not in node:
                return default
            node = node[part]
        return node

    def agent_workspace(self, agent_id: str, default_workspace: Path) -> tuple[Path, str]:
        """The workspace folder for `agent_id` and the rule that chose it.

        The agent's own `workspace` wins (`~` expanded, a relative path taken from the config
        file's folder). The agent that owns the default workspace (`workspace_owner`) runs in
        the inspected one. Any other agent: 2026.9 `<agents.defaults.workspace>/<id>` when
        that is set; else `workspace-<id>` in OpenClaw's state folder (the config file's
        folder, the runtime keeping `openclaw.json` there; without a config, the
        workspace's parent).
        """
        entry = self.agent(agent_id)
        raw = entry.get("workspace") if entry else None
        if isinstance(raw, str) and raw.strip():
            return self._path(raw, default_workspace), f"agents.list[{agent_id}].workspace"
        aid = normalize_agent_id(agent_id)
        if aid == self._workspace_owner:
            return default_workspace, "the inspected workspace"
        fallback = self.defaults.get("workspace")
        if self.workspace_owner != "default" and isinstance(fallback, str) and fallback.strip():
            base = self._path(fallback, default_workspace)
            return base / aid, f"agents.defaults.workspace/{aid} (no workspace of its own)"
        state = self.folder or default_workspace.parent
        return state / f"workspace-{aid}", (
            f"workspace-{aid} in OpenClaw's state folder (no workspace of its own)"
        )

    @property
    def user_home(self) -> Path:
        """The folder `~` stands for in the config's paths (`home`, else this process's)."""
        return self.home or openclaw_home()

    def user_path(self, raw: str) -> str:
        """A path the config names, as OpenClaw resolves it (`~` its home, made absolute)."""
        return openclaw_path(raw, self.user_home)

    def _path(self, raw: str, default_workspace: Path) -> Path:
        raw = raw.strip()
        if home_relative(raw):
            return Path(self.user_path(raw))
        path = Path(raw)
        if not path.is_absolute():
            path = (self.folder or default_workspace) / path
        return Path(os.path.normpath(path))

    @cached_property
    def _workspace_owner(self) -> str | None:
        """The agent that runs in the default workspace without a `workspace` of its own
        (once per config: thousands of agents each ask)."""
        if self.workspace_owner == "default":
            return self.default_agent_id()
        agents = as_dict(self.data.get("agents"))
        roster = self.agent_list
        explicit = agents.get("ownership") == "explicit"
        if not explicit:
            marked = [a for a in roster if a.get("default") is True and a.get("id")]
            if len(marked) == 1:
                return normalize_agent_id(str(marked[0]["id"]))
        if len(roster) == 1 and roster[0].get("id"):
            return normalize_agent_id(str(roster[0]["id"]))
        if not roster and "list" not in agents and "entries" not in agents:
            return DEFAULT_AGENT_ID
        # Explicit ownership: no agent inherits the default workspace. Otherwise the runtime
        # refuses the roster (see openclaw.refusals); the view takes the default agent.
        return None if explicit else self.default_agent_id()


def string_list(value: Any) -> list[str] | None:
    """The non-blank strings of a list, trimmed (None when `value` is not a list)."""
    if not isinstance(value, list):
        return None
    return [v.strip() for v in value if isinstance(v, str) and v.strip()]


def as_dict(value: Any) -> dict[str, Any]:
    """`value` when it is a mapping, else an empty one (config values may be any type)."""
    return value if isinstance(value, dict) else {}


def discover_config(workspace: Path, explicit: str | os.PathLike[str] | None = None) -> Path | None:
    """Find the gateway config for `workspace` (see module doc). None when there is none."""
    if explicit is not None:
        return Path(explicit)
    for folder in (workspace, workspace.parent):
        for name in CONFIG_NAMES:
            candidate = folder / name
            if candidate.is_file():
                return candidate
    return None


def load_config(
    path: Path | None, read_text: Any = None, env: Mapping[str, str] | None = None
) -> GatewayConfig:
    """Load the config at `path` (None → the empty default). Raises ConfigError when the
    file cannot be read or parsed. `read_text(path) -> FileRead` lets the caller share a
    Snapshot cache; `${NAME}` is filled from `env` (the inputs' environment; none: no
    variable is set)."""
    if path is None:
        return GatewayConfig()
    apath = str(Path(path).absolute())
    if read_text is not None:
        fr = read_text(apath)
        if not fr.exists:
            detail = fr.diagnostics[0].message if fr.diagnostics else "no such file"
            raise ConfigError(
                Diagnostic(
                    "error", f"cannot read config: {detail}", apath, code="config-unreadable"
                )
            )
        if fr.capped:
            raise ConfigError(
                Diagnostic(
                    "error",
                    f"config is {fr.size:,} bytes, larger than the 2 MiB read cap; not parsed",
                    apath,
                    code="config-too-large",
                )
            )
        text = fr.text
        diags = list(fr.diagnostics)
    else:
        try:
            text = Path(apath).read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            raise ConfigError(
                Diagnostic(
                    "error", f"cannot read config: {exc.strerror}", apath, code="config-unreadable"
                )
            ) from None
        diags = []
    data = parse_config_text(text, apath)
    included: list[tuple[str, str]] = []
    if INCLUDE_KEY in text:
        reader = _reader(read_text)
        data, files, problems = resolve_includes(data, apath, reader, _parse_include)
        diags += problems
        included = [(f, reader(f).text) for f in files]
    missing: list[MissingEnv] = []
    made: list[EnvString] = []
    if "${" in text or any("${" in t for _, t in included):
        done = substitute_env(data, config_env(data, dict(env or {})))
        data, missing, made = done.data, done.missing, done.made
        if made:
            diags.append(env_note(made, apath))
    home = openclaw_home(env) if env is not None else None
    cfg = GatewayConfig(
        data, apath, text, diags, tuple(included), tuple(missing), tuple(made), home=home
    )
    cfg.diagnostics.extend(validate(cfg))
    return cfg


def env_note(made: list[EnvString], path: str) -> Diagnostic:
    """What a reader of the output must know about values from the environment."""
    names = list(dict.fromkeys(n for s in made for n, _ in s.pieces if n is not None))
    return Diagnostic(
        "info",
        f"{len(made)} config value(s) hold environment variables ("
        + ", ".join(names)
        + "): shown masked as ⟨$NAME⟩ unless allowed (--show-env NAME); sizes and token "
        "counts are those of the real values",
        path,
        code="config-env-masked",
    )


def _reader(read_text: Any) -> Any:
    if read_text is not None:
        return read_text

    return Snapshot().read


def _parse_include(text: str, path: str) -> Any:
    try:
        return parse_json5(text, path)
    except ConfigError as exc:
        found = exc.diagnostic
        detail = found.message.removeprefix("invalid JSON5: ")
        raise ValueError(f"{found.location}: {detail}") from None


# -- validation: unknown keys in the parts ctxscope interprets ------------------------------

_AGENT_KEYS = {
    "id",
    "default",
    "name",
    "workspace",
    "agentDir",
    "model",
    "skills",
    "memorySearch",
    "humanDelay",
    "heartbeat",
    "identity",
    "groupChat",
    "subagents",
    "sandbox",
    "tools",
    "params",
    "thinking",
    "thinkingDefault",
    "bootstrapMaxChars",
    "bootstrapTotalMaxChars",
    "contextTokens",
}
_SUBAGENT_KEYS = {
    "allowAgents",
    "model",
    "thinking",
    "maxSpawnDepth",
    "maxChildrenPerAgent",
    "maxConcurrent",
    "archiveAfterMinutes",
    "contextScripts",
    "runTimeoutSeconds",
    "announce",
}
_NUMERIC_DEFAULTS = (
    "bootstrapMaxChars",
    "bootstrapTotalMaxChars",
    "contextTokens",
    "subagents.maxSpawnDepth",
    "subagents.maxChildrenPerAgent",
)
"""Settings read with `int_setting`: a value that is not a non-negative integer is reported."""


def validate(cfg: GatewayConfig) -> list[Diagnostic]:
    """What the config holds that ctxscope cannot use or does not know: the shape of
    `agents` and `agents.list`, each agent's id, unknown keys, numeric defaults."""
    out: list[Diagnostic] = []
    path = cfg.path

    def said(severity: Severity, message: str, key: str | None, code: str) -> None:
        out.append(
            Diagnostic(severity, message, path, cfg.line_of(key) if key else None, code=code)
        )

    agents = cfg.data.get("agents")
    if agents is not None and not isinstance(agents, dict):
        said("error", "`agents` must be an object", "agents", "config-shape")
        return out
    raw_list = as_dict(agents).get("list")
    if raw_list is not None and not isinstance(raw_list, list):
        said("error", "`agents.list` must be an array", "agents.list", "config-shape")
    for i, entry in enumerate(raw_list if isinstance(raw_list, list) else []):
        _validate_agent(cfg, i, entry, said)
    sub = cfg.defaults.get("subagents")
    if isinstance(sub, dict):
        _unknown(cfg, "agents.defaults.subagents", sub, _SUBAGENT_KEYS, said)
    for key in _NUMERIC_DEFAULTS:
        value = cfg.get(f"agents.defaults.{key}")
        if value is not None and (
            not isinstance(value, int) or isinstance(value, bool) or value < 0
        ):
            said(
                "warning",
                f"agents.defaults.{key} must be a non-negative integer, not "
                f"{describe(value)}; the default is used",
                f"agents.defaults.{key}",
                "config-value",
            )
    return out


_Say = Callable[[Severity, str, "str | None", str], None]
"""Records a diagnostic: severity, message, the dotted key it is at (None: no line), code."""


def _validate_agent(cfg: GatewayConfig, i: int, entry: Any, said: _Say) -> None:
    """`agents.list[i]`: an object with a valid id and known keys."""
    if not isinstance(entry, dict):
        said("error", f"agents.list[{i}] must be an object", None, "config-shape")
        return
    aid = entry.get("id")
    if not isinstance(aid, str) or not is_valid_agent_id(aid):
        said(
            "error",
            f"agents.list[{i}].id {describe(aid)} is not a valid agent id "
            "([a-z0-9][a-z0-9_-]{0,63})",
            f"agents.list[{i}].id",
            "config-agent-id",
        )
    _unknown(cfg, f"agents.list[{i}]", entry, _AGENT_KEYS, said)
    sub = entry.get("subagents")
    if isinstance(sub, dict):
        _unknown(cfg, f"agents.list[{i}].subagents", sub, _SUBAGENT_KEYS, said)


def _unknown(
    cfg: GatewayConfig, where: str, obj: dict[str, Any], known: set[str], said: _Say
) -> None:
    for key in obj:
        if key not in known:
            said(
                "warning",
                f"unknown key {key!r} in {where} (ignored)",
                f"{where}.{key}",
                "config-unknown-key",
            )


def int_setting(cfg: GatewayConfig, key: str, default: int) -> int:
    """An integer from `agents.defaults.<key>` (dotted for deeper keys, e.g.
    `subagents.maxSpawnDepth`), the default when absent or invalid."""
    value = cfg.get(f"agents.defaults.{key}")
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    return default
