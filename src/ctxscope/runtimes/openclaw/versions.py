"""Which OpenClaw version a workspace runs, and so which bundled profile models it.

`--profile openclaw` (the default) means: the version in the config's
`meta.lastTouchedVersion` (what the runtime wrote when it last saved the config), else the
version of an `openclaw` installed on PATH or in `npm root -g`, else the newest version
ctxscope models. Any other name is taken as given.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ctxscope.core.model import Diagnostic
from ctxscope.core.record import record
from ctxscope.infra.filememo import FileMemo, read_json
from ctxscope.infra.paths import env_folder, on_path, programs_on_path
from ctxscope.runtimes.profiles import bundled_releases

AUTO = "openclaw"


@functools.cache
def modelled() -> dict[tuple[int, int, int], str]:
    """Each modelled release and its bundled profile (the profiles' `family: openclaw` and
    `version`); a release of the same year.month uses it too."""
    out = {}
    for name, (family, text) in bundled_releases().items():
        version = parse_version(text)
        if family == AUTO and version is not None:
            out[version] = name
    return out


_VERSION = re.compile(r"^\s*v?(\d{4})\.(\d{1,2})\.(\d{1,3})")


@record(frozen=True)
class RuntimeChoice:
    """The profile a build uses and why."""

    profile: str
    version: str
    """The runtime version the choice is about (empty when unknown)."""
    how: str
    """How it was chosen, in words."""
    package: str = ""
    """The installed `openclaw` package folder the runtime runs from, when known (exact
    mode's, else the one on PATH / in npm's global folder)."""


NO_CHOICE = RuntimeChoice("", "", "")


def parse_version(text: Any) -> tuple[int, int, int] | None:
    if not isinstance(text, str):
        return None
    m = _VERSION.match(text)
    return (int(m.group(1)), int(m.group(2)), int(m.group(3))) if m else None


def _show(version: tuple[int, int, int]) -> str:
    return ".".join(map(str, version))


def profile_for(version: tuple[int, int, int]) -> tuple[str, str | None]:
    """The profile modelling `version`, and a warning when it is not a modelled release line."""
    known = modelled()
    newest = max(known)
    oldest = min(known)
    same_line = [v for v in known if v[:2] == version[:2]]
    if version > newest:
        return known[newest], (
            f"OpenClaw {_show(version)} is newer than the newest version ctxscope models "
            f"({_show(newest)}); it is shown as {_show(newest)}, which may differ"
        )
    if same_line:
        return known[same_line[0]], None
    if version < oldest:
        return known[oldest], (
            f"OpenClaw {_show(version)} is older than the oldest version ctxscope models "
            f"({_show(oldest)}); it is shown as {_show(oldest)}, which may differ"
        )
    nearest = max(v for v in known if v < version)
    return known[nearest], (
        f"OpenClaw {_show(version)} is not a modelled release; it is shown as "
        f"{_show(nearest)} (the nearest older one), which may differ"
    )


def choose(
    spec: str,
    config: dict[str, Any],
    config_path: str | None,
    exact: tuple[str, str] | None = None,
) -> tuple[RuntimeChoice, list[Diagnostic]]:
    """The profile for `spec` (`openclaw` = detect the version), with a warning when the
    detected version is not one ctxscope models. `exact`: (version, folder) of the installed
    runtime exact mode asks, which then decides."""
    found = installed_openclaw()
    package = exact[1] if exact is not None else found[1] if found else ""
    if spec != AUTO:
        return RuntimeChoice(spec, "", "chosen by name", package), []
    meta = config.get("meta") if isinstance(config, dict) else None
    touched = parse_version(meta.get("lastTouchedVersion") if isinstance(meta, dict) else None)
    version = touched
    how = f"meta.lastTouchedVersion in {os.path.basename(config_path or 'the config')}"
    notes: list[Diagnostic] = []
    ran = parse_version(exact[0]) if exact is not None else None
    if exact is not None and ran is not None:
        version, how = ran, f"exact mode's openclaw at {exact[1]}"
        if touched is not None and touched[:2] != ran[:2]:
            notes.append(
                Diagnostic(
                    "warning",
                    f"the config was last written by OpenClaw {_show(touched)}; exact mode "
                    f"runs the installed {_show(ran)}, so the text is {_show(ran)}'s",
                    config_path,
                    code="runtime-version",
                )
            )
    if version is None and found is not None:
        version, how = found[0], f"the openclaw installed at {found[1]}"
    elif exact is None and touched is not None and found is not None and found[0] != touched:
        notes.append(
            Diagnostic(
                "warning",
                f"the config was last written by OpenClaw {_show(touched)} "
                f"(meta.lastTouchedVersion), but the openclaw installed at {found[1]} is "
                f"{_show(found[0])}; ctxscope uses {_show(touched)}, the config's (pass "
                "--profile to choose, or --exact to run the installed one)",
                config_path,
                _touched_line(config_path),
                code="runtime-version",
            )
        )
    if version is None:
        newest = max(modelled())
        return RuntimeChoice(
            modelled()[newest],
            _show(newest),
            "no version in the config and no installed openclaw: the newest modelled version",
            package,
        ), []
    profile, warning = profile_for(version)
    if warning:
        notes.append(Diagnostic("warning", warning, config_path, code="runtime-version"))
    return RuntimeChoice(profile, _show(version), how, package), notes


@functools.cache
def installed_openclaw() -> tuple[tuple[int, int, int], str] | None:
    """(version, package folder) of an `openclaw` on PATH, else in `npm root -g`; looked up
    once per process."""
    return next(openclaw_installs(), None)


def openclaw_installs() -> Iterator[tuple[tuple[int, int, int], str]]:
    """(version, package folder) of each `openclaw` on PATH (its absolute entries), in PATH
    order, then of the one in `npm root -g`; each looked for only when the one before it
    was not taken."""
    seen: set[Path] = set()
    for folder in _candidate_folders():
        version = package_version(folder)
        if version is not None and folder not in seen:
            seen.add(folder)
            yield version, str(folder)


def _candidate_folders() -> Iterator[Path]:
    for exe in programs_on_path("openclaw"):
        # The bin is a link into the package (…/openclaw/openclaw.mjs or …/dist/…).
        real = Path(os.path.realpath(exe))
        yield from [p for p in real.parents if (p / "package.json").is_file()][:2]
    root = npm_global_root()
    if root is not None:
        yield root / "openclaw"


def npm_global_root() -> Path | None:
    """What `npm root -g` prints, worked out without running npm (that costs a Node start):
    `$npm_config_prefix/lib/node_modules` (when absolute), else the `node_modules` folder
    npm itself is installed in."""
    prefix = env_folder("npm_config_prefix") or env_folder("NPM_CONFIG_PREFIX")
    if prefix is not None:
        return prefix / "lib" / "node_modules"
    npm = _on_path("npm")
    if npm is None:
        return None
    real = Path(os.path.realpath(npm))
    return next((p for p in real.parents if p.name == "node_modules"), None)


def _on_path(name: str) -> str | None:
    """What `shutil.which(name)` finds, from PATH's absolute entries only (`paths.on_path`;
    looked up there, since importing `shutil` and its compression modules costs a command
    that never runs the program a few milliseconds)."""
    return on_path(name)


_versions: FileMemo[tuple[int, int, int] | None] = FileMemo()
"""Each package's version by its `package.json` (a build asks several times, and the file is
large)."""


def package_version(folder: Path) -> tuple[int, int, int] | None:
    """The version in `folder/package.json` when it is the `openclaw` package (read again
    only once the file changed)."""
    path = folder / "package.json"
    return _versions.get(path, path, lambda: _openclaw_version(path))


def _openclaw_version(path: Path) -> tuple[int, int, int] | None:
    try:
        data = read_json(path)
    except (OSError, ValueError):
        return None
    if isinstance(data, dict) and data.get("name") == "openclaw":
        return parse_version(data.get("version"))
    return None


def _touched_line(config_path: str | None) -> int | None:
    """The line of `lastTouchedVersion` in the config file, when it is there."""
    if not config_path:
        return None
    try:
        with open(config_path, encoding="utf-8", errors="replace") as fh:
            for n, line in enumerate(fh, 1):
                if "lastTouchedVersion" in line:
                    return n
    except OSError:
        return None
    return None
