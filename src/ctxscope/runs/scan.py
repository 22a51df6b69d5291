"""A listing's figures found in each entry's text, as OpenClaw writes it, without parsing
every entry.

OpenClaw writes an entry as compact JSON (`JSON.stringify`), marks it valid once its own
reader has parsed it (`entry_valid = 1`), and projects its requester, label and time into
columns of their own. The entry's `systemPromptReport` holds the writer's fields in the
writer's order: `source`, `generatedAt`, `sessionId`, `sessionKey`, then the figures a
listing shows, then `currentTurn` last. The sessions of one agent differ there only by
those first four fields, the prompt's hash (the prompt names its session key) and the
current turn. So the text between `sessionKey` and `currentTurn`, the prompt's hash cut
out, is the same for the sessions of one shape: it is parsed once per shape, and each entry
is only searched (`bytes.find`, in C).

Where a key is looked for by its text, the text decides: a quote inside a JSON string is
escaped, so `"name":` right after `{` or `,` is always an object's key; the shared text
parses only if it is whole fields of the report, and the report's current turn must end
it. The first entry of each shape is also read by SQLite's JSON functions (`verify`),
and a shape whose figures differ is left to them, so a writer that orders or nests its
fields otherwise is read as before. Whatever the text cannot settle (a report not in the
writer's form, or naming another session, a key of a NULL column present, a spawn depth
found past nested values) leaves the entry to SQLite.

The report taken is the last object keyed `systemPromptReport` in the text (OpenClaw
writes one, at the top). Entries the text cannot tell apart, which OpenClaw does not write:
one holding, in a field after its own report or in place of one, another object keyed
`systemPromptReport` that names this same session. It would be listed with that object's
figures."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Sequence
from typing import Any

_REPORT = b'"systemPromptReport":{'
_HEAD = re.compile(
    rb'"systemPromptReport":\{"source":"[^"\\]*","generatedAt":(\d+),'
    rb'"sessionId":"[^"\\]*","sessionKey":"([^"\\]*)",'
)
"""The report's head as OpenClaw writes it; its end is where the shared figures begin."""
_TURN = b',"currentTurn":'
_LAST = re.compile(rb',"currentTurn":\{[^{}\[\]"\\]*(?:"[^"\\]*"[^{}\[\]"\\]*)*\}\}')
"""The current turn, plain values, and then the report's end: no field after it."""
_PROMPT = b',"systemPrompt":{"chars":'
_HASH = re.compile(rb',"systemPrompt":\{"chars":\d+(,"hash":"[^"\\]*")')
"""The prompt's hash, each session's own."""
_DEPTH = b'"spawnDepth":'
_TOP_DEPTH = re.compile(
    rb'\{(?:"[^"\\]*":(?:"[^"\\]*"|-?\d+|true|false|null),)*?"spawnDepth":(\d+)[,}]'
)
"""The spawn depth after only plain keys and scalars from the entry's start: at the top."""

Verify = Callable[[int, "int | None", int, str], bool]
"""`verify(rowid, depth, generatedAt, figures)`: whether SQLite reads the same of that
entry."""


class Scan:
    """Finds the listed figures (`paths`, dotted report paths) in entries' text."""

    def __init__(self, paths: Sequence[str], verify: Verify) -> None:
        self.paths = [path.split(".") for path in paths]
        self.verify = verify
        self._shapes: dict[tuple[bytes, bytes], str | None] = {}
        """Each shape's figures as text (None: not the report's own, or not SQLite's)."""
        self._last: tuple[bytes, bytes, str] | None = None
        """The last shape's two parts and figures: the next entry is most often alike."""

    def __call__(
        self, rowid: int, key: str, entry: Any, unset: Sequence[bytes]
    ) -> tuple[tuple[Any, ...], str] | None:
        """What a listing reads of the session `key` (`rowid`), from its entry (its text as
        UTF-8 bytes, which OpenClaw marked valid: it parses): the varying figures in
        `store._VARYING`'s order (the spawn depth and `generatedAt`; the others are the
        columns'), and the listed values as compact JSON text, one text object per shape.
        `unset`: the top-level keys whose column is NULL, which must be absent or null.
        None for an entry the text cannot settle."""
        if not isinstance(entry, bytes) or not isinstance(key, str):
            return None
        at = entry.rfind(_REPORT)  # the entry's own: see the module's notes
        # an object's key (after `{` or `,`: not a quote escaped in a string), in an object
        whole = at > 0 and entry[at - 1] in b",{" and entry[:1] == b"{"
        head = _HEAD.match(entry, at) if whole else None
        if head is None or head[2] != key.encode("utf-8", "surrogateescape"):
            return None
        for name in unset:
            found = entry.find(name)
            if found >= 0 and (
                not entry.startswith(b"null", found + len(name))
                or entry.find(name, found + len(name)) >= 0
            ):
                return None
        top = _TOP_DEPTH.match(entry)
        if top is not None:
            depth: int | None = int(top[1])
        elif entry.find(_DEPTH) < 0:
            depth = None
        else:  # past a nested value, or not a count
            return None
        generated = int(head[1])
        figures = self._shape(rowid, depth, generated, entry, head.end())
        if figures is None:
            return None
        return (depth, None, generated, None, None), figures

    def _shape(
        self, rowid: int, depth: int | None, generated: int, entry: bytes, start: int
    ) -> str | None:
        """The listed values of the report's shared text, from `start` to its current
        turn, in two parts: up to the prompt's hash and after it (the second empty where
        the prompt has no hash). A `currentTurn` found past the report's leaves a text that
        does not parse; one with a field after it is not the writer's."""
        end = entry.rfind(_TURN, start)
        if end < 0 or _LAST.match(entry, end) is None:
            return None
        cut = rest = end
        prompt = entry.find(_PROMPT, start, end)
        if prompt >= 0:
            found = _HASH.match(entry, prompt)
            if found is not None:
                cut, rest = found.span(1)
        last = self._last
        if (
            last is not None
            and cut - start == len(last[0])
            and end - rest == len(last[1])
            and entry.startswith(last[0], start)
            and entry.startswith(last[1], rest)
        ):
            return last[2]
        text = (entry[start:cut], entry[rest:end])
        if text in self._shapes:
            figures = self._shapes[text]
        else:
            figures = self._figures(text)
            if figures is not None and not self.verify(rowid, depth, generated, figures):
                figures = None
            self._shapes[text] = figures
        if figures is not None:
            self._last = (*text, figures)
        return figures

    def verdicts(self) -> dict[bytes, bool]:
        """Each shape met (a digest of its text) and whether its text was taken: what
        another scan of other entries of the same table must have settled alike to read
        them as this one would (the first entry of a shape settles it)."""
        out = {}
        for (head, tail), figures in self._shapes.items():
            digest = hashlib.blake2b(head, digest_size=16)
            digest.update(b"\0%d\0" % len(head))
            digest.update(tail)
            out[digest.digest()] = figures is not None
        return out

    def _figures(self, text: tuple[bytes, bytes]) -> str | None:
        """The listed values of a shape's text as compact JSON; None where the text is
        not whole fields of the report (it parses to no object)."""
        try:
            report = json.loads(b"{%s%s}" % text)
        except ValueError:
            return None
        if not isinstance(report, dict):
            return None
        values = []
        for path in self.paths:
            value: Any = report
            for name in path:
                value = value.get(name) if isinstance(value, dict) else None
            values.append(value)
        return json.dumps(values, ensure_ascii=False, separators=(",", ":"))
