__tool_description__ = "Stand-in for ryeos's rye/core/keys/node_keys"

CONFIG_SCHEMA = {
    "type": "object",
    "properties": {
        "action": {"type": "string"},
        "public_key_pem": {"type": "string"},
        "label": {"type": "string"},
        "scopes": {"type": "string"},
        "fingerprint": {"type": "string"},
        "force": {"type": "string"},
    },
    "required": ["action"],
}
