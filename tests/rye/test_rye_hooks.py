"""hooks.yaml: resolve_extends routing, thread_started/continued injection, built-ins, errors."""

from __future__ import annotations

from conftest import Space

from ctxscope.rye import build_thread

ROUTES = """
hooks:
  - id: late_catch_all
    event: resolve_extends
    layer: 5
    action: {set_extends: rye/agent/core/base}
  - id: route_web
    event: resolve_extends
    layer: 2
    condition: {path: directive, op: contains, value: web}
    action: {set_extends: ctx/web}
  - id: route_fast_models
    event: resolve_extends
    layer: 1
    condition: {path: model, op: in, value: [haiku, flash]}
    action: {set_extends: ctx/fast}
"""


def test_resolve_extends_first_match_in_layer_order(space: Space) -> None:
    space.hooks(ROUTES)
    space.directive("ctx/web")
    space.directive("ctx/fast")
    space.directive("site/web_build")
    r = build_thread(space.root, "site/web_build")
    assert [h.id for h in r.resolve_hooks] == ["route_fast_models", "route_web", "late_catch_all"]
    assert [h.applied for h in r.resolve_hooks] == [False, True, False]
    assert "actual ''" in r.resolve_hooks[0].reason  # why it did not match
    assert "first match wins" in r.resolve_hooks[2].reason
    assert r.extends_source == "hook route_web" and r.chain_ids() == ["site/web_build", "ctx/web"]
    assert r.chain[0].routed_by == "route_web"
    r2 = build_thread(space.root, "site/web_build", model="haiku")
    assert r2.chain_ids() == ["site/web_build", "ctx/fast"]


def test_resolve_extends_overrides_declared_extends_and_none_matching_keeps_it(
    space: Space,
) -> None:
    space.hooks(
        ROUTES.replace(
            "layer: 5", "layer: 5\n    condition: {path: has_extends, op: eq, value: false}"
        )
    )
    space.directive("ctx/web")
    space.directive("own/base")
    space.directive("job", extends="own/base")
    r = build_thread(space.root, "job")
    assert not any(h.applied for h in r.resolve_hooks)
    assert r.extends == "own/base" and r.extends_source == "declared"
    space.directive("web_job", extends="own/base")
    r = build_thread(space.root, "web_job")
    assert r.extends == "ctx/web" and "overriding declared own/base" in r.resolve_hooks[1].reason


def test_no_hook_and_no_extends_skips_layer_three(space: Space) -> None:
    space.directive("plain")
    r = build_thread(space.root, "plain")
    assert r.chain_ids() == ["plain"] and r.extends is None
    assert r.system_message == "" and r.events[0]["layers"] == []
    # Only the built-in hooks reach the message, then the directive prompt.
    assert [p.source for p in r.parts] == ["ctx_environment", "ctx_directive_instruction", "plain"]


def test_builtin_hooks_wrap_environment_and_inject_instruction_raw(space: Space) -> None:
    space.directive("plain")
    r = build_thread(space.root, "plain")
    env, instr = r.parts[0], r.parts[1]
    assert env.wrapped and env.text.startswith(
        '<Environment id="rye/agent/core/Environment" type="knowledge">\n'
    )
    assert env.text.endswith("\n</Environment>")
    assert not instr.wrapped and not instr.text.startswith("<")
    assert instr.text == r.knowledge["rye/agent/core/DirectiveInstruction"].body


def test_thread_started_hooks_position_wrap_and_interpolation(space: Space) -> None:
    space.knowledge("rules/deploy", "Deploy rules.", name="DeployRules")
    space.knowledge("env/staging", "Staging notes.")
    space.hooks("""
    hooks:
      - id: deploy_rules
        event: thread_started
        layer: 2
        condition: {path: directive, op: contains, value: deploy}
        action: {primary: fetch, item_type: knowledge, item_id: rules/deploy}
      - id: env_notes
        event: thread_started
        position: after
        wrap: false
        condition: {path: inputs.env, op: exists}
        action: {item_type: knowledge, item_id: "env/${inputs.env}"}
      - id: resumed_only
        event: thread_continued
        action: {item_type: knowledge, item_id: rules/deploy}
    """)
    space.directive("deploy_app")
    r = build_thread(space.root, "deploy_app", inputs={"env": "staging"})
    kinds = [(p.kind, p.source) for p in r.parts]
    assert kinds == [
        ("hook_before", "ctx_environment"),
        ("hook_before", "ctx_directive_instruction"),
        ("hook_before", "deploy_rules"),
        ("directive_prompt", "deploy_app"),
        ("hook_after", "env_notes"),
    ]
    assert (
        r.parts[2].text == '<DeployRules id="rules/deploy" type="knowledge">\nDeploy rules.\n'
        "</DeployRules>"
    )
    assert r.parts[-1].text == "Staging notes."
    assert r.events[1]["after"] == ["env_notes"]
    assert "resumed_only" not in [h.id for h in r.context_hooks]
    resumed = build_thread(space.root, "deploy_app", continued=True)
    assert [h.id for h in resumed.context_hooks] == ["resumed_only"]
    assert resumed.parts[0].source == "resumed_only"


def test_bad_hooks_are_diagnostics_and_the_rest_builds(space: Space) -> None:
    path = space.hooks("""
    hooks:
      - id: bad_op
        event: thread_started
        condition: {path: directive, op: startswith, value: x}
        action: {item_type: knowledge, item_id: rye/agent/core/Identity}
      - id: bad_regex
        event: resolve_extends
        condition: {path: directive, op: regex, value: "([a-z"}
        action: {set_extends: rye/agent/core/base}
      - id: ghost_item
        event: thread_started
        action: {item_type: knowledge, item_id: nowhere/to/be/found}
    """)
    space.directive("job")
    r = build_thread(space.root, "job")
    by_msg = {d.message: d for d in r.diagnostics}
    op = next(d for m, d in by_msg.items() if "bad_op" in m)
    rx = next(d for m, d in by_msg.items() if "bad_regex" in m)
    ghost = next(d for m, d in by_msg.items() if "ghost_item" in m)
    assert "unknown condition op 'startswith'" in op.message and op.path == str(path)
    assert op.line == 3
    assert "invalid regex" in rx.message and rx.line == 7
    assert "nowhere/to/be/found" in ghost.message and ghost.path == str(path)
    assert r.extends is None  # the broken route never fires
    assert [p.source for p in r.parts][-1] == "job"


def test_invalid_hooks_yaml_names_file_and_line(space: Space) -> None:
    path = space.hooks("hooks:\n  - id: x\n    event: [unclosed\n")
    space.directive("job")
    r = build_thread(space.root, "job")
    err = next(d for d in r.diagnostics if d.path == str(path))
    assert err.severity == "error" and err.line is not None
    assert [p.source for p in r.parts][:2] == ["ctx_environment", "ctx_directive_instruction"]


def test_a_catastrophic_regex_is_reported_not_hung(space: Space) -> None:
    path = space.hooks("""
    hooks:
      - id: slow_regex
        event: thread_started
        condition: {path: directive, op: regex, value: "(a|aa)+$"}
        action: {item_type: knowledge, item_id: rye/agent/core/Identity}
    """)
    name = "a" * 36 + "b"
    space.directive(name)
    r = build_thread(space.root, name)
    slow = next(d for d in r.diagnostics if "slow_regex" in d.message)
    assert "did not finish within" in slow.message and slow.path == str(path)
    assert [p.source for p in r.parts][-1] == name
