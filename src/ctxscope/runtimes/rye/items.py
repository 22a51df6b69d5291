"""Parsing of directive and knowledge files.

Directive: markdown whose first fenced ```xml block holds `<directive ...>`; the body is what
follows that fence. Knowledge: markdown with a leading fenced ```yaml metadata block (or `---`
frontmatter, with a warning), or a YAML file. A first line `<!-- rye:signed:... -->` (or
`# rye:signed:...`) is recorded as a signature; `rye.integrity` checks it as ryeos does.

Parsers never raise on user content: they return `(item or None, diagnostics)`.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from typing import Any, NamedTuple

from ctxscope.core.model import Diagnostic
from ctxscope.core.yamlload import load_yaml, yaml, yaml_diagnostic
from ctxscope.runtimes.rye.threaddata import Directive, KnowledgeItem, Tier

_SIG_RE = re.compile(
    r"^\s*(?:<!--\s*((?:rye|ryeos):signed:[^\n]*?)\s*-->|#\s*((?:rye|ryeos):signed:\S*))\s*$"
)
"""A signature line: `rye:signed:…` (ryeos 0.1) or `ryeos:signed:…` (later releases)."""
_FENCE_RE = re.compile(r"^(`{3,}|~{3,})\s*([\w.+-]*)\s*$")
ACTIONS = ("execute", "fetch", "sign", "search", "load")
ITEM_TYPES = ("tool", "directive", "knowledge")


def universal_newlines(text: str) -> str:
    """`\r\n` and a lone `\r` as `\n`: a Rye item as the runtime reads it (Python's text
    mode)."""
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


def split_signature(text: str) -> tuple[str | None, str]:
    """Return (signature or None, text after any leading signature/marker comment lines)."""
    signature: str | None = None
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        m = _SIG_RE.match(lines[i])
        if m:
            signature = signature or (m.group(1) or m.group(2))
            i += 1
        elif lines[i].strip() == "<!-- rye:unsigned -->":
            i += 1
        else:
            break
    return signature, "\n".join(lines[i:])


def find_fence(lines: list[str], lang: str, start: int = 0) -> tuple[int, int] | None:
    """(open line index, close line index) of the first fenced block in `lang`, or None.

    An unclosed fence runs to the end of the text (close index = len(lines)).
    """
    i = start
    while i < len(lines):
        m = _FENCE_RE.match(lines[i])
        if m:
            marker, info = m.group(1), m.group(2).lower()
            j = i + 1
            while j < len(lines) and not lines[j].strip().startswith(marker[:3]):
                j += 1
            if info == lang:
                return i, j
            i = j + 1
            continue
        i += 1
    return None


def parse_knowledge(
    text: str, path: str, item_id: str, tier: Tier
) -> tuple[KnowledgeItem, list[Diagnostic]]:
    """Parse a knowledge file. Always returns an item (metadata may be empty)."""
    text = universal_newlines(text)
    signature, rest = split_signature(text)
    offset = text.count("\n") - rest.count("\n")
    if path.endswith((".yaml", ".yml")):
        return _yaml_knowledge(rest, path, item_id, tier, signature, offset)
    diags: list[Diagnostic] = []
    lines = rest.split("\n")
    first = next((i for i, ln in enumerate(lines) if ln.strip()), None)
    block = _metadata_block(lines, first, path, offset, diags)
    meta: dict[str, Any] = {}
    if block is None:
        diags.append(
            Diagnostic(
                "warning",
                "no ```yaml metadata block: ryeos cannot sign this knowledge, so outside dev "
                "mode (RYE_DEV_MODE=1) it skips it and a hook that loads it stops the thread; "
                "shown as dev mode injects it",
                path,
                offset + (first or 0) + 1,
                code="rye-unsignable",
            )
        )
        body, frontmatter = rest, False
    else:
        meta = _metadata(block.source, path, block.line, diags)
        body, frontmatter = block.body, block.frontmatter
    item = KnowledgeItem(
        item_id, tier, path, meta, body.strip(), signature, frontmatter=frontmatter
    )
    return item, diags


def _yaml_knowledge(
    rest: str, path: str, item_id: str, tier: Tier, signature: str | None, offset: int
) -> tuple[KnowledgeItem, list[Diagnostic]]:
    """A knowledge item written as a YAML file: its mapping is the metadata, its `content`
    (or `body`) the text."""
    diags: list[Diagnostic] = []
    meta: dict[str, Any] = {}
    body = rest
    data = _yaml(rest, path, "knowledge item", offset, diags)
    if isinstance(data, dict):
        meta = data
        body = str(data.get("content", data.get("body", rest)))
    return KnowledgeItem(item_id, tier, path, meta, body.strip(), signature), diags


class _MetadataBlock(NamedTuple):
    """A knowledge file's leading metadata and the body after it."""

    source: str
    line: int
    """The line before the metadata's first (the offset of its YAML's line numbers)."""
    body: str
    frontmatter: bool
    """Written as `---` frontmatter, not a ```yaml block."""


