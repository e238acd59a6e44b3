"""Links memsite builds from configured URLs: a file on the repository host at a commit. Pure.

A URL comes from the config, which arrives through git like the entries: only a plain http(s)
URL with a host and no query, fragment, space, quote or control character is linked to.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote, urlsplit

_COMMIT = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")


_UNSAFE_URL = re.compile(r"[\s\"'<>\\`\x00-\x1f\x7f]")


def repo_blob_base(repo_url: Any, commit: str | None, prefix: str = "") -> str | None:
    """``<repo_url>/blob/<commit>/<prefix>``, or None unless ``repo_url`` is a plain http(s)
    URL and ``commit`` a full commit id (``prefix``: the project's folder in the repository)."""
    if not isinstance(repo_url, str) or commit is None or not _COMMIT.fullmatch(commit):
        return None
    url = repo_url.strip().rstrip("/").removesuffix(".git")
    if _UNSAFE_URL.search(url):
        return None
    parts = urlsplit(url)
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
        return None
    if parts.query or parts.fragment:
        return None
    return f"{url}/blob/{commit}/{quote(prefix.strip('/') + '/', safe='/') if prefix else ''}"


def linkable(repo_url: Any) -> bool:
    """Can files be linked on the host of ``repo_url`` (a plain http(s) URL)?"""
    return repo_blob_base(repo_url, "0" * 40) is not None
