"""Widgets of the ctxscope app."""
