"""The memory as of a date or a git ref: what the project knew then.

``--as-of`` names a point in the past. A date (ISO 8601; a day means its end, in UTC) means
the entry files written up to then; a git ref (tag, branch, commit) means the entry files in
that commit's tree. Either way the answer is a store of those files alone (``storage.cuts``),
which ``Memory.as_of`` opens and reads with the same code as today's, on the point's clock
(the date, or the commit's date): statuses, supersessions, retirements, approvals, staleness
and validity windows are what compaction gave then. Trust and provenance are judged by
today's git: an agent is shown only what the team reviewed.

A date reads today's entry files (one deleted since is not there; a ref has it). A text that
reads as a date is a date, even when a ref has the same name.
"""

from __future__ import annotations

import os
import re
from datetime import UTC, datetime, time, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from memsite.core.config import Config
from memsite.errors import InvalidInputError
from memsite.storage.entries import entry_inodes
from memsite.storage.layout import Store

if TYPE_CHECKING:
    from memsite.memory import Memory

GIVEN_MAX = 200
# An entry file's name starts with its creation time: 2026-11-30T13-20-49Z-….json
_NAME_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d-\d\d-\d\dZ-")
_DAY = re.compile(r"\d{4}-\d\d-\d\d")
_DATE_LIKE = re.compile(r"\d{4}-\d\d(-\d\d)?([T ].*)?")


class Point(NamedTuple):
    """The past state asked for: ``kind`` "date" or "ref", the text given, the instant the
    memory is read at, and the commit (refs only)."""

    kind: str
    given: str
    instant: datetime
    commit: str | None = None

    def json(self) -> dict[str, Any]:
        found: dict[str, Any] = {"kind": self.kind, "given": self.given}
        if self.commit is not None:
            found["commit"] = self.commit
        found["time"] = self.instant.isoformat().replace("+00:00", "Z")
        return found

    def clock(self) -> datetime:
        return self.instant

    def line(self) -> str:
        """One line for people: which past state the answer is."""
        when = self.instant.strftime("%Y-%m-%d %H:%M:%S UTC")
        if self.commit is None:
            return f"As of {when}: the entries written by then, valid then."
        return (
            f"As of {self.given} (commit {self.commit[:12]}, {when}): the entry files in its "
            "tree, valid then."
        )


def _instant(text: str) -> datetime | None:
    """The instant a date names (a day: its last second), None when ``text`` is no date."""
    if _DAY.fullmatch(text):
        try:
            day = datetime.fromisoformat(text).date()
        except ValueError:
            return None
        return datetime.combine(day, time(23, 59, 59), UTC)
    try:
        found = datetime.fromisoformat(text)
        return found.replace(tzinfo=UTC) if found.tzinfo is None else found.astimezone(UTC)
    except (ValueError, OverflowError):  # not a date, or one UTC cannot hold (year 0, 10000)
        return None


def past(memory: Memory, given: str) -> Past:
    """The past state ``given`` names (see the module's docstring)."""
    text = given.strip()
    if not text or len(text) > GIVEN_MAX or any(ord(c) < 32 or ord(c) == 127 for c in text):
        raise InvalidInputError(
            f"invalid --as-of {given[:80]!r}: give a date (YYYY-MM-DD, or an ISO 8601 time) "
            "or a git ref (tag, branch, commit)"
        )
    instant = _instant(text)
    if instant is not None:
        return _at_date(memory, text, instant)
    if _DATE_LIKE.fullmatch(text):
        raise InvalidInputError(
            f"invalid date {text[:80]!r} for --as-of: use YYYY-MM-DD or an ISO 8601 time "
            f"(2026-03-31T12:00:00Z); a tag of that name is refs/tags/{text[:80]}"
        )
    return at_ref(memory, text)


