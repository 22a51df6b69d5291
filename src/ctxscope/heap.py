"""The cyclic garbage collector around work that allocates thousands of objects that live on.

A collection scans every container of the generations it collects. Parsing thousands of tool
files, or loading a cache of their results, makes tens of thousands of containers that are
freed by reference counting or kept for as long as the build; collections meanwhile would
scan them again and again only to find them alive. `collector_paused` holds collections
off during such work and `settle` then moves what it kept out of the young generations.
"""

from __future__ import annotations

import contextlib
import gc
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterator


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """The collector off meanwhile (a forked child inherits that); left as it was found."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def settle() -> None:
    """Everything the collector tracks moved at once into its oldest generation, where only
    the rare full collections look (unless this process froze objects: those stay frozen).
    Left young, objects kept from a large piece of work would be scanned by the next
    collections of the young generations, and their number would trigger a full one."""
    if gc.get_freeze_count() == 0:
        gc.freeze()  # both are O(1): whole lists are moved
        gc.unfreeze()
