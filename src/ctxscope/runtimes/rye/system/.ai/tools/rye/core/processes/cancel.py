__tool_description__ = "Stand-in for ryeos's rye/core/processes/cancel"

CONFIG_SCHEMA = {
    "type": "object",
    "properties": {"run_id": {"type": "string"}, "grace": {"type": "string"}},
    "required": ["run_id"],
}
