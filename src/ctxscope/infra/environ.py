"""The process's environment as a build reads it: copied once, read-only (`process_env`).

A build decides with the copy its inputs hold (`Inputs.env`), never with `os.environ` read on
the way: `${NAME}` in the config, the variables a skill requires, the host's time zone and
shell, OpenClaw's state folder, Rye's dev mode, system space and `{env:NAME}` placeholders.
What starts a process or finds a user folder (`infra.paths`, `infra.processes`, the script
runner, git, the exact-mode helper) reads the environment where it acts.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from types import MappingProxyType


def process_env(environ: Mapping[str, str] | None = None) -> Mapping[str, str]:
    """`environ` (this process's environment by default) copied, read-only."""
    return MappingProxyType(dict(os.environ if environ is None else environ))
