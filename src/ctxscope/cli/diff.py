"""`ctxscope diff [WORKSPACE] --from SPEC --to SPEC`: what changes for every session between
two sides (git revisions, profiles, config files, scenario files, recorded runs, the
workspace now)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import TYPE_CHECKING

from ctxscope.cli.common import (
    UsageError,
    add_format,
    add_scenario,
    add_show_env,
    add_workspace,
    scenario_overrides,
    write,
)
from ctxscope.infra.paths import env_user_space

if TYPE_CHECKING:
    from ctxscope.diff import Comparison

SPEC_HELP = (
    "now (the workspace as it is), a git revision (HEAD~1, a branch, a hash), a profile "
    "(openclaw-2026.2, openclaw-2026.9, ...), a gateway config file, a scenario file, or "
    "run:KEY, the run OpenClaw recorded for session KEY (see --state); git:, profile:, "
    "config: or scenario: before it forces the kind"
)
STATE_HELP = (
    "OpenClaw's state folder, for a run:KEY side (default: $OPENCLAW_STATE_DIR, else the "
    "config's folder when it holds an agent's session store, else ~/.openclaw)"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_workspace(parser)
    add_format(parser, html=True)
    add_show_env(parser)
    parser.add_argument("--from", dest="before", required=True, metavar="SPEC", help=SPEC_HELP)
    parser.add_argument(
        "--to", dest="after", default="now", metavar="SPEC", help="the other side (default: now)"
    )
    parser.add_argument(
        "--session",
        metavar="KEY",
        help="compare this session only (default: a run:KEY side's KEY, else every configured "
        "agent's main session, the scenario's spawned child and its Rye thread)",
    )
    parser.add_argument("--state", metavar="DIR", help=STATE_HELP)
    add_scenario(parser, spawn=False)


def compare_args(args: argparse.Namespace, before: str, after: str) -> Comparison:
    """Both sides built and compared, as shown (values from the environment masked but for
    `--show-env`); unusable input → UsageError."""
    # The engine once the command runs (`diff --help` starts without it: 5 × faster).
    from ctxscope.core.tokens import TokenizerError, get_tokenizer
    from ctxscope.diff import SideError, compare_specs
    from ctxscope.diff.gitside import GitError
    from ctxscope.inputs import WorkspaceError
    from ctxscope.runtimes.openclaw.config import ConfigError
    from ctxscope.runtimes.profiles import ProfileError

    config = getattr(args, "config", None)
    user_space = getattr(args, "user_space", None)
    try:
        return compare_specs(
            args.workspace,
            before,
            after,
            config=os.path.abspath(config) if config else None,
            overrides=scenario_overrides(args),
            session_key=getattr(args, "session", None),
            tokenizer=get_tokenizer(getattr(args, "tokenizer", None)),
            user_space=Path(user_space) if user_space else env_user_space(),
            state=getattr(args, "state", None),
        ).shown(getattr(args, "show_env", None) or ())
    except (ConfigError, ProfileError) as exc:
        raise UsageError(str(exc.diagnostic)) from None
    except (SideError, GitError, WorkspaceError, TokenizerError) as exc:
        raise UsageError(str(exc)) from None


def run(args: argparse.Namespace) -> int:
    write(compare_args(args, args.before, args.after), args.format)
    return 0
