"""Masking of secret values before anything is displayed or exported.

Config files hold API keys and tokens. Every face of ctxscope (TUI, CLI, exports, verbose
script logs) passes config values through `mask_secrets` first.

Values a config takes from the environment (`${NAME}`) are secrets whatever their key: the
engine uses the real values, and every face shows a copy made by `EnvMask`, where each such
value reads `⟨$NAME⟩` unless the variable is allowed (`--show-env NAME`).
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import re
from collections.abc import Iterable
from typing import Any, Protocol

MASK = "***"

STRONG_WORDS = ("token", "secret", "password", "passwd", "credential", "bearer", "authorization")
"""A key whose lower-cased name contains one of these anywhere holds a secret (`authTokens`,
`refresh_token`, `BEARER`, `dbPassword`)."""

WEAK_WORDS = frozenset({"pass", "pwd", "cookie"})
"""A key with one of these as a whole word holds a secret (`pass`, `db_pwd`), but
`passthrough` or `compass` do not."""

PLAIN_SETTINGS = frozenset(
    {
        "returnkey",
        "errorkey",
        "agentidoverridekey",
        "sessionkey",
        "requestersessionkey",
        "childsessionkey",
        "tokenizer",
    }
)
"""Plain settings whose names contain a secret word (lower-cased, `_`/`-` removed)."""

TOKEN_COUNTS = frozenset(
    {
        "tokens",
        "maxtokens",
        "mintokens",
        "contexttokens",
        "maxcontexttokens",
        "maxoutputtokens",
        "maxinputtokens",
        "inputtokens",
        "outputtokens",
        "totaltokens",
        "usedtokens",
        "budgettokens",
        "reservetokens",
        "reservetokensfloor",
        "softthresholdtokens",
        "keeprecenttokens",
        "maxcompletiontokens",
        "tokenlimit",
        "maxtokenlimit",
        "contexttokenlimit",
        "inputtokenlimit",
        "outputtokenlimit",
        "tokencount",
        "tokenbudget",
    }
)
"""Counts of tokens, not credentials (lower-cased, `_`/`-` removed). A count is a number: text
under one of these keys is masked all the same (`tokens: ["ghp_..."]`)."""

NOT_SECRET = PLAIN_SETTINGS | TOKEN_COUNTS
"""Key names known to hold plain settings or token counts."""


def _words(name: str) -> list[str]:
    """`dbPwd` → [db, pwd]; `api_key` → [api, key]; `APIKey` → [apikey]."""
    out: list[str] = []
    word = ""
    for i, ch in enumerate(name):
        if ch in "_-. ":
            out.append(word)
            word = ""
            continue
        if (
            ch.isupper()
            and word
            and (word[-1].islower() or (i + 1 < len(name) and name[i + 1].islower()))
        ):
            out.append(word)
            word = ""
        word += ch
    out.append(word)
    return [w.lower() for w in out if w]


def is_secret_key(name: str) -> bool:
    """True when a mapping key named `name` should have its value masked."""
    low = name.lower().replace("_", "").replace("-", "")
    if low in NOT_SECRET:
        return False
    if any(word in low for word in STRONG_WORDS):
        return True
    words = _words(name)
    return any(w in WEAK_WORDS or w.endswith("key") for w in words)


def describe(value: Any) -> str:
    """A value for a diagnostic: scalars as JSON, containers by their type only, so a secret
    nested in a wrongly-typed value is never echoed."""
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list | tuple):
        return f"a list of {len(value)} item(s)"
    if isinstance(value, str):
        if len(value) > 60:  # never a part of it: a cut secret is still a secret
            return f"a string of {len(value)} characters"
        return json.dumps(value, ensure_ascii=False)
    if value is None or isinstance(value, bool | int):
        return json.dumps(value)
    if isinstance(value, float):
        return repr(value) if not math.isfinite(value) else json.dumps(value)
    return f"a {type(value).__name__}"


def mask_secrets(obj: Any) -> Any:
    """A copy of `obj` with the value of every secret-named key replaced by `***`, and the
    text under a token-count key (a count is a number, not text).

    Dicts and lists are walked recursively; other values are returned unchanged. The input is
    never modified.
    """
    return _masked(obj, counting=False)


NAME_KEYED = frozenset({"removedtools"})
"""Keys of ctxscope's own output whose mapping is keyed by names (a tool called `secrets`),
not by settings: those names are not secret-named keys."""


@functools.lru_cache(maxsize=4096)
def _key_kind(key: str) -> tuple[bool, str]:
    """Whether `key` is secret-named, and its name lower-cased without `_`/`-`: worked out
    once per key name (a report of thousands of entries repeats a few hundred names)."""
    return is_secret_key(key), key.lower().replace("_", "").replace("-", "")


def _masked(obj: Any, *, counting: bool, names: bool = False) -> Any:
    if isinstance(obj, dict):
        out: dict[Any, Any] = {}
        for k, v in obj.items():
            secret, name = _key_kind(k) if isinstance(k, str) else (False, "")
            if not names and secret and v is not None:
                out[k] = MASK
            else:
                out[k] = _masked(
                    v, counting=counting or name in TOKEN_COUNTS, names=name in NAME_KEYED
                )
        return out
    if isinstance(obj, list | tuple):
        return [_masked(v, counting=counting) for v in obj]
    if counting and isinstance(obj, str):
        return MASK
    return obj


# -- values from the environment -------------------------------------------------------------


def env_mark(name: str) -> str:
    """How a masked value from the environment reads: `⟨$OPENAI_API_KEY⟩`."""
    return f"⟨${name}⟩"


class EnvSource(Protocol):
    """A config string made by `${NAME}` substitution (`configread.EnvString`)."""

    @property
    def pieces(self) -> tuple[tuple[str | None, str], ...]: ...


MIN_FOUND = 4
"""A value shorter than this is masked where a shown string is exactly it (or exactly the
string it went into), not inside longer text: masking every `1` would mask every number."""

_ANCHORS = {"markers": ("text", "body"), "task_markers": ("task_message",)}
"""Offset lists and the text field their offsets point into (`model.Marker`)."""
_KEPT_FIELDS = frozenset({"scenario"})
"""Fields a display copy keeps as they are: the scenario is what the user typed (the app
edits it), not config values."""

Spans = list[tuple[int, int, int, int]]
"""(start, end) of each replaced stretch in the real text, then in the shown text."""


class EnvMask:
    """Shows values that came from the environment as `⟨$NAME⟩`, but for allowed names.

    `value(obj)` is a display copy of any engine result (records, lists, dicts, strings):
    every string has each value replaced (matched whatever its case), offsets of markers
    follow their text, a section keeps the size of its real text, and the user's scenario is
    kept. Nothing to mask: `value` returns `obj` itself.
    """

    def __init__(self, strings: Iterable[EnvSource] = (), show: Iterable[str] = ()) -> None:
        allowed = frozenset(show)
        found: dict[str, str] = {}
        self.whole: dict[str, str] = {}
        """Short strings masked only when a shown string is exactly them."""
        names: list[str] = []
        for made in strings:
            hidden = [n for n, _ in made.pieces if n is not None and n not in allowed]
            if not hidden:
                continue
            names += hidden
            shown = "".join(
                env_mark(n) if n is not None and n not in allowed else v for n, v in made.pieces
            )
            self._add(found, "".join(v for _, v in made.pieces), shown)
            for name, value in made.pieces:
                if name is not None and name not in allowed:
                    self._add(found, value, env_mark(name))
                    self._add(found, value.strip(), env_mark(name))
        self.names = list(dict.fromkeys(names))
        """The variables masked, in config order."""
        ordered = sorted(found, key=len, reverse=True)  # the longest match wins
        self._shown = [found[k] for k in ordered]
        self._pattern = (
            re.compile("|".join(f"(?P<m{i}>{re.escape(k)})" for i, k in enumerate(ordered)), re.I)
            if ordered
            else None
        )

    def _add(self, found: dict[str, str], text: str, shown: str) -> None:
        if not text.strip():
            return
        if len(text) >= MIN_FOUND:
            found.setdefault(text, shown)
        self.whole.setdefault(text, shown)

    def __bool__(self) -> bool:
        return bool(self.names)

    def text(self, text: str) -> str:
        """`text` with every value from the environment masked."""
        return self.text_spans(text)[0]

    def text_spans(self, text: str) -> tuple[str, Spans]:
        if text in self.whole:
            shown = self.whole[text]
            return shown, [(0, len(text), 0, len(shown))]
        if self._pattern is None:
            return text, []
        spans: Spans = []
        parts: list[str] = []
        at = shift = 0
        for m in self._pattern.finditer(text):
            shown = self._shown[int(str(m.lastgroup)[1:])]
            parts += [text[at : m.start()], shown]
            spans.append((m.start(), m.end(), m.start() + shift, m.start() + shift + len(shown)))
            shift += len(shown) - (m.end() - m.start())
            at = m.end()
        if not spans:
            return text, []
        parts.append(text[at:])
        return "".join(parts), spans

    def value(self, obj: Any) -> Any:
        """A display copy of `obj` (see the class doc)."""
        if not self:
            return obj
        return self._walk(obj, {})

    def _walk(self, obj: Any, memo: dict[int, Any]) -> Any:
        if isinstance(obj, str):
            return self.text(obj)
        if isinstance(obj, int | float | bool) or obj is None:
            return obj
        key = id(obj)
        if key in memo:
            return memo[key]
        out: Any = obj
        if isinstance(obj, list):
            out = [self._walk(v, memo) for v in obj]
        elif isinstance(obj, tuple):
            items = [self._walk(v, memo) for v in obj]
            out = type(obj)(*items) if hasattr(obj, "_fields") else tuple(items)
        elif isinstance(obj, dict):
            out = {self._walk(k, memo): self._walk(v, memo) for k, v in obj.items()}
        elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
            out = self._record(obj, memo)
        memo[key] = out
        return out

    def _record(self, obj: Any, memo: dict[int, Any]) -> Any:
        changes: dict[str, Any] = {}
        spans: dict[str, Spans] = {}
        for f in dataclasses.fields(obj):
            if not f.init or not f.compare or not f.repr or f.name in _KEPT_FIELDS:
                continue
            old = getattr(obj, f.name)
            if isinstance(old, str):
                new, spans[f.name] = self.text_spans(old)
            else:
                new = self._walk(old, memo)
            if new is not old:
                changes[f.name] = new
        for name, anchors in _ANCHORS.items():
            anchor = next((a for a in anchors if spans.get(a)), None)
            if anchor is not None and getattr(obj, name, None):
                changes[name] = [_moved(m, spans[anchor]) for m in getattr(obj, name)]
        if not changes:
            return obj
        if "text" in changes and hasattr(obj, "real_chars") and obj.real_chars is None:
            changes["real_chars"] = obj.chars  # sizes stay those of the real text
        return dataclasses.replace(obj, **changes)


def _moved(marker: Any, spans: Spans) -> Any:
    """`marker` with its offsets moved to the shown text (a bound inside a masked value goes
    to that value's mark)."""
    return dataclasses.replace(
        marker, start=_offset(marker.start, spans, end=False), end=_offset(marker.end, spans)
    )


def _offset(at: int, spans: Spans, *, end: bool = True) -> int:
    moved = at
    for start, stop, new_start, new_stop in spans:
        if at <= start:
            break
        if at >= stop:
            moved = at - stop + new_stop
            continue
        return new_stop if end else new_start
    return moved
