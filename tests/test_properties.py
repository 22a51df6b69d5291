"""Whatever the input, the readers end in a result or a typed diagnostic: the config reader,
the script output pipeline, session-key classification and Snapshot decoding."""

from __future__ import annotations

import json
import math
import re
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from ctxscope import Inspector
from ctxscope.core.model import Diagnostic
from ctxscope.core.safetext import UNSAFE, _stand_in, terminal_safe
from ctxscope.infra.snapshot import Snapshot
from ctxscope.output import dump_json
from ctxscope.runtimes.openclaw.configparse import ConfigError, parse_config_text
from ctxscope.runtimes.openclaw.sessionkeys import child_session_key, classify
from ctxscope.runtimes.profiles import load_profile
from ctxscope.scripts.engine import _interpret
from ctxscope.scripts.entries import ScriptEntry
from ctxscope.scripts.resolve import _Invalid, parse_entry
from ctxscope.scripts.run import RawRun

SLOW = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats()  # NaN and the infinities included
    | st.text(max_size=20)
)
json_values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)


def strict_json(value: Any) -> str:
    """The value as strict JSON: fails on NaN/Infinity, which a JSON consumer rejects."""
    return json.dumps(value, allow_nan=False)


def well_formed(diag: Diagnostic, path: str) -> None:
    assert diag.severity in ("error", "warning", "info")
    assert diag.message and diag.path == path
    assert diag.line is None or diag.line >= 1


# --- config reader -------------------------------------------------------------------------


@given(text=st.text(max_size=200), suffix=st.sampled_from([".json", ".json5", ".yaml"]))
def test_any_config_text_parses_or_names_the_file(text: str, suffix: str) -> None:
    path = f"/ws/openclaw{suffix}"
    try:
        data = parse_config_text(text, path)
    except ConfigError as exc:
        well_formed(exc.diagnostic, path)
    else:
        assert isinstance(data, dict)


VALID_ENTRY = {
    "id": st.sampled_from(["s1", " padded "]),
    "uri": st.sampled_from(["./ctx.sh", "https://example.invalid/x", "HTTP://h/x"]),
    "format": st.sampled_from(["json", "arguments"]),
    "priority": st.integers(-5, 5) | st.floats(allow_nan=False, allow_infinity=False),
    "position": st.sampled_from(["prepend", "append"]),
    "timeoutMs": st.integers(1, 86_400_000),
    "log": st.sampled_from([False, True, "verbose"]),
    "errorHandling": st.sampled_from(["continue", "stop"]),
    "returnKey": st.text(max_size=6),
    "errorKey": st.text(max_size=6),
    "agentIdOverrideKey": st.text(max_size=6),
    "argMap": st.just({"task": "task", "who": "agentId"})
    | st.dictionaries(st.text(max_size=4), json_values, max_size=3),
    "method": st.sampled_from(["GET", "post"]),
}


@st.composite
def entry_fields(draw: st.DrawFn) -> dict[str, Any]:
    """An entry that is mostly valid: each field absent, valid, or (less often) anything."""
    entry: dict[str, Any] = {}
    for key, valid in VALID_ENTRY.items():
        choice = draw(st.integers(0, 5))
        if choice == 0 and key not in ("id", "uri"):
            continue
        entry[key] = draw(json_values) if choice == 5 else draw(valid)
    return entry


agent_fields = st.fixed_dictionaries(
    {},
    optional={
        "id": json_values | st.sampled_from(["main", "helper", "MAIN"]),
        "default": json_values,
        "skills": json_values,
        "model": json_values,
        "subagents": st.fixed_dictionaries(
            {},
            optional={
                "allowAgents": json_values | st.just(["*"]),
                "maxSpawnDepth": json_values,
                "contextScripts": st.fixed_dictionaries(
                    {}, optional={"run": st.lists(entry_fields(), max_size=3) | json_values}
                )
                | json_values,
            },
        )
        | json_values,
    },
)
configs = st.fixed_dictionaries(
    {},
    optional={
        "agents": st.fixed_dictionaries(
            {},
            optional={
                "list": st.lists(agent_fields, max_size=3) | json_values,
                "defaults": st.fixed_dictionaries(
                    {},
                    optional={
                        "bootstrapMaxChars": json_values,
                        "bootstrapTotalMaxChars": json_values,
                        "contextTokens": json_values,
                        "subagents": agent_fields,
                    },
                )
                | json_values,
            },
        )
        | json_values,
        "commands": json_values,
        "tools": json_values,
    },
)


