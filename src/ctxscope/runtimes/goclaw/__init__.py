"""GoClaw (github.com/roelfdiedericks/goclaw) as its code builds a session's system prompt.

`users` reads GoClaw's config and users (roles, memory access, role prompts) and picks the
user a session key belongs to; `workspace` loads the context files as GoClaw does; `skills`
lists the skills block; `prompt` assembles the sections in the builder's order; `session`
builds a `Session` from `Inputs`, and the spawn view that says GoClaw does not spawn.
"""
