"""Exact mode held to what the real gateways sent for the generated workspaces (`wirecases`,
recorded by `record_wire`): the installed release prepares each session, and its prompt, as
the `openai-completions` transport sends it (2026.9 moves the `Runtime:` line out), must have
the recorded sections with the recorded sizes to the character, the machine's folders
counted apart (the capture's scratch root, the package, the state folder: the gateway's, or
exact mode's private `~/state`)."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ctxscope import Inspector
from ctxscope.core.model import Session
from ctxscope.runtimes.openclaw.exact import ExactMode
from tests import runtimes
from tests.openclaw.test_wire_cases import CAPTURED, RECORDED, build, root  # noqa: F401
from tests.openclaw.wirecases import (
    CASES,
    MACHINE_FIELD,
    PACKAGE,
    ROOT,
    SEEDED,
    STATE,
    WireCase,
    expected,
    section_facts,
    utf16,
)

TOOL_DRIFT = re.compile(r"\): tool(?:s| schemas): ")
KNOWN: dict[tuple[str, str, str], set[str]] = {}
"""Sections still open, by release, case and session: each must still differ (a fix removes
it here), and nothing else may."""


def as_sent(prompt: str, release: str) -> str:
    """The prompt as the transport sent it: 2026.9 moves its `Runtime:` line (and the blank
    lines before it) into the first user message."""
    if release.startswith("2026.2."):
        return prompt
    return re.sub(r"\n+Runtime: [^\n]*", "", prompt, count=1)


def differences(got: list[dict], want: list[dict]) -> set[str]:
    out = {
        f"{w['heading'] or '(identity)'} {g['chars']}{g['paths']} vs {w['chars']}{w['paths']}"
        for g, w in zip(got, want, strict=False)
        if (g["heading"], g["chars"], g["paths"]) != (w["heading"], w["chars"], w["paths"])
    }
    if [g["heading"] for g in got] != [w["heading"] for w in want]:
        out.add(f"sections {[g['heading'] for g in got]} vs {[w['heading'] for w in want]}")
    return out


ASKED = [(r, c) for r, c in CAPTURED if c.name not in SEEDED]
"""The cases exact mode is held to: not a first run that makes or seeds a folder (exact mode
asks the runtime about the folder as it is; the model's first-run templates are held to the
wire in `tests/openclaw/test_wire_cases.py`)."""


@pytest.mark.parametrize(("release", "case"), ASKED, ids=[f"{r}-{c.name}" for r, c in ASKED])
def test_exact_mode_sends_what_the_gateway_sent(
    release: str,
    case: WireCase,
    root: Path,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
    kept_exact: Callable[..., ExactMode],
    openclaw_package: Path,
    openclaw_package_2: Path,
    node24: str,
) -> None:
    if release == runtimes.OPENCLAW_RELEASE:
        # On the Node its gateway runs on, which builds the model runtime a gateway prepares.
        mode = kept_exact(openclaw_package, node24)
    else:
        mode = kept_exact(openclaw_package_2)
    build(case, root, monkeypatch, release)
    ins = Inspector(root / "ws")
    ins.exact = mode  # one runtime for every case
    ins.exact_on = True
    ins.reload()
    report = ins.report(run_scripts=False)
    sent = RECORDED[release][case.name]["sessions"]
    package = openclaw_package if release == runtimes.OPENCLAW_RELEASE else openclaw_package_2
    where = {ROOT: str(root), PACKAGE: str(package), STATE: os.path.join("~", "state")}
    found = {}
    for name, session in (("main", report.requester), ("child", report.child)):
        if name not in sent:
            continue
        assert session is not None and session.exact.startswith(f"OpenClaw {release}"), name
        got = section_facts(as_sent(session.system_prompt, release), where)
        found[name] = differences(got, sent[name]["sections"]) | request_differences(
            session, sent[name], where, release
        )
    for name, said in found.items():
        assert said == KNOWN.get((release, case.name, name), set()), (name, said)


def request_differences(
    session: Session, sent: dict[str, Any], where: dict[str, str], release: str
) -> set[str]:
    """Where exact mode's request is off what the gateway sent: the system prompt and the
    tool schemas to the char, a subagent's first message to the char (the gateway
    machine's fields and values, this machine's in exact mode, counted apart), and any
    drift the runtime's own text does not bear out (only the tools' sizes may differ from
    the model's: the model's catalog is held to the wire by the model's tests)."""
    out = set()
    request = session.wire
    assert request is not None
    want = expected(sent["system_prompt"], where)
    prompt = as_sent(session.system_prompt, release)
    machine_chars = sum(utf16(m.group()) for m in MACHINE_FIELD.finditer(prompt))
    if request.system_prompt_chars - machine_chars != want:
        out.add(f"request system prompt {request.system_prompt_chars - machine_chars} vs {want}")
    if request.tool_schema_chars != sent["tool_schema_chars"]:
        out.add(f"tool schemas {request.tool_schema_chars} vs {sent['tool_schema_chars']}")
    first = sent.get("first_message")
    if first is not None and session.task_message is not None:
        machine = dict(request.plan.machine)
        chars = request.messages[0].chars - sum(machine.get(f, 0) for f in first["machine"])
        if chars != expected(first, where):
            out.add(f"first message {chars} vs {expected(first, where)}")
    for d in session.diagnostics:
        if d.code == "drift" and d.severity == "warning" and not TOOL_DRIFT.search(d.message):
            out.add(d.message.split("): ", 1)[-1])
    return out


def test_on_an_older_node_the_drift_names_what_the_prepared_runtime_would_add(
    root: Path,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
    kept_exact: Callable[..., ExactMode],
    openclaw_package: Path,
) -> None:
    """Node 22 cannot build the model runtime a 2026.9 gateway prepares (the plugins' tool
    profile entries): the session is still the runner's, without the intent tool the
    messaging profile gets from its plugin, and the drift says so."""
    case = next(c for c in CASES if c.name == "messaging-profile")
    build(case, root, monkeypatch)
    ins = Inspector(root / "ws")
    ins.exact = kept_exact(openclaw_package)  # Node 22
    ins.exact_on = True
    ins.reload()
    session = ins.report(run_scripts=False).requester
    assert session.exact.startswith(f"OpenClaw {runtimes.OPENCLAW_RELEASE}")
    said = [d.message for d in session.diagnostics if d.code == "drift"]
    assert any(
        "no prepared model runtime (Node 22." in m
        and "tools that plugins add to a tool profile" in m
        for m in said
    ), said
    assert "\n- intent" not in session.system_prompt
