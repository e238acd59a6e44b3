"""Lean pages: the frames' chrome is small (GitHub Pages publishes at most 1 GB, and an entry
page is written once per entry), icons come from one shared sprite, Material's inline scripts
from shared files, and every rule leaves markup it does not know as it was."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from memsite.portal.chrome import (
    ASSET_DIR,
    ENTRY,
    NAV,
    ChromeAssets,
    collapse_whitespace,
    lean_frame,
    point_at_sprite,
)
from tests.portal.conftest import Built, ParsedPage, build, html_pages, resolve_link

# An entry page is its body plus this much at most (Material's header, palette toggle, search
# box and navigation written by shared scripts: about 3 KB); before the lean frames it was
# about 17 KB.
ENTRY_CHROME_BYTES = 3_500
USE = re.compile(r'<use xlink:href="([^"#]+)#([^"]+)"/>')


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Built:
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    from gen_store import generate

    root = tmp_path_factory.mktemp("lean")
    return build(generate(400, root / "store"), root / "site")


def frame_pages(site: Path) -> list[ParsedPage]:
    """Every page memsite filled into a frame (404.html is MkDocs' own, copied as it is)."""
    return [page for page in html_pages(site) if page.path.name != "404.html"]


def body_of(html: str) -> str:
    start = html.index('<span id="memsite-content" tabindex="-1"></span>')
    return html[start : html.index("</article>", start)]


def test_entry_pages_are_their_body_and_a_few_kb(generated: Built) -> None:
    pages = sorted((generated.site / "entries").glob("*/index.html"))
    assert len(pages) == 400
    for path in pages:
        html = path.read_text(encoding="utf-8")
        chrome = len(html.encode()) - len(body_of(html).encode())
        assert chrome <= ENTRY_CHROME_BYTES, (path, chrome)
        assert "md-header" in html and 'data-md-component="palette"' not in html
        assert 'data-md-component="palette"' in written_back(generated.site, path)


def written_back(site: Path, page: Path) -> str:
    """The markup the page's shared scripts write back into it while it is parsed."""
    prefix = 'document.currentScript.insertAdjacentHTML("afterend",'
    out = []
    for src in re.findall(r'<script src="([^"]+)"></script>', page.read_text("utf-8")):
        code = (page.parent / src).resolve().read_text("utf-8")
        if code.startswith(prefix):
            out.append(json.loads(code.removeprefix(prefix).removesuffix(")\n")))
    return "".join(out)


def test_entry_pages_have_the_search_box_and_navigation_of_every_page(generated: Built) -> None:
    site = generated.site
    entry = next((site / "entries").glob("*/index.html"))
    category = next((site / "categories").glob("*/index.html"))
    shown = entry.read_text("utf-8") + written_back(site, entry)
    for marker in ('id="memsite-header-q"', 'for="__search"', 'class="md-nav md-nav--primary"'):
        assert shown.count(marker) >= 1, marker
    labels = re.findall(
        r'class="md-nav__link[^"]*"[^>]*>(?:<span class="md-ellipsis">)?\s*([^<]+)', shown
    )
    expected = re.findall(
        r'class="md-nav__link[^"]*"[^>]*>(?:<span class="md-ellipsis">)?\s*([^<]+)',
        category.read_text("utf-8"),
    )
    assert [x.strip() for x in labels] == [x.strip() for x in expected]  # the same navigation
    assert "Categories" in [x.strip() for x in labels]
    for listing in ("tags", "timeline"):  # a tag's page and a month's keep every section too
        page = next(p for p in (site / listing).glob("*/index.html"))
        assert ">\nCategories\n<" in page.read_text("utf-8"), page


def test_no_page_draws_an_icon_inline_and_every_icon_is_in_the_sprite(generated: Built) -> None:
    site = generated.site
    sprites: dict[Path, set[str]] = {}
    uses = 0
    for page in frame_pages(site):
        html = page.path.read_text(encoding="utf-8")
        assert "<path" not in html, page.url  # drawings live in the sprite
        for href, ident in USE.findall(html):
            target = resolve_link(site, page.url, href)
            assert target is not None and target.is_file(), (page.url, href)
            if target not in sprites:
                sprites[target] = set(re.findall(r'<symbol id="([^"]+)"', target.read_text()))
            assert ident in sprites[target], (page.url, ident)
            uses += 1
    assert len(sprites) == 1  # one shared sprite
    assert uses > 400 * 4


def test_moved_scripts_and_styles_exist(generated: Built) -> None:
    site = generated.site
    seen = set()
    for page in frame_pages(site):
        for _, _, value in page.links:
            if re.search(r"(^|/)m/[0-9a-f]{8}\.(js|css)$", value):
                target = resolve_link(site, page.url, value)
                assert target is not None and target.is_file(), (page.url, value)
                seen.add(target.name)
        html = page.path.read_text(encoding="utf-8")
        assert re.findall(r"<script>", html) == [], page.url  # no inline script stays
        assert 'id="__config"' not in html, page.url  # the configuration comes from m/
    assert any(name.endswith(".css") for name in seen)
    css = next((site / ASSET_DIR).glob("*.css")).read_text()
    for line in css.splitlines():
        found = re.fullmatch(r'@import url\("([^"]+)"\);', line)
        assert found is not None
        assert (site / ASSET_DIR / found.group(1)).resolve().is_file(), line


def test_the_configuration_script_puts_materials_json_back() -> None:
    """The shared script writes Material's ``__config`` element right after itself, before
    Material's bundle (the next script) reads it; the head's helpers run in the palette
    script, and the progress bar is named by an attribute."""
    config = '{"base": "../..", "features": ["navigation.instant"], "x": "<&>"}'
    html = (
        '<head><script>__md_scope=new URL("../..",location),__md_get=()=>null</script></head>'
        '<body><form data-md-component="palette"></form>'
        '<script>var palette=__md_get("__palette")</script>'
        '<div class="md-progress" data-md-component="progress" role="progressbar"></div>'
        f'<script id="__config" type="application/json">{config}</script>'
        '<script src="../../assets/javascripts/bundle.js"></script>'
        '<script>document.querySelector("[data-md-component=progress]")?.setAttribute('
        '"aria-label", "Page loading");</script></body>'
    )
    assets = ChromeAssets()
    lean = lean_frame(html, "../../", assets)
    assert "<script>" not in lean and "__config" not in lean
    assert 'role="progressbar" aria-label="Page loading"></div>' in lean
    scripts = re.findall(r'<script src="\.\./\.\./(m/[0-9a-f]{8}\.js)"></script>', lean)
    assert len(scripts) == 2  # the palette script (with the head's) and the configuration
    assert lean.index(scripts[1]) < lean.index("bundle.js")
    palette, setup = (assets.scripts[name] for name in scripts)
    assert palette.startswith('__md_scope=new URL("..",document.currentScript.src)')
    assert 'var palette=__md_get("__palette")' in palette
    prefix = 'document.currentScript.insertAdjacentHTML("afterend",'
    assert setup.startswith(prefix) and setup.endswith(")\n")
    element = json.loads(setup.removeprefix(prefix).removesuffix(")\n"))
    opening = '<script id="__config" type="application/json">'
    assert element.startswith(opening) and element.endswith("</script>")
    value = json.loads(element.removeprefix(opening).removesuffix("</script>"))
    assert value == json.loads(config)
    assert "<&>" not in element  # escaped in the JSON: the element's text is one text node


def test_the_largest_page_at_a_generated_store_is_small(generated: Built) -> None:
    largest = max(p.stat().st_size for p in generated.site.rglob("*.html"))
    assert largest < 300_000


@pytest.mark.parametrize(
    ("html", "expected"),
    [
        ("<div>\n    <p>a\n   b</p>\n</div>", "<div><p>a\nb</p></div>"),
        ("<pre>keep\n    this</pre>\n  <p>x</p>", "<pre>keep\n    this</pre>\n<p>x</p>"),
        ("<script>a\n   b</script>", "<script>a\n   b</script>"),
        ("<textarea>\n  t\n</textarea>", "<textarea>\n  t\n</textarea>"),
        ("Made with\n    <a>x</a>", "Made with\n<a>x</a>"),
    ],
)
def test_whitespace_folds_outside_raw_elements(html: str, expected: str) -> None:
    assert collapse_whitespace(html) == expected


def test_unknown_markup_is_left_as_it_is() -> None:
    html = "<html><head><title>t</title></head><body><main>memsite-slot</main></body></html>"
    for kind in (ENTRY, NAV):
        assert lean_frame(html, "../../", ChromeAssets(), kind) == html


def test_icons_keep_their_attributes_and_titles() -> None:
    assets = ChromeAssets()
    html = (
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" aria-hidden="true">'
        "<title>Home</title><path d='M1 1'/></svg>"
    )
    lean = point_at_sprite(lean_frame(html, "../", assets), assets)
    assert lean.startswith('<svg viewBox="0 0 24 24" aria-hidden="true"><title>Home</title>')
    assert "<path" not in lean
    (name, data), *_ = [(n, d) for n, d in assets.files().items() if n.endswith(".svg")]
    assert f'<use xlink:href="../{name}#a"/>' in lean
    assert b'<symbol id="a" viewBox="0 0 24 24"><path d=\'M1 1\'/></symbol>' in data
    assert b"<title>" not in data
