"""Page frames: MkDocs + Material render each kind of page once (one real MkDocs run here),
cut at the slots a page's title and body fill."""

from __future__ import annotations

from pathlib import Path

import pytest

from memsite.errors import MemsiteError
from memsite.memory import Memory
from memsite.portal.frames import BODY_SLOT, TITLE_SLOT, Frame, Frames, render_frames
from memsite.portal.gather import portal_for
from memsite.portal.model import Portal
from memsite.portal.render import ENTRY_SHELL, MONTH_SHELL, TAG_SHELL
from tests.portal.conftest import copy_demo, plant

SHELLS = (ENTRY_SHELL, TAG_SHELL, MONTH_SHELL)
BODY = '<div id="the-body">body</div>'


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> tuple[Portal, Frames, Path]:
    root = tmp_path_factory.mktemp("frames")
    store = copy_demo(root)
    plant(store, content="Outside the config", category="extras")
    memory = Memory.open(str(store), {}, store.parent)
    portal = portal_for(memory)
    site = root / "site"
    frames = render_frames(portal, dict(memory.config.site), site, strict=True, site_url=None)
    return portal, frames, site


def test_a_frame_per_nav_page_and_the_three_shells(made: tuple[Portal, Frames, Path]) -> None:
    portal, frames, _ = made
    nav = {"", "tags/", "timeline/", "review/", "search/"}
    categories = {f"categories/{c.slug}/" for c in portal.categories}
    assert "categories/extras/" in categories  # its page has a frame, outside the nav
    assert set(frames.frames) == nav | categories | set(SHELLS)
    assert frames.warnings == []


@pytest.mark.parametrize("shell", SHELLS)
def test_a_shell_takes_any_title_escaped(made: tuple[Portal, Frames, Path], shell: str) -> None:
    frame = made[1].frames[shell]
    html = frame.fill("Use <b>pnpm</b> & ruff", BODY, "abc")
    assert html.count(BODY) == 1
    assert "<title>Use &lt;b&gt;pnpm&lt;/b&gt; &amp; ruff" in html
    assert "<b>pnpm</b>" not in html
    assert TITLE_SLOT not in html and BODY_SLOT not in html
    again = frame.fill(TITLE_SLOT, BODY_SLOT)  # slot text given as values is never refilled
    assert again.count(BODY_SLOT) == 1


def test_nav_frames_fill_their_body_only(made: tuple[Portal, Frames, Path]) -> None:
    frames = made[1].frames
    home = frames[""].fill("ignored", BODY)
    assert home.count(BODY) == 1 and "ignored" not in home
    assert "md-nav--primary" in home
    entry = frames[ENTRY_SHELL].fill("Fact", BODY)
    # the entry frame is lean: its navigation comes from a shared script
    assert "md-nav--primary" not in entry and "md-header" in entry


def test_shared_assets_and_mkdocs_output_are_handed_over(made: tuple[Portal, Frames, Path]) -> None:
    _, frames, site = made
    assert "404.html" in frames.copied
    for rel in frames.copied:
        assert (site / rel).is_file(), rel
    pages = "".join(f.fill("t", "b") for f in frames.frames.values())
    assert frames.assets
    for name, data in frames.assets.items():
        assert data and name.rsplit("/", 1)[-1] in pages, name
    assert frames.search_config["lang"] == ["en"]


@pytest.mark.parametrize(
    "html",
    [
        "<html><body>no slot</body></html>",
        f"<html>{BODY_SLOT}<p>again</p>{BODY_SLOT}</html>",
    ],
)
def test_a_frame_without_exactly_one_body_slot_is_refused(html: str) -> None:
    with pytest.raises(MemsiteError, match="exactly once"):
        Frame(html)


def test_a_hand_made_frame_fills_every_slot() -> None:
    frame = Frame(
        f"<title>{TITLE_SLOT}</title><h1>{TITLE_SLOT}</h1><p id=memsite-shell>{BODY_SLOT}"
    )
    assert frame.fill("A & B", "<em>x</em>", "e1") == (
        "<title>A &amp; B</title><h1>A &amp; B</h1><p id=e1><em>x</em>"
    )
    assert frame.fill('"q"', "") == '<title>"q"</title><h1>"q"</h1><p id=memsite-shell>'
