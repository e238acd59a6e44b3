"""Entry text to HTML: only code spans and http(s) links become markup."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memsite.portal.text import (
    HEADING_WIDTH,
    plain_text,
    render_text,
    safe_title,
    short_heading,
    word_diff,
)
from tests.oracles import search_html


@pytest.mark.parametrize(
    ("text", "html"),
    [
        ("plain words", "plain words"),
        ("<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;"),
        ("a & b", "a &amp; b"),
        ("use `pnpm install`", "use <code>pnpm install</code>"),
        ("``a ` b``", "<code>a ` b</code>"),
        ("`` `ticks` ``", "<code>`ticks`</code>"),
        ("`<b>x</b>`", "<code>&lt;b&gt;x&lt;/b&gt;</code>"),
        ("unclosed `tick", "unclosed `tick"),
        (
            "see https://example.org/a?b=1&c=2.",
            'see <a href="https://example.org/a?b=1&amp;c=2" rel="nofollow noopener noreferrer">'
            "https://example.org/a?b=1&amp;c=2</a>.",
        ),
        (
            "(https://en.wikipedia.org/wiki/Foo_(bar))",
            '(<a href="https://en.wikipedia.org/wiki/Foo_(bar)" rel="nofollow noopener noreferrer">'
            "https://en.wikipedia.org/wiki/Foo_(bar)</a>)",
        ),
        ("javascript:alert(1)", "javascript:alert(1)"),
        ("[x](javascript:alert(1))", "[x](javascript:alert(1))"),
        ('<a href="https://x.org">y</a>', "&lt;a href=&quot;"),
        ('https://x.org/"onmouseover="alert(1)', '<a href="https://x.org/" rel='),
        ("`https://not.linked`", "<code>https://not.linked</code>"),
        ("{{ 7*7 }} {% if %}", "{{ 7*7 }} {% if %}"),
        ("http://", "http://"),
        ("ftp://files.example.org", "ftp://files.example.org"),
    ],
)
def test_render_text(text: str, html: str) -> None:
    assert str(render_text(text)).startswith(html)


def test_render_text_never_emits_other_tags() -> None:
    text = '<img src=x onerror=alert(1)> `<i>` https://a.example/<b> ![](x" onerror="y)'
    html = str(render_text(text))
    tags = {part.split(">", 1)[0].split(" ", 1)[0] for part in html.split("<")[1:]}
    assert tags <= {"code", "/code", "a", "/a"}
    assert 'onerror="' not in html


@pytest.mark.parametrize(
    ("text", "title"),
    [
        ("Short fact.", "Short fact."),
        ("two\nlines\there", "two lines here"),
        ("<script>\"x\" & 'y'</script>", "‹script›”x” ＆ ’y’‹/script›"),
        ("use `pnpm`", "use pnpm"),
        ("", "(empty)"),
    ],
)
def test_safe_title(text: str, title: str) -> None:
    assert safe_title(text) == title


_SWAP = str.maketrans({"<": "‹", ">": "›", '"': "”", "'": "’", "&": "＆", "`": ""})


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from("<>\"'&` \n\tab‹›”’＆é") | st.characters(), max_size=200))
def test_safe_title_swaps_every_markup_character_for_its_look_alike(text: str) -> None:
    title = safe_title(text, width=1000)
    assert title == (plain_text(text.translate(_SWAP)) or "(empty)")
    assert not set(title) & set("<>\"'&`")


def test_safe_title_shortens_on_a_word_boundary() -> None:
    title = safe_title("word " * 40, width=30)
    assert len(title) <= 30 and title.endswith("…") and not title.endswith(" …")


def test_search_html_keeps_code_and_escapes_the_rest() -> None:
    assert search_html("a <b> `c<d>`  e") == "a &lt;b&gt; <code>c&lt;d&gt;</code> e"
    assert plain_text(" a\n\tb ") == "a b"


@pytest.mark.parametrize(
    ("text", "heading"),
    [
        ("Use pnpm.", "Use pnpm."),
        ("Deploys run from CI only. Never from a laptop.", "Deploys run from CI only."),
        (
            "Money is always handled as integer minor units (cents) plus an ISO 4217 currency "
            "code; never use floats for amounts. Use the helpers.",
            "Money is always handled as integer minor units (cents) plus an ISO 4217…",
        ),
        # never cut inside a code span: the span is left out whole
        (
            "Run it with `python -m memsite --store examples/demo/.memsite build --x` first",
            "Run it with…",
        ),
        ("a" * 100, "a" * 72 + "…"),
    ],
)
def test_short_heading(text: str, heading: str) -> None:
    assert short_heading(text) == heading
    assert len(short_heading(text)) <= HEADING_WIDTH + 1


def test_word_diff_marks_words_and_renders_code_spans() -> None:
    diff = str(word_diff("Use `node:20` on CI. <b>", "Use `node:22` on CI. <b>"))
    assert (
        diff
        == "Use <del><code>node:20</code></del><ins><code>node:22</code></ins> on CI. &lt;b&gt;"
    )


def test_word_diff_shows_blocks_when_most_words_changed() -> None:
    diff = str(word_diff("Staging deploys run `kubectl apply` by hand.", "Argo CD syncs staging."))
    assert diff == (
        '<del class="memsite-diff-old">Staging deploys run <code>kubectl apply</code> by hand.'
        "</del>"
        '<ins class="memsite-diff-new">Argo CD syncs staging.</ins>'
    )
    assert "`" not in diff
