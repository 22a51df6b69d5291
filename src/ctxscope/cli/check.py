"""`ctxscope check [WORKSPACE]`: lint for CI; exit 1 when there are findings."""

from __future__ import annotations

import argparse

from ctxscope.check import KINDS, NOTHING_TO_READ, recognised, run_check
from ctxscope.cli.common import UsageError, add_standard, make_inspector, write
from ctxscope.output.check import Checked


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_standard(parser)
    parser.add_argument(
        "--allow",
        action="append",
        default=[],
        metavar="KIND",
        help=f"do not fail on this kind of finding ({', '.join(KINDS)}); repeat or comma-separate",
    )
    parser.add_argument(
        "--max-section-tokens",
        type=int,
        metavar="N",
        help="a budget for each prompt section: one over N tokens is a `budget` finding",
    )


def run(args: argparse.Namespace) -> int:
    allowed = {k.strip() for a in args.allow for k in a.split(",") if k.strip()}
    unknown = allowed - set(KINDS)
    if unknown:
        raise UsageError(
            f"--allow: unknown kind {', '.join(sorted(unknown))} (kinds: {', '.join(KINDS)})"
        )
    inspector = make_inspector(args)
    if not recognised(inspector.inputs, inspector.snapshot):
        raise UsageError(
            f"{inspector.workspace}: nothing to check: {NOTHING_TO_READ}. Is WORKSPACE the "
            "right folder?"
        )
    findings = run_check(
        inspector.inputs,
        inspector.report(),
        snapshot=inspector.snapshot,
        max_section_tokens=args.max_section_tokens,
    )
    checked = Checked.of(inspector.shown(findings), allowed)
    write(checked, args.format)
    return 0 if checked.ok else 1
