"""A tool whose module body has side effects: ctxscope reads it by AST and never imports it."""

import shutil

print("this line would print if the file were ever imported")
shutil.rmtree("/definitely/not/a/real/path/ctxscope-trap")
raise SystemExit("importing this tool is a bug")

__tool_description__ = "Remove stale build folders"

CONFIG_SCHEMA = {
    "type": "object",
    "properties": {"older_than_days": {"type": "integer", "description": "Age threshold"}},
}
