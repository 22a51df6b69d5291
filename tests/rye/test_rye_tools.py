"""The tool palette: AST-only metadata, names, budget, priorities, primaries."""

from __future__ import annotations

from pathlib import Path

from conftest import DOCS, Space

from ctxscope.runtimes.rye import build_thread, check_space
from ctxscope.runtimes.rye.capabilities import api_name


def tool_py(desc: str, props: int = 1, extra: str = "") -> str:
    fields = ", ".join(
        f'"p{i}": {{"type": "string", "description": "param {i}"}}' for i in range(props)
    )
    return (
        f"{extra}\n__tool_description__ = {desc!r}\n"
        f'CONFIG_SCHEMA = {{"type": "object", "properties": {{{fields}}}}}\n'
    )


def test_tool_files_are_never_imported(space: Space, tmp_path: Path) -> None:
    marker = tmp_path / "imported.txt"
    trap = (
        f"open({str(marker)!r}, 'w').write('ran')\nprint('side effect')\n"
        "raise SystemExit('imported')\n"
    )
    space.write("tools/ops/trap.py", tool_py("A trap", extra=trap))
    space.directive("job", permissions="<execute><tool>ops.trap</tool></execute>")
    r = build_thread(space.root, "job")
    assert not marker.exists()
    entry = r.palette.find("ops_trap")
    assert entry is not None and entry.status == "registered"
    assert entry.description == "A trap" and entry.schema is not None
    assert set(entry.schema["properties"]) == {"p0"}


def test_api_name_flattening() -> None:
    assert api_name("rye/file-system/read") == "rye_file_system_read"
    assert api_name("project/deploy/kubectl") == "project_deploy_kubectl"


