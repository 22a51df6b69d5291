"""The files OpenClaw writes into a workspace before its first run there, against each
release's own `ensureAgentWorkspace` run on a copy of the workspace (with a private state
folder): ctxscope shows exactly those files, with exactly that text, as `first-run`; with
`skipBootstrap` it shows what is on disk."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from ctxscope import Inspector
from ctxscope.core.tokens import text_chars
from ctxscope.runtimes.openclaw import versions
from tests.exact.conftest import unexpected_drift

RUNNER = """
const [dist, file, dir] = process.argv.slice(1);
const text = await import("node:fs").then((fs) => fs.readFileSync(`${dist}/${file}`, "utf8"));
const alias = /ensureAgentWorkspace as (\\w+)/.exec(text)[1];
const mod = await import(`${dist}/${file}`);
await mod[alias]({ dir, ensureBootstrapFiles: true });
process.exit(0);
"""


def run_first_run(node: str, package: Path, folder: Path, state: Path) -> None:
    dist = package / "dist"
    file = next(
        p.name
        for p in sorted(dist.iterdir())
        if p.suffix in (".js", ".mjs")
        and "async function ensureAgentWorkspace(" in p.read_text(encoding="utf-8")
        and re.search(r"ensureAgentWorkspace as \w+", p.read_text(encoding="utf-8"))
    )
    env = {"HOME": str(state), "OPENCLAW_STATE_DIR": str(state), "PATH": "/usr/bin:/bin"}
    subprocess.run(
        [node, "--input-type=module", "-e", RUNNER, str(dist), file, str(folder)],
        check=True,
        env=env,
        timeout=120,
        capture_output=True,
    )


WORKSPACES = {
    "only-agents": {"AGENTS.md": "# mine\n"},
    "brand-new": {},
    "persona-only": {"SOUL.md": "soul\n", "memory/notes.md": "n"},
}


@pytest.mark.parametrize("name", list(WORKSPACES))
@pytest.mark.parametrize("line", ["2026.2", "2026.9"])
def test_first_run_files_are_what_the_runtime_writes(
    name: str,
    line: str,
    tmp_path: Path,
    node22: str,
    openclaw_package: Path,
    openclaw_package_2: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    package = openclaw_package if line == "2026.9" else openclaw_package_2
    version = json.loads((package / "package.json").read_text())["version"]
    monkeypatch.setattr(
        versions, "installed_openclaw", lambda: (versions.parse_version(version), str(package))
    )
    ws = tmp_path / "ws"
    ws.mkdir()
    for rel, text in WORKSPACES[name].items():
        (ws / rel).parent.mkdir(parents=True, exist_ok=True)
        (ws / rel).write_text(text)
    (ws / "ctxscope.yaml").write_text(f"profile: openclaw-{line}\n")
    before = sorted(p.relative_to(ws) for p in ws.rglob("*"))
    session = Inspector(ws).session()
    assert sorted(p.relative_to(ws) for p in ws.rglob("*")) == before  # nothing written
    shown = {f.name: f for f in session.files if f.status == "first-run"}
    # The runtime itself, on a copy.
    copy = tmp_path / "copy"
    shutil.copytree(ws, copy)
    state = tmp_path / "state"
    state.mkdir()
    run_first_run(node22, package, copy, state)
    written = {
        p.name: p.read_text(encoding="utf-8")
        for p in copy.iterdir()
        if p.is_file() and not (ws / p.name).exists() and p.name.endswith(".md")
    }
    loaded = {n for n in written if n in {f.name for f in session.files}}
    assert set(shown) == loaded, (sorted(shown), sorted(written))
    for n in shown:
        assert shown[n].raw_chars == text_chars(written[n].rstrip()), n
        assert "created on first run" in shown[n].reason
        if shown[n].body:
            assert written[n].rstrip().startswith(shown[n].body[:200]), n
    # skipBootstrap: nothing is written; what is on disk is shown.
    (ws / "openclaw.json").write_text('{"agents": {"defaults": {"skipBootstrap": true}}}')
    assert not [f for f in Inspector(ws).session().files if f.status == "first-run"]


def test_exact_mode_asks_about_the_folder_as_it_is(
    tmp_path: Path,
    openclaw_package: Path,
    kept_exact,
    monkeypatch: pytest.MonkeyPatch,  # type: ignore[no-untyped-def]
) -> None:
    """The runtime is asked about the folder on disk: first-run files are named in a note,
    not reported as drift."""
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "AGENTS.md").write_text("# mine\n")
    mode = kept_exact(openclaw_package)
    install = mode.install
    ins = Inspector(ws, exact=True, runtime=install.package, node=install.node)
    ins.exact = mode
    session = ins.session()
    drift = unexpected_drift(session)
    assert drift == [], drift
    [note] = [d.message for d in session.diagnostics if d.code == "first-run"]
    assert "SOUL.md" in note and "IDENTITY.md" in note
    assert not [f for f in session.files if f.status == "first-run"]
