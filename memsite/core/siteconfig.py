"""What each portal setting (config.json's "site" section) may hold beyond its type. Pure.

The config arrives through git like the entries, and MkDocs + Material put several of these
values into every page unescaped: a ``javascript:`` repo_url became the header's link, and a
site_name or copyright holding a tag ran script, on all 12 frame pages (measured in Chromium).
So URLs must be plain http(s) links (``urls.url_problem``; extra_nav also takes paths), the
palette and the language come from Material's own sets, and free text is text: the portal
escapes it (``portal.mkglue``), and :func:`markup_problems` names each text that would have
carried markup, for ``memsite build --strict`` and ``memsite check`` to refuse.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from memsite.core.urls import url_problem

URL_KEYS = ("site_url", "repo_url")
TEXT_KEYS = ("site_name", "site_description", "copyright")
# Material's palette (its palette.css): the schemes, colours and media queries it styles.
# "custom" is its hook for a project's own CSS; a space and a dash are the same to Material.
SCHEMES = ("default", "slate")
ACCENT = (
    *("red", "pink", "purple", "deep purple", "indigo", "blue", "light blue", "cyan", "teal"),
    *("green", "light green", "lime", "yellow", "amber", "orange", "deep orange", "custom"),
)
PRIMARY = (*ACCENT[:-1], "brown", "grey", "blue grey", "black", "white", "custom")
MEDIA = ("(prefers-color-scheme)", "(prefers-color-scheme: light)", "(prefers-color-scheme: dark)")
_CHOICES = {"media": MEDIA, "scheme": SCHEMES, "primary": PRIMARY, "accent": ACCENT}
PALETTE_KEYS = (*_CHOICES, "toggle")
PALETTE_MAX = 8
# A Material icon (material/brightness-4, fontawesome/solid/moon) and a language of its
# templates (en, fr, pt-BR, zh-Hant): names only, so neither can point elsewhere.
_ICON = re.compile(r"[a-z0-9-]{1,64}(/[a-z0-9-]{1,64}){1,3}")
_LANGUAGE = re.compile(r"[a-z]{2,3}(-[A-Z][A-Za-z]{1,3})?")
_MARKUP = re.compile(r"[<>\"]|javascript\s*:", re.IGNORECASE)
NAV_RULE = (
    "'site.extra_nav' must be a list of one-key objects like "
    '{"Source": "https://github.com/org/repo"} (http(s) or relative links)'
)


def _name(*path: str | int) -> str:
    """A setting's name for a message (``'site.palette[0].toggle'``), quoted so that no key
    from the file can break the line."""
    text = "site" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path)
    return repr(text[:120])


def _shown(value: Any) -> str:
    return repr(value[:60] if isinstance(value, str) else value)[:80]


def site_problems(site: Mapping[str, Any]) -> list[str]:
    """Every problem of the site settings whose types are right (``config.parse_config``
    checks the types): URLs, language, palette and extra_nav."""
    problems = []
    for key in URL_KEYS:
        value = site.get(key)
        why = url_problem(value) if isinstance(value, str) and value else None
        if why:
            problems.append(
                f"{_name(key)} {why}: set it to a plain http(s) URL such as "
                "https://github.com/org/repo, or to null"
            )
    language = site.get("language")
    if isinstance(language, str) and not _LANGUAGE.fullmatch(language):
        problems.append(
            f"{_name('language')} {_shown(language)} is not a language code: use one of "
            "Material's, such as en, fr or pt-BR"
        )
    palette = site.get("palette")
    if isinstance(palette, dict | list):
        problems += _palette_problems(palette)
    nav = extra_nav_problem(site.get("extra_nav"))
    return problems + ([nav] if nav else [])


def extra_nav_problem(value: Any) -> str | None:
    """What is wrong with ``site.extra_nav`` (None: nothing)."""
    if value is None:
        return None
    if not isinstance(value, list):
        return NAV_RULE
    for item in value:
        if not (isinstance(item, dict) and len(item) == 1):
            return NAV_RULE
        ((title, url),) = item.items()
        if not (isinstance(title, str) and isinstance(url, str) and title.strip()):
            return NAV_RULE
        why = url_problem(url, relative=True)
        if why:
            return f"{NAV_RULE}; got {_shown(url)}, which {why}"
    return None


def _palette_problems(palette: dict[str, Any] | list[Any]) -> list[str]:
    options = [palette] if isinstance(palette, dict) else palette
    if len(options) > PALETTE_MAX:
        return [f"{_name('palette')} lists {len(options)} options, over {PALETTE_MAX}"]
    problems = []
    for number, option in enumerate(options):
        at: tuple[int, ...] = () if isinstance(palette, dict) else (number,)
        if not isinstance(option, dict):
            problems.append(
                f"{_name('palette', *at)} must be an object like "
                '{"scheme": "slate", "primary": "teal"}'
            )
            continue
        for key, value in option.items():
            name = _name("palette", *at, key)
            if key == "toggle":
                problems += _toggle_problems(value, ("palette", *at, key))
            elif key not in _CHOICES:
                problems.append(f"unknown key {name} (allowed: {', '.join(PALETTE_KEYS)})")
            elif not (isinstance(value, str) and _chosen(value, _CHOICES[key])):
                problems.append(f"{name} must be one of Material's: {', '.join(_CHOICES[key])}")
    return problems


def _chosen(value: str, choices: tuple[str, ...]) -> bool:
    """Is ``value`` one of ``choices``? Material writes "deep purple" as "deep-purple"."""
    return value in choices or value.replace("-", " ") in choices


def _toggle_problems(toggle: Any, path: tuple[str | int, ...]) -> list[str]:
    rule = '{"icon": "material/brightness-4", "name": "Switch to light mode"}'
    if not isinstance(toggle, dict) or "icon" not in toggle:
        return [f"{_name(*path)} must be an object with an icon, like {rule}"]
    problems = []
    for key, value in toggle.items():
        name = _name(*path, key)
        if key not in ("icon", "name"):
            problems.append(f"unknown key {name} (allowed: icon, name)")
        elif key == "icon" and not (isinstance(value, str) and _ICON.fullmatch(value)):
            problems.append(f"{name} must name a Material icon, such as material/brightness-4")
        elif key == "name" and not isinstance(value, str):
            problems.append(f"{name} must be a string")
    return problems


def text_values(site: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Every free text of the site settings that a page shows, with its setting's name:
    site_name, site_description, copyright, the extra_nav titles, the palette toggles' names."""
    found = [(_name(key), site[key]) for key in TEXT_KEYS if isinstance(site.get(key), str)]
    nav = site.get("extra_nav")
    for number, item in enumerate(nav if isinstance(nav, list) else []):
        if isinstance(item, dict):
            found += [(_name("extra_nav", number), str(title)) for title in item]
    palette = site.get("palette")
    options = [palette] if isinstance(palette, dict) else palette
    for number, option in enumerate(options if isinstance(options, list) else []):
        toggle = option.get("toggle") if isinstance(option, dict) else None
        if isinstance(toggle, dict) and isinstance(toggle.get("name"), str):
            at: tuple[int, ...] = () if isinstance(palette, dict) else (number,)
            found.append((_name("palette", *at, "toggle", "name"), toggle["name"]))
    return found


def markup_problems(site: Mapping[str, Any]) -> list[str]:
    """One line per free text of the site settings that would have carried markup (``<``,
    ``>``, ``"`` or ``javascript:``). A plain build shows such text escaped; ``build
    --strict`` and ``check`` refuse it."""
    problems = []
    for name, text in text_values(site):
        found = _MARKUP.search(text)
        if found:
            problems.append(
                f"{name} holds {found.group(0)!r}, which would be markup in the portal's "
                "pages: write plain text (a build without --strict shows it escaped)"
            )
    return problems
