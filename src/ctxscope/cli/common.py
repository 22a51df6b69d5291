"""Options and helpers shared by the subcommands."""

from __future__ import annotations

import argparse


class UsageError(Exception):
    """Bad usage or unreadable input: the CLI prints the message and exits 2."""


FORMATS = ("text", "json", "markdown")


def add_workspace(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("workspace", nargs="?", default=".", metavar="WORKSPACE",
                        help="the workspace folder (default: .)")


def add_format(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--format", choices=FORMATS, default="text",
                        help="output format (default: text)")