@SLOW
@given(config=configs)
def test_any_config_shape_builds_a_report_in_strict_json(config: dict[str, Any]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        ws = Path(tmp)
        (ws / "AGENTS.md").write_text("agents")
        (ws / "openclaw.json").write_text(json.dumps(config))  # NaN written as JSON5 NaN
        report = Inspector(ws).report(run_scripts=False)
        strict_json(report.to_dict())
        for diag in report.diagnostics:
            assert diag.message


# --- script output pipeline ----------------------------------------------------------------


@given(raw=entry_fields())
def test_any_script_entry_is_valid_or_refused_with_a_reason(raw: dict[str, Any]) -> None:
    diags: list[Diagnostic] = []
    try:
        entry = parse_entry(raw, "run[0]", "/ws/openclaw.json", diags)
    except _Invalid as exc:
        assert str(exc)
    else:
        assert entry.id.strip() and entry.uri
        assert math.isfinite(entry.priority) and entry.timeout_ms > 0
    for diag in diags:
        well_formed(diag, "/ws/openclaw.json")


script_outputs = st.text(max_size=200) | json_values.map(json.dumps)


@given(
    output=script_outputs,
    keys=st.fixed_dictionaries(
        {},
        optional={
            "return_key": st.text(max_size=6),
            "error_key": st.text(max_size=6),
            "agent_id_override_key": st.text(max_size=6),
        },
    ),
    log=st.sampled_from([False, True, "verbose"]),
)
def test_any_script_output_becomes_a_result(output: str, keys: dict[str, str], log: Any) -> None:
    entry = ScriptEntry(id="s", uri="./s.sh", log=log, **keys)
    result = _interpret(entry, {}, RawRun(output=output.strip()), "/ws/openclaw.json")
    assert result.status in ("ok", "empty", "error")
    assert (result.status == "ok") == bool(result.output)
    assert (result.status == "error") == (result.error is not None)
    assert result.output is None or isinstance(result.output, str)
    strict_json(result.to_dict())


# --- session keys --------------------------------------------------------------------------

PROFILE = load_profile("openclaw-2026.2")
key_parts = st.sampled_from(["agent", "AGENT", "main", "subagent", "Cron", "x", ""]) | st.text(
    max_size=6
)


@given(parts=st.lists(key_parts, max_size=6), pad=st.sampled_from(["", " ", "\t"]))
def test_any_session_key_gets_a_kind_and_a_mode(parts: list[str], pad: str) -> None:
    key = pad + ":".join(parts) + pad
    info = classify(key, PROFILE)
    assert info.kind in ("main", "subagent", "cron", "other")
    assert info.mode in ("full", "minimal")
    assert info.rule
    assert info.agent_id == info.agent_id.lower()  # ids are compared lower-cased
    assert (info.mode == "minimal") == (info.kind in PROFILE.minimal_kinds)


@given(agent=st.text(alphabet="abcdefghij-_0123456789", min_size=1, max_size=10))
def test_a_spawned_child_key_is_always_a_subagent_of_its_agent(agent: str) -> None:
    info = classify(child_session_key(PROFILE, agent), PROFILE)
    assert (info.kind, info.mode, info.agent_id) == ("subagent", "minimal", agent.lower())


# --- Snapshot decoding ---------------------------------------------------------------------


@settings(deadline=None)
@given(
    data=st.binary(max_size=300)
    | st.text(max_size=100).map(lambda t: b"\xff\xfe" + t.encode("utf-16-le", "surrogatepass")),
    cap=st.integers(min_value=1, max_value=400),
)
def test_any_bytes_decode_to_printable_text(data: bytes, cap: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "f.md"
        path.write_bytes(data)
        fr = Snapshot(cap=cap).read(path)
    assert fr.exists and fr.size == len(data)
    assert fr.capped == (len(data) > cap)
    fr.text.encode("utf-8")  # no lone surrogates: the text can be printed and sent as JSON
    if not data.startswith((b"\xff\xfe", b"\xfe\xff")):
        assert len(fr.text.encode("utf-8", "replace")) <= 3 * min(len(data), cap)
    for diag in fr.diagnostics:
        well_formed(diag, str(path))


# --- the AGENTS.md policy digest's quick pass ----------------------------------------------

_POLICY_BITS = [
    "must", "Never", "do  not", "pr", "prés", "- item", "  1) step", "# head", "```", "",
    "plain", "禁止", "test\u00a0x", "\u00a0- nbsp item", "do\u00a0not", "x" * 300 + " must",
    "-", "#", "1.",
]  # fmt: skip


def _policy_lines_line_by_line(content: str) -> tuple[Any, ...]:
    """The digest's candidate lines found the plain way: every line, in order."""
    from ctxscope.runtimes.openclaw import policylines as tr

    out, prose = [], None
    for source in re.split(r"\r?\n", content):
        line = tr._normalized(source)
        if not line or tr._rx().fence.match(line):
            prose = None
        elif tr._rx().structural.match(line) or tr._rx().policy_candidate.search(line):
            high = bool(tr._rx().policy_high.search(line))
            out.append(tr.PolicyLine(line if prose is None else f"{prose}\n{line}", high))
            prose = None
        else:
            prose = line
    return tuple(out)


_POLICY_TEXT = st.tuples(
    st.lists(
        st.lists(st.sampled_from(_POLICY_BITS) | st.text(max_size=8), max_size=3).map(" ".join),
        max_size=12,
    ),
    st.sampled_from(["\n", "\r\n"]),
).map(lambda lines_eol: lines_eol[1].join(lines_eol[0]))


@given(_POLICY_TEXT)
@example("x\n-\n- item")  # an item right after a line that is only a list mark
def test_the_digest_quick_pass_finds_every_policy_line(content: str) -> None:
    from ctxscope.runtimes.openclaw.policylines import _scan

    assert tuple(_scan(content, 0, len(content))[1]) == _policy_lines_line_by_line(content)


@given(
    before=_POLICY_TEXT,
    inserted=_POLICY_TEXT,
    cut=st.tuples(st.floats(0, 1), st.integers(0, 40)),
    pads=st.tuples(st.sampled_from([0, 300]), st.sampled_from([0, 300])),
)
def test_an_edited_agents_md_rescans_to_what_a_full_scan_finds(
    before: str, inserted: str, cut: tuple[float, int], pads: tuple[int, int]
) -> None:
    """A save changes one place of AGENTS.md: the lines found from the last scan plus the
    changed lines are exactly the lines a scan of the whole new text finds."""
    from ctxscope.runtimes.openclaw.policylines import _rescan, _Scan, _scan

    head, tail = "- pad must\nplain prose\n" * pads[0], "\nplain prose\n# pad" * pads[1]
    old = head + before + tail
    at = int(cut[0] * len(old))
    new = old[:at] + inserted + old[at + cut[1] :]
    starts, lines = _scan(old, 0, len(old))
    scan = _rescan(_Scan(old, tuple(starts), tuple(lines)), new)
    if pads == (300, 300):
        assert scan is not None  # a small change in a long text is rescanned, not rebuilt
    if scan is not None:
        assert scan.lines == _policy_lines_line_by_line(new)
        assert list(scan.starts) == _scan(new, 0, len(new))[0]


_JSON_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text()
)
_JSON_KEYS = (
    st.text()
    | st.integers()
    | st.booleans()
    | st.none()
    | st.floats(allow_nan=False, allow_infinity=False)
)


@settings(max_examples=300, deadline=None)
@given(
    st.recursive(
        _JSON_SCALARS,
        lambda inner: (
            st.lists(inner, max_size=4)
            | st.tuples(inner, inner)
            | st.dictionaries(_JSON_KEYS, inner, max_size=4)
        ),
        max_leaves=30,
    )
)
def test_dump_json_writes_what_the_standard_encoder_writes(value: Any) -> None:
    expected = json.dumps(value, indent=2, ensure_ascii=False, allow_nan=False)
    expected = re.sub(r"[\x7f-\x9f\ud800-\udfff]", lambda m: f"\\u{ord(m.group()):04x}", expected)
    assert dump_json(value) == expected


@pytest.mark.parametrize(
    "text",
    [
        "plain",
        "del\x7f",
        "c1\x9b[31m",
        "nbsp\xa0 and \u00bf",
        "≈ wide",
        "lone \ud800",
        "\udc80 trail",
        "hangul \ud7a3",
        "\x85",
    ],
)
def test_dump_json_escapes_del_and_c1_controls_wherever_they_are(text: str) -> None:
    """DEL, C1 controls and lone surrogates are escaped in keys and values, next to any other
    text; the rest stays as written (NBSP and U+00BF share C1's UTF-8 lead byte)."""
    value = {text: [text, {"k": text}]}
    expected = json.dumps(value, indent=2, ensure_ascii=False, allow_nan=False)
    expected = re.sub(r"[\x7f-\x9f\ud800-\udfff]", lambda m: f"\\u{ord(m.group()):04x}", expected)
    out = dump_json(value)
    assert out == expected
    assert not re.search(r"[\x7f-\x9f\ud800-\udfff]", out)
    assert json.loads(out.encode("utf-8")) == value


def test_dump_json_refuses_what_json_cannot_carry() -> None:
    for bad in ({"x": math.nan}, [math.inf], {(1, 2): 1}, {"s": {1, 2}}):
        try:
            json.dumps(bad, allow_nan=False)
        except (TypeError, ValueError) as exc:
            expected: type[Exception] = type(exc)
        with pytest.raises(expected):
            dump_json(bad)


# Characters of every kind terminal_safe tells apart: printable ASCII, newline and tab, C0,
# DEL, C1, Latin-1 (UTF-8 lead byte \xc2, as C1's), Hangul (lead byte \xed, as a
# surrogate's), other text, and lone surrogates.
_KINDS = st.sampled_from(
    [
        "a",
        " ",
        "\n",
        "\t",
        "\x1b",
        "\x00",
        "\x7f",
        "\x9b",
        "\x85",
        "©",
        "\xa0",
        "한",
        "└",
        "\ud800",
        "\udfff",
    ]
)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(_KINDS, max_size=6),
    st.integers(min_value=0, max_value=9000),
    st.integers(min_value=4000, max_value=9000),
)
def test_a_long_text_is_made_terminal_safe_as_a_short_one(
    rare: list[str], at: int, length: int
) -> None:
    """A long text is first checked at C speed; what it gives is what searching gives."""
    base = ("ab └─ c\n" * (length // 8 + 1))[:length]
    text = base[:at] + "".join(rare) + base[at:]
    assert terminal_safe(text) == UNSAFE.sub(_stand_in, text)
