"""Workspaces whose bootstrap context (and some system prompts) OpenClaw itself was asked
for; what each release answered is recorded in `runtime-<version>.json`, and exact mode asks
the installed releases again on every run (`tests/exact`)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

VERSIONS = {"2026.2.19": "openclaw-2026.2", "2026.9.6": "openclaw-2026.9"}
"""Each recorded runtime release and the profile that models it."""


def recorded_file(version: str) -> Path:
    return Path(__file__).with_name(f"runtime-{version}.json")


POLICY_AGENTS = "# AGENTS.md\n\nIntro prose that sets the scene for the workspace.\n" + "".join(
    f"## Area {i}\nSome context about area {i} in plain prose.\n"
    f"- You must run the tests before commit {i}.\n"
    f"- Never push secrets to github ({i}).\n"
    f"Ordinary line {i} without policy words.\n"
    f"1. Step one for area {i}\n"
    "```\ncode must never be digested\n```\n"
    f"禁止 在 {i} 區 直接 部署\n\n"
    for i in range(120)
)
EMOJI = "ok 😀 " * 40


@dataclass(frozen=True)
class Case:
    name: str
    files: dict[str, str]
    session_key: str = "agent:main:main"
    config: dict[str, Any] = field(default_factory=dict)
    symlinks: dict[str, str] = field(default_factory=dict)
    """Name -> link target (relative to the workspace; `../x` leaves it)."""
    hardlinks: dict[str, str] = field(default_factory=dict)
    """Name -> an existing file (relative to the workspace) it is a second name of."""
    prompt: str | None = None
    """Also measure the system prompt, built in this prompt mode (`full`, `minimal`)."""
    tools: tuple[str, ...] = ()
    model: str | None = None

    @property
    def run_config(self) -> dict[str, Any]:
        """The config as the runtime was asked with it: the folder as it is, so with
        `agents.defaults.skipBootstrap` (no templates written before the first run; the
        recorded loader answers are those of the folder on disk)."""
        agents = dict(self.config.get("agents") or {})
        agents["defaults"] = {**(agents.get("defaults") or {}), "skipBootstrap": True}
        return {**self.config, "agents": agents}

    def write(self, root: Path) -> Path:
        ws = root / self.name
        ws.mkdir(parents=True)
        for rel, text in self.files.items():
            (ws / rel).parent.mkdir(parents=True, exist_ok=True)
            (ws / rel).write_text(text, encoding="utf-8")
        (root / "outside.md").write_text("outside the workspace", encoding="utf-8")
        for name, target in self.symlinks.items():
            (ws / name).symlink_to(target)
        for name, target in self.hardlinks.items():
            (ws / name).hardlink_to(ws / target)
        return ws


def limits(per_file: int | None = None, total: int | None = None) -> dict[str, Any]:
    defaults: dict[str, Any] = {}
    if per_file is not None:
        defaults["bootstrapMaxChars"] = per_file
    if total is not None:
        defaults["bootstrapTotalMaxChars"] = total
    return {"agents": {"defaults": defaults}}


FULL = {
    "AGENTS.md": "agents rules\n",
    "SOUL.md": "soul " * 30,
    "IDENTITY.md": "identity",
    "USER.md": "user prefs",
    "MEMORY.md": "memory facts",
}

CASES = [
    Case("full-set", FULL),
    Case("only-agents", {"AGENTS.md": "a"}),
    Case("no-user-no-memory", {"AGENTS.md": "a", "SOUL.md": "s"}),
    Case("trailing-space", {"AGENTS.md": "agents \n\n  \t\n", "SOUL.md": "   "}),
    Case("digest-default", {"AGENTS.md": POLICY_AGENTS}),
    Case("digest-300", {"AGENTS.md": POLICY_AGENTS}, config=limits(300)),
    Case("digest-120", {"AGENTS.md": POLICY_AGENTS}, config=limits(120)),
    Case("digest-40", {"AGENTS.md": POLICY_AGENTS}, config=limits(40)),
    Case("soul-150-in-100", {"AGENTS.md": "a", "SOUL.md": "x" * 150}, config=limits(100)),
    Case("soul-compact-60", {"SOUL.md": "y" * 500}, config=limits(60)),
    Case("soul-compact-20", {"SOUL.md": "z" * 500}, config=limits(20)),
    Case("soul-tiny-5", {"SOUL.md": "w" * 500}, config=limits(5)),
    Case("emoji-cut", {"SOUL.md": EMOJI}, config=limits(101)),
    Case("user-cap", {"USER.md": "u" * 5000, "SOUL.md": "s" * 5000}),
    Case("user-under-per-file", {"USER.md": "u" * 5000}, config=limits(3000)),
    # Budgets spent on file text, not on markers (their length depends on the folder's path).
    Case(
        "total-500",
        {**FULL, "TOOLS.md": "t", "HEARTBEAT.md": "h", "SOUL.md": "s" * 400, "USER.md": "u" * 400},
        config=limits(total=500),
    ),
    Case(
        "total-under-64", {"AGENTS.md": "a" * 440, "SOUL.md": "s" * 300}, config=limits(total=500)
    ),
    Case("total-marker-cut", {"SOUL.md": "s"}, config=limits(total=20)),
    Case("subagent", FULL, "agent:main:subagent:abc"),
    Case("cron", FULL, "agent:main:cron:nightly"),
    Case("cron-upper", FULL, "AGENT:MAIN:CRON:NIGHTLY"),
    Case("group-chat", FULL, "agent:main:telegram:group:42"),
    Case("channel-chat", FULL, "agent:main:discord:acct:channel:7"),
    Case("symlink-outside", {"AGENTS.md": "a"}, symlinks={"SOUL.md": "../outside.md"}),
    Case("symlink-inside", {"AGENTS.md": "a", "soul.txt": "s"}, symlinks={"SOUL.md": "soul.txt"}),
    Case("symlink-dangling-user", {"AGENTS.md": "a"}, symlinks={"USER.md": "nowhere.md"}),
    Case("hardlink", {"AGENTS.md": "a", "id.txt": "i"}, hardlinks={"IDENTITY.md": "id.txt"}),
    Case("not-a-file", {"AGENTS.md": "a", "SOUL.md/x": ""}),
    Case(
        "per-agent-limit",
        {"AGENTS.md": "a" * 400},
        config={"agents": {"list": [{"id": "main", "bootstrapMaxChars": 200}]}},
    ),
    Case(
        "per-agent-total",
        {"AGENTS.md": "a" * 400, "SOUL.md": "s" * 400},
        config={"agents": {"list": [{"id": "main", "bootstrapTotalMaxChars": 450}]}},
    ),
]


SAMPLE_FILES = ("AGENTS.md", "SOUL.md", "IDENTITY.md", "USER.md", "MEMORY.md")


def sample_files() -> dict[str, str]:
    root = Path(__file__).resolve().parents[2] / "sample_workspace"
    return {n: (root / n).read_text(encoding="utf-8") for n in SAMPLE_FILES}


SONNET = "anthropic/claude-sonnet-4-5"
CASES += [
    Case("prompt-main", sample_files(), prompt="full", model=SONNET),
    Case(
        "prompt-main-tools",
        sample_files(),
        prompt="full",
        model=SONNET,
        tools=("read", "exec", "memory_search", "sessions_spawn", "message", "gateway"),
    ),
    # No model configured: the runner names its built-in default model, which the recorded
    # builder call was not given; exact mode checks these prompts section by section.
    Case("prompt-main-nomodel", {"AGENTS.md": "a"}, prompt="full"),
    Case("prompt-sub", sample_files(), "agent:main:subagent:x", prompt="minimal", model=SONNET),
    Case(
        "prompt-sub-tools",
        sample_files(),
        "agent:main:subagent:x",
        prompt="minimal",
        model=SONNET,
        tools=("read", "exec", "process", "web_fetch"),
    ),
    Case("prompt-cron", FULL, "agent:main:cron:nightly", prompt="minimal", tools=("message",)),
]


def fingerprint(files: list[tuple[str, str]], ws: Path) -> list[list[Any]]:
    """(name, UTF-16 length, sha256 of the UTF-8 text with the workspace path written as
    `WS`) per context file."""
    out = []
    for name, text in files:
        # Half a surrogate pair (JavaScript can cut one) is what an encoder sends: U+FFFD.
        whole = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
        plain = whole.replace(str(ws), "WS")
        out.append([name, len(plain.encode("utf-16-le", "surrogatepass")) // 2, sha(plain)])
    return out


def sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def recorded(version: str) -> dict[str, dict[str, Any]]:
    """Per case: `files` (fingerprints) and `prompt` (the system prompt's length and how often
    the workspace path is in it, or null)."""
    return dict(json.loads(recorded_file(version).read_text(encoding="utf-8")))


# Classes found by comparing with what each release sends (recorded with
# `python -m tests.openclaw.record`).
CASES += [
    # 2026.9's memory-provenance check: a link into memory/ passes (its [UNREADABLE] notice is
    # injected), a link out of the workspace does not; a folder named USER.md passes.
    Case(
        "memory-link-into-notes",
        {"AGENTS.md": "a", "memory/notes.md": "m"},
        symlinks={"MEMORY.md": "memory/notes.md"},
    ),
    Case("memory-link-outside", {"AGENTS.md": "a"}, symlinks={"MEMORY.md": "../outside.md"}),
    Case(
        "memory-link-elsewhere",
        {"AGENTS.md": "a", "notes.txt": "n"},
        symlinks={"MEMORY.md": "notes.txt"},
    ),
    Case("user-is-a-folder", {"AGENTS.md": "a", "USER.md/x": ""}),
    Case(
        "memory-hardlink",
        {"AGENTS.md": "a", "memory/m.md": "m"},
        hardlinks={"MEMORY.md": "memory/m.md"},
    ),
    # A UTF-8 byte-order mark is part of the text both releases inject.
    Case("bom", {"AGENTS.md": "\ufeffagents", "SOUL.md": "\ufeff# Soul\r\nline\r\n"}),
]
# A child whose only file is an empty AGENTS.md: no Project Context, so the prompt-cache
# boundary follows "Workspace Files (injected)" (its marker is stripped before sending).
CASES += [Case("child-empty-agents", {"AGENTS.md": "", "SOUL.md": "s"}, "agent:main:subagent:x")]
# 2026.2's Heartbeats section quotes the heartbeat prompt for the default agent only.
TWO_AGENTS = {"agents": {"list": [{"id": "main"}, {"id": "coder", "workspace": "."}]}}
CASES += [
    Case("heartbeat-other-agent", {"AGENTS.md": "a"}, "agent:coder:main", config=TWO_AGENTS),
    Case(
        "heartbeat-custom",
        {"AGENTS.md": "a"},
        config={
            "agents": {
                "defaults": {"heartbeat": {"prompt": "  Check the inbox; reply HEARTBEAT_OK. "}}
            }
        },
    ),
]
# A workspace docs/ folder without docs.json: 2026.2 names it in Documentation, 2026.9 does
# not (it names its install's docs instead).
CASES += [Case("docs-folder-no-json", {"AGENTS.md": "a", "docs/guide.md": "g"})]
