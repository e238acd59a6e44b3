"""Lean page chrome: the frames Material rendered, made small once before memsite fills them.

At 100,000 entries every byte of the entry frame is written 100,000 times, and GitHub Pages
publishes at most 1 GB. So each frame is rewritten once, by rules that keep its look and its
behaviour (instant navigation, palette toggle, search):

* a run of whitespace holding a line break becomes one line break, and a line break between
  two tags goes (outside ``<pre>``, ``<textarea>`` and ``<script>``; the page body is not part
  of the frame, so entry text is never touched);
* each inline icon becomes ``<svg …><use href="…/m/<hash>.svg#<id>"/></svg>``: one shared
  sprite file holds the drawings (a ``<title>`` and every attribute but ``xmlns`` stay);
* Material's small inline scripts move to shared files run at the same place (classic
  synchronous scripts: same order, same effect); the head's script (``__md_get`` and kin) runs
  at the start of the palette script, the first one that needs it; the page's ``__config``
  JSON loses its spaces and moves to a shared script that puts it back in the page where it
  stood, before Material's bundle reads it; the progress bar gets its name as an attribute
  (no script);
* the empty, hidden table-of-contents sidebar goes (portal pages have no table of contents);
* the entry frame, written once per entry, has what every page has: the header (logo, title,
  palette toggle, the search box with its ``/`` shortcut) and the whole navigation (the
  sidebar on a wide screen, the drawer on a phone). The palette toggle, the search box and
  the navigation are the same on every entry page (nothing in the navigation is the current
  page), so each moves to a shared script that writes it back where it stood while the page
  is parsed, before the palette's own script, Material's bundle and memsite's search.js run
  (instant navigation runs the scripts of the container it swaps in, so the navigation comes
  back there too): 4.6 KB of markup become three 45-byte script tags (at 100k entries the
  palette's 0.9 KB alone were 90 MB of the site). It keeps one stylesheet link (a shared file
  importing Material's and memsite's), and no footer or back-to-top button: instant navigation swaps
  the page's container only, so the next page brings its own footer. Without JavaScript an
  entry page has the header, breadcrumbs to its category and the logo's link home.
* tag and month pages keep the whole navigation, as every other page.

A rule whose markup is not found leaves the page as it is: a new Material release can make
pages larger, never broken (tests bound the size).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import re
from dataclasses import dataclass, field

# The shared files of the lean frames: a short folder, as every link to them is written once
# per page (assets/memsite/ holds the files of site-config).
ASSET_DIR = "m/"
_UP = "../" * ASSET_DIR.count("/")  # from a shared file back to the site root
_RAW = re.compile(r"(<(pre|textarea|script)\b.*?</\2>)", re.S | re.I)
_SPACE = re.compile(r"[ \t\r\f]*\n\s*")
_BETWEEN_TAGS = re.compile(r">\n<")
_ICON = re.compile(r"<svg([^>]*)>((?:(?!<use\b|<svg\b).)*?)</svg>", re.S)
_XMLNS = re.compile(r'\s+xmlns="http://www\.w3\.org/2000/svg"')
_VIEWBOX = re.compile(r'\bviewBox="([^"]*)"')
_TITLE = re.compile(r"<title>[^<]*</title>")
_SCRIPT = re.compile(r"<script>((?:(?!</script>).)+)</script>", re.S)
_SCOPE = re.compile(r'new URL\("[./]*",location\)')
_CONFIG = re.compile(r'(<script id="__config" type="application/json">)(.*?)(</script>)', re.S)
_TOC = (
    '<div class="md-sidebar md-sidebar--secondary" data-md-component="sidebar" data-md-type="toc"'
)
_SEARCH_BOX = '<div class="md-search"'
_NAV = '<nav class="md-nav md-nav--primary"'
_PALETTE = '<form class="md-header__option" data-md-component="palette"'
_GENERATOR = re.compile(r'<meta name="generator" content="[^"]*">')
_STYLESHEETS = re.compile(r'(?:<link rel="stylesheet" href="([^"]+)">\n?){2,}')
# Placeholders instant navigation fills only on pages that have them (empty in the portal).
_PLACEHOLDERS = '<div data-md-component="skip"></div><div data-md-component="announce"></div>'
_TABBED = re.compile(r'<script>[^<]*"__tabbed_"[^<]*</script>\n?')
_HEAD_SCRIPT = "__md_scope="
_PALETTE_SCRIPT = '__md_get("__palette")'
# overrides/main.html names the progress bar with a script (no template block holds the bar).
_PROGRESS = '<div class="md-progress" data-md-component="progress" role="progressbar">'
_PROGRESS_SCRIPT = re.compile(
    r'<script>document\.querySelector\("\[data-md-component=progress\]"\)\?\.setAttribute'
    r'\("aria-label", "([^"<]*)"\);</script>\n?'
)


def _digest(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=4).hexdigest()


@dataclass
class ChromeAssets:
    """The shared files the lean frames point at: the icon sprite and the moved scripts."""

    icons: dict[str, tuple[str, str]] = field(default_factory=dict)  # hash → (viewBox, drawing)
    scripts: dict[str, str] = field(default_factory=dict)  # file name → code (scripts, styles)

    @property
    def names(self) -> dict[str, str]:
        """The short id of each icon in the sprite (``a``, ``b``…; by hash: deterministic)."""
        letters = "abcdefghijklmnopqrstuvwxyz"
        out = {}
        for n, key in enumerate(sorted(self.icons)):
            name = ""
            while True:
                n, rest = divmod(n, 26)
                name = letters[rest] + name
                if n == 0:
                    break
                n -= 1
            out[key] = name
        return out

    @property
    def sprite_name(self) -> str:
        return f"{ASSET_DIR}{_digest(self._sprite())}.svg"

    def _sprite(self) -> str:
        names = self.names
        symbols = "".join(
            f'<symbol id="{names[key]}" viewBox="{box}">{drawing}</symbol>'
            for key, (box, drawing) in sorted(self.icons.items())
        )
        return f'<svg xmlns="http://www.w3.org/2000/svg">{symbols}</svg>\n'

    def files(self) -> dict[str, bytes]:
        out = {name: code.encode("utf-8") for name, code in sorted(self.scripts.items())}
        if self.icons:
            out[self.sprite_name] = self._sprite().encode("utf-8")
        return out


def collapse_whitespace(html: str) -> str:
    """Line-broken whitespace as one line break, none between tags (raw elements kept)."""
    pieces = _RAW.split(html)
    out = []
    for n, piece in enumerate(pieces):
        kind = n % 3
        if kind == 0:
            out.append(_BETWEEN_TAGS.sub("><", _SPACE.sub("\n", piece)))
        elif kind == 1:
            out.append(piece)  # the raw element as it was; group 2 (its name) is dropped
    return "".join(out)


def _balanced_end(html: str, start: int, tag: str) -> int:
    """The index just past the element opened at ``start`` (-1 if it is not closed)."""
    opener = re.compile(f"<{tag}\\b|</{tag}>")
    depth = 0
    for match in opener.finditer(html, start):
        depth += -1 if match.group(0).startswith("</") else 1
        if depth == 0:
            return match.end()
    return -1


def _drop_hidden_toc(html: str) -> str:
    start = html.find(_TOC)
    if start < 0:
        return html
    end = _balanced_end(html, start, "div")
    opening = html[start : html.find(">", start) + 1]
    if end < 0 or not opening.endswith(" hidden>") or "<a " in html[start:end]:
        return html  # shown, or holding links: not the empty one
    return html[:start] + html[end:]


def _cut(html: str, marker: str, tag: str, replacement: str = "") -> str:
    """``html`` with the element that starts at ``marker`` replaced (unchanged if absent)."""
    start = html.find(marker)
    end = _balanced_end(html, start, tag) if start >= 0 else -1
    return html if end < 0 else html[:start] + replacement + html[end:]


def _entry_chrome(html: str, root: str, assets: ChromeAssets) -> str:
    """The entry frame made small (see the module): the search box and the navigation are
    written back by shared scripts where they stood, the footer goes."""
    html = _GENERATOR.sub("", html)
    html = html.replace(_PLACEHOLDERS, "")
    html = _TABBED.sub("", html)  # entry pages hold no content tabs
    for marker, tag in ((_PALETTE, "form"), (_SEARCH_BOX, "div"), (_NAV, "nav")):
        start = html.find(marker)
        end = _balanced_end(html, start, tag) if start >= 0 else -1
        if end >= 0:
            html = html[:start] + _written_here(html[start:end], root, assets) + html[end:]
    html = _cut(html, '<footer class="md-footer"', "footer")
    return _cut(html, '<button type="button" class="md-top', "button")


def _one_stylesheet(html: str, root: str, assets: ChromeAssets) -> str:
    """The page's stylesheets as one shared file importing them in order (one link)."""

    def merge(match: re.Match[str]) -> str:
        links = re.findall(r'href="([^"]+)"', match.group(0))
        if not all(link.startswith(root) and "//" not in link for link in links):
            return match.group(0)
        # The imports are relative to the shared file, in ASSET_DIR.
        code = "".join(f'@import url("{_UP}{link.removeprefix(root)}");\n' for link in links)
        name = f"{ASSET_DIR}{_digest(code)}.css"
        assets.scripts[name] = code
        return f'<link rel="stylesheet" href="{root}{name}">'

    return _STYLESHEETS.sub(merge, html, count=1)


