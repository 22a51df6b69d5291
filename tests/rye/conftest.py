"""Helpers that write real Rye spaces on tmp_path."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest


def directive_md(
    name: str,
    *,
    extends: str | None = None,
    context: str = "",
    permissions: str = "",
    extra: str = "",
    body: str = "Do the task.",
    signature: str | None = None,
) -> str:
    ext = f' extends="{extends}"' if extends else ""
    perms = f"<permissions>{permissions}</permissions>" if permissions else ""
    ctx = f"<context>{context}</context>" if context else ""
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
    """A workspace with a project `.ai` space; `write` puts files under `.ai/`."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.ai = root / ".ai"
        self.ai.mkdir(parents=True, exist_ok=True)

    def write(self, rel: str, text: str) -> Path:
        path = self.ai / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text) if text.startswith("\n") else text)
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
