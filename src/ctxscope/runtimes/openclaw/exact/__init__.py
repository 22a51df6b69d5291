"""Exact mode: the user's installed OpenClaw builds the prompt, ctxscope lays its provenance
over that text and reports where its own model drifts from it.

`ExactMode` owns one helper process (started on first use) and turns modelled `Session`s
into the runtime's: `ExactMode.apply_all(sessions, config, tokenizer)`. When exact mode cannot
run (no Node ≥ 22, no OpenClaw, a runtime without the entry points, a timeout) the model
session is returned with a warning saying why, so every view keeps working.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence
from typing import Any

from ctxscope.core.model import Diagnostic, Session
from ctxscope.core.tokens import Tokenizer
from ctxscope.runtimes.openclaw.config import GatewayConfig
from ctxscope.runtimes.openclaw.exact.overlay import answer_of, exact_session
from ctxscope.runtimes.openclaw.exact.runtime import (
    ExactError,
    Install,
    RuntimeHelper,
    find_install,
)
from ctxscope.runtimes.openclaw.places import configured_cwd
from ctxscope.runtimes.openclaw.prompt import SessionRequest, bootstrap_mode
from ctxscope.runtimes.openclaw.request import model_primary
from ctxscope.runtimes.openclaw.sections import model_aliases
from ctxscope.runtimes.openclaw.versions import modelled, parse_version
from ctxscope.runtimes.profiles import ProfileError, load_profile

__all__ = ["ExactError", "ExactMode", "Install", "find_install"]


class ExactMode:
    """Exact mode for one install; `close()` stops its helper."""

    def __init__(self, install: Install, **timeouts: float) -> None:
        self.install = install
        self.helper = RuntimeHelper(install, **timeouts)
        self.failure: str | None = None
        """Why the helper could not start (then every session falls back to the model)."""
        self.catalog_asked = False
        """The runner's default tool catalog was asked for (once per helper)."""

    @property
    def label(self) -> str:
        return self.install.label

    def start(self) -> str | None:
        """Load the runtime now (it takes seconds); returns why it failed, or None."""
        if self.failure is None and self.helper.ready is None:
            try:
                ready = self.helper.start()
            except ExactError as exc:
                self.failure = str(exc)
            else:
                missing = [k for k in ready.get("missing", ()) if k in ("resolve", "prompt")]
                if missing:
                    self.failure = f"{self.label} lacks {', '.join(missing)}"
        return self.failure

    def unmodelled_note(self, profile: str) -> Diagnostic | None:
        """For a release ctxscope does not model: what exact mode could not do. The text is
        the runtime's, but only the headings `profile` (the nearest modelled release) knows
        cut it into sections (a context file's own headings never do), so provenance and
        section drift are that profile's; with the builders strategy, which of the runtime's
        entry points were found and which were not (ctxscope's model stands in for those)."""
        version = parse_version(self.install.version)
        ready = self.helper.ready or {}
        if version is not None and any(v[:2] == version[:2] for v in modelled()):
            return None
        could_not = (
            f"the text is the runtime's own, but ctxscope can cut it into sections only at the "
            f"headings profile {profile} knows (a context file's own headings never start a "
            f"section), so each section's source and the drift are {profile}'s guesses"
        )
        if ready.get("strategy") == "runner":
            how = "its runner prepared the session"
        else:
            found = sorted(str(v).split(" (")[0] for v in (ready.get("functions") or {}).values())
            missing = ", ".join(ready.get("missing") or []) or "none"
            how = (
                f"exact mode used the entry points it found ({', '.join(found)}); not found: "
                f"{missing} (ctxscope's model stands in for what they would build)"
            )
        return Diagnostic(
            "info",
            f"{self.label} is not a release ctxscope models: {how}; {could_not}",
            code="exact-unmodelled",
        )

    def apply_all(
        self,
        sessions: list[Session],
        config: GatewayConfig,
        tokenizer: Tokenizer,
        runs: Sequence[dict[str, Any] | None] = (),
    ) -> list[Session]:
        """The runtime's text for each of `sessions`, with drift (the model session and a
        warning where the runtime cannot answer), asked in one round trip (a requester and
        its child: the helper prepares the child right after the requester). `runs`: each
        one's recorded run identity for the runner, if any
        (`runs.identity.RunIdentity.helper_fields`)."""
        # The runner creates a session's workspace folder when it is missing: such a session
        # is not asked (nothing of the user's disk is written), and says so.
        absent = {
            i
            for i, s in enumerate(sessions)
            if isinstance(s.request, SessionRequest) and not os.path.isdir(s.request.workspace)
        }
        asked = [
            (i, _request(s, s.request, config, runs[i] if i < len(runs) else None))
            for i, s in enumerate(sessions)
            if isinstance(s.request, SessionRequest) and i not in absent
        ]
        failure = self.start() if asked else None
        answers: dict[int, dict[str, Any]] = {}
        if failure is None and asked:
            try:
                raws = self.helper.ask_all([request for _, request in asked])
            except ExactError as exc:
                failure = str(exc)
            else:
                answers = {i: raw for (i, _), raw in zip(asked, raws, strict=True)}
        out: list[Session] = []
        for i, session in enumerate(sessions):
            if not isinstance(session.request, SessionRequest):
                out.append(session)
                continue
            if i in absent:
                skipped = Diagnostic(
                    "warning",
                    f"exact mode not run for this session: its workspace "
                    f"{session.request.workspace} does not exist, and {self.label}'s runner "
                    "would create it; showing ctxscope's model instead",
                    str(session.request.workspace),
                    code="exact-unavailable",
                )
                out.append(
                    dataclasses.replace(session, diagnostics=[skipped, *session.diagnostics])
                )
                continue
            raw = answers.get(i)
            if raw is not None and raw.get("ok"):
                exact = exact_session(
                    session, answer_of(raw), runtime=self.label, tokenizer=tokenizer
                )
                note = self.unmodelled_note(session.profile)
                if note is not None:
                    exact.diagnostics.append(note)
                out.append(exact)
                continue
            why = (
                failure or f"{self.label} could not build this session: {(raw or {}).get('error')}"
            )
            warning = Diagnostic(
                "warning", f"{why}; showing ctxscope's model instead", code="exact-unavailable"
            )
            out.append(dataclasses.replace(session, diagnostics=[warning, *session.diagnostics]))
        return out

    def close(self) -> None:
        self.helper.close()


