__tool_description__ = "Stand-in for ryeos's rye/agent/threads/internal/control"

CONFIG_SCHEMA = {
    "type": "object",
    "properties": {
        "action": {"type": "string"},
        "error": {"type": "string"},
        "limit_type": {"type": "string"},
        "current_value": {"type": "string"},
        "suspend_reason": {"type": "string"},
    },
    "required": ["action"],
}
