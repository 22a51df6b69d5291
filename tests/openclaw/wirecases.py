"""Generated workspaces the real OpenClaw gateway was run on (`wirecapture`), and how what it
sent is kept: per session, the system prompt's size and each section's, with the folders
that vary between machines (the scratch root, the installed package, the state folder)
taken out and counted, so that a model built in another folder can be held to them. No
runtime text is kept. `python -m tests.openclaw.record_wire [NAME ...]` records them."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ctxscope.runtimes.openclaw.toolcatalog import STAND_IN_PACKAGE
from ctxscope.runtimes.profiles import load_profile
from tests.openclaw.manyskills import skill_files

DATA = Path(__file__).parent / "data" / "wire"
ROOT = "<root>"
PACKAGE = "<openclaw>"
STATE = "<state>"

EXTRA_HEADINGS = (
    "## Reasoning Format",
    "## Control UI",
    "## Webchat Canvas",
    "## Collapsible Details",
)
"""Headings of runtime sections no profile names yet (a section under one of them is
recorded apart, so a model that lacks it shows the gap)."""


def utf16(text: str) -> int:
    """Chars as the runtime counts them (UTF-16 code units)."""
    return len(text.encode("utf-16-le")) // 2


def recorded_file(release: str) -> Path:
    return DATA / f"cases-{release}.json"


def recorded(release: str) -> dict[str, Any]:
    try:
        return dict(json.loads(recorded_file(release).read_text(encoding="utf-8"))["cases"])
    except (OSError, ValueError, KeyError):
        return {}


@dataclass(frozen=True)
class WireCase:
    """A workspace and gateway config, and the spawn its main turn makes."""

    name: str
    files: dict[str, str | bytes]
    """Path under the scratch root (`ws/…` is the main workspace) -> text or bytes."""
    config: dict[str, Any] = field(default_factory=dict)
    """Merged into the capture's gateway config; `{ROOT}` in a string is the scratch root."""
    config_files: dict[str, str] = field(default_factory=dict)
    """Files beside the config (`$include`d)."""
    env: dict[str, str] = field(default_factory=dict)
    """The gateway's environment (for `${NAME}` in the config)."""
    symlinks: dict[str, str] = field(default_factory=dict)
    """Path under the root -> link target."""
    target: str | None = None
    """The spawn's `agentId` (None: the requester's own agent)."""
    depth: int = 1
    """2: the child spawns a child of its own."""
    session_key: str | None = None
    """The main turn's session (None: `agent:main:main`)."""
    requester: str = "main"
    channel: str | None = None
    """The channel the session's key names (as the scenario's `channel`)."""
    child: bool = True
    """False: the child cannot run on the capturing machine (a sandbox without Docker); only
    the main session is captured."""

    def write(self, root: Path) -> Path:
        for rel, body in self.files.items():
            path = root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(body, bytes):
                path.write_bytes(body)
            else:
                path.write_bytes(body.encode("utf-8"))
        for rel, target in self.symlinks.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).symlink_to(target)
        (root / "ws").mkdir(exist_ok=True)
        return root / "ws"

    def gateway_config(self, root: Path, release: str = "2026.9.6") -> dict[str, Any]:
        """The case's config for `release`. 2026.2 has no Tool Search (every tool is sent
        whole, as `toolSearch: false` asks of 2026.9) and refuses the key, so it is left out
        there; any other key it does not know stays, and the release's refusal is the fact."""
        config = json.loads(json.dumps(self.config).replace("{ROOT}", str(root)))
        tools = config.get("tools")
        if release.startswith("2026.2.") and isinstance(tools, dict):
            tools.pop("toolSearch", None)
            if not tools:
                del config["tools"]
        return config

    def scenario(self, release: str = "2026.9.6", depth: int = 0) -> str:
        """The spawn as `ctxscope.yaml` says it (the task and label the capture's model
        gives; at `depth` 1, the child's own spawn), under `release`'s profile."""
        from tests.openclaw.wirecapture import TASK, TASK_2

        profile = "openclaw-" + ".".join(release.split(".")[:2])
        task, label = (TASK_2, "wire2") if depth else (TASK, "wire")
        lines = [f"task: {json.dumps(task)}", f"label: {label}", f"profile: {profile}"]
        if depth:
            lines.append(f"depth: {depth}")
        lines.append(f"requester: {self.requester}")
        if self.target:
            lines.append(f"target: {self.target}")
        if self.session_key:
            lines.append(f"session_key: {json.dumps(self.session_key)}")
        channel = self.channel
        if channel is None and release.startswith("2026.2."):
            channel = "whatsapp"  # 2026.2's CLI turn runs on its default channel
        if channel:
            lines.append(f"channel: {channel}")
        return "\n".join(lines) + "\n"


