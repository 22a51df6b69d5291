"""Masking of secret values before anything is displayed or exported.

Config files hold API keys and tokens. Every face of ctxscope (TUI, CLI, exports, verbose
script logs) passes config values through `mask_secrets` first. A value is a secret by where
it sits (under a secret-named key: `is_secret_key`) or by what it is (a credential's own shape,
`looks_like_credential`; a URL's password or secret-named query parameter, `shown_url`).

Values a config takes from the environment (`${NAME}`) are secrets whatever their key: the
engine uses the real values, and every face shows a copy made by `EnvMask`, where each such
value reads `⟨$NAME⟩` unless the variable is allowed (`--show-env NAME`).
"""

from __future__ import annotations

import base64
import dataclasses
import functools
import json
import math
import re
import urllib.parse
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
    return any(w in WEAK_WORDS or w.endswith(("key", "keys")) for w in words)


def _is_count_name(low: str) -> bool:
    """A key named for a number of tokens (`maxTokens`, `reserveTokensFloor`): lower-cased
    name without `_`/`-`, listed, or whose name ends in `tokens`."""
    return low in TOKEN_COUNTS or low.endswith("tokens")


CREDENTIAL_SHAPES = re.compile(
    r"""
      sk-(?=[A-Za-z_-]*[0-9])[A-Za-z0-9][A-Za-z0-9_-]{15,}  # OpenAI, Anthropic, OpenRouter
    | (?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}       # GitHub
    | github_pat_[A-Za-z0-9_]{20,}
    | glpat-[A-Za-z0-9_-]{20,}                       # GitLab
    | xox[abeoprs]-[A-Za-z0-9-]{10,}                 # Slack
    | (?:AKIA|ASIA)[0-9A-Z]{16}                      # AWS access key id
    | AIza[0-9A-Za-z_-]{35}                          # Google
    | hf_[A-Za-z0-9]{30,}                            # Hugging Face
    | gsk_[A-Za-z0-9]{20,}                           # Groq
    | eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}  # a JSON Web Token
    | [0-9]{6,12}:[A-Za-z0-9_-]{30,}                 # a Telegram bot token
    | (?i:bearer)[ ]+(?=[A-Za-z._~+/=-]*[0-9])[A-Za-z0-9._~+/=-]{8,}  # Authorization values:
    | (?i:basic)[ ]+(?P<basic>[A-Za-z0-9+/]{8,}={0,2})  # (random, or `user:pass` in base64)
    """,
    re.VERBOSE,
)
"""The shapes of well-known credentials, each matched against a whole value. Random ones
hold a digit somewhere (so `sk-learn-more-about-it` or `Bearer instructions` are words)."""

_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s]+")
_URL_PARTS = re.compile(r"([^:]+://)([^/?#]*)([^?#]*)(?:\?([^#]*))?(?:#(.*))?", re.S)
"""A URL's scheme, authority, path, query and fragment, split as `urlsplit` does, but
never refused (a mistyped host still has its password masked)."""


def looks_like_credential(text: str) -> bool:
    """True when `text` (surrounding spaces aside) is shaped like a well-known credential."""
    found = CREDENTIAL_SHAPES.fullmatch(text.strip()) if len(text) < 4096 else None
    if found is None:
        return False
    basic = found.group("basic")
    return basic is None or _is_user_pass(basic)


def _is_user_pass(text: str) -> bool:
    """Whether `text` is `user:password` in base64 (a Basic value), not a word."""
    try:
        plain = base64.b64decode(text + "=" * (-len(text) % 4)).decode("utf-8")
    except ValueError:
        return False
    return ":" in plain and plain.isprintable()


