"""GoClaw's config (`goclaw.json`) and users (`users.json`): roles, memory access, role
prompts, and the user a session key belongs to.

GoClaw reads `goclaw.json` and `users.json` from its folder (`~/.goclaw`, whose `workspace/`
is the default workspace). ctxscope looks beside the workspace first (its parent folder, then
the workspace itself), then in `~/.goclaw` when that config's `gateway.workingDir` is this
workspace. Both files are strict JSON, as GoClaw parses them.
"""

from __future__ import annotations

import json
import re
from dataclasses import field
from pathlib import Path
from typing import Any

from ctxscope.core.model import Diagnostic
from ctxscope.core.record import record
from ctxscope.infra import paths
from ctxscope.infra.snapshot import Snapshot

CONFIG_FILE = "goclaw.json"
USERS_FILE = "users.json"
OWNER = "owner"
_USERNAME = re.compile(r"[a-z][a-z0-9_]{0,31}")


@record(frozen=True)
class Role:
    """A role as GoClaw resolves it."""

    name: str
    memory: str
    """`full` gives MEMORY.md; anything else (GoClaw's default `none`) does not."""
    tools: tuple[str, ...] | None
    """The tools the role may use (None: every tool, `"*"`)."""
    skills: tuple[str, ...] | None
    """The skills the role may use (None: every skill, `"*"`)."""
    system_prompt: str = ""
    system_prompt_file: str = ""
    source: str = ""
    """Where the role is defined, in words."""

    @property
    def full_memory(self) -> bool:
        return self.memory == "full"

    def can_use_tool(self, name: str) -> bool:
        return self.tools is None or name in self.tools

    def can_use_skill(self, name: str) -> bool:
        return self.skills is None or name in self.skills


@record(frozen=True)
class User:
    """A user of `users.json` (the key is the id)."""

    id: str
    name: str
    role: str


@record
class Setup:
    """What ctxscope read of GoClaw's config and users."""

    config: dict[str, Any] = field(default_factory=dict)
    config_path: str | None = None
    users_path: str | None = None
    users: dict[str, User] = field(default_factory=dict)
    """The users GoClaw keeps (those whose role resolves)."""
    roles: dict[str, Any] = field(default_factory=dict)
    owner: str | None = None
    diagnostics: list[Diagnostic] = field(default_factory=list)

    def role(self, name: str) -> Role | None:
        """The role as GoClaw resolves it: the config's, the built-in one for `owner`, else
        None (GoClaw cannot resolve it)."""
        raw = self.roles.get(name)
        if isinstance(raw, dict):
            return _role_from(name, raw, f"{self.config_path}: roles.{name}")
        if name == OWNER:
            return Role(OWNER, "full", None, None, source="GoClaw's built-in owner role")
        return None

    def get(self, path: str, default: Any = None) -> Any:
        """A config value by dotted path."""
        value: Any = self.config
        for part in path.split("."):
            if not isinstance(value, dict) or part not in value:
                return default
            value = value[part]
        return value


def text_of(obj: dict[str, Any], key: str) -> str:
    """`obj[key]` when it is a string, else "" (what Go's JSON decoding leaves)."""
    value = obj.get(key)
    return value if isinstance(value, str) else ""


def _names(value: Any) -> tuple[str, ...] | None:
    """`"*"` → None (all); a list → its strings; anything else → none (GoClaw's nil list)."""
    if value == "*":
        return None
    if isinstance(value, list):
        return tuple(v for v in value if isinstance(v, str))
    return ()


def _role_from(name: str, raw: dict[str, Any], source: str) -> Role:
    return Role(
        name,
        text_of(raw, "memory") or "none",
        _names(raw.get("tools")),
        _names(raw.get("skills")),
        text_of(raw, "systemPrompt"),
        text_of(raw, "systemPromptFile"),
        source,
    )


def find_config(workspace: Path, explicit: str | None, snapshot: Snapshot) -> Path | None:
    """The `goclaw.json` GoClaw would read for `workspace` (see the module doc)."""
    if explicit is not None and Path(explicit).name == CONFIG_FILE:
        return Path(explicit)
    for folder in (workspace.parent, workspace):
        if (folder / CONFIG_FILE).is_file():
            return folder / CONFIG_FILE
    home = paths.home() / ".goclaw" / CONFIG_FILE
    if home.is_file():
        data, _ = _read_json(home, snapshot)
        working = data.get("gateway", {}).get("workingDir") if isinstance(data, dict) else None
        if isinstance(working, str) and _same(Path(working).expanduser(), workspace):
            return home
    return None


