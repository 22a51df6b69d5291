#!/usr/bin/env python3
"""spawn_brief.py — context script (format: json).

Reads the spawn variables as a JSON object on stdin (`agent`, `task`, `requester`, `label`,
`config` = the whole gateway config) and appends a short brief to the task: who asked, which
agent was requested and whether the gateway knows it. Tasks about code are routed to the
`coder` agent through the `route` key (wired as `agentIdOverrideKey`).
"""

import json
import re
import sys

CODE_WORDS = re.compile(r"\b(review|code|bug|fix|refactor|pull request|pr|test)s?\b", re.I)


def main() -> int:
    data = json.load(sys.stdin)
    config = data.get("config") or {}
    agents = {
        a.get("id"): a
        for a in (config.get("agents") or {}).get("list") or []
        if isinstance(a, dict)
    }
    agent = data.get("agent", "")
    known = agent in agents
    lines = [
        "## Spawn brief",
        f"- Requested by: {data.get('requester', '?')}",
        f"- Requested agent: {agent}" + ("" if known else " (not a configured agent)"),
        f"- Label: {data.get('label') or 'none'}",
        "- Configured agents: "
        + ", ".join(f"{aid} ({a.get('name', aid)})" for aid, a in agents.items()),
    ]
    out = {"content": "\n".join(lines)}
    if CODE_WORDS.search(data.get("task", "")):
        out["route"] = "coder"
    json.dump(out, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
