"""Finding Rye's real system tier: installed bundles, --rye-system, $CTXSCOPE_RYE_SYSTEM."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from ctxscope.runtimes.rye import installed


def fake_site(root: Path) -> Path:
    """A site-packages folder with two ryeos bundles declared by entry points."""
    site = root / "site-packages"
    for package, dist, name in (
        ("ryeos_std", "ryeos-0.1.30", "ryeos"),
        ("ryeos_core", "ryeos_core-0.1.46", "ryeos-core"),
    ):
        (site / package / ".ai").mkdir(parents=True)
        (site / package / "__init__.py").write_text("")
        info = site / f"{dist}.dist-info"
        info.mkdir()
        (info / "entry_points.txt").write_text(
            f"[rye.bundles]\n{name} = {package}.bundle:get_bundle\n"
        )
    return site


def test_installed_bundles_are_found_without_importing_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    installed.installed.cache_clear()
    assert installed.installed() == []  # no ryeos beside ctxscope here
    site = fake_site(tmp_path)
    (site / "ryeos_std" / "__init__.py").write_text("raise SystemExit('imported')\n")
    monkeypatch.syspath_prepend(str(site))
    importlib.invalidate_caches()
    installed.installed.cache_clear()
    try:
        found = installed.installed()
    finally:
        installed.installed.cache_clear()
    # ryeos's order: entry point names sorted (`ryeos` before `ryeos-core`).
    assert found == [site / "ryeos_std" / ".ai", site / "ryeos_core" / ".ai"]


def test_explicit_folders_and_the_environment_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = fake_site(tmp_path)
    assert installed.system_tier([site], {}) == installed.expand(site)
    assert installed.expand(site / "ryeos_std") == [(site / "ryeos_std" / ".ai").resolve()]
    assert installed.expand(site / "ryeos_std" / ".ai") == [(site / "ryeos_std" / ".ai").resolve()]
    named = {installed.ENV: str(site / "ryeos_core")}
    assert installed.system_tier(None, named) == [(site / "ryeos_core" / ".ai").resolve()]
    with pytest.raises(installed.RyeSystemError, match="not a Rye system space"):
        installed.expand(tmp_path)
    with pytest.raises(installed.RyeSystemError, match="not found"):
        installed.expand(tmp_path / "nope")
