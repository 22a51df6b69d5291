__version__ = "1.0.0"
__tool_description__ = "Install or upgrade a Helm release with a values file"

CONFIG_SCHEMA = {
    "type": "object",
    "properties": {
        "release": {"type": "string", "description": "Release name"},
        "chart": {"type": "string", "description": "Chart path or reference"},
        "values": {"type": "string", "description": "Values file to apply"},
        "wait": {"type": "boolean", "description": "Wait until every resource is ready"},
    },
    "required": ["release", "chart"],
}