def headings() -> set[str]:
    """Every runtime heading the bundled OpenClaw profiles name, and the extra ones."""
    found = set(EXTRA_HEADINGS)
    for name in ("openclaw-2026.2", "openclaw-2026.9"):
        profile = load_profile(name)
        found |= {s.heading for s in profile.sections if s.heading}
        found.add(profile.project_heading)
    return found


def split(prompt: str, file_prefix: str) -> list[tuple[str, str]]:
    """(heading, text) of each top-level section of a sent prompt, cut at the lines that are a
    runtime heading or a context file's (`## <file_prefix>…`); the text before the first one
    is the identity part (heading "")."""
    known = headings()
    out: list[tuple[str, list[str]]] = [("", [])]
    for line in prompt.split("\n"):
        if line in known or (line.startswith("## ") and line[3:].startswith(file_prefix)):
            out.append((line, [line]))
        else:
            out[-1][1].append(line)
    return [(h, "\n".join(lines)) for h, lines in out if lines or h]


def placeholders(values: dict[str, str]) -> list[tuple[str, str]]:
    """(placeholder, value), the longest value first (a state folder under the root is
    replaced before the root)."""
    return sorted(((k, v) for k, v in values.items() if v), key=lambda kv: -len(kv[1]))


MACHINE_FIELD = re.compile(r" \| (?:host|os|node|shell)=[^|\n]*?(?= \||\n|$)")
"""The gateway machine's fields of a `Runtime:` line left in the prompt (ctxscope does not
count them: it cannot know that machine)."""


def measured(text: str, values: dict[str, str]) -> dict[str, Any]:
    """A text's size with the varying folders and the gateway machine's fields taken out,
    and how many times each folder occurs."""
    chars = utf16(text) - sum(utf16(m.group()) for m in MACHINE_FIELD.finditer(text))
    chars, counts, text = folders_apart(text, values, chars)
    return {"chars": chars, "paths": counts, "text": text}


def folders_apart(text: str, values: dict[str, str], chars: int) -> tuple[int, dict[str, int], str]:
    """`chars` less every varying folder in `text`, how many times each occurs, and `text`
    with each replaced by its placeholder."""
    counts: dict[str, int] = {}
    for name, value in placeholders(values):
        n = text.count(value)
        if n:
            counts[name] = n
            chars -= n * utf16(value)
            text = text.replace(value, name)
    return chars, counts, text


MACHINE_VALUE = re.compile(r"(?<=\| )(host|os|node|shell)=([^|\n]*?)(?= \||\n|$)")
"""A machine field of a `Runtime:` line, its value apart."""


def message_facts(text: str, values: dict[str, str]) -> dict[str, Any]:
    """A first user message's size with the varying folders and the values of the gateway
    machine's `Runtime:` fields taken out (the fields' names stay): `machine` names the
    fields whose values were taken out."""
    fields = [m.group(1) for m in MACHINE_VALUE.finditer(text)]
    values_chars = sum(utf16(m.group(2)) for m in MACHINE_VALUE.finditer(text))
    chars, counts, _ = folders_apart(text, values, utf16(text) - values_chars)
    return {"chars": chars, "paths": counts, "machine": fields}


