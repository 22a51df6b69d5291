"""The command line. `tui` is the default subcommand: `ctxscope [WORKSPACE] [FLAGS]` is
`ctxscope tui [WORKSPACE] [FLAGS]`; the other subcommands run headless.

Each subcommand lives in its own module of this package with two functions:
`add_arguments(parser)` and `run(args) -> int`. Exit codes: 0 ok, 1 findings (`check`),
2 usage or unreadable input (message on stderr naming the file and line).
"""

from __future__ import annotations

import argparse
import difflib
import importlib
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from ctxscope.cli.common import UsageError
from ctxscope.cli.tui import add_app_options
from ctxscope.core.version import __version__
from ctxscope.infra import tuning
from ctxscope.output import table, terminal_safe

DEFAULT_COMMAND = "tui"
COMMANDS: dict[str, str] = {
    "tui": "the live inspector (the default: `ctxscope [WORKSPACE]`)",
    "render": "one session's system prompt, section by section",
    "spawn": "simulate sessions_spawn: policy, context scripts, override, both prompts",
    "thread": "a Rye thread: extends chain, hooks, first message, tool palette",
    "explain": "is a file, section, knowledge item or tool present in each session, and why",
    "check": "lint for CI: exit 1 on truncation, missing files, failing scripts, broken chains",
    "diff": "what changes for every session between two revisions, profiles, configs, scenarios "
    "or recorded runs",
    "runs": "what each session was told in its last run, from OpenClaw's own records, "
    "beside today's prediction",
    "demo": "open the inspector on a scratch copy of the bundled sample workspace",
}
TOP_LEVEL = ("-h", "--help", "--version")
HEADLESS = ("render", "spawn", "thread", "explain", "check", "diff", "runs")
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


USAGES: dict[str, str] = {
    "tui": "ctxscope [tui] [WORKSPACE] [options]",
    "render": "ctxscope render [WORKSPACE] [options]",
    "spawn": "ctxscope spawn [WORKSPACE] [options]",
    "thread": "ctxscope thread [WORKSPACE] DIRECTIVE [options]",
    "explain": "ctxscope explain [WORKSPACE] ITEM [options]",
    "check": "ctxscope check [WORKSPACE] [options]",
    "diff": "ctxscope diff [WORKSPACE] --from SPEC [--to SPEC] [options]",
    "runs": "ctxscope runs [WORKSPACE] [options]",
    "demo": "ctxscope demo [options]",
}
"""Each command's own usage line (its options are listed by `ctxscope COMMAND --help`)."""
IMPLIED_USAGE = "ctxscope [WORKSPACE] [options]"


class Parser(argparse.ArgumentParser):
    """argparse's parser, whose errors end by pointing at `--help` and name the option a
    mistyped one is closest to."""

    help_command = ""
    """The command that lists every option (default: `PROG --help`)."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        hint = _option_hint(message, list(self._option_string_actions))
        self.exit(
            2,
            f"{self.prog}: error: {message}{hint}\n"
            f"(`{self.help_command or self.prog + ' --help'}` lists the options)\n",
        )


def _option_hint(message: str, options: list[str]) -> str:
    """` (did you mean --session-key?)` for an unrecognised `--sesion-key` in `message`."""
    if not message.startswith("unrecognized arguments:"):
        return ""

    for word in message.split(":", 1)[1].split():
        if word.startswith("--"):
            close = difflib.get_close_matches(word.split("=", 1)[0], options, n=1, cutoff=0.75)
            if close:
                return f" (did you mean {close[0]}?)"
    return ""


def top_parser() -> argparse.ArgumentParser:
    """`ctxscope --help` / `--version`: every command by name and summary, and the
    inspector's own options (importing no command)."""
    parser = Parser(
        prog="ctxscope",
        formatter_class=HelpLayout,
        usage=f"{IMPLIED_USAGE}  |  ctxscope COMMAND [WORKSPACE] [options]",
        description="See exactly what an agent and each of its subagents is told before it "
        "runs. With no COMMAND, `ctxscope [WORKSPACE]` opens the live inspector (the `tui` "
        "command): its own options are below, and `ctxscope tui --help` lists the scenario "
        "flags it shares with the other commands. `ctxscope COMMAND --help` lists a "
        "command's options.",
    )
    parser.add_argument("--version", action="version", version=f"ctxscope {__version__}")
    add_app_options(parser)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, help_text in COMMANDS.items():
        sub.add_parser(name, help=help_text)
    return parser


