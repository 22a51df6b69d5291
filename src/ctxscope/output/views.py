"""What `ctxscope render` and `ctxscope spawn` print: a session, or a simulated spawn, with
the workspace it came from and the problems found on the way, in every format. The HTML
page and the spawn's renderers are imported when asked for: `render` loads only what it
writes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ctxscope.core.model import Diagnostic, Session
from ctxscope.output import dump_json, renders
from ctxscope.output.session import session_markdown, session_text

if TYPE_CHECKING:
    from ctxscope.spawn import SpawnReport


@dataclass
class SessionView:
    """One session, the problems found on the way (the config's, ctxscope.yaml's and the
    session's own) and the workspace (as shown)."""

    session: Session
    diagnostics: list[Diagnostic] = field(default_factory=list)
    workspace: str = ""


@dataclass
class SpawnView:
    """The simulated spawn and the workspace (as shown)."""

    report: SpawnReport
    workspace: str = ""


def session_json(view: SessionView) -> str:
    data = view.session.to_dict()
    data["diagnostics"] = [d.to_dict() for d in view.diagnostics]
    return dump_json(data)


def session_html(view: SessionView) -> str:
    from ctxscope.output.html import html_page

    return html_page(
        [("Session", view.session)],
        facts=[("workspace", view.workspace)],
        diagnostics=view.diagnostics,
    )


def spawn_json(view: SpawnView) -> str:
    report = view.report
    data = report.to_dict()
    # The spawn's own problems (the config's, ctxscope.yaml's, the scripts') go with the
    # requester's, as `render` gives them: the shape stays the one documented.
    found = [*report.diagnostics, *report.requester.diagnostics]
    data["requester"]["diagnostics"] = [d.to_dict() for d in found]
    return dump_json(data)


def spawn_html(view: SpawnView) -> str:
    from ctxscope.output.html import html_page

    report = view.report
    return html_page(
        [("Main session", report.requester), ("Subagent", report.child)],
        facts=[("workspace", view.workspace)],
        spawn=report,
        diagnostics=report.diagnostics,
    )


renders(
    SessionView,
    text=lambda v: session_text(v.session, v.diagnostics),
    markdown=lambda v: session_markdown(v.session, v.diagnostics),
    json=session_json,
    html=session_html,
)


def _spawn_view_text(view: SpawnView) -> str:
    from ctxscope.output.spawn import spawn_text

    return spawn_text(view.report)


def _spawn_view_markdown(view: SpawnView) -> str:
    from ctxscope.output.spawn import spawn_markdown

    return spawn_markdown(view.report)


renders(
    SpawnView,
    text=_spawn_view_text,
    markdown=_spawn_view_markdown,
    json=spawn_json,
    html=spawn_html,
)
