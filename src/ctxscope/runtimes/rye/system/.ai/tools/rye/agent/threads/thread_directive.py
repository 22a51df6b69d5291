__tool_description__ = "Stand-in for ryeos's rye/agent/threads/thread_directive"

CONFIG_SCHEMA = {
    "type": "object",
    "properties": {
        "directive_id": {"type": "string"},
        "async": {"type": "string"},
        "inputs": {"type": "string"},
        "model": {"type": "string"},
        "limit_overrides": {"type": "string"},
        "parent_thread_id": {"type": "string"},
        "previous_thread_id": {"type": "string"},
        "resume_messages": {"type": "string"},
    },
    "required": ["directive_id"],
}
