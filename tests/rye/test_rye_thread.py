"""Thread assembly: first-message order, events, JSON shape, bad input."""

from __future__ import annotations

from conftest import DOCS, Space

from ctxscope.infra.snapshot import Snapshot
from ctxscope.runtimes.rye import build_thread

HOOKS = """
hooks:
  - id: deploy_rules
    event: thread_started
    layer: 2
    condition: {path: directive, op: contains, value: deploy}
    action: {primary: fetch, item_type: knowledge, item_id: p/deploy/rules}
"""


def seed_chain(space: Space) -> None:
    """A three-level chain: core base → deploy base → deploy_staging."""
    for kid in (
        "p/deploy/environment-rules",
        "p/deploy/completion-checklist",
        "p/deploy/rules",
        "p/deploy/own-before",
    ):
        space.knowledge(kid, f"[{kid}]")
    space.hooks(HOOKS)
    space.directive(
        "p/deploy/base",
        extends="rye/agent/core/base",
        context="<before>p/deploy/environment-rules</before>",
    )
    space.directive(
        "p/deploy/deploy_staging",
        extends="p/deploy/base",
        context="<before>p/deploy/own-before</before>"
        "<after>p/deploy/completion-checklist</after>"
        "<suppress>rye/agent/core/Behavior</suppress>",
        extra='<inputs><input name="env" required="true">E</input></inputs>'
        '<outputs><output name="url">U</output></outputs>',
        body="Deploy to {input:env}.",
    )


def test_first_message_follows_seed_order(space: Space) -> None:
    seed_chain(space)
    r = build_thread(space.root, "p/deploy/deploy_staging", inputs={"env": "staging"}, profile=DOCS)
    assert [(p.kind, p.source) for p in r.parts] == [
        ("hook_before", "ctx_environment"),
        ("hook_before", "ctx_directive_instruction"),
        ("hook_before", "deploy_rules"),
        ("extends_before", "p/deploy/environment-rules"),
        ("directive_before", "p/deploy/own-before"),
        ("directive_prompt", "p/deploy/deploy_staging"),
        ("directive_after", "p/deploy/completion-checklist"),
    ]
    text = r.first_message
    assert text == "\n\n".join(p.text for p in r.parts)
    prompt = r.parts[5].text
    assert prompt.startswith('<directive name="deploy_staging">\n<description>')
    assert "Deploy to staging." in prompt and '"url"' in prompt
    assert prompt.endswith("</directive>")
    assert "Behavior" not in str(r.events)


def test_ryeos_first_message_is_chain_before_prompt_after_and_hooks(space: Space) -> None:
    seed_chain(space)
    r = build_thread(space.root, "p/deploy/deploy_staging", inputs={"env": "staging"})
    # deploy_rules names its item with item_type only: ryeos loads nothing for it.
    assert [(p.kind, p.source) for p in r.parts] == [
        ("extends_before", "p/deploy/environment-rules"),
        ("directive_before", "p/deploy/own-before"),
        ("directive_prompt", "p/deploy/deploy_staging"),
        ("directive_after", "p/deploy/completion-checklist"),
    ]
    assert r.system_message == r.knowledge["rye/agent/core/Identity"].body
    assert r.events == [{"event": "system_prompt", "text": r.system_message, "layers": []}]


def test_transcript_events_have_seed_fields(space: Space) -> None:
    seed_chain(space)
    r = build_thread(space.root, "p/deploy/deploy_staging", inputs={"env": "staging"}, profile=DOCS)
    sp, ci = r.events
    assert set(sp) == {"event", "text", "layers"} and sp["event"] == "system_prompt"
    assert sp["text"] == r.system_message
    assert sp["layers"] == ["rye/agent/core/Identity"]
    assert set(ci) == {"event", "before", "after"} and ci["event"] == "context_injected"
    assert ci["before"] == [
        "ctx_environment",
        "ctx_directive_instruction",
        "deploy_rules",
        "p/deploy/environment-rules",
        "p/deploy/own-before",
    ]
    assert ci["after"] == ["p/deploy/completion-checklist"]


