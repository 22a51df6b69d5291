"""`ctxscope spawn [WORKSPACE] --task T ...`: simulate sessions_spawn end to end."""

from __future__ import annotations

import argparse

from ctxscope.cli.common import (
    add_exact,
    add_standard,
    emit,
    make_inspector,
    require_exact,
    start_exact,
    warn_if_unrecognised,
)
from ctxscope.output import dump_json
from ctxscope.output.spawn import spawn_markdown, spawn_text


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
    if args.format == "json":
        data = report.to_dict()
        # The spawn's own problems (the config's, ctxscope.yaml's, the scripts') go with the
        # requester's, as `render` gives them: the shape stays the one documented.
        found = [*report.diagnostics, *report.requester.diagnostics]
        data["requester"]["diagnostics"] = [d.to_dict() for d in found]
        emit(dump_json(data))
    elif args.format == "markdown":
        emit(spawn_markdown(report))
    elif args.format == "html":
        from ctxscope.output.html import html_page

        emit(
            html_page(
                [("Main session", report.requester), ("Subagent", report.child)],
                facts=[("workspace", inspector.shown(str(inspector.workspace)))],
                spawn=report,
                diagnostics=report.diagnostics,
            )
        )
    else:
        emit(spawn_text(report))
    return 0
