"""Time zones as the runtime names them: a configured IANA name when valid, else the host's
(as Node reports it)."""

from __future__ import annotations

import contextlib
import functools
import os
import zoneinfo
from pathlib import Path


def valid_zone(name: object) -> str | None:
    """`name` when it is a time zone the runtime accepts (an IANA name), else None."""
    if not isinstance(name, str) or not name.strip():
        return None
    try:
        zoneinfo.ZoneInfo(name.strip())
    except (ValueError, zoneinfo.ZoneInfoNotFoundError):
        return None
    return name.strip()


_UTC_NAMES = {"Etc/UTC", "Etc/UCT", "Etc/Universal", "Etc/Zulu", "UCT", "Universal", "Zulu"}
_UTC_NAMES |= {f"{p}GMT{s}" for p in ("", "Etc/") for s in ("", "0", "+0", "-0")}
_UTC_NAMES |= {"Greenwich", "Etc/Greenwich"}


@functools.cache
def host_zone(tz: str = "") -> str:
    """This machine's IANA time zone (`tz`, the environment's `$TZ`, else where
    /etc/localtime points, else /etc/timezone), else UTC; the aliases of UTC are named
    `UTC`, as Node (ICU) names the host's zone."""
    candidates = [tz.removeprefix(":")]
    with contextlib.suppress(OSError):
        target = os.path.realpath("/etc/localtime")
        candidates.append(target.partition("zoneinfo/")[2])
    with contextlib.suppress(OSError):
        candidates.append(Path("/etc/timezone").read_text(encoding="utf-8").strip())
    zone = next((z for z in map(valid_zone, candidates) if z), "UTC")
    return "UTC" if zone in _UTC_NAMES else zone
