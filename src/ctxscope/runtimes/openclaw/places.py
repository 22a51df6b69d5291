"""Where an OpenClaw session runs, as its prompt says it: the `## Workspace` section, 2026.9's
`## Directory Roles` when a `cwd` names another folder, and the `## Sandbox` section with
the folder it mounts."""

from __future__ import annotations

import hashlib
import re

from ctxscope.core.tokens import text_chars
from ctxscope.infra.paths import openclaw_expand, openclaw_state_dir
from ctxscope.runtimes.openclaw.config import GatewayConfig
from ctxscope.runtimes.openclaw.promptcontext import (
    Absent,
    Generated,
    PromptContext,
    RuntimeText,
)
from ctxscope.runtimes.profiles import SectionSpec

# One-line summaries of the runtime's core tools, in ctxscope's words.


LOADED = ("injected", "truncated", "unreadable", "empty", "first-run")
"""File statuses of a bootstrap file the runtime found and kept for the session."""


def configured_cwd(config: GatewayConfig, agent_id: str) -> str | None:
    """The folder an agent's runs work in as configured: its `cwd`, else
    `agents.defaults.cwd` (`~` OpenClaw's home, made absolute); None when neither is set."""
    raw = (config.agent(agent_id) or {}).get("cwd")
    if not (isinstance(raw, str) and raw.strip()):
        raw = config.defaults.get("cwd")
    if not (isinstance(raw, str) and raw.strip()):
        return None
    return config.user_path(raw)


def run_cwd(ctx: PromptContext) -> str | None:
    """The folder the session's tools run in when it is not its workspace (the configured
    cwd), unless the session runs in a sandbox (which works in its workspace)."""
    cwd = configured_cwd(ctx.config, ctx.info.agent_id)
    if cwd is None or _sandbox_mode(ctx) is not None:
        return None
    return cwd if cwd != str(ctx.workspace) else None


def _sandbox(ctx: PromptContext) -> object:
    """The session agent's `sandbox` setting, else `agents.defaults.sandbox`."""
    agent = ctx.config.agent(ctx.info.agent_id) or {}
    if isinstance(agent.get("sandbox"), dict):
        return agent["sandbox"]
    return ctx.config.defaults.get("sandbox")


def _sandbox_mode(ctx: PromptContext) -> str | None:
    """The session's sandbox mode when it runs sandboxed (None when it does not)."""
    sandbox = _sandbox(ctx)
    mode = sandbox.get("mode") if isinstance(sandbox, dict) else None
    if not isinstance(mode, str) or mode == "off":
        return None
    if mode == "non-main" and ctx.info.kind == "main":
        return None
    return mode


def gen_directory_roles(ctx: PromptContext, spec: SectionSpec) -> Generated:
    cwd = run_cwd(ctx)
    if cwd is None:
        return Absent("no cwd is configured apart from the workspace (agents.defaults.cwd)")
    own = (ctx.config.agent(ctx.info.agent_id) or {}).get("cwd")
    where = (
        f"agents.list[{ctx.info.agent_id}].cwd"
        if isinstance(own, str) and own.strip()
        else "agents.defaults.cwd"
    )
    return RuntimeText(
        spec.typical_chars + text_chars(cwd) + text_chars(str(ctx.workspace)),
        f"{where} sets a working directory apart from the workspace: the runtime names both "
        "in place of its Workspace section",
        f"Working directory: {cwd}\nAgent workspace: {ctx.workspace}",
    )


def gen_workspace(ctx: PromptContext, spec: SectionSpec) -> Generated:
    if run_cwd(ctx) is not None and any(s.kind == "directory_roles" for s in ctx.profile.sections):
        return Absent("agents.defaults.cwd sets a working directory: Directory Roles instead")
    line = f"Your working directory is: {ctx.workspace}"
    rule = "always present; the session agent's workspace"
    notes = [f.name for f in ctx.files if f.name in spec.file_chars and f.status in LOADED]
    if notes:  # the runner's workspace notes (BOOTSTRAP.md: a reminder to commit edits)
        rule += f"; {', '.join(notes)} is loaded: the runner adds a reminder to commit changes"
    if spec.typical_chars:  # the runtime's own text around the path, measured
        size = spec.typical_chars + len(str(ctx.workspace))
        return RuntimeText(size + sum(spec.file_chars[n] for n in notes), rule, line)
    return line, "workspace", rule


def gen_sandbox(ctx: PromptContext, spec: SectionSpec) -> Generated:
    sandbox = _sandbox(ctx)
    mode = sandbox.get("mode") if isinstance(sandbox, dict) else None
    if not isinstance(mode, str) or mode == "off":
        return Absent("sandbox mode is off or unset")
    if mode == "non-main" and ctx.info.kind == "main":
        return Absent("sandbox mode non-main: the agent's main session runs unsandboxed")
    rule = f"sandbox mode {mode}"
    if spec.typical_chars and isinstance(sandbox, dict):
        access, where = _sandbox_folder(ctx, sandbox, hashed="hashed_slug" in spec.fields)
        mounted = SANDBOX_RO_MOUNT if access == "ro" else 0
        return RuntimeText(
            spec.typical_chars + text_chars(access) + mounted + text_chars(where),
            f"{rule}: the runtime's default sandbox context (container workdir /workspace, "
            f"workspace access {access}, host browser control blocked, no elevated exec); "
            f"the host folder it mounts is {where}",
            f"Tools run in a sandbox (mode: {mode}); host folder: {where}",
        )
    return (
        f"Tools run in a sandbox (mode: {mode}); paths and network may be restricted.",
        "config:sandbox.mode",
        rule,
    )


SANDBOX_RO_MOUNT = 20
"""What a read-only workspace's access line adds (where it is mounted in the container)."""


def _sandbox_folder(
    ctx: PromptContext, sandbox: dict[str, object], *, hashed: bool
) -> tuple[str, str]:
    """(workspace access, the host folder the sandbox mounts): the agent's workspace when
    it is mounted read-write, else the sandbox's own folder under `workspaceRoot` (default
    `<state folder>/sandboxes`), one per agent or session (`scope`), or the root itself when
    the scope is `shared`. 2026.9 names the folder by a hash of the scope and workspace
    (`hashed`), 2026.2 by the scope key's slug."""
    access = sandbox.get("workspaceAccess")
    access = access if access in ("none", "ro", "rw") else "none"
    if access == "rw":
        return access, str(ctx.workspace)
    root = sandbox.get("workspaceRoot")
    base = openclaw_expand(root, ctx.config.user_home) if isinstance(root, str) else None
    base = base or str(openclaw_state_dir(ctx.env) / "sandboxes")
    scope = (
        sandbox.get("scope") if sandbox.get("scope") in ("session", "agent", "shared") else "agent"
    )
    if scope == "shared":
        return access, base
    key = ctx.info.key if scope == "session" else f"agent:{ctx.info.agent_id}"
    if hashed:
        suffix = hashlib.sha256(str(ctx.workspace).encode()).hexdigest()[:32]
        scoped = f"{key}:workspace:{suffix}"
        return access, f"{base}/workspace-{hashlib.sha256(scoped.encode()).hexdigest()[:32]}"
    slug = re.sub(r"[^a-z0-9._-]+", "-", key.lower()).strip("-")[:32] or "session"
    return access, f"{base}/{slug}-{hashlib.sha256(key.encode()).hexdigest()[:8]}"