def _icons(html: str, root: str, assets: ChromeAssets, sprite: str) -> str:
    def swap(match: re.Match[str]) -> str:
        attrs, drawing = match.group(1), match.group(2)
        box = _VIEWBOX.search(attrs)
        if box is None or not drawing.strip():
            return match.group(0)
        title = _TITLE.search(drawing)
        drawing = _TITLE.sub("", drawing)
        ident = _digest(box.group(1) + drawing)
        assets.icons[ident] = (box.group(1), drawing)
        kept = title.group(0) if title else ""
        # xlink:href, not href: Material's instant navigation rewrites every [href] of the
        # next page (el.href = el.href), which throws on an SVG <use> (a read-only href).
        return f'<svg{_XMLNS.sub("", attrs)}>{kept}<use xlink:href="{root}{sprite}#{ident}"/></svg>'

    return _ICON.sub(swap, html)


def _shared_script(code: str, root: str, assets: ChromeAssets) -> str:
    name = f"{ASSET_DIR}{_digest(code)}.js"
    assets.scripts[name] = code + "\n"
    return f'<script src="{root}{name}"></script>'


def _written_here(element: str, root: str, assets: ChromeAssets) -> str:
    """A shared classic script that puts ``element`` back in the page right after itself,
    while the page is parsed (or when instant navigation runs the new container's scripts)."""
    code = f'document.currentScript.insertAdjacentHTML("afterend",{json.dumps(element)})'
    return _shared_script(code, root, assets)


