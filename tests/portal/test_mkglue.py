"""MkDocs glue: safe navigation links, the portal's MkDocs config from the store's site settings,
and MkDocs' log collected instead of printed (ready pages run in test_frames, in a build)."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest

from memsite.errors import ConfigError
from memsite.portal.mkglue import (
    _safe_link,
    capture_mkdocs_log,
    extra_nav,
    nav_config,
    portal_config,
    src_uri,
)
from memsite.portal.resources import site_config_dir


@pytest.mark.parametrize(
    ("url", "safe"),
    [
        ("https://github.com/acme/repo", True),
        ("HTTP://example.com/x", True),
        ("docs/guide/", True),
        ("/changelog/", True),
        ("../other/", True),
        ("javascript:alert(1)", False),
        ("JavaScript:alert(1)", False),
        ("vbscript:msgbox", False),
        ("data:text/html,<b>x</b>", False),
        ("mailto:a@example.com", False),
        ("ftp://example.com/", False),
        ("//evil.example.com/", False),
        ("", False),
        ("https://x.example/ a", False),
        ('https://x.example/"onmouseover=', False),
        ("https://x.example/`", False),
    ],
)
def test_safe_links(url: str, safe: bool) -> None:
    assert _safe_link(url) is safe
    if safe:
        assert extra_nav([{"Link": url}]) == [{"Link": url}]
    else:
        with pytest.raises(ConfigError, match=r"site\.extra_nav"):
            extra_nav([{"Link": url}])


@pytest.mark.parametrize(
    "value",
    [
        "https://x",
        {"Source": "https://x"},
        ["https://x"],
        [{"a": "/x", "b": "/y"}],
        [{"": "/x"}],
        [{" ": "/x"}],
        [{"Source": 5}],
    ],
)
def test_extra_nav_must_be_a_list_of_one_key_links(value: Any) -> None:
    with pytest.raises(ConfigError, match="one-key objects"):
        extra_nav(value)


def test_extra_nav_none_is_empty() -> None:
    assert extra_nav(None) == []


def test_nav_config_leaves_empty_sections_out() -> None:
    assert src_uri("entries/x/") == "entries/x/index.md" and src_uri("") == "index.md"
    items: list[tuple[str, str | list[tuple[str, str]]]] = [
        ("Home", ""),
        ("Categories", []),
        ("Tags", "tags/"),
        ("Cats", [("Ops", "c/ops/")]),
    ]
    assert nav_config(items, "memory/") == [
        {"Home": "memory/index.md"},
        {"Tags": "memory/tags/index.md"},
        {"Cats": [{"Ops": "memory/c/ops/index.md"}]},
    ]


def test_portal_config_merges_the_site_settings(tmp_path: Path) -> None:
    site = {
        "site_name": "Acme memory",
        "repo_url": "https://github.com/acme/checkout",
        "site_description": "What we know",
        "copyright": "Acme",
        "palette": {"scheme": "slate"},
        "language": "fr",
        "extra_nav": [{"Source": "https://github.com/acme/checkout"}],
        "site_url": None,
    }
    nav = [{"Home": "index.md"}]
    config = portal_config(site, site_dir=tmp_path, nav=nav, strict=True, site_url="https://m/")
    assert config["site_name"] == "Acme memory" and config["copyright"] == "Acme"
    assert config["site_description"] == "What we know"
    assert config["repo_url"] == "https://github.com/acme/checkout"
    assert config["site_url"] == "https://m/"  # none in the settings: the one given
    assert config["theme"]["palette"] == {"scheme": "slate"}
    assert config["theme"]["language"] == "fr"
    assert config["nav"] == [{"Home": "index.md"}, {"Source": "https://github.com/acme/checkout"}]
    assert config["docs_dir"] == str(site_config_dir() / "docs")
    assert config["site_dir"] == str(tmp_path) and config["strict"] is True
    own = portal_config({"site_url": "https://own/"}, site_dir=tmp_path, nav=[], strict=False)
    assert own["site_url"] == "https://own/" and own["site_name"] == "Project memory"
    assert own["theme"]["language"] == "en"  # site-config's default


@pytest.mark.parametrize(
    ("site", "message"),
    [
        ({"site_url": "not a url"}, "site_url"),
        ({"repo_url": "javascript:alert(1)"}, "repo_url"),
        ({"extra_nav": [{"x": "javascript:alert(1)"}]}, "extra_nav"),
    ],
)
def test_bad_site_settings_are_config_errors(
    tmp_path: Path, site: dict[str, Any], message: str
) -> None:
    with pytest.raises(ConfigError, match=message):
        portal_config(site, site_dir=tmp_path, nav=[], strict=False)


def test_mkdocs_warnings_fail_only_a_strict_config(tmp_path: Path) -> None:
    nav = [{"Section": {"Page": "page.md"}}]  # a section that is not a list: a warning
    assert portal_config({}, site_dir=tmp_path, nav=nav, strict=False)["nav"] == nav
    with pytest.raises(ConfigError, match=r"warnings \(strict\).*Expected nav to be a list"):
        portal_config({}, site_dir=tmp_path, nav=nav, strict=True)


def test_capture_mkdocs_log_collects_warnings_and_lets_go() -> None:
    logger = logging.getLogger("mkdocs")
    before = (list(logger.handlers), logger.propagate)
    with capture_mkdocs_log() as messages:
        logging.getLogger("mkdocs.commands").warning("first\n  line two")
        logging.getLogger("mkdocs").error("broken %s", "page")
        logging.getLogger("mkdocs").info("quiet")
        logging.getLogger("other").warning("not mkdocs")
    assert messages == ["first line two", "broken page"]
    assert (list(logger.handlers), logger.propagate) == before
