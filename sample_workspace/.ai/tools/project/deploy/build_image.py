__version__ = "1.0.0"
__tool_description__ = "Build the container image for a git ref and push it to the registry"

CONFIG_SCHEMA = {
    "type": "object",
    "properties": {
        "ref": {"type": "string", "description": "Git ref to build"},
        "tag": {"type": "string", "description": "Image tag (default: short commit hash)"},
        "push": {"type": "boolean", "description": "Push after building"},
        "platforms": {"type": "array", "items": {"type": "string"}, "description": "Target platforms"},
    },
    "required": ["ref"],
}
