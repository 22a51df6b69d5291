"""`ctxscope [WORKSPACE]`: the live inspector (Textual app)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ctxscope.cli.common import UsageError, add_scenario, add_workspace, make_inspector


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ctxscope",
        description="Open the live inspector on WORKSPACE: the requester's and the subagent's "
        "prompts side by side, with files, context scripts, overrides, policy, budgets and "
        "the Rye chain. Subcommands (render, spawn, thread, explain, check) run headless.",
    )
    add_workspace(parser)
    add_scenario(parser)
    parser.add_argument("--theme", metavar="NAME", help="colour theme (default ctxscope-dark)")
    parser.add_argument(
        "--no-watch", action="store_true", help="do not watch the workspace for changes"
    )
    parser.add_argument(
        "--export-dir",
        metavar="DIR",
        help="folder for exports (default: the current folder, or the ctxscope "
        "config folder when that is inside the workspace)",
    )
    return parser


def main(argv: list[str]) -> int:
    """Parse `argv`, check the workspace and config, then run the app. Exit code 2 for an
    unusable workspace or config (message on stderr)."""
    args = build_parser().parse_args(argv)
    try:
        inspector = make_inspector(args)
    except UsageError as exc:
        print(f"ctxscope: {exc}", file=sys.stderr)
        return 2
    from ctxscope.tui.app import make_app

    app = make_app(
        inspector=inspector,
        watch=not args.no_watch,
        theme=args.theme,
        export_dir=Path(args.export_dir) if args.export_dir else None,
    )
    app.run()
    return 0