def _progress_name(html: str) -> str:
    """The progress bar named by an attribute instead of overrides/main.html's script."""
    found = _PROGRESS_SCRIPT.search(html)
    if found is None or html.count(_PROGRESS) != 1:
        return html
    named = f'{_PROGRESS[:-1]} aria-label="{found.group(1)}">'
    return _PROGRESS_SCRIPT.sub("", html, count=1).replace(_PROGRESS, named)


def _head_into_palette(html: str) -> str:
    """The head's inline script moved to the start of the palette script: no script runs
    between them, and the palette script is the first to call what the head's defines."""
    found = list(_SCRIPT.finditer(html))
    for first, second in itertools.pairwise(found):
        if first.group(1).startswith(_HEAD_SCRIPT) and _PALETTE_SCRIPT in second.group(1):
            between = html[first.end() : second.start()]
            if "<script" in between or "__md_" in between:
                return html
            code = first.group(1).rstrip().rstrip(";") + ";" + second.group(1)
            return (
                html[: first.start()] + between + f"<script>{code}</script>" + html[second.end() :]
            )
    return html


def _scripts(html: str, root: str, assets: ChromeAssets) -> str:
    def move(match: re.Match[str]) -> str:
        code = _SCOPE.sub(
            f'new URL("{_UP.rstrip("/")}",document.currentScript.src)', match.group(1)
        )
        return _shared_script(code, root, assets)

    searching = 'data-md-component="search"' in html

    def compact(match: re.Match[str]) -> str:
        try:
            value = json.loads(match.group(2))
        except ValueError:
            return match.group(0)
        if not searching and isinstance(value, dict):
            # Material's search is not on this page (memsite's own runs): its texts and
            # worker are never used (the configuration is read once, on the first page).
            value.pop("search", None)
            words = value.get("translations")
            if isinstance(words, dict):
                value["translations"] = {
                    k: v for k, v in words.items() if not k.startswith("search.")
                }
        words = value.get("translations") if isinstance(value, dict) else None
        if isinstance(words, dict) and value.get("version") is None:
            words.pop("select.version", None)  # no version selector to name
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
        text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
        # Material's bundle reads the element once, when it runs: a classic script just
        # before it puts the element back where it stood (the same for every page of a frame).
        return _written_here(match.group(1) + text + match.group(3), root, assets)

    html = _SCRIPT.sub(move, _head_into_palette(_progress_name(html)))
    return _CONFIG.sub(compact, html)


NAV, ENTRY = "nav", "entry"  # frame kinds: a page of the portal, the entry pages' one frame


def lean_frame(html: str, root: str, assets: ChromeAssets, kind: str = NAV) -> str:
    """``html`` (a frame as Material rendered it, slots unfilled) made lean (see the module);
    ``root`` is the relative path from the page to the site root."""
    html = _drop_hidden_toc(collapse_whitespace(html))
    if kind == ENTRY:
        html = _one_stylesheet(_entry_chrome(html, root, assets), root, assets)
    return _scripts(_icons(html, root, assets, _SPRITE_SLOT), root, assets)


# Sprite links are written with this placeholder and fixed once every frame is lean: the
# sprite's name is the hash of every icon of every frame, its ids are short names.
_SPRITE_SLOT = f"{ASSET_DIR}SPRITE.svg"
_SPRITE_LINK = re.compile(re.escape(_SPRITE_SLOT) + "#([0-9a-f]{8})")


def point_at_sprite(html: str, assets: ChromeAssets) -> str:
    """``html`` with its icons pointing at the sprite of ``assets`` (every frame lean)."""
    name, names = assets.sprite_name, assets.names
    return _SPRITE_LINK.sub(lambda m: f"{name}#{names[m.group(1)]}", html)
