"""The OpenClaw/GoClaw prompt engine: bootstrap files, sessions, sections, profiles."""
