"""Measure the sizes ryeos gives its own bundled items, for ctxscope's stand-in system tier.

Run with the Python of an environment where ryeos is installed:

    PATH=VENV/bin:$PATH VENV/bin/python benchmarks/measure_ryeos.py \
        > src/ctxscope/runtimes/rye/system/measured.json

(ryeos runs its knowledge executor in a subprocess: its venv's `bin` must be on PATH.) Only
the knowledge items the stand-in space stands in for are listed.

Every number comes from ryeos's own code: each bundled tool's metadata from
`tool_schema_loader._extract_tool_metadata` (the parser ryeos registers tools with), the
primaries from `thread_directive._build_primary_actions`, each knowledge item's body from the
knowledge executor. Only facts are written (ids, file types, sizes, parameter names): no text
of ryeos's.

`benchmarks/measure_ryeos.py --stand-in` (any Python) then writes, into the stand-in space, a
file in ctxscope's own words for each measured tool it lacks (same id and file type, the
measured parameter names), so a grant finds the same tools with or without ryeos.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any


def main() -> None:
    os.environ["RYE_DEV_MODE"] = "1"
    from importlib.metadata import version

    import ryeos_core
    import ryeos_std

    sys.path.insert(
        0, str(Path(ryeos_core.__file__).parent / ".ai/tools/rye/core/runtimes/python/lib")
    )
    from module_loader import load_module  # type: ignore[import-not-found]
    from rye.utils.extensions import get_parsers_map, get_tool_extensions
    from rye.utils.parser_router import ParserRouter

    threads = Path(ryeos_std.__file__).parent / ".ai/tools/rye/agent/threads"
    schemas = load_module("loaders/tool_schema_loader", anchor=threads)
    td = load_module(threads / "thread_directive.py")
    bundles = [Path(ryeos_std.__file__).parent / ".ai", Path(ryeos_core.__file__).parent / ".ai"]
    router = ParserRouter(None)
    parsers = get_parsers_map(None)
    exts = sorted(get_tool_extensions(None))

    def size(schema: Any, description: str) -> dict[str, Any]:
        return {
            "schema_repr": len(str(schema)),
            "schema_json": len(json.dumps(schema)),
            "description": len(description),
            "params": list((schema.get("properties") or {}) if isinstance(schema, dict) else []),
            "required": list(schema.get("required") or []) if isinstance(schema, dict) else [],
        }

    tools: dict[str, Any] = {}
    for ai in bundles:
        root = ai / "tools"
        for path in sorted(root.rglob("*")):
            if path.suffix not in exts or not path.is_file() or "__pycache__" in path.parts:
                continue
            tool_id = str(path.relative_to(root).with_suffix(""))
            meta = schemas._extract_tool_metadata(path, router, parsers)
            if meta is None or tool_id in tools:
                continue
            tools[tool_id] = {
                "ext": path.suffix,
                "bundle": ai.parent.name,
                **size(meta["schema"], meta.get("description", "")),
            }
    primaries = {}
    for t in td._build_primary_actions():
        primaries[t["name"].removeprefix("rye_")] = {
            "id": t["_item_id"],
            **size(t["schema"], t.get("description", "")),
        }
    import asyncio

    from rye.actions.execute import ExecuteTool

    stand_in = (
        Path(__file__).resolve().parents[1] / "src/ctxscope/runtimes/rye/system/.ai/knowledge"
    )
    wanted = {str(p.relative_to(stand_in).with_suffix("")) for p in stand_in.rglob("*.md")}
    knowledge: dict[str, Any] = {}
    exec_tool = ExecuteTool(user_space=str(Path.home()))
    for ai in bundles:
        root = ai / "knowledge"
        for path in sorted(root.rglob("*.md")):
            kid = str(path.relative_to(root).with_suffix(""))
            if kid not in wanted:
                continue
            res = asyncio.run(exec_tool.handle(item_id=f"knowledge:{kid}", project_path="/"))
            if res.get("status") == "success":
                knowledge.setdefault(kid, {"body": len((res.get("content") or "").strip())})
    print(
        json.dumps(
            {
                "ryeos": version("ryeos"),
                "measured_by": "benchmarks/measure_ryeos.py",
                "tool_extensions": exts,
                "primaries": primaries,
                "tools": tools,
                "knowledge": knowledge,
            },
            indent=1,
            sort_keys=True,
        )
    )


SPACE = Path(__file__).resolve().parents[1] / "src/ctxscope/runtimes/rye/system"


def write_stand_ins() -> None:
    facts = json.loads((SPACE / "measured.json").read_text(encoding="utf-8"))
    tools = SPACE / ".ai" / "tools"
    for tool_id, fact in sorted(facts["tools"].items()):
        path = tools / f"{tool_id}{fact['ext']}"
        if any((tools / f"{tool_id}{ext}").exists() for ext in (".py", ".yaml", ".yml")):
            continue
        schema = {
            "type": "object",
            "properties": {p: {"type": "string"} for p in fact["params"]},
            "required": fact["required"],
        }
        desc = f"Stand-in for ryeos's {tool_id}"
        path.parent.mkdir(parents=True, exist_ok=True)
        if fact["ext"] == ".py":
            text = f"__tool_description__ = {desc!r}\n\nCONFIG_SCHEMA = {schema!r}\n"
        else:
            text = f"description: {json.dumps(desc)}\nconfig_schema: {json.dumps(schema)}\n"
        path.write_text(text, encoding="utf-8")
        print(path.relative_to(SPACE))


if "--stand-in" in sys.argv:
    write_stand_ins()
else:
    main()
