"""Options and helpers shared by the subcommands."""

from __future__ import annotations

import argparse
import io
import os
import sys
import time
from typing import TYPE_CHECKING

from ctxscope.output import FORMATS

if TYPE_CHECKING:
    from collections.abc import Iterable

    from ctxscope.api import Inspector
    from ctxscope.core.model import Diagnostic


class UsageError(Exception):
    """Bad usage or unreadable input: the CLI prints the message and exits 2."""


def add_workspace(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "workspace",
        nargs="?",
        default=".",
        metavar="WORKSPACE",
        help="the workspace folder (default: .)",
    )


def add_format(parser: argparse.ArgumentParser, *, html: bool = False) -> None:
    """--format; `html`: the command can also write a standalone HTML page."""
    parser.add_argument(
        "--format",
        choices=FORMATS if html else tuple(f for f in FORMATS if f != "html"),
        default="text",
        help="output format (default: text)"
        + ("; html: one page with the context map, to save and share" if html else ""),
    )


def add_standard(
    parser: argparse.ArgumentParser, *, spawn: bool = True, html: bool = False
) -> None:
    """WORKSPACE, --format and the scenario flags: what every engine command takes."""
    add_workspace(parser)
    add_format(parser, html=html)
    add_show_env(parser)
    add_scenario(parser, spawn=spawn)


def add_show_env(parser: argparse.ArgumentParser) -> None:
    """--show-env NAME: values the config takes from the environment are masked otherwise."""
    parser.add_argument(
        "--show-env",
        action="append",
        default=[],
        metavar="NAME",
        help="show the value of environment variable NAME where the config uses it "
        "(${NAME}); every other one is shown masked as ⟨$NAME⟩ (repeatable)",
    )


def add_scenario(parser: argparse.ArgumentParser, *, spawn: bool = True) -> None:
    """The scenario flags; each overrides `WORKSPACE/ctxscope.yaml`."""
    g = parser.add_argument_group("scenario (overrides ctxscope.yaml)")
    g.add_argument("--config", metavar="PATH", help="gateway config file (default: discovered)")
    g.add_argument(
        "--profile",
        metavar="NAME|FILE",
        help=(
            "runtime profile: openclaw (default: the version the workspace runs), "
            "openclaw-2026.2, openclaw-2026.9, goclaw (the code), goclaw-plan (its plan), or a "
            "profile YAML file"
        ),
    )
    g.add_argument("--requester", metavar="AGENT", help="the agent calling sessions_spawn")
    g.add_argument("--target", metavar="AGENT", help="the agent to spawn as")
    g.add_argument("--task", metavar="TEXT", help="the spawn task")
    g.add_argument("--label", metavar="TEXT", help="the spawn label")
    g.add_argument("--model", metavar="MODEL", help="model override")
    g.add_argument("--thinking", metavar="LEVEL", help="thinking level override")
    g.add_argument("--depth", type=int, metavar="N", help="the caller's depth (default 0)")
    g.add_argument(
        "--active-children",
        type=int,
        metavar="N",
        help="children the requester already runs (default 0)",
    )
    g.add_argument("--channel", metavar="NAME", help="the requester's channel")
    g.add_argument("--tools", metavar="A,B,...", help="tool names listed in the Tooling section")
    g.add_argument(
        "--prompt-mode", choices=("full", "minimal", "none"), help="force a prompt mode (what-if)"
    )
    g.add_argument("--context-tokens", type=int, metavar="N", help="the model's context window")
    g.add_argument("--timezone", metavar="TZ", help="the user's time zone")
    g.add_argument("--child-id", metavar="ID", help="fixed id for the child session key")
    g.add_argument("--user", metavar="ID", help="GoClaw: the users.json user sending the message")
    g.add_argument(
        "--tokenizer",
        metavar="SPEC",
        help="estimate (default: chars/4 for ASCII, measured weights for other scripts), "
        "chars/4, o200k_base, cl100k_base, a model family (gpt-4o, gpt-4, ...) or "
        "tiktoken:<encoding>; never downloads",
    )
    g.add_argument("--user-space", metavar="DIR", help="Rye user space (.ai folder)")
    if spawn:
        g.add_argument(
            "--trust", action="store_true", help="trust this workspace: run its context scripts"
        )


