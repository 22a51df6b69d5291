"""`ctxscope runs [WORKSPACE]`: the sessions OpenClaw recorded (its own session stores, read
read-only) as a tree, each with its recorded figures beside ctxscope's prediction of the same
session key today; `--session KEY` shows one run whole."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

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

if TYPE_CHECKING:
    from ctxscope.runs.ahead import ReadAhead


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
    g = parser.add_argument_group("prediction")
    g.add_argument("--config", metavar="PATH", help="gateway config file (default: discovered)")
    g.add_argument("--profile", metavar="NAME|FILE", help="runtime profile (as for render)")
    g.add_argument("--tokenizer", metavar="SPEC", help="as for render")
    add_exact(parser)


def _read_ahead(args: argparse.Namespace) -> ReadAhead | None:
    """A listing of every session: the databases of the state folder it most likely reads
    (the config may name another, known once the workspace is loaded) listed by forked
    children meanwhile (`runs.ahead`)."""
    if args.session:
        return None
    from ctxscope.runs.ahead import ReadAhead
    from ctxscope.runs.store import state_dir, state_folder, store_files

    folder = state_dir(state_folder(args.state, None))
    return ReadAhead.start(store_files(folder, None, [args.agent] if args.agent else ()))


def run(args: argparse.Namespace) -> int:
    from ctxscope.diff.runlist import list_runs
    from ctxscope.runs import parse_duration, state_folder

    since = None
    if args.since is not None:
        try:
            since = parse_duration(args.since)
        except ValueError:
            raise UsageError(
                f"--since: {args.since!r} is not a duration (30s, 15m, 2h, 7d, 1w)"
            ) from None
    ahead = _read_ahead(args)
    try:
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
                reader=ahead.reader if ahead is not None else None,
            )
        finally:
            inspector.close()
    finally:
        if ahead is not None:
            ahead.close()
    view = inspector.shown(view)
    view.problems = inspector.shown(inspector.diagnostics) + view.problems
    if any(d.code in ("runs-no-state", "runs-unknown-session") for d in view.problems):
        raise UsageError("; ".join(str(d) for d in view.problems if d.severity == "error"))
    view.session = args.session
    write(view, args.format)
    return 0
