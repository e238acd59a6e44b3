"""Where the portal's shipped files live: the Jinja templates and the MkDocs defaults."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from memsite.errors import MemsiteError
from memsite.portal.outputs import ASSETS
from memsite.portal.resources import _locate, site_config_dir, templates_dir

REPO = Path(__file__).resolve().parents[2]
TEMPLATES = ("entry.html", "macros.html", "home.html", "review.html", "llms.txt", "feed.xml")


def test_a_checkout_uses_its_top_level_folders() -> None:
    assert templates_dir() == REPO / "templates"
    assert site_config_dir() == REPO / "site-config"
    assert templates_dir() is templates_dir()  # found once


@pytest.mark.parametrize("name", TEMPLATES)
def test_the_templates_the_renderer_loads_are_there(name: str) -> None:
    path = templates_dir() / name
    assert path.is_file() and path.read_text(encoding="utf-8").strip()


def test_every_template_a_template_names_exists() -> None:
    for path in templates_dir().iterdir():
        text = path.read_text(encoding="utf-8")
        for named in re.findall(r"\{%-?\s*(?:from|import|include|extends)\s+\"([^\"]+)\"", text):
            assert (templates_dir() / named).is_file(), f"{path.name} names {named}"


def test_site_config_holds_the_mkdocs_defaults_and_the_assets() -> None:
    from mkdocs.utils.yaml import yaml_load

    config = yaml_load((site_config_dir() / "mkdocs.yml").read_text(encoding="utf-8"))
    assert config["theme"]["name"] == "material"
    custom = site_config_dir() / config["theme"]["custom_dir"]
    assert (custom / "main.html").is_file()
    assert set(config["extra_css"]) | set(config["extra_javascript"]) <= set(ASSETS)
    for asset in ASSETS:
        assert (site_config_dir() / "docs" / asset).is_file(), asset


def test_a_missing_folder_says_to_reinstall() -> None:
    with pytest.raises(MemsiteError, match=r"no-such-folder/ folder is missing.*reinstall"):
        _locate("no-such-folder", "memsite.no_such_folder")


def test_an_installed_data_package_is_found_through_its_spec() -> None:
    # Outside a checkout the folder comes from the package's search locations: here the
    # `memsite.portal` package itself stands in for a data package.
    assert _locate("no-such-folder", "memsite.portal") == REPO / "memsite" / "portal"
