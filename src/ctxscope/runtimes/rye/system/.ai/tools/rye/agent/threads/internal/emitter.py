__tool_description__ = "Stand-in for ryeos's rye/agent/threads/internal/emitter"

CONFIG_SCHEMA = {
    "type": "object",
    "properties": {
        "event_type": {"type": "string"},
        "payload": {"type": "string"},
        "thread_id": {"type": "string"},
    },
    "required": ["event_type", "thread_id"],
}