def _metadata_block(
    lines: list[str], first: int | None, path: str, offset: int, diags: list[Diagnostic]
) -> _MetadataBlock | None:
    """The metadata opening the text at line `first`: a ```yaml block, or `---` frontmatter
    (with a warning); None when neither does."""
    if first is None:
        return None
    if lines[first].strip() == "---":
        end = next((j for j in range(first + 1, len(lines)) if lines[j].strip() == "---"), None)
        if end is None:
            return None
        diags.append(
            Diagnostic(
                "warning",
                "metadata in `---` frontmatter; Rye expects a leading ```yaml block",
                path,
                offset + first + 1,
                code="rye-frontmatter",
            )
        )
        source = "\n".join(lines[first + 1 : end])
        return _MetadataBlock(source, offset + first + 1, "\n".join(lines[end + 1 :]), True)
    if _FENCE_RE.match(lines[first]):
        fence = find_fence(lines, "yaml", first)
        if fence is not None and fence[0] == first:
            source = "\n".join(lines[first + 1 : fence[1]])
            body = "\n".join(lines[fence[1] + 1 :])
            return _MetadataBlock(source, offset + first + 1, body, False)
    return None


def _metadata(source: str, path: str, line: int, diags: list[Diagnostic]) -> dict[str, Any]:
    """The metadata's mapping (empty, with an error, when it is not one)."""
    data = _yaml(source, path, "knowledge metadata", line, diags)
    if isinstance(data, dict):
        return data
    if data is not None:
        diags.append(
            Diagnostic(
                "error", "knowledge metadata is not a mapping", path, line + 1, code="rye-yaml"
            )
        )
    return {}


def _yaml(source: str, path: str, what: str, offset: int, diags: list[Diagnostic]) -> Any:
    """`source` loaded as YAML; None, with an error naming `what` at its line, when it cannot
    be."""
    try:
        return load_yaml(source)
    except yaml.YAMLError as exc:
        diags.append(yaml_diagnostic(exc, path, "rye-yaml", what=what, line_offset=offset))
        return None


def _text(el: ET.Element | None) -> str:
    return (el.text or "").strip() if el is not None else ""


def permissions_to_capabilities(perms: ET.Element | None) -> list[str]:
    """`<execute><tool>rye.file-system.*</tool></execute>` -> `rye.execute.tool.rye.file-system.*`;
    `<execute>*</execute>` -> `rye.execute.*`; `<permissions>*</permissions>` -> `rye.*`."""
    caps: list[str] = []
    if perms is None:
        return caps
    if _text(perms) == "*" and len(perms) == 0:
        return ["rye.*"]
    for action_el in perms:
        action = action_el.tag
        if action not in ACTIONS and action != "acknowledge":
            continue
        if action == "acknowledge":
            continue
        if _text(action_el) == "*":
            caps.append(f"rye.{action}.*")
        for child in action_el:
            value = _text(child)
            if value:
                caps.append(f"rye.{action}.{child.tag}.{value}")
    return list(dict.fromkeys(caps))


