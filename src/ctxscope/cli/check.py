"""`ctxscope check [WORKSPACE]`: lint for CI; exit 1 when there are findings."""

from __future__ import annotations

import argparse

from ctxscope.check import KINDS, NOTHING_TO_READ, Finding, recognised, run_check
from ctxscope.cli.common import UsageError, add_standard, make_inspector, write
from ctxscope.cli.diff import STATE_HELP
from ctxscope.output.check import Checked


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_standard(parser)
    parser.add_argument(
        "--allow",
        action="append",
        default=[],
        metavar="KIND",
        help=f"do not fail on this kind of finding ({', '.join(KINDS)}; with --against also "
        "lost, cut-more); repeat or comma-separate",
    )
    parser.add_argument(
        "--max-section-tokens",
        type=int,
        metavar="N",
        help="a budget for each prompt section: one over N tokens is a `budget` finding",
    )
    parser.add_argument(
        "--against",
        metavar="REV",
        help="check the change since REV (a git revision, or any `diff` side, run:KEY among "
        "them) instead: fail "
        "when a session loses a file (lost), gets a file cut (truncated) or crosses a budget "
        "(budget)",
    )
    parser.add_argument("--state", metavar="DIR", help=STATE_HELP)


def run(args: argparse.Namespace) -> int:
    from ctxscope.diff.guard import GUARD_KINDS  # the diff engine: 40 % of a plain `check`

    kinds = [*KINDS, *(k for k in GUARD_KINDS if k not in KINDS)]
    allowed = {k.strip() for a in args.allow for k in a.split(",") if k.strip()}
    unknown = allowed - set(kinds)
    if unknown:
        raise UsageError(
            f"--allow: unknown kind {', '.join(sorted(unknown))} (kinds: {', '.join(kinds)})"
        )
    if args.against is not None:
        return report(args, against(args), allowed)
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
    return report(args, inspector.shown(findings), allowed)


def against(args: argparse.Namespace) -> list[Finding]:
    """The findings the change from `--against` to the workspace now adds."""
    from ctxscope.cli.diff import compare_args  # only with --against (as above)
    from ctxscope.diff.guard import regressions

    result = compare_args(args, args.against, "now")
    return regressions(result, max_section_tokens=args.max_section_tokens)


def report(args: argparse.Namespace, findings: list[Finding], allowed: set[str]) -> int:
    """Print `findings` in the chosen format; 1 when one of a kind not `allowed` fails."""
    checked = Checked.of(findings, allowed)
    write(checked, args.format)
    return 0 if checked.ok else 1
