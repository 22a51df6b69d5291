"""Hostile Rye spaces: an item whose file links out of its space is never read (ryeos itself
follows such links, as `test_ryeos_follows_links_out_of_the_space` shows), and a tool file
or a budget ctxscope cannot use is named with its file and line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.rye.conftest import Ryeos, Space, directive_md, knowledge_md
from tests.test_cli import ctxscope

FORMATS = ("text", "json", "markdown")
BASE_NOTE = "BASE-NOTE-5e10"
"""The body of the knowledge item only the linked base directive declares."""


def _outside(tmp_path: Path, name: str, text: str) -> Path:
    """A file beside the workspace, outside its Rye space."""
    path = tmp_path / "elsewhere" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def _link(link: Path, target: Path) -> Path:
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(target)
    return link


def _linked_space(tmp_path: Path) -> tuple[Space, dict[str, Path]]:
    """A space whose leaf directive's base, a knowledge item of its chain, a knowledge item
    a hook loads and a granted tool are each a link to a file outside the space holding a
    marker (the base's marker is the id of a knowledge item it declares); and one knowledge
    item linked to another file inside the space. Every item is signed by the space's key."""
    space = Space(tmp_path / "ws")
    links = {
        # The base's words never reach the prompt; what it declares does.
        "BASE-MARKER-7f3a": _link(
            space.ai / "directives/base.md",
            _outside(
                tmp_path,
                "base.md",
                space.key.sign(
                    "directive", directive_md("base", context="<before>BASE-MARKER-7f3a</before>")
                ),
            ),
        ),
        "CHAIN-MARKER-51c2": _link(
            space.ai / "knowledge/k/leak.md",
            _outside(
                tmp_path,
                "leak.md",
                space.key.sign("knowledge", knowledge_md("leak", "CHAIN-MARKER-51c2")),
            ),
        ),
        "HOOK-MARKER-9d04": _link(
            space.ai / "knowledge/k/hooked.md",
            _outside(
                tmp_path,
                "hooked.md",
                space.key.sign("knowledge", knowledge_md("hooked", "HOOK-MARKER-9d04")),
            ),
        ),
        "TOOL-MARKER-c6e8": _link(
            space.ai / "tools/x/t.py",
            _outside(
                tmp_path,
                "t.py",
                '__tool_description__ = "TOOL-MARKER-c6e8"\n'
                'CONFIG_SCHEMA = {"type": "object", "description": "TOOL-MARKER-c6e8"}\n',
            ),
        ),
    }
    space.knowledge("BASE-MARKER-7f3a", BASE_NOTE)
    space.write(
        "shared/inside.md", space.key.sign("knowledge", knowledge_md("inside", "INSIDE-TEXT-2b7e"))
    )
    _link(space.ai / "knowledge/k/inside.md", Path("../../shared/inside.md"))
    space.write("tools/x/ok.py", 'CONFIG_SCHEMA = {"type": "object"}\n')
    space.hooks("""
    hooks:
      - id: add_hooked
        event: thread_started
        action: {primary: execute, kind: knowledge, item_id: k/hooked}
    """)
    space.directive(
        "leaf",
        extends="base",
        context="<before>k/leak</before><before>k/inside</before>",
        permissions="<execute><tool>x.*</tool></execute>",
    )
    return space, links


@pytest.mark.parametrize("fmt", FORMATS)
def test_items_linked_out_of_the_space_are_never_read(tmp_path: Path, fmt: str) -> None:
    space, links = _linked_space(tmp_path)
    out = ctxscope("thread", space.root, "leaf", "--format", fmt)
    assert out.returncode == 0, out.stderr
    for marker in (*links, BASE_NOTE):
        assert marker not in out.stdout + out.stderr
    assert "INSIDE-TEXT-2b7e" in out.stdout  # a link inside the space is followed
    if fmt == "json":
        data = json.loads(out.stdout)
        named = {d["path"] for d in data["diagnostics"] if d["code"] == "rye-link-outside"}
        assert named == {str(p) for p in links.values()}
        assert all(d["severity"] == "warning" for d in data["diagnostics"] if d["path"] in named)
        skipped = {t["id"]: t["reason"] for t in data["tools"]["skipped"]}
        assert "links outside the Rye space" in skipped["x/t"]
        assert [t["id"] for t in data["tools"]["registered"]] == ["x/ok"]
        assert not data["refused"]  # ryeos follows the links: the missing base is not its refusal
        (line,) = [x for x in data["disagreements"] if x.startswith("links: ")]
        assert "ctxscope reads no file linked out of the space" in line and len(line) <= 120
        assert line.endswith("ryeos 0.1.30 follows the links and reads them")
    else:
        for link in links.values():
            warning = (
                f"{link}: warning: links outside the Rye space {space.ai} (to {link.resolve()})"
            )
            assert warning in out.stdout


def test_a_directive_linked_out_of_the_space_is_not_read(tmp_path: Path) -> None:
    space = Space(tmp_path / "ws")
    link = _link(
        space.ai / "directives/linked.md",
        _outside(tmp_path, "linked.md", directive_md("linked", body="LEAF-MARKER-e19b")),
    )
    for fmt in FORMATS:
        out = ctxscope("thread", space.root, "linked", "--format", fmt)
        assert out.returncode == 2
        assert "LEAF-MARKER-e19b" not in out.stdout + out.stderr
        assert f"{link}: warning: links outside the Rye space" in out.stderr
        assert "directive 'linked' not read: its file" in out.stderr


def test_hooks_and_resilience_linked_out_of_the_space_are_not_read(tmp_path: Path) -> None:
    space = Space(tmp_path / "ws")
    space.knowledge("k/secret", "HOOKS-FILE-MARKER-0a9c")
    hooks = _link(
        space.ai / "config/agent/hooks.yaml",
        _outside(
            tmp_path,
            "hooks.yaml",
            "hooks:\n  - id: from_outside\n    event: thread_started\n"
            "    action: {kind: knowledge, item_id: k/secret}\n",
        ),
    )
    resilience = _link(
        space.ai / "config/agent/resilience.yaml",
        _outside(tmp_path, "resilience.yaml", "tool_preload: {enabled: false}\n"),
    )
    space.write("tools/x/ok.py", 'CONFIG_SCHEMA = {"type": "object"}\n')
    space.directive("leaf", permissions="<execute><tool>x.*</tool></execute>")
    out = ctxscope("thread", space.root, "leaf", "--format", "json")
    assert out.returncode == 0, out.stderr
    assert "HOOKS-FILE-MARKER-0a9c" not in out.stdout
    data = json.loads(out.stdout)
    named = {d["path"] for d in data["diagnostics"] if d["code"] == "rye-link-outside"}
    assert named == {str(hooks), str(resilience)}
    assert data["tools"]["enabled"] is True  # the linked resilience.yaml's `enabled: false`
    started = data["directive"]["hooks"]["thread_started"]
    assert started and not any(h["id"] == "from_outside" for h in started)


def test_a_folder_linked_out_of_the_space_is_named_and_not_walked(tmp_path: Path) -> None:
    space = Space(tmp_path / "ws")
    folder = tmp_path / "elsewhere" / "kb"
    _outside(tmp_path, "kb/secret.md", knowledge_md("secret", "FOLDER-MARKER-44d1"))
    link = _link(space.ai / "knowledge/kb", folder)
    space.directive("leaf", context="<before>kb/secret</before>", extra="<outputs/>")
    out = ctxscope("thread", space.root, "leaf")
    assert "FOLDER-MARKER-44d1" not in out.stdout + out.stderr
    assert f"{link}: warning: links outside the Rye space" in out.stdout


def test_links_out_are_refused_with_many_tools_parsed_in_workers(tmp_path: Path) -> None:
    """Past 256 tool files a first look parses them in worker processes and keeps the
    results in the tool cache: a linked tool is refused on that path too, cold and warm."""
    space, links = _linked_space(tmp_path)
    for i in range(300):
        space.write(f"tools/x/f{i:03}.py", f'CONFIG_SCHEMA = {{"type": "object", "n": {i}}}\n')
    for _ in ("cold", "warm"):
        out = ctxscope("thread", space.root, "leaf", "--format", "json")
        assert out.returncode == 0, out.stderr
        assert not any(marker in out.stdout for marker in links)
        data = json.loads(out.stdout)
        named = {d["path"] for d in data["diagnostics"] if d["code"] == "rye-link-outside"}
        assert str(links["TOOL-MARKER-c6e8"]) in named


def test_ryeos_follows_links_out_of_the_space(ryeos: Ryeos, tmp_path: Path) -> None:
    """What the runtime does with the same space: it reads every linked item, which is why
    ctxscope's warning says so."""
    space, links = _linked_space(tmp_path)
    real = ryeos.thread(space.root, "leaf", {}, tmp_path)
    assert real["chain"] == ["base", "leaf"]
    sent = json.dumps(real)
    assert all(marker in sent for marker in (BASE_NOTE, *links) if marker != "BASE-MARKER-7f3a")


def test_explain_says_a_linked_item_is_not_read(tmp_path: Path) -> None:
    space, links = _linked_space(tmp_path)
    for item, status in (("k/leak", "missing"), ("x/t", "skipped"), ("k/hooked", "missing")):
        out = ctxscope("explain", space.root, item, "--directive", "leaf", "--format", "json")
        assert out.returncode == 0, out.stderr
        assert not any(marker in out.stdout for marker in links)
        (answer,) = json.loads(out.stdout)["answers"]
        assert answer["status"] == status and "links outside the Rye space" in answer["rule"]
