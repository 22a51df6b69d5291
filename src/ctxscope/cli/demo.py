"""`ctxscope demo`: the bundled sample workspace, copied to a scratch folder and opened in
the inspector, so a demo can edit its files live without touching the installed package (a
wheel installed with pipx has no `sample_workspace/` of its own to open)."""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

from ctxscope.cli import tui
from ctxscope.cli.common import UsageError
from ctxscope.cli.tui import add_app_options

DESCRIPTION = (
    "Copy the bundled sample workspace to a scratch folder and open the inspector on it "
    "(the copy is removed on exit unless --keep)."
)


def sample_source() -> Path:
    """The sample workspace: inside the installed package (a wheel), else in the source
    checkout the package runs from."""
    here = Path(__file__).resolve()
    for candidate in (here.parents[1] / "sample_workspace", here.parents[3] / "sample_workspace"):
        if (candidate / "openclaw.json").is_file():
            return candidate
    raise UsageError("the bundled sample workspace is missing from this installation")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = DESCRIPTION
    parser.add_argument("--keep", action="store_true", help="keep the copy after the app exits")
    parser.add_argument(
        "--print-path",
        action="store_true",
        help="only make the copy and print its folder (e.g. `cd $(ctxscope demo --print-path)`)",
    )
    add_app_options(parser)


def run(args: argparse.Namespace) -> int:
    source = sample_source()
    scratch = Path(tempfile.mkdtemp(prefix="ctxscope-demo-"))
    folder = scratch / "sample_workspace"
    shutil.copytree(source, folder, symlinks=True, ignore=shutil.ignore_patterns("__pycache__"))
    if args.print_path:
        print(folder)
        return 0
    # Nothing printed before the full screen (it would be hidden while the app runs and
    # gone after): the top bar names the folder.

    argv = [
        str(folder),
        "--greeting",
        f"demo: a copy of the sample at {folder}; edit its files live",
    ]
    if args.theme:
        argv += ["--theme", args.theme]
    if args.no_watch:
        argv.append("--no-watch")
    if args.export_dir:
        argv += ["--export-dir", args.export_dir]
    try:
        return tui.main(argv)
    finally:
        if args.keep:
            print(f"ctxscope demo: kept {folder}", file=sys.stderr)
        else:
            shutil.rmtree(scratch, ignore_errors=True)
