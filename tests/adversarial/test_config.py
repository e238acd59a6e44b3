"""Script through config.json: the portal's settings are text, or plain http(s) URLs.

config.json arrives through git like the entries. MkDocs + Material put site_name, copyright,
nav titles and the palette toggles' names into every page raw, and a ``javascript:`` repo_url
became the header's link: script ran on all 12 pages in Chromium. Here every text setting
carries every payload through a real ``memsite build``: no page may hold it as markup, and it
shows as text. A URL setting that is not a plain http(s) URL (a ``[`` in one printed a
traceback) is refused in one line by every command; palette and language take Material's
values only; ``build --strict`` and ``check`` refuse text that would have been markup, one
line per setting.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from memsite.core.siteconfig import markup_problems
from tests.conftest import Invoke, Result, git, make_entry, write_raw
from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS, PageWatch, serve_folder

IMG = "<img src=x onerror=alert(1)>"
BREAKOUT = '"><script>alert(1)</script>'
JS = "javascript:alert(1)"
PAYLOADS = [IMG, BREAKOUT, JS]
REPO = "https://github.com/acme/checkout"


def toggles(name: str) -> list[dict[str, Any]]:
    """A light and a dark palette option whose toggles are named ``name``."""
    return [
        {"scheme": "default", "toggle": {"icon": "material/brightness-7", "name": f"Dark {name}"}},
        {"scheme": "slate", "toggle": {"icon": "material/brightness-4", "name": f"Light {name}"}},
    ]


# Every free text of the "site" section, each carrying a payload.
TEXT_SETTINGS: dict[str, Callable[[str], dict[str, Any]]] = {
    "site_name": lambda p: {"site_name": f"Memory {p}"},
    "site_description": lambda p: {"site_description": f"Facts {p}"},
    "copyright": lambda p: {"copyright": f"Acme {p}"},
    "extra_nav title": lambda p: {"extra_nav": [{f"Source {p}": REPO}]},
    "palette toggle name": lambda p: {"palette": toggles(p)},
}


def configure(store: Path, site: dict[str, Any]) -> None:
    (store / "config.json").write_text(json.dumps({"memory": {}, "site": site}), encoding="utf-8")


def one_error(result: Result) -> str:
    """The one line of a refused command (exit 1, no traceback)."""
    assert result.exit_code == 1, result.stderr
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.stderr
    return lines[0]


class Page(HTMLParser):
    """A built page as a browser's parser sees it: elements, attributes, text, inline scripts
    (character references decoded)."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []
        self.scripts: list[str] = []
        self._in_script = False
        self.feed(html)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, dict(attrs)))
        self._in_script = tag == "script"

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_script = False

    def handle_data(self, data: str) -> None:
        (self.scripts if self._in_script else self.text).append(data)

    def injected(self) -> list[str]:
        """Markup that could only have come from a payload."""
        found = []
        for tag, attrs in self.elements:
            for name, value in attrs.items():
                if name.startswith("on"):
                    found.append(f"{tag} {name}={value!r}")
                link = (value or "").strip().lower()
                if name in ("href", "src", "action", "formaction") and link.startswith(
                    "javascript"
                ):
                    found.append(f"{tag} {name}={value!r}")
            if tag == "img" and attrs.get("src") == "x":
                found.append("img src=x")
        found += [f"script {s.strip()[:40]!r}" for s in self.scripts if "alert(" in s]
        return found

    def shows(self, text: str) -> bool:
        """Is ``text`` on the page as text (or as an attribute's value)?"""
        values = [v or "" for _, attrs in self.elements for v in attrs.values()]
        return any(text in part for part in [*self.text, *values])


def built_pages(site: Path) -> Iterator[tuple[str, Page]]:
    for path in sorted(site.rglob("*.html")):
        yield path.relative_to(site).as_posix(), Page(path.read_text(encoding="utf-8"))


@pytest.fixture
def store(store_root: Path) -> Path:
    """A store with one tagged fact: an entry page, a tag page and every navigation page."""
    write_raw(store_root, make_entry("Use pnpm, never npm", tags=["tooling"]))
    return store_root


# --- text settings: escaped in every page ------------------------------------------------------


@pytest.mark.parametrize("payload", PAYLOADS)
@pytest.mark.parametrize("setting", list(TEXT_SETTINGS))
def test_no_text_setting_becomes_markup(
    setting: str, payload: str, store: Path, runner: Invoke, tmp_path: Path
) -> None:
    configure(store, TEXT_SETTINGS[setting](payload))
    site = tmp_path / "site"
    done = runner("build", "--site-dir", str(site))
    assert done.exit_code == 0, done.stderr
    pages = dict(built_pages(site))
    assert len(pages) >= 10 and "index.html" in pages and "404.html" in pages
    assert {url: p.injected() for url, p in pages.items() if p.injected()} == {}
    assert any(page.shows(payload) for page in pages.values()), f"{setting} is not shown"