def test_to_dict_is_the_spec_thread_object(space: Space) -> None:
    seed_chain(space)
    d = build_thread(space.root, "p/deploy/deploy_staging", inputs={"env": "x"}).to_dict()
    assert list(d) == [
        "directive",
        "profile",
        "chain",
        "system",
        "before",
        "after",
        "first_message",
        "tools",
        "capabilities_tree",
        "events",
        "refused",
        "disagreements",
        "disagreement_details",
        "diagnostics",
    ]
    assert d["profile"]["name"] == "ryeos-0.1" and d["profile"]["runtime"] == "ryeos 0.1.30"
    assert d["profile"]["system_tier"] == "stand-in"
    (note,) = d["profile"]["stand_in_text"]  # the directive declares <outputs>
    assert "outputs instruction" in note
    assert set(d["tools"]) >= {"registered", "skipped", "budget_tokens", "used_tokens"}
    assert [(n["id"], n["tier"]) for n in d["chain"]] == [
        ("p/deploy/deploy_staging", "project"),
        ("p/deploy/base", "project"),
        ("rye/agent/core/base", "system"),
        ("agent/core/base", "system"),
    ]
    assert all(n["path"] for n in d["chain"])
    items = d["system"]["items"]
    behavior = next(i for i in items if i["item_id"] == "rye/agent/core/Behavior")
    assert behavior["status"] == "suppressed"
    assert behavior["suppressed_by"] == ["p/deploy/deploy_staging"]
    assert behavior["origin"] == "rye/agent/core/base" and behavior["origin_tier"] == "system"
    env = next(i for i in d["before"] if i["item_id"] == "p/deploy/environment-rules")
    assert env["tier"] == "project" and env["tokens"] > 0


def test_missing_directive_is_a_diagnostic(space: Space) -> None:
    r = build_thread(space.root, "no/such")
    assert not r.found
    assert r.diagnostics[0].code == "rye-directive-missing"
    assert r.diagnostics[0].path and r.diagnostics[0].path.endswith("directives/no/such.md")
    assert r.to_dict()["directive"]["found"] is False


def test_missing_required_input_warns_and_placeholder_stays(space: Space) -> None:
    seed_chain(space)
    r = build_thread(space.root, "p/deploy/deploy_staging")
    assert any("required input 'env'" in d.message for d in r.diagnostics)
    assert "{input:env}" in r.first_message


def test_every_bad_input_reported_and_the_rest_builds(space: Space) -> None:
    bad_parent = space.write(
        "directives/broken.md", "```xml\n<directive name='broken'>\n<metadata></directive>\n```\n"
    )
    bad_k = space.write("knowledge/k/bad.md", "```yaml\nname: [oops\n```\nBody of bad.\n")
    space.knowledge("k/good", "Good body.")
    space.hooks(
        "hooks:\n  - id: h1\n    event: thread_started\n"
        "    condition: {path: directive, op: nope}\n"
        "    action: {item_type: knowledge, item_id: k/good}\n"
    )
    bad_tool = space.write("tools/t/bad.py", "def (:\n")
    space.write("tools/t/ok.yaml", "description: ok\nparameters:\n  - name: a\n")
    leaf = space.directive(
        "leaf",
        extends="broken",
        context="<before>k/bad</before><before>k/good</before><after>k/missing</after>",
        permissions="<execute><tool>t.*</tool></execute>",
    )
    r = build_thread(space.root, "leaf")
    paths = {d.path for d in r.diagnostics}
    assert {str(bad_parent), str(bad_k), str(bad_tool), str(leaf)} <= paths
    assert str(space.ai / "config/agent/hooks.yaml") in paths
    msgs = " | ".join(d.message for d in r.diagnostics)
    assert "malformed XML" in msgs and "base directive 'broken' is unreadable to ryeos" in msgs
    assert "k/missing" in msgs and "unknown condition op 'nope'" in msgs
    assert "Body of bad." in r.first_message and "Good body." in r.first_message
    assert r.palette.find("t/ok").status == "registered"


def test_snapshot_reuse_rereads_only_the_edited_file(space: Space) -> None:
    seed_chain(space)
    snap = Snapshot()
    build_thread(space.root, "p/deploy/deploy_staging", snapshot=snap)
    before = snap.reads
    build_thread(space.root, "p/deploy/deploy_staging", snapshot=snap)
    assert snap.reads == before
    path = space.knowledge("p/deploy/environment-rules", "[edited rules, longer]")
    r = build_thread(space.root, "p/deploy/deploy_staging", snapshot=snap)
    assert snap.reads == before + 1
    assert "[edited rules, longer]" in r.first_message
    assert r.knowledge["p/deploy/environment-rules"].path == str(path)