def _request(
    session: Session, req: SessionRequest, config: GatewayConfig, run: dict[str, Any] | None
) -> dict[str, Any]:
    sub = req.subagent
    request = {
        "workspace": str(req.workspace),
        # The folder its runs work in, as the gateway hands it to the runner.
        "cwd": configured_cwd(config, session.agent_id),
        "sessionKey": session.session_key,
        "agentId": session.agent_id,
        # The runner quotes the heartbeat prompt only for the default agent.
        "defaultAgent": session.agent_id == config.default_agent_id(),
        "config": config.data,
        "modelAliases": model_aliases(config),
        "promptMode": session.prompt_mode,
        "forcedMode": req.info.forced,
        "tools": list(req.tools),
        "model": req.model or _default_model(session.profile),
        "defaultModel": model_primary(config.defaults.get("model")),
        "api": session.wire.plan.transport_api if session.wire else None,
        "channel": req.channel,
        "thinking": req.thinking,
        "timezone": req.timezone,
        "bootstrapMode": bootstrap_mode(req.info, req.workspace, req.setup_completed),
        "subagent": None
        if sub is None
        else {
            "task": sub.task,
            "label": sub.label,
            "requesterSessionKey": sub.requester_session_key,
            "requesterChannel": sub.requester_channel,
            "depth": sub.depth,
            "maxDepth": sub.max_depth,
        },
    }
    if run is None:
        # This machine's shell, which a gateway started here would name on the Runtime line
        # (the helper itself runs with none).
        shell = {k: req.env[k] for k in ("OPENCLAW_SHELL", "SHELL") if k in req.env}
        run = {"shell": shell} if shell else None
    if run is not None:
        request["run"] = run
    return request


def _default_model(profile: str) -> str | None:
    """The model the runner runs when none is configured (the profile's record of the
    runtime's built-in default), which it names on the Runtime line."""
    try:
        spec = next(s for s in load_profile(profile).sections if s.kind == "runtime_line")
    except (ProfileError, StopIteration):
        return None
    return spec.default_model or None
