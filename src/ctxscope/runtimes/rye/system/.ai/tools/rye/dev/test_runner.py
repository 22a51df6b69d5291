__tool_description__ = "Stand-in for ryeos's rye/dev/test_runner"

CONFIG_SCHEMA = {
    "type": "object",
    "properties": {
        "tool": {"type": "string"},
        "spec": {"type": "string"},
        "include_tags": {"type": "string"},
        "exclude_tags": {"type": "string"},
        "validate_only": {"type": "string"},
    },
    "required": [],
}
