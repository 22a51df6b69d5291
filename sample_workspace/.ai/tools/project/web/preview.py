__version__ = "1.0.0"
__tool_description__ = "Serve a build locally and return its address"

CONFIG_SCHEMA = {
    "type": "object",
    "properties": {"path": {"type": "string", "description": "Build folder"}},
    "required": ["path"],
}
