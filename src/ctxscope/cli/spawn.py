"""`ctxscope spawn [WORKSPACE] --task T ...`: simulate sessions_spawn end to end."""

from __future__ import annotations

import argparse

from ctxscope.cli.common import (
    add_exact,
    add_standard,
    make_inspector,
    require_exact,
    start_exact,
    warn_if_unrecognised,
    write,
)
from ctxscope.output.views import SpawnView


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_standard(parser, html=True)
    add_exact(parser)


def run(args: argparse.Namespace) -> int:
    inspector = make_inspector(args)
    warn_if_unrecognised(inspector)
    start_exact(inspector, args.exact)
    report = inspector.shown(inspector.spawn())
    inspector.close()
    require_exact(args, [*report.requester.diagnostics, *report.child.diagnostics])
    write(SpawnView(report, inspector.shown(str(inspector.workspace))), args.format)
    return 0
