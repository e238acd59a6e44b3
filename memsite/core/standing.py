"""What is known of a fact beyond its status: its anchors' state today, its verifications, its
typed links, whether it went stale, whether it holds now (its validity window: expired or
upcoming), and the marker index.md gives it. Pure.

The memory layer reads the records and hashes the project's files (``memory.anchors``); the
rules that turn them into a fact's standing are here, so that the CLI, MCP and the portal show
one and the same answer.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from datetime import date, datetime
from typing import TYPE_CHECKING, Any

from memsite.core.anchors import RENAMED, Anchor, Located
from memsite.core.entry import Entry, Window, is_day
from memsite.core.plain import Plain
from memsite.core.records import RELATE, VERIFY, Record

if TYPE_CHECKING:  # the review's rules load only with the review (not on every `add`)
    from memsite.core.review import Finding

EXPIRED = "expired"  # past its valid_to
UPCOMING = "upcoming"  # before its valid_from


class Standing(Plain):
    """What is known of one fact beyond its status. (A plain class: see ``core.plain``.)"""

    __slots__ = (
        "anchors",
        "confirmed",
        "links",
        "stale",
        "valid_from",
        "valid_to",
        "verified",
        "window",
    )
    COMPARED = __slots__

    def __init__(
        self,
        anchors: list[tuple[Anchor, Located]] | None = None,
        verified: list[Record] | None = None,
        links: list[dict[str, Any]] | None = None,
        stale: bool = False,
        confirmed: datetime | None = None,
        window: str | None = None,
        valid_from: str | None = None,
        valid_to: str | None = None,
    ) -> None:
        self.anchors = [] if anchors is None else anchors
        self.verified = [] if verified is None else verified
        self.links = [] if links is None else links
        self.stale = stale
        self.confirmed = confirmed  # written or last verified
        self.window = window  # EXPIRED, UPCOMING, or None: it holds now (or has no window)
        self.valid_from = valid_from  # the window as the entry gives it
        self.valid_to = valid_to

    @property
    def drifted(self) -> bool:
        return any(state.drifted for _, state in self.anchors)

    def marker(self) -> str:
        """What index.md adds to the fact's line so that an agent checks before relying on it."""
        drifted = [(a, s) for a, s in self.anchors if s.drifted]
        if drifted:
            anchor, state = drifted[0]
            what = f"renamed to {state.path}" if state.state == RENAMED else state.state
            more = f" +{len(drifted) - 1}" if len(drifted) > 1 else ""
            return f" (check: {anchor.path} {what}{more})"
        if self.stale and self.confirmed is not None:
            return stale_marker(self.confirmed.date())
        return ""

    def fields(self) -> dict[str, Any]:
        """JSON additions on an entry: present only when they apply."""
        extra: dict[str, Any] = {}
        if self.drifted:
            extra["drifted"] = True
        if self.stale:
            extra["stale"] = True
        if self.window is not None:
            extra[self.window] = True
        if self.verified:
            extra["verified"] = self.verified[-1].raw["created"]
        return extra

    def anchor_report(self) -> list[dict[str, Any]]:
        return [anchor_json(a, s) for a, s in self.anchors]


def anchor_json(anchor: Anchor, state: Located) -> dict[str, Any]:
    item: dict[str, Any] = anchor.as_dict()
    item["state"] = state.state
    if state.path is not None:
        item["now_path"] = state.path
    if state.lines is not None and state.lines != anchor.lines:
        item["now_lines"] = list(state.lines)
    return item


def current_anchors(entry: Entry, records: Sequence[Record]) -> tuple[Anchor, ...]:
    """The entry's anchors, or those of its latest re-pinning verification."""
    pinned = [r for r in records if r.kind == VERIFY and r.target == entry.id and r.anchors]
    return pinned[-1].anchors if pinned else entry.anchors


def links_of(entry_id: str, records: Iterable[Record]) -> list[dict[str, Any]]:
    """The fact's links both ways, one per (other fact, type, direction): the newest reason."""
    links: dict[tuple[str, str, str], dict[str, Any]] = {}
    for record in records:
        if record.kind != RELATE or record.other is None or record.other == record.target:
            continue
        if record.target == entry_id:
            key = (record.other, record.link or "", "out")
        elif record.other == entry_id:
            key = (record.target, record.link or "", "in")
        else:
            continue
        links[key] = {
            "id": key[0],
            "type": key[1],
            "direction": key[2],
            "reason": record.text,
            "created": record.raw["created"],
        }
    return sorted(links.values(), key=lambda link: (link["type"], link["direction"], link["id"]))


def stale_marker(confirmed: date) -> str:
    """index.md's marker of a fact nobody confirmed within its review period."""
    return f" (unconfirmed since {confirmed.isoformat()})"


def overdue(days: int | None, confirmed: date, today: date) -> int | None:
    """The review period (``days``) a fact last written or verified on ``confirmed`` has
    outlived, or None: the one rule of staleness."""
    return days if days is not None and (today - confirmed).days > days else None


def about_each(records: Iterable[Record]) -> dict[str, list[Record]]:
    """The records that name each fact, as target or as the other end of a link, in order."""
    about: dict[str, list[Record]] = defaultdict(list)
    for record in records:
        about[record.target].append(record)
        if record.other is not None:
            about[record.other].append(record)
    return about


def confirmed_at(entry: Entry, records: Sequence[Record]) -> datetime:
    """When the fact was written or last verified (``records``: those about it)."""
    verified = [r.created for r in records if r.kind == VERIFY and r.target == entry.id]
    return max([entry.created, *verified])


def window_state(window: Window, now: datetime) -> str | None:
    """Does a fact with this validity window hold at ``now``? EXPIRED once its end has come,
    UPCOMING before its start, None while it holds: the one rule, judged when it is read."""
    if window.end is not None and now >= window.end:
        return EXPIRED
    if window.start is not None and now < window.start:
        return UPCOMING
    return None


def expired(entry: Entry) -> Finding:
    """An active fact whose validity window closed (review's ``expired`` kind; the rule of
    this fact's standing, so it lives here beside it)."""
    from memsite.core.review import Finding

    end, value = entry.window.end, str(entry.raw.get("valid_to", ""))
    when = f"at {end:%Y-%m-%d %H:%M} UTC" if end and not is_day(value) else f"at the end of {value}"
    return Finding(
        "expired",
        (entry.id,),
        (entry.filename,),
        f"{entry.short_id}: expired {when} (valid_to): it is left out of the index; amend it "
        f"with a later --valid-to if it still holds, or retire it",
    )
