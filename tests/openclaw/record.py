"""Ask the installed releases for the context files of the agreement cases not yet recorded,
and add their answers to `runtime-<version>.json` (the files only; a case's prompt stays
unrecorded). Run after adding cases: `python -m tests.openclaw.record [NAME ...]` (names:
re-record those too)."""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

from ctxscope.runtimes.openclaw.exact import find_install
from ctxscope.runtimes.openclaw.exact.runtime import RuntimeHelper
from tests import runtimes
from tests.openclaw.cases import CASES, VERSIONS, fingerprint, recorded, recorded_file

PACKAGES = {"2026.9.6": "openclaw_package", "2026.2.19": "openclaw_package_2"}


def main(again: list[str]) -> None:
    node = str(runtimes.get("node22"))
    for version in VERSIONS:
        done = recorded(version)
        todo = [c for c in CASES if c.name not in done or c.name in again]
        if not todo:
            continue
        helper = RuntimeHelper(find_install(str(runtimes.get(PACKAGES[version])), node))
        helper.start()
        try:
            for case in todo:
                with tempfile.TemporaryDirectory() as tmp:
                    ws = case.write(Path(tmp))
                    answer = helper.ask(
                        {
                            "workspace": str(ws),
                            "sessionKey": case.session_key,
                            "agentId": case.session_key.split(":")[1].lower(),
                            "config": case.run_config,
                            "promptMode": "full",
                            "tools": list(case.tools),
                            # Every context file the budget spends (BOOTSTRAP.md included).
                            "bootstrapMode": "full",
                        }
                    )
                    files = [(Path(p).name, t) for p, t in answer["files"]]
                    done[case.name] = {"files": fingerprint(files, ws), "prompt": None}
                    print(version, case.name, [f[0] for f in files])
        finally:
            helper.close()
        text = json.dumps(done, indent=1, ensure_ascii=False) + "\n"
        recorded_file(version).write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1:])