def _at_date(memory: Memory, text: str, instant: datetime) -> Past:
    from memsite.storage import cuts

    now = memory.now()
    if instant > now:
        if _DAY.fullmatch(text) and instant - now < timedelta(days=1):
            instant = now  # today: up to now
        else:
            raise InvalidInputError(
                f"--as-of {text} is in the future: leave out --as-of for the memory as it is now"
            )
    instant = instant.replace(microsecond=0)
    memory.index()  # the store's read model up to date: the past state's starts as its copy
    bound = _name_time(instant)
    wanted, first, last = [], None, ""
    for name, path, inode in entry_inodes(memory.store):
        written = name[:20] if _NAME_TIME.match(name) else _created(path)
        if written is not None and (first is None or written < first):
            first = written
        if written is None or written <= bound:
            wanted.append((name, inode))
            last = max(last, written or "")
    if not wanted:
        since = f": the first was written {_shown(first)}" if first else ""
        raise InvalidInputError(f"no entry had been written by {text}{since}")
    # Named by its newest file, not by the date: every date up to the next file reads the
    # same files, so "as of today", asked again, finds the state it made.
    store = cuts.at_date(memory.store, wanted, f"d-{last or bound}")
    return Past(store, memory.config, Point("date", text, instant))


def _name_time(moment: datetime) -> str:
    """``moment`` as entry file names start with it (``core.entry.filename_for``)."""
    from memsite.core.entry import filename_for

    return filename_for(moment, "")[:20]


def _created(path: str) -> str | None:
    """The creation time of an entry file whose name does not give it, spelled as names
    give it; None when unreadable (it is kept: review reports it, as today)."""
    import json

    from memsite.core.entry import MAX_ENTRY_BYTES, parse_created
    from memsite.storage.entries import load

    data, _ = load(path, MAX_ENTRY_BYTES)
    try:
        return _name_time(parse_created(json.loads(data or b"").get("created")))
    except (ValueError, TypeError, AttributeError, RecursionError):
        return None


def _shown(name_time: str) -> str:
    day, clock = name_time[:10], name_time[11:19].replace("-", ":")
    return f"{day} {clock} UTC"


def at_ref(memory: Memory, ref: str) -> Past:
    """The past state at the commit ``ref`` names (a date-like text too: a release's tag)."""
    from memsite.core.config import parse_config_text
    from memsite.errors import ConfigError, GitError
    from memsite.storage import cuts, git

    store = memory.store
    try:
        top = git.repo_top(store.project_root)
    except GitError:
        raise InvalidInputError(
            f"--as-of {ref[:80]!r} is no date, and a git ref needs git: this store is not in a "
            "git work tree (give a date as YYYY-MM-DD)"
        ) from None
    found = git.commit_and_date(top, ref)
    if found is None:
        why = "give a tag, branch or commit, or a date as YYYY-MM-DD"
        if git.is_shallow(top):
            why = (
                "this clone is shallow and may lack it: fetch it (`git fetch --unshallow`, or "
                f"`git fetch origin tag {ref[:80]}`)"
            )
        raise InvalidInputError(f"no git ref or date {ref[:80]!r}: {why}")
    commit, seconds = found
    folder, config_path = tree_paths(store, top)
    found_store = cuts.at_commit(store, top, commit, folder, config_path)
    if found_store is None:
        raise InvalidInputError(
            f"{ref[:80]} (commit {commit[:12]}) has no memory: {folder}/ is not in its tree"
        )
    config = Config()
    if found_store.config_path.is_file():
        text = found_store.config_path.read_text(encoding="utf-8", errors="replace")
        try:
            config = parse_config_text(text, f"{config_path} at {ref[:80]}", foreign=store.leanspec)
        except ConfigError as exc:
            raise ConfigError(f"{exc} (the config of the past state asked for)") from None
    try:
        instant = datetime.fromtimestamp(int(seconds), UTC)
    except (ValueError, OverflowError, OSError):
        raise InvalidInputError(
            f"{ref[:80]} (commit {commit[:12]}) has a commit time no calendar holds "
            f"({seconds[:40]!r}): give a date with --as-of instead"
        ) from None
    return Past(found_store, config, Point("ref", ref, instant, commit))


def tree_paths(store: Store, top: Path) -> tuple[str, str]:
    """Where the store's entries/ folder and config file are in a commit's tree of ``top``."""
    folder, config = (os.path.relpath(p, top) for p in (store.entries_dir, store.config_path))
    return folder.replace(os.sep, "/"), config.replace(os.sep, "/")


class Past(NamedTuple):
    """A past state to open: its store, its config and which point it is."""

    store: Store
    config: Config
    point: Point
