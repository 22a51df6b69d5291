"""Result cache, trust store and secret masking."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from ctxscope.core.secrets import mask_secrets
from ctxscope.infra.paths import config_dir
from ctxscope.scripts import ScriptCache, TrustStore, config_hash

from .helpers import config_with, run_cfg, write_script


def counting_script(tmp_path: Path) -> tuple[Path, Path]:
    counter = tmp_path / "runs.log"
    script = write_script(tmp_path, "count.sh", f'echo run >> {counter}\necho "agent=$1"')
    return script, counter


def runs(counter: Path) -> int:
    return len(counter.read_text().splitlines()) if counter.exists() else 0


ENTRY = {"id": "c", "uri": "count.sh", "argMap": {"a": "targetAgentId"}}


def test_second_run_comes_from_the_cache(tmp_path: Path) -> None:
    _, counter = counting_script(tmp_path)
    cache = ScriptCache()
    first = run_cfg(config_with([ENTRY]), tmp_path, cache=cache)
    second = run_cfg(config_with([ENTRY]), tmp_path, cache=cache)
    assert runs(counter) == 1
    assert (first.results[0].cached, second.results[0].cached) == (False, True)
    assert second.results[0].output == first.results[0].output == "agent=a=steward"
    assert second.append == first.append


def test_changed_variables_rerun(tmp_path: Path) -> None:
    _, counter = counting_script(tmp_path)
    cache = ScriptCache()
    run_cfg(config_with([ENTRY]), tmp_path, cache=cache)
    out = run_cfg(config_with([ENTRY]), tmp_path, cache=cache, targetAgentId="coder")
    assert runs(counter) == 2
    assert out.results[0].output == "agent=a=coder"
    # A variable the script does not receive does not matter.
    run_cfg(config_with([ENTRY]), tmp_path, cache=cache, targetAgentId="coder", task="other")
    assert runs(counter) == 2


def test_changed_script_file_reruns(tmp_path: Path) -> None:
    script, counter = counting_script(tmp_path)
    cache = ScriptCache()
    run_cfg(config_with([ENTRY]), tmp_path, cache=cache)
    st = script.stat()
    os.utime(script, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
    run_cfg(config_with([ENTRY]), tmp_path, cache=cache)
    assert runs(counter) == 2


def test_changed_entry_reruns(tmp_path: Path) -> None:
    _, counter = counting_script(tmp_path)
    cache = ScriptCache()
    run_cfg(config_with([ENTRY]), tmp_path, cache=cache)
    run_cfg(config_with([{**ENTRY, "position": "prepend"}]), tmp_path, cache=cache)
    assert runs(counter) == 2


def test_clear_reruns_on_demand(tmp_path: Path) -> None:
    _, counter = counting_script(tmp_path)
    cache = ScriptCache()
    run_cfg(config_with([ENTRY]), tmp_path, cache=cache)
    cache.clear()
    assert len(cache) == 0
    run_cfg(config_with([ENTRY]), tmp_path, cache=cache)
    assert runs(counter) == 2


def test_cached_failures_keep_their_status_and_log(tmp_path: Path) -> None:
    write_script(tmp_path, "f.sh", "exit 4")
    cache = ScriptCache()
    cfg = config_with([{"id": "f", "uri": "f.sh"}])
    run_cfg(cfg, tmp_path, cache=cache)
    again = run_cfg(cfg, tmp_path, cache=cache)
    assert (again.results[0].status, again.results[0].cached) == ("error", True)
    assert again.log_lines == ["[context-script] f failed: Script exited with code 4"]


def test_untrusted_runs_do_not_fill_the_cache(tmp_path: Path) -> None:
    counting_script(tmp_path)
    cache = ScriptCache()
    run_cfg(config_with([ENTRY]), tmp_path, cache=cache, trusted=False)
    assert len(cache) == 0


def test_url_results_are_cached(tmp_path: Path, http_server: str) -> None:
    cache = ScriptCache()
    cfg = config_with([{"id": "u", "uri": f"{http_server}/text"}])
    run_cfg(cfg, tmp_path, cache=cache)
    assert run_cfg(cfg, tmp_path, cache=cache).results[0].cached


# --- trust ----------------------------------------------------------------------------------


def test_trust_is_remembered_per_workspace_and_config(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    store = TrustStore()
    assert store.path == tmp_path / "user-config" / "trust.json"
    assert not store.is_trusted(ws, "{agents: {}}")
    store.trust(ws, config_hash("{agents: {}}"))
    assert TrustStore().is_trusted(ws, "{agents: {}}")
    assert TrustStore().is_trusted(ws, config_hash("{agents: {}}"))
    assert not TrustStore().is_trusted(ws, "{agents: {list: []}}")  # the config changed
    assert not TrustStore().is_trusted(tmp_path / "other", "{agents: {}}")
    saved = json.loads(store.path.read_text())
    assert saved["workspaces"] == {str(ws.resolve()): config_hash("{agents: {}}")}


def test_trusting_a_new_config_replaces_the_old_one(tmp_path: Path) -> None:
    store = TrustStore()
    store.trust(tmp_path, "v1")
    store.trust(tmp_path, "v2")
    assert (store.is_trusted(tmp_path, "v1"), store.is_trusted(tmp_path, "v2")) == (False, True)
    store.revoke(tmp_path)
    assert not store.is_trusted(tmp_path, "v2")


def test_corrupt_trust_file_means_untrusted_and_is_repaired(tmp_path: Path) -> None:
    store = TrustStore()
    store.path.parent.mkdir(parents=True)
    store.path.write_text("{not json")
    assert not store.is_trusted(tmp_path, "cfg")
    store.trust(tmp_path, "cfg")
    assert store.is_trusted(tmp_path, "cfg")


def test_config_hash_is_sha256() -> None:
    assert config_hash("") == ("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")


def test_trust_location_fallbacks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CTXSCOPE_CONFIG_DIR", str(tmp_path / "explicit"))
    assert config_dir() == tmp_path / "explicit"
    monkeypatch.delenv("CTXSCOPE_CONFIG_DIR")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert config_dir() == tmp_path / "xdg" / "ctxscope"
    monkeypatch.delenv("XDG_CONFIG_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert config_dir() == tmp_path / "home" / ".config" / "ctxscope"


# --- secrets --------------------------------------------------------------------------------


def test_mask_secrets() -> None:
    cfg: dict[str, Any] = {
        "gateway": {"auth": {"token": "t", "mode": "token"}},
        "providers": [{"apiKey": "k", "name": "openai", "Client_Secret": "s"}],
        "db": {"PASSWORD": "p", "user": "u"},
        "agents": {
            "defaults": {
                "contextTokens": 200000,
                "subagents": {
                    "contextScripts": {
                        "run": [{"returnKey": "message", "agentIdOverrideKey": "to"}]
                    }
                },
            }
        },
    }
    masked = mask_secrets(cfg)
    assert masked["gateway"]["auth"] == {"token": "***", "mode": "token"}
    assert masked["providers"] == [{"apiKey": "***", "name": "openai", "Client_Secret": "***"}]
    assert masked["db"] == {"PASSWORD": "***", "user": "u"}
    assert masked["agents"] == cfg["agents"]  # setting names that merely contain "key"
    assert cfg["gateway"]["auth"]["token"] == "t"  # the input is untouched


def test_a_trust_that_cannot_be_written_says_so_and_leaves_no_part_behind(tmp_path: Path) -> None:
    store = TrustStore()
    store.trust(tmp_path, "v1")
    store.path.unlink()
    store.path.mkdir()  # a folder where the file goes: the rename fails
    with pytest.raises(OSError):
        store.trust(tmp_path, "v2")
    assert [p.name for p in store.path.parent.iterdir()] == ["trust.json"]
    store.path.rmdir()
    store.trust(tmp_path, "v2")
    assert store.path.stat().st_mode & 0o777 == 0o600  # the user's alone
    assert TrustStore().is_trusted(tmp_path, "v2")
