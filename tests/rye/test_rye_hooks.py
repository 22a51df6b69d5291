"""hooks.yaml: resolve_extends routing, thread_started/continued injection, built-ins, errors."""

from __future__ import annotations

from conftest import DOCS, Space

from ctxscope.runtimes.rye import build_thread

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


def test_ryeos_tries_resolve_extends_hooks_in_file_order_whatever_their_layer(
    space: Space,
) -> None:
    space.hooks(ROUTES)
    space.directive("ctx/web")
    space.directive("site/web_build")
    r = build_thread(space.root, "site/web_build")
    assert [h.id for h in r.resolve_hooks] == ["late_catch_all", "route_web", "route_fast_models"]
    assert [h.applied for h in r.resolve_hooks] == [True, False, False]
    assert r.extends == "rye/agent/core/base" and r.extends_source == "hook late_catch_all"


def test_docs_try_resolve_extends_hooks_in_layer_order(space: Space) -> None:
    space.hooks(ROUTES)
    space.directive("ctx/web")
    space.directive("ctx/fast")
    space.directive("site/web_build")
    r = build_thread(space.root, "site/web_build", profile=DOCS)
    assert [h.id for h in r.resolve_hooks] == ["route_fast_models", "route_web", "late_catch_all"]
    assert [h.applied for h in r.resolve_hooks] == [False, True, False]
    assert "actual ''" in r.resolve_hooks[0].reason  # why it did not match
    assert "first match wins" in r.resolve_hooks[2].reason
    assert r.extends_source == "hook route_web" and r.chain_ids() == ["site/web_build", "ctx/web"]
    assert r.chain[0].routed_by == "route_web"
    r2 = build_thread(space.root, "site/web_build", model="haiku", profile=DOCS)
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
    r = build_thread(space.root, "job", profile=DOCS)
    assert not any(h.applied for h in r.resolve_hooks)
    assert r.extends == "own/base" and r.extends_source == "declared"
    space.directive("web_job", extends="own/base")
    r = build_thread(space.root, "web_job", profile=DOCS)
    assert r.extends == "ctx/web" and "overriding declared own/base" in r.resolve_hooks[1].reason


def test_no_hook_and_no_extends_skips_layer_three(space: Space) -> None:
    space.directive("plain")
    r = build_thread(space.root, "plain")
    assert r.chain_ids() == ["plain"] and r.extends is None
    # ryeos: no system prompt means no system_prompt event; the built-in instruction hook
    # names its item with item_type only and loads nothing, so the prompt stands alone.
    assert r.system_message == "" and r.events == []
    assert [p.source for p in r.parts] == ["plain"]
    (instr,) = r.context_hooks
    assert instr.id == "ctx_directive_instruction" and instr.matched and not instr.applied
    assert instr.position == "after" and "loads nothing" in instr.reason
    docs = build_thread(space.root, "plain", profile=DOCS)
    assert docs.system_message == "" and docs.events[0]["layers"] == []
    assert [p.source for p in docs.parts] == [
        "ctx_environment",
        "ctx_directive_instruction",
        "plain",
    ]


def test_docs_builtin_hooks_wrap_environment_and_inject_instruction_raw(space: Space) -> None:
    space.directive("plain")
    r = build_thread(space.root, "plain", profile=DOCS)
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
        action: {primary: execute, item_type: knowledge, item_id: rules/deploy}
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
    r = build_thread(space.root, "deploy_app", inputs={"env": "staging"}, profile=DOCS)
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
    resumed = build_thread(space.root, "deploy_app", continued=True, profile=DOCS)
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
    assert [p.source for p in r.parts] == ["job"]


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


