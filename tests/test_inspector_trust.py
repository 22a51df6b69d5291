"""Trust, revoke and re-run as `Inspector` methods: what the app's ctrl+t and r do, through
the Python API, with a real trust store and the sample's real context scripts."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ctxscope.api import Inspector
from ctxscope.scripts import TrustStore
from tests.conftest import SAMPLE


def statuses(ins: Inspector) -> set[str]:
    spawn = ins.report(run_scripts=False).spawn
    assert spawn is not None
    return {r.status for r in spawn.scripts.results}


def test_trust_runs_the_scripts_revoke_stops_them_and_a_rerun_runs_them_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CTXSCOPE_CONFIG_DIR", str(tmp_path / "config"))
    ws = tmp_path / "ws"
    shutil.copytree(SAMPLE, ws, symlinks=True)
    store = TrustStore(tmp_path / "trust.json")
    ins = Inspector(ws, trust_store=store)
    assert statuses(ins) == {"not-run"}
    key = ins.inputs.trust_key

    ins.trust()
    assert store.is_trusted(ins.workspace, key)
    ins.reload()
    assert ins.inputs.trusted
    ins.run_scripts()
    ran = statuses(ins)
    assert "not-run" not in ran and "pending" not in ran

    ins.rerun_scripts()  # the results are dropped: a build without running shows them pending
    assert statuses(ins) == {"pending"}

    ins.revoke()
    assert not store.knows(ins.workspace)
    ins.reload()
    assert not ins.inputs.trusted
    assert statuses(ins) == {"not-run"}


def test_trust_is_for_what_the_user_was_shown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CTXSCOPE_CONFIG_DIR", str(tmp_path / "config"))
    ws = tmp_path / "ws"
    shutil.copytree(SAMPLE, ws, symlinks=True)
    store = TrustStore(tmp_path / "trust.json")
    ins = Inspector(ws, trust_store=store)
    shown = ins.inputs.trust_key
    (ws / "openclaw.json").write_text((ws / "openclaw.json").read_text() + "\n")
    ins.reload()
    assert ins.inputs.trust_key != shown
    ins.trust(shown)  # the answer came after the config changed: the new one is not trusted
    ins.reload()
    assert not ins.inputs.trusted
