__tool_description__ = "Stand-in for ryeos's rye/core/processes/list"

CONFIG_SCHEMA = {"type": "object", "properties": {"status": {"type": "string"}}, "required": []}
