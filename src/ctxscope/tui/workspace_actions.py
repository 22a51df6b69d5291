"""What the user decides about the workspace from the app: trust (and revoking it), running
the context scripts again, the scenario's edits, and the exports (`x`, the palette's)."""

from __future__ import annotations

from typing import Any

from ctxscope.runtimes.openclaw.versions import AUTO
from ctxscope.runtimes.profiles import bundled_profiles
from ctxscope.tui import export as export_mod
from ctxscope.tui.build_flow import BuildFlow
from ctxscope.tui.screens.scenario import FIELDS, ScenarioScreen
from ctxscope.tui.screens.trust import TrustScreen
from ctxscope.tui.widgets.keybar import KeyBar


class WorkspaceActions(BuildFlow):
    """The workspace actions of the inspector (mixed into `CtxscopeApp`)."""

    def action_trust(self) -> None:
        asked = self.ctl.trust_question()
        if asked.revoke:
            screen = TrustScreen(asked.folder, asked.listing, revoke=True)
            self.push_screen(screen, self._revoke_answer)
            return
        self.push_screen(
            TrustScreen(asked.folder, asked.listing),
            lambda yes: self._trust_answer(yes, asked.key),
        )

    def _revoke_answer(self, yes: bool | None) -> None:
        if not yes:
            return
        self.ctl.revoke()
        self.notify(
            markup=False, message="Trust revoked: context scripts no longer run.", timeout=3
        )
        self.rebuild()

    def _trust_answer(self, yes: bool | None, key: str) -> None:
        if not yes:
            return
        self.ctl.trust(key)
        self.notify(
            markup=False, message="Workspace trusted: running its context scripts.", timeout=3
        )
        self.rebuild()

    def action_rerun_scripts(self) -> None:
        if not self.ctl.rerun_scripts():
            self.notify(
                markup=False,
                message="Scripts do not run until the workspace is trusted (ctrl+t).",
                severity="warning",
                timeout=4,
            )
        self.rebuild()

    def action_export(self, kind: str) -> None:
        """Export the current build as `json`, `md`, `html` or `svg`."""
        self._export((kind,))

    def action_export_all(self) -> None:
        """`x`: the screen as SVG, and the build as JSON, markdown and an HTML page with the
        context maps, side by side."""
        self._export(("svg", "json", "md", "html"))

    def _export(self, kinds: tuple[str, ...], waited: int = 0) -> None:
        if self.build is None:
            return
        settled = len(self.screen_stack) == 1 and bool(self.query_one(KeyBar).keys)
        if "svg" in kinds and not settled and waited < 50:
            # Asked from the command palette or a dialog: take the picture once it has
            # closed and the key bar has its keys.
            self.set_timer(0.02, lambda: self._export(kinds, waited + 1))
            return
        folder = export_mod.export_folder(self.ctl.workspace, self.export_dir)
        stem = "ctxscope-" + self.clock().strftime("%Y%m%d-%H%M%S")
        written = []
        try:
            for kind in kinds:  # the SVG first: before any notice covers the screen
                if kind == "svg":
                    text = self.export_screenshot(title="ctxscope")
                else:
                    text = export_mod.export_text(self.build.report, kind)
                self.last_export[kind] = export_mod.write_export(folder, stem, kind, text)
                written.append(self.last_export[kind])
        except OSError as exc:
            self.notify(markup=False, message=f"export failed: {exc}", severity="error")
            return
        names = ", ".join(p.name for p in written)
        self.notify(
            markup=False, message=f"exported {names} to {folder}", title="Export", timeout=5
        )

    def deliver_screenshot(
        self,
        filename: str | None = None,
        path: str | None = None,
        time_format: str | None = None,
    ) -> str | None:
        """Textual's own screenshot command (the palette's "Save screenshot"): into the
        export folder (`--export-dir`), like `x`, not the Downloads folder, which may not
        exist."""
        if path is not None:
            return super().deliver_screenshot(filename, path, time_format)
        self._export(("svg",))
        return None

    def action_edit_scenario(self) -> None:
        sc = self.build.report.scenario if self.build else self.builder.inspector.scenario
        values = {name: getattr(sc, name) for name in FIELDS}
        values["target"] = sc.target_agent
        build = self.build
        screen = ScenarioScreen(
            values,
            agents=build.agent_ids if build else [],
            directives=build.directives if build else [],
            profiles=[AUTO, *bundled_profiles()],
        )
        self.push_screen(screen, self.apply_scenario)

    def apply_scenario(self, values: dict[str, Any] | None) -> None:
        """Apply scenario edits (from the editor or the palette) and rebuild."""
        if values is None:
            return
        self.ctl.edit_scenario(values)
        self.rebuild()

    def set_scenario_field(self, name: str, value: Any) -> None:
        self.apply_scenario({name: value})

    def reset_edits(self) -> None:
        self.ctl.reset_edits()
        self.rebuild()
