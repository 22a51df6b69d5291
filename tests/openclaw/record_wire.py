"""Run the installed OpenClaw gateway (2026.9.6, or 2026.2.19 with `--release 2026.2.19`) on
each generated workspace of `wirecases` (about 40 s each) and record what it sent, as sizes
(`data/wire/cases-<release>.json`): per session, the system prompt's and each section's chars
with the machine's folders counted apart, the tools and their schema chars; a config the
release refuses is recorded with the gateway's reason. Run after adding or changing cases:
`python -m tests.openclaw.record_wire [--release R] [--package DIR] [NAME ...]` (names: only
those; `--package`: a copy of the release's package to run, e.g. one at a path as long as
the model's stand-in for an install it does not find, where a budget the skills' locations
count against is measured). Each case keeps the length of the package's path
(`package_chars`)."""

from __future__ import annotations

import json
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

from tests import runtimes
from tests.openclaw.wirecapture import MAIN, TASK, TASK_2, capture, user_texts
from tests.openclaw.wirecases import (
    CASES,
    PACKAGE,
    ROOT,
    STATE,
    WireCase,
    measured,
    message_facts,
    recorded,
    recorded_file,
    section_facts,
    utf16,
)

PACKAGES = {
    runtimes.OPENCLAW_RELEASE: "openclaw_package",
    runtimes.OPENCLAW_RELEASE_2: "openclaw_package_2",
}


def system_prompt(body: dict[str, Any]) -> str:
    content = (body.get("messages") or [{}])[0].get("content")
    if isinstance(content, list):
        content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return content if isinstance(content, str) else ""


def schema_chars(tool: dict[str, Any]) -> int:
    params = (tool.get("function") or {}).get("parameters")
    return len(json.dumps(params, separators=(",", ":"), ensure_ascii=False))


def session_facts(body: dict[str, Any], values: dict[str, str]) -> dict[str, Any]:
    prompt = system_prompt(body)
    whole = measured(prompt, values)
    tools = body.get("tools") or []
    return {
        "system_prompt": {"chars": whole["chars"], "paths": whole["paths"]},
        "sections": section_facts(prompt, values),
        "tools": [(t.get("function") or {}).get("name") for t in tools],
        "skills": re.findall(r"<name>([^<]+)</name>", prompt),
        "tool_schema_chars": sum(schema_chars(t) for t in tools),
        "tool_schemas": {(t.get("function") or {}).get("name"): schema_chars(t) for t in tools},
        "first_message": message_facts((user_texts(body) or [""])[0], values),
    }


def record_case(case: WireCase, node: str, package: Path, release: str) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="wire-") as tmp:
        root = Path(tmp)
        ws = case.write(root)
        try:
            bodies = capture(
                node,
                package,
                ws,
                root / "scratch",
                case.gateway_config(root, release),
                spawn_args={"agentId": case.target} if case.target else None,
                depth=case.depth,
                env_vars=case.env,
                config_files=case.config_files,
                session_key=case.session_key,
                child=case.child,
            )
        except RuntimeError as exc:
            log = root / "scratch" / "gateway.log"
            said = log.read_text(errors="replace")[-1500:] if log.exists() else ""
            return {"not_captured": f"{exc}"[:500], "log_tail": said[-600:]}
        values = {ROOT: str(root), PACKAGE: str(package), STATE: str(root / "scratch" / "state")}

        def first(test: Any) -> dict[str, Any] | None:
            return next((b for b in bodies if user_texts(b) and test(user_texts(b)[0])), None)

        sessions: dict[str, Any] = {}
        found = {
            "main": first(lambda u: MAIN in u),
            "child": first(lambda u: "[Subagent Task]" in u and TASK in u),
            "grandchild": first(lambda u: "[Subagent Task]" in u and TASK_2 in u),
        }
        for name, body in found.items():
            if body is not None:
                sessions[name] = session_facts(body, values)
        return {"sessions": sessions, "package_chars": utf16(str(package))}


def main(args: list[str]) -> None:
    release = runtimes.OPENCLAW_RELEASE
    if args[:1] == ["--release"] and len(args) > 1:
        release, args = args[1], args[2:]
    if release not in PACKAGES:
        sys.exit(f"unknown release {release}: one of {', '.join(PACKAGES)}")
    package = None
    if args[:1] == ["--package"] and len(args) > 1:
        package, args = Path(args[1]), args[2:]
    names = args
    node = str(runtimes.get("node24"))
    package = package or Path(runtimes.get(PACKAGES[release]))
    done = recorded(release)
    for case in CASES:
        if names and case.name not in names:
            continue
        done[case.name] = record_case(case, node, package, release)
        print(case.name, sorted(done[case.name].get("sessions", {})) or done[case.name], flush=True)
        out = {
            "release": release,
            "measured": "requests the gateway sent to a model on 127.0.0.1 (openai-completions); "
            "chars are UTF-16 units with the scratch root, the package and the state folder "
            "counted apart (`paths`)",
            "cases": dict(sorted(done.items())),
        }
        recorded_file(release).write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1:])
