"""A workspace whose names, config, hook and scripts carry terminal escape sequences.

Each way in carries its own OSC 52 sequence ("write this to the clipboard"), its base64 the
name of the way in, so a leak says where it came from. The folder's own name also carries
OSC 0 ("set the window title"). Drawn raw, any of them writes the clipboard or the title
with no key pressed; drawn safely, each shows as `␛]52;c;…`.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

from tests.scripts.helpers import write_script

TITLE = "PWNED-TITLE"
WAYS_IN = (
    "folder",  # the workspace folder's name: top bar, pane text, trust dialog
    "file",  # a memory note's name: Files panel
    "scriptid",  # a context script's id: Scripts panel, trusted or not
    "scripturi",  # a context script's uri
    "hook",  # a hooks/*/HOOK.md name: Problems
    "stdout",  # a trusted script's output
    "stderr",  # a trusted script's stderr (it fails)
    "jsonerr",  # a trusted script's JSON `error`
    "text",  # a bootstrap file's text: the panes
)


def tag(way_in: str) -> str:
    return base64.b64encode(way_in.encode()).decode()


def osc52(way_in: str) -> str:
    """The raw sequence that writes `way_in`'s tag to the clipboard."""
    return f"\x1b]52;c;{tag(way_in)}\x07"


def shown(way_in: str) -> str:
    """The same sequence as the TUI must show it: ESC as its control picture. (The BEL
    after it shows as ␇ in the tables and the panes, but Rich drops it from text the panels
    assemble, which is harmless: a BEL alone drives nothing.)"""
    return f"␛]52;c;{tag(way_in)}"


def json_osc52(way_in: str) -> str:
    """`osc52(way_in)` as a JSON string escapes it, inside a shell printf format."""
    return f"\\\\u001b]52;c;{tag(way_in)}\\\\u0007"


def hostile_workspace(root: Path, ways_in: tuple[str, ...] = WAYS_IN) -> Path:
    """Write the workspace under `root` and return it, hostile through `ways_in` only (each
    other name and output is plain)."""

    def payload(way_in: str) -> str:
        return osc52(way_in) if way_in in ways_in else ""

    ws = root / (f"ws\x1b]0;{TITLE}\x07{osc52('folder')}" if "folder" in ways_in else "ws")
    (ws / "memory").mkdir(parents=True)
    text = f"# Agents\n\nBe careful.{payload('text')} Really.\n"
    (ws / "AGENTS.md").write_text(text, encoding="utf-8")
    (ws / "memory" / f"n{payload('file')}.md").write_text("a note\n", encoding="utf-8")
    hook = ws / "hooks" / "h" / "HOOK.md"
    hook.parent.mkdir(parents=True)
    hook.write_text(
        '---\nname: "hook' + payload("hook").replace("\x1b", "\\e").replace("\x07", "\\a") + '"\n'
        "metadata: {openclaw: {events: ['agent:bootstrap']}}\n---\nA hook.\n",
        encoding="utf-8",
    )

    def printf(way_in: str) -> str:
        if way_in not in ways_in:
            return f"echo {way_in}"
        return f"printf '%s\\033]52;c;{tag(way_in)}\\007\\n' {way_in}"

    write_script(ws, "out.sh", printf("stdout"))
    write_script(ws, "err.sh", printf("stderr") + " >&2\nexit 3")
    write_script(
        ws,
        "jsonerr.sh",
        f'printf \'{{"error": "jsonerr{payload("jsonerr") and json_osc52("jsonerr")}"}}\\n\'',
    )
    scripts = [
        {"id": f"id{payload('scriptid')}", "uri": "out.sh", "priority": 9},
        {"id": "uri", "uri": f"/missing{payload('scripturi')}.sh", "priority": 8},
        {"id": "out", "uri": "out.sh", "priority": 7},
        {"id": "err", "uri": "err.sh", "priority": 6},
        {"id": "jsonerr", "uri": "jsonerr.sh", "priority": 5},
    ]
    config = {
        "agents": {
            "list": [
                {"id": "main", "default": True, "subagents": {"allowAgents": ["coder"]}},
                {"id": "coder"},
            ],
            "defaults": {"subagents": {"contextScripts": {"run": scripts}}},
        }
    }
    (ws / "openclaw.json").write_text(json.dumps(config), encoding="utf-8")
    (ws / "ctxscope.yaml").write_text("requester: main\ntarget: coder\n", encoding="utf-8")
    return ws
