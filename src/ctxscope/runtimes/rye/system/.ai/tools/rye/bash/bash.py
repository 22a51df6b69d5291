__tool_description__ = "Stand-in for ryeos's rye/bash/bash"

CONFIG_SCHEMA = {
    "type": "object",
    "properties": {
        "command": {"type": "string"},
        "timeout": {"type": "string"},
        "working_dir": {"type": "string"},
    },
    "required": ["command"],
}
