__tool_description__ = "Stand-in for ryeos's rye/file-system/ls"

CONFIG_SCHEMA = {"type": "object", "properties": {"path": {"type": "string"}}, "required": []}
