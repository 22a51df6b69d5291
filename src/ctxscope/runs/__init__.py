"""Runs: what each agent and subagent was actually told, from OpenClaw's own session records
(`store`), as records (`model`), beside ctxscope's prediction of the same session today
(`compare`).

`recorded_run(key)` gives one session's recorded run; `list_runs(...)` the state folder's
sessions as a tree, each with its comparison.
"""

from __future__ import annotations

import bisect
import contextlib
import os
import time
from collections.abc import Iterable, Mapping
from dataclasses import field
from typing import TYPE_CHECKING, Any

from ctxscope.model import Diagnostic, Session
from ctxscope.record import record
from ctxscope.runs.compare import Comparison, compare, retimed, run_release
from ctxscope.runs.listing import SCREENFUL, read_newest
from ctxscope.runs.recorded import RecordedFile, RecordedRun, StoreRead, path_now
from ctxscope.runs.store import (
    read_state,
    read_store,
    read_whole,
    state_dir,
    state_folder,
    store_files,
)
from ctxscope.secrets import mask_secrets

if TYPE_CHECKING:
    from ctxscope.api import Inspector
    from ctxscope.inputs import Inputs

__all__ = [
    "SCREENFUL",
    "Comparison",
    "RecordedFile",
    "RecordedRun",
    "RunRow",
    "RunsView",
    "find_run",
    "list_runs",
    "parse_duration",
    "read_newest",
    "read_state",
    "recorded_run",
    "state_dir",
    "state_folder",
]


def recorded_run(
    session_key: str,
    *,
    state: str | os.PathLike[str] | None = None,
    config: Mapping[str, Any] | None = None,
) -> RecordedRun | None:
    """The run OpenClaw recorded for `session_key` in the state folder (`state`, else
    `$OPENCLAW_STATE_DIR`, else `~/.openclaw`; `config`: the gateway config's data, for
    `session.store`), or None when no store holds it. Read-only: nothing in the state folder
    changes. Store problems are on `find_run(...).problems`."""
    found = find_run(session_key, state=state, config=config)
    return found.runs[0] if found.runs else None


def find_run(
    session_key: str,
    *,
    state: str | os.PathLike[str] | None = None,
    config: Mapping[str, Any] | None = None,
) -> StoreRead:
    """The stores of the state folder searched for `session_key` (each reads only that key):
    `runs` holds the run found (the first store's, databases first; an exact key before one
    that matches lower-cased, as 2026.9 keys sessions) or nothing; `stores` every store
    searched and `problems` what stood in the way, each naming its file."""
    wanted = session_key.strip()
    agent = wanted.split(":")[1] if wanted.count(":") >= 2 else None
    folder = state_dir(state)
    read = StoreRead(str(folder))
    if not folder.is_dir():
        return read_state(folder)  # the problem that names the missing folder
    keys = list(dict.fromkeys([wanted, wanted.lower()]))
    found: list[RecordedRun] = []
    for path in store_files(folder, config, [agent] if agent else ()):
        runs, problems = read_store(path, keys=keys)
        read.stores.append(str(path))
        read.problems += problems
        found += runs
    exact = [r for r in found if r.session_key == wanted]
    read.runs = (exact or found)[:1]
    return read


@record
class RunRow:
    """One session of the tree: its run, its depth in the tree, and its comparison."""

    run: RecordedRun
    level: int
    _comparison: Comparison | None = None
    _made_for: int | None = field(default=None, repr=False, compare=False)
    """The run time `_comparison`'s texts name, when it was made for another run of the
    same figures (see `Predictions.shared`): told this run's time when first asked."""

    @property
    def comparison(self) -> Comparison | None:
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


_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}


def parse_duration(text: str) -> float:
    """Seconds in `30s`, `15m`, `2h`, `7d`, `1w` (or a bare number of seconds); ValueError
    for anything else."""
    value = text.strip().lower()
    unit = value[-1:] if value[-1:] in _UNITS else "s"
    number = value[:-1] if value[-1:] in _UNITS else value
    seconds = float(number) * _UNITS[unit]
    if not seconds >= 0 or seconds == float("inf"):
        raise ValueError(text)
    return seconds


