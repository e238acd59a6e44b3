"""URLs from the config: which ones memsite renders as links, and what it links to. Pure.

A URL comes from the config, which arrives through git like the entries: only a plain http(s)
URL with a host, no credentials and no space, quote, angle bracket, backslash, backtick or
control character becomes a link (or, where a setting allows it, a path without a scheme).
:func:`url_problem` says what is wrong with any other; :func:`repo_blob_base` links files on
the repository host at a commit.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote, urlsplit

_COMMIT = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")


_UNSAFE_URL = re.compile(r"[\s\"'<>\\`\x00-\x1f\x7f]")
# A remote on github.com, as git spells one: https (maybe with a user), scp-like ssh, ssh://.
_GITHUB_REMOTE = re.compile(
    r"(?:https?://(?:[^@/\s]+@)?github\.com/|git@github\.com:|ssh://git@github\.com/)"
    r"([A-Za-z0-9-]+)/([A-Za-z0-9_.-]+?)(?:\.git)?/?"
)


def url_problem(url: str, *, relative: bool = False) -> str | None:
    """What keeps ``url`` from being a link (None: it may be one), as the end of a sentence
    naming it: a plain http(s) URL with a host, or with ``relative`` also a path that names
    no scheme (``docs/``, ``/changelog/``, ``../x``; never ``//host`` or ``javascript:``)."""
    if not url:
        return "is empty"
    if _UNSAFE_URL.search(url):
        return "holds a space, quote, '<', '>', backslash, backtick or control character"
    try:
        parts = urlsplit(url)
        _ = parts.port  # a bad port raises ValueError only when read
    except ValueError as exc:  # urlsplit: "Invalid IPv6 URL" for a stray '[', a bad port
        return f"cannot be read as a URL ({str(exc)[:80]})"
    if any(c in parts.path + parts.query + parts.fragment for c in "[]"):
        return "holds '[' or ']' outside an IPv6 host (write them as %5B and %5D)"
    if relative and not url.startswith("//") and ":" not in url.split("/", 1)[0]:
        return None
    if parts.scheme.lower() not in ("http", "https"):
        return "is not an http(s) URL (javascript:, data: and other schemes are never linked)"
    if not parts.hostname:
        return "has no host"
    if "@" in parts.netloc:
        return "holds a user name or password (the config is public: leave them out)"
    return None


def repo_blob_base(repo_url: Any, commit: str | None, prefix: str = "") -> str | None:
    """``<repo_url>/blob/<commit>/<prefix>``, or None unless ``repo_url`` is a plain http(s)
    URL and ``commit`` a full commit id (``prefix``: the project's folder in the repository)."""
    if not isinstance(repo_url, str) or commit is None or not _COMMIT.fullmatch(commit):
        return None
    url = repo_url.strip().rstrip("/").removesuffix(".git")
    if url_problem(url) is not None:
        return None
    parts = urlsplit(url)
    if parts.query or parts.fragment:
        return None
    return f"{url}/blob/{commit}/{quote(prefix.strip('/') + '/', safe='/') if prefix else ''}"


def linkable(repo_url: Any) -> bool:
    """Can files be linked on the host of ``repo_url`` (a plain http(s) URL)?"""
    return repo_blob_base(repo_url, "0" * 40) is not None


def pages_project_url(remote_url: str) -> str | None:
    """The GitHub Pages address of the repository at git remote ``remote_url`` when it is a
    project site, served under a sub-path (``https://owner.github.io/repo/``); None for a user
    or organization site (``owner.github.io``, served at the root) and for other hosts."""
    match = _GITHUB_REMOTE.fullmatch(remote_url.strip())
    if match is None:
        return None
    owner, repo = match[1].lower(), match[2]
    if repo.lower() == f"{owner}.github.io":
        return None
    return f"https://{owner}.github.io/{repo}/"
