"""ctxscope's version (the project's, in `pyproject.toml`): the `--version` answer and part of
the key of what ctxscope keeps in its cache folder."""

__version__ = "0.1.0"
