"""`ctxscope [WORKSPACE]` (the same as `ctxscope tui [WORKSPACE]`): the live inspector."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ctxscope.cli.common import (
    UsageError,
    add_exact,
    add_scenario,
    add_show_env,
    add_workspace,
    exact_mode,
    make_inspector,
)
from ctxscope.output import terminal_safe

DESCRIPTION = (
    "Open the live inspector on WORKSPACE: the requester's and the subagent's prompts side "
    "by side, with files, context scripts, overrides, policy, budgets and the Rye chain."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_workspace(parser)
    add_app_options(parser)
    add_show_env(parser)
    add_scenario(parser)
    add_exact(parser)


def add_app_options(parser: argparse.ArgumentParser) -> None:
    """The inspector's own flags (shown by `ctxscope --help` too)."""
    g = parser.add_argument_group("inspector")
    g.add_argument("--theme", metavar="NAME", help="colour theme (default ctxscope-dark)")
    g.add_argument("--no-watch", action="store_true", help="do not watch the workspace for changes")
    g.add_argument(
        "--export-dir",
        metavar="DIR",
        help="folder for exports (default: the current folder, or the ctxscope "
        "config folder when that is inside the workspace)",
    )
    g.add_argument(
        "--state",
        metavar="DIR",
        help="OpenClaw's state folder, whose recorded runs the Runs panel shows (default: "
        "$OPENCLAW_STATE_DIR, else the config's folder when it holds an agent's session "
        "store, else ~/.openclaw)",
    )
    g.add_argument("--greeting", help=argparse.SUPPRESS)  # `demo`: a notice on the screen


def run(args: argparse.Namespace) -> int:
    """Check the workspace and config, then run the app. Unusable input raises UsageError
    (exit 2) before any screen is drawn."""
    # The first frame is the model's: exact mode loads after it is drawn (`exact_mode`).
    inspector = make_inspector(args, exact=False)
    exact = exact_mode(getattr(args, "exact", None), inspector, default="auto")
    from ctxscope.runs import state_folder
    from ctxscope.tui.build import Builder

    builder = Builder(inspector)
    builder.start()  # the first build runs while the interface loads
    from ctxscope.tui.app import make_app

    app = make_app(
        builder=builder,
        watch=not args.no_watch,
        theme=args.theme,
        export_dir=Path(args.export_dir) if args.export_dir else None,
        state=state_folder(getattr(args, "state", None), inspector.config.path),
        exact=exact,
    )
    app.calm_gc = True
    app.greeting = getattr(args, "greeting", None) or ""
    try:
        app.run()
    finally:
        from ctxscope.scripts import reaper

        reaper.kill_running()  # a script still running in the background ends with the app
        inspector.close()  # and so does exact mode's helper
    return 0


def main(argv: list[str]) -> int:
    """`ctxscope tui ARGV...`: parse, then run; exit 2 with a message for unusable input."""
    parser = argparse.ArgumentParser(prog="ctxscope", description=DESCRIPTION)
    add_arguments(parser)
    try:
        return run(parser.parse_args(argv))
    except UsageError as exc:
        print(terminal_safe(f"ctxscope: {exc}"), file=sys.stderr)
        return 2
