"""Three-tier resolution, the bundled system space, and extends chains."""

from __future__ import annotations

import importlib.resources

from conftest import DOCS, Space
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctxscope.runtimes.rye import build_thread, list_directives


def test_system_space_is_package_data_with_standard_bases_and_core_items() -> None:
    root = importlib.resources.files("ctxscope.runtimes.rye") / "system" / ".ai"
    for base in ("base", "base_execute_only", "base_review"):
        assert (root / "directives" / "rye" / "agent" / "core" / f"{base}.md").is_file()
    for item in (
        "Identity",
        "Behavior",
        "protocol/execute",
        "protocol/fetch",
        "protocol/sign",
        "Environment",
        "DirectiveInstruction",
    ):
        assert (root / "knowledge" / "rye" / "agent" / "core" / f"{item}.md").is_file()


def test_standard_base_starts_at_the_general_base_and_declares_no_protocol_items(
    space: Space,
) -> None:
    space.directive("job", extends="rye/agent/core/base")
    r = build_thread(space.root, "job")
    assert r.chain_ids() == ["job", "rye/agent/core/base", "agent/core/base"]
    assert [n.tier for n in r.chain] == ["project", "system", "system"]
    system = {i.item_id: i.status for i in r.composed["system"]}
    assert system == {
        "agent/core/Behavior": "suppressed",
        "rye/agent/core/Identity": "included",
        "rye/agent/core/Behavior": "included",
    }
    assert r.composed["before"] == [] and r.composed["after"] == []
    # ryeos: `<execute>*</execute>` (rye.execute.*) grants nothing; fetch and sign register.
    assert [t.api_name for t in r.palette.registered] == ["rye_fetch", "rye_sign"]
    docs = build_thread(space.root, "job", profile=DOCS)
    assert {t.api_name for t in docs.palette.registered} >= {"rye_execute", "rye_fetch", "rye_sign"}


def test_execute_only_base_narrows_primaries(space: Space) -> None:
    space.directive("job", extends="rye/agent/core/base_execute_only")
    docs = build_thread(space.root, "job", profile=DOCS)
    assert [t.api_name for t in docs.palette.registered if t.primary] == ["rye_execute"]
    assert {t.api_name for t in docs.palette.skipped} >= {"rye_fetch", "rye_sign"}
    r = build_thread(space.root, "job")
    assert r.palette.registered == [] and r.refused and "no tools" in r.refused[0]


def test_review_base_grants_read_only_file_tools(space: Space) -> None:
    space.directive("rev", extends="rye/agent/core/base_review")
    r = build_thread(space.root, "rev")
    tools = {t.id for t in r.palette.registered if not t.primary}
    assert tools == {"rye/file-system/read", "rye/file-system/glob", "rye/file-system/grep"}
    assert r.palette.find("rye/file-system/write") is None


def test_project_shadows_user_shadows_system(space: Space, user_space: Space) -> None:
    space.knowledge("rye/agent/core/Identity", "Project identity.")
    user_space.knowledge("rye/agent/core/Identity", "User identity.")
    user_space.knowledge("rye/agent/core/Behavior", "User behaviour.")
    space.directive("job", extends="rye/agent/core/base")
    r = build_thread(space.root, "job", user_space=user_space.root)
    ident = r.knowledge["rye/agent/core/Identity"]
    assert ident.tier == "project" and ident.body == "Project identity."
    assert [s.tier for s in ident.shadowed] == ["user", "system"]
    assert r.knowledge["rye/agent/core/Behavior"].tier == "user"
    assert r.system_message.startswith("Project identity.\n\nUser behaviour.")


def test_user_space_accepts_folder_or_its_parent(space: Space, user_space: Space) -> None:
    user_space.directive("mine")
    assert "mine" in list_directives(space.root, user_space.root)
    assert "mine" in list_directives(space.root, user_space.ai)
    assert "mine" not in list_directives(space.root)


def test_root_first_composition_dedupe_and_origins(space: Space) -> None:
    for k in ("k/root", "k/mid", "k/leaf", "k/shared"):
        space.knowledge(k, f"{k} body")
    space.directive("root", context="<before>k/root</before><before>k/shared</before>")
    space.directive(
        "mid", extends="root", context="<before>k/shared</before><before>k/mid</before>"
    )
    space.directive("leaf", extends="mid", context="<before>k/leaf</before>")
    r = build_thread(space.root, "leaf")
    assert r.chain_ids() == ["leaf", "mid", "root"]
    before = [(i.item_id, i.origin, i.status) for i in r.composed["before"]]
    assert before == [
        ("k/root", "root", "included"),
        ("k/shared", "root", "included"),
        ("k/shared", "mid", "deduplicated"),
        ("k/mid", "mid", "included"),
        ("k/leaf", "leaf", "included"),
    ]
    kinds = [
        (p.kind, p.source)
        for p in r.parts
        if p.kind.endswith("before") and not p.kind.startswith("hook")
    ]
    assert kinds == [
        ("extends_before", "k/root"),
        ("extends_before", "k/shared"),
        ("extends_before", "k/mid"),
        ("directive_before", "k/leaf"),
    ]


def test_suppress_composes_through_the_chain(space: Space) -> None:
    space.knowledge("k/a", "A")
    space.knowledge("k/b", "B")
    space.directive("root", context="<system>k/a</system><before>k/b</before>")
    space.directive("mid", extends="root", context="<suppress>k/b</suppress>")
    space.directive("leaf", extends="mid", context="<after>k/b</after>")
    r = build_thread(space.root, "leaf")
    statuses = {
        (i.position, i.item_id): (i.status, i.suppressed_by)
        for items in r.composed.values()
        for i in items
    }
    assert statuses[("before", "k/b")] == ("suppressed", ["mid"])
    assert statuses[("after", "k/b")] == ("suppressed", ["mid"])  # every position, descendants too
    assert statuses[("system", "k/a")] == ("included", [])
    assert "B" not in r.first_message