def command_parser(command: str, *, implied: bool = False) -> argparse.ArgumentParser:
    """The parser of one command, with its own usage line; `implied`: `tui` reached as
    `ctxscope [WORKSPACE]`, so its errors show that form."""
    parser = Parser(
        prog="ctxscope" if implied else f"ctxscope {command}",
        usage=IMPLIED_USAGE if implied else USAGES[command],
        description=COMMANDS[command],
        formatter_class=HelpLayout,
    )
    if implied:
        parser.help_command = f"ctxscope {command} --help"
    importlib.import_module(f"ctxscope.cli.{command}").add_arguments(parser)
    return parser


def with_default_command(argv: list[str]) -> list[str]:
    """`argv` with `tui` put first when it names no command (and asks for no top-level
    help or version)."""
    if argv and (argv[0] in COMMANDS or argv[0] in TOP_LEVEL):
        return argv
    return [DEFAULT_COMMAND, *argv]


def mistyped_command(word: str) -> str | None:
    """The command `word` looks like a typo of, when `word` is a bare name (no folder
    separator, no option) that names nothing on disk: `chek` -> `check`, `help` -> `--help`."""
    if not word or word.startswith("-") or os.sep in word or "/" in word:
        return None
    if os.path.lexists(word):
        return None

    close = difflib.get_close_matches(word.lower(), [*COMMANDS, "help"], n=1, cutoff=0.6)
    return ("--help" if close[0] == "help" else close[0]) if close else None


def parse(argv: list[str]) -> argparse.Namespace:
    """The command and its options; bad usage prints the command's own usage and exits 2."""
    if argv and argv[0] in TOP_LEVEL:
        top_parser().parse_args(argv)  # prints help or the version, and exits
    implied = not argv or argv[0] not in COMMANDS
    if implied and argv:
        guess = mistyped_command(argv[0])
        if guess is not None:
            print(
                terminal_safe(
                    f"ctxscope: unknown command '{argv[0]}' — did you mean '{guess}'?\n"
                    f"(commands: {', '.join(COMMANDS)}; no folder named '{argv[0]}' exists "
                    "here either)"
                ),
                file=sys.stderr,
            )
            sys.exit(2)
    command = DEFAULT_COMMAND if implied else argv[0]
    parser = command_parser(command, implied=implied)
    args = parser.parse_args(argv if implied else argv[1:])
    for action in parser._actions:
        # `--from=--`: argparse drops the `--` and leaves an empty list for the value
        single = isinstance(action, argparse._StoreAction) and action.nargs is None
        if single and isinstance(getattr(args, action.dest, None), list):
            parser.error(f"argument {'/'.join(action.option_strings)}: expected one value")
    args.command = command
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse(list(sys.argv[1:] if argv is None else argv))  # usage errors exit 2
    if sys.stdout is None:  # started with its standard output closed
        print("ctxscope: standard output is closed: nowhere to write the answer", file=sys.stderr)
        return 2
    if args.command in HEADLESS and sys.stdout.isatty():
        table.fit_to(terminal_columns())  # a pipe or a file gets whole rows
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
    its prompt back. The inspector (`tui`, `demo`) exits the ordinary way. The collector is
    tuned for the run (`ctxscope.infra.tuning`), never for a program using the Python API."""
    tuning.for_command()
    code = main()
    if with_default_command(sys.argv[1:])[0] not in HEADLESS:
        sys.exit(code)
    tuning.exit_now(code)
