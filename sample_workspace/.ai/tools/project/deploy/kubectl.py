__version__ = "1.0.0"
__tool_description__ = "Apply manifests or query resources with kubectl in the deploy namespace"

CONFIG_SCHEMA = {
    "type": "object",
    "properties": {
        "command": {"type": "string", "enum": ["apply", "get", "rollout-status", "describe"]},
        "target": {"type": "string", "description": "Manifest path or resource name"},
        "namespace": {"type": "string", "description": "Kubernetes namespace"},
    },
    "required": ["command", "target"],
}
