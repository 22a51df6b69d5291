"""The state folder's recorded sessions as a tree (`list_runs`), each beside ctxscope's
prediction of the same session key in the workspace now, compared as every comparison is
(`diff.compare.run_verdict`): `ctxscope runs`, the app's Runs panel and the API's listing."""

from __future__ import annotations

import bisect
import contextlib
import os
import time
from dataclasses import field
from typing import TYPE_CHECKING, Any

from ctxscope.core.model import Diagnostic, Session
from ctxscope.core.record import record
from ctxscope.core.secrets import mask_secrets
from ctxscope.diff.causes import Evidence
from ctxscope.diff.compare import run_verdict
from ctxscope.diff.runside import limits_set_by
from ctxscope.diff.verdict import Verdict, retimed
from ctxscope.runs import SCREENFUL, read_newest, tree
from ctxscope.runs.identity import identity_of
from ctxscope.runs.recorded import RecordedRun, StoreRead, path_now, run_release
from ctxscope.runs.store import read_state, read_whole
from ctxscope.runtimes.openclaw.prompt import budget_limits
from ctxscope.runtimes.openclaw.versions import modelled
from ctxscope.runtimes.registry import modelled_by_release

if TYPE_CHECKING:
    from ctxscope.api import Inspector


@record
class RunRow:
    """One session of the tree: its run, its depth in the tree, and its comparison."""

    run: RecordedRun
    level: int
    _comparison: Verdict | None = None
    _made_for: int | None = field(default=None, repr=False, compare=False)
    """The run time `_comparison`'s texts name, when it was made for another run of the
    same figures (see `Predictions.shared`): told this run's time when first asked."""

    @property
    def comparison(self) -> Verdict | None:
        """Prediction vs record (None without a prediction or a report)."""
        if self._made_for is not None and self._comparison is not None:
            self._comparison = retimed(self._comparison, self._made_for, self.run.generated_at)
            self._made_for = None
        return self._comparison

    @property
    def summary(self) -> str | None:
        """The comparison's summary (the same for every run of the comparison's shape)."""
        return self._comparison.summary if self._comparison is not None else None

    def to_dict(self) -> dict[str, Any]:
        run = self.run
        return {
            "session_key": run.session_key,
            "agent_id": run.agent_id,
            "spawned_by": run.spawned_by,
            "spawn_depth": run.spawn_depth,
            "label": run.label,
            "generated_at": run.generated_at,
            "updated_at": run.updated_at,
            "store": run.store,
            "recorded": mask_secrets(run.report) if run.report is not None else None,
            "comparison": self.comparison.to_dict() if self.comparison else None,
            "problem": run.problem.to_dict() if run.problem else None,
        }


