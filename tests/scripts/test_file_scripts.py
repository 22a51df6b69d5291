"""Local file scripts: variable passing, paths, timeouts, exit codes, output cap."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from ctxscope.scripts import ScriptResult
from ctxscope.scripts.run import seconds_text

from .helpers import (
    config_with,
    json_script,
    process_alive,
    py_script,
    run_cfg,
    write_script,
)

ARGV_ECHO = "import json, sys\nprint(json.dumps(sys.argv[1:]))"
STDIN_ECHO = "import sys\nsys.stdout.write(sys.stdin.read())"


def one(tmp_path: Path, entry: dict[str, Any], **kw: Any) -> ScriptResult:
    outcome = run_cfg(config_with([entry]), tmp_path, **kw)
    assert len(outcome.results) == 1
    return outcome.results[0]


def test_arguments_one_key_value_word_per_argmap_entry(tmp_path: Path) -> None:
    py_script(tmp_path, "argv.py", ARGV_ECHO)
    result = one(
        tmp_path,
        {
            "id": "a",
            "uri": "argv.py",
            "argMap": {
                "agent": "targetAgentId",
                "spawner": "requesterAgentId",
                "tag": "label",
                "task": "task",
                "session": "requesterSessionKey",
                "cleanup": "cleanup",
            },
        },
    )
    assert result.status == "ok"
    assert json.loads(result.output or "") == [
        "agent=steward",
        "spawner=main",
        "tag=arch",
        "task=Review the architecture",
        "session=agent:main:main",
        "cleanup=keep",
    ]


def test_arguments_undefined_variable_is_an_empty_value(tmp_path: Path) -> None:
    py_script(tmp_path, "argv.py", ARGV_ECHO)
    result = one(tmp_path, {"id": "a", "uri": "argv.py", "argMap": {"tag": "label"}}, label=None)
    assert json.loads(result.output or "") == ["tag="]


def test_arguments_without_argmap_gets_no_arguments(tmp_path: Path) -> None:
    py_script(tmp_path, "argv.py", ARGV_ECHO)
    assert one(tmp_path, {"id": "a", "uri": "argv.py"}).output == "[]"


def test_argv_is_never_a_shell(tmp_path: Path) -> None:
    py_script(tmp_path, "argv.py", ARGV_ECHO)
    evil = 'x"; touch pwned; echo "$(touch pwned2)'
    result = one(tmp_path, {"id": "a", "uri": "argv.py", "argMap": {"t": "task"}}, task=evil)
    assert json.loads(result.output or "") == [f"t={evil}"]
    assert not (tmp_path / "pwned").exists()
    assert not (tmp_path / "pwned2").exists()


def test_json_format_sends_the_argmap_object_on_stdin(tmp_path: Path) -> None:
    py_script(tmp_path, "stdin.py", STDIN_ECHO)
    entry = {
        "id": "j",
        "uri": "stdin.py",
        "format": "json",
        "argMap": {
            "agent": "targetAgentId",
            "task": "task",
            "label": "label",
            "requester": "requesterAgentId",
            "session": "requesterSessionKey",
            "cleanup": "cleanup",
            "config": "cfg",
        },
    }
    config = config_with([entry])
    config["gateway"] = {"auth": {"token": "s3cret"}}
    outcome = run_cfg(config, tmp_path)
    result = outcome.results[0]
    # The script's stdout is its stdin: a JSON object, so it goes through the pipeline and,
    # having no content key, is injected as the whole object.
    sent = json.loads(result.raw_output or "")
    assert sent == {
        "agent": "steward",
        "task": "Review the architecture",
        "label": "arch",
        "requester": "main",
        "session": "agent:main:main",
        "cleanup": "keep",
        "config": config,
    }
    assert sent["config"]["gateway"]["auth"]["token"] == "s3cret"  # scripts get the real cfg


def test_json_format_leaves_undefined_variables_out(tmp_path: Path) -> None:
    py_script(tmp_path, "stdin.py", STDIN_ECHO)
    result = one(
        tmp_path,
        {
            "id": "j",
            "uri": "stdin.py",
            "format": "json",
            "argMap": {"tag": "label", "who": "cleanup"},
        },
        label=None,
        cleanup=None,
    )
    assert result.status == "ok"
    assert result.raw_output == "{}"


def test_tilde_is_expanded(tmp_path: Path, home: Path) -> None:
    write_script(home / "bin", "hello.sh", "echo hello from home")
    result = one(tmp_path / "cfg", {"id": "h", "uri": "~/bin/hello.sh"})
    assert (result.status, result.output) == ("ok", "hello from home")


def test_relative_path_is_from_the_config_folder_and_runs_there(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config_dir = tmp_path / "cfg"
    write_script(config_dir / "scripts", "where.sh", 'echo "$PWD"')
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    result = one(config_dir, {"id": "w", "uri": "scripts/where.sh"})
    assert result.status == "ok"
    assert Path(result.output or "").resolve() == config_dir.resolve()


def test_output_is_stripped(tmp_path: Path) -> None:
    write_script(tmp_path, "ws.sh", "printf '\\n\\n   hello\\n  world  \\n\\n'")
    assert one(tmp_path, {"id": "w", "uri": "ws.sh"}).output == "hello\n  world"


def test_empty_output_is_a_silent_no_op(tmp_path: Path) -> None:
    write_script(tmp_path, "quiet.sh", "printf '  \\n'")
    outcome = run_cfg(
        config_with(
            [{"id": "q", "uri": "quiet.sh", "position": "prepend", "agentIdOverrideKey": "agent"}]
        ),
        tmp_path,
    )
    (result,) = outcome.results
    assert (result.status, result.output, result.error, result.chars) == ("empty", None, None, 0)
    assert (outcome.prepend, outcome.append, outcome.candidates) == ("", "", [])
    assert outcome.log_lines == []
    assert outcome.apply_to_task("Do it") == "Do it"


def test_exit_code_with_stderr(tmp_path: Path) -> None:
    write_script(tmp_path, "fail.sh", "echo partial\necho 'database is down' >&2\nexit 3")
    result = one(tmp_path, {"id": "f", "uri": "fail.sh"})
    assert result.status == "error"
    assert result.error == "Script exited with code 3: database is down"
    assert result.output is None


def test_exit_code_without_stderr(tmp_path: Path) -> None:
    write_script(tmp_path, "fail.sh", "exit 3")
    assert one(tmp_path, {"id": "f", "uri": "fail.sh"}).error == "Script exited with code 3"


def test_missing_and_non_executable_scripts(tmp_path: Path) -> None:
    plain = tmp_path / "plain.sh"
    plain.write_text("#!/bin/sh\necho hi\n")
    plain.chmod(0o644)
    outcome = run_cfg(
        config_with([{"id": "gone", "uri": "nope.sh"}, {"id": "plain", "uri": "plain.sh"}]),
        tmp_path,
    )
    assert [r.status for r in outcome.results] == ["error", "error"]
    assert outcome.results[0].error == f"Script not found: {tmp_path / 'nope.sh'}"
    assert outcome.results[1].error == (
        f"Script is not executable (chmod +x it): {tmp_path / 'plain.sh'}"
    )


def test_hanging_script_times_out_and_its_process_group_is_killed(tmp_path: Path) -> None:
    pidfile = tmp_path / "child.pid"
    write_script(tmp_path, "hang.sh", f"sleep 60 &\necho $! > {pidfile}\nwait")
    write_script(tmp_path, "after.sh", "echo still running")
    outcome = run_cfg(
        config_with(
            [
                {"id": "hang", "uri": "hang.sh", "timeoutMs": 300, "priority": 1},
                {"id": "after", "uri": "after.sh"},
            ]
        ),
        tmp_path,
    )
    hang, after = outcome.results
    assert hang.status == "timeout"
    assert hang.error == "Script execution timed out after 0.3 seconds"
    assert after.status == "ok"
    child = int(pidfile.read_text())
    for _ in range(100):  # the kill is asynchronous: give the kernel a moment
        if not process_alive(child):
            break
        time.sleep(0.02)
    assert not process_alive(child)


def test_timeout_seconds_are_printed_without_trailing_zeros() -> None:
    # The default timeout gives the message OpenClaw prints.
    assert f"Script execution timed out after {seconds_text(10)}" == (
        "Script execution timed out after 10 seconds"
    )
    assert (seconds_text(1), seconds_text(0.25), seconds_text(2.5)) == (
        "1 second",
        "0.25 seconds",
        "2.5 seconds",
    )


def test_a_hundred_megabytes_are_cut_at_one_mebibyte(tmp_path: Path) -> None:
    py_script(
        tmp_path,
        "flood.py",
        ("import sys\nchunk = 'x' * 65536\nfor _ in range(1600):\n    sys.stdout.write(chunk)\n"),
    )
    outcome = run_cfg(config_with([{"id": "flood", "uri": "flood.py"}]), tmp_path)
    (result,) = outcome.results
    assert result.status == "ok"
    assert result.output_truncated
    assert result.chars == 1024 * 1024
    assert any(d.code == "context-script-output-capped" for d in outcome.diagnostics)


def test_invalid_json_is_injected_as_plain_text_with_a_warning(tmp_path: Path) -> None:
    json_script(tmp_path, "bad.sh", '{"message": "unterminated')
    outcome = run_cfg(config_with([{"id": "bad", "uri": "bad.sh"}]), tmp_path)
    (result,) = outcome.results
    assert (result.status, result.output) == ("ok", '{"message": "unterminated')
    (diag,) = outcome.diagnostics
    assert diag.code == "context-script-bad-json"
    assert "script bad" in diag.message and "not valid JSON" in diag.message


def test_garbage_bytes_are_decoded_with_replacement(tmp_path: Path) -> None:
    write_script(tmp_path, "bin.sh", "printf 'ok \\377\\376 done'")
    assert one(tmp_path, {"id": "b", "uri": "bin.sh"}).output == "ok \ufffd\ufffd done"


def test_untrusted_workspace_runs_nothing(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    write_script(tmp_path, "touch.sh", f"touch {marker}\necho hi")
    outcome = run_cfg(
        config_with([{"id": "t", "uri": "touch.sh", "log": True}]), tmp_path, trusted=False
    )
    (result,) = outcome.results
    assert result.status == "not-run"
    assert (result.output, result.error) == (None, None)
    assert result.summary == "not run (untrusted workspace)"
    assert not marker.exists()
    assert outcome.log_lines == []


@pytest.mark.parametrize("scrub_env", [False, True], ids=["setsid", "setsid-env-scrubbed"])
def test_descendants_that_leave_the_process_group_are_killed(
    tmp_path: Path, scrub_env: bool
) -> None:
    # The grandchild calls setsid() (its own session and group), double-forks and closes the
    # script's pipes, so neither the group kill nor the pipes would catch it.
    pidfile = tmp_path / "escaped.pid"
    escape = (
        "import os, sys, time\n"
        "if os.fork() == 0:\n"
        "    os.setsid()\n"
        "    if os.fork() == 0:\n"
        "        os.closerange(0, 3)\n"
        f"        open({str(pidfile)!r}, 'w').write(str(os.getpid()))\n"
        "        time.sleep(60)\n"
        "    os._exit(0)\n"
        "time.sleep(0.3)\n"
        "print('done')\n"
    )
    prefix = "/usr/bin/env -i " if scrub_env else ""
    py_script(tmp_path, "escape.py", escape)
    write_script(tmp_path, "run.sh", f"{prefix}{sys.executable} {tmp_path / 'escape.py'}")
    result = one(tmp_path, {"id": "e", "uri": "run.sh"})
    assert result.status == "ok" and result.output == "done"
    escaped = int(pidfile.read_text())
    for _ in range(100):
        if not process_alive(escaped):
            break
        time.sleep(0.02)
    assert not process_alive(escaped)
