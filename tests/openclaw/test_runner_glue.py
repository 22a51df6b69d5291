"""What OpenClaw's runner adds around the prompt builder, in both modelled releases: each
class of difference found by comparing ctxscope with what the runtime sends. Facts are read
from each release's `dist/` (the region named in each test)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ctxscope import Inspector
from ctxscope.model import Session

PROFILES = ("openclaw-2026.2", "openclaw-2026.9")


def write(root: Path, files: dict[str, str], profile: str, config: str | None = None) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    (root / "ctxscope.yaml").write_text(f"profile: {profile}\n", encoding="utf-8")
    if config is not None:
        (root / "openclaw.json").write_text(config, encoding="utf-8")
    return root


def session(ws: Path, key: str = "agent:main:main", **scenario: Any) -> Session:
    return Inspector(ws, scenario=scenario or None).session(key)


def chars(s: Session, section: str) -> int:
    found = s.section(section)
    assert found is not None, section
    return found.chars


# --- Workspace: the runner's reminder while BOOTSTRAP.md is loaded ---------------------------
# attempt-bootstrap-prepare.ts (2026.9) / the embedded runner (2026.2): a workspace note
# "Reminder: commit your changes in this workspace after edits." (58 chars, one line) when a
# bootstrap file of the session is BOOTSTRAP.md and not missing.


@pytest.mark.parametrize("profile", PROFILES)
def test_the_workspace_section_gains_the_commit_reminder_with_bootstrap(
    profile: str, tmp_path: Path
) -> None:
    files = {"AGENTS.md": "a", "SOUL.md": "s", "IDENTITY.md": "i", "USER.md": "u"}
    without = session(write(tmp_path / "a", files, profile))
    with_boot = session(write(tmp_path / "b", {**files, "BOOTSTRAP.md": "set up"}, profile))
    assert chars(with_boot, "workspace") == chars(without, "workspace") + 59
    assert "reminder to commit" in with_boot.section("workspace").rule  # type: ignore[union-attr]
    # An empty BOOTSTRAP.md is still a loaded file (not missing).
    empty = session(write(tmp_path / "c", {**files, "BOOTSTRAP.md": "  \n"}, profile))
    assert chars(empty, "workspace") == chars(without, "workspace") + 59
    # A subagent never loads BOOTSTRAP.md: no reminder.
    ws = tmp_path / "b"
    sub = session(ws, "agent:main:subagent:x")
    main_len = chars(with_boot, "workspace")
    assert chars(sub, "workspace") == main_len - 59
