__tool_description__ = "Stand-in for ryeos's rye/core/keys/keys"

CONFIG_SCHEMA = {
    "type": "object",
    "properties": {
        "action": {"type": "string"},
        "space": {"type": "string"},
        "owner": {"type": "string"},
        "fingerprint": {"type": "string"},
        "force": {"type": "string"},
        "env_var": {"type": "string"},
        "auto_trust": {"type": "string"},
        "version": {"type": "string"},
    },
    "required": ["action"],
}
