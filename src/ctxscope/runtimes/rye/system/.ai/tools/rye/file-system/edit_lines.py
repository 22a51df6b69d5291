__tool_description__ = "Stand-in for ryeos's rye/file-system/edit_lines"

CONFIG_SCHEMA = {
    "type": "object",
    "properties": {"path": {"type": "string"}, "changes": {"type": "string"}},
    "required": ["path", "changes"],
}
