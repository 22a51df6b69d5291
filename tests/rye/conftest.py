"""Helpers that write real Rye spaces on tmp_path, and ryeos 0.1.30 itself to compare with.

ryeos comes from `tests/runtimes.py` (installed once into a cache venv).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from ctxscope.runtimes.rye.semantics import load as load_profile
from tests import runtimes
from tests.rye.signing import Key, kind_of

DOCS = load_profile("rye-docs")
"""Rye as its documentation describes it (the default profile is what ryeos 0.1 does)."""


def directive_md(
    name: str,
    *,
    extends: str | None = None,
    context: str = "",
    permissions: str = "",
    extra: str = "",
    body: str = "Do the task.",
    signature: str | None = None,
    limits: str = "",
) -> str:
    ext = f' extends="{extends}"' if extends else ""
    perms = f"<permissions>{permissions}</permissions>" if permissions else ""
    ctx = f"<context>{context}</context>" if context else ""
    ctx += f"<limits {limits}/>" if limits else ""
    sig = f"<!-- rye:signed:{signature} -->\n" if signature else ""
    return (
        f'{sig}# {name}\n\n```xml\n<directive name="{name}" version="1.0.0"{ext}>\n'
        f"  <metadata>\n    <description>{name} description</description>\n"
        f"    <category>test</category>\n    {ctx}\n    {perms}\n  </metadata>\n"
        f"  {extra}\n</directive>\n```\n\n{body}\n"
    )


def knowledge_md(name: str, body: str) -> str:
    return f'```yaml\nname: {name}\ntitle: {name} title\nversion: "1.0.0"\n```\n\n{body}\n'


class Space:
    """A workspace with a project `.ai` space; `write` puts files under `.ai/`. Directives and
    knowledge are signed (as `rye sign` does) by the space's own key, which its trust store
    holds, so ryeos loads them outside dev mode; `sign=False` writes one as given."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.ai = root / ".ai"
        self.ai.mkdir(parents=True, exist_ok=True)
        self.key = Key()
        self.key.trust(self.ai)

    def write(self, rel: str, text: str, *, sign: bool = True) -> Path:
        path = self.ai / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        text = textwrap.dedent(text) if text.startswith("\n") else text
        kind = kind_of(rel)
        if sign and kind is not None and not text.startswith("<!-- rye"):
            text = self.key.sign(kind, text)
        path.write_text(text)
        return path

    def directive(self, did: str, **kw: object) -> Path:
        return self.write(f"directives/{did}.md", directive_md(did.rsplit("/", 1)[-1], **kw))  # type: ignore[arg-type]

    def knowledge(self, kid: str, body: str, name: str | None = None) -> Path:
        return self.write(f"knowledge/{kid}.md", knowledge_md(name or kid.rsplit("/", 1)[-1], body))

    def hooks(self, text: str) -> Path:
        return self.write("config/agent/hooks.yaml", textwrap.dedent(text))

    def resilience(self, text: str) -> Path:
        return self.write("config/agent/resilience.yaml", textwrap.dedent(text))


@pytest.fixture
def space(tmp_path: Path) -> Space:
    return Space(tmp_path / "ws")


@pytest.fixture
def user_space(tmp_path: Path) -> Space:
    return Space(tmp_path / "userhome")


ORACLE = Path(__file__).with_name("ryeos_oracle.py")


@dataclass(frozen=True)
class Ryeos:
    python: Path
    site: Path
    """site-packages of the venv: what `--rye-system` takes."""

    def thread(
        self,
        workspace: Path,
        directive: str,
        inputs: dict[str, str],
        scratch: Path,
        dev_mode: bool = False,
    ) -> dict[str, Any]:
        """What ryeos sends the model for `directive` (its own execute(), stopped at the
        model call), run on a copy of `workspace` (ryeos writes thread state there; links are
        copied as links); `dev_mode`: with `RYE_DEV_MODE=1`."""
        copy = scratch / "ryeos-project"
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(workspace, copy, symlinks=True)  # links stay links
        env = {
            "PATH": f"{self.python.parent}{os.pathsep}{os.environ.get('PATH', '')}",
            "HOME": str(scratch / "home"),
        }
        if dev_mode:
            env["RYE_DEV_MODE"] = "1"
        res = subprocess.run(
            [str(self.python), str(ORACLE), str(copy), directive, json.dumps(inputs)],
            capture_output=True,
            text=True,
            env=env,
            timeout=180,
        )
        assert res.returncode == 0, res.stderr[-2000:]
        return json.loads(res.stdout.splitlines()[-1])


def _site(python: Path) -> Path:
    out = subprocess.run(
        [
            str(python),
            "-c",
            "import ryeos_std, pathlib; print(pathlib.Path(ryeos_std.__file__).parent.parent)",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    if out.returncode != 0:
        raise RuntimeError(out.stderr)
    return Path(out.stdout.strip())


@pytest.fixture(scope="session")
def ryeos() -> Ryeos:
    python = Path(runtimes.get("ryeos"))
    return Ryeos(python, _site(python))


@pytest.fixture(scope="session")
def ryeos_lib(ryeos: Ryeos) -> Path:
    """Folder of ryeos's shared runtime library (its condition evaluator lives there)."""
    lib = (
        ryeos.site / "ryeos_core" / ".ai" / "tools" / "rye" / "core" / "runtimes" / "python" / "lib"
    )
    assert lib.is_dir(), lib
    return lib
