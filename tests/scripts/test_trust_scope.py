"""What trust covers: every config file that contributed (included ones too) and the scripts of
every agent, as the trust dialog lists them; a change to any of it withdraws the trust, which
is then reported. Trust is given here as the app gives it: the `TrustSet` of the build the
dialog was opened on, stored under its key."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ctxscope import Inspector
from ctxscope.scripts import TrustStore

from .helpers import Handler, Server, write_script


@pytest.fixture
def server() -> Iterator[Server]:
    """A real HTTP server on 127.0.0.1 that records every request it is sent."""
    srv = Server(("127.0.0.1", 0), Handler)
    srv.requests = []
    srv.release = threading.Event()
    thread = threading.Thread(target=srv.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    try:
        yield srv
    finally:
        srv.release.set()
        srv.shutdown()
        srv.server_close()


def url(srv: Server, path: str = "/text") -> str:
    return f"http://127.0.0.1:{srv.server_address[1]}{path}"


def ctxscope(ws: Path, *args: str, env: dict[str, str] | None = None) -> str:
    """`ctxscope spawn` as a user runs it (it reads the user's trust.json); its stdout."""
    import os

    out = subprocess.run(
        [sys.executable, "-m", "ctxscope", "spawn", str(ws), *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **(env or {})},
    )
    assert out.returncode == 0, out.stderr
    return out.stdout


def spawn(ws: Path, *args: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(ctxscope(ws, "--format", "json", *args, env=env))
    return data


def statuses(report: dict[str, Any]) -> dict[str, str]:
    return {s["id"]: s["status"] for s in report["scripts"]}


def asks_again(ws: Path, *args: str) -> bool:
    """The spawn's diagnostics say the trust no longer matches."""
    text = ctxscope(ws, *args)
    return "the workspace was trusted, but what its context scripts run has changed" in text


def trust_as_the_dialog_does(ws: Path) -> str:
    """What `T` then `y` does: trust the key of the set the dialog listed; returns the
    listing."""
    shown = Inspector(ws).inputs.trust_set
    TrustStore().trust(ws, shown.key)
    return shown.listing()


def scripts_block(*entries: dict[str, Any]) -> dict[str, Any]:
    return {"subagents": {"contextScripts": {"run": list(entries)}}}


def test_a_url_script_added_to_an_included_file_does_not_run(
    tmp_path: Path, server: Server
) -> None:
    ws = tmp_path / "ws"
    write_script(ws, "local.sh", "echo local context")
    (ws / "AGENTS.md").write_text("agents\n")
    (ws / "openclaw.json").write_text('{ agents: { $include: "agents.json5" } }')
    included = {"defaults": scripts_block({"id": "local", "uri": "local.sh"})}
    (ws / "agents.json5").write_text(json.dumps(included))
    listing = trust_as_the_dialog_does(ws)
    assert str(ws / "agents.json5") in listing  # the included file is part of what is trusted
    assert statuses(spawn(ws)) == {"local": "ok"}

    included["defaults"]["subagents"]["contextScripts"]["run"].append(
        {"id": "exfil", "uri": url(server)}
    )
    (ws / "agents.json5").write_text(json.dumps(included))
    report = spawn(ws)
    assert statuses(report) == {"local": "not-run", "exfil": "not-run"}
    assert asks_again(ws)  # reported as needing trust again
    assert server.requests == []  # never contacted


def test_an_included_file_edit_that_keeps_the_scripts_still_asks_again(tmp_path: Path) -> None:
    """Every contributing config file is part of the key, not only what it resolves to."""
    ws = tmp_path / "ws"
    write_script(ws, "s.sh", "echo s")
    (ws / "openclaw.json").write_text('{ $include: "more.json5" }')
    (ws / "more.json5").write_text(
        json.dumps({"agents": {"defaults": scripts_block({"id": "s", "uri": "s.sh"})}})
    )
    trust_as_the_dialog_does(ws)
    assert Inspector(ws).inputs.trusted
    (ws / "more.json5").write_text((ws / "more.json5").read_text() + "\n// edited\n")
    assert not Inspector(ws).inputs.trusted


def test_trust_covers_every_agent_and_a_change_to_another_agents_script_revokes(
    tmp_path: Path,
) -> None:
    ws = tmp_path / "ws"
    (ws / "AGENTS.md").parent.mkdir(parents=True)
    (ws / "AGENTS.md").write_text("agents\n")
    other = write_script(ws / "scripts", "other.sh", "echo other agent context")
    config = {
        "agents": {
            "list": [
                {"id": "main"},
                {"id": "other", **scripts_block({"id": "other-ctx", "uri": "scripts/other.sh"})},
            ]
        }
    }
    (ws / "openclaw.json").write_text(json.dumps(config))
    shown = Inspector(ws).inputs.trust_set  # the requester is main: it runs nothing
    assert Inspector(ws).inputs.scenario.requester == "main"
    group = next(g for g in shown.groups if "other" in g.agents)
    assert [(s.id, s.target) for s in group.scripts] == [("other-ctx", str(other))]
    assert f"Agent other:\n  • other-ctx: {other} (file)" in shown.listing()
    TrustStore().trust(ws, shown.key)

    report = spawn(ws, "--requester", "other")
    assert statuses(report) == {"other-ctx": "ok"}
    assert "other agent context" in report["child"]["task_message"]

    # A change to that agent's script file, or to its entry, withdraws the trust.
    other.write_text(other.read_text().replace("other agent", "changed"))
    assert statuses(spawn(ws, "--requester", "other")) == {"other-ctx": "not-run"}
    trust_as_the_dialog_does(ws)
    assert statuses(spawn(ws, "--requester", "other")) == {"other-ctx": "ok"}
    config["agents"]["list"][1]["subagents"]["contextScripts"]["run"][0]["format"] = "json"
    (ws / "openclaw.json").write_text(json.dumps(config))
    assert statuses(spawn(ws, "--requester", "other")) == {"other-ctx": "not-run"}
    assert asks_again(ws, "--requester", "other")


def test_an_environment_variable_a_script_names_is_part_of_the_trust(
    tmp_path: Path, server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "openclaw.json").write_text(
        json.dumps({"agents": {"defaults": scripts_block({"id": "u", "uri": "${CTX_URL}"})}})
    )
    monkeypatch.setenv("CTX_URL", url(server, "/text"))
    trust_as_the_dialog_does(ws)
    assert statuses(spawn(ws)) == {"u": "ok"}
    report = spawn(ws, env={"CTX_URL": url(server, "/json")})
    assert statuses(report) == {"u": "not-run"}
    assert [path for _, path, _ in server.requests] == ["/text"]


def test_a_trust_given_by_an_older_ctxscope_no_longer_applies(tmp_path: Path) -> None:
    """The old key was the sha256 of the top config's text (with no script files named)."""
    import hashlib

    ws = tmp_path / "ws"
    ws.mkdir()
    text = json.dumps(
        {"agents": {"defaults": scripts_block({"id": "u", "uri": "http://127.0.0.1:9/x"})}}
    )
    (ws / "openclaw.json").write_text(text)
    old_key = hashlib.sha256(text.encode()).hexdigest()
    store = TrustStore()
    store.path.parent.mkdir(parents=True, exist_ok=True)
    store.path.write_text(json.dumps({"version": 1, "workspaces": {str(ws.resolve()): old_key}}))
    assert statuses(spawn(ws)) == {"u": "not-run"} and asks_again(ws)


def test_the_set_is_what_each_requester_runs() -> None:
    """For every agent (and one not configured), the scripts trust lists are those a spawn by
    it resolves: ignore lists, an agent's entry replacing a default of the same id, priority
    order, a repeated agent id (the first counts) and invalid blocks."""
    from ctxscope.scripts.resolve import every_agent_entries, resolve_entries

    config: dict[str, Any] = {
        "agents": {
            "defaults": scripts_block(
                {"id": "a", "uri": "a.sh"},
                {"id": "b", "uri": "http://127.0.0.1:9/b", "priority": 5},
                {"id": "a", "uri": "a2.sh"},
            ),
            "list": [
                {"id": "Main"},
                {
                    "id": "ignorer",
                    "subagents": {
                        "contextScripts": {"ignore": ["b"], "run": [{"id": "c", "uri": "c.sh"}]}
                    },
                },
                {"id": "replacer", **scripts_block({"id": "a", "uri": "mine.sh", "priority": 9})},
                {"id": "ignorer", **scripts_block({"id": "never", "uri": "never.sh"})},
                {"id": "broken", "subagents": {"contextScripts": "nope"}},
                {"id": "bad-entry", **scripts_block({"id": "x"}, {"id": "y", "uri": "y.sh"})},
                "not an agent",
            ],
        }
    }
    listed = dict(every_agent_entries(config))
    assert list(listed) == ["main", "ignorer", "replacer", "broken", "bad-entry", None]
    for agent in ["main", "ignorer", "replacer", "broken", "bad-entry", "someone-else"]:
        expected, _ = resolve_entries(config, agent)
        assert listed[agent if agent != "someone-else" else None] == expected, agent
