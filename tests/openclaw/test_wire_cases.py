"""ctxscope's model of the whole request, held to what the real OpenClaw gateways (2026.9.6 and
2026.2.19) sent for generated workspaces (`wirecases`, recorded once by `record_wire`): the
system prompt within 1 %, each section within 2 %, the tools by name and their schema chars
within 2 %, for the main session, the spawned child and, two levels deep, the child's own
child. A config a release refused is held to ctxscope's refusal with the gateway's reason.
Offline: the recorded sizes are facts; no runtime runs here."""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ctxscope import Inspector
from tests import runtimes
from tests.openclaw.wirecapture import config_for, merged
from tests.openclaw.wirecases import CASES, WireCase, mismatches, recorded, values

RELEASES = (runtimes.OPENCLAW_RELEASE, runtimes.OPENCLAW_RELEASE_2)
RECORDED = {release: recorded(release) for release in RELEASES}
KNOWN: dict[tuple[str, str, str], set[str]] = {}
"""Differences still open, by release, case and session: each must still be seen (a fix
removes it here), and nothing else may differ."""
CAPTURED = [
    (release, c)
    for release in RELEASES
    for c in CASES
    if RECORDED[release].get(c.name, {}).get("sessions")
]
REFUSED = [
    (release, c)
    for release in RELEASES
    for c in CASES
    if "Invalid config" in RECORDED[release].get(c.name, {}).get("not_captured", "")
]


CAPTURE_ROOT_CHARS = len("/tmp/wire-XXXXXXXX")
"""How long the capture's scratch root was (`record_wire`'s temporary folder): a file's
`[MISSING]` marker names its path and counts against the total budget, so the model is built
under a root as long."""


@pytest.fixture
def root() -> Iterator[Path]:
    """A scratch folder whose path is as long as the capture's."""
    base = tempfile.gettempdir()
    random = 8  # the characters `mkdtemp` adds to its prefix
    prefix = CAPTURE_ROOT_CHARS - len(base) - 1 - random
    if prefix < 1:
        pytest.skip(f"the temporary folder {base} is too long to hold a root as the capture's")
    folder = Path(tempfile.mkdtemp(prefix="w" * prefix, dir=base))
    assert len(str(folder)) == CAPTURE_ROOT_CHARS
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def build(
    case: WireCase,
    root: Path,
    monkeypatch: pytest.MonkeyPatch,
    release: str = runtimes.OPENCLAW_RELEASE,
    depth: int = 0,
) -> Any:
    """ctxscope's report for the case as the capture ran it: the capture's gateway config
    (with the case's merged in) beside the workspace, the spawn it made, the gateway's
    environment, and no installed OpenClaw to be found."""
    ws = case.write(root)
    config = merged(config_for(ws, 1, 1, {}, release), case.gateway_config(root, release))
    config["meta"] = {"lastTouchedVersion": release}
    (ws / "openclaw.json").write_text(json.dumps(config), encoding="utf-8")
    for name, text in case.config_files.items():
        (ws / name).write_text(text, encoding="utf-8")
    (ws / "ctxscope.yaml").write_text(case.scenario(release, depth), encoding="utf-8")
    for name, value in case.env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("OPENCLAW_STATE_DIR", str(root / "scratch" / "state"))
    # The captures' gateways ran from a shell (their Runtime lines name one): so does the
    # model, whatever the environment the tests run in (its value is counted apart).
    monkeypatch.setenv("SHELL", "/bin/sh")
    monkeypatch.delenv("OPENCLAW_SHELL", raising=False)
    monkeypatch.setenv("PATH", str(root / "no-bin"))
    monkeypatch.setenv("npm_config_prefix", str(root / "no-npm"))
    return Inspector(ws).report(run_scripts=False)


@pytest.mark.parametrize(("release", "case"), CAPTURED, ids=[f"{r}-{c.name}" for r, c in CAPTURED])
def test_the_model_agrees_with_what_the_gateway_sent(
    release: str, case: WireCase, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sent = RECORDED[release][case.name]["sessions"]
    report = build(case, root, monkeypatch, release)
    where = values(root)
    found = {"main": mismatches(report.requester, sent["main"], where)}
    if "child" in sent:
        assert report.child is not None
        found["child"] = mismatches(report.child, sent["child"], where)
    if "grandchild" in sent:
        nested = build(case, root / "nested", monkeypatch, release, depth=1)
        found["grandchild"] = mismatches(nested.child, sent["grandchild"], values(root / "nested"))
    for session, said in found.items():
        assert set(said) == KNOWN.get((release, case.name, session), set()), (session, said)


@pytest.mark.parametrize(("release", "case"), REFUSED, ids=[f"{r}-{c.name}" for r, c in REFUSED])
def test_a_config_the_gateway_refused_is_refused_with_its_reasons(
    release: str, case: WireCase, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    said = RECORDED[release][case.name]["not_captured"]
    # The gateway's reasons, one "- where: why" line each (its first line break escaped).
    lines = said.replace("\\n", "\n").splitlines()
    problems = [line.strip()[2:] for line in lines if line.strip().startswith("- ")]
    assert problems, said
    report = build(case, tmp_path, monkeypatch, release)
    refused = [d.message for d in report.diagnostics if d.code == "config-refused"]
    for problem in problems:
        assert any(problem in message for message in refused), (problem, refused)


@pytest.mark.parametrize("release", RELEASES)
def test_enough_generated_workspaces_were_captured(release: str) -> None:
    assert len([c for r, c in CAPTURED if r == release]) >= 10, release
