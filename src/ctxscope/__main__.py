from ctxscope.cli import entry

entry()
