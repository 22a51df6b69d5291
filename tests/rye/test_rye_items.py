"""Directive and knowledge file formats."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ctxscope.runtimes.rye.items import parse_directive, parse_knowledge

DIRECTIVE = """<!-- rye:signed:2026-01-01T00:00:00Z:abc:def -->
# Deploy

```xml
<directive name="deploy" version="2.1.0" extends="base/ops">
  <metadata>
    <description>Ship it</description>
    <category>ops/deploy</category>
    <model tier="fast" />
    <context>
      <system>a/sys</system>
      <before>a/before</before>
      <after>a/after</after>
      <suppress>a/gone</suppress>
    </context>
    <permissions>
      <execute>
        <tool>rye.file-system.*</tool>
        <tool>ops.kubectl</tool>
      </execute>
      <fetch>*</fetch>
    </permissions>
  </metadata>
  <inputs>
    <input name="env" type="string" required="true">Target</input>
    <input name="ref" type="string" default="main">Ref</input>
  </inputs>
  <outputs>
    <output name="url" type="string" required="true">Where it runs</output>
  </outputs>
</directive>
```

Deploy {input:ref} to {input:env}.
"""


def test_directive_metadata_permissions_io_and_signature() -> None:
    d, diags = parse_directive(DIRECTIVE, "/x/deploy.md", "ops/deploy", "project")
    assert d is not None and diags == []
    assert (d.name, d.version, d.extends) == ("deploy", "2.1.0", "base/ops")
    assert (d.description, d.category, d.model) == ("Ship it", "ops/deploy", "fast")
    assert d.context == {
        "system": ["a/sys"],
        "before": ["a/before"],
        "after": ["a/after"],
        "suppress": ["a/gone"],
    }
    assert d.capabilities == [
        "rye.execute.tool.rye.file-system.*",
        "rye.execute.tool.ops.kubectl",
        "rye.fetch.*",
    ]
    assert [i["name"] for i in d.inputs] == ["env", "ref"]
    assert d.inputs[0]["required"] is True and d.inputs[1]["default"] == "main"
    assert d.outputs[0]["name"] == "url" and d.outputs[0]["required"] is True
    assert d.body == "Deploy {input:ref} to {input:env}."
    assert d.signed == "signed (unverified)"


def test_unsigned_directive_and_execute_star() -> None:
    text = DIRECTIVE.split("\n", 1)[1].replace(
        "<execute>\n        <tool>rye.file-system.*</tool>\n        <tool>ops.kubectl</tool>\n"
        "      </execute>",
        "<execute>*</execute>",
    )
    d, _ = parse_directive(text, "/x/deploy.md", "ops/deploy", "project")
    assert d is not None
    assert d.signed == "unsigned"
    assert d.capabilities == ["rye.execute.*", "rye.fetch.*"]


def test_malformed_xml_is_a_diagnostic_with_file_and_line() -> None:
    text = '# T\n\n```xml\n<directive name="t">\n  <metadata>\n</directive>\n```\n'
    d, diags = parse_directive(text, "/x/t.md", "t", "project")
    assert d is None
    assert diags[0].path == "/x/t.md" and diags[0].code == "rye-xml"
    assert diags[0].line == 6  # the line of the mismatched closing tag in the file


def test_directive_without_xml_block() -> None:
    d, diags = parse_directive("just prose", "/x/t.md", "t", "project")
    assert d is None and "no ```xml block" in diags[0].message


def test_knowledge_yaml_fence_metadata_and_body() -> None:
    text = (
        "<!-- rye:signed:x:y -->\n```yaml\nname: Env\ntitle: The env\ntags: [a, b]\n```\n\nBody.\n"
    )
    k, diags = parse_knowledge(text, "/k/Env.md", "core/Env", "system")
    assert diags == []
    assert k.metadata["title"] == "The env" and k.metadata["tags"] == ["a", "b"]
    assert k.name == "Env" and k.body == "Body." and k.signed == "signed (unverified)"


def test_knowledge_frontmatter_accepted_with_warning() -> None:
    k, diags = parse_knowledge("---\nname: R\n---\nRules.\n", "/k/r.md", "r", "project")
    assert k.metadata["name"] == "R" and k.body == "Rules."
    assert [d.severity for d in diags] == ["warning"] and diags[0].line == 1


def test_knowledge_broken_yaml_metadata_names_file_and_line() -> None:
    text = "```yaml\nname: ok\ntitle: [unclosed\n```\n\nStill usable.\n"
    k, diags = parse_knowledge(text, "/k/b.md", "b", "project")
    assert k.body == "Still usable." and k.metadata == {}
    assert diags[0].severity == "error" and diags[0].path == "/k/b.md"
    assert diags[0].line is not None and diags[0].line >= 3


def test_knowledge_yaml_file_and_name_fallback() -> None:
    k, _ = parse_knowledge("title: T\ncontent: From yaml\n", "/k/x.yaml", "a/b/x", "user")
    assert k.body == "From yaml" and k.name == "x" and k.signed == "unsigned"


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=400))
def test_directive_parser_never_raises(text: str) -> None:
    d, diags = parse_directive(text, "/p.md", "p", "project")
    assert d is not None or diags


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("<>/=\"' \nabcdirectvmx`yaml-:")), max_size=300))
def test_parsers_never_raise_on_markup_soup(text: str) -> None:
    parse_directive("```xml\n" + text + "\n```\n", "/p.md", "p", "project")
    parse_knowledge("```yaml\n" + text + "\n```\n", "/k.md", "k", "project")


def test_knowledge_without_a_metadata_block_is_flagged_as_unsignable() -> None:
    # `rye sign` refuses it ("No metadata found"), and outside dev mode ryeos verifies every
    # item before use: the file is skipped there, and a hook loading it stops the thread.
    k, diags = parse_knowledge("\n\nJust notes.\n", "/k/n.md", "n", "project")
    assert k.body == "Just notes."
    assert [(d.severity, d.code, d.path, d.line) for d in diags] == [
        ("warning", "rye-unsignable", "/k/n.md", 3)
    ]
    assert "RYE_DEV_MODE" in diags[0].message
    _, fenced = parse_knowledge("```yaml\nname: n\n```\nNotes.\n", "/k/n.md", "n", "project")
    assert fenced == []
