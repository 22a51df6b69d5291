"""Ask an installed ryeos what a thread is told: run its own thread_directive.execute() on a
project and stop at the first model call. Prints one JSON line: the system prompt, the
messages, the tool definitions, the transcript events and the capabilities it resolved.

Run with the ryeos venv's interpreter: `python oracle.py PROJECT DIRECTIVE INPUTS_JSON`.
Signatures are checked as ryeos checks them: the directive first, as `rye execute` does before
it runs one, then every item the thread loads; `RYE_DEV_MODE=1` in the environment is ryeos's
dev mode (items load unchecked).
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any, ClassVar


class ModelCalled(BaseException):
    """Raised at the model call: everything the model would see has been assembled."""


def main() -> None:
    project, directive = sys.argv[1], sys.argv[2]
    inputs = json.loads(sys.argv[3]) if len(sys.argv) > 3 else {}
    import ryeos_core
    import ryeos_std

    sys.path.insert(
        0, str(Path(ryeos_core.__file__).parent / ".ai/tools/rye/core/runtimes/python/lib")
    )
    from module_loader import load_module

    threads = Path(ryeos_std.__file__).parent / ".ai/tools/rye/agent/threads"
    td = load_module(threads / "thread_directive.py")
    out: dict[str, Any] = {"events": []}

    resolver = load_module("adapters/provider_resolver", anchor=threads)
    resolver.resolve_provider = lambda model, project_path=None, provider=None: (
        model,
        "oracle",
        {"tool_type": "http"},
    )

    class Provider:
        supports_streaming = False
        tool_use_mode = "native"
        config: ClassVar[dict[str, Any]] = {}

        def __init__(self, model: str, **_: Any) -> None:
            self.model = model

        async def create_completion(
            self,
            messages: list[dict[str, Any]],
            tools: list[dict[str, Any]],
            system_prompt: str = "",
        ) -> None:
            out["system_prompt"] = system_prompt
            out["messages"] = messages
            out["tools"] = [
                {
                    "name": t["name"],
                    "description": t.get("description", ""),
                    "schema": t.get("schema"),
                    "item_id": t.get("_item_id"),
                    "size": len(str(t.get("schema", {}))) + len(t.get("description", "")),
                }
                for t in tools
            ]
            raise ModelCalled

    load_module("adapters/http_provider", anchor=threads).HttpProvider = Provider
    emitter = load_module("events/event_emitter", anchor=threads).EventEmitter
    emit = emitter.emit

    def record(self: Any, thread_id: str, event: str, payload: Any, *rest: Any, **kw: Any) -> Any:
        if event in ("system_prompt", "context_injected"):
            out["events"].append({"event": event, **payload})
        return emit(self, thread_id, event, payload, *rest, **kw)

    emitter.emit = record
    schemas = load_module("loaders/tool_schema_loader", anchor=threads)
    preload = schemas.preload_tool_schemas
    # ryeos takes tool file types in a set's iteration order, which changes with the hash
    # seed of each run; pin the order ctxscope documents (.py, .yaml, .yml, then the rest).
    extensions = schemas.get_tool_extensions
    first = [".py", ".yaml", ".yml"]
    schemas.get_tool_extensions = lambda *a, **k: (
        first + sorted(set(extensions(*a, **k)) - set(first))
    )

    def capture(capabilities: list[str], *args: Any, **kw: Any) -> Any:
        out["capabilities"] = list(capabilities)
        return preload(capabilities, *args, **kw)

    schemas.preload_tool_schemas = capture
    chain = td._resolve_directive_chain

    async def capture_chain(*args: Any) -> Any:
        result = await chain(*args)
        out["chain"] = result["chain"]
        return result

    td._resolve_directive_chain = capture_chain
    from rye.actions.execute import ExecuteTool
    from rye.utils.resolvers import get_user_space

    try:  # what `rye execute directive:…` checks before it starts the thread
        ExecuteTool(user_space=str(get_user_space()))._resolve_executable_ref(
            project, f"directive:{directive}"
        )
        out["result"] = asyncio.run(
            td.execute({"directive_id": directive, "inputs": inputs}, project)
        )
    except ModelCalled:
        pass
    except Exception as exc:  # the runtime's own failure is part of the answer
        out["exception"] = f"{type(exc).__name__}: {exc}"
    print(json.dumps(out, default=str))


main()
