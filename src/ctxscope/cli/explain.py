"""`ctxscope explain [WORKSPACE] ITEM`: is ITEM present in each session, and by which rule."""

from __future__ import annotations

import argparse

from ctxscope.cli.common import add_standard, make_inspector, warn_if_unrecognised, write
from ctxscope.explain import explain
from ctxscope.output.explain import Explained


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_standard(parser)
    parser.add_argument(
        "item",
        metavar="ITEM",
        help="a bootstrap file (SOUL.md), memory note (memory/x.md), section id "
        "(skills, safety, ...), skill, tool, context-script id, or Rye item",
    )
    parser.add_argument(
        "--directive",
        metavar="ID",
        help="for Rye items: this directive only (default: every project directive)",
    )


def run(args: argparse.Namespace) -> int:
    inspector = make_inspector(args)
    warn_if_unrecognised(inspector)
    answers = explain(
        inspector.inputs,
        inspector.report(),
        args.item,
        snapshot=inspector.snapshot,
        directive=args.directive,
    )
    answers = inspector.shown(answers)
    problems = inspector.shown(inspector.diagnostics)  # the config's and ctxscope.yaml's
    write(Explained(args.item, answers, problems), args.format)
    return 0
