__version__ = "1.0.0"
__tool_description__ = "Roll a deployment back to its previous ReplicaSet"

CONFIG_SCHEMA = {
    "type": "object",
    "properties": {
        "deployment": {"type": "string", "description": "Deployment name"},
        "revision": {"type": "integer", "description": "Revision to return to (default: previous)"},
    },
    "required": ["deployment"],
}