def normalised_heading(heading: str, values: dict[str, str]) -> str:
    for name, value in placeholders(values):
        heading = heading.replace(value, name)
    return heading


def section_facts(prompt: str, values: dict[str, str]) -> list[dict[str, Any]]:
    out = []
    for heading, text in split(prompt, values[ROOT]):
        m = measured(text, values)
        out.append(
            {
                "heading": normalised_heading(heading, values),
                "chars": m["chars"],
                "paths": m["paths"],
            }
        )
    return out


def expected(fact: dict[str, Any], values: dict[str, str]) -> int:
    """A recorded size with the varying folders put back as `values` holds them."""
    return int(fact["chars"]) + sum(n * utf16(values[k]) for k, n in fact["paths"].items())


_NAME = re.compile(r"[^a-z0-9-]")


PERSONA = {
    "ws/SOUL.md": "# SOUL\n\nCalm, exact, brief. Prefers lists to prose.\n",
    "ws/IDENTITY.md": "# IDENTITY\n\n- Name: Quill\n- Emoji: 🪶\n",
    "ws/USER.md": "# USER\n\n- Name: Ada\n- Time zone: Europe/Berlin\n",
}
SKIP = {"agents": {"defaults": {"skipBootstrap": True}}}


def _agents(text: str) -> dict[str, str]:
    return {"ws/AGENTS.md": text}


