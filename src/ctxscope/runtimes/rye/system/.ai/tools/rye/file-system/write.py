__version__ = "1.0.0"
__category__ = "rye/file-system"
__tool_description__ = "Create or overwrite a text file"

CONFIG_SCHEMA = {
    "type": "object",
    "properties": {
        "path": {"type": "string", "description": "File to write"},
        "content": {"type": "string", "description": "The new content"},
    },
    "required": ["path", "content"],
}
