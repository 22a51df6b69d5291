"""`ctxscope thread [WORKSPACE] DIRECTIVE` — what a Rye thread is told before it runs."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ctxscope.cli.common import UsageError, add_format, add_workspace, write
from ctxscope.core.tokens import TokenizerError, get_tokenizer
from ctxscope.infra.paths import env_user_space, inside, replace_file
from ctxscope.output import terminal_safe


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_workspace(parser)
    parser.add_argument(
        "directive", metavar="DIRECTIVE", help="directive id, e.g. project/deploy/deploy_staging"
    )
    parser.add_argument(
        "--input", action="append", default=[], metavar="K=V", help="a directive input (repeatable)"
    )
    parser.add_argument(
        "--events", metavar="FILE", help="write the transcript events as JSON lines to FILE"
    )
    parser.add_argument(
        "--user-space",
        metavar="DIR",
        help="the Rye user space (default: $USER_SPACE/.ai when set, else none)",
    )
    parser.add_argument("--model", help="the model the hook context sees")
    parser.add_argument(
        "--continued",
        action="store_true",
        help="simulate a resumed thread (thread_continued hooks)",
    )
    parser.add_argument("--tokenizer", help="estimate (default) or tiktoken:<encoding>")
    parser.add_argument(
        "--rye-profile",
        metavar="NAME",
        help="Rye semantics: ryeos-0.1 (what ryeos 0.1.30 does, default) or rye-docs (Rye's "
        "documentation); the report lists where the two disagree (default: ctxscope.yaml's "
        "rye_profile)",
    )
    parser.add_argument(
        "--rye-system",
        action="append",
        metavar="DIR",
        help="the real Rye system tier: a bundle's .ai folder, or a site-packages folder with "
        "ryeos installed (repeatable; default: $CTXSCOPE_RYE_SYSTEM, else ryeos installed "
        "beside ctxscope, else ctxscope's stand-in)",
    )
    parser.add_argument(
        "--rye-dev-mode",
        action="store_true",
        help="read items as ryeos's dev mode does (RYE_DEV_MODE=1): signatures are reported, "
        "every item loads (default: ryeos's own rule, every item verified; also "
        "ctxscope.yaml's rye_dev_mode, or $RYE_DEV_MODE=1)",
    )
    parser.add_argument(
        "--allow",
        action="append",
        default=[],
        metavar="KIND",
        help="refused: exit 0 even when the runtime would not start the thread (default: 1)",
    )
    add_format(parser)


def _user_space(arg: str | None) -> Path | None:
    if arg:
        p = Path(arg)
        if not p.is_dir():
            raise UsageError(f"{arg}: user space folder not found")
        return p
    return env_user_space()


def _inputs(pairs: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"--input {pair!r}: expected KEY=VALUE")
        out[key.strip()] = value
    return out


def run(args: argparse.Namespace) -> int:
    # The engine once the command runs (`thread --help` starts without it: 2.6 × faster).
    from ctxscope.infra.snapshot import Snapshot
    from ctxscope.runtimes.rye import RyeOptionError, for_program, scenario_thread
    from ctxscope.scenario import load_scenario

    workspace = Path(args.workspace)
    if not workspace.is_dir():
        raise UsageError(f"{args.workspace}: workspace folder not found")
    if args.events and inside(Path(args.events).absolute(), workspace):
        raise UsageError(
            f"--events {args.events}: inside the workspace; ctxscope never writes there "
            "(choose a path outside it)"
        )
    allowed = {k.strip() for a in args.allow for k in a.split(",") if k.strip()}
    if allowed - {"refused"}:
        raise UsageError(
            f"--allow: unknown kind {', '.join(sorted(allowed - {'refused'}))} (kinds: refused)"
        )
    try:
        tokenizer = get_tokenizer(args.tokenizer)
    except TokenizerError as exc:
        raise UsageError(str(exc)) from None
    tools = for_program(workspace)
    snapshot = Snapshot()
    # ctxscope.yaml's Rye options, each overridden by its flag (its inputs: for its directive)
    scenario, problems = load_scenario(workspace, snapshot)
    given = _inputs(args.input)
    if not given and scenario.directive == args.directive.strip().removesuffix(".md"):
        given = dict(scenario.inputs)
    try:
        report = scenario_thread(
            workspace,
            args.directive,
            inputs=given,
            user_space=_user_space(args.user_space),
            model=args.model,
            rye_profile=args.rye_profile or scenario.rye_profile,
            rye_system=args.rye_system or scenario.rye_system or None,
            rye_dev_mode=args.rye_dev_mode or scenario.rye_dev_mode,
            continued=args.continued or scenario.continued,
            snapshot=snapshot,
            tokenizer=tokenizer,
            tools=tools,
            strict=True,
        )
    except RyeOptionError as exc:
        raise UsageError(str(exc)) from None
    report.diagnostics = problems + report.diagnostics
    tools.save()
    if args.events:
        try:
            events = Path(args.events)
            if not events.parent.is_dir():  # a folder typed wrong is not made
                raise FileNotFoundError(2, "No such file or directory", str(events.parent))
            lines = "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in report.events)
            replace_file(events, lines.encode("utf-8"))
        except OSError as exc:
            raise UsageError(f"{args.events}: cannot write events ({exc.strerror})") from None
    if not report.found:
        for d in report.diagnostics:
            print(terminal_safe(f"ctxscope: {d}"), file=sys.stderr)
        return 2
    write(report, args.format)
    return 1 if report.refused and "refused" not in allowed else 0
