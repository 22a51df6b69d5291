"""The agent runtimes ctxscope models, one package each (`openclaw`, `goclaw`, `rye`), with
what they share: a release's profile (`profiles`, `sectionspec`) and the registry that picks a
runtime by its profile's family (`registry`)."""
