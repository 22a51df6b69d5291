"""The bundled profiles are read from the parsed form kept beside each YAML file while it is
the YAML's own; the YAML stays what they say; their families are the registry's runtimes."""

from __future__ import annotations

import dataclasses
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from ctxscope.core.yamlload import load_yaml
from ctxscope.runtimes import profiles
from ctxscope.runtimes.registry import RUNTIMES


@pytest.fixture
def bundled(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A copy of the bundled profiles' folder, read in place of the real one."""
    folder = tmp_path / "profiles"
    shutil.copytree(profiles.BUNDLED, folder)
    monkeypatch.setattr(profiles, "BUNDLED", folder)
    profiles._load_bundled.cache_clear()
    yield folder
    profiles._load_bundled.cache_clear()


@pytest.mark.parametrize("name", profiles.bundled_profiles())
def test_each_bundled_profile_ships_its_current_parsed_form(name: str) -> None:
    raw = (profiles.BUNDLED / f"{name}.yaml").read_bytes()
    parsed = profiles._parsed_form(name, raw)
    assert parsed is not None, f"{name}: run `python -m ctxscope.runtimes.profiles`"
    assert parsed == load_yaml(raw.decode("utf-8"))
    from_yaml = profiles.parse_profile(raw.decode("utf-8"), f"<bundled profile {name}>")
    assert dataclasses.asdict(profiles.load_profile(name)) == dataclasses.asdict(from_yaml)


def test_a_yaml_edited_after_its_parsed_form_was_written_is_read_itself(bundled: Path) -> None:
    source = bundled / "openclaw-2026.9.yaml"
    text = source.read_text(encoding="utf-8")
    assert "# Project Context" in text
    source.write_text(text.replace("# Project Context", "# Edited Context"), encoding="utf-8")
    assert profiles.load_profile("openclaw-2026.9").project_heading == "# Edited Context"

    profiles._load_bundled.cache_clear()
    profiles.write_parsed_forms()  # the form written again: read from it, the same profile
    assert profiles._parsed_form("openclaw-2026.9", source.read_bytes()) is not None
    assert profiles.load_profile("openclaw-2026.9").project_heading == "# Edited Context"


@pytest.mark.parametrize("content", ["", "{not json", '{"yaml_crc32": "x", "profile": {}}'])
def test_a_missing_or_broken_parsed_form_is_passed_over(bundled: Path, content: str) -> None:
    expected = dataclasses.asdict(profiles.load_profile("goclaw"))
    profiles._load_bundled.cache_clear()
    parsed = bundled / "goclaw.parsed.json"
    if content:
        parsed.write_text(content, encoding="utf-8")
    else:
        parsed.unlink()
    assert dataclasses.asdict(profiles.load_profile("goclaw")) == expected


def test_the_bundled_profiles_families_are_the_registry_s_runtimes() -> None:
    """What `profiles.unknown_family` calls known is what the registry builds sessions for."""
    families = {family for family, _ in profiles.bundled_releases().values() if family}
    assert families == set(RUNTIMES)