CASES: list[WireCase] = [
    WireCase(
        "include-env",
        {**_agents("# AGENTS\n\nKeep answers short.\n"), **PERSONA},
        config={
            "$include": "./limits.json5",
            "agents": {"defaults": {"skipBootstrap": True, "userTimezone": "${WIRE_TZ}"}},
        },
        config_files={"limits.json5": "{ agents: { defaults: { bootstrapMaxChars: 6000 } } }\n"},
        env={"WIRE_TZ": "Asia/Tokyo"},
    ),
    WireCase(
        "tool-search-off-policy",
        {**_agents("# AGENTS\n\n" + "Work in small steps.\n" * 40), **PERSONA},
        config={
            **SKIP,
            "tools": {"toolSearch": False, "profile": "coding", "deny": ["web_search"]},
        },
    ),
    WireCase(
        "entries-target",
        {
            **_agents("# AGENTS\n\nDelegate reviews to the coder.\n"),
            **PERSONA,
            "coder/AGENTS.md": "# CODER AGENTS\n\nWrite tests first.\n",
            "coder/SOUL.md": "# CODER SOUL\n\nTerse.\n",
        },
        config={
            "agents": {
                "ownership": "explicit",
                "defaults": {"skipBootstrap": True, "subagents": {"allowAgents": ["coder"]}},
                "entries": {
                    "main": {"workspace": "{ROOT}/ws"},
                    "coder": {
                        "workspace": "{ROOT}/coder",
                        "bootstrapMaxChars": 3000,
                        "tools": {"deny": ["browser", "canvas"]},
                    },
                },
            }
        },
        target="coder",
    ),
    WireCase(
        "limits-cut",
        {
            "ws/AGENTS.md": "# AGENTS\n\n"
            + "".join(f"- Rule {i}: never skip review.\n" for i in range(400)),
            "ws/SOUL.md": "# SOUL\n\n" + "x" * 2990,
            "ws/IDENTITY.md": PERSONA["ws/IDENTITY.md"],
            "ws/USER.md": "# USER\n\n" + "Prefers metric units.\n" * 300,
            "ws/MEMORY.md": "# MEMORY\n\n"
            + "".join(f"- 2026-11-{i % 28 + 1:02d}: note {i}\n" for i in range(600)),
        },
        config={
            "agents": {
                "defaults": {
                    "skipBootstrap": True,
                    "bootstrapMaxChars": 3000,
                    "bootstrapTotalMaxChars": 9000,
                }
            }
        },
    ),
    WireCase(
        "sandbox-non-main",
        {**_agents("# AGENTS\n\nSandboxed helpers.\n"), **PERSONA},
        config={"agents": {"defaults": {"skipBootstrap": True, "sandbox": {"mode": "non-main"}}}},
        child=False,
    ),
    WireCase(
        "depth-two",
        {**_agents("# AGENTS\n\nSplit work across helpers.\n"), **PERSONA},
        config={
            "agents": {
                "defaults": {"skipBootstrap": True, "subagents": {"maxSpawnDepth": 2}},
            },
            "tools": {"toolSearch": False},
        },
        depth=2,
    ),
    WireCase(
        "cjk-bom-crlf",
        {
            "ws/AGENTS.md": "# AGENTS\r\n\r\n始终 先 阅读 文件。\r\nAlways read first.\r\n",
            "ws/SOUL.md": "\ufeff# SOUL\n\n穏やかで 正確。\n",
            "ws/IDENTITY.md": "# IDENTITY\n\n- Name: 墨\n",
            "ws/USER.md": "# USER\n\n- 이름: 민준\n",
        },
        config=SKIP,
    ),
    WireCase(
        "links-memory",
        {
            **_agents("# AGENTS\n\nRead memory before answering.\n"),
            **PERSONA,
            "ws/memory/notes.md": "# Notes\n\n- The build runs nightly.\n",
        },
        symlinks={"ws/MEMORY.md": "memory/notes.md"},
        config=SKIP,
    ),
    WireCase(
        "group-key",
        {
            **_agents("# AGENTS\n\nIn groups, answer only when asked.\n"),
            **PERSONA,
            "ws/MEMORY.md": "# MEMORY\n\n- Private: the launch date.\n",
        },
        config={**SKIP, "tools": {"toolSearch": False}},
        session_key="agent:main:telegram:group:4242",
    ),
    WireCase(
        "skills-gated",
        {
            **_agents("# AGENTS\n\nUse the skills.\n"),
            **PERSONA,
            "ws/skills/deploy/SKILL.md": (
                "---\nname: deploy\ndescription: Ship the app to staging.\n---\n\nSteps.\n"
            ),
            "ws/skills/secret/SKILL.md": (
                "---\nname: secret\ndescription: Needs a token.\n"
                'metadata: {"openclaw": {"requires": {"env": ["WIRE_NOT_SET_TOKEN"]}}}\n'
                "---\n\nBody.\n"
            ),
            "ws/skills/quiet/SKILL.md": "---\nname: quiet\n---\n\nNo description.\n",
        },
        config=SKIP,
    ),
    WireCase(
        "messaging-profile",
        {**_agents("# AGENTS\n\nRelay messages.\n"), **PERSONA},
        config={**SKIP, "tools": {"profile": "messaging", "alsoAllow": ["sessions_spawn"]}},
    ),
    WireCase(
        "missing-files",
        {**_agents("# AGENTS\n\nOnly an AGENTS file here.\n")},
        config={**SKIP, "tools": {"toolSearch": False}},
    ),
    WireCase(
        "tools-allow",
        {**_agents("# AGENTS\n\nOnly the few tools allowed.\n"), **PERSONA},
        config={
            **SKIP,
            "tools": {
                "allow": ["read", "write", "edit", "exec", "sessions_spawn", "memory_search"],
            },
        },
    ),
    WireCase(
        "memory-slot-none",
        {
            **_agents("# AGENTS\n\nNo memory plugin here.\n"),
            **PERSONA,
            "ws/MEMORY.md": "# MEMORY\n\n- The build runs nightly.\n",
        },
        config={**SKIP, "plugins": {"slots": {"memory": "none"}}},
    ),
    WireCase(
        "cwd-project",
        {
            **_agents("# AGENTS\n\nWork in the project folder.\n"),
            **PERSONA,
            "project/README.md": "# Project\n",
        },
        config={"agents": {"defaults": {"skipBootstrap": True, "cwd": "{ROOT}/project"}}},
    ),
]
"""Each case's name is also its scratch folder's."""

