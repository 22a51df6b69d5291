"""Compare anything with anything: two git revisions of the workspace, two runtime profiles,
two configs, two scenario files, a run OpenClaw recorded, or any of these with the workspace
as it is now.

    >>> from ctxscope.diff import compare_specs
    >>> result = compare_specs("sample_workspace", "openclaw-2026.2", "openclaw-2026.9")
    >>> [s.session_key for s in result.sessions][:2]
    ['agent:main:main', 'agent:coder:main']

Each side is built with the ordinary engine (`load_inputs`, `session_for`, `simulate_spawn`,
the Rye thread); nothing here writes to the workspace or its repository.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from ctxscope.core.tokens import ESTIMATE, Tokenizer
from ctxscope.diff.build import SideBuild, build_side
from ctxscope.diff.compare import Comparison, SessionDiff, compare
from ctxscope.diff.sides import (
    RESOLVERS,
    Base,
    SideError,
    SideSource,
    materialise,
    opened,
    parse_side,
    release,
)
from ctxscope.inputs import resolve_workspace

__all__ = [
    "RESOLVERS",
    "Base",
    "Comparison",
    "SessionDiff",
    "SideBuild",
    "SideError",
    "SideSource",
    "build_side",
    "compare",
    "compare_specs",
    "materialise",
    "opened",
    "parse_side",
    "release",
]


def compare_specs(
    workspace: str | os.PathLike[str],
    before: str,
    after: str = "now",
    *,
    config: str | None = None,
    overrides: dict[str, Any] | None = None,
    session_key: str | None = None,
    tokenizer: Tokenizer = ESTIMATE,
    user_space: Path | None = None,
    state: str | os.PathLike[str] | None = None,
) -> Comparison:
    """Build both sides and compare them. Raises `SideError` for a spec that names no side
    or a side that cannot be read, and what `load_inputs` raises for unusable input.

    A recorded run's side (`run:KEY`, read from the state folder `state`, else as
    `ctxscope runs` finds it) holds one session: the other side builds that one
    (`session_key` defaults to the run's key)."""
    base = Base(
        resolve_workspace(workspace),
        config,
        dict(overrides or {}),
        os.fspath(state) if state is not None else None,
    )
    sides = [parse_side(before, base), parse_side(after, base)]
    session_key = one_session(sides, session_key)
    # Both revisions are written at once, and each copy is removed while the other side
    # builds: the file system's work overlaps the building.
    with ThreadPoolExecutor(max_workers=2, thread_name_prefix="diff-side") as pool:
        ready = [pool.submit(materialise, side) for side in sides]
        released: list[object] = []
        try:
            builds = []
            for job in ready:
                side = job.result()
                builds.append(
                    build_side(
                        side, session_key=session_key, tokenizer=tokenizer, user_space=user_space
                    )
                )
                pool.submit(release, side)
                released.append(job)
        finally:
            for job in ready:
                if job not in released and job.exception() is None:
                    pool.submit(release, job.result())
    return compare(builds[0], builds[1])


def one_session(sides: list[SideSource], session_key: str | None) -> str | None:
    """The session to compare: `session_key`, else the one a recorded run's side holds.
    SideError when `session_key` names another than a run's."""
    held = [side for side in sides if side.session_key is not None]
    for side in held:
        key = side.session_key or ""
        if session_key is not None and session_key.strip().lower() != key.lower():
            raise SideError(
                f"--session {session_key}: the side {side.spec} is the recorded session {key} "
                "only; compare that key (or leave --session out)"
            )
    return session_key if session_key is not None or not held else held[0].session_key
