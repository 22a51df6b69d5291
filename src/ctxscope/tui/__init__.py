"""The live terminal app (Textual): two prompt panes, panels, live rebuilds.

Only this package and `ctxscope.cli.tui` import Textual; the engine stays pure.
Entry point: `make_app(...)` in `ctxscope.tui.app`.
"""
