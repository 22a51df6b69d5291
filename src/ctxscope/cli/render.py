"""`ctxscope render [WORKSPACE] --session-key KEY`: one session's prompt. A subagent
session's first message carries the context scripts' output, as a spawn gives it (`--trust`
runs them)."""

from __future__ import annotations

import argparse

from ctxscope.cli.common import (
    add_exact,
    add_standard,
    make_inspector,
    require_exact,
    start_exact,
    warn_if_unrecognised,
    write,
)
from ctxscope.output.views import SessionView


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_standard(parser, html=True)
    add_exact(parser)
    parser.add_argument(
        "--session-key",
        metavar="KEY",
        help="the session to render (default: agent:<requester>:main)",
    )


def run(args: argparse.Namespace) -> int:
    inspector = make_inspector(args)
    warn_if_unrecognised(inspector)
    start_exact(inspector, args.exact)
    session = inspector.shown(inspector.session(args.session_key, scripts=True))
    inspector.close()
    diagnostics = inspector.shown(inspector.diagnostics) + session.diagnostics
    require_exact(args, diagnostics)
    view = SessionView(session, diagnostics, inspector.shown(str(inspector.workspace)))
    write(view, args.format)
    return 0
