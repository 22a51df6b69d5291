"""The command line: `ctxscope [WORKSPACE]` opens the TUI; subcommands run headless.

Each subcommand lives in its own module of this package with two functions:
`add_arguments(parser)` and `run(args) -> int`. Exit codes: 0 ok, 1 findings (`check`),
2 usage or unreadable input (message on stderr naming the file and line).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from ctxscope import __version__
from ctxscope.cli.common import UsageError

COMMANDS: dict[str, str] = {
    "render": "one session's system prompt, section by section",
    "spawn": "simulate sessions_spawn: policy, context scripts, override, both prompts",
    "thread": "a Rye thread: extends chain, hooks, first message, tool palette",
    "explain": "is a file, section, knowledge item or tool present in each session, and why",
    "check": "lint for CI: exit 1 on truncation, missing files, failing scripts, broken chains",
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ctxscope",
        description="See exactly what an agent and each of its subagents is told before it runs. "
        "With no subcommand, `ctxscope [WORKSPACE]` opens the live inspector.",
    )
    parser.add_argument("--version", action="version", version=f"ctxscope {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, help_text in COMMANDS.items():
        module = importlib.import_module(f"ctxscope.cli.{name}")
        p = sub.add_parser(name, help=help_text, description=help_text)
        module.add_arguments(p)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    if not args_list or (args_list[0] not in COMMANDS and args_list[0] not in (
        "-h", "--help", "--version"
    )):
        from ctxscope.cli import tui

        return tui.main(args_list)
    parser = build_parser()
    args = parser.parse_args(args_list)
    module = importlib.import_module(f"ctxscope.cli.{args.command}")
    try:
        return int(module.run(args))
    except UsageError as exc:
        print(f"ctxscope: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
