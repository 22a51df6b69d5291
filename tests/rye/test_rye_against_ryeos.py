"""ctxscope's `ryeos-0.1` profile against ryeos 0.1.30 itself.

Each case runs ryeos's own `thread_directive.execute` (stopped at the model call, see
ryeos_oracle.py) and ctxscope's `build_thread` with the installed bundles as the system tier, and
compares what the model would be sent: system prompt, first message, tools and their sizes,
capabilities, transcript events, the chain, and whether the thread starts at all.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest
from conftest import Ryeos, Space
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxscope.runtimes.rye import build_thread
from ctxscope.runtimes.rye.conditions import ConditionError, evaluate_ryeos
from ctxscope.runtimes.rye.installed import expand
from ctxscope.runtimes.rye.threadreport import ThreadReport

SAMPLE = Path(__file__).resolve().parents[2] / "sample_workspace"


def ours(
    ryeos: Ryeos, workspace: Path, directive: str, inputs: dict[str, str], dev_mode: bool = False
) -> ThreadReport:
    return build_thread(
        workspace,
        directive,
        inputs=inputs,
        system=expand(ryeos.site),
        dev_mode=dev_mode,
        home=workspace.parent / "home",
    )


def agree(
    ryeos: Ryeos,
    workspace: Path,
    directive: str,
    inputs: dict[str, str],
    scratch: Path,
    dev_mode: bool = False,
) -> ThreadReport:
    """Assert ctxscope tells the same story as ryeos (both checking signatures, or both in
    dev mode); returns ctxscope's report."""
    real = ryeos.thread(workspace, directive, inputs, scratch, dev_mode)
    mine = ours(ryeos, workspace, directive, inputs, dev_mode)
    started = "messages" in real
    failure = (real.get("result") or {}).get("error") or real.get("exception")
    assert started == (not mine.refused), (failure, mine.refused)
    if not started:
        return mine
    assert mine.system_message == real["system_prompt"]
    assert mine.first_message == real["messages"][0]["content"]
    assert [(t.api_name, t.chars) for t in mine.palette.registered] == [
        (t["name"], t["size"]) for t in real["tools"]
    ]
    if "capabilities" in real:  # not asked for when the preload is disabled
        granted = [c for c in real["capabilities"] if "directive_return" not in c]
        assert mine.palette.capabilities == granted
    assert mine.events == real_events(real)
    if "chain" in real:  # ryeos lists names root first
        assert [i.rsplit("/", 1)[-1] for i in reversed(mine.chain_ids())] == real["chain"]
    return mine


