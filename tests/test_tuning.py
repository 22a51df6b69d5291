"""The collector's tuning: only where an entry point turned it on, only on the versions it was
measured on, and right whatever the interpreter froze before ctxscope started."""

from __future__ import annotations

import gc

import pytest

from ctxscope.infra import tuning


def young(objects: list[list[int]]) -> int:
    """How many of `objects` are in the collector's young generations."""
    ids = {id(o) for o in objects}
    return sum(id(o) in ids for gen in (0, 1) for o in gc.get_objects(generation=gen))


def test_settle_works_when_the_interpreter_started_with_objects_frozen(
    tuned: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """CPython 3.12 starts with a few hundred objects frozen (375): `settle` still works
    there, since what tells it whether ctxscope froze anything is its own record."""
    real = gc.get_freeze_count
    monkeypatch.setattr(gc, "get_freeze_count", lambda: real() + 375)
    kept = [[i] for i in range(500)]
    assert young(kept) > 0
    tuning.settle()
    assert young(kept) == 0
    assert gc.get_freeze_count() >= 375  # the interpreter's own stay counted as frozen


def test_settle_leaves_what_the_app_froze_frozen(tuned: None) -> None:
    tuning.calm_app()
    frozen = gc.get_freeze_count()
    assert frozen > 0
    kept = [[i] for i in range(500)]
    tuning.settle()
    assert gc.get_freeze_count() >= frozen
    assert young(kept) > 0  # nothing was moved: an unfreeze would have thawed the app's heap


def test_without_an_entry_point_nothing_is_tuned(monkeypatch: pytest.MonkeyPatch) -> None:
    """The Python API: the collector stays on, its generations as they are."""
    monkeypatch.setattr(tuning, "_state", {"on": False, "froze": False})
    kept = [[i] for i in range(500)]
    with tuning.paused():
        assert gc.isenabled()
    tuning.settle()
    assert young(kept) > 0


def test_an_untuned_python_keeps_its_own_collector(
    tuned: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A version the tricks were not measured on (3.14's incremental collector, another
    implementation) gets the plain behaviour even from the entry points."""
    monkeypatch.setattr(tuning, "TUNED", False)
    thresholds = gc.get_threshold()
    tuning.for_command()
    tuning.calm_app()
    assert gc.get_threshold() == thresholds
    with tuning.paused():
        assert gc.isenabled()
    kept = [[i] for i in range(500)]
    tuning.settle()
    assert young(kept) > 0


@pytest.mark.skipif(not tuning.TUNED, reason="the tricks apply on CPython 3.11 to 3.13")
def test_a_command_makes_young_collections_rarer_and_pauses_the_collector(tuned: None) -> None:
    tuning.for_command()
    assert gc.get_threshold() == tuning.COMMAND_THRESHOLDS
    with tuning.paused():
        assert not gc.isenabled()
    assert gc.isenabled()
