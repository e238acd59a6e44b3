"""What the portal shows of a fact's origin and of the trust gate: who added it, in which
commit, with what signature, whether the reviewed ref holds it, and why agents are not given it
when the gate holds it back (``core.trust``). Pure.

The memory gives each entry's ``provenance``, ``trust`` and ``held_back`` once per build
(``memory.portal_input``); :func:`origins_of` turns them into :class:`Origin` values here, and
``derive.build_portal`` redacts their author names with everything else.

An author's email is never shown: a published portal would hand every author's address to
whoever harvests pages, and git does not vouch for it (anyone can commit as any address). The
commit, linked on the repository host, is where a reader who needs it can look. An author's
name is chosen by whoever made the commit: it is untrusted text like an entry's, shown
escaped, without control or invisible characters.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from memsite.core.trust import HIDDEN_TEXT, LOCAL, REVIEWED, SUSPICIOUS, UNREVIEWED
from memsite.core.urls import repo_blob_base

# git's %G? letters, in words (N, no signature, shows nothing). As git checked them where the
# portal was built: a CI runner without the signers' keys says E.
SIGNATURES = {
    "G": "Good signature",
    "B": "Bad signature",
    "U": "Good signature of unknown validity",
    "X": "Good signature, expired",
    "Y": "Good signature by an expired key",
    "R": "Good signature by a revoked key",
    "E": "Signature cannot be checked (missing key)",
}
_COMMIT = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
_DATE = re.compile(r"(\d{4}-\d\d-\d\d)T(\d\d:\d\d):\d\d(?:\.\d+)?(Z|[+-]\d\d:\d\d)")


def commit_href(repo_url: Any, commit: str) -> str | None:
    """``<repo_url>/commit/<commit>``, or None unless ``repo_url`` is a URL files are linked
    on (``core.urls.repo_blob_base`` says which) and ``commit`` a full commit id."""
    base = repo_blob_base(repo_url, commit)
    return None if base is None else base.removesuffix(f"blob/{commit}/") + f"commit/{commit}"


class Origin(NamedTuple):
    """Where one fact came from and whether agents get it (a tuple: compared cheaply when a
    rebuild looks for pages to write again)."""

    trust: str | None  # reviewed, local or unreviewed; None: trust is off
    ref: str | None  # the reviewed ref
    held: str | None  # why the gate keeps it from agents (None: it does not)
    author: str | None  # the author of the commit that added its file (None: uncommitted)
    commit: str | None
    commit_href: str | None
    date: str | None  # the commit's author date, ISO 8601 as git gives it
    signature: str | None  # git's %G? letter

    @property
    def short_commit(self) -> str:
        return (self.commit or "")[:7]

    @property
    def when(self) -> str:
        """``2026-05-01 10:00 +02:00`` (``UTC`` for a zero offset)."""
        found = _DATE.fullmatch(self.date or "")
        if found is None:
            return ""
        day, time, zone = found.groups()
        return f"{day} {time} {'UTC' if zone in ('Z', '+00:00') else zone}"

    @property
    def signature_label(self) -> str | None:
        return SIGNATURES.get(self.signature or "N")

    @property
    def trust_label(self) -> str | None:
        """The file's trust in words (None: trust is off)."""
        if self.trust == REVIEWED:
            return f"Reviewed: on {self.ref}" if self.ref else "Reviewed"
        if self.trust == LOCAL:
            return "Written in this clone, not pushed yet"
        if self.trust == UNREVIEWED:
            return f"Not reviewed: {self.ref or 'the reviewed ref'} does not hold it as it is here"
        return None

    @property
    def held_label(self) -> str:
        """Why it is held back, in a few words: ``not reviewed``, ``hidden text`` or
        ``suspicious: <rule>``."""
        kind, _, rule = (self.held or "").partition(":")
        if kind == SUSPICIOUS:
            return f"suspicious: {rule}" if rule else "suspicious"
        return {HIDDEN_TEXT: "hidden text", UNREVIEWED: "not reviewed"}.get(kind, kind)

    @property
    def held_reason(self) -> str:
        """Why it is held back, as the end of a sentence "Agents are not given it, because"."""
        from memsite.core.directives import RULES

        kind, _, rule = (self.held or "").partition(":")
        if kind == HIDDEN_TEXT:
            return (
                "its text holds invisible or direction-changing characters, which can carry "
                "instructions a reader never sees"
            )
        if kind == SUSPICIOUS:
            what = RULES.get(rule)
            return f"its text reads as a directive ({rule}{': ' + what if what else ''})"
        return (
            f"{self.ref or 'the reviewed ref'} does not hold it as it is here: nobody reviewed "
            "it (merged from a branch that was not, written by another tool or edited by hand)"
        )


def _author(value: Any) -> str | None:
    from memsite.core.hidden import strip_hidden
    from memsite.core.text import printable

    if not isinstance(value, str):
        return None
    return printable(strip_hidden(value)).strip() or "(no name)"


def origin_of(shown: Mapping[str, Any], ref: str | None, repo_url: Any) -> Origin | None:
    """The origin of one fact from its ``trust`` fields (``memory.trust.fields_of``); None
    when there is nothing to show (trust off, no commit)."""
    made = shown.get("provenance")
    trust = shown.get("trust")
    held = shown.get("held_back")
    if not isinstance(made, Mapping):
        made = {}
    commit = made.get("commit")
    commit = commit if isinstance(commit, str) and _COMMIT.fullmatch(commit) else None
    author = _author(made.get("author")) if commit else None
    if trust is None and held is None and commit is None:
        return None
    date = made.get("date")
    signature = made.get("signature")
    return Origin(
        trust=trust if isinstance(trust, str) else None,
        ref=ref,
        held=held if isinstance(held, str) and held else None,
        author=author,
        commit=commit,
        commit_href=commit_href(repo_url, commit) if commit else None,
        date=date if commit and isinstance(date, str) else None,
        signature=signature if commit and isinstance(signature, str) else None,
    )


def origins_of(
    trust: Mapping[str, Mapping[str, Any]], ref: str | None, repo_url: Any
) -> dict[str, Origin]:
    """Entry id → its origin, for the entries with one to show. Entries added by the same
    commit with the same trust share one value (at 100k entries most came in few commits)."""
    shared: dict[tuple[Any, ...], Origin | None] = {}
    out: dict[str, Origin] = {}
    for entry_id, shown in trust.items():
        made = shown.get("provenance")
        key = (
            tuple(made.values()) if isinstance(made, dict) else made,
            shown.get("trust"),
            shown.get("held_back"),
        )
        try:
            found = shared[key]
        except KeyError:
            found = shared[key] = origin_of(shown, ref, repo_url)
        except TypeError:  # an unhashable value: not from git, made on its own
            found = origin_of(shown, ref, repo_url)
        if found is not None:
            out[entry_id] = found
    return out


def redact_origins(origins: Mapping[str, Origin], text: Callable[[str], str]) -> dict[str, Origin]:
    """``origins`` with each author's name passed through ``text`` (each distinct origin
    once); an origin whose name it changes stays shared with the entries of its commit."""
    done: dict[Origin, Origin] = {}
    out = {}
    for entry_id, origin in origins.items():
        safe = done.get(origin)
        if safe is None:
            author = origin.author
            if author is not None and text(author) != author:
                safe = done[origin] = origin._replace(author=text(author))
            else:
                safe = done[origin] = origin
        out[entry_id] = safe
    return out