def add_exact(parser: argparse.ArgumentParser) -> None:
    """Exact mode: the installed OpenClaw builds the text (render, spawn, the TUI)."""
    g = parser.add_argument_group("exact mode (ask the installed OpenClaw)")
    g.add_argument(
        "--exact",
        dest="exact",
        action="store_const",
        const="required",
        help="show the text the installed OpenClaw's runner builds, with ctxscope's drift from "
        "it (needs Node >= 22); exit 2 with the reason when it cannot run",
    )
    g.add_argument(
        "--exact=auto",
        dest="exact",
        action="store_const",
        const="auto",
        help="exact mode where it can run, else ctxscope's model with a warning saying why "
        "(the app's default)",
    )
    g.add_argument(
        "--exact=off",
        dest="exact",
        action="store_const",
        const="off",
        help="ctxscope's model only, even where OpenClaw is installed (as the commands do "
        "by default)",
    )
    g.add_argument(
        "--runtime",
        metavar="DIR",
        type=typed_folder,
        help="the openclaw package folder to use (default: on PATH / npm's global folder)",
    )
    g.add_argument(
        "--node",
        metavar="PATH",
        type=typed_program,
        help="the Node >= 22 to run it with (a bare name is looked up on PATH)",
    )


def typed_folder(value: str) -> str:
    """A folder typed on the command line, made absolute from the current folder once, when
    it is parsed (`~` expanded): whatever later runs from elsewhere finds the same one."""
    return os.path.abspath(os.path.expanduser(value))


def typed_program(value: str) -> str:
    """A program typed on the command line: a path made absolute as `typed_folder` makes
    it; a bare name (`node22`) is kept, to be looked up on PATH's absolute entries."""
    return value if os.sep not in value and not value.startswith("~") else typed_folder(value)


def exact_mode(asked: str | None, inspector: Inspector, default: str = "off") -> str:
    """The exact mode a command runs in: the command line's (`required`, `auto`, `off`), else
    the scenario's `exact` setting (`on` is `required`), else `default`."""
    if asked is not None:
        return asked
    setting = inspector.inputs.scenario.exact
    if setting is None:
        return default
    return "required" if setting == "on" else setting


def start_exact(inspector: Inspector, asked: str | None = None) -> None:
    """Load the runtime before building, saying so on stderr (it takes seconds). The mode is
    `exact_mode`'s: `required` (`--exact`): exact mode that cannot run is a `UsageError`
    (exit 2) saying why; `auto` (`--exact=auto`) falls back to ctxscope's model with a
    warning; `off` (the commands' default): ctxscope's model, with a note when an installed
    OpenClaw is found that `--exact=auto` would ask it."""
    mode = exact_mode(asked, inspector)
    if mode == "off":
        from ctxscope.runtimes.openclaw.versions import installed_openclaw  # see make_inspector

        found = installed_openclaw() if asked is None else None
        if found is not None:
            version, package = found
            sys.stderr.write(
                f"ctxscope: showing ctxscope's model; OpenClaw {'.'.join(map(str, version))} "
                f"is installed ({package}): --exact=auto shows its own text\n"
            )
        return
    if inspector.exact is None and inspector.exact_problem is None:
        inspector.set_exact(True)  # the scenario's setting
        inspector.reload()
    if mode == "required":
        why = inspector.exact_unavailable()
        if why is not None:
            inspector.close()
            raise UsageError(f"exact mode unavailable: {why}")
    if inspector.exact_problem is not None:
        sys.stderr.write(f"ctxscope: {inspector.exact_problem.message}\n")
    if inspector.exact is None:
        return
    if inspector.exact_refusal() is not None:  # not run: the sessions say why
        sys.stderr.write(f"ctxscope: exact mode unavailable: {inspector.exact_unavailable()}\n")
        return
    sys.stderr.write(f"ctxscope: loading {inspector.exact.label} for exact mode...\n")
    began = time.perf_counter()
    failure = inspector.exact.start()
    took = time.perf_counter() - began
    if failure and mode == "required":
        inspector.close()
        raise UsageError(f"exact mode unavailable: {failure}")
    sys.stderr.write(
        f"ctxscope: exact mode unavailable: {failure}\n"
        if failure
        else f"ctxscope: {inspector.exact.label} loaded in {took:.1f} s "
        f"(Node {inspector.exact.install.node_version})\n"
    )
    # Its first answer can take longer than later ones: said, not refused.

    def slow(said: str) -> None:
        sys.stderr.write(f"ctxscope: {said}…\n")

    inspector.exact.helper.on_slow = slow