def test_the_checker_sees_injected_markup() -> None:
    page = Page(
        f'<p title="x{BREAKOUT}">{IMG}</p><a href=" JavaScript:alert(1)">x</a>'
        '<button formaction="javascript:x">b</button>'
    )
    assert len(page.injected()) == 5  # the script, the img (src and onerror), two links
    assert Page(f"<p>{IMG.replace('<', '&lt;')}</p>").injected() == []


@pytest.mark.browser
def test_no_script_runs_in_chromium(store: Path, runner: Invoke, tmp_path: Path) -> None:
    if not CHROMIUM.exists():
        pytest.skip(f"browser tests need Debian's Chromium at {CHROMIUM}")
    sync_api = pytest.importorskip("playwright.sync_api")
    configure(
        store,
        {
            "site_name": f"Memory {IMG}",
            "site_description": f"Facts {BREAKOUT}",
            "copyright": f"Acme {BREAKOUT} {IMG}",
            "extra_nav": [{f"Source {IMG}": REPO}],
            "palette": toggles(BREAKOUT),
        },
    )
    site = tmp_path / "site"
    assert runner("build", "--site-dir", str(site)).exit_code == 0
    paths = [f"/{url.removesuffix('index.html')}" for url, _ in built_pages(site)]
    script = """() => Array.from(document.querySelectorAll('*')).flatMap(el => [
        ...Array.from(el.attributes).filter(a => a.name.startsWith('on')
            || (['href', 'src', 'action', 'formaction'].includes(a.name)
                && a.value.trim().toLowerCase().startsWith('javascript')))
            .map(a => el.tagName + ' ' + a.name),
        ...(el.tagName === 'IMG' && el.getAttribute('src') === 'x' ? ['img src=x'] : []),
        ...(el.tagName === 'SCRIPT' && el.textContent.includes('alert(') ? ['script'] : []),
    ])"""
    found = {}
    with serve_folder(site) as url, sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page()
            watch = PageWatch(page)
            for path in paths:
                page.goto(url + path)
                page.wait_for_load_state("load")
                found[path] = page.evaluate(script)
            page.goto(url + "/")
            assert page.title() == f"Memory {IMG}"  # the text, shown as text
        finally:
            browser.close()
    assert len(paths) >= 10
    assert {path: f for path, f in found.items() if f} == {}
    assert watch.dialogs == []
    assert [e for e in watch.errors if "alert" in e] == []


# --- build --strict and check: one line per setting that would be markup ------------------------


def test_strict_build_refuses_each_setting_that_would_be_markup(
    store: Path, runner: Invoke, tmp_path: Path
) -> None:
    configure(
        store,
        {
            "site_name": f"Memory {IMG}",
            "site_description": "Plain facts, nothing else",
            "copyright": f"Acme {BREAKOUT}",
            "extra_nav": [{f"Docs {JS}": REPO}],
        },
    )
    done = runner("build", "--strict", "--site-dir", str(tmp_path / "strict"))
    assert done.exit_code == 1 and "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    named = [line for line in lines if line.startswith("config.json: ")]
    assert len(named) == 3 and len(lines) == 4, done.stderr
    assert named[0].startswith("config.json: 'site.site_name' holds '<'")
    assert named[1].startswith("config.json: 'site.copyright' holds '\"'")
    assert named[2].startswith("config.json: 'site.extra_nav[0]' holds 'javascript:'")
    assert lines[-1].startswith("Error: 3 site settings in config.json would carry markup")
    assert not (tmp_path / "strict" / "index.html").exists()
    lenient = runner("build", "--site-dir", str(tmp_path / "lenient"))  # escapes and goes on
    assert lenient.exit_code == 0, lenient.stderr


def test_check_fails_on_each_setting_that_would_be_markup(store: Path, runner: Invoke) -> None:
    root = store.parent
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "facts")
    git(root, "checkout", "-qb", "pr")
    configure(store, {"site_name": f"Memory {IMG}", "palette": toggles(BREAKOUT)})
    git(root, "commit", "-qam", "a hostile config")
    done = runner("check", "--base", "main")
    assert done.exit_code == 1 and "Traceback" not in done.stderr
    lines = [line for line in done.stdout.splitlines() if ": config_markup: " in line]
    assert lines == [
        f"config.json: config_markup: {problem}"
        for problem in markup_problems({"site_name": "<", "palette": toggles('"')})
    ]
    assert [line.split(": ")[2].split()[0] for line in lines] == [
        "'site.site_name'",
        "'site.palette[0].toggle.name'",
        "'site.palette[1].toggle.name'",
    ]
    report = runner("check", "--base", "main", "--json").json()
    assert [p["kind"] for p in report["problems"]].count("config_markup") == 3


