"""`ctxscope runs [WORKSPACE]`: the sessions OpenClaw recorded (its own session stores, read
read-only) as a tree, each with its recorded figures beside ctxscope's prediction of the same
session key today; `--session KEY` shows one run whole."""

from __future__ import annotations

import argparse

from ctxscope.cli.common import (
    UsageError,
    add_exact,
    add_format,
    add_show_env,
    add_workspace,
    make_inspector,
    start_exact,
    write,
)
from ctxscope.diff.runlist import list_runs
from ctxscope.runs import SCREENFUL, parse_duration, state_folder


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_workspace(parser)
    add_format(parser, html=True)
    add_show_env(parser)
    parser.add_argument(
        "--state",
        metavar="DIR",
        help="OpenClaw's state folder (default: $OPENCLAW_STATE_DIR, else the config's folder "
        "when it holds an agent's session store, else ~/.openclaw)",
    )
    parser.add_argument("--agent", metavar="ID", help="only this agent's sessions")
    parser.add_argument(
        "--since", metavar="DURATION", help="only runs in the last DURATION (30m, 2h, 7d, 1w)"
    )
    parser.add_argument(
        "--session", metavar="KEY", help="one recorded run whole, and the sessions it spawned"
    )
    shown = parser.add_mutually_exclusive_group()
    shown.add_argument(
        "--limit",
        metavar="N",
        type=_positive,
        default=SCREENFUL,
        help=f"the N newest sessions, with those they were spawned by (default {SCREENFUL})",
    )
    shown.add_argument(
        "--all", action="store_true", help="every session (a large store takes longer)"
    )
    g = parser.add_argument_group("prediction")
    g.add_argument("--config", metavar="PATH", help="gateway config file (default: discovered)")
    g.add_argument("--profile", metavar="NAME|FILE", help="runtime profile (as for render)")
    g.add_argument("--tokenizer", metavar="SPEC", help="as for render")
    add_exact(parser)


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of sessions (1 or more)")
    return value


def run(args: argparse.Namespace) -> int:
    since = None
    if args.since is not None:
        try:
            since = parse_duration(args.since)
        except ValueError:
            raise UsageError(
                f"--since: {args.since!r} is not a duration (30s, 15m, 2h, 7d, 1w)"
            ) from None
    inspector = make_inspector(args)
    start_exact(inspector, args.exact)
    state = state_folder(args.state, inspector.config.path)
    try:
        view = list_runs(
            inspector,
            state=state,
            agent=args.agent,
            since=since,
            session=args.session,
            whole=args.format == "json" or bool(args.session),
            limit=None if args.all else args.limit,
            cache=True,
        )
    finally:
        inspector.close()
    view = inspector.shown(view)
    view.problems = inspector.shown(inspector.diagnostics) + view.problems
    if any(d.code in ("runs-no-state", "runs-unknown-session") for d in view.problems):
        raise UsageError("; ".join(str(d) for d in view.problems if d.severity == "error"))
    view.session = args.session
    write(view, args.format)
    return 0
