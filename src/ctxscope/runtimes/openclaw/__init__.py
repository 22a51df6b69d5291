"""OpenClaw as its code builds a prompt: config, bootstrap files, session keys, sections,
the tools and skills it adds, exact mode (GoClaw is `runtimes/goclaw`, the profiles
`runtimes/profiles.py`)."""