def shown_url(text: str) -> str:
    """`text` as shown when it is a URL: its password, a user name shaped like a credential
    and the values of its secret-named or credential-shaped query parameters masked
    (`https://u:***@host/x?token=***&q=1`), and in its fragment too (`#access_token=***`);
    any other text unchanged."""
    if len(text) > 8192 or _URL.fullmatch(text) is None:
        return text
    parts = _URL_PARTS.fullmatch(text)
    assert parts is not None  # every text `_URL` matches has these parts
    head, netloc, path, query, fragment = parts.groups()
    user, at, host = netloc.rpartition("@")
    name, colon, _ = user.partition(":")
    if at and looks_like_credential(urllib.parse.unquote(name)):
        name = MASK  # a token given as the user (`https://ghp_...@github.com/`)
    if at:
        netloc = f"{name}{colon and ':' + MASK}@{host}"
    shown = head + netloc + path
    shown += "" if query is None else "?" + _shown_params(query)
    shown += "" if fragment is None else "#" + _shown_params(fragment)
    return shown


def _shown_params(text: str) -> str:
    """`name=value&...` (a query, or a fragment as OAuth hands a token back) with the value
    of each secret-named or credential-shaped parameter masked."""
    pieces = []
    for piece in text.split("&") if "=" in text else ():
        name, eq, value = piece.partition("=")
        plain = urllib.parse.unquote_plus(value)
        if (
            eq
            and value
            and (is_secret_key(urllib.parse.unquote_plus(name)) or looks_like_credential(plain))
        ):
            piece = f"{name}={MASK}"
        pieces.append(piece)
    return "&".join(pieces) if pieces else text


def shown_text(text: str) -> str:
    """A config string as any face shows it: `***` when it is shaped like a credential, a URL
    with its credentials masked, else unchanged."""
    if looks_like_credential(text):
        return MASK
    return shown_url(text) if "://" in text else text


def describe(value: Any, key: str | None = None) -> str:
    """A value for a diagnostic: scalars as JSON, containers by their type only, so a secret
    nested in a wrongly-typed value is never echoed. A string under a secret-named `key` is
    described by its length only, as is one shaped like a credential; a URL with its
    credentials masked. (A string from the environment is echoed: the faces show it as
    `⟨$NAME⟩`.)"""
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list | tuple):
        return f"a list of {len(value)} item(s)"
    if isinstance(value, str):
        # never a part of it: a cut secret is still a secret
        secret = key is not None and is_secret_key(key)
        if len(value) > 60 or secret or looks_like_credential(value):
            return f"a string of {len(value)} characters"
        return json.dumps(shown_url(value), ensure_ascii=False)
    if value is None or isinstance(value, bool | int):
        return json.dumps(value)
    if isinstance(value, float):
        return repr(value) if not math.isfinite(value) else json.dumps(value)
    return f"a {type(value).__name__}"


def mask_secrets(obj: Any) -> Any:
    """A copy of `obj` with the value of every secret-named key replaced by `***` (but a
    number under a key named for tokens, `maxTotalTokens: 8000`: a count), the text under a
    token-count key (a count is a number, not text), every string shaped like a credential,
    and the credentials in a URL (`shown_text`).

    Dicts and lists are walked recursively; other values are returned unchanged. The input is
    never modified.
    """
    return _masked(obj, counting=False)


NAME_KEYED = frozenset({"removedtools"})
"""Keys of ctxscope's own output whose mapping is keyed by names (a tool called `secrets`),
not by settings: those names are not secret-named keys."""


@functools.lru_cache(maxsize=4096)
def _key_kind(key: str) -> tuple[bool, str, bool]:
    """Whether `key` is secret-named, its name lower-cased without `_`/`-`, and whether it is
    named for a count of tokens: worked out once per key name (a report of thousands of
    entries repeats a few hundred names)."""
    low = key.lower().replace("_", "").replace("-", "")
    return is_secret_key(key), low, _is_count_name(low)


def _masked(obj: Any, *, counting: bool, names: bool = False) -> Any:
    if isinstance(obj, dict):
        out: dict[Any, Any] = {}
        for k, v in obj.items():
            secret, name, counts = _key_kind(k) if isinstance(k, str) else (False, "", False)
            if not names and secret and v is not None and not (counts and _is_number(v)):
                out[k] = MASK
            else:
                out[k] = _masked(v, counting=counting or counts, names=name in NAME_KEYED)
        return out
    if isinstance(obj, list | tuple):
        return [_masked(v, counting=counting) for v in obj]
    if isinstance(obj, str):
        return MASK if counting else shown_text(obj)
    return obj


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


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
