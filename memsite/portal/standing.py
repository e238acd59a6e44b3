"""What the portal shows of a fact beyond its status: badges (stale, drifted, expired,
upcoming, verified), its validity window, its anchors and their state today, its typed links,
its verifications and its retirement. Pure.

The memory gives each fact's standing once per build (``memory.portal_input``);
:func:`claims_of` turns them into :class:`FactClaims` here, and ``derive.build_portal``
redacts them (:func:`redacted`) with everything else. Every value is hashable, so equal
claims render to equal HTML and the render caches stay warm.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING
from urllib.parse import quote

from memsite.core.anchors import CHANGED, DRIFTED, MISSING, RENAMED, Anchor, Located
from memsite.core.entry import format_created
from memsite.core.records import Record
from memsite.core.schema import ACTIVE, RETIRED
from memsite.core.standing import EXPIRED, UPCOMING, Standing

if TYPE_CHECKING:
    from memsite.core.compaction import Compaction

# How a link reads on each of its two pages: "<this fact> refines → X", "← refined by X".
LINK_PHRASES = {
    ("refines", "out"): "refines →",
    ("refines", "in"): "← refined by",
    ("supports", "out"): "supports →",
    ("supports", "in"): "← supported by",
    ("depends-on", "out"): "depends on →",
    ("depends-on", "in"): "← depended on by",
    ("conflicts-with", "out"): "conflicts with →",
    ("conflicts-with", "in"): "← conflicts with",
    ("distinct-from", "out"): "distinct from →",
    ("distinct-from", "in"): "← distinct from",
}
STATE_LABELS = {
    "unchanged": "Unchanged",
    "moved": "Moved",
    "changed": "Changed since it was pinned",
    "missing": "Missing: the file is gone",
    "renamed": "Renamed",
}


@dataclass(frozen=True, slots=True)
class AnchorView:
    """One anchor: where it was pinned, where it stands today, its file on the repo host."""

    path: str
    lines: str | None  # "START-END" as pinned
    state: str
    now_path: str | None = None  # renamed: the file's new path
    now_lines: str | None = None  # moved or renamed: where the lines are now
    href: str | None = None

    @property
    def label(self) -> str:
        return f"{self.path}:{self.lines}" if self.lines else self.path

    @property
    def state_label(self) -> str:
        return STATE_LABELS.get(self.state, self.state)

    @property
    def drifted(self) -> bool:
        return self.state in DRIFTED


@dataclass(frozen=True, slots=True)
class LinkRef:
    """A typed link seen from one of its two facts (``direction``: "out" or "in")."""

    other: str
    type: str
    direction: str
    reason: str | None = None

    @property
    def phrase(self) -> str:
        return LINK_PHRASES.get((self.type, self.direction), self.type)


@dataclass(frozen=True, slots=True)
class Dated:
    """A verification (``text``: its evidence) or a retirement (``text``: its reason)."""

    created: str  # RFC 3339, in UTC
    text: str | None = None
    agent: str | None = None

    @property
    def day(self) -> str:
        return self.created[:10]

    @property
    def when(self) -> str:
        return f"{self.created[:10]} {self.created[11:16]} UTC"


@dataclass(frozen=True, slots=True)
class FactClaims:
    """Everything beyond its status the portal shows of one fact (empty: nothing to show)."""

    stale: bool = False
    drifted: bool = False
    anchors: tuple[AnchorView, ...] = ()
    verifications: tuple[Dated, ...] = ()  # oldest first
    links: tuple[LinkRef, ...] = ()
    retired: Dated | None = None
    confirmed: str | None = None  # stale: the day it was written or last verified
    pinned: str | None = None  # drifted: the day of its last re-pinning (None: as written)
    expired: bool = False  # in force, but past its valid_to
    upcoming: bool = False  # in force, but before its valid_from
    valid_from: str | None = None  # its validity window, as the entry gives it
    valid_to: str | None = None

    @property
    def verified(self) -> str | None:
        """The day of the latest verification."""
        return self.verifications[-1].day if self.verifications else None

    @property
    def drifted_anchors(self) -> tuple[AnchorView, ...]:
        return tuple(a for a in self.anchors if a.drifted)

    @property
    def flags(self) -> tuple[tuple[str, bool], ...]:
        """What an entry's JSON file adds (as ``read --json`` does): present when they apply."""
        named = (
            ("drifted", self.drifted),
            ("stale", self.stale),
            (EXPIRED, self.expired),
            (UPCOMING, self.upcoming),
        )
        return tuple((name, True) for name, on in named if on)

    @property
    def badges(self) -> tuple[bool, bool, str | None, str | None]:
        """What cards show (the part of the claims an entry view carries): stale, drifted,
        verified, and EXPIRED or UPCOMING (None: it holds now)."""
        window = EXPIRED if self.expired else UPCOMING if self.upcoming else None
        return (self.stale, self.drifted, self.verified, window)