def test_cycle_is_an_error_naming_the_chain_and_the_rest_builds(space: Space) -> None:
    space.knowledge("k/a", "Alpha")
    space.directive("a", extends="b", context="<before>k/a</before>")
    space.directive("b", extends="a")
    r = build_thread(space.root, "a")
    errs = [d for d in r.diagnostics if d.code == "extends-cycle"]
    assert errs and errs[0].message == "Circular extends chain: a → b → a"
    assert errs[0].path and errs[0].path.endswith("b.md")
    assert "Alpha" in r.first_message
    assert "Circular extends chain: a → b → a" in r.refused  # ryeos does not start it
    docs = build_thread(space.root, "a", profile=DOCS)
    assert docs.palette.registered and not docs.refused


def test_missing_parent_is_an_error_naming_it(space: Space) -> None:
    space.directive("leaf", extends="mid")
    space.directive("mid", extends="ghost/base")
    r = build_thread(space.root, "leaf")
    errs = [d for d in r.diagnostics if d.code == "extends-missing"]
    assert len(errs) == 1
    assert "ghost/base" in errs[0].message and "leaf → mid → ghost/base" in errs[0].message
    assert r.chain[-1].id == "ghost/base" and r.chain[-1].tier is None


def test_docs_attenuate_permissions_through_the_chain_ryeos_does_not(space: Space) -> None:
    space.directive("root", permissions="<execute><tool>rye.file-system.read</tool></execute>")
    space.directive("leaf", extends="root", permissions="<execute>*</execute><sign>*</sign>")
    real = build_thread(space.root, "leaf")
    assert real.palette.capabilities == ["rye.execute.*", "rye.sign.*"]  # nothing intersected
    assert [t.api_name for t in real.palette.registered] == ["rye_sign"]
    r = build_thread(space.root, "leaf", profile=DOCS)
    assert r.palette.capabilities == ["rye.execute.tool.rye.file-system.read"]
    assert r.capability_notes and "narrowed by root" in r.capability_notes[0]
    assert [t.api_name for t in r.palette.registered] == ["rye_execute", "rye_file_system_read"]


def test_leaf_without_permissions_takes_the_root_most_ancestors(space: Space) -> None:
    space.directive("root", permissions="<execute><tool>t.x</tool></execute><fetch>*</fetch>")
    space.directive("mid", extends="root", permissions="<fetch>*</fetch>")
    space.directive("leaf", extends="mid")
    real = build_thread(space.root, "leaf")
    assert real.capability_source == "root"
    assert real.palette.capabilities == ["rye.execute.tool.t.x", "rye.fetch.*"]
    assert "root-most" in real.capability_notes[0]


def test_docs_leaf_without_permissions_inherits_nearest_parent(space: Space) -> None:
    space.directive("root", permissions="<execute>*</execute><fetch>*</fetch>")
    space.directive("mid", extends="root", permissions="<fetch>*</fetch>")
    space.directive("leaf", extends="mid")
    r = build_thread(space.root, "leaf", profile=DOCS)
    assert r.capability_source == "mid"
    assert [t.api_name for t in r.palette.registered] == ["rye_fetch"]


@given(
    st.lists(
        st.text(alphabet=".apy-ml_Y", min_size=1, max_size=8).filter(lambda n: n not in ".."),
        min_size=1,
        max_size=12,
        unique=True,
    )
)
@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_item_ids_are_file_names_without_the_extension_splitext_sees(tmp_path, names) -> None:
    """`x.py` is the item `x`, `a.b.py` the item `a.b`; `.py` and `..py` have no extension to
    Python (a name of dots only before it), so they name no item."""
    import os

    from ctxscope.infra.snapshot import Snapshot
    from ctxscope.runtimes.rye.tiers import TOOL_EXTS, walk_ids

    root = tmp_path / f"t{len(list(tmp_path.iterdir()))}"
    root.mkdir()
    for name in names:
        (root / name).write_text("")
    expected: dict[str, str] = {}
    for n in sorted(names):  # `x.py` before `x.yaml`: the first of one id wins
        stem, ext = os.path.splitext(n)
        if ext in TOOL_EXTS:
            expected.setdefault(stem, str(root / n))
    assert walk_ids(Snapshot(), root, TOOL_EXTS, space=root) == expected


@given(
    st.lists(
        st.tuples(
            st.integers(min_value=0, max_value=30),
            st.sampled_from(["a", "b", ".h", "x.py", "ns", "t.yaml"]),
            st.sampled_from(["dir", "file", "file", "link-dir", "link-missing"]),
        ),
        max_size=25,
    )
)
@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_tool_folders_are_listed_in_the_order_pathlib_rglob_gives(tmp_path, plan) -> None:
    """Rye finds a granted folder's tools with `Path.rglob`; ctxscope lists the folder
    itself, and must give every entry in exactly that order (links listed, not followed)."""
    from ctxscope.runtimes.rye.tiers import rglob_all

    top = tmp_path / f"t{len(list(tmp_path.iterdir()))}"
    top.mkdir()
    folders = [top]
    for n, (at, stem, kind) in enumerate(plan):
        path = folders[at % len(folders)] / f"{stem}{n}"
        if kind == "dir":
            path.mkdir()
            folders.append(path)
        elif kind == "file":
            path.write_text("")
        else:
            path.symlink_to(folders[0] if kind == "link-dir" else top / "missing")
    for start in folders[:3]:
        assert rglob_all(start) == [str(p) for p in start.rglob("*")]
