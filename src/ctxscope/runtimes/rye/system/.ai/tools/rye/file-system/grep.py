__version__ = "1.0.0"
__category__ = "rye/file-system"
__tool_description__ = "Search file contents for a regular expression"

CONFIG_SCHEMA = {
    "type": "object",
    "properties": {
        "pattern": {"type": "string", "description": "Regular expression"},
        "path": {"type": "string", "description": "Folder or file to search"},
    },
    "required": ["pattern"],
}
