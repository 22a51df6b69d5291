"""How many skills a release lists, and in what form, once its skills catalog passes the
release's budget (the profile's `skills_budget`).

Two rules, carried over from the releases' skills loaders (the sizes are measured there):

- `compact` (2026.9): the catalog is sorted by name and cut to `max_count`; past `max_chars`
  it switches to its compact form, descriptions shortened to the longest length (between
  `describe_min` and `describe_max`) that fits, else left out; only when even names and
  locations do not fit are skills cut (the longest leading run that fits). A line above the
  catalog says which (`notes`). A context window smaller than `context_divisor` times the
  catalog shortens the descriptions again (to at least `context_describe_min`).
- `cut` (2026.2): the catalog in load order (the runtime's skills, then the workspace's),
  cut to `max_count`, then to the longest leading run whose catalog fits `max_chars`, with a
  line saying how many of how many were kept.

The limits are the config's `skills.limits.maxSkillsInPrompt` / `maxSkillsPromptChars` where
set (2026.9 also reads an agent's own `skillsLimits.maxSkillsPromptChars`).
Pure: sizes in, sizes out; no runtime text.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from ctxscope.core.record import record
from ctxscope.core.tokens import text_chars
from ctxscope.runtimes.skillrules import BudgetRules

NOTES = ("truncated", "compact_shortened", "compact_omitted", "detail_shortened", "detail_omitted")
# A `<skill>` entry's lines around its values: `  <skill>`, the name, description and location
# lines with their tags and indents, `  </skill>`, and the newlines between them.
ENTRY_WITHOUT_DESCRIPTION = 9 + 17 + 25 + 10 + 3
DESCRIPTION_LINE = 31 + 1
LIST_OPEN, LIST_CLOSE = len("<available_skills>"), len("</available_skills>") + 1
ELLIPSIS = 3


@record(frozen=True)
class Entry:
    """One skill of the catalog, by the sizes its entry is made of (escaped as listed)."""

    name: str
    name_chars: int
    location_chars: int
    description: str | None
    """The description's text (whitespace runs as one space), when known."""
    description_chars: int
    """Its chars as listed (escaped)."""
    raw_chars: int
    """Its chars before escaping."""
    runtime: bool = False

    def chars(self, describe: int | None) -> int:
        """The entry's chars with its description whole (None), shortened to `describe`
        chars, or left out (0)."""
        base = ENTRY_WITHOUT_DESCRIPTION + self.name_chars + self.location_chars
        if describe is None:
            return base + DESCRIPTION_LINE + self.description_chars
        shown = shortened_chars(self, describe) if describe > 0 else 0
        return base + (DESCRIPTION_LINE + shown if shown else 0)


def escape(text: str) -> str:
    """Text as the catalog's XML lists it."""
    for raw, escaped in (("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"), ('"', "&quot;")):
        text = text.replace(raw, escaped)
    return text.replace("'", "&apos;")


def entry(name: str, location: str, description: str, *, runtime: bool = False) -> Entry:
    text = " ".join(description.split())
    return Entry(
        name,
        text_chars(escape(name)),
        text_chars(escape(location)),
        text,
        text_chars(escape(text)),
        text_chars(text),
        runtime,
    )


def shortened(text: str, limit: int) -> str:
    """`text` cut to `limit` chars (UTF-16 units), its last three an ellipsis."""
    if text_chars(text) <= limit:
        return text
    if limit <= ELLIPSIS:
        return _utf16_prefix(text, limit)
    return _utf16_prefix(text, limit - ELLIPSIS).rstrip() + "..."


def _utf16_prefix(text: str, units: int) -> str:
    out, used = [], 0
    for ch in text:
        size = 2 if ord(ch) > 0xFFFF else 1
        if used + size > units:
            break
        out.append(ch)
        used += size
    return "".join(out)


def shortened_chars(e: Entry, limit: int) -> int:
    """The chars of `e`'s description shortened to `limit`, as listed."""
    if e.description is not None:
        return text_chars(escape(shortened(e.description, limit)))
    if e.raw_chars <= limit:
        return e.description_chars
    # Only sizes known (a measured runtime skill): its escapes spread evenly.
    extra = (e.description_chars - e.raw_chars) * (limit - ELLIPSIS) / max(1, e.raw_chars)
    return limit + round(extra)


@record(frozen=True)
class Fitted:
    """What the runtime lists: the entries kept, each description's length (None: whole,
    0: left out), and the catalog's chars beyond the full form's intro and list tags."""

    kept: list[Entry]
    total: int
    describe: int | None
    note_chars: int
    """Chars the note above the catalog adds (with the line breaks it brings), 0: none."""
    load_line: int
    """Chars the loading line has more than in the full form."""
    limit: int
    count_limit: int
    reason: str

    @property
    def form(self) -> str:
        return "full" if self.describe is None else "compact"

    def entries_chars(self) -> int:
        return sum(1 + e.chars(self.describe) for e in self.kept)

    def extra_chars(self) -> int:
        """Chars the note and the loading line add to the section."""
        return self.note_chars + self.load_line


def _catalog(rules: BudgetRules, entries: list[Entry], describe: int | None) -> int:
    """The runtime's catalog chars (before its note) for `entries`."""
    if not entries:
        return 0
    line = 0
    if describe is not None:
        line = rules.load_line.get("name_or_description" if describe else "name", 0)
    body = sum(1 + e.chars(describe) for e in entries)
    return rules.intro_chars + line + LIST_OPEN + body + LIST_CLOSE


