"""The command line. `tui` is the default subcommand: `ctxscope [WORKSPACE] [FLAGS]` is
`ctxscope tui [WORKSPACE] [FLAGS]`; the other subcommands run headless.

Each subcommand lives in its own module of this package with two functions:
`add_arguments(parser)` and `run(args) -> int`. Exit codes: 0 ok, 1 findings (`check`),
2 usage or unreadable input (message on stderr naming the file and line).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from ctxscope import __version__
from ctxscope.cli.common import UsageError
from ctxscope.output import terminal_safe

DEFAULT_COMMAND = "tui"
COMMANDS: dict[str, str] = {
    "tui": "the live inspector (the default: `ctxscope [WORKSPACE]`)",
    "render": "one session's system prompt, section by section",
    "spawn": "simulate sessions_spawn: policy, context scripts, override, both prompts",
    "thread": "a Rye thread: extends chain, hooks, first message, tool palette",
    "explain": "is a file, section, knowledge item or tool present in each session, and why",
    "check": "lint for CI: exit 1 on truncation, missing files, failing scripts, broken chains",
    "demo": "open the inspector on a scratch copy of the bundled sample workspace",
}
TOP_LEVEL = ("-h", "--help", "--version")
HEADLESS = ("render", "spawn", "thread", "explain", "check")
"""The commands that print an answer and end (`tui` and `demo` run the inspector)."""


class HelpLayout(argparse.HelpFormatter):
    """argparse's own help layout, at the width `shutil.get_terminal_size` gives, worked out
    without importing `shutil` (argparse imports it, and its compression modules, to make
    the formatter it checks each added argument with)."""

    def __init__(self, prog: str) -> None:
        super().__init__(prog, width=terminal_columns() - 2)


def terminal_columns() -> int:
    """$COLUMNS when it is a positive number, else the width of the terminal standard output
    is on, else 80."""
    try:
        columns = int(os.environ.get("COLUMNS", ""))
    except ValueError:
        columns = 0
    if columns > 0:
        return columns
    try:
        return os.get_terminal_size(sys.__stdout__.fileno()).columns or 80  # type: ignore[union-attr]
    except (AttributeError, ValueError, OSError):
        return 80


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser; only `command`'s own options are added (importing a subcommand pulls in
    its part of the engine, which a run of another command does not need). With no command,
    every subcommand is listed by name and summary."""
    from ctxscope.cli.tui import add_app_options

    parser = argparse.ArgumentParser(
        prog="ctxscope",
        formatter_class=HelpLayout,
        usage="ctxscope [WORKSPACE] [options]  |  ctxscope COMMAND [WORKSPACE] [options]",
        description="See exactly what an agent and each of its subagents is told before it "
        "runs. With no COMMAND, `ctxscope [WORKSPACE]` opens the live inspector (the `tui` "
        "command): its own options are below, and `ctxscope tui --help` lists the scenario "
        "flags it shares with the other commands.",
    )
    parser.add_argument("--version", action="version", version=f"ctxscope {__version__}")
    add_app_options(parser)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, help_text in COMMANDS.items():
        if command is not None and name != command:
            continue  # a run of one command never lists the others
        p = sub.add_parser(name, help=help_text, description=help_text, formatter_class=HelpLayout)
        if name == command:
            importlib.import_module(f"ctxscope.cli.{name}").add_arguments(p)
    return parser


def with_default_command(argv: list[str]) -> list[str]:
    """`argv` with `tui` put first when it names no command (and asks for no top-level
    help or version)."""
    if argv and (argv[0] in COMMANDS or argv[0] in TOP_LEVEL):
        return argv
    return [DEFAULT_COMMAND, *argv]


def main(argv: Sequence[str] | None = None) -> int:
    args_list = with_default_command(list(sys.argv[1:] if argv is None else argv))
    command = args_list[0] if args_list and args_list[0] in COMMANDS else None
    args = build_parser(command).parse_args(args_list)
    module = importlib.import_module(f"ctxscope.cli.{args.command}")
    try:
        return int(module.run(args))
    except UsageError as exc:
        print(f"ctxscope: {terminal_safe(str(exc))}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # the last resort: one line, never a traceback
        where = getattr(args, "workspace", None) or "."
        print(
            terminal_safe(
                f"ctxscope: internal error while reading {where} (ctxscope {args.command}): "
                f"{type(exc).__name__}: {exc}. This is a bug in ctxscope; please report it "
                "with the input that caused it."
            ),
            file=sys.stderr,
        )
        return 2


def entry() -> None:
    """The `ctxscope` program: `main()`, then, after a headless command, a quick exit.

    A headless run's answer is complete once its output is flushed; tearing down every
    module and collecting the whole heap at exit would only add ~10 ms before the shell gets
    its prompt back. The inspector (`tui`, `demo`) exits the ordinary way. Young-generation garbage
    collection is made rarer for the run: what a build allocates is freed by reference
    counting, and a short process never needs the collector's pauses."""
    import gc
    import os

    gc.set_threshold(50_000, 20, 20)
    code = main()
    if with_default_command(sys.argv[1:])[0] not in HEADLESS:
        sys.exit(code)
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (BrokenPipeError, OSError):
        code = code or 0
    os._exit(code)
