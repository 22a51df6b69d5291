"""Live: the installed OpenClaw 2026.9.6 gateway runs the sample against a model on
127.0.0.1 (`wirecapture`), and ctxscope's request for the same workspace is held to what it
sent: the system prompt (within 1 %, each section within 2 %), the tools (names, schema
chars within 2 %), the message kinds, the subagent's first message (identical apart from
time, ids and the gateway machine's fields) and the internal-context message. About a minute
each; `-m "not wire"` leaves them out. The generated workspaces' captures are recorded
(`test_wire_cases`)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from ctxscope import Inspector
from tests import runtimes
from tests.conftest import SAMPLE
from tests.openclaw.record_wire import session_facts
from tests.openclaw.test_request import normalised, write_capture_config
from tests.openclaw.wirecapture import MAIN, capture, user_texts
from tests.openclaw.wirecases import PACKAGE, ROOT, STATE, mismatches, values

pytestmark = pytest.mark.wire


@pytest.fixture(scope="session")
def node24() -> str:
    return str(runtimes.get("node24"))


@pytest.fixture(scope="session")
def openclaw_package() -> Path:
    return Path(runtimes.get("openclaw_package"))


def schema_chars(tool: dict[str, Any]) -> int:
    params = (tool.get("function") or {}).get("parameters")
    return len(json.dumps(params, separators=(",", ":"), ensure_ascii=False))


@pytest.mark.parametrize(
    "extra",
    [{}, {"tools": {"toolSearch": False}}],
    ids=["tool-search-on", "tool-search-off"],
)
def test_ctxscope_sends_what_the_gateway_sent(
    tmp_path: Path,
    node24: str,
    openclaw_package: Path,
    extra: dict[str, Any],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ws = tmp_path / "ws"
    shutil.copytree(SAMPLE, ws)
    (ws / "openclaw.json").unlink()  # the gateway reads the capture's config
    (ws / "BOOTSTRAP.md").unlink()  # the runtime deletes it once IDENTITY/USER are filled in
    bodies = capture(node24, openclaw_package, ws, tmp_path / "scratch", extra)
    main = next(b for b in bodies if MAIN in user_texts(b)[0])
    child = next(b for b in bodies if "[Subagent Task]" in user_texts(b)[0])

    write_capture_config(ws, extra)
    # The model as a user without an install sees it; the machine's folders counted apart.
    monkeypatch.setenv("OPENCLAW_STATE_DIR", str(tmp_path / "scratch" / "state"))
    monkeypatch.setenv("PATH", str(tmp_path / "no-bin"))
    monkeypatch.setenv("npm_config_prefix", str(tmp_path / "no-npm"))
    sent_at = {
        ROOT: str(tmp_path),
        PACKAGE: str(openclaw_package),
        STATE: str(tmp_path / "scratch" / "state"),
    }
    report = Inspector(ws).report(run_scripts=False)
    assert report.child is not None
    for body, session in ((main, report.requester), (child, report.child)):
        request = session.wire
        assert request is not None
        sent = body.get("tools") or []
        assert [t.name for t in request.tools] == [t["function"]["name"] for t in sent]
        wire_schema = sum(schema_chars(t) for t in sent)
        assert abs(request.tool_schema_chars - wire_schema) <= 0.02 * wire_schema
        users = user_texts(body)
        assert [m.role for m in request.messages] == ["user"] * len(users)
        assert request.messages[1].kind == "internal-context"
        assert request.messages[1].chars == len(users[1])
        assert mismatches(session, session_facts(body, sent_at), values(tmp_path)) == []
    first = report.child.wire.messages[0].text
    assert normalised(first) == normalised(user_texts(child)[0])
