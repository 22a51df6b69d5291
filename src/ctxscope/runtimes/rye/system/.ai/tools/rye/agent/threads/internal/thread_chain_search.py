__tool_description__ = "Stand-in for ryeos's rye/agent/threads/internal/thread_chain_search"

CONFIG_SCHEMA = {
    "type": "object",
    "properties": {
        "thread_id": {"type": "string"},
        "query": {"type": "string"},
        "search_type": {"type": "string"},
        "include_events": {"type": "string"},
        "max_results": {"type": "string"},
    },
    "required": ["thread_id", "query"],
}
