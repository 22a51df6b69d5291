__version__ = "1.0.0"
__category__ = "rye/file-system"
__tool_description__ = "Read a text file, optionally a range of lines"

CONFIG_SCHEMA = {
    "type": "object",
    "properties": {
        "path": {"type": "string", "description": "File to read"},
        "offset": {"type": "integer", "description": "First line (1-based)"},
        "limit": {"type": "integer", "description": "How many lines"},
    },
    "required": ["path"],
}
