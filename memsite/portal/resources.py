"""Where the portal's shipped files live: Jinja templates, MkDocs defaults.

``templates/`` and ``site-config/`` sit at the top of the repository and ship in the wheel as the
packages ``memsite.templates`` and ``memsite.site_config``. A source or editable checkout finds
them next to the package; an installed wheel through ``importlib.resources``.
"""

from __future__ import annotations

import importlib.util
from functools import cache
from pathlib import Path

from memsite.errors import MemsiteError


def _locate(top_level: str, package: str) -> Path:
    root = Path(__file__).resolve().parents[2]
    if (root / "pyproject.toml").is_file() and (root / top_level).is_dir():
        return root / top_level  # a source or editable checkout
    # Installed: a data package without __init__.py (a namespace package), so ask for its
    # folder rather than a resource reader.
    spec = importlib.util.find_spec(package)
    for location in (spec.submodule_search_locations or []) if spec else []:
        if Path(location).is_dir():
            return Path(location)
    raise MemsiteError(
        f"memsite's {top_level}/ folder is missing from this installation: reinstall memsite"
    )


@cache
def templates_dir() -> Path:
    """The Jinja templates of the portal pages."""
    return _locate("templates", "memsite.templates")


@cache
def site_config_dir() -> Path:
    """MkDocs/Material defaults (``mkdocs.yml``) and the portal's static assets (``docs/``)."""
    return _locate("site-config", "memsite.site_config")
