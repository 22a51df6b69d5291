__tool_description__ = "Stand-in for ryeos's rye/agent/threads/orchestrator"

CONFIG_SCHEMA = {
    "type": "object",
    "properties": {
        "operation": {"type": "string"},
        "thread_ids": {"type": "string"},
        "thread_id": {"type": "string"},
        "timeout": {"type": "string"},
        "query": {"type": "string"},
        "search_type": {"type": "string"},
        "max_results": {"type": "string"},
        "tail_lines": {"type": "string"},
        "message": {"type": "string"},
    },
    "required": ["operation"],
}