def _io_list(el: ET.Element | None, tag: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    if el is None:
        return out
    for child in el.findall(tag):
        entry: dict[str, Any] = dict(child.attrib)
        entry["required"] = str(entry.get("required", "false")).lower() in ("true", "1", "yes")
        entry.setdefault("type", "string")
        entry["description"] = _text(child)
        if entry.get("name"):
            out.append(entry)
    return out


_RYEOS_PERMISSION_TAGS = ("acknowledge", "execute", "fetch", "sign")


def _ryeos_permission_problem(perms: ET.Element | None) -> str | None:
    """ryeos's own parse error for `<permissions>` holding a tag it does not know."""
    if perms is None or (_text(perms) == "*" and len(perms) == 0):
        return None
    for child in perms:
        if child.tag not in _RYEOS_PERMISSION_TAGS:
            return (
                f"Unknown tag <{child.tag}> inside <permissions>. "
                f"Valid tags: {', '.join(_RYEOS_PERMISSION_TAGS)}"
            )
    return None


def _number(value: str) -> Any:
    """An attribute value as ryeos's parser reads a limit: float with a dot, else int, else
    the text."""
    try:
        return float(value) if "." in value else int(value)
    except ValueError:
        return value


def _coerce(value: str) -> Any:
    if value.lower() in ("true", "false"):
        return value.lower() == "true"
    for kind in (int, float):
        try:
            return kind(value)
        except ValueError:
            pass
    return value


def _params(el: ET.Element) -> dict[str, str]:
    return {p.get("name", p.tag): p.text.strip() for p in el if p.tag == "param" and p.text}


def _hooks(el: ET.Element | None) -> list[dict[str, Any]]:
    """Directive-level `<hooks>` as ryeos's markdown/xml parser reads them: each hook's
    attributes, its `<action>` (or several primary actions inside it as `actions`),
    `<condition>` attributes (value coerced), and any other child's text."""
    out: list[dict[str, Any]] = []
    if el is None:
        return out
    for hook in el:
        data: dict[str, Any] = dict(hook.attrib)
        if hook.text and hook.text.strip():
            data["content"] = hook.text.strip()
        for child in hook:
            if child.tag == "action":
                subs: list[dict[str, Any]] = []
                action: dict[str, Any]
                for sub in child:
                    if sub.tag in ("execute", "fetch", "sign"):
                        action = {**sub.attrib, "primary": sub.tag}
                        if params := _params(sub):
                            action["params"] = params
                        subs.append(action)
                if subs:
                    data["actions"] = subs
                else:
                    action = dict(child.attrib)
                    if params := _params(child):
                        action["params"] = params
                    data["action"] = action
            elif child.tag == "condition":
                cond: dict[str, Any] = dict(child.attrib)
                if "value" in cond:
                    cond["value"] = _coerce(cond["value"])
                data["condition"] = cond
            elif child.tag == "inputs":
                data["inputs"] = {i.get("name", i.tag): i.text.strip() for i in child if i.text}
            elif child.text:
                data[child.tag] = child.text.strip()
        out.append(data)
    return out


_PERMISSIONS_RAW = re.compile(r"(<permissions>.*?</permissions>)", re.DOTALL)


def parse_directive(
    text: str, path: str, item_id: str, tier: Tier
) -> tuple[Directive | None, list[Diagnostic]]:
    """Parse a directive file; None (with an error diagnostic) when it cannot be read as one."""
    text = universal_newlines(text)
    signature, rest = split_signature(text)
    offset = text.count("\n") - rest.count("\n")
    lines = rest.split("\n")
    found = _directive_element(lines, path, offset)
    if isinstance(found, Diagnostic):
        return None, [found]
    root, open_i, close_i = found
    diags: list[Diagnostic] = []
    meta = root.find("metadata")
    name = root.get("name", "")
    if name and name != item_id.rsplit("/", 1)[-1]:
        diags.append(
            Diagnostic(
                "warning",
                f"directive name {name!r} differs from its file name",
                path,
                offset + open_i + 2,
                code="rye-name",
            )
        )
    context = _context(meta, path, diags)
    perms_el = meta.find("permissions") if meta is not None else None
    perms_xml = _permissions_xml(perms_el)
    extends = root.get("extends") or None
    return Directive(
        id=item_id,
        tier=tier,
        path=path,
        name=name or item_id.rsplit("/", 1)[-1],
        version=root.get("version", ""),
        extends=extends.strip() if extends else None,
        description=_text(meta.find("description")) if meta is not None else "",
        category=_text(meta.find("category")) if meta is not None else "",
        model=_model(meta),
        capabilities=permissions_to_capabilities(perms_el),
        permissions_xml=perms_xml,
        context=context,
        inputs=_io_list(_io_element(root, meta, "inputs"), "input"),
        outputs=_io_list(_io_element(root, meta, "outputs"), "output"),
        body="\n".join(lines[close_i + 1 :]).strip(),
        signature=signature,
        permissions_raw=m.group(1) if (m := _PERMISSIONS_RAW.search(text)) else "",
        acknowledged=[
            str(a.get("risk"))
            for a in (perms_el if perms_el is not None else [])
            if a.tag == "acknowledge" and a.get("risk")
        ],
        limits=_limits(meta),
        hooks=_hooks(meta.find("hooks") if meta is not None else None),
        ryeos_parse_error=_ryeos_permission_problem(perms_el),
    ), diags


def _directive_element(
    lines: list[str], path: str, offset: int
) -> tuple[ET.Element, int, int] | Diagnostic:
    """The `<directive>` element of the first ```xml block, with the block's opening and
    closing line indexes; else the error saying why there is none."""
    fence = find_fence(lines, "xml")
    if fence is None:
        return Diagnostic("error", "directive has no ```xml block", path, code="rye-directive")
    open_i, close_i = fence
    xml_src = "\n".join(lines[open_i + 1 : close_i])
    try:
        root = ET.fromstring(xml_src)
    except ET.ParseError as exc:
        line, col = exc.position
        msg = str(exc).split(":")[0]
        return Diagnostic(
            "error",
            f"malformed XML in directive ({msg})",
            path,
            offset + open_i + 1 + line,
            col + 1,
            code="rye-xml",
        )
    if root.tag != "directive":
        return Diagnostic(
            "error",
            f"root element is <{root.tag}>, expected <directive>",
            path,
            offset + open_i + 2,
            code="rye-directive",
        )
    return root, open_i, close_i


def _context(meta: ET.Element | None, path: str, diags: list[Diagnostic]) -> dict[str, list[str]]:
    """The knowledge ids `<context>` names by position (each once), and `<suppress>`."""
    context: dict[str, list[str]] = {"system": [], "before": [], "after": [], "suppress": []}
    ctx_el = meta.find("context") if meta is not None else None
    if ctx_el is None:
        return context
    for child in ctx_el:
        value = _text(child)
        if child.tag in context and value:
            if value not in context[child.tag]:
                context[child.tag].append(value)
        elif child.tag not in context:
            diags.append(
                Diagnostic(
                    "warning",
                    f"unknown <context> entry <{child.tag}>",
                    path,
                    code="rye-context",
                )
            )
    return context


def _model(meta: ET.Element | None) -> str:
    """The directive's `<model>`: its `id`, else its `tier`, else its text."""
    model_el = meta.find("model") if meta is not None else None
    if model_el is None:
        return ""
    return model_el.get("id") or model_el.get("tier") or _text(model_el)


def _permissions_xml(perms: ET.Element | None) -> str:
    """`<permissions>` written back as indented XML (the element is indented in place)."""
    if perms is None:
        return ""
    perms.tail = None
    ET.indent(perms, space="  ")
    return ET.tostring(perms, encoding="unicode").strip()


def _io_element(root: ET.Element, meta: ET.Element | None, tag: str) -> ET.Element | None:
    """`<inputs>` or `<outputs>`: under `<directive>`, else under `<metadata>`."""
    el = root.find(tag)
    if el is None and meta is not None:
        el = meta.find(tag)
    return el


def _limits(meta: ET.Element | None) -> dict[str, Any]:
    """The attributes of `<limits>`, numbers read as ryeos reads them."""
    limits_el = meta.find("limits") if meta is not None else None
    return {k: _number(v) for k, v in (limits_el.attrib.items() if limits_el is not None else [])}