def _lines(lines: tuple[int, int] | None) -> str | None:
    return f"{lines[0]}-{lines[1]}" if lines is not None else None


def anchor_view(anchor: Anchor, state: Located, base: str | None) -> AnchorView:
    """The anchor as shown. Its link goes to where its text is now: the new path of a renamed
    file, the new lines of a moved span, the file alone when the lines are gone, nothing when
    the file is."""
    now_path = state.path if state.state == RENAMED else None
    moved = state.lines is not None and state.lines != anchor.lines
    href = None
    if base is not None and state.state != MISSING:
        lines = None if state.state == CHANGED else state.lines
        fragment = f"#L{lines[0]}-L{lines[1]}" if lines else ""
        href = base + quote(now_path or anchor.path, safe="/") + fragment
    return AnchorView(
        path=anchor.path,
        lines=_lines(anchor.lines),
        state=state.state,
        now_path=now_path,
        now_lines=_lines(state.lines) if moved else None,
        href=href,
    )


def fact_claims(
    standing: Standing,
    *,
    active: bool,
    retirement: Record | None = None,
    base: str | None = None,
) -> FactClaims:
    """The claims of one fact. Only a fact in force is stale, drifted, expired or upcoming: a
    badge on a superseded or retired one would send a reader to check what nobody relies on."""
    stale, drifted = active and standing.stale, active and standing.drifted
    window = standing.window if active else None
    repinned = [r for r in standing.verified if r.anchors]
    return FactClaims(
        stale=stale,
        drifted=drifted,
        confirmed=standing.confirmed.date().isoformat() if stale and standing.confirmed else None,
        pinned=format_created(repinned[-1].created)[:10] if drifted and repinned else None,
        anchors=tuple(anchor_view(a, s, base) for a, s in standing.anchors),
        verifications=tuple(_dated(r) for r in standing.verified),
        links=tuple(
            LinkRef(str(link["id"]), str(link["type"]), str(link["direction"]), link["reason"])
            for link in standing.links
        ),
        retired=_dated(retirement) if retirement is not None else None,
        expired=window == EXPIRED,
        upcoming=window == UPCOMING,
        valid_from=standing.valid_from,
        valid_to=standing.valid_to,
    )


def _dated(record: Record) -> Dated:
    return Dated(format_created(record.created), record.text, record.agent)


def redacted(claims: FactClaims, text: Callable[[str], str]) -> FactClaims:
    """``claims`` with every record- or entry-derived string passed through ``text``; an anchor
    whose path redaction changes loses its link (it would point at the unredacted path)."""

    if not (claims.anchors or claims.verifications or claims.links or claims.retired):
        return claims  # badges only: nothing to redact

    def opt(value: str | None) -> str | None:
        return None if value is None else text(value)

    anchors = []
    for anchor in claims.anchors:
        path, now_path = text(anchor.path), opt(anchor.now_path)
        same = path == anchor.path and now_path == anchor.now_path
        anchors.append(
            replace(anchor, path=path, now_path=now_path, href=anchor.href if same else None)
        )
    return replace(
        claims,
        anchors=tuple(anchors),
        verifications=tuple(
            replace(v, text=opt(v.text), agent=opt(v.agent)) for v in claims.verifications
        ),
        links=tuple(replace(link, reason=opt(link.reason)) for link in claims.links),
        retired=(
            None
            if claims.retired is None
            else replace(
                claims.retired, text=opt(claims.retired.text), agent=opt(claims.retired.agent)
            )
        ),
    )


def redact_all(
    claims: Mapping[str, FactClaims], text: Callable[[str], str]
) -> dict[str, FactClaims]:
    return {entry_id: redacted(c, text) for entry_id, c in sorted(claims.items())}


def claims_of(
    result: Compaction,
    standings: Mapping[str, Standing],
    retirements: Mapping[str, Record],
    base: str | None,
) -> dict[str, FactClaims]:
    """The claims of every fact whose standing has something to show (``base``: where its
    anchored files are linked)."""
    claims = {}
    for entry_id, standing in standings.items():
        status = result.status[entry_id]
        claim = fact_claims(
            standing,
            active=status == ACTIVE,
            retirement=retirements.get(entry_id) if status == RETIRED else None,
            base=base,
        )
        if claim != FactClaims():
            claims[entry_id] = claim
    return claims
