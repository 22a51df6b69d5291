"""Text of the first user message: knowledge wrapping, input interpolation, directive prompt."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ctxscope.core.model import Diagnostic, Severity
from ctxscope.core.secrets import env_mark
from ctxscope.runtimes.rye.threaddata import Directive, KnowledgeItem

_TAG_BAD = re.compile(r"[^A-Za-z0-9_.-]")
_INPUT_RE = re.compile(r"\{input:([A-Za-z0-9_.-]+)(\?)?\}")


def tag_name(item: KnowledgeItem) -> str:
    """The XML tag for a wrapped item: its `name`, else its last path segment; characters not
    allowed in an XML name become `_`."""
    name = _TAG_BAD.sub("_", item.name) or "Knowledge"
    return name if re.match(r"[A-Za-z_]", name) else f"_{name}"


def wrap(item: KnowledgeItem) -> str:
    tag = tag_name(item)
    return f'<{tag} id="{item.id}" type="knowledge">\n{item.body}\n</{tag}>'


def resolve_inputs(
    directive: Directive, given: dict[str, str], severity: Severity = "warning"
) -> tuple[dict[str, Any], list[Diagnostic]]:
    """Given inputs plus declared defaults; a missing required or undeclared input is a
    `severity` diagnostic (an error where the runtime refuses the thread for it)."""
    values: dict[str, Any] = dict(given)
    diags: list[Diagnostic] = []
    declared = {str(i["name"]) for i in directive.inputs}
    for spec in directive.inputs:
        name = str(spec["name"])
        if name in values:
            continue
        if "default" in spec:
            values[name] = spec["default"]
        elif spec.get("required"):
            diags.append(
                Diagnostic(
                    severity,
                    f"required input {name!r} not given (use --input {name}=VALUE)",
                    directive.path,
                    code="rye-input",
                )
            )
    for name in given:
        if declared and name not in declared:
            diags.append(
                Diagnostic(
                    severity,
                    f"input {name!r} is not declared by the directive",
                    directive.path,
                    code="rye-input",
                )
            )
    return values, diags


def interpolate(text: str, values: dict[str, Any]) -> str:
    """Replace `{input:name}` with the input's value; unknown names are left as written,
    `{input:name?}` (optional) becomes empty."""

    def sub(m: re.Match[str]) -> str:
        if m.group(1) in values:
            return str(values[m.group(1)])
        return "" if m.group(2) else m.group(0)

    return _INPUT_RE.sub(sub, text)


INPUT_REF = re.compile(r"\{input:(\w+)(\?|[:|][^}]*)?\}")
"""ryeos's `{input:x}`, `{input:x?}`, `{input:x:default}` and `{input:x|default}`."""
_DOLLAR_INPUT = re.compile(r"\$\{inputs\.(\w+)\}")
_ENV = re.compile(r"\{env:(\w+)(?::([^}]*))?\}")


def fill_input_refs(text: str, values: dict[str, Any]) -> str:
    """`text` with its `INPUT_REF`s filled as ryeos fills them: the value when given, else
    empty for `?`, else the default after `:` or `|`, else the reference as written."""

    def ref(m: re.Match[str]) -> str:
        key, modifier = m.group(1), m.group(2)
        if key in values:
            return str(values[key])
        if modifier == "?":
            return ""
        if modifier and modifier[0] in ":|":
            return modifier[1:]
        return m.group(0)

    return INPUT_REF.sub(ref, text)


def interpolate_ryeos(text: str, values: dict[str, Any], env: Mapping[str, str]) -> str:
    """The body as ryeos's inputs/interpolate processor fills it: `{env:VAR}` and
    `{env:VAR:default}` first, then `{input:x}`, `{input:x?}` (empty when absent),
    `{input:x:default}` / `{input:x|default}`, then `${inputs.x}`; a placeholder with no
    value and no default stays as written. A variable set in `env` (the environment the
    thread is built in) is shown masked as `⟨$VAR⟩` (ryeos sends its value)."""

    def variable(m: re.Match[str]) -> str:
        if env.get(m.group(1)) is not None:
            return env_mark(m.group(1))
        return m.group(2) if m.group(2) is not None else m.group(0)

    result = fill_input_refs(_ENV.sub(variable, text), values)
    return _DOLLAR_INPUT.sub(
        lambda m: str(values[m.group(1)]) if m.group(1) in values else m.group(0), result
    )


def directive_prompt(
    directive: Directive,
    values: dict[str, Any],
    raw_permissions: bool,
    outputs_wording: tuple[str, str] | None = None,
    ryeos_placeholders: bool = False,
    env: Mapping[str, str] | None = None,
) -> str:
    """The directive's own block: name + description, permissions (as written in the file
    when `raw_permissions`, as ryeos does; else re-indented), body, outputs. With
    `outputs_wording` (ryeos) the outputs instruction is that text around ryeos's field
    lines (`"name": "<description (type) [required]>"`, one per line). `env`: the
    environment ryeos's `{env:NAME}` placeholders are filled from (`ryeos_placeholders`)."""
    parts: list[str] = []
    if directive.description:
        parts.append(
            f'<directive name="{directive.name}">\n'
            f"<description>{directive.description}</description>"
        )
    else:
        parts.append(f'<directive name="{directive.name}">')
    permissions = directive.permissions_raw if raw_permissions else directive.permissions_xml
    if permissions:
        parts.append(permissions)
    if directive.body:
        if ryeos_placeholders:
            parts.append(interpolate_ryeos(directive.body, values, env or {}))
        else:
            parts.append(interpolate(directive.body, values))
    if directive.outputs and outputs_wording is not None:
        lines = []
        for o in directive.outputs:
            otype = o.get("type") or "string"
            label = f"{o['description']} ({otype})" if o.get("description") else otype
            if o.get("required"):
                label += " [required]"
            lines.append(f'  "{o["name"]}": "<{label or o["name"]}>"')
        parts.append(outputs_wording[0] + "\n".join(lines) + outputs_wording[1])
    elif directive.outputs:
        fields = []
        for o in directive.outputs:
            label = o.get("description") or o.get("type", "string")
            if o.get("required"):
                label += " [required]"
            fields.append(f'  "{o["name"]}": "<{label}>"')
        parts.append(
            "When every step is done, call the `directive_return` tool (as a tool call, not "
            "as text) with:\n{\n" + ",\n".join(fields) + "\n}\n"
            "If you cannot finish, call it with `status` set to `error` and an "
            "`error_detail` saying what is missing."
        )
    parts.append("</directive>")
    return "\n".join(parts)
