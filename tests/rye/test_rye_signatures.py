"""Signatures as ryeos 0.1.30 checks them outside its dev mode, compared with ryeos itself.

Each space is signed with a key made for the test (`signing.py`); ryeos verifies those
signatures with its own code. Outside dev mode ryeos skips a context item of the chain that is
unsigned or whose signature does not hold, stops the thread for one signed by an untrusted
key, for any item a hook loads that fails, and for a directive (or parent) that fails; in dev
mode (`RYE_DEV_MODE=1`) every item loads.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import Ryeos, Space, directive_md, knowledge_md
from test_rye_against_ryeos import agree

from ctxscope.runtimes.rye import build_thread
from ctxscope.runtimes.rye.integrity import signed_part
from tests.rye.signing import Key


def context_space(root: Path) -> Space:
    """k/good signed; k/unsigned unsigned; k/edited changed after signing; k/forged signed
    with the trusted key's name on another key's signature."""
    space = Space(root)
    space.knowledge("k/good", "Good body.")
    space.write("knowledge/k/unsigned.md", knowledge_md("unsigned", "Unsigned body."), sign=False)
    edited = space.knowledge("k/edited", "Edited body.")
    edited.write_text(edited.read_text().replace("Edited body.", "Edited later."))
    text = knowledge_md("forged", "Forged body.")
    digest = hashlib.sha256(str(signed_part("knowledge", text)).encode()).hexdigest()
    other = Key().line(digest)  # a real signature of the right hash, by another key
    forged = other.replace(other.rsplit(":", 1)[1], f"{space.key.fp} -->\n")
    space.write("knowledge/k/forged.md", forged + text)
    return space


ITEMS = "".join(f"<before>k/{k}</before>" for k in ("good", "unsigned", "edited", "forged"))


def test_context_items_that_fail_are_skipped_as_ryeos_skips_them(
    ryeos: Ryeos, tmp_path: Path
) -> None:
    space = context_space(tmp_path / "ws")
    space.directive("job", permissions="<fetch>*</fetch>", context=ITEMS)
    mine = agree(ryeos, space.root, "job", {}, tmp_path)
    assert not mine.refused
    states = {i.item_id: (i.status, i.integrity) for i in mine.composed["before"]}
    assert states == {
        "k/good": ("included", "signed (verified)"),
        "k/unsigned": ("unverified", "unsigned"),
        "k/edited": ("unverified", "signature mismatch (changed since signing)"),
        "k/forged": ("unverified", f"signature mismatch (key {space.key.fp})"),
    }
    assert mine.first_message.startswith("Good body.\n\n<directive")
    rules = {i.item_id: i.rule for i in mine.composed["before"]}
    assert "ryeos skips it" in rules["k/unsigned"] and "RYE_DEV_MODE=1" in rules["k/unsigned"]
    dev = agree(ryeos, space.root, "job", {}, tmp_path, dev_mode=True)
    assert [i.status for i in dev.composed["before"]] == ["included"] * 4
    assert dev.first_message.startswith(
        "Good body.\n\nUnsigned body.\n\nEdited later.\n\nForged body."
    )
    assert {i.integrity for i in dev.composed["before"]} >= {"unsigned (dev mode loads it)"}
    assert any(d.code == "rye-dev-mode" for d in dev.diagnostics)


def test_an_untrusted_key_stops_the_thread(ryeos: Ryeos, tmp_path: Path) -> None:
    space = Space(tmp_path / "ws")
    stranger = Key()
    space.write("knowledge/k/theirs.md", stranger.sign("knowledge", knowledge_md("t", "T.")))
    space.directive("job", permissions="<fetch>*</fetch>", context="<after>k/theirs</after>")
    mine = agree(ryeos, space.root, "job", {}, tmp_path)
    assert mine.refused == [
        f"context knowledge 'k/theirs' is signed by an untrusted key {stranger.fp}"
    ]
    # trusted by the user space's store (ryeos's user space: the home folder) it loads
    stranger.trust(tmp_path / "home" / ".ai")
    mine = agree(ryeos, space.root, "job", {}, tmp_path)
    assert not mine.refused and mine.composed["after"][0].integrity == "signed (verified)"


def test_a_hook_that_loads_an_unsigned_item_stops_the_thread(ryeos: Ryeos, tmp_path: Path) -> None:
    space = Space(tmp_path / "ws")
    space.write("knowledge/h/note.md", knowledge_md("note", "Hook note."), sign=False)
    space.hooks("""
    hooks:
      - id: add_note
        event: thread_started
        action: {primary: execute, kind: knowledge, item_id: h/note}
    """)
    space.directive("job", permissions="<fetch>*</fetch>")
    mine = agree(ryeos, space.root, "job", {}, tmp_path)
    assert mine.refused and "hook add_note loads 'h/note', which is unsigned" in mine.refused[0]
    hook = next(h for h in mine.context_hooks if h.id == "add_note")
    assert not hook.applied and "unsigned: not loaded" in hook.reason
    dev = agree(ryeos, space.root, "job", {}, tmp_path, dev_mode=True)
    assert not dev.refused and dev.first_message.startswith('<note id="h/note">')


def test_an_unsigned_directive_or_parent_stops_the_thread(ryeos: Ryeos, tmp_path: Path) -> None:
    space = Space(tmp_path / "ws")
    space.write(
        "directives/base.md", directive_md("base", permissions="<fetch>*</fetch>"), sign=False
    )
    space.directive("child", extends="base")
    mine = agree(ryeos, space.root, "child", {}, tmp_path)
    assert mine.refused == [
        "parent directive 'base' is unsigned (dev mode loads it: --rye-dev-mode or RYE_DEV_MODE=1)"
    ]
    space.write(
        "directives/lone.md", directive_md("lone", permissions="<fetch>*</fetch>"), sign=False
    )
    mine = agree(ryeos, space.root, "lone", {}, tmp_path)
    assert mine.refused and mine.refused[0].startswith("the directive 'lone' is unsigned")
    assert mine.chain[0].signature == "unsigned"
    assert not agree(ryeos, space.root, "lone", {}, tmp_path, dev_mode=True).refused


def test_a_trusted_key_file_must_hold_its_own_fingerprint(tmp_path: Path) -> None:
    """A key file whose PEM is not the key its name says is no trust at all (ryeos passes it
    over), so the item it would vouch for is untrusted."""
    space = Space(tmp_path / "ws")
    space.knowledge("k/mine", "Mine.")
    space.directive("job", permissions="<fetch>*</fetch>", context="<before>k/mine</before>")
    assert not build_thread(space.root, "job", home=tmp_path).refused
    trusted = space.ai / "config/keys/trusted" / f"{space.key.fp}.toml"
    other = Key()
    trusted.write_text(trusted.read_text().replace(space.key.pem.strip(), other.pem.strip()))
    report = build_thread(space.root, "job", home=tmp_path)
    assert any("untrusted key" in why for why in report.refused)


def _cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ctxscope", *args],
        capture_output=True,
        text=True,
        env={**os.environ, "RYE_DEV_MODE": "", **(env or {})},
        timeout=120,
    )


@pytest.mark.parametrize("how", ["flag", "scenario", "environment"])
def test_dev_mode_is_an_option_in_the_cli_json_and_scenario(tmp_path: Path, how: str) -> None:
    space = context_space(tmp_path / "ws")
    space.directive("job", permissions="<fetch>*</fetch>", context=ITEMS)
    default = _cli("thread", str(space.root), "job")
    assert default.returncode == 0, default.stderr
    assert "signatures: verified as ryeos does" in default.stdout
    assert "k/unsigned  [unverified;" in default.stdout and "not loaded: unsigned" in default.stdout
    data = json.loads(_cli("thread", str(space.root), "job", "--format", "json").stdout)
    thread = data.get("thread", data)
    assert thread["profile"]["dev_mode"] is False
    assert [(i["item_id"], i["status"], i["integrity"]) for i in thread["before"]][1] == (
        "k/unsigned",
        "unverified",
        "unsigned",
    )
    args, env = ["thread", str(space.root), "job"], None
    if how == "flag":
        args.append("--rye-dev-mode")
    elif how == "scenario":
        (space.root / "ctxscope.yaml").write_text("rye_dev_mode: true\n")
    else:
        env = {"RYE_DEV_MODE": "1"}
    dev = _cli(*args, env=env)
    assert dev.returncode == 0, dev.stderr
    assert "signatures: dev mode (RYE_DEV_MODE=1)" in dev.stdout
    assert "k/unsigned  [included;" in dev.stdout and "Unsigned body." in dev.stdout
