__tool_description__ = "Stand-in for ryeos's rye/agent/threads/internal/budget_ops"

CONFIG_SCHEMA = {
    "type": "object",
    "properties": {
        "operation": {"type": "string"},
        "thread_id": {"type": "string"},
        "parent_thread_id": {"type": "string"},
        "amount": {"type": "string"},
        "final_status": {"type": "string"},
    },
    "required": ["operation", "thread_id"],
}
