"""The helper's first answer loads the modules the runtime builds prompts with (on a cold
cache, OpenClaw 2026.2.19 compiles them first: most of a minute, where later answers take
seconds). That answer has a budget of its own: the per-answer timeout is for the answers
after it, and while it is awaited exact mode says it is still loading, not that it failed."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

from ctxscope import Inspector
from ctxscope.runtimes.openclaw.exact import ExactError, ExactMode, find_install
from ctxscope.runtimes.openclaw.exact.runtime import RuntimeHelper
from ctxscope.tui.status import Exact, status_line
from tests import runtimes

# A runtime whose bootstrap loader, on each call, waits until a file named for that call
# appears beside it: the test decides when each answer may come, whatever the machine's load.
LOADER = """
import fs from "node:fs";
import path from "node:path";
let calls = 0;
export async function resolveBootstrapContextForRun(params) {
  calls += 1;
  const go = path.join(%(folder)s, `go-${calls}`);
  while (!fs.existsSync(go)) await new Promise((done) => setTimeout(done, 20));
  return { contextFiles: [], bootstrapFiles: [] };
}
export function buildAgentSystemPrompt(params) {
  return `You are a test agent.\\n## Runtime\\nRuntime: agent=${params.runtimeInfo.agentId}`;
}
"""


@pytest.fixture
def gated(tmp_path: Path, node22: str) -> ExactMode:
    """Exact mode over a runtime whose answers come only when the test lets them."""
    package = tmp_path / "gated" / "node_modules" / "openclaw"
    (package / "dist").mkdir(parents=True)
    (package / "package.json").write_text(
        json.dumps({"name": "openclaw", "version": "0.0.1"}), encoding="utf-8"
    )
    loader = LOADER % {"folder": json.dumps(str(tmp_path / "gates"))}
    (package / "dist" / "loader.js").write_text(loader, encoding="utf-8")
    (tmp_path / "gates").mkdir()
    # A short per-answer timeout: the first answer is held well past it.
    return ExactMode(find_install(str(package), node22), call_timeout=1.0)


def request(workspace: Path) -> dict[str, object]:
    return {
        "workspace": str(workspace),
        "sessionKey": "agent:main:main",
        "agentId": "main",
        "config": {},
        "promptMode": "full",
        "tools": [],
    }


def let_answer(gates: Path, call: int) -> None:
    (gates / f"go-{call}").write_text("", encoding="utf-8")


def test_the_first_answer_is_not_refused_by_the_per_answer_timeout(
    gated: ExactMode, tmp_path: Path
) -> None:
    helper: RuntimeHelper = gated.helper
    assert gated.start() is None
    assert helper.loading  # started, its first answer not given yet
    said: list[str] = []
    helper.on_slow = said.append
    answers: list[dict[str, object]] = []
    asking = threading.Thread(target=lambda: answers.append(helper.ask(request(tmp_path))))
    asking.start()
    # Held three times the per-answer timeout: still loading, as the bars say.
    asking.join(3 * helper.call_timeout)
    assert asking.is_alive() and helper.loading
    ins = Inspector(tmp_path / "gates")
    ins.exact = gated
    exact = Exact.of(ins)
    assert exact is not None and exact.state == "loading"
    status = status_line(build=None, error=None, exact=exact).text
    assert status.startswith(f"loading {gated.label} for exact mode: its first answer")
    let_answer(tmp_path / "gates", 1)
    asking.join()
    assert answers and answers[0]["ok"] is True
    assert "You are a test agent." in str(answers[0]["systemPrompt"])
    assert not helper.loading
    assert said and "still loading" in said[0] and gated.label in said[0]
    # Later answers keep the per-answer timeout: one held past it stops the helper, and the
    # one that starts on the next request loads again.
    with pytest.raises(ExactError, match=r"took more than 1 s answering"):
        helper.ask(request(tmp_path))
    assert helper.loading
    gated.close()


def test_a_cold_module_cache_is_compiled_within_the_first_answer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, openclaw_package_2: Path, node22: str
) -> None:
    """OpenClaw 2026.2.19 with an empty cache for its compiled modules (a temporary folder
    of its own, as on a machine where it never ran): its first answer compiles them, which
    takes far longer than a later answer may; it is loaded, not refused, and the next
    answer comes from the cache it wrote."""
    cold = tmp_path / "tmp"
    cold.mkdir()
    monkeypatch.setenv("TMPDIR", str(cold))
    mode = ExactMode(find_install(str(openclaw_package_2), node22), call_timeout=1.0)
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "AGENTS.md").write_text("# Agents\n\nBe brief.\n", encoding="utf-8")
    ins = Inspector(workspace)
    ins.exact = mode
    ins.exact_on = True
    try:
        ins.reload()
        session = ins.session()
        assert session.exact.startswith(f"OpenClaw {runtimes.OPENCLAW_RELEASE_2}"), [
            d.message for d in session.diagnostics if d.code == "exact-unavailable"
        ]
        assert os.listdir(cold / "jiti")  # what it compiled, where its cache was
        assert not mode.helper.loading
    finally:
        ins.close()