def require_exact(args: argparse.Namespace, diagnostics: Iterable[Diagnostic]) -> None:
    """With `--exact`, a session exact mode could not build is a `UsageError` (exit 2) giving
    the runtime's reason."""
    if getattr(args, "exact", None) != "required":
        return
    for d in diagnostics:
        if d.code == "exact-unavailable":
            raise UsageError(d.message.removesuffix("; showing ctxscope's model instead"))


SCENARIO_FLAGS = (
    "profile",
    "requester",
    "target",
    "task",
    "label",
    "model",
    "thinking",
    "depth",
    "active_children",
    "channel",
    "prompt_mode",
    "context_tokens",
    "timezone",
    "child_id",
    "user",
)


def scenario_overrides(args: argparse.Namespace) -> dict[str, object]:
    out: dict[str, object] = {k: getattr(args, k, None) for k in SCENARIO_FLAGS}
    profile = out["profile"]
    if isinstance(profile, str) and ("/" in profile or profile.endswith((".yaml", ".yml"))):
        out["profile"] = os.path.abspath(os.path.expanduser(profile))  # a path typed here
    tools = getattr(args, "tools", None)
    if tools is not None:
        out["tools"] = [t.strip() for t in tools.split(",") if t.strip()]
    return {k: v for k, v in out.items() if v is not None}


def make_inspector(
    args: argparse.Namespace, *, exact: bool | None = None, **extra: object
) -> Inspector:
    """An Inspector for the command's workspace and flags; unusable input → UsageError.
    `exact`: whether it starts in exact mode (default: as `--exact` asks); `extra`: scenario
    fields."""
    # The engine (and ctxscope's own modules in the functions below) once a command runs:
    # every command's `--help` imports this module (docs/benchmarks.md, imports inside
    # functions).
    from ctxscope.api import Inspector, WorkspaceError
    from ctxscope.core.tokens import TokenizerError
    from ctxscope.runtimes.openclaw.config import ConfigError
    from ctxscope.runtimes.profiles import ProfileError
    from ctxscope.runtimes.rye import for_program

    overrides = scenario_overrides(args)
    overrides.update({k: v for k, v in extra.items() if v is not None})
    try:
        return Inspector(
            args.workspace,
            config=getattr(args, "config", None),
            scenario=overrides,
            tokenizer=getattr(args, "tokenizer", None),
            user_space=getattr(args, "user_space", None),
            trusted=bool(getattr(args, "trust", False)),
            exact=getattr(args, "exact", None) in ("required", "auto") if exact is None else exact,
            runtime=getattr(args, "runtime", None),
            node=getattr(args, "node", None),
            show_env=getattr(args, "show_env", None) or (),
            tools=for_program(args.workspace),
        )
    except (ConfigError, ProfileError) as exc:
        raise UsageError(str(exc.diagnostic)) from None
    except (WorkspaceError, TokenizerError) as exc:
        raise UsageError(str(exc)) from None


def emit(text: str) -> None:
    """Write a command's output; control characters from workspace text are made visible.
    On an output that cannot encode all of Unicode (an ASCII locale) a character it cannot
    write is written as its escape (`\\u2248`) rather than ending the command. An output
    that cannot be written (a full disk) is a UsageError saying why."""
    from ctxscope.output import terminal_safe

    safe = terminal_safe(text)
    out = sys.stdout
    if isinstance(out, io.TextIOWrapper) and out.errors == "strict":
        out.reconfigure(errors="backslashreplace")
    try:
        out.write(safe if safe.endswith("\n") else safe + "\n")
        out.flush()
    except BrokenPipeError:
        raise
    except OSError as exc:  # a full disk, a closed descriptor: the answer is not written
        raise UsageError(f"cannot write the output: {exc.strerror or exc}") from None


def write(obj: object, fmt: str) -> None:
    """A command's answer: `obj` rendered in `fmt` by `ctxscope.output.render`, written."""
    from ctxscope import output

    emit(output.render(obj, fmt))


def warn_if_unrecognised(inspector: Inspector) -> None:
    """A warning on stderr when the workspace holds nothing ctxscope reads: the answer that
    follows is that of an empty workspace, most likely not the folder meant."""
    from ctxscope.check import NOTHING_TO_READ, recognised
    from ctxscope.output import terminal_safe

    if not recognised(inspector.inputs, inspector.snapshot):
        sys.stderr.write(
            terminal_safe(
                f"ctxscope: warning: {inspector.workspace}: {NOTHING_TO_READ}; "
                "what follows is what an empty workspace gets\n"
            )
        )
