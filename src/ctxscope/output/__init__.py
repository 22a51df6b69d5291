"""Text and markdown renderings of engine results for the CLI and exports."""
