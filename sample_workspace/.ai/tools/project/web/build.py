__version__ = "1.0.0"
__tool_description__ = "Build the static site for one locale"

CONFIG_SCHEMA = {
    "type": "object",
    "properties": {
        "locale": {"type": "string", "description": "Locale code such as en or de"},
        "minify": {"type": "boolean", "description": "Minify assets"},
    },
    "required": ["locale"],
}
