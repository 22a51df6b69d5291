__tool_description__ = "Stand-in for ryeos's rye/core/identity/identity"

CONFIG_SCHEMA = {
    "type": "object",
    "properties": {"action": {"type": "string"}, "force": {"type": "string"}},
    "required": ["action"],
}