def real_events(real: dict[str, Any]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for e in real["events"]:
        if e["event"] == "system_prompt":
            out.append({"event": "system_prompt", "text": e["text"], "layers": e["layers"]})
        else:
            blocks = [b["id"] for b in e["blocks"]]
            out.append({"event": "context_injected", "position": e["position"], "blocks": blocks})
    return out


@pytest.mark.parametrize(
    ("directive", "inputs"),
    [
        ("project/deploy/deploy_staging", {"env": "staging"}),
        ("project/deploy/deploy_staging", {"env": "prod", "version": "v2"}),
        ("project/web/build_landing_page", {}),
        ("project/review/code_review", {"path": "src"}),
        ("project/review/code_review", {}),  # a required input missing: not started
        ("project/deploy/deploy_staging", {"env": "staging", "colour": "red"}),  # undeclared
    ],
)
def test_the_sample_agrees(
    ryeos: Ryeos, tmp_path: Path, directive: str, inputs: dict[str, str]
) -> None:
    agree(ryeos, SAMPLE, directive, inputs, tmp_path)


def test_hooks_by_kind_fetch_interpolation_suppress_and_system_prompt(
    ryeos: Ryeos, tmp_path: Path
) -> None:
    space = Space(tmp_path / "ws")
    space.knowledge("demo/sys", "System text for ${directive}.")
    space.knowledge("demo/hooked", "Hooked for ${directive} in {input:env} at depth ${depth}.")
    space.knowledge("demo/named", "Named ${inputs.env | upper}.", name="ShownName")
    space.knowledge("demo/plain", "Plain.")
    space.knowledge("demo/note", "Leaf note for ${directive}.")
    space.write("knowledge/demo/fm.md", "---\nname: fm\n---\n\nFrontmatter body.\n")
    space.hooks("""
    hooks:
      - id: route
        event: resolve_extends
        layer: 9
        condition: {path: directive, op: contains, value: leaf}
        action: {set_extends: demo/mid}
      - id: never_tried
        event: resolve_extends
        layer: 0
        action: {set_extends: demo/root}
      - id: by_kind
        event: thread_started
        action: {primary: execute, kind: knowledge, item_id: demo/hooked}
      - id: by_both_after
        event: thread_started
        position: after
        action: {primary: execute, kind: knowledge, item_type: knowledge, item_id: demo/named}
      - id: item_type_only
        event: thread_started
        action: {primary: execute, item_type: knowledge, item_id: demo/plain}
      - id: unwrapped
        event: thread_started
        wrap: false
        action: {kind: knowledge, item_id: demo/plain}
      - id: fetched
        event: thread_started
        action: {primary: fetch, kind: knowledge, item_id: demo/named}
      - id: frontmatter
        event: thread_started
        action: {kind: knowledge, item_id: demo/fm}
      - id: silenced
        event: thread_started
        action: {kind: knowledge, item_id: demo/plain}
      - id: on_default
        event: thread_started
        condition: {path: inputs.mode, op: eq, value: fast}
        action: {kind: knowledge, item_id: demo/plain}
      - id: sys_hook
        event: build_system_prompt
        action: {kind: knowledge, item_id: demo/plain}
    """)
    space.directive(
        "demo/root",
        context="<system>demo/sys</system><before>demo/fm</before>",
        permissions="<execute><tool>rye.file-system.*</tool></execute><fetch>*</fetch>",
    )
    space.directive(
        "demo/mid",
        extends="demo/root",
        permissions="<execute><tool>rye.file-system.read</tool></execute>",
    )
    space.directive(
        "demo/leaf",
        context="<before>demo/note</before><suppress>silenced</suppress>",
        extra='<inputs><input name="env" type="string" required="true">E</input>'
        '<input name="mode" type="string" default="fast">M</input></inputs>'
        '<outputs><output name="url" type="string" required="true">U</output></outputs>',
        body="Work in {input:env} ({input:mode}).",
    )
    mine = agree(ryeos, space.root, "demo/leaf", {"env": "prod"}, tmp_path)
    assert mine.capability_source == "demo/root"  # root-most, not narrowed by demo/mid


@pytest.mark.parametrize(
    ("condition", "starts"),
    [
        ("{path: directive, op: regex, value: '([a-z'}", False),  # a bad pattern raises
        ("{path: inputs.env, op: gt, value: 3}", False),  # str > int raises
        ("{path: directive, op: startswith, value: x}", True),  # unknown op: false
        ("{path: inputs.nope, op: exists, value: false}", True),  # exists ignores value
        ("{path: directive, op: in, value: job}", True),  # `in` a non-list: false
    ],
)
def test_condition_edges_agree(ryeos: Ryeos, tmp_path: Path, condition: str, starts: bool) -> None:
    space = Space(tmp_path / "ws")
    space.knowledge("k/x", "X.")
    space.hooks(
        "hooks:\n  - id: h\n    event: thread_started\n"
        f"    condition: {condition}\n    action: {{kind: knowledge, item_id: k/x}}\n"
    )
    space.directive(
        "job",
        permissions="<fetch>*</fetch>",
        extra='<inputs><input name="env" type="string">E</input></inputs>',
    )
    mine = agree(ryeos, space.root, "job", {"env": "prod"}, tmp_path)
    assert (not mine.refused) == starts


def test_a_thread_without_tools_is_refused_by_both(ryeos: Ryeos, tmp_path: Path) -> None:
    space = Space(tmp_path / "ws")
    space.directive("job", extends="rye/agent/core/base_execute_only")
    mine = agree(ryeos, space.root, "job", {}, tmp_path)
    assert mine.refused


_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.sampled_from(["", "a", "ab", "b", "(x", "^a"]),
    st.lists(st.sampled_from(["a", "b", 1]), max_size=3),
)
_OPS = st.sampled_from(
    ["eq", "ne", "gt", "gte", "lt", "lte", "in", "contains", "regex", "exists", "nope"]
)
_LEAF = st.fixed_dictionaries(
    {
        "path": st.sampled_from(["a", "b.c", "l.0", "l[1]", "missing", ""]),
        "op": _OPS,
        "value": _VALUES,
    }
)
_CONDITIONS = st.recursive(
    _LEAF,
    lambda inner: st.one_of(
        st.fixed_dictionaries({"not": inner}),
        st.fixed_dictionaries({"any": st.lists(inner, max_size=3)}),
        st.fixed_dictionaries({"all": st.lists(inner, max_size=3)}),
    ),
    max_leaves=4,
)
_DOC = {"a": "ab", "b": {"c": 2}, "l": ["a", "b"]}


