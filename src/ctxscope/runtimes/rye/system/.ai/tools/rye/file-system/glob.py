__version__ = "1.0.0"
__category__ = "rye/file-system"
__tool_description__ = "List files whose paths match a glob pattern"

CONFIG_SCHEMA = {
    "type": "object",
    "properties": {"pattern": {"type": "string", "description": "Glob such as src/**/*.py"}},
    "required": ["pattern"],
}