def test_budget_skips_what_does_not_fit_and_continues(space: Space) -> None:
    space.resilience("tool_preload:\n  max_tokens: 100\n")
    space.write("tools/t/a_big.py", tool_py("big", props=12))
    space.write("tools/t/b_mid.py", tool_py("mid", props=2))
    space.write("tools/t/c_small.yaml", "description: s\nparameters:\n  - name: q\n")
    space.directive("job", permissions="<execute><tool>t.*</tool></execute>")
    r = build_thread(space.root, "job")
    p = r.palette
    big, mid, small = (p.find(f"t/{n}") for n in ("a_big", "b_mid", "c_small"))
    assert big and mid and small
    assert big.chars > 400 >= mid.chars + small.chars  # the big one alone overflows
    assert big.status == "skipped" and "budget" in big.reason
    assert mid.status == small.status == "registered"
    expected_chars = mid.chars + small.chars
    assert p.used_tokens == -(-expected_chars // 4) and p.budget_tokens == 100
    assert small.schema == {
        "type": "object",
        "required": [],
        "properties": {"q": {"type": "string", "description": ""}},
    }


def test_chars_are_json_schema_plus_description(space: Space) -> None:
    import json

    space.write("tools/t/x.py", tool_py("Describe me", props=2))
    space.directive("job", permissions="<execute><tool>t.x</tool></execute>")
    t = build_thread(space.root, "job").palette.find("t/x")
    assert t is not None and t.schema is not None
    assert t.chars == len(json.dumps(t.schema)) + len("Describe me")
    assert t.tokens == -(-t.chars // 4)


def test_specific_capabilities_come_before_wildcards(space: Space) -> None:
    space.resilience("tool_preload:\n  max_tokens: 40\n")
    for name in ("aaa", "bbb", "zzz"):
        space.write(f"tools/t/{name}.py", tool_py(name, props=1))
    space.directive("job", permissions="<execute><tool>t.*</tool><tool>t.zzz</tool></execute>")
    r = build_thread(space.root, "job")
    tools = [t.id for t in r.palette.registered if not t.primary]
    assert tools[0] == "t/zzz" and r.palette.find("t/zzz").capability.endswith("t.zzz")


def test_disabled_preload_registers_nothing(space: Space) -> None:
    space.resilience("tool_preload:\n  enabled: false\n")
    space.directive("job", extends="rye/agent/core/base")
    r = build_thread(space.root, "job")
    assert r.palette.enabled is False and r.palette.registered == []
    assert r.to_dict()["tools"]["registered"] == []
    assert r.refused  # ryeos: a thread that can call nothing does not start
    # directive_return comes after the preload in ryeos: disabling the preload keeps it.
    space.directive(
        "job2",
        extends="rye/agent/core/base",
        extra='<outputs><output name="u">U</output></outputs>',
    )
    r = build_thread(space.root, "job2")
    assert [t.api_name for t in r.palette.registered] == ["directive_return"] and not r.refused
    docs = build_thread(space.root, "job2", profile=DOCS)
    assert docs.palette.registered == []


def test_a_budget_cut_among_py_and_yaml_tools_says_their_order_varies(space: Space) -> None:
    """ryeos takes a folder's .py and .yaml tools in a set's order, so which fit a budget can
    change between its runs: the palette says so, on a rebuild too, and only then."""
    from ctxscope.infra.snapshot import Snapshot

    space.resilience("tool_preload:\n  max_tokens: 100\n")
    space.write("tools/t/a_big.py", tool_py("big", props=12))
    space.write("tools/t/c_small.yaml", "description: s\nparameters:\n  - name: q\n")
    space.directive("job", permissions="<execute><tool>t.*</tool></execute>")
    snapshot = Snapshot()
    first = build_thread(space.root, "job", snapshot=snapshot)
    varies = [n for n in first.palette.notes if "changes from run to run" in n]
    assert len(varies) == 1
    assert build_thread(space.root, "job", snapshot=snapshot).palette.notes == first.palette.notes
    docs = build_thread(space.root, "job", profile=DOCS)  # the docs' runtime: one order
    assert not [n for n in docs.palette.notes if n in varies]

    (space.root / ".ai/tools/t/c_small.yaml").unlink()
    space.write("tools/t/c_small.py", tool_py("s"))
    assert not [n for n in build_thread(space.root, "job").palette.notes if n in varies]


def test_docs_register_primaries_outside_budget(space: Space) -> None:
    space.resilience("tool_preload:\n  max_tokens: 0\n")
    space.directive("job", extends="rye/agent/core/base")
    r = build_thread(space.root, "job", profile=DOCS)
    names = [t.api_name for t in r.palette.registered]
    assert names == ["rye_execute", "rye_fetch", "rye_sign"]
    assert r.palette.used_tokens == 0
    assert all("budget" in t.reason for t in r.palette.skipped)


def test_ryeos_charges_primaries_to_the_budget_at_their_size(space: Space) -> None:
    space.write("tools/t/x.py", tool_py("x"))
    space.resilience("tool_preload:\n  max_tokens: 30\n")
    space.directive("job", permissions="<fetch>*</fetch><execute><tool>t.x</tool></execute>")
    r = build_thread(space.root, "job")
    fetch = r.palette.find("rye_fetch")
    assert fetch is not None and fetch.status == "registered" and "budget" in fetch.reason
    x = r.palette.find("t_x")
    assert x is not None and x.status == "skipped" and x.over_budget
    assert r.palette.used_tokens == fetch.tokens
    # execute granted for tools only: no rye_execute wrapper.
    assert r.palette.find("rye_execute").status == "skipped"  # type: ignore[union-attr]
    space.resilience("tool_preload:\n  max_tokens: 2000\n")
    r = build_thread(space.root, "job")
    assert [t.api_name for t in r.palette.registered] == ["rye_fetch", "t_x"]
    t_x = r.palette.find("t_x")
    assert t_x is not None and t_x.schema is not None
    assert t_x.chars == len(str(t_x.schema)) + len(t_x.description)  # the schema's repr


def test_nothing_declared_gets_primary_actions_only_in_the_docs(space: Space) -> None:
    space.write("tools/t/x.py", tool_py("x"))
    space.directive("job")
    r = build_thread(space.root, "job", profile=DOCS)
    assert [t.api_name for t in r.palette.registered] == ["rye_execute", "rye_fetch", "rye_sign"]
    assert r.palette.find("t/x") is None
    real = build_thread(space.root, "job")
    assert real.palette.registered == [] and "no tools" in real.refused[0]
    refusal = next(d for d in real.diagnostics if d.code == "rye-thread-refused")
    assert refusal.severity == "error" and refusal.path and refusal.path.endswith("job.md")
    assert any(d.code == "rye-thread-refused" for d in check_space(space.root))  # check sees it
    space.directive("job2", extra='<outputs><output name="url">U</output></outputs>')
    assert build_thread(space.root, "job2").refused == []  # directive_return is a tool


def test_outputs_register_directive_return(space: Space) -> None:
    space.directive("job", extra='<outputs><output name="url" required="true">U</output></outputs>')
    r = build_thread(space.root, "job")
    ret = r.palette.find("directive_return")
    assert ret is not None and ret.status == "registered"
    assert ret.schema is not None and ret.schema["required"] == ["url"]
    assert "directive_return" in r.first_message


def test_syntax_error_and_non_literal_schema_are_diagnostics(space: Space) -> None:
    bad = space.write("tools/t/broken.py", "CONFIG_SCHEMA = {\n  'type': \n")
    dyn = space.write("tools/t/dynamic.py", "CONFIG_SCHEMA = make_schema()\n")
    space.write("tools/t/good.py", tool_py("fine"))
    space.directive("job", permissions="<execute><tool>t.*</tool></execute>")
    r = build_thread(space.root, "job")
    syntax = next(d for d in r.diagnostics if d.path == str(bad))
    assert syntax.severity == "error" and "syntax error" in syntax.message and syntax.line
    literal = next(d for d in r.diagnostics if d.path == str(dyn))
    assert "not a literal" in literal.message and literal.line == 1
    assert r.palette.find("t/broken").status == "skipped"
    assert r.palette.find("t/good").status == "registered"


def test_capabilities_tree(space: Space) -> None:
    space.write("tools/a/b/one.py", tool_py("one"))
    space.write("tools/a/two.py", tool_py("two"))
    space.directive("job", permissions="<execute><tool>a.*</tool></execute>")
    r = build_thread(space.root, "job")
    assert r.palette.tree == {"rye_execute": {"tool": {"a": ["two"], "a/b": ["one"]}}}
    assert r.palette.tree_text == "rye_execute\n└─ tool\n   ├─ a: two\n   └─ a/b: one"


def test_shared_snapshot_sees_added_and_edited_tools(space: Space) -> None:
    from ctxscope.infra.snapshot import Snapshot

    snap = Snapshot()
    space.write("tools/t/a.py", tool_py("a", props=1))
    space.directive("job", permissions="<execute><tool>t.*</tool></execute>")
    first = build_thread(space.root, "job", snapshot=snap).palette.find("t/a")
    assert first is not None
    space.write("tools/t/a.py", tool_py("a, now with a longer description", props=3))
    space.write("tools/t/b.yaml", "description: b\nparameters:\n  - name: q\n")
    r = build_thread(space.root, "job", snapshot=snap)
    again = r.palette.find("t/a")
    assert again is not None and again.chars > first.chars
    assert r.palette.find("t/b") is not None
