"""The folders the app watches for a state folder's stores (`runs.marks.store_folders`)."""

from __future__ import annotations

from pathlib import Path

from ctxscope.runs.marks import store_folders


def test_the_agents_folder_is_watched_whole_and_the_state_folder_alone(tmp_path: Path) -> None:
    state = tmp_path / "state"
    (state / "agents" / "main" / "agent").mkdir(parents=True)
    assert store_folders(str(state)) == ([state / "agents"], [state])


def test_a_state_folder_without_agents_is_watched_for_them_to_appear(tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir()
    assert store_folders(str(state)) == ([], [state])


def test_a_missing_state_folder_stands_in_by_the_nearest_folder_above(tmp_path: Path) -> None:
    assert store_folders(str(tmp_path / "not" / "yet")) == ([], [tmp_path])


def test_a_session_store_template_watches_the_folders_its_stores_lie_in(tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir()
    kept = tmp_path / "kept" / "main"
    kept.mkdir(parents=True)
    config = {
        "session": {"store": str(tmp_path / "kept" / "{agentId}" / "sessions.json")},
        "agents": {"list": [{"id": "main"}, {"id": "coder"}]},
    }
    whole, tops = store_folders(str(state), config)
    assert whole == [kept]
    assert tops == [tmp_path / "kept"]  # coder's folder is not there yet
