__tool_description__ = "Stand-in for ryeos's rye/agent/threads/internal/limit_checker"

CONFIG_SCHEMA = {
    "type": "object",
    "properties": {
        "limit_type": {"type": "string"},
        "current_value": {"type": "string"},
        "max_value": {"type": "string"},
    },
    "required": ["limit_type", "current_value", "max_value"],
}