# --- Skills budgets: catalogs past each release's character limit, and limits set in the
# config (`skills.limits`). The skills are generated by rule (`manyskills`).
BUDGET_CASES = [
    WireCase(
        "skills-over-budget",
        {**_agents("# AGENTS\n\nPick the skill that fits.\n"), **PERSONA, **skill_files(110)},
        config=SKIP,
    ),
    WireCase(
        "skills-limits-config",
        {**_agents("# AGENTS\n\nFew skills fit here.\n"), **PERSONA, **skill_files(30)},
        config={
            **SKIP,
            "skills": {"limits": {"maxSkillsInPrompt": 20, "maxSkillsPromptChars": 5000}},
        },
    ),
]
CASES += BUDGET_CASES
# --- end of skills budgets

assert all(not _NAME.search(c.name) for c in CASES)


def folded(wire: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """A sent prompt's sections with a heading line met again inside a context file (a
    template's own `## Safety`) put back in that file's section, as the model has it."""
    out: list[tuple[str, int]] = []
    seen: set[str] = set()
    in_files = False
    for heading, chars in wire:
        in_files = in_files or heading.startswith(f"## {ROOT}")
        if in_files and heading in seen and out:
            out[-1] = (out[-1][0], out[-1][1] + 1 + chars)
            continue
        seen.add(heading)
        out.append((heading, chars))
    return out


def model_sections(session: Any, values: dict[str, str]) -> list[tuple[str, int]]:
    """(heading, chars) of a ctxscope session's prompt cut as `split` cuts a sent one: a
    section under no heading joins the one before it; the `Runtime:` line the transport moves
    into the first message (with its newlines) is left out, as on the wire."""
    groups: list[list[Any]] = []
    for section in session.sections:
        if section.heading or not groups:
            groups.append([normalised_heading(section.heading, values), section.chars])
        else:
            groups[-1][1] += 1 + section.chars
    request = session.wire
    if request is not None and request.plan.attempt_markers and groups:
        # The runner's attempt markers: before the identity line, at the cache boundary (in
        # the stretch of the section before it), after the last section.
        parts = dict(request.plan.attempt_markers)
        groups[0][1] += parts.get("open", 0)
        groups[-1][1] += parts.get("close", 0)
        ids = [s.id for s in session.sections]
        if "cache_boundary" in ids:
            before = [s for s in session.sections[: ids.index("cache_boundary")] if s.heading]
            heading = normalised_heading(before[-1].heading, values) if before else ""
            for group in groups:
                if group[0] == heading:
                    group[1] += parts.get("boundary", 0)
    if request is not None and request.plan.runtime_line:
        line = next(
            (
                ln
                for ln in session.section("runtime").text.splitlines()
                if ln.startswith("Runtime: ")
            ),
            "",
        )
        moved = utf16(line) + 1 + request.plan.relocated_newlines if line else 0
        groups = [[h, c - moved if h == "## Runtime" else c] for h, c in groups]
    return [(h, c) for h, c in groups]


def values(root: Path) -> dict[str, str]:
    """The folders the model's sizes hold: the scratch root, the stand-in for the installed
    package (none is found here), the state folder."""
    return {ROOT: str(root), PACKAGE: STAND_IN_PACKAGE, STATE: str(root / "scratch" / "state")}


def mismatches(session: Any, sent: dict[str, Any], where: dict[str, str]) -> list[str]:
    """What in `session` is off what was sent, beyond the issue's tolerances."""
    out = []
    request = session.wire
    assert request is not None
    whole = expected(sent["system_prompt"], where)
    if abs(request.system_prompt_chars - whole) > 0.01 * whole:
        out.append(f"system prompt {request.system_prompt_chars} vs {whole}")
    model = model_sections(session, where)
    wire = folded([(s["heading"], expected(s, where)) for s in sent["sections"]])
    if [h for h, _ in model] != [h for h, _ in wire]:
        out.append(f"sections {[h for h, _ in model]} vs {[h for h, _ in wire]}")
    for (heading, chars), (_, want) in zip(model, wire, strict=False):
        if abs(chars - want) > 0.02 * want:
            out.append(f"{heading or '(identity)'} {chars} vs {want}")
    names = [t.name for t in request.tools]
    if names != sent["tools"]:
        extra, lacking = (
            sorted(set(names) - set(sent["tools"])),
            sorted(set(sent["tools"]) - set(names)),
        )
        out.append(f"tools: model has {extra or 'no other'}, lacks {lacking or 'none'} (or order)")
    schema = sent["tool_schema_chars"]
    if abs(request.tool_schema_chars - schema) > 0.02 * schema:
        out.append(f"tool schema chars {request.tool_schema_chars} vs {schema}")
    first = sent.get("first_message")
    if first is not None and session.task_message is not None:
        # A subagent's first message, to the char: the gateway machine's values (this
        # machine's in the model, the capturing machine's on the wire) counted apart.
        said = dict(request.plan.machine)
        chars = request.messages[0].chars - sum(said.get(f, 0) for f in first["machine"])
        if (chars, sorted(said) if said else first["machine"]) != (
            expected(first, where),
            sorted(first["machine"]),
        ):
            out.append(f"first message {chars}{sorted(said)} vs {expected(first, where)}")
    return out


# --- First run: the templates the runtime writes before it builds the prompt ----------------
# No skipBootstrap: each release writes its templates for the files absent (and BOOTSTRAP.md
# while the persona files are its own templates); a folder no agent has run in yet is made
# and seeded whole; with skipBootstrap nothing is written and every absent file is a marker,
# spent from the total budget before MEMORY.md.
NEW_AGENT = {
    "agents": {
        "list": [
            {"id": "main", "default": True, "subagents": {"allowAgents": ["coder"]}},
            {"id": "coder", "workspace": "{ROOT}/coder-new"},
        ]
    }
}
FIRST_RUN_CASES = [
    WireCase("firstrun-templates", _agents("# AGENTS\n\nMy own rules only.\n")),
    WireCase(
        "firstrun-new-agent",
        {**_agents("# AGENTS\n\nDelegate to the coder.\n"), **PERSONA},
        config=NEW_AGENT,
        target="coder",
    ),
    WireCase(
        "firstrun-implicit-main",
        {"ws/README.md": "# Not an agent's folder\n"},
        config={
            "agents": {
                "ownership": "explicit",
                "defaults": {"workspace": "{ROOT}/ws"},
                "entries": {"main": {}, "coder": {}},
            }
        },
    ),
    WireCase(
        "skip-missing-memory-total",
        {
            **_agents("# AGENTS\n\n" + "Check twice.\n" * 60),
            "ws/SOUL.md": "# SOUL\n\nSteady.\n",
            "ws/MEMORY.md": "# MEMORY\n\n"
            + "".join(f"- 2026-10-{i % 28 + 1:02d}: fact {i}\n" for i in range(400)),
        },
        config={"agents": {"defaults": {"skipBootstrap": True, "bootstrapTotalMaxChars": 4500}}},
    ),
]
CASES += FIRST_RUN_CASES
SEEDED = {"firstrun-templates", "firstrun-new-agent", "firstrun-implicit-main"}
"""The cases whose gateway wrote templates before the prompt (exact mode asks the runtime
about the folder as it is, and names those files in a note)."""
assert all(not _NAME.search(c.name) for c in FIRST_RUN_CASES)
