"""`ctxscope explain [WORKSPACE] ITEM`: is ITEM present in each session, and by which rule."""

from __future__ import annotations

import argparse

from ctxscope.cli.common import add_standard, emit, make_inspector, warn_if_unrecognised
from ctxscope.explain import explain
from ctxscope.model import Explanation
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
    answers = inspector.shown(answers)
    problems = inspector.shown(inspector.diagnostics)  # the config's and ctxscope.yaml's
    if args.format == "json":
        emit(
            dump_json(
                {
                    "item": args.item,
                    "answers": [a.to_dict() for a in answers],
                    "diagnostics": [d.to_dict() for d in problems],
                }
            )
        )
        return 0
    markdown = args.format == "markdown"
    if not answers:
        text = (
            f"{args.item}: not a bootstrap file, section, skill, tool, script or Rye item "
            "known to this workspace"
        )
    elif markdown:
        text = _markdown(args.item, answers)
    else:
        text = _text(args.item, answers)
    if problems:
        text += (
            "\n\n## Diagnostics\n\n" + "\n".join(f"- {d}" for d in problems)
            if markdown
            else "\n\nDiagnostics\n" + "\n".join(f"  {d}" for d in problems)
        )
    emit(text)
    return 0


HEADERS = ("scope", "present", "status", "rule")


def _rows(answers: list[Explanation]) -> list[tuple[str, str, str, str]]:
    return [(a.scope, "present" if a.present else "absent", a.status, a.rule) for a in answers]


def _markdown(item: str, answers: list[Explanation]) -> str:
    remedies = "".join(f"\n- `{a.scope}`: {r}" for a in answers for r in a.remedies)
    rows = [(*r, a.source) for r, a in zip(_rows(answers), answers, strict=True)]
    return (
        f"# `{item}`\n\n"
        + md_table((*HEADERS, "source"), rows)
        + (f"\n\n## Remedies\n{remedies}" if remedies else "")
    )


def _text(item: str, answers: list[Explanation]) -> str:
    remedies = "".join(f"\n  {a.scope}: {r}" for a in answers for r in a.remedies)
    return (
        f"{item}\n"
        + text_table(HEADERS, _rows(answers))
        + (f"\n\nRemedies{remedies}" if remedies else "")
    )
