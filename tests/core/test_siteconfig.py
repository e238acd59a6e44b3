"""The portal's settings beyond their types: plain http(s) URLs, Material's palette and
languages, and the free text that would carry markup (end to end: tests/adversarial/)."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memsite.core.config import parse_config_text
from memsite.core.siteconfig import (
    ACCENT,
    PRIMARY,
    extra_nav_problem,
    markup_problems,
    site_problems,
    text_values,
)
from memsite.errors import ConfigError

TOGGLE = {"icon": "material/brightness-4", "name": "Dark"}


@pytest.mark.parametrize(
    "site",
    [
        {},
        {"site_url": "https://acme.github.io/memory/", "repo_url": "http://git.example.com/x.git"},
        {"site_url": "", "repo_url": None},
        {"palette": {"scheme": "slate", "primary": "blue grey", "accent": "deep-orange"}},
        {"palette": [{"media": "(prefers-color-scheme)", "toggle": TOGGLE}]},
        {"palette": []},
        {"language": "zh-Hant"},
        {"extra_nav": [{"Source": "https://github.com/acme/x"}, {"Guide": "../guide/"}]},
        {"site_name": 'The "<b>" memory', "copyright": "javascript:alert(1)"},  # text: reported
    ],
)
def test_good_settings_have_no_problem(site: dict[str, Any]) -> None:
    assert site_problems(site) == []


@pytest.mark.parametrize(
    ("site", "start"),
    [
        ({"repo_url": "javascript:alert(1)"}, "'site.repo_url' is not an http(s) URL"),
        ({"site_url": "http://["}, "'site.site_url' cannot be read as a URL (Invalid IPv6 URL)"),
        ({"site_url": "https://h:0x1/"}, "'site.site_url' cannot be read as a URL"),
        ({"repo_url": "https://t:x@github.com/a/b"}, "'site.repo_url' holds a user name"),
        ({"language": "EN"}, "'site.language' 'EN' is not a language code"),
        ({"palette": {"scheme": "dark"}}, "'site.palette.scheme' must be one of Material's"),
        ({"palette": [{"accent": "white"}]}, "'site.palette[0].accent' must be one of"),
        ({"palette": [{"primary": 7}]}, "'site.palette[0].primary' must be one of"),
        ({"palette": ["slate"]}, "'site.palette[0]' must be an object"),
        ({"palette": [{"toggle": "x"}]}, "'site.palette[0].toggle' must be an object"),
        ({"palette": [{"toggle": {"icon": "x", "n": 1}}]}, "'site.palette[0].toggle.icon'"),
        ({"palette": [{"toggle": {**TOGGLE, "name": 1}}]}, "'site.palette[0].toggle.name'"),
        ({"palette": [{"toggle": {**TOGGLE, "x\ny": 1}}]}, "unknown key 'site.palette[0].toggle.x"),
        ({"extra_nav": [{"x": "mailto:a@b.c"}]}, "'site.extra_nav' must be a list"),
    ],
)
def test_each_problem_names_its_setting(site: dict[str, Any], start: str) -> None:
    problems = site_problems(site)
    assert problems and problems[0].startswith(start), problems
    assert all("\n" not in p for p in problems)


def test_materials_colours() -> None:
    assert len(ACCENT) == 17 and len(PRIMARY) == 22  # palette.css's, and "custom"
    assert set(ACCENT) < set(PRIMARY) and "white" not in ACCENT


def test_extra_nav_problem_says_which_link() -> None:
    assert extra_nav_problem(None) is None
    problem = extra_nav_problem([{"Ok": "/x"}, {"Bad": "javascript:x()"}])
    assert problem is not None and problem.endswith(
        "got 'javascript:x()', which is not an http(s) URL (javascript:, data: and other "
        "schemes are never linked)"
    )


def test_text_values_are_every_free_text_the_pages_show() -> None:
    site = {
        "site_name": "A",
        "site_description": "B",
        "copyright": "C",
        "extra_nav": [{"D": "/d"}, "not a link"],
        "palette": [{"toggle": {**TOGGLE, "name": "E"}}, {"scheme": "slate"}],
        "repo_url": "https://x.example/",
    }
    assert text_values(site) == [
        ("'site.site_name'", "A"),
        ("'site.site_description'", "B"),
        ("'site.copyright'", "C"),
        ("'site.extra_nav[0]'", "D"),
        ("'site.palette[0].toggle.name'", "E"),
    ]
    assert text_values({"palette": {"toggle": {"name": "F"}}}) == [
        ("'site.palette.toggle.name'", "F")
    ]


@given(st.text(max_size=30), st.sampled_from(["site_name", "copyright", "site_description"]))
def test_markup_problems_name_every_text_a_browser_would_parse(text: str, key: str) -> None:
    problems = markup_problems({key: text})
    risky = bool(re.search(r"[<>\"]|javascript\s*:", text, re.IGNORECASE))
    assert len(problems) == int(risky)
    assert all(p.startswith(f"'site.{key}' holds ") and "\n" not in p for p in problems)
    assert site_problems({key: text}) == []  # text is never refused, only reported


def test_parse_config_reports_every_site_problem_at_once() -> None:
    text = json.dumps({"site": {"repo_url": "ftp://x/", "palette": {"scheme": "x"}, "y": 1}})
    with pytest.raises(ConfigError) as caught:
        parse_config_text(text, "config.json")
    message = str(caught.value)
    assert message.startswith("config.json: unknown key 'site.y'")
    assert "'site.repo_url' is not an http(s) URL" in message
    assert "'site.palette.scheme' must be one of" in message


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=12),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children, max_size=3)
    ),
    max_leaves=10,
)


@given(st.sampled_from(["palette", "extra_nav", "language", "site_url", "repo_url"]), json_values)
def test_any_value_gives_problems_of_one_line_never_an_exception(key: str, value: Any) -> None:
    site = {key: value}
    for problem in site_problems(site) + markup_problems(site):
        assert "\n" not in problem and problem
    text_values(site)
