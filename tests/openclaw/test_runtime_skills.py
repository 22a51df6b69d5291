"""The runtime's own skills read from an installed OpenClaw package: which ones it lists on
this machine (gated by their frontmatter and the config) and the size of each entry."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from ctxscope import Inspector
from ctxscope.runtimes.openclaw.config import GatewayConfig
from ctxscope.runtimes.openclaw.runtimeskills import installed_skills
from ctxscope.runtimes.openclaw.toolcatalog import bundled_catalog
from ctxscope.runtimes.openclaw.versions import installed_openclaw, package_version
from tests import runtimes


@pytest.fixture(scope="session")
def openclaw_package() -> Path:
    """The installed OpenClaw 2026.9.6 (`tests/runtimes.py`)."""
    return Path(runtimes.get("openclaw_package"))


def skill(root: Path, rel: str, name: str, metadata: dict | None = None) -> None:
    folder = root / rel / name
    folder.mkdir(parents=True)
    meta = f"metadata: {json.dumps({'openclaw': metadata})}\n" if metadata else ""
    (folder / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: Does {name} things.\n{meta}---\n# {name}\n",
        encoding="utf-8",
    )


def fake_package(tmp_path: Path) -> Path:
    package = tmp_path / "lib" / "node_modules" / "openclaw"
    package.mkdir(parents=True)
    (package / "package.json").write_text('{"name": "openclaw", "version": "2026.9.6"}')
    (package / "openclaw.mjs").write_text("")
    (package / "openclaw.mjs").chmod(0o755)
    other_os = "darwin" if sys.platform != "darwin" else "linux"
    skill(package, "skills", "plain")
    skill(package, "skills", "needs-bin", {"requires": {"bins": ["no-such-program-xyz"]}})
    skill(package, "skills", "any-bin", {"requires": {"anyBins": ["no-such-xyz", "sh"]}})
    skill(package, "skills", "other-os", {"os": [other_os]})
    skill(package, "skills", "needs-env", {"requires": {"env": ["CTXSCOPE_TEST_TOKEN"]}})
    skill(package, "skills", "needs-config", {"requires": {"config": ["skills.entries.x.on"]}})
    skill(package, "custodian-skills", "keeper")
    skill(package, "dist/extensions/canvas/skills", "canvas")  # a default plugin's
    skill(package, "dist/extensions/wiki/skills", "wiki-maintainer")  # not enabled
    return package


def names(
    package: Path, config: dict | None = None, env: dict[str, str] | None = None
) -> list[str]:
    catalog = bundled_catalog("openclaw-2026.9")
    assert catalog is not None
    listed = installed_skills(package, catalog, GatewayConfig(config or {}), env or {})
    return [k.name for k in listed]


def test_skills_are_gated_as_the_runtime_gates_them(tmp_path: Path) -> None:
    """A skill that needs a variable is listed once the environment the session is built in
    sets it (the inputs', not ctxscope's own read on the way)."""
    package = fake_package(tmp_path)
    assert names(package) == ["any-bin", "plain", "keeper", "canvas"]
    assert "needs-env" in names(package, env={"CTXSCOPE_TEST_TOKEN": "t"})
    off = {"skills": {"entries": {"plain": {"enabled": False}, "x": {"on": True}}}}
    listed = names(package, off)
    assert "plain" not in listed and "needs-config" in listed


def test_an_installed_package_replaces_the_measured_skills(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = fake_package(tmp_path)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "openclaw").symlink_to(package / "openclaw.mjs")
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    installed_openclaw.cache_clear()
    try:
        ws = tmp_path / "ws"
        ws.mkdir()
        (ws / "AGENTS.md").write_text("# Agents\n")
        (ws / "openclaw.json").write_text(json.dumps({"meta": {"lastTouchedVersion": "2026.9.6"}}))
        session = Inspector(ws, scenario={"tools": ["read"]}).session()
    finally:
        installed_openclaw.cache_clear()
    skills = session.section("skills")
    assert skills is not None
    assert "4 skills of the runtime and its plugins: any-bin, plain, keeper, canvas⟩" in skills.text
    assert f"read from the install at {package}" in skills.rule


def test_the_installed_release_lists_what_it_was_measured_sending(
    openclaw_package: Path,
) -> None:
    """Each skill the capture saw OpenClaw 2026.9.6 send that this machine's gating also
    lists is read from the package at the size measured on the wire."""
    catalog = bundled_catalog("openclaw-2026.9")
    assert catalog is not None
    read = {
        k.name: k
        for k in installed_skills(openclaw_package, catalog, GatewayConfig({}), os.environ)
    }
    measured = {k.name: k for k in catalog.skills}
    both = read.keys() & measured.keys()
    assert len(both) >= 10  # the ungated ones at least
    assert {n: read[n].block_chars for n in both} == {n: measured[n].block_chars for n in both}
    # What a compact catalog shortens or leaves out: each description's chars.
    assert {n: read[n].description_chars for n in both} == {
        n: measured[n].description_chars for n in both
    }
    assert {read[n].root for n in both} == {"package", "state"}


def test_a_program_put_on_path_or_taken_off_it_is_seen_at_the_next_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = fake_package(tmp_path)
    programs = tmp_path / "programs"
    programs.mkdir()
    monkeypatch.setenv("PATH", str(programs))
    assert "needs-bin" not in names(package)
    program = programs / "no-such-program-xyz"
    program.write_text("#!/bin/sh\n", encoding="utf-8")
    program.chmod(0o755)
    assert "needs-bin" in names(package)
    program.unlink()
    assert "needs-bin" not in names(package)


def test_a_reinstalled_package_is_read_again(tmp_path: Path) -> None:
    package = fake_package(tmp_path)
    assert package_version(package) == (2026, 9, 6)
    assert "fresh" not in names(package)
    skill(package, "skills", "fresh")
    (package / "package.json").write_text('{"name": "openclaw", "version": "2026.9.12"}')
    assert package_version(package) == (2026, 9, 12)
    assert "fresh" in names(package)