@record
class RunsView:
    """The sessions of a state folder as a tree (parents before the children they spawned),
    with what reading the stores found."""

    state: str
    rows: list[RunRow] = field(default_factory=list)
    problems: list[Diagnostic] = field(default_factory=list)
    stores: list[str] = field(default_factory=list)
    session: str | None = None
    """The one session asked for (`--session KEY`): shown whole, with what it spawned."""
    limit: int | None = None
    """The newest sessions the listing was asked for (None: every one)."""
    not_shown: int = 0
    """The sessions that match but are older than the newest `limit` (and not the parent
    of one shown)."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "state": self.state,
            "stores": self.stores,
            "sessions": [r.to_dict() for r in self.rows],
            "limit": self.limit,
            "not_shown": self.not_shown,
            "diagnostics": [d.to_dict() for d in self.problems],
        }


def list_runs(
    inspector: Inspector | None,
    *,
    state: str | os.PathLike[str] | None = None,
    agent: str | None = None,
    since: float | None = None,
    session: str | None = None,
    now: float | None = None,
    whole: bool | None = None,
    limit: int | None = SCREENFUL,
    read: StoreRead | None = None,
    cache: bool = False,
) -> RunsView:
    """The recorded sessions of the state folder: the newest `limit` (None: all; see
    `runs.listing.read_newest`) of `agent`'s, written in the last `since` seconds, and the
    sessions they were spawned by; or one `session` key and the sessions it spawned. Each
    is compared with `inspector`'s prediction of the same key (none without an inspector).
    `whole`: each report whole (default: for one `session`; always in exact mode), else the
    figures a listing shows. `read`: the stores as read already, in place of reading them.
    `cache`: a listing of every session (`limit=None`) kept in the cache folder for the
    next, or taken from it, while its database stays as it is (`runs.listcache`)."""
    config = inspector.config.data if inspector is not None else None
    # Exact mode builds each session with its run's identity (its session id), from the
    # report whole; it asks the runtime once per session anyway.
    exact = inspector is not None and inspector.exact is not None
    whole = bool(whole or exact or (whole is None and session))
    cutoff = None
    if since is not None:
        cutoff = int(((time.time() if now is None else now) - since) * 1000)
    agents = [agent] if agent else ()
    if read is None and session:
        read = read_state(state, config, agents, whole=whole, lineage=session)
    elif read is None:
        read = read_newest(
            state,
            config,
            agents,
            limit=limit,
            since=cutoff,
            agent=agent,
            whole=whole,
            cache=cache,
        )
    runs = read.runs
    if session and agent:
        runs = [r for r in runs if r.agent_id == agent.strip().lower()]
    if session and cutoff is not None:
        runs = [r for r in runs if (r.when or 0) >= cutoff]
    ordered = tree(runs)
    if session:
        ordered = _subtree(ordered, session)
    if whole and not all(run.whole for run, _ in ordered):
        again = read_whole(run for run, _ in ordered)
        ordered = [(run, level) for run, (_, level) in zip(again, ordered, strict=True)]
    view = RunsView(read.state, problems=list(read.problems), stores=list(read.stores))
    if not session:
        view.limit, view.not_shown = limit, read.not_shown
    predictions = Predictions(inspector, read.state) if inspector is not None else None
    for run, level in ordered:
        if predictions is not None and run.report is not None:
            view.rows.append(RunRow(run, level, *predictions.shared(run)))
        else:
            view.rows.append(RunRow(run, level))
    if session and not view.rows:
        view.problems.append(
            Diagnostic(
                "error",
                f"no recorded session {session} in this state folder",
                read.state,
                code="runs-unknown-session",
            )
        )
    return view


def _subtree(ordered: list[tuple[RecordedRun, int]], key: str) -> list[tuple[RecordedRun, int]]:
    wanted = key.strip().lower()
    for at, (run, level) in enumerate(ordered):
        if run.session_key.lower() == wanted:
            out = [(run, 0)]
            for other, depth in ordered[at + 1 :]:
                if depth <= level:
                    break
                out.append((other, depth - level))
            return out
    return []


class Predictions:
    """ctxscope's prediction per recorded session, built once per agent and session kind:
    sessions of one shape differ only by their key, which the prompt names (its size is
    adjusted by the key's). In exact mode every key is built (the runtime writes the text).

    A comparison is made once per shape that decides it: the prediction (agent, kind and
    the key's length), the recorded figures (`RecordedRun.shape`), the runtime that wrote
    them, and which of the files changed after the run."""

    def __init__(
        self,
        inspector: Inspector,
        state: str | os.PathLike[str] | None = None,
        release_now: str | None = None,
    ) -> None:

        self.inspector = inspector
        self.release_now = inspector.inputs.runtime.version if release_now is None else release_now
        """The release the workspace runs now (a run of another is predicted with its own
        release's rules: `for_run`)."""
        self.releases: dict[str, Predictions] = {}
        self.state = state
        """The state folder the runs were read from (the path their prompts name)."""
        self.shapes: dict[tuple[str, str], tuple[Session, int]] = {}
        self.limits: dict[str, tuple[int | None, int | None]] = {}
        self._budget = budget_limits
        self.stats: dict[str, os.stat_result | OSError] = {}
        self.kinds: dict[str, tuple[str, str]] = {}
        self.compared: dict[tuple[Any, ...], tuple[Verdict, int | None]] = {}
        self.mtimes: dict[tuple[Any, ...], list[float]] = {}
        self.quick: dict[tuple[Any, ...], tuple[tuple[Any, ...], list[float], Session]] = {}
        """What `shared` works out for the runs of one kind group, key length, store and
        shape: all but what their times decide."""
        profile = inspector.inputs.profile
        prefixes = (
            *profile.legacy_subagent_prefixes,
            *profile.subagent_prefixes,
            *profile.cron_prefixes,
        )
        self._prefix = max(map(len, prefixes), default=0)
        self._markers = bool(profile.subagent_markers)

    def stat(self, path: str) -> os.stat_result:
        """`os.stat`, once per path for the whole listing (its sessions share their files)."""
        found = self.stats.get(path)
        if found is None:
            try:
                found = os.stat(path)
            except OSError as exc:
                found = exc
            self.stats[path] = found
        if isinstance(found, OSError):
            raise found
        return found

    def kind(self, key: str) -> tuple[str, str]:
        """(agent id, session kind) of `key`. Keys that differ only past their last `:`,
        where no rule of the profile looks (its prefixes end before, after `agent:<id>:` or
        from the start; it has no markers, which could be anywhere), are of one kind:
        classified once."""
        group = self._group(key)
        if group is not None:
            found = self.kinds.get(group)
            if found is not None:
                return found
        info = self.inspector.inputs.classify(key)
        made = (info.agent_id, info.kind)
        if group is not None:
            self.kinds[group] = made
        return made

    def _group(self, key: str) -> str | None:
        """The part of `key` that decides its kind (`kind`), where the rest cannot."""
        if self._markers or not key.startswith("agent:") or "::" in key:
            return None
        cut = key.rfind(":")
        agent_end = key.find(":", 6)
        if 6 < agent_end < cut < len(key) - 1 and agent_end + self._prefix <= cut:
            return key[: cut + 1]
        return None

    def session(self, key: str, run: RecordedRun | None = None) -> tuple[Session, int | None]:
        """The prediction for `key`, and how many chars the key's own length changes its
        prompt by against the session it was built for (None: built for this key). In exact
        mode, `run` (the recorded run of `key`) gives the runtime the run's identity."""
        inspector = self.inspector
        if inspector.exact is not None:
            identity = (
                identity_of(run, self.state, inspector.inputs.env) if run is not None else None
            )
            return inspector.session(key, run=identity), None
        shape = self.kind(key)
        built = self.shapes.get(shape)
        if built is None:
            session = inspector.session(key)
            built = self.shapes[shape] = (session, session.system_prompt.count(key))
        session, uses = built
        if session.session_key == key:
            return session, None
        return session, uses * (len(key) - len(session.session_key))

    def compare(self, run: RecordedRun) -> Verdict:
        """`run` beside ctxscope's prediction of its session key."""
        made, made_for = self.shared(run)
        return retimed(made, made_for, run.generated_at)

    def for_run(self, run: RecordedRun) -> Predictions:
        """The predictions made with the rules of the release that recorded `run` (this one's
        when it is the same release, when `--profile` names the rules, for a runtime whose rules
        are not modelled by release (`Runtime.releases`), or in exact mode: the installed
        runtime writes the text)."""

        # The workspace's profile (its scenario's, or the version detected) models its runtime
        # now, not the run's; `--profile` given to the command keeps the one asked for.
        inputs = self.inspector.inputs
        asked = (self.inspector.overrides or {}).get("profile") is not None
        if self.inspector.exact is not None or asked or not modelled_by_release(inputs.profile):
            return self
        ran, _ = run_release(run)
        line = tuple(ran.split(".")[:2])
        name = next(
            (p for v, p in sorted(modelled().items()) if tuple(map(str, v[:2])) == line), None
        )
        if name is None or name == inputs.profile.name:
            return self
        found = self.releases.get(name)
        if found is None:
            found = self.releases[name] = Predictions(
                self.inspector.with_profile(name), self.state, self.release_now
            )
        return found

    def shared(self, run: RecordedRun) -> tuple[Verdict, int | None]:
        """`run`'s comparison, and the run time its texts name when it was made for
        another run of the same shape (None: made for this one); `retimed` makes it
        this run's."""
        other = self.for_run(run)
        if other is not self:
            return other.shared(run)
        if run.shape is None or self.inspector.exact is not None:
            return self._compare(run, *self.session(run.session_key, run)), None
        name = run.session_key
        group = self._group(name)
        # the runs of one kind, key length, store and shape share all but their time
        quick = (group, len(name), run.store, run.app_version, run.shape)
        known = self.quick.get(quick) if group is not None else None
        if known is None:
            agent, kind = self.kind(name)
            built = self.shapes.get((agent, kind))
            if built is None:
                return self._compare(run, *self.session(name)), None
            session, uses = built
            delta = (
                None
                if session.session_key == name
                else uses * (len(name) - len(session.session_key))
            )
            base = (agent, kind, run.store, run.app_version, run.shape)
            mtimes = self.mtimes.get(base)
            if mtimes is None:
                mtimes = self.mtimes[base] = self._mtimes(run, session)
            known = ((*base, delta), mtimes, session)
            if group is not None and delta is not None:
                self.quick[quick] = known
        prefix, mtimes, session = known
        generated = run.generated_at
        # which files changed since the run: those modified after it
        after = None if generated is None else bisect.bisect_right(mtimes, generated)
        key = (*prefix, after)
        found = self.compared.get(key)
        if found is None:
            # a listing's run holds every figure a comparison reads (`store.LISTED`)
            made = self._compare(run, session, prefix[-1])
            self.compared[key] = (made, generated)
            return made, None
        return found

    def _mtimes(self, run: RecordedRun, session: Session) -> list[float]:
        """The modification times (ms) of the files a comparison of `run` looks at."""
        paths = {f.path for f in session.files} | {path_now(f, run, session) for f in run.files()}
        out = []
        for path in paths:
            if path:
                with contextlib.suppress(OSError):
                    out.append(self.stat(path).st_mtime * 1000)
        return sorted(out)

    def _compare(self, run: RecordedRun, session: Session, delta: int | None) -> Verdict:
        agent = session.agent_id
        inputs = self.inspector.inputs
        if agent not in self.limits:
            self.limits[agent] = self._budget(inputs.profile, inputs.config, agent)
        ev = Evidence(
            run,
            self.limits[agent],
            limits_set_by(inputs, agent, session.kind),
            self.release_now,
            self.stat,
            key_delta=delta,
        )
        return run_verdict(ev, session)


def newest_rows(rows: list[RunRow], most: int, keep: str | None = None) -> list[RunRow]:
    """The `most` newest runs of `rows` (and the session `keep`), in their tree order."""
    if len(rows) <= most:
        return rows
    newest = sorted(rows, key=lambda r: -(r.run.when or 0))[:most]
    picked = {id(r) for r in newest}
    return [r for r in rows if id(r) in picked or r.run.session_key == keep]
