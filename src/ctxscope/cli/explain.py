"""`ctxscope explain [WORKSPACE] ITEM`: is ITEM present in each session, and by which rule."""

from __future__ import annotations

import argparse

from ctxscope.cli.common import add_standard, emit, make_inspector, warn_if_unrecognised
from ctxscope.explain import explain
from ctxscope.output import dump_json
from ctxscope.output.table import md_table, text_table


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
    if args.format == "json":
        emit(dump_json({"item": args.item, "answers": [a.to_dict() for a in answers]}))
        return 0
    if not answers:
        emit(
            f"{args.item}: not a bootstrap file, section, skill, tool, script or Rye item "
            "known to this workspace"
        )
        return 0
    rows = [
        (
            a.scope,
            "present" if a.present else "absent",
            a.status,
            a.rule,
        )
        for a in answers
    ]
    headers = ("scope", "present", "status", "rule")
    fixes = [(a.scope, r) for a in answers for r in a.remedies]
    if args.format == "markdown":
        remedies = "".join(f"\n- `{scope}`: {r}" for scope, r in fixes)
        emit(
            f"# `{args.item}`\n\n"
            + md_table(
                (*headers, "source"), [(*r, a.source) for r, a in zip(rows, answers, strict=True)]
            )
            + (f"\n\n## Remedies\n{remedies}" if fixes else "")
        )
    else:
        remedies = "".join(f"\n  {scope}: {r}" for scope, r in fixes)
        emit(
            f"{args.item}\n"
            + text_table(headers, rows)
            + (f"\n\nRemedies{remedies}" if fixes else "")
        )
    return 0
