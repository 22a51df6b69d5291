"""Assembly of a Rye thread: hooks, extends chain, system message, first user message, tool
palette, transcript events. `build_thread` never raises on user content.

First user message order: hook before-context (thread_started hooks, wrapped unless
`wrap: false`), extends-chain <before> items, the directive's own <before> items, the directive
prompt (body + outputs), <after> items, then any `position: after` hook items.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ctxscope.core.model import Diagnostic
from ctxscope.core.tokens import ESTIMATE, Tokenizer
from ctxscope.infra import paths
from ctxscope.infra.environ import process_env
from ctxscope.infra.snapshot import Snapshot
from ctxscope.runtimes.rye import hooks as hooks_mod
from ctxscope.runtimes.rye.extends import Chain, compose, effective_capabilities, walk_chain
from ctxscope.runtimes.rye.integrity import Verifier, check_chain
from ctxscope.runtimes.rye.limits import resolve_limits
from ctxscope.runtimes.rye.prompt import directive_prompt, resolve_inputs
from ctxscope.runtimes.rye.risk import blocked
from ctxscope.runtimes.rye.runtime_text import STAND_IN, outputs_wording
from ctxscope.runtimes.rye.semantics import RyeSemantics
from ctxscope.runtimes.rye.semantics import load as load_profile
from ctxscope.runtimes.rye.threaddata import ComposedItem, Directive, MessagePart
from ctxscope.runtimes.rye.threadhooks import context_hooks, resolve_extends
from ctxscope.runtimes.rye.threadreport import ThreadReport
from ctxscope.runtimes.rye.tiers import Resolver, Space, spaces_for
from ctxscope.runtimes.rye.tools import build_palette
from ctxscope.runtimes.rye.toolsource import Serial, ToolSource


def build_thread(
    workspace: Path | str,
    directive: str,
    *,
    inputs: dict[str, str] | None = None,
    user_space: Path | str | None = None,
    model: str | None = None,
    snapshot: Snapshot | None = None,
    tokenizer: Tokenizer = ESTIMATE,
    continued: bool = False,
    tools: ToolSource | None = None,
    profile: RyeSemantics | None = None,
    system: list[Path] | None = None,
    dev_mode: bool = False,
    home: Path | None = None,
    env: Mapping[str, str] | None = None,
) -> ThreadReport:
    """Build what a thread running `directive` is told under `profile` (default: what ryeos
    0.1 does). Errors go to `report.diagnostics`. Tool metadata is asked of `tools` (default:
    each file parsed in this process; a cache it holds is never saved: the caller saves it).
    Signatures are verified as ryeos does outside its dev mode; `dev_mode` loads every item
    and only reports them. `home`: the user space ryeos trusts keys of when no user space is
    given (default: the home folder). `env`: the environment the thread is built in (this
    process's, read here once, by default)."""
    profile = profile if profile is not None else load_profile()
    snapshot = snapshot if snapshot is not None else Snapshot()
    spaces = spaces_for(workspace, user_space, system)
    tools = tools if tools is not None else Serial()
    with tools.ahead(snapshot, spaces):  # a first look: the source may start early
        return _build(
            workspace,
            directive,
            spaces,
            snapshot,
            profile,
            inputs=inputs,
            model=model,
            tokenizer=tokenizer,
            continued=continued,
            tools=tools,
            system=system,
            env=env if env is not None else process_env(),
            verifier=Verifier(
                snapshot,
                spaces,
                dev_mode=dev_mode,
                stand_in=not system,
                home=home if home is not None else paths.home(),
            ),
        )


def _build(
    workspace: Path | str,
    directive: str,
    spaces: list[Space],
    snapshot: Snapshot,
    profile: RyeSemantics,
    *,
    inputs: dict[str, str] | None,
    model: str | None,
    tokenizer: Tokenizer,
    continued: bool,
    tools: ToolSource,
    system: list[Path] | None,
    env: Mapping[str, str],
    verifier: Verifier,
) -> ThreadReport:
    """The report of `directive`'s thread, its steps taken in the runtime's order."""
    resolver = Resolver(snapshot, spaces)
    directive = directive.strip().removesuffix(".md")
    report = ThreadReport(
        directive,
        tokenizer=tokenizer,
        resolver=resolver,
        hook_event="thread_continued" if continued else "thread_started",
        profile=profile,
        system_stand_in=not system,
        dev_mode=verifier.dev_mode,
        verifier=verifier,
    )
    leaf = resolver.load_directive(directive)
    if leaf is None:
        report.diagnostics = resolver.diagnostics + _not_loaded(report, resolver, spaces)
        return report
    build = _Assembly(report, leaf, resolver, snapshot, spaces, verifier, env)
    build.take_inputs(inputs)
    build.take_limits(model)
    build.load_hooks()
    build.follow_chain()
    build.check_composition()
    build.count_knowledge()
    build.build_palette(tools)
    build.build_system_message()
    build.build_first_message(workspace, continued, system)
    build.collect_refusals()
    report.diagnostics = _dedupe(resolver.diagnostics + build.diags)
    return report


def _not_loaded(report: ThreadReport, resolver: Resolver, spaces: list[Space]) -> list[Diagnostic]:
    """Why the directive did not load: the runtime's refusal when its file is there but
    cannot be parsed, the missing-directive error when no tier has it."""
    directive, profile = report.directive, report.profile
    diags: list[Diagnostic] = []
    locs = resolver.directives.get(directive)
    if locs and profile.refusals:  # there, but the runtime cannot parse it either
        why = next(
            (d.message for d in resolver.diagnostics if d.path == locs[0].path), "unreadable"
        )
        report.refused.append(f"the directive cannot be parsed: {why}")
        diags.append(_refusal(profile, report.refused[-1], locs[0].path))
    if not locs:
        expected = spaces[0].root / "directives" / f"{directive}.md"
        unread = resolver.unread(resolver.directives, directive)
        diags.append(
            Diagnostic(
                "error",
                f"directive '{directive}' "
                + (
                    f"not read: {unread}"
                    if unread
                    else "not found in project, user or system space"
                ),
                str(expected),
                code="rye-directive-missing",
            )
        )
    return diags


class _Assembly:
    """The steps of building a thread whose directive loaded, in the order the runtime takes
    them, and what they share: the diagnostics so far and why the runtime would refuse."""

    def __init__(
        self,
        report: ThreadReport,
        leaf: Directive,
        resolver: Resolver,
        snapshot: Snapshot,
        spaces: list[Space],
        verifier: Verifier,
        env: Mapping[str, str],
    ) -> None:
        self.report, self.leaf, self.profile = report, leaf, report.profile
        self.env = env
        self.resolver, self.verifier = resolver, verifier
        self.snapshot, self.spaces = snapshot, spaces
        self.diags: list[Diagnostic] = []
        self.refusals: list[str] = []
        self.values: dict[str, Any] = {}
        self.hook_inputs: dict[str, Any] = {}
        """The inputs hooks see: with the directive's defaults filled when the runtime does."""
        self.limit_problem: str | None = None
        self.hook_list: list[hooks_mod.Hook] = []
        self.extends_ctx: dict[str, Any] = {}
        """The hook context `resolve_extends` hooks are evaluated in."""
        self.chain = Chain()
        self.caps: list[str] = []
        self.system_items: list[ComposedItem] = []
        self.body_text = "\n".join(filter(None, [leaf.id, leaf.description, leaf.body.strip()]))

    def refuse(self, cause: str, where: str | None) -> None:
        """One reason the runtime would not start the thread, with its error."""
        self.refusals.append(cause)
        self.diags.append(_refusal(self.profile, cause, where))

    def held(self) -> list[str]:
        """The capabilities the thread holds: the chain's, and directive_return's when the
        directive has outputs."""
        held = list(self.caps)
        if self.leaf.outputs:
            held.append(DIRECTIVE_RETURN_CAP)
        return held

    def take_inputs(self, inputs: dict[str, str] | None) -> None:
        """The directive's inputs, given and defaulted; the runtime refuses a directive it
        cannot parse or whose inputs are wrong."""
        leaf, profile = self.leaf, self.profile
        self.report.directive_item = leaf
        given = dict(inputs or {})
        self.values, problems = resolve_inputs(
            leaf, given, "error" if profile.refusals else "warning"
        )
        self.diags += problems
        self.report.inputs = self.values
        if profile.refusals:
            if leaf.ryeos_parse_error:
                self.refuse(leaf.ryeos_parse_error, leaf.path)
            self.refusals += [x.message for x in problems]
        self.hook_inputs = self.values if profile.hook_inputs_defaults else given

    def take_limits(self, model: str | None) -> None:
        """The thread's limits and its model (the one asked for, else the directive's)."""
        self.report.limits, self.limit_problem = resolve_limits(
            self.snapshot, self.spaces, self.leaf
        )
        self.report.model = model or self.leaf.model

    def load_hooks(self) -> None:
        """Every hook of every space, the profile's built-ins and the directive's own."""
        self.hook_list, problems = hooks_mod.load_hooks(
            self.snapshot, self.spaces, self.profile, self.leaf
        )
        self.diags += problems

    def follow_chain(self) -> None:
        """The extends chain (its parent routed by `resolve_extends` hooks), the knowledge it
        composes, and its signatures checked."""
        report, leaf, profile = self.report, self.leaf, self.profile
        self.extends_ctx = {
            "directive": leaf.id,
            "has_extends": bool(leaf.extends),
            "category": leaf.category,
            "inputs": self.hook_inputs,
            "model": report.model,
        }
        resolve_extends(report, leaf, self.hook_list, self.extends_ctx, self.diags)
        self.chain, problems = walk_chain(
            leaf,
            report.extends,
            _router(report),
            self.resolver,
            profile.runtime if profile.unparsable_base == "empty" else None,
        )
        self.diags += problems
        report.chain, report.chain_error = self.chain.nodes, self.chain.error
        report.composed = compose(self.chain, self.resolver, profile.frontmatter_loads)
        unsigned, checked = check_chain(self.verifier, report.chain, report.composed)
        self.diags += checked
        for cause, where in unsigned:
            self.refuse(cause, where)

    def check_composition(self) -> None:
        """Knowledge the chain declares but no tier has, and `<suppress>` entries that match
        nothing."""
        hook_names = (
            {
                n
                for h in self.hook_list
                for n in (h.id, h.action.get("item_id"))
                if isinstance(n, str)
            }
            if self.profile.suppress_hooks
            else set()
        )
        self.diags += _composition_diagnostics(self.report, self.chain.directives, hook_names)

    def count_knowledge(self) -> None:
        """The tokens of each composed knowledge item, and the items kept in the report."""
        report = self.report
        for items in report.composed.values():
            for item in items:
                if item.knowledge is not None:
                    item.tokens = report.tokenizer.count(item.knowledge.body)
                    report.knowledge[item.item_id] = item.knowledge

    def build_palette(self, tools: ToolSource) -> None:
        """The capabilities the chain grants and the tools they register."""
        report, profile = self.report, self.profile
        caps, notes, source = effective_capabilities(self.chain, profile.inherit)
        if profile.slashes_to_dots:
            caps = list(dict.fromkeys(c.replace("/", ".") for c in caps))
        self.caps = caps
        report.capability_source, report.capability_notes = source, notes
        report.palette, problems = build_palette(
            self.snapshot, self.spaces, caps, source is not None, self.leaf.outputs, tools, profile
        )
        self.diags += problems

    def thread_context(self) -> dict[str, Any]:
        """The hook context every thread has: its directive, model, limits and inputs."""
        return {
            "directive": self.leaf.id,
            "directive_body": self.body_text,
            "model": self.report.model,
            "limits": self.report.limits,
            "inputs": self.hook_inputs,
        }

    def build_system_message(self) -> None:
        """The system message: what `build_system_prompt` hooks inject (when the runtime
        runs them), then the chain's `<system>` knowledge."""
        report = self.report
        system_hooks: list[MessagePart] = []
        if self.profile.system_prompt_hooks:
            system_hooks = context_hooks(
                report,
                self.hook_list,
                "build_system_prompt",
                self.thread_context(),
                self.resolver,
                self.diags,
            )
        self.system_items = [i for i in report.composed["system"] if i.present]
        report.system_hook_parts = system_hooks
        report.system_message = "\n\n".join(
            [p.text for p in system_hooks]
            + [
                i.knowledge.body.strip()
                for i in self.system_items
                if i.knowledge and i.knowledge.body
            ]
        )

    def started_context(self, workspace: Path | str, continued: bool) -> dict[str, Any]:
        """The hook context of `thread_started` (or `thread_continued`) hooks."""
        if self.profile.is_docs:
            return self.extends_ctx
        if continued:
            return {**self.thread_context(), "previous_thread_id": None}
        # runner.run: the thread's resolved limits, and the capabilities the harness holds
        # (slashes read as dots; directive_return's added when the directive has outputs).
        held = self.held()
        limits = self.report.limits
        return {
            **self.thread_context(),
            "project_path": str(Path(workspace).resolve()),
            "depth": 0,
            "parent_thread_id": "none",
            "spend_limit": limits.get("spend", "unlimited"),
            "max_turns": limits.get("turns", "unlimited"),
            "capabilities_summary": ", ".join(held) if held else "unrestricted",
        }

    def build_first_message(
        self, workspace: Path | str, continued: bool, system: list[Path] | None
    ) -> None:
        """The first user message (hook blocks around the chain's items and the directive
        prompt) and the transcript events."""
        report = self.report
        started = self.started_context(workspace, continued)
        hook_parts = context_hooks(
            report, self.hook_list, report.hook_event, started, self.resolver, self.diags
        )
        wording = self.outputs_text(system)
        _assemble(report, self.leaf, self.values, hook_parts, wording, self.env)
        report.events = _events(report, self.system_items)

    def outputs_text(self, system: list[Path] | None) -> tuple[str, str] | None:
        """The runtime's wording of the outputs instruction (None: the profile has none):
        the installed ryeos's, else ctxscope's stand-in, noted when the directive uses it."""
        if not self.profile.ryeos_outputs:
            return None
        wording = outputs_wording(self.snapshot, system or [])
        if wording is None:
            wording = STAND_IN
            if self.leaf.outputs:
                self.report.stand_in_text.append(
                    "the outputs instruction in the directive prompt is ctxscope's own wording "
                    f"(its length differs from {self.profile.runtime}'s; install ryeos or pass "
                    "--rye-system for the real text)"
                )
        return wording

    def collect_refusals(self) -> None:
        """Every reason the runtime would not start the thread, in the order it checks."""
        report, leaf, profile = self.report, self.leaf, self.profile
        mine = f"{profile.runtime} would not start this thread: "
        self.refusals += [
            x.message
            for x in self.diags
            if x.code == "rye-thread-refused" and not x.message.startswith(mine)
        ]
        if profile.refusals and report.chain_error and not self.chain.unread:
            self.refusals.append(report.chain_error)
        if profile.refusals and self.limit_problem:
            self.refuse(self.limit_problem, leaf.path)
        if profile.refusals:
            risk, problems = blocked(self.snapshot, self.spaces, self.held(), leaf.acknowledged)
            self.diags += problems
            if risk:
                self.refuse(risk, leaf.path)
        report.refused = list(dict.fromkeys(self.refusals))
        linked = any(t.unread for t in report.palette.skipped)  # the runtime may register them
        if profile.refusals and not report.palette.registered and not linked:
            why = (
                f"no tools: {profile.runtime} refuses a thread that can call nothing (the chain "
                "grants no tool and the directive declares no <outputs>)"
            )
            report.refused.append(why)
            self.diags.append(_refusal(profile, why, leaf.path))


DIRECTIVE_RETURN_CAP = "rye.execute.tool.rye.agent.threads.directive_return"
"""The capability ryeos grants a directive that declares `<outputs>`."""


def _refusal(profile: RyeSemantics, cause: str, path: str | None) -> Diagnostic:
    """The error diagnostic for one reason the runtime would not start the thread."""
    return Diagnostic(
        "error",
        f"{profile.runtime} would not start this thread: {cause}",
        path,
        code="rye-thread-refused",
    )


def _events(report: ThreadReport, system_items: list[ComposedItem]) -> list[dict[str, Any]]:
    """The transcript events `system_prompt` and `context_injected` as the profile's runtime
    writes them."""
    profile = report.profile
    events: list[dict[str, Any]] = []
    if report.system_message or profile.system_prompt_when_empty:
        layers = (
            [p.written_id or p.item_id or p.source for p in report.system_hook_parts]
            if profile.system_layers == "hooks"
            else [i.item_id for i in system_items]
        )
        events.append({"event": "system_prompt", "text": report.system_message, "layers": layers})
    if profile.context_injected == "single":
        events.append(
            {
                "event": "context_injected",
                "before": [p.source for p in report.parts if p.kind.endswith("before")],
                "after": [p.source for p in report.parts if p.kind.endswith("after")],
            }
        )
        return events
    for position in ("before", "after"):
        blocks = [p.written_id or p.item_id for p in report.parts if p.kind == f"hook_{position}"]
        if blocks:
            events.append({"event": "context_injected", "position": position, "blocks": blocks})
    return events


def _router(report: ThreadReport) -> str | None:
    src = report.extends_source or ""
    return src[5:] if src.startswith("hook ") else None


def _composition_diagnostics(
    report: ThreadReport, directives: list[Directive], hook_names: set[str]
) -> list[Diagnostic]:
    paths = {d.id: d.path for d in directives}
    out: list[Diagnostic] = []
    declared: set[str] = set()
    for pos, items in report.composed.items():
        for item in items:
            declared.add(item.item_id)
            if item.status == "missing":
                r = report.resolver
                unread = r.unread(r.knowledge, item.item_id) if r is not None else None
                out.append(
                    Diagnostic(
                        "error",
                        f"knowledge item '{item.item_id}' (in <{pos}> of {item.origin}) "
                        + (
                            f"not read: {unread}"
                            if unread
                            else "not found in project, user or system space"
                        ),
                        paths.get(item.origin),
                        code="rye-knowledge-missing",
                    )
                )
    for node in report.chain:
        for sid in node.context.get("suppress", []):
            if sid not in declared and sid not in hook_names:
                out.append(
                    Diagnostic(
                        "warning",
                        f"<suppress>{sid}</suppress> in {node.id} matches nothing "
                        "declared in the chain",
                        node.path,
                        code="rye-suppress-unused",
                    )
                )
    return out


def _assemble(
    report: ThreadReport,
    leaf: Directive,
    values: dict[str, Any],
    hook_parts: list[MessagePart],
    wording: tuple[str, str] | None,
    env: Mapping[str, str],
) -> None:
    tok = report.tokenizer
    parts = [p for p in hook_parts if p.kind == "hook_before"]
    for pos in ("before", "after"):
        if pos == "after":
            raw = report.profile.permissions_prompt == "raw"
            placeholders = report.profile.ryeos_placeholders
            text = directive_prompt(leaf, values, raw, wording, placeholders, env)
            parts.append(
                MessagePart(
                    "directive_prompt", leaf.id, text, None, leaf.tier, False, tok.count(text)
                )
            )
        for item in report.composed[pos]:
            if not item.present or item.knowledge is None or not item.knowledge.body:
                continue
            kind = f"directive_{pos}" if item.origin == leaf.id else f"extends_{pos}"
            k = item.knowledge
            parts.append(
                MessagePart(kind, item.item_id, k.body, item.item_id, k.tier, False, item.tokens)
            )
    parts += [p for p in hook_parts if p.kind == "hook_after"]
    report.parts = parts


def _dedupe(diags: list[Diagnostic]) -> list[Diagnostic]:
    seen: set[tuple[Any, ...]] = set()
    out = []
    for d in diags:
        key = (d.path, d.line, d.message)
        if key not in seen:
            seen.add(key)
            out.append(d)
    return out
