__version__ = "1.0.0"
__tool_description__ = "Apply pending database migrations"

CONFIG_SCHEMA = {
    "type": "object",
    "properties": {
        "database": {"type": "string", "description": "Database alias"},
        "dry_run": {"type": "boolean", "description": "Only print the plan"},
    },
    "required": ["database"],
}
