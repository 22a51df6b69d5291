"""Token counts say what they are in every format: `≈` and "estimates" for an estimating
tokenizer (and for a runtime placeholder, sized by chars/4 whatever the tokenizer), the
tokenizer's name alone for exact counts."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import SAMPLE

PROGRAM = Path(sys.executable).with_name("ctxscope")
COMMAND = [str(PROGRAM)] if PROGRAM.exists() else [sys.executable, "-m", "ctxscope"]
SECTION_LINE = re.compile(r"^──── (.*)  \[([\d,]+) chars, (≈?)([\d,]+) tokens · (.*)\]$")
EXACT = ["o200k_base", "gpt-4"]


def ctxscope(*args: str) -> str:
    out = subprocess.run([*COMMAND, *args], capture_output=True, text=True, timeout=120)
    assert out.returncode in (0, 1), out.stderr
    return out.stdout


@pytest.mark.parametrize("tokenizer", ["estimate", "chars/4", *EXACT])
def test_text_marks_exactly_the_estimated_counts(tokenizer: str) -> None:
    exact = tokenizer in EXACT
    text = ctxscope("render", str(SAMPLE), "--tokenizer", tokenizer)
    data = json.loads(ctxscope("render", str(SAMPLE), "--tokenizer", tokenizer, "--format", "json"))
    lines = [m for line in text.splitlines() if (m := SECTION_LINE.match(line))]
    assert len(lines) == len(data["sections"])
    for m, section in zip(lines, data["sections"], strict=True):
        assert int(m[4].replace(",", "")) == section["tokens"]
        assert (m[3] == "≈") == (not exact or section.get("placeholder", False)), m[0]
    header = next(line for line in text.splitlines() if line.startswith("tokens   "))
    files = next(line for line in text.splitlines() if line.startswith("name "))
    if exact:
        assert "estimate" not in header and "≈" + tokenizer not in header
        assert header.endswith(
            "runtime placeholders and tool schemas ≈chars/4]"
        )  # the sample has some
        assert files.split()[6] == "tokens"
    else:
        assert header.endswith(f"[≈{tokenizer}; estimates]")
        assert files.split()[6] == "≈tokens"


def test_with_no_placeholder_an_exact_count_carries_no_mark(tmp_path: Path) -> None:
    """`--prompt-mode none`: the identity line alone, counted exactly."""
    (tmp_path / "AGENTS.md").write_text("# Agents\n")
    text = ctxscope("render", str(tmp_path), "--tokenizer", "o200k_base", "--prompt-mode", "none")
    prompt, request = text.split("\nRequest\n")
    assert "≈" not in prompt.replace("[o200k_base; tool schemas ≈chars/4]", "")
    assert "estimate" not in text
    assert "[o200k_base; tool schemas ≈chars/4]" in text
    # The tools' counts are chars/4 of their measured sizes: marked in the request's table.
    assert re.search(r"\ntools +\d+ +≈[\d,]+ ", request)


@pytest.mark.parametrize("tokenizer", ["estimate", "o200k_base"])
def test_markdown_and_html_say_how_tokens_were_counted(tokenizer: str) -> None:
    exact = tokenizer == "o200k_base"
    md = ctxscope("render", str(SAMPLE), "--tokenizer", tokenizer, "--format", "markdown")
    html = ctxscope("render", str(SAMPLE), "--tokenizer", tokenizer, "--format", "html")
    tokens_line = next(line for line in md.splitlines() if line.startswith("- tokens ("))
    assert ("estimates" in tokens_line) is not exact
    assert ("| heading | chars | tokens | source |" in md) is exact
    assert ("| heading | chars | ≈tokens | source |" in md) is not exact
    assert ("(tokens: o200k_base; runtime placeholders and tool schemas ≈chars/4)" in html) is exact
    assert ("<th>category</th><th>tokens</th>" in html) is exact
    assert ("<th>category</th><th>≈tokens</th>" in html) is not exact
    if exact:
        # A workspace file's count is exact; the runtime text's is not.
        agents = next(line for line in md.splitlines() if line.startswith("| AGENTS.md |"))
        assert "≈" not in agents
        safety = next(line for line in md.splitlines() if line.startswith("| ## Safety |"))
        assert "| ≈" in safety


def test_check_findings_mark_only_estimated_counts() -> None:
    found = json.loads(
        ctxscope(
            "check",
            str(SAMPLE),
            "--tokenizer",
            "o200k_base",
            "--max-section-tokens",
            "100",
            "--format",
            "json",
        )
    )["findings"]
    budget = [f["message"] for f in found if f["kind"] == "budget"]
    files = [m for m in budget if m.startswith(f"## {SAMPLE}")]
    placeholders = [m for m in budget if m.startswith("## Safety")]
    assert files and all("≈" not in m for m in files)
    assert placeholders and all(": ≈" in m for m in placeholders)


@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_a_rye_thread_counted_exactly_is_not_marked(fmt: str) -> None:
    args = ["thread", str(SAMPLE), "project/deploy/deploy_staging", "--input", "env=staging"]
    exact = ctxscope(*args, "--tokenizer", "o200k_base", "--format", fmt)
    estimate = ctxscope(*args, "--format", fmt)

    # The tool palette is always ≈4 chars/token, and the stand-in system tier's items are
    # estimates of the real ones; every other count is the tokenizer's.
    def counted(text: str) -> str:
        lines = text.split("Tool palette")[0].splitlines()
        return "\n".join(x for x in lines if "stand-in" not in x and "palette" not in x)

    assert "≈" not in counted(exact) and "estimate" not in counted(exact)
    assert "≈" in counted(estimate)