@pytest.fixture(scope="module")
def real_evaluator(ryeos_lib: Path) -> Any:
    spec = importlib.util.spec_from_file_location(
        "ryeos_conditions", ryeos_lib / "condition_evaluator.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@given(condition=_CONDITIONS)
@settings(max_examples=400, deadline=None)
def test_conditions_match_ryeos_evaluator(real_evaluator: Any, condition: dict[str, Any]) -> None:
    try:
        expected: object = bool(real_evaluator.matches(_DOC, condition))
    except Exception:
        expected = "error"
    try:
        got: object = evaluate_ryeos(condition, _DOC)
    except ConditionError:
        got = "error"
    assert got == expected, condition


def test_disabled_preload_keeps_directive_return_like_ryeos(ryeos: Ryeos, tmp_path: Path) -> None:
    space = Space(tmp_path / "ws")
    space.resilience("tool_preload:\n  enabled: false\n")
    space.directive(
        "job",
        permissions="<fetch>*</fetch>",
        extra='<outputs><output name="url" type="string">U</output></outputs>',
    )
    mine = agree(ryeos, space.root, "job", {}, tmp_path)
    assert [t.api_name for t in mine.palette.registered] == ["directive_return"]


def test_a_negative_budget_admits_no_tool_as_in_ryeos(ryeos: Ryeos, tmp_path: Path) -> None:
    """ctxscope reports a negative `max_tokens` and uses 0: ryeos admits no tool either."""
    space = Space(tmp_path / "ws")
    space.write("tools/x/t.py", 'CONFIG_SCHEMA = {"type": "object"}\n')
    space.resilience("tool_preload:\n  max_tokens: -50\n")
    space.directive(
        "job",
        permissions="<execute><tool>x.*</tool></execute>",
        extra='<outputs><output name="r" type="string">R</output></outputs>',
    )
    mine = agree(ryeos, space.root, "job", {}, tmp_path)
    assert [t.api_name for t in mine.palette.registered] == ["directive_return"]
    assert any("below 0: 0 is used" in d.message for d in mine.diagnostics)


@pytest.mark.parametrize(
    ("permissions", "budget"),
    [
        # every primary: fetch alone is 2,050 chars, so at 1,000 tokens no tool fits beside them
        ("<execute>*</execute><fetch>*</fetch><sign>*</sign>", 1000),
        (
            "<fetch>*</fetch><sign>*</sign>"
            "<execute><tool>rye.file-system.*</tool><tool>rye.bash.*</tool></execute>",
            2000,
        ),
        (
            "<fetch><knowledge>*</knowledge></fetch>"
            "<execute><tool>rye.file-system.*</tool><directive>*</directive></execute>",
            1900,
        ),
        (
            "<execute><tool>rye.file-system.ls</tool><tool>rye.file-system.edit_lines</tool>"
            "<tool>rye.dev.*</tool><tool>rye.core.processes.*</tool></execute>",
            2000,
        ),
    ],
)
def test_the_stand_in_tier_charges_ryeos_sizes(
    ryeos: Ryeos, tmp_path: Path, permissions: str, budget: int
) -> None:
    """Without ryeos (the stand-in system tier), the palette has ryeos's tools at ryeos's
    sizes: the same tools fit the same budget."""
    space = Space(tmp_path / "ws")
    space.resilience(f"tool_preload:\n  max_tokens: {budget}\n")
    space.directive("job", permissions=permissions)
    real = ryeos.thread(space.root, "job", {}, tmp_path)
    mine = build_thread(space.root, "job")
    assert mine.system_stand_in
    assert sorted((t.api_name, t.chars) for t in mine.palette.registered) == sorted(
        (t["name"], t["size"]) for t in real["tools"]
    )
    assert mine.to_dict()["profile"]["stand_in_sizes"] == "ryeos 0.1.30"


def test_the_measured_sizes_are_the_installed_ryeos_ones(ryeos: Ryeos, tmp_path: Path) -> None:
    """`system/measured.json` is what benchmarks/measure_ryeos.py measures on ryeos itself."""
    import json
    import os
    import subprocess

    from ctxscope.runtimes.rye.measured import FILE

    script = Path(__file__).resolve().parents[2] / "benchmarks" / "measure_ryeos.py"
    env = {
        "PATH": f"{ryeos.python.parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "HOME": str(tmp_path),
    }
    res = subprocess.run(
        [str(ryeos.python), str(script)],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=300,
    )
    assert res.returncode == 0, res.stderr[-2000:]
    assert json.loads(res.stdout) == json.loads(FILE.read_text(encoding="utf-8"))


_OUT = '<outputs><output name="r" type="string">R</output></outputs>'


@pytest.mark.parametrize(
    ("base", "leaf", "starts"),
    [
        # capability_risk.yaml: `*` is "unrestricted", blocked unless the leaf acknowledges it
        ({"permissions": "*"}, {"extra": _OUT}, False),
        (
            {"permissions": "*"},
            {"extra": _OUT, "permissions": '<acknowledge risk="unrestricted"/>'},
            True,
        ),
        (None, {"permissions": "*"}, False),
        # an unknown tag inside <permissions>: ryeos cannot parse the directive
        (None, {"permissions": "<search>*</search><fetch>*</fetch>"}, False),
        # an unknown <limits> key makes ryeos raise; a known one is fine
        (None, {"permissions": "<fetch>*</fetch>", "limits": 'turns="3" bogus="1"'}, False),
        (None, {"permissions": "<fetch>*</fetch>", "limits": 'turns="3"'}, True),
        # a base ryeos cannot parse: it starts without the base's context and permissions
        (
            {
                "context": "<before>k/a</before>",
                "permissions": "<search>*</search><fetch>*</fetch>",
            },
            {"extra": _OUT},
            True,
        ),
        (
            {"context": "<before>k/a</before>", "permissions": "<fetch>*</fetch>", "extra": "<x>"},
            {"extra": _OUT},
            True,
        ),
    ],
)
def test_refusals_agree_and_are_errors(
    ryeos: Ryeos,
    tmp_path: Path,
    base: dict[str, str] | None,
    leaf: dict[str, str],
    starts: bool,
) -> None:
    space = Space(tmp_path / "ws")
    space.knowledge("k/a", "Base knowledge.")
    if base is not None:
        space.directive("base", **base)
    space.directive("job", extends="base" if base is not None else None, **leaf)
    mine = agree(ryeos, space.root, "job", {}, tmp_path)
    assert (not mine.refused) == starts
    refusals = [d for d in mine.diagnostics if d.code == "rye-thread-refused"]
    assert all(d.severity == "error" for d in refusals)
    assert len(refusals) >= len(mine.refused)


def test_hook_context_limits_capabilities_and_written_item_ids(
    ryeos: Ryeos, tmp_path: Path
) -> None:
    """thread_started hooks see the thread's limits (resilience defaults, then <limits>),
    `max_turns`, `spend_limit` and every capability the harness holds (directive_return's
    too, slashes read as dots); an `item_id` with `${…}` is loaded interpolated but named as
    written."""
    space = Space(tmp_path / "ws")
    space.knowledge("k/limits", "Turns ${limits.turns}, max ${max_turns}, spend ${spend_limit}.")
    space.knowledge("k/caps", "Caps: ${capabilities_summary}.")
    space.knowledge("k/prod", "Production rules.")
    space.hooks("""
    hooks:
      - id: on_turns
        event: thread_started
        condition: {path: limits.turns, op: lt, value: 10}
        action: {kind: knowledge, item_id: k/limits}
      - id: caps
        event: thread_started
        action: {kind: knowledge, item_id: k/caps}
      - id: by_env
        event: thread_started
        position: after
        action: {kind: knowledge, item_id: "k/${inputs.env}"}
      - id: sys_turns
        event: build_system_prompt
        condition: {path: limits.turns, op: eq, value: 3}
        action: {kind: knowledge, item_id: k/limits}
    """)
    space.directive(
        "job",
        permissions="<execute><tool>acme/ops/*</tool></execute><fetch>*</fetch>",
        limits='turns="3" spend="0.5"',
        extra='<inputs><input name="env" type="string">E</input></inputs>' + _OUT,
    )
    mine = agree(ryeos, space.root, "job", {"env": "prod"}, tmp_path)
    assert "Turns 3, max 3, spend 0.5." in mine.first_message
    assert "rye.execute.tool.rye.agent.threads.directive_return" in mine.first_message
    assert '<${inputs.env} id="k/${inputs.env}">' in mine.first_message


def test_several_actions_and_directive_level_hooks(ryeos: Ryeos, tmp_path: Path) -> None:
    """A hook's `actions:` runs each action; the directive's own <hooks> run at layer 1
    (between user and built-in hooks), wrapped even with wrap="false" (a string to ryeos)."""
    space = Space(tmp_path / "ws")
    for name in ("one", "two", "three", "four", "five"):
        space.knowledge(f"k/{name}", f"Text {name}.")
    space.hooks("""
    hooks:
      - id: pair
        event: thread_started
        actions:
          - {kind: knowledge, item_id: k/one}
          - {kind: knowledge, item_id: k/missing}
          - {kind: knowledge, item_id: k/two}
      - id: late
        event: thread_started
        layer: 0
        action: {kind: knowledge, item_id: k/five}
    """)
    hooks = (
        '<hooks><hook id="own" event="thread_started" wrap="false">'
        '<action kind="knowledge" item_id="k/three"/></hook>'
        '<hook id="multi" event="thread_started" position="after"><action>'
        '<execute kind="knowledge" item_id="k/four"/><fetch kind="knowledge" item_id="k/one"/>'
        "</action></hook>"
        '<hook id="off" event="thread_started"><condition path="inputs.env" op="eq" '
        'value="prod"/><action kind="knowledge" item_id="k/two"/></hook></hooks>'
    )
    space.directive("job", permissions="<fetch>*</fetch>", context=f"</context>{hooks}<context>")
    mine = agree(ryeos, space.root, "job", {}, tmp_path)
    assert [p.item_id for p in mine.parts if p.kind.startswith("hook")] == [
        "k/five",
        "k/three",
        "k/one",
        "k/two",
        "k/four",
        "k/one",
    ]


def test_body_placeholders_are_filled_as_ryeos_fills_them(ryeos: Ryeos, tmp_path: Path) -> None:
    space = Space(tmp_path / "ws")
    space.directive(
        "job",
        permissions="<fetch>*</fetch>",
        extra='<inputs><input name="env" type="string">E</input>'
        '<input name="mode" type="string" default="fast">M</input></inputs>',
        body="A {input:env} B {input:gone:dflt} C {input:gone|pipe} D ${inputs.mode} "
        "E ${inputs.gone} F {input:gone?}. G {env:CTXSCOPE_SURELY_UNSET:fallback} "
        "H {env:CTXSCOPE_SURELY_UNSET} I {input:gone}",
    )
    mine = agree(ryeos, space.root, "job", {"env": "prod"}, tmp_path)
    assert "A prod B dflt C pipe D fast E ${inputs.gone} F . G fallback" in mine.first_message


@pytest.mark.parametrize("where", ["chain", "hook", "fetched"])
def test_crlf_items_are_read_as_ryeos_reads_them(ryeos: Ryeos, tmp_path: Path, where: str) -> None:
    """A knowledge item or directive saved with CRLF line ends is sent with LF."""
    from conftest import knowledge_md

    space = Space(tmp_path / "ws")
    crlf = knowledge_md("crlf", "Line one.\nLine two.\rThree.").replace("\n", "\r\n")
    (space.ai / "knowledge" / "k").mkdir(parents=True)
    (space.ai / "knowledge" / "k" / "crlf.md").write_bytes(crlf.encode())
    if where != "chain":
        primary = "fetch" if where == "fetched" else "execute"
        space.hooks(
            "hooks:\n  - id: h\n    event: thread_started\n"
            f"    action: {{primary: {primary}, kind: knowledge, item_id: k/crlf}}\n"
        )
    path = space.directive(
        "job",
        permissions="<fetch>*</fetch>",
        context="<before>k/crlf</before>" if where == "chain" else "",
        body="Step one.\nStep two.",
    )
    path.write_bytes(path.read_text().replace("\n", "\r\n").encode())
    mine = agree(ryeos, space.root, "job", {}, tmp_path)
    assert "\r" not in mine.first_message


def test_project_hook_conditions_merge_by_id(ryeos: Ryeos, tmp_path: Path) -> None:
    """A project's config/agent/hook_conditions.yaml merges over ryeos's own by id: it can
    replace the built-in ctx_directive_instruction, add context hooks and a resolve_extends
    hook among the built-ins."""
    space = Space(tmp_path / "ws")
    space.knowledge("k/extra", "Extra for ${directive}.")
    space.knowledge("k/base_note", "From the base.")
    space.write(
        "config/agent/hook_conditions.yaml",
        """
        builtin_hooks:
          - id: route_all
            event: resolve_extends
            action: {set_extends: base}
        context_hooks:
          - id: ctx_directive_instruction
            event: thread_started
            position: before
            action: {kind: knowledge, item_id: k/extra}
          - id: added
            event: thread_started
            position: after
            wrap: false
            action: {kind: knowledge, item_id: k/extra}
        """,
    )
    space.directive("base", context="<after>k/base_note</after>", permissions="<fetch>*</fetch>")
    space.directive("job")
    mine = agree(ryeos, space.root, "job", {}, tmp_path)
    assert mine.extends == "base"
    assert [p.item_id for p in mine.parts if p.kind.startswith("hook")] == ["k/extra", "k/extra"]


def test_javascript_tools_are_registered_as_ryeos_registers_them(
    ryeos: Ryeos, tmp_path: Path
) -> None:
    space = Space(tmp_path / "ws")
    space.write(
        "tools/acme/ops/deploy.js",
        "// deploys\nexport const __tool_description__ = 'Deploy the app';\n"
        "export const CONFIG_SCHEMA = {\n  type: 'object', // the params\n"
        "  properties: {\n    target: { type: 'string', description: 'where' },\n  },\n"
        "  required: ['target'],\n};\n",
    )
    space.write(
        "tools/acme/ops/check.ts",
        'const CONFIG_SCHEMA: Schema = {"type": "object", "properties": {}};\n',
    )
    space.write("tools/acme/ops/broken.mjs", "export const CONFIG_SCHEMA = {type: };\n")
    space.directive("job", permissions="<execute><tool>acme/ops/*</tool></execute>")
    mine = agree(ryeos, space.root, "job", {}, tmp_path)
    names = [t.api_name for t in mine.palette.registered]
    assert "acme_ops_deploy" in names and "acme_ops_check" in names
    assert mine.palette.capabilities == ["rye.execute.tool.acme.ops.*"]


@pytest.mark.parametrize("inputs", [{"env": "prod"}, {}])
def test_string_comparisons_unknown_paths_and_optional_inputs(
    ryeos: Ryeos, tmp_path: Path, inputs: dict[str, str]
) -> None:
    """`gt` on a string input compares text; an unknown `${path}` is empty; `{input:x?}`
    stays as written when the thread has no inputs at all."""
    space = Space(tmp_path / "ws")
    space.knowledge("k/t", "Env {input:env?} / ${nothing.here} / ${inputs.env || directive}.")
    space.hooks("""
    hooks:
      - id: text_gt
        event: thread_started
        condition: {path: inputs.env, op: gt, value: "alpha"}
        action: {kind: knowledge, item_id: k/t}
      - id: always
        event: thread_started
        position: after
        action: {kind: knowledge, item_id: k/t}
    """)
    space.directive(
        "job",
        permissions="<fetch>*</fetch>",
        extra='<inputs><input name="env" type="string">E</input></inputs>',
    )
    agree(ryeos, space.root, "job", inputs, tmp_path)


def test_stand_in_system_items_carry_ryeos_sizes(ryeos: Ryeos, tmp_path: Path) -> None:
    """A system item from the stand-in tier names the size ryeos gives the item it stands
    in for: the size the installed tier's copy has."""
    space = Space(tmp_path / "ws")
    space.directive("job", extends="rye/agent/core/base", permissions="<fetch>*</fetch>")
    stand_in = build_thread(space.root, "job").to_dict()
    real = ours(ryeos, space.root, "job", {}).to_dict()
    got = {i["item_id"]: i.get("ryeos_chars") for i in stand_in["system"]["items"]}
    want = {i["item_id"]: i["chars"] for i in real["system"]["items"] if i["status"] == "included"}
    assert want and all(got[k] == n for k, n in want.items())


def test_later_signature_lines_and_a_leaf_ryeos_cannot_parse(ryeos: Ryeos, tmp_path: Path) -> None:
    """A `<!-- ryeos:signed:… -->` line (later releases' format) heads an item as a signature;
    a leaf directive with no ```xml block is a refusal to ryeos."""
    from conftest import knowledge_md

    space = Space(tmp_path / "ws")
    sig = "<!-- ryeos:signed:2026-01-01T00:00:00Z:abc:def==:fp -->\n"
    space.write("knowledge/k/signed.md", sig + knowledge_md("signed", "Signed body."))
    space.directive("job", permissions="<fetch>*</fetch>", context="<before>k/signed</before>")
    mine = agree(ryeos, space.root, "job", {}, tmp_path, dev_mode=True)  # ryeos 0.1: unsigned
    assert mine.first_message.startswith("Signed body.")
    assert mine.knowledge["k/signed"].signed == "signed (unverified)"
    space.write("directives/bare.md", "---\ndescription: front matter only\n---\n\nDo it.\n")
    mine = agree(ryeos, space.root, "bare", {}, tmp_path)
    assert mine.refused and "cannot be parsed" in mine.refused[0]
    assert any(d.code == "rye-thread-refused" and d.severity == "error" for d in mine.diagnostics)