def test_ryeos_hook_actions_load_by_kind_interpolate_and_wrap_by_id(space: Space) -> None:
    """ryeos 0.1 dispatches by `kind` (default tool), interpolates the loaded text, tags it
    with the item id's last segment and adds type="…" only when `item_type` is written."""
    space.knowledge("rules/deploy", "Rules for ${directive} in {input:env} at depth ${depth}.")
    space.knowledge("notes/plain", "Plain ${inputs.env | upper}.", name="PlainNotes")
    path = space.hooks("""
    hooks:
      - id: by_kind
        event: thread_started
        action: {primary: execute, kind: knowledge, item_id: rules/deploy}
      - id: by_both
        event: thread_started
        position: after
        action: {primary: execute, kind: knowledge, item_type: knowledge, item_id: notes/plain}
      - id: item_type_only
        event: thread_started
        action: {primary: execute, item_type: knowledge, item_id: notes/plain}
      - id: unwrapped
        event: thread_started
        wrap: false
        action: {kind: knowledge, item_id: notes/plain}
    """)
    space.directive("deploy_app")
    r = build_thread(space.root, "deploy_app", inputs={"env": "prod"})
    assert [(p.kind, p.source) for p in r.parts] == [
        ("hook_before", "by_kind"),
        ("hook_before", "unwrapped"),
        ("directive_prompt", "deploy_app"),
        ("hook_after", "by_both"),
    ]
    assert (
        r.parts[0].text
        == '<deploy id="rules/deploy">\nRules for deploy_app in prod at depth 0.\n</deploy>'
    )
    assert r.parts[1].text == "Plain PROD."
    assert r.parts[3].text == '<plain id="notes/plain" type="knowledge">\nPlain PROD.\n</plain>'
    skipped = next(h for h in r.context_hooks if h.id == "item_type_only")
    assert skipped.matched and not skipped.applied and "loads nothing" in skipped.reason
    warn = next(d for d in r.diagnostics if d.code == "rye-hook-kind")
    assert "item_type_only" in warn.message and warn.path == str(path) and warn.line == 10
    assert r.events == [
        {
            "event": "context_injected",
            "position": "before",
            "blocks": ["rules/deploy", "notes/plain"],
        },
        {"event": "context_injected", "position": "after", "blocks": ["notes/plain"]},
    ]


def test_ryeos_fetch_hooks_inject_the_whole_file_and_frontmatter_is_never_executed(
    space: Space,
) -> None:
    space.knowledge("notes/meta", "Body.")
    space.write("knowledge/notes/fm.md", "---\nname: fm\n---\n\nFrontmatter body.\n")
    space.hooks("""
    hooks:
      - id: fetched
        event: thread_started
        action: {primary: fetch, kind: knowledge, item_id: notes/meta}
      - id: fm_exec
        event: thread_started
        action: {primary: execute, kind: knowledge, item_id: notes/fm}
    """)
    space.directive("job", context="<before>notes/fm</before>")
    r = build_thread(space.root, "job")
    assert r.parts[0].source == "fetched" and "```yaml\nname: meta" in r.parts[0].text
    fm_hook = next(h for h in r.context_hooks if h.id == "fm_exec")
    assert not fm_hook.applied and "frontmatter" in fm_hook.reason
    (item,) = r.composed["before"]
    assert item.status == "unloadable" and "frontmatter" in item.rule
    assert [p.source for p in r.parts] == ["fetched", "job"]
    docs = build_thread(space.root, "job", profile=DOCS)
    assert docs.composed["before"][0].status == "included"


def test_ryeos_build_system_prompt_hooks_open_the_system_message_and_suppress_turns_hooks_off(
    space: Space,
) -> None:
    space.knowledge("sys/hooked", "Hooked for ${directive}.")
    space.knowledge("sys/own", "Own system text.")
    space.knowledge("k/noise", "Noise.")
    space.hooks("""
    hooks:
      - id: sys_hook
        event: build_system_prompt
        action: {kind: knowledge, item_id: sys/hooked}
      - id: noisy
        event: thread_started
        action: {kind: knowledge, item_id: k/noise}
    """)
    space.directive("job", context="<system>sys/own</system><suppress>noisy</suppress>")
    r = build_thread(space.root, "job")
    assert r.system_message == (
        '<hooked id="sys/hooked">\nHooked for job.\n</hooked>\n\nOwn system text.'
    )
    assert r.events[0] == {
        "event": "system_prompt",
        "text": r.system_message,
        "layers": ["sys/hooked"],
    }
    noisy = next(h for h in r.context_hooks if h.id == "noisy")
    assert not noisy.applied and "suppressed by <suppress>noisy</suppress> in job" in noisy.reason
    assert [p.source for p in r.parts] == ["job"]
    assert not any(d.code == "rye-suppress-unused" for d in r.diagnostics)
    docs = build_thread(space.root, "job", profile=DOCS)
    assert docs.system_message == "Own system text."
    assert [p.source for p in docs.parts][-2:] == ["noisy", "job"]
