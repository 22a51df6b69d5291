"""What would give a GoClaw session a file its own rules left out: GoClaw excludes by rules of
its own (the user's role), not by a profile's allowlists."""

from __future__ import annotations

from ctxscope.core.model import FileEntry, Session


def exclusion_remedies(session: Session, entry: FileEntry) -> list[str]:
    """Ways to get the excluded `entry` into `session` (a requester's: GoClaw spawns none)."""
    if entry.name == "MEMORY.md":
        return [
            'Give the user\'s role `"memory": "full"` in goclaw.json `roles`, or run the '
            "session as the owner."
        ]
    return []
