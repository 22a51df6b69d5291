__tool_description__ = "Stand-in for ryeos's rye/core/processes/steps"

CONFIG_SCHEMA = {
    "type": "object",
    "properties": {"run_id": {"type": "string"}},
    "required": ["run_id"],
}
