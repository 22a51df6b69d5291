"""The app's controller (`ctxscope.tui.controller`) without a terminal: which build or error
is shown, what follows a build (scripts, check, collection, watcher, marks), the fill of
hidden panels, the check's findings, the watcher's news, the user's decisions and what the
prediction is compared with (the runs read, the pinned side). Real builds of a copy of the
sample workspace."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import pytest

from ctxscope.api import Inspector
from ctxscope.core.model import Diagnostic
from ctxscope.diff.runlist import RunsView
from ctxscope.diff.verdict import Verdict
from ctxscope.runs.recorded import RecordedRun
from ctxscope.scripts import TrustStore
from ctxscope.tui.build import Build, Builder, BuildError
from ctxscope.tui.controller import (
    CHANGE_MARK_S,
    CHECK_AFTER_S,
    COLLECT_AFTER_S,
    COLLECT_EVERY,
    HISTORY,
    PREFILL_AFTER_S,
    PREFILL_STEP_S,
    Controller,
    Prefill,
)
from ctxscope.tui.recorded import Beside
from tests.conftest import SAMPLE

PANELS = ("files", "scripts", "problems", "map")


@pytest.fixture
def builder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Builder:
    monkeypatch.setenv("CTXSCOPE_CONFIG_DIR", str(tmp_path / "config"))
    ws = tmp_path / "ws"
    shutil.copytree(SAMPLE, ws, symlinks=True)
    return Builder(Inspector(ws, trust_store=TrustStore(tmp_path / "trust.json")), frozen=True)


def built(builder: Builder) -> Build:
    build = builder.build()
    assert build is not None
    return build


def test_the_newest_generation_wins(builder: Builder) -> None:
    ctl = Controller(builder, panels=PANELS, watch=False)
    old, new = ctl.next_build(), ctl.next_build()
    assert (old, new) == (1, 2)
    assert ctl.build_cancelled(old) and not ctl.build_cancelled(new)
    first = built(builder)
    assert ctl.apply_build(new, first) is not None
    assert ctl.build is first and ctl.builds_applied == 1
    # A build or an error of an older generation, arriving late, is not shown.
    assert ctl.apply_build(old, built(builder)) is None
    assert ctl.apply_error(old, Diagnostic("error", "late")) is None
    assert ctl.build is first and ctl.build_error is None
    # A newer failed rebuild keeps the last good build, with the error beside it.
    broken = Diagnostic("error", "bad JSON", "openclaw.json", 2)
    ctl.scripts_running = True
    after = ctl.apply_error(ctl.next_build(), broken)
    assert after is not None and after.watch is None
    assert ctl.build is first and ctl.build_error is broken and not ctl.scripts_running
    # The next good build clears it.
    assert ctl.apply_build(ctl.next_build(), built(builder)) is not None
    assert ctl.build_error is None and ctl.builds_applied == 2


def test_what_follows_a_build(builder: Builder) -> None:
    ctl = Controller(builder, panels=PANELS, watch=True)
    build = built(builder)
    after = ctl.apply_build(ctl.next_build(), build)
    assert after is not None and after.before is None
    # The sample's scripts are untrusted (not pending) and its Rye space is left to check.
    assert after.run_scripts is build.scripts_pending is False
    assert after.check is build.check_pending is True
    assert after.watch == (build.watch_paths, build.watch_tops)
    assert not after.calm_collector and after.collect_after is None
    assert after.unmark_after is None and not after.say_exact
    # The watcher runs on those folders: the next build leaves it alone.
    ctl.start_watch(build.watch_paths, build.watch_tops)
    again = ctl.apply_build(ctl.next_build(), built(builder))
    assert again is not None and again.watch is None and again.before is build
    # Without a watcher nothing is watched, and a failed rebuild watches nothing either.
    quiet = Controller(builder, panels=PANELS, watch=False)
    first = quiet.apply_build(quiet.next_build(), built(builder))
    assert first is not None and first.watch is None
    err = quiet.apply_error(quiet.next_build(), Diagnostic("error", "x"))
    assert err is not None and err.watch is None and err.check  # the kept build's check


def test_a_failed_first_build_watches_the_workspace(builder: Builder) -> None:
    ctl = Controller(builder, panels=PANELS, watch=True)
    after = ctl.apply_error(ctl.next_build(), Diagnostic("error", "no config"))
    assert after is not None
    assert after.watch == [builder.inspector.workspace] and not after.check


def test_scripts_pending_run_and_only_a_newer_run_cancels_them(builder: Builder) -> None:
    builder.inspector.trust()
    ctl = Controller(builder, panels=PANELS, watch=False)
    generation = ctl.next_build()
    build = built(builder)
    assert build.scripts_pending and build.trusted
    after = ctl.apply_build(generation, build)
    assert after is not None and after.run_scripts and ctl.scripts_running
    assert not ctl.scripts_cancelled(generation)
    ctl.next_build()  # a newer rebuild does not stop the scripts run
    assert not ctl.scripts_cancelled(generation)
    ctl.want_scripts(generation + 5)
    assert ctl.scripts_cancelled(generation)


def test_the_calmed_collector_is_calmed_once_and_collects_after_quiet_or_every_n(
    builder: Builder,
) -> None:
    ctl = Controller(builder, panels=PANELS, watch=False, calm_gc=True)
    build = built(builder)
    plans = [ctl.apply_build(ctl.next_build(), build) for _ in range(COLLECT_EVERY + 1)]
    assert [p.calm_collector for p in plans if p] == [True] + [False] * COLLECT_EVERY
    waits = [p.collect_after for p in plans if p]
    assert waits[: COLLECT_EVERY - 1] == [COLLECT_AFTER_S] * (COLLECT_EVERY - 1)
    assert waits[COLLECT_EVERY - 1 :] == [0.1, 0.1]  # edits that never pause
    ctl.collected()
    again = ctl.apply_build(ctl.next_build(), build)
    assert again is not None and again.collect_after == COLLECT_AFTER_S


def test_a_rebuild_marks_the_sections_it_changed_and_keeps_file_sizes(
    builder: Builder,
) -> None:
    ctl = Controller(builder, panels=PANELS, watch=False)
    ctl.apply_build(ctl.next_build(), built(builder))
    same = ctl.apply_build(ctl.next_build(), built(builder))
    assert same is not None and same.unmark_after is None
    assert ctl.changed_sections == {"main": set(), "child": set()}
    soul = builder.inspector.workspace / "SOUL.md"
    soul.write_text(soul.read_text() + "\nOne more rule.\n")
    after = ctl.apply_build(ctl.next_build(), built(builder))
    assert after is not None and after.unmark_after == CHANGE_MARK_S
    changed = ctl.changed_sections["main"]
    assert changed and all(
        "One more rule." in s.text
        for s in ctl.build.report.requester.sections  # type: ignore[union-attr]
        if s.id in changed
    )
    sizes = ctl.file_history[f"main:{soul}"]
    assert len(sizes) == 3 and sizes[2] > sizes[1] == sizes[0]
    ctl.forget_changes()
    assert ctl.changed_sections == {}
    build = ctl.build
    assert build is not None
    for _ in range(HISTORY + 5):
        ctl.remember_changes(build, build)
    assert len(ctl.file_history[f"main:{soul}"]) == HISTORY


def test_another_agent_in_a_pane_is_not_an_edit(builder: Builder) -> None:
    ctl = Controller(builder, panels=PANELS, watch=False)
    ctl.apply_build(ctl.next_build(), built(builder))
    builder.set_edits({"requester": "coder"})
    after = ctl.apply_build(ctl.next_build(), built(builder))
    assert after is not None
    assert "main" not in ctl.changed_sections


def test_hidden_panels_are_filled_one_by_one_once_keys_pause(builder: Builder) -> None:
    ctl = Controller(builder, panels=PANELS, watch=False)
    assert ctl.take("files") is None  # no build yet
    ctl.apply_build(ctl.next_build(), built(builder))
    ctl.all_stale()
    ctl.note_input(100.0)
    # A key 0.2 s ago: wait for the rest of the quiet time.
    step = ctl.prefill(100.2, active="map")
    assert step.panel is None and step.wait == pytest.approx(PREFILL_AFTER_S - 0.2)
    assert ctl.prefill(100.2, active="map", quiet=3.0).wait == pytest.approx(2.8)
    now = 100.0 + PREFILL_AFTER_S
    filled = []
    while True:
        step = ctl.prefill(now, active="map")
        if step.panel is not None:
            assert ctl.take(step.panel) is ctl.build
            filled.append(step.panel)
        if step.wait is None:
            break
        assert step.wait == PREFILL_STEP_S
    assert filled == ["files", "scripts", "problems"]  # the panel on show is not prefilled
    assert ctl.stale == {"map"} and ctl.take("files") is None
    assert ctl.take("map") is ctl.build and not ctl.stale
    assert ctl.prefill(now, active="map") == Prefill()


def test_the_check_applies_to_the_build_shown_only(builder: Builder) -> None:
    ctl = Controller(builder, panels=PANELS, watch=False)
    generation = ctl.next_build()
    build = built(builder)
    ctl.apply_build(generation, build)
    assert build.check_pending and CHECK_AFTER_S > 0
    findings = ctl.check(generation, build)
    assert findings is not None
    assert ctl.apply_check(build, findings)
    assert not build.check_pending and build.findings == findings
    assert ctl.stale == {"problems"}
    # A newer rebuild cancels the check; a stopped app too; a replaced build takes none.
    older = built(builder)
    older.check_pending = True
    ctl.next_build()
    assert ctl.check(generation, older) is None
    assert ctl.check(ctl.generation, older, running=lambda: False) is None
    assert not ctl.apply_check(older, findings) and older.check_pending


def test_a_failing_job_is_shown_as_its_error_never_raised(builder: Builder) -> None:
    bad = Diagnostic("error", "bad config", "openclaw.json", 1)

    def refused(cancelled: object) -> Build:
        raise BuildError(bad)

    def crashed(cancelled: object) -> Build:
        raise ValueError("boom")

    def dropped(cancelled: object) -> None:
        return None

    assert Controller.outcome(refused, "building", lambda: False) == ("error", bad)
    kind, diag = Controller.outcome(crashed, "building", lambda: False)  # type: ignore[misc]
    assert kind == "error" and isinstance(diag, Diagnostic)
    assert str(diag) == str(
        Diagnostic("error", "internal error while building: ValueError('boom')")
    )
    assert Controller.outcome(dropped, "building", lambda: False) is None
    assert Controller.outcome(refused, "building", lambda: True) is None
    build = built(builder)
    assert Controller.outcome(lambda cancelled: build, "x", lambda: False) == ("build", build)


def test_the_watchers_news_reach_the_change_feed(builder: Builder) -> None:
    ctl = Controller(builder, panels=PANELS, watch=True)
    ws = builder.inspector.workspace
    feed = builder.inspector.snapshot.changes
    stop = ctl.start_watch([ws])
    assert ctl.watched == (ws,) and not stop.is_set()
    since = feed.now()
    ctl.watch_ready([ws])
    assert feed.quiet(ws, feed.now())
    ctl.files_changed([str(ws / "notes.txt")])
    assert not feed.quiet(ws, since)
    mark = feed.now()
    ctl.files_changed(["*"])  # anything may have changed
    assert not feed.quiet(ws / "elsewhere", mark)
    # A watcher since replaced is not believed; the new one stops the old.
    again = ctl.start_watch([ws / "memory"])
    assert stop.is_set() and not again.is_set()
    ctl.watch_ready([ws])
    assert not feed.quiet(ws, feed.now())
    ctl.stop_watch()
    assert again.is_set()

    ctl.watch_bounded([(ws, "too many files")])
    assert [d.code for d in ctl.watch_bounds] == ["watch-bound"]
    assert "problems" in ctl.stale
    assert ctl.watch_trouble("inotify limit", polling=True).severity == "warning"
    assert ctl.watch_trouble("cannot watch", polling=False).severity == "error"
    assert ctl.watch_problem is not None and ctl.watch_problem.message == "cannot watch"


def test_trust_revoke_and_rerun(builder: Builder) -> None:
    ctl = Controller(builder, panels=PANELS, watch=False)
    ctl.apply_build(ctl.next_build(), built(builder))
    asked = ctl.trust_question()
    assert not asked.revoke and asked.key == builder.inspector.inputs.trust_key
    assert asked.folder == str(builder.inspector.workspace) and asked.listing
    assert not ctl.rerun_scripts()  # untrusted: they will not run
    ctl.trust(asked.key)
    ctl.apply_build(ctl.next_build(), built(builder))
    assert ctl.build is not None and ctl.build.trusted
    assert ctl.trust_question().revoke
    assert ctl.rerun_scripts()
    ctl.revoke()
    ctl.apply_build(ctl.next_build(), built(builder))
    assert ctl.build is not None and not ctl.build.trusted


def test_exact_mode_toggles_and_the_next_build_says_how_it_went(builder: Builder) -> None:
    ctl = Controller(builder, panels=PANELS, watch=False)
    assert ctl.toggle_exact() is True and builder.exact_wanted is True
    assert ctl.toggle_exact() is False and builder.exact_wanted is False
    build = built(builder)
    after = ctl.apply_build(ctl.next_build(), build)
    assert after is not None and after.say_exact
    later = ctl.apply_build(ctl.next_build(), build)
    assert later is not None and not later.say_exact


def test_scenario_edits_accumulate_and_reset(builder: Builder) -> None:
    ctl = Controller(builder, panels=PANELS, watch=False)
    ctl.edit_scenario({"target": "main"})
    ctl.edit_scenario({"task": "write the report"})
    assert builder.edits == {"target": "main", "task": "write the report"}
    assert built(builder).report.scenario.target_agent == "main"
    ctl.reset_edits()
    assert builder.edits == {}


def test_explain_answers_and_a_failure_is_an_answer(builder: Builder) -> None:
    ctl = Controller(builder, panels=PANELS, watch=False)
    build = built(builder)
    answers = ctl.explain("SOUL.md", build)
    assert answers[0].scope == "agent:main:main"
    assert any(a.present for a in answers)
    broken = dataclasses.replace(build, inputs=None)  # type: ignore[arg-type]
    [failed] = ctl.explain("SOUL.md", broken)
    assert failed.status == "error" and failed.rule.startswith("could not explain: ")


def test_the_rye_view_toggles_only_with_a_thread(builder: Builder) -> None:
    ctl = Controller(builder, panels=PANELS, watch=False)
    assert not ctl.toggle_rye() and not ctl.rye_pane  # nothing built yet
    ctl.apply_build(ctl.next_build(), built(builder))
    assert ctl.toggle_rye() and ctl.rye_pane
    assert ctl.toggle_rye() and not ctl.rye_pane
    builder.set_edits({"directive": None})
    builder.base_overrides["directive"] = ""
    ctl.apply_build(ctl.next_build(), built(builder))
    assert ctl.build is not None and ctl.build.report.thread is None
    assert not ctl.toggle_rye() and not ctl.rye_pane


def test_the_bars_follow_the_state(builder: Builder) -> None:
    ctl = Controller(builder, panels=PANELS, watch=False)
    top, status = ctl.bars(frozen=True)
    assert status.text == "building…" and f"  ·  {ctl.workspace}" in top
    ctl.apply_build(ctl.next_build(), built(builder))
    ctl.diff_mode = True
    top, status = ctl.bars(frozen=True)
    assert top.startswith("[diff linked] main → coder")
    assert status.text.startswith("build #1  ·  0 error(s)") and " ms" not in status.text
    ctl.scripts_running = True
    assert ctl.bars()[1].text.endswith("⟳ scripts running…")
    ctl.apply_error(ctl.next_build(), Diagnostic("error", "bad JSON", "openclaw.json"))
    assert ctl.bars()[1].error


def test_the_text_a_truncation_cut_and_the_line_of_a_file(builder: Builder) -> None:
    ctl = Controller(builder, panels=PANELS, watch=False)
    build = built(builder)
    memory = build.source.requester.file("MEMORY.md")
    soul = build.source.requester.file("SOUL.md")
    assert memory is not None and soul is not None
    cut = ctl.cut_text(memory)
    assert cut is not None
    first, last, total, text = cut
    assert 1 < first <= last <= total and text
    assert ctl.cut_text(soul) is None  # not cut
    assert ctl.file_line(soul, 0) == 1
    second = soul.body.index("\n") + 1
    assert ctl.file_line(soul, second) == 2


def test_a_listing_of_the_runs_is_kept_and_a_new_run_of_the_one_beside_is_read_again(
    builder: Builder,
) -> None:
    """The Runs panel's listing is the controller's; of the runs new since the last read,
    only the one put beside the panes is read again (its record changed)."""

    ctl = Controller(builder, panels=PANELS, watch=False, state="/state")
    view = RunsView(state="/state", stores=[], rows=[])
    assert ctl.runs_read(view, ["agent:main:main"], []) is None  # nothing beside the panes
    assert (ctl.runs_view, ctl.runs_shown, ctl.runs_reads) == (view, [], 1)
    run = RecordedRun("agent:main:main", "main", "store", "sqlite")
    ctl.recorded = Beside(run, Verdict("agrees", "as predicted"), "main")
    assert ctl.runs_read(view, ["agent:coder:subagent:x"], []) is None
    assert ctl.runs_read(view, ["agent:main:main"], []) == "agent:main:main"
    assert ctl.runs_reads == 3 and ctl.runs_state == "/state"


def test_unpinning_says_whether_anything_was_pinned(builder: Builder) -> None:
    ctl = Controller(builder, panels=PANELS, watch=False)
    assert ctl.unpin() is False
    ctl.pinned = object()
    assert ctl.unpin() is True and ctl.pinned is None