def _note(rules: BudgetRules, kept: int, total: int, describe: int | None) -> int:
    """The note's chars (0: none) for `kept` of `total` skills in the given form."""
    notes = rules.notes
    if kept < total:
        size = notes.get("truncated", 0) + len(str(kept)) + len(str(total))
        if describe is not None:
            size += notes.get("detail_shortened" if describe else "detail_omitted", 0)
        return size
    if describe is not None:
        return notes.get("compact_shortened" if describe else "compact_omitted", 0)
    return 0


def _rendered(
    rules: BudgetRules, entries: list[Entry], total: int, describe: int | None, note: bool
) -> int:
    catalog = _catalog(rules, entries, describe)
    size = _note(rules, len(entries), total, describe) if note else 0
    return size + (1 if size and catalog else 0) + catalog


def _longest(fits: Callable[[int], bool], low: int, high: int) -> int:
    """The largest n in [low, high] with `fits(n)`, given `fits(low)` (fits is monotone)."""
    while low < high:
        mid = math.ceil((low + high) / 2)
        if fits(mid):
            low = mid
        else:
            high = mid - 1
    return low


def fit_compact(rules: BudgetRules, entries: list[Entry], limit: int, count: int) -> Fitted:
    """2026.9's rule (see the module's docstring)."""
    total = len(entries)
    by_count = entries[:count]

    def fits(skills: list[Entry], describe: int | None, note: bool = True) -> bool:
        return _rendered(rules, skills, total, describe, note) <= limit

    if fits(by_count, None):
        return _done(rules, by_count, total, None, True, limit, count)
    kept = by_count
    if not fits(kept, 0):
        kept = kept[: _longest(lambda n: fits(kept[:n], 0), 0, len(kept))]
    if not kept and by_count:
        if fits(by_count, None, note=False):
            return _done(rules, by_count, total, None, False, limit, count)
        n = _longest(lambda n: fits(by_count[:n], 0, note=False), 0, len(by_count))
        kept = by_count[:n] if n else kept
    note = fits(kept, 0)
    describe = 0
    if kept and fits(kept, rules.describe_min, note):
        describe = _longest(lambda k: fits(kept, k, note), rules.describe_min, rules.describe_max)
    if not fits(kept, describe, note):
        return _done(rules, [], total, 0, False, limit, count)
    return _done(rules, kept, total, describe, note, limit, count)


def fit_cut(rules: BudgetRules, entries: list[Entry], limit: int, count: int) -> Fitted:
    """2026.2's rule (see the module's docstring)."""
    total = len(entries)
    kept = entries[:count]
    if _catalog(rules, kept, None) > limit:
        n = _longest(lambda n: _catalog(rules, kept[:n], None) <= limit, 0, len(kept))
        kept = kept[:n]
    return _done(rules, kept, total, None, True, limit, count)


def _done(
    rules: BudgetRules,
    kept: list[Entry],
    total: int,
    describe: int | None,
    note: bool,
    limit: int,
    count: int,
) -> Fitted:
    size = _note(rules, len(kept), total, describe) if note else 0
    # The note comes first, then a line break and the catalog's own leading blank lines
    # (which the section keeps once something stands before them).
    note_chars = size + 3 if size and kept else size
    line = 0
    if describe is not None and kept:
        line = rules.load_line.get("name_or_description" if describe else "name", 0)
    if len(kept) < total:
        cut = "the count limit" if len(kept) == min(count, total) else "the character limit"
        reason = f"{len(kept)} of {total} skills listed: cut at {cut}"
    elif describe is None:
        reason = f"all {total} skills listed in full"
    elif describe:
        reason = f"all {total} skills listed in the compact form, descriptions cut to {describe}"
    else:
        reason = f"all {total} skills listed in the compact form, without descriptions"
    return Fitted(kept, total, describe, note_chars, line, limit, count, reason)


def fit(rules: BudgetRules, entries: list[Entry], limit: int, count: int) -> Fitted:
    if rules.style == "compact":
        return fit_compact(rules, entries, limit, count)
    return fit_cut(rules, entries, limit, count)


def for_context(rules: BudgetRules, fitted: Fitted, prompt_chars: int, window: int) -> Fitted:
    """2026.9: descriptions shortened again when the catalog (`prompt_chars`) is longer than
    the context window (tokens) over `context_divisor`."""
    if not rules.context_divisor or window <= 0 or fitted.describe == 0 or not fitted.kept:
        return fitted
    target = window // rules.context_divisor
    if prompt_chars <= target:
        return fitted
    base = prompt_chars - fitted.entries_chars()

    def size(k: int) -> int:
        return base + sum(1 + e.chars(_tighter(fitted.describe, k)) for e in fitted.kept)

    low, high = rules.context_describe_min, rules.describe_max
    best = low
    while low <= high:
        mid = (low + high) // 2
        if size(mid) <= target:
            best, low = mid, mid + 1
        else:
            high = mid - 1
    if size(best) >= prompt_chars:
        return fitted
    return Fitted(
        fitted.kept,
        fitted.total,
        _tighter(fitted.describe, best),
        fitted.note_chars,
        fitted.load_line,
        fitted.limit,
        fitted.count_limit,
        f"{fitted.reason}; descriptions cut to {best} for a context window of {window:,} tokens",
    )


def _tighter(describe: int | None, k: int) -> int:
    return k if describe is None else min(describe, k)