def _same(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except OSError:
        return False


def _read_json(path: Path, snapshot: Snapshot) -> tuple[Any, list[Diagnostic]]:
    fr = snapshot.read(path)
    if not fr.exists:
        why = fr.diagnostics[0].message if fr.diagnostics else "no such file"
        return None, [Diagnostic("error", f"cannot read: {why}", fr.path, code="goclaw-read")]
    try:
        return json.loads(fr.text), []
    except json.JSONDecodeError as exc:
        return None, [
            Diagnostic(
                "error",
                f"not valid JSON ({exc.msg}): GoClaw would not start with it",
                fr.path,
                exc.lineno,
                exc.colno,
                code="goclaw-json",
            )
        ]


def load_setup(workspace: Path, explicit: str | None, snapshot: Snapshot) -> Setup:
    """Read GoClaw's config and users for `workspace`; problems become diagnostics (the
    build goes on with what could be read)."""
    setup = Setup()
    path = find_config(workspace, explicit, snapshot)
    folder = path.parent if path is not None else None
    if path is not None:
        data, diags = _read_json(path, snapshot)
        setup.diagnostics += diags
        setup.config_path = str(path.absolute())
        if isinstance(data, dict):
            setup.config = data
        elif data is not None:
            setup.diagnostics.append(_shape(setup.config_path, "an object"))
        roles = setup.config.get("roles")
        if isinstance(roles, dict):
            setup.roles = roles
        elif roles is not None:
            setup.diagnostics.append(_shape(setup.config_path, "`roles` as an object"))
    for candidate in [folder] if folder else [workspace.parent, workspace]:
        if (candidate / USERS_FILE).is_file():
            _load_users(setup, candidate / USERS_FILE, snapshot)
            break
    if setup.users_path is None:
        setup.diagnostics.append(
            Diagnostic(
                "info",
                f"no {USERS_FILE} beside the workspace: the session runs as an owner with "
                "GoClaw's built-in owner role",
                str(workspace),
                code="goclaw-no-users",
            )
        )
    return setup


def _shape(path: str, what: str) -> Diagnostic:
    return Diagnostic("error", f"GoClaw expects {what} here", path, 1, code="goclaw-shape")


def _load_users(setup: Setup, path: Path, snapshot: Snapshot) -> None:
    data, diags = _read_json(path, snapshot)
    setup.users_path = str(path.absolute())
    setup.diagnostics += diags
    if data is None:
        return
    if not isinstance(data, dict):
        setup.diagnostics.append(_shape(setup.users_path, "an object of users"))
        return
    owners = []
    for uid, entry in data.items():
        entry = entry if isinstance(entry, dict) else {}
        role = text_of(entry, "role")
        problem = None
        if not _USERNAME.fullmatch(uid):
            problem = (
                f"invalid user name {uid!r} (1-32 lower-case letters, digits or _, starting "
                "with a letter): GoClaw would not start"
            )
        elif not role:
            problem = f"user {uid!r} has no role: GoClaw would not start"
        if problem:
            setup.diagnostics.append(
                Diagnostic("error", problem, setup.users_path, code="goclaw-user")
            )
            continue
        if setup.role(role) is None:
            setup.diagnostics.append(
                Diagnostic(
                    "warning",
                    f"user {uid!r} has role {role!r}, which {CONFIG_FILE} does not define: "
                    "GoClaw skips this user",
                    setup.users_path,
                    code="goclaw-role",
                )
            )
            continue
        setup.users[uid] = User(uid, text_of(entry, "name"), role)
        if role == OWNER:
            owners.append(uid)
    if len(owners) > 1:
        setup.diagnostics.append(
            Diagnostic(
                "warning",
                f"several owners ({', '.join(owners)}): GoClaw picks one of them at random",
                setup.users_path,
                code="goclaw-owners",
            )
        )
    setup.owner = owners[-1] if owners else None


@record(frozen=True)
class Speaker:
    """Whose message a session key carries, and why."""

    user: User | None
    rule: str
    diagnostics: tuple[Diagnostic, ...] = ()


def default_key(setup: Setup, user_id: str | None) -> str:
    """The key GoClaw gives a direct message from `user_id`: the owner's `primary`, another
    user's `user:<id>` (no user named: `primary`)."""
    user = setup.users.get(user_id or "")
    if user is None or user.role == OWNER or not setup.users_path:
        return "primary"
    return f"user:{user.id}"


def speaker(setup: Setup, key: str, user_id: str | None) -> Speaker:
    """The user GoClaw runs session `key` as: `primary` and `cron:<job>` the owner,
    `user:<id>` that user, any other key (a group chat, an explicit session id) the
    scenario's user, else the owner."""
    owner = _owner(setup)
    named = setup.users.get(user_id) if user_id else None
    diags: list[Diagnostic] = []
    if user_id and named is None and setup.users_path:
        diags.append(
            Diagnostic(
                "error",
                f"the scenario names user {user_id!r}, which GoClaw does not know",
                setup.users_path,
                code="goclaw-unknown-user",
            )
        )
    if key == "primary":
        if named is not None and named.role != OWNER:
            diags.append(_key_wins(key, named, "the owner's session"))
        return Speaker(owner, "`primary` is the owner's session", tuple(diags))
    if key.startswith("user:"):
        uid = key[len("user:") :]
        user = setup.users.get(uid)
        if user is None:
            diags.append(
                Diagnostic(
                    "error",
                    f"session key {key!r} names user {uid!r}, which GoClaw does not know "
                    "(it would not run this session)",
                    setup.users_path,
                    code="goclaw-unknown-user",
                )
            )
        elif named is not None and named.id != uid:
            diags.append(_key_wins(key, named, f"{uid}'s session"))
        return Speaker(user, f"`user:<id>` is that user's session ({uid})", tuple(diags))
    if key.startswith("cron:"):
        return Speaker(owner, "cron jobs run as the owner", tuple(diags))
    kind = "a group chat" if key.startswith("group:") else "an explicit session id"
    if named is not None:
        return Speaker(named, f"{kind}: the scenario's user sends the message", tuple(diags))
    return Speaker(owner, f"{kind}: the owner, as no user is named", tuple(diags))


def _owner(setup: Setup) -> User | None:
    if setup.owner is not None:
        return setup.users[setup.owner]
    if setup.users_path is None:
        return User(OWNER, "", OWNER)
    return None


def _key_wins(key: str, named: User, whose: str) -> Diagnostic:
    return Diagnostic(
        "warning",
        f"the scenario names user {named.id!r}, but session key {key!r} is {whose}: the key "
        "decides",
        code="goclaw-user-key",
    )
