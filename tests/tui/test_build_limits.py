"""The Budgets panel's bootstrap limits come from the engine's rule, profile included."""

from __future__ import annotations

from ctxscope import Inspector
from ctxscope.tui.build import Builder, Limits


def test_limits_follow_config_and_profile(make_workspace):
    ws = make_workspace(
        {"AGENTS.md": "a"},
        config={
            "agents": {"defaults": {"bootstrapMaxChars": 1234, "bootstrapTotalMaxChars": 5678}}
        },
    )
    build = Builder(Inspector(ws)).build()
    assert build is not None and build.limits == Limits(1234, 5678)
    goclaw = Builder(Inspector(ws, scenario={"profile": "goclaw"})).build()
    assert goclaw is not None and goclaw.limits == Limits(None, None)
