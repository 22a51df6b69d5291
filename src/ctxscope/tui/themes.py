"""YAML theme files → Textual `Theme` objects.

Themes come from the top-level `themes/` folder of a source checkout (or `ctxscope/themes`
inside an installed package) and from the user's theme folder
(`$CTXSCOPE_CONFIG_DIR/themes`, else `~/.config/ctxscope/themes`). A broken file is skipped and
reported; the caller shows all failures in one notification.
"""

from __future__ import annotations

from dataclasses import field
from pathlib import Path
from typing import Any

from textual.color import Color, ColorParseError
from textual.theme import Theme

from ctxscope.core.record import record
from ctxscope.core.yamlload import load_yaml, yaml
from ctxscope.infra.paths import themes_dir

COLOR_FIELDS = (
    "primary",
    "secondary",
    "warning",
    "error",
    "success",
    "accent",
    "foreground",
    "background",
    "surface",
    "panel",
    "boost",
)
OTHER_FIELDS = {"name", "dark", "luminosity_spread", "text_alpha", "variables"}
DEFAULT_THEME = "ctxscope-dark"


@record
class ThemeLoad:
    themes: list[Theme] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    """One line per skipped file: `path: what is wrong`."""


def bundled_theme_dirs() -> list[Path]:
    here = Path(__file__).resolve()
    candidates = [here.parents[1] / "themes", here.parents[3] / "themes"]
    return [p for p in candidates if p.is_dir()]


def theme_dirs() -> list[Path]:
    """Where themes are read from, bundled first (a user theme of the same name wins)."""
    return [*bundled_theme_dirs(), themes_dir()]


def theme_from_mapping(data: Any) -> Theme:
    """Build a Theme from parsed YAML; ValueError says what is wrong."""
    if not isinstance(data, dict):
        raise ValueError("a theme file must be a mapping")
    unknown = sorted(set(data) - set(COLOR_FIELDS) - OTHER_FIELDS)
    if unknown:
        raise ValueError(f"unknown key(s): {', '.join(map(str, unknown))}")
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        raise ValueError("`name` is required")
    if "primary" not in data:
        raise ValueError("`primary` is required")
    colors: dict[str, str] = {}
    for key in COLOR_FIELDS:
        if data.get(key) is None:
            continue
        colors[key] = _color(key, data[key])
    variables = data.get("variables")
    variables = {} if variables is None else variables
    if not isinstance(variables, dict):
        raise ValueError("`variables` must be a mapping")
    dark = data.get("dark", True)
    if not isinstance(dark, bool):
        raise ValueError("`dark` must be true or false")
    extra: dict[str, Any] = {}
    for key in ("luminosity_spread", "text_alpha"):
        if key in data:
            if not isinstance(data[key], int | float):
                raise ValueError(f"`{key}` must be a number")
            extra[key] = float(data[key])
    theme = Theme(
        name=name.strip(),
        primary=colors.pop("primary"),
        dark=dark,
        variables={str(k): str(v) for k, v in variables.items()},
        **extra,
    )
    for key, value in colors.items():
        setattr(theme, key, value)
    return theme


def _color(key: str, value: Any) -> str:
    text = str(value)
    try:
        Color.parse(text)
    except ColorParseError:
        raise ValueError(f"`{key}`: {text!r} is not a colour") from None
    return text


def load_themes(dirs: list[Path] | None = None) -> ThemeLoad:
    """Every `*.yaml`/`*.yml` theme in `dirs` (default: `theme_dirs()`)."""
    out = ThemeLoad()
    for folder in dirs if dirs is not None else theme_dirs():
        try:
            files = sorted(p for p in folder.iterdir() if p.suffix in (".yaml", ".yml"))
        except OSError:
            continue
        for path in files:
            try:
                data = load_yaml(path.read_text(encoding="utf-8"))
                out.themes.append(theme_from_mapping(data))
            except yaml.YAMLError as exc:
                mark = getattr(exc, "problem_mark", None)
                where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark else str(path)
                out.errors.append(f"{where}: invalid YAML: {getattr(exc, 'problem', exc)}")
            except (OSError, UnicodeDecodeError) as exc:
                out.errors.append(f"{path}: cannot read: {exc}")
            except ValueError as exc:
                out.errors.append(f"{path}: {exc}")
    return out
