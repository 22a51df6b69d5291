"""The tool catalog read from an install: exact mode measures the installed release's own
default catalog once (its runner's tools, Tool Search's split, a subagent's tools), and every
later build on that install takes the tool sizes from it instead of the recorded facts, saying
which source it used."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from ctxscope import Inspector
from ctxscope.runtimes.openclaw import versions
from ctxscope.runtimes.openclaw.exact import ExactMode
from ctxscope.runtimes.openclaw.installedcatalog import catalog_file
from ctxscope.runtimes.openclaw.toolcatalog import bundled_catalog
from tests.conftest import SAMPLE


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    shutil.copytree(SAMPLE, ws)
    scenario = ws / "ctxscope.yaml"
    scenario.write_text(scenario.read_text(encoding="utf-8") + "profile: openclaw-2026.9\n")
    return ws


@pytest.fixture
def on_path(
    tmp_path: Path, openclaw_package: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Path]:
    """The installed 2026.9.6 package, found on PATH as a user's install would be."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "openclaw").symlink_to(openclaw_package / "openclaw.mjs")
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    versions.installed_openclaw.cache_clear()
    yield openclaw_package
    versions.installed_openclaw.cache_clear()


def test_the_install_measured_once_gives_every_later_build_its_tools(
    tmp_path: Path, sample: Path, on_path: Path, kept_exact: Callable[[Path], ExactMode]
) -> None:
    before = Inspector(sample).session()
    assert before.wire is not None and before.wire.stand_in
    assert before.wire.plan.catalog_source.startswith("stand-in")

    mode = kept_exact(on_path)
    mode.catalog_asked = False  # the helper is shared by the session's tests
    ins = Inspector(sample)
    ins.exact, ins.exact_on = mode, True
    ins.reload()
    ins.session()
    saved = json.loads(catalog_file(str(on_path)).read_text(encoding="utf-8"))
    assert saved["version"] == "2026.9.6" and saved["package"] == os.path.realpath(on_path)

    after = Inspector(sample).session()  # no exact mode: the install's measurement is used
    request = after.wire
    assert request is not None and not request.stand_in
    assert request.plan.catalog_source.startswith(f"installed: OpenClaw 2026.9.6 at {on_path}")
    measured = {t["name"]: (t["description"], t["schema"]) for t in saved["tools"]}
    measured.update({t["name"]: (t["description"], t["schema"]) for t in saved["search_tools"]})
    for tool in request.tools:
        assert measured[tool.name] == (tool.description_chars, tool.schema_chars)
    # The runner's catalog is the one the recorded facts were measured from.
    recorded = bundled_catalog("openclaw-2026.9")
    assert recorded is not None
    assert sorted(measured) == sorted(t.name for t in (*recorded.tools, *recorded.search_tools))
    assert sorted(saved["visible"]) == sorted(recorded.visible)