def test_plain_settings_are_no_problem(store: Path, runner: Invoke, tmp_path: Path) -> None:
    site = {
        "site_name": "Acme — R&D memory's facts",
        "copyright": "© 2026 Acme & co",
        "extra_nav": [{"Source": REPO}],
        "palette": toggles("mode"),
    }
    assert markup_problems(site) == []
    configure(store, site)
    done = runner("build", "--strict", "--site-dir", str(tmp_path / "site"))
    assert done.exit_code == 0, done.stderr
    home = Page((tmp_path / "site" / "index.html").read_text(encoding="utf-8"))
    assert home.shows("Acme — R&D memory's facts") and home.shows("© 2026 Acme & co")


# --- URL settings: plain http(s) or refused, in one line ------------------------------------------

BAD_URLS = [
    ("javascript:alert(1)", "is not an http(s) URL"),
    ("JavaScript://%0aalert(1)", "is not an http(s) URL"),
    ("data:text/html,hello", "is not an http(s) URL"),
    ("ftp://example.com/x", "is not an http(s) URL"),
    ("//example.com/x", "is not an http(s) URL"),
    ("http://[", "cannot be read as a URL"),
    ("https://[::1/x", "cannot be read as a URL"),
    ("https://github.com/[acme", "holds '[' or ']' outside an IPv6 host"),
    ("https://example.com:99999/", "cannot be read as a URL"),
    ('https://example.com/"onmouseover="alert(1)', "holds a space, quote"),
    ("https://example.com/<b>", "holds a space, quote"),
    ("https://", "has no host"),
    ("https://user:secret@example.com/repo", "holds a user name or password"),
]


@pytest.mark.parametrize(("url", "why"), BAD_URLS, ids=[u for u, _ in BAD_URLS])
@pytest.mark.parametrize("key", ["site_url", "repo_url"])
def test_a_url_setting_that_is_not_plain_http_is_refused_in_one_line(
    key: str, url: str, why: str, store: Path, runner: Invoke
) -> None:
    configure(store, {key: url})
    for command in ("build", "list"):
        line = one_error(runner(command))
        assert f"'site.{key}' {why}" in line, line
        assert "plain http(s) URL" in line  # what to do


@pytest.mark.parametrize("url", ["javascript:alert(1)", "//evil.example/", "http://[", "a b"])
def test_an_extra_nav_link_is_http_or_a_path(url: str, store: Path, runner: Invoke) -> None:
    configure(store, {"extra_nav": [{"Link": url}]})
    line = one_error(runner("list"))
    assert "'site.extra_nav' must be a list of one-key objects" in line and "got" in line


def test_a_bad_site_url_in_the_environment_is_refused_in_one_line(
    store: Path, runner: Invoke
) -> None:
    line = one_error(runner("build", env={"MEMSITE_SITE_URL": "http://["}))
    assert "$MEMSITE_SITE_URL cannot be read as a URL" in line and "unset it" in line


@pytest.mark.parametrize(
    ("site", "named"),
    [
        ({"palette": {"scheme": BREAKOUT}}, "'site.palette.scheme' must be one of"),
        ({"palette": [{"primary": 'teal" onmouseover="alert(1)'}]}, "'site.palette[0].primary'"),
        ({"palette": [{"accent": "brown"}]}, "'site.palette[0].accent' must be one of"),
        ({"palette": [{"media": f"x{IMG}"}]}, "'site.palette[0].media' must be one of"),
        ({"palette": [{"toggle": {"icon": "../../base", "name": "x"}}]}, "toggle.icon'"),
        ({"palette": [{"toggle": {"name": "x"}}]}, "'site.palette[0].toggle' must be"),
        ({"palette": [{"colour": "red"}]}, "unknown key 'site.palette[0].colour'"),
        ({"palette": [{}] * 9}, "'site.palette' lists 9 options"),
        ({"language": f"en{BREAKOUT}"}, "'site.language'"),
        ({"language": "../en"}, "'site.language'"),
        ({"language": "xx"}, "'site.language' 'xx' is not a language of the Material theme"),
    ],
)
def test_palette_and_language_take_materials_values_only(
    site: dict[str, Any], named: str, store: Path, runner: Invoke
) -> None:
    configure(store, site)
    assert named in one_error(runner("build"))


def test_materials_own_values_are_taken(store: Path, runner: Invoke, tmp_path: Path) -> None:
    palette = [
        {"media": "(prefers-color-scheme: light)", "scheme": "default", "primary": "deep purple"},
        {"media": "(prefers-color-scheme: dark)", "scheme": "slate", "accent": "light-blue"},
    ]
    configure(store, {"palette": palette, "language": "pt-BR"})
    done = runner("build", "--strict", "--site-dir", str(tmp_path / "site"))
    assert done.exit_code == 0, done.stderr
    html = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert (
        'data-md-color-primary="deep-purple"' in html and '<html lang="pt"' in html
    )  # Material's pt-BR
