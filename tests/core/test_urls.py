"""URLs from the config: only plain http(s) URLs (or, where allowed, scheme-less paths) pass
``url_problem``, and only those with full commit ids make a blob base."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memsite.core.urls import linkable, pages_project_url, repo_blob_base, url_problem

C40 = "a" * 40
C64 = "b" * 64


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("https://host.example/x", f"https://host.example/x/blob/{C40}/"),
        ("  https://host.example/x/  ", f"https://host.example/x/blob/{C40}/"),
        ("https://host.example/x.git/", f"https://host.example/x/blob/{C40}/"),
        ("HTTPS://host.example/x", f"HTTPS://host.example/x/blob/{C40}/"),
        ("javascript:alert(1)", None),
        ("JavaScript://host.example/%0aalert(1)", None),
        ("data:text/html,<script>", None),
        ("data:text/html,x", None),
        ("file:///etc/passwd", None),
        ("//host.example/x", None),
        ("host.example/x", None),
        ("https://host.example/x?ref=main", None),
        ("https://host.example/x#top", None),
        ("https://host.example/x y", None),
        ("https://host.example/x'y", None),
        ("https://host.example/x`y", None),
        ("https://host.example/x\\y", None),
        ("https://host.example/x\ty", None),
        ("https://host.example/x\x7f", None),
        ("https://host.example/x\x1b[31m", None),
        ("", None),
        (["https://host.example/x"], None),
    ],
)
def test_only_plain_http_urls_are_linked(url: object, expected: str | None) -> None:
    assert repo_blob_base(url, C40) == expected
    assert linkable(url) is (expected is not None)


@pytest.mark.parametrize(
    ("commit", "ok"),
    [
        (C40, True),
        (C64, True),
        ("0123456789abcdef" * 2 + "01234567", True),
        ("a" * 39, False),
        ("a" * 41, False),
        ("a" * 63, False),
        ("A" * 40, False),
        ("g" * 40, False),
        ("main", False),
        ("", False),
        (None, False),
    ],
)
def test_commit_must_be_a_full_lower_case_id(commit: str | None, ok: bool) -> None:
    result = repo_blob_base("https://host.example/x", commit)
    assert result == (f"https://host.example/x/blob/{commit}/" if ok else None)


@pytest.mark.parametrize(
    ("prefix", "tail"),
    [
        ("", ""),
        ("apps/web", "apps/web/"),
        ("/apps/web/", "apps/web/"),
        ("a b/c#d?e", "a%20b/c%23d%3Fe/"),
        ("café", "caf%C3%A9/"),
    ],
)
def test_the_project_folder_is_quoted_and_ends_in_a_slash(prefix: str, tail: str) -> None:
    assert (
        repo_blob_base("https://h.example/r", C40, prefix)
        == f"https://h.example/r/blob/{C40}/{tail}"
    )


# '?' and '#' are left out: a bare one (an empty query or fragment) is not refused today.
@given(st.text(alphabet=st.characters(codec="utf-8", exclude_characters="?#"), max_size=12))
def test_a_linked_base_holds_no_unsafe_character(path: str) -> None:
    base = repo_blob_base(f"https://host.example/{path}", C40)
    if base is not None:
        assert not any(c in base for c in " \t\n\"'<>\\`")
        assert base.endswith(f"/blob/{C40}/")


_UNSAFE = re.compile(r"[\s\"'<>\\`\x00-\x1f\x7f]")


@pytest.mark.parametrize(
    ("url", "relative", "why"),
    [
        ("https://host.example/x?q=1#top", False, None),
        ("docs/guide/", True, None),
        ("/changelog/", True, None),
        ("docs/guide/", False, "is not an http(s) URL"),
        ("//host.example/x", True, "is not an http(s) URL"),
        ("mailto:a@host.example", True, "is not an http(s) URL"),
        ("http://[", False, "cannot be read as a URL (Invalid IPv6 URL)"),
        ("http://[", True, "cannot be read as a URL (Invalid IPv6 URL)"),
        ("http://[::1]:8000/x", False, None),
        ("https://github.com/[acme", False, "holds '[' or ']' outside an IPv6 host"),
        ("docs/[x]/", True, "holds '[' or ']' outside an IPv6 host"),
        ("https://host.example:65536/", False, "cannot be read as a URL"),
        ("https://:80/", False, "has no host"),
        ("https://u@host.example/", False, "holds a user name or password"),
        ("", True, "is empty"),
    ],
)
def test_url_problem_says_what_is_wrong(url: str, relative: bool, why: str | None) -> None:
    found = url_problem(url, relative=relative)
    assert found == why or (why is not None and found is not None and found.startswith(why))


@given(
    st.text(max_size=40)
    | st.from_regex(
        r"(https?|HTTPS?|javascript|data)://[\[\]:@a-z0-9./%?#<\"-]{0,24}", fullmatch=True
    )
)
def test_url_problem_never_raises_and_passes_only_plain_http(url: str) -> None:
    why = url_problem(url)
    assert why is None or "\n" not in why
    if why is None:
        parts = urlsplit(url)
        assert parts.scheme.lower() in ("http", "https") and parts.hostname
        assert parts.port is None or 0 <= parts.port <= 65535
        assert not _UNSAFE.search(url) and "@" not in parts.netloc
        assert "[" not in parts.path + parts.query + parts.fragment
    relative = url_problem(url, relative=True)
    if relative is None and why is not None:  # a path: never a scheme or another host
        assert ":" not in url.split("/", 1)[0] and not url.startswith("//")
        assert url and not _UNSAFE.search(url)


@pytest.mark.parametrize(
    ("remote", "expected"),
    [
        ("https://github.com/Acme/shop.git", "https://acme.github.io/shop/"),
        ("https://github.com/acme/shop", "https://acme.github.io/shop/"),
        ("git@github.com:acme/shop.git", "https://acme.github.io/shop/"),
        ("ssh://git@github.com/acme/shop.git", "https://acme.github.io/shop/"),
        ("https://token@github.com/acme/my.docs/", "https://acme.github.io/my.docs/"),
        ("https://github.com/acme/acme.github.io.git", None),  # a user site, at the root
        ("https://github.com/Acme/ACME.github.io", None),
        ("https://gitlab.com/acme/shop.git", None),
        ("https://github.com.evil.example/acme/shop.git", None),
        ("/srv/git/shop.git", None),
        ("https://github.com/acme", None),
    ],
)
def test_pages_project_url_names_a_project_site_only(remote: str, expected: str | None) -> None:
    assert pages_project_url(remote) == expected
