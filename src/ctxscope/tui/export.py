"""Export of the app's current build: JSON, markdown, HTML (each `output.render`'s, as the
CLI writes them) and the SVG screenshot (taken by the app).

Exports are written to the export folder (the current folder, unless it lies inside the
workspace — ctxscope never writes there — in which case the user's ctxscope folder
`.../ctxscope/exports` is used).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ctxscope.infra.paths import exports_dir, inside, replace_file

if TYPE_CHECKING:
    from ctxscope.report import Report

FORMAT_OF = {"json": "json", "md": "markdown", "html": "html"}
"""Each export's file extension -> the `output.render` format it holds."""


def export_folder(workspace: Path, preferred: Path | None = None) -> Path:
    """Where exports go: `preferred` or the current folder, unless inside `workspace`."""
    folder = (preferred or Path.cwd()).absolute()
    return exports_dir() if inside(folder, workspace) else folder


def write_export(folder: Path, stem: str, kind: str, text: str) -> Path:
    """Write one export; a lone surrogate (from a JSON escape in the config, say) is written
    as its escape `\\udc80`, as the CLI shows it."""
    path = folder / f"{stem}.{kind}"
    replace_file(path, text.encode("utf-8", errors="backslashreplace"))
    return path


def export_text(report: Report, kind: str) -> str:
    """The build's export `kind` (a key of `FORMAT_OF`): `output.render`'s, loaded only
    when exporting (the app need not keep the renderers in memory)."""
    from ctxscope import output

    return output.render(report, FORMAT_OF[kind])
