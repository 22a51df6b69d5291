"""The first-run templates' measured facts (`openclaw/facts/<profile>.json`,
`first_run_templates`) held to each installed release's own templates: without an install,
ctxscope shows a first run at the sizes it shows with one, and tells a persona file that is
still the template by its digest."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from ctxscope import Inspector
from ctxscope.core.model import Session
from ctxscope.core.tokens import text_chars
from ctxscope.infra.snapshot import JS_WHITESPACE
from ctxscope.runtimes.openclaw import versions
from ctxscope.runtimes.openclaw.firstrun import template_facts, template_text
from ctxscope.runtimes.profiles import load_profile

LINES = ("2026.2", "2026.9")


def package_for(line: str, openclaw_package: Path, openclaw_package_2: Path) -> Path:
    return openclaw_package if line == "2026.9" else openclaw_package_2


def templates_of(package: Path, line: str) -> dict[str, str]:
    """Each template the release writes on a first run, as it writes it."""
    rules = load_profile(f"openclaw-{line}").first_run
    folder = package / str(rules["templates"])
    names = [*rules["writes"], "BOOTSTRAP.md"]
    return {n: template_text((folder / n).read_text(encoding="utf-8")) for n in names}


@pytest.mark.parametrize("line", LINES)
def test_the_measured_templates_are_the_releases_own(
    line: str, openclaw_package: Path, openclaw_package_2: Path
) -> None:
    package = package_for(line, openclaw_package, openclaw_package_2)
    facts = template_facts(load_profile(f"openclaw-{line}"))
    assert facts is not None
    assert facts.release == json.loads((package / "package.json").read_text())["version"]
    assert facts.templates == {
        name: (text_chars(text.rstrip(JS_WHITESPACE)), hashlib.sha256(text.encode()).hexdigest())
        for name, text in templates_of(package, line).items()
    }


def first_run(ws: Path, package: Path | None, monkeypatch: pytest.MonkeyPatch) -> Session:
    found = None
    if package is not None:
        version = json.loads((package / "package.json").read_text())["version"]
        found = (versions.parse_version(version), str(package))
    monkeypatch.setattr(versions, "installed_openclaw", lambda: found)
    return Inspector(ws).session()


def seeded(session: Session) -> dict[str, tuple[int, int, int]]:
    """Per first-run file: raw chars, injected chars, its prompt section's chars."""
    out = {}
    for f in session.files:
        if f.status == "first-run":
            section = session.section(f"file:{f.name}")
            out[f.name] = (f.raw_chars, f.injected_chars, section.chars if section else 0)
    return out


@pytest.mark.parametrize("line", LINES)
@pytest.mark.parametrize("files", [{}, {"AGENTS.md": "# mine\n"}], ids=["new", "only-agents"])
def test_without_an_install_a_first_run_has_the_sizes_it_has_with_one(
    line: str,
    files: dict[str, str],
    tmp_path: Path,
    openclaw_package: Path,
    openclaw_package_2: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    package = package_for(line, openclaw_package, openclaw_package_2)
    ws = tmp_path / "ws"
    ws.mkdir()
    for name, text in files.items():
        (ws / name).write_text(text)
    (ws / "ctxscope.yaml").write_text(f"profile: openclaw-{line}\n")
    read = first_run(ws, package, monkeypatch)
    stood_in = first_run(ws, None, monkeypatch)
    assert seeded(stood_in) == seeded(read) != {}
    assert all(f.stand_in for f in stood_in.files if f.status == "first-run")
    assert not any(f.stand_in for f in read.files)


@pytest.mark.parametrize("line", LINES)
def test_a_persona_file_still_the_template_is_told_without_an_install(
    line: str,
    tmp_path: Path,
    openclaw_package: Path,
    openclaw_package_2: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """BOOTSTRAP.md is written while the persona files are the release's templates: a folder
    holding them as the runtime wrote them gets it on the next run, with or without an
    install; an edited one does not."""
    package = package_for(line, openclaw_package, openclaw_package_2)
    persona = load_profile(f"openclaw-{line}").first_run["setup_when"]["persona"]
    texts = templates_of(package, line)
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "AGENTS.md").write_text("# mine\n")
    for name in persona:
        (ws / name).write_text(texts[name], encoding="utf-8")
    (ws / "ctxscope.yaml").write_text(f"profile: openclaw-{line}\n")
    for install in (package, None):
        boot = first_run(ws, install, monkeypatch).file("BOOTSTRAP.md")
        assert boot is not None and boot.status == "first-run", install
    (ws / persona[-1]).write_text(texts[persona[-1]] + "- Name: Ada\n", encoding="utf-8")
    boot = first_run(ws, None, monkeypatch).file("BOOTSTRAP.md")
    assert boot is not None and boot.status != "first-run"