def tree(runs: Iterable[RecordedRun]) -> list[tuple[RecordedRun, int]]:
    """The runs in tree order: each root (spawned by no session of the list) by time,
    newest first, each followed by the sessions it spawned, oldest first, indented."""
    runs = list(runs)
    keys = {r.session_key for r in runs}
    children: dict[str, list[RecordedRun]] = {}
    roots = []
    for run in runs:
        parent = run.spawned_by
        if parent and parent in keys and parent != run.session_key:
            children.setdefault(parent, []).append(run)
        else:
            roots.append(run)
    roots.sort(key=lambda r: (-(r.when or 0), r.session_key))
    for spawned in children.values():
        spawned.sort(key=lambda r: (r.when or 0, r.session_key), reverse=True)
    out: list[tuple[RecordedRun, int]] = []
    seen: set[str] = set()

    def walk(top: RecordedRun) -> None:
        stack = [(top, 0)]  # each list of children reversed: popped oldest first
        while stack:
            run, level = stack.pop()
            if run.session_key in seen:
                continue
            seen.add(run.session_key)
            out.append((run, level))
            below = children.get(run.session_key)
            if below:
                stack += [(child, level + 1) for child in below]

    for root in roots:
        walk(root)
    for run in runs:  # a cycle of spawnedBy links: shown at the top level
        if run.session_key not in seen:
            walk(run)
    return out


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
    `listing.read_newest`) of `agent`'s, written in the last `since` seconds, and the
    sessions they were spawned by; or one `session` key and the sessions it spawned. Each
    is compared with `inspector`'s prediction of the same key (none without an inspector).
    `whole`: each report whole (default: for one `session`; always in exact mode), else the
    figures a listing shows. `read`: the stores as read already, in place of reading them.
    `cache`: a listing of every session (`limit=None`) kept in the cache folder for the
    next, or taken from it, while its database stays as it is (`listcache`)."""
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
        from ctxscope.openclaw.prompt import budget_limits

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
        self.compared: dict[tuple[Any, ...], tuple[Comparison, int | None]] = {}
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
            from ctxscope.runs.identity import identity_of

            identity = identity_of(run, self.state) if run is not None else None
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

    def compare(self, run: RecordedRun) -> Comparison:
        """`run` beside ctxscope's prediction of its session key."""
        made, made_for = self.shared(run)
        return retimed(made, made_for, run.generated_at)

    def for_run(self, run: RecordedRun) -> Predictions:
        """The predictions made with the rules of the release that recorded `run` (this one's
        when it is the same release, when `--profile` names the rules, for a family other
        than OpenClaw's, or in exact mode: the installed runtime writes the text)."""
        from ctxscope.openclaw.versions import AUTO, modelled

        # The workspace's profile (its scenario's, or the version detected) models its runtime
        # now, not the run's; `--profile` given to the command keeps the one asked for.
        inputs = self.inspector.inputs
        asked = (self.inspector.overrides or {}).get("profile") is not None
        if self.inspector.exact is not None or asked or inputs.profile.family != AUTO:
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

    def shared(self, run: RecordedRun) -> tuple[Comparison, int | None]:
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

    def _compare(self, run: RecordedRun, session: Session, delta: int | None) -> Comparison:
        agent = session.agent_id
        inputs = self.inspector.inputs
        if agent not in self.limits:
            self.limits[agent] = self._budget(inputs.profile, inputs.config, agent)
        return compare(
            run,
            session,
            limits=self.limits[agent],
            stat=self.stat,
            key_delta=delta,
            release_now=self.release_now,
            set_by=limits_set_by(inputs, agent, session.kind),
        )


def limits_set_by(inputs: Inputs, agent: str, kind: str = "") -> dict[str, str]:
    """Where the config sets each bootstrap limit the session reads (`openclaw.json:12`):
    the agent's own entry, where the release reads one, else `agents.defaults`; the tool
    policy's keys it sets (`tools.deny`); for an agent's main session (`kind`), the key that
    names its model (`model`: `agents.defaults.model.primary (openclaw.json:5)`)."""
    config = inputs.config
    name = os.path.basename(config.path or "openclaw.json")
    out = {}
    entries = config.get("agents.list")
    index = next(
        (
            i
            for i, e in enumerate(entries if isinstance(entries, list) else [])
            if isinstance(e, dict) and str(e.get("id", "")).strip().lower() == agent
        ),
        None,
    )
    own = entries[index] if index is not None and inputs.profile.per_agent_limits else {}
    for key in ("bootstrapMaxChars", "bootstrapTotalMaxChars"):
        if own.get(key) is not None:
            dotted = f"agents.list[{index}].{key}"
        elif config.get(f"agents.defaults.{key}") is not None:
            dotted = f"agents.defaults.{key}"
        else:
            continue
        line = config.line_of(dotted)
        out[key] = f"{name}:{line}" if line else f"{name}, {dotted}"
    for dotted in ("tools.profile", "tools.allow", "tools.alsoAllow", "tools.deny"):
        if config.get(dotted) is not None:
            line = config.line_of(dotted)
            out[dotted] = f"{name}:{line}" if line else name
    if kind == "main":  # a child's model comes from the spawn's ladder
        found = entries[index] if index is not None else {}
        if inputs.scenario.model:
            out["model"] = "the scenario's model"
        else:
            for where, value in (
                (f"agents.list[{index}].model", found.get("model")),
                ("agents.defaults.model", config.get("agents.defaults.model")),
            ):
                if isinstance(value, dict) and isinstance(value.get("primary"), str):
                    where += ".primary"
                elif not (isinstance(value, str) and value):
                    continue
                line = config.line_of(where)
                out["model"] = f"{where} ({name}:{line})" if line else f"{where} ({name})"
                break
    return out
