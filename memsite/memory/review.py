"""`memsite review`: every finding, assembled in the order the checks run (the store's own
files, entry files, compaction, the pass over the facts' texts, dates, anchors, staleness,
expiry);
the rules and messages of each kind are ``core.review``'s.

The pass over the texts (secrets, near duplicates, conflicts) is most of a review's time: its
secret verdicts are cached per entry file and text, and a portal build runs it in a forked
child (:func:`findings_later`) while the parent writes pages.
"""

from __future__ import annotations

import hashlib
import zlib
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from datetime import datetime
from typing import TYPE_CHECKING, Any, NamedTuple

from memsite.core import review as rules
from memsite.core import review_conflicts as conflict_rules
from memsite.core.records import VERIFY, Record
from memsite.core.review import Finding
from memsite.core.schema import ACTIVE
from memsite.core.standing import overdue
from memsite.core.text import counted
from memsite.errors import MemsiteError

if TYPE_CHECKING:
    from memsite.core.entry import Entry
    from memsite.memory import Memory
    from memsite.memory.derived import Report
    from memsite.parallel import Task


class ScanFindings(NamedTuple):
    """The findings that take one pass over every fact's text (most of a review's time):
    near-duplicates by category, conflicts, the secret scan's by entry file, and a digest of
    the entries the pass saw with their statuses (:func:`seen_digest`)."""

    near_duplicates: dict[str, list[Finding]]
    conflicts: list[Finding]
    secrets: dict[str, list[Finding]]
    seen: int


def findings(
    memory: Memory, scanned: ScanFindings | None = None, own: Report | None = None
) -> list[Finding]:
    """Every finding of a review, in the order it shows them. ``scanned``: the text pass,
    made already (by :func:`scan_findings_from_index`, in a build worker); it is used only if
    it saw the same entries with the same statuses as this read of the store. ``own``: the
    store's own files, looked at already (``derived.report``)."""
    from memsite.memory import derived
    from memsite.memory.windows import expired_findings

    state = memory.state()
    result = state.result
    if scanned is None or scanned.seen != seen_digest(result.status.items()):
        kept = ((e, result.status[e.id]) for e in result.entries)
        scanned = scan_findings(memory, kept, state.scan.records, result.by_id.__getitem__)
    found = derived.findings(own or derived.report(memory))
    found += rules.invalid_file_findings((f.filename, f.message) for f in state.scan.invalid)
    found += result.findings
    found += [f for c in result.categories for f in scanned.near_duplicates.get(c, ())]
    found += rules.unknown_category_findings(result.entries, memory.config.categories)
    found += [f for e in result.entries for f in scanned.secrets.get(e.filename, ())]
    found += rules.future_findings(result.entries, memory.now())
    found += scanned.conflicts
    found += drift_findings(memory)
    found += stale_findings(memory)
    found += expired_findings(memory)
    found += _held_findings(memory)
    return found


def _held_findings(memory: Memory) -> list[Finding]:
    """The facts the trust gate holds back from agents (``memory.trust``)."""
    from memsite.core.trust import held_findings
    from memsite.memory.trust import current

    gate = current(memory)
    if not gate.held:
        return []
    by_id = memory.state().result.by_id
    files = {i: by_id[i].filename for i in gate.held if i in by_id}
    return held_findings(gate.held, files, gate.survey.ref)


def report(memory: Memory, full: bool = False) -> dict[str, Any]:
    """`memsite review`'s answer; ``full`` re-reads every entry file first (finds files
    edited in place)."""
    if full:
        memory.invalidate()
        memory.model.synced(full=True)
    return {"findings": [f.as_dict() for f in findings(memory)]}


def secret_findings(memory: Memory, only: list[Entry] | None = None) -> list[Finding]:
    """Entries (``only`` these, else all) whose full detect-secrets scan finds something,
    allowed ones apart."""
    entries = memory.state().result.entries if only is None else only
    by_file = _secret_scan(memory, entries)
    return [f for e in entries for f in by_file.get(e.filename, ())]


def seen_digest(statuses: Iterable[tuple[str, str]]) -> int:
    """A digest of (entry id, status) pairs, in any order: the sum of :func:`_pair_digest`."""
    return sum(_pair_digest(entry_id, status) for entry_id, status in statuses) & _DIGEST_MASK


_DIGEST_MASK = (1 << 64) - 1


def _pair_digest(entry_id: str, status: str) -> int:
    pair = f"{entry_id} {status}".encode("utf-8", "surrogatepass")
    return int.from_bytes(hashlib.blake2b(pair, digest_size=8).digest(), "big")


def scan_findings(
    memory: Memory,
    kept: Iterable[tuple[Entry, str]],
    records: Iterable[Record],
    entry_of: Callable[[str], Entry],
) -> ScanFindings:
    """The text pass over ``kept`` (every entry the compaction keeps, with its status, in any
    order; each may be dropped once seen): the secrets of each, and each category's active
    facts kept only as what a finding shows of them for the near-duplicates and conflicts,
    which are remembered by category (``memory.scanmemo``). ``entry_of`` gives the entry of
    an id a finding names."""
    from memsite.memory.scanmemo import Shown, category_findings, shown

    active: dict[str, list[Shown]] = {}
    digest = [0]  # seen_digest of the pairs met, summed as they come (not all held)

    def seen() -> Iterator[Entry]:
        for entry, status in kept:
            digest[0] += _pair_digest(entry.id, status)
            if status == ACTIVE:
                active.setdefault(entry.category, []).append(shown(entry))
            yield entry

    secrets = _secret_scan(memory, seen())
    silenced, stated = conflict_rules.relation_pairs(records)
    near, conflicts = category_findings(memory, active, silenced | stated, entry_of)
    ids = {item[0] for facts in active.values() for item in facts}
    return ScanFindings(
        near,
        conflicts + conflict_rules.stated_conflicts(stated, ids, entry_of),
        secrets,
        digest[0] & _DIGEST_MASK,
    )


def scan_findings_from_index(memory: Memory, ready: Callable[[], bool]) -> ScanFindings | None:
    """:func:`scan_findings` over the index's rows, read one at a time on a connection of its
    own, once ``ready()`` says the index is up to date (None if it never is, or is not a file).

    A build runs this in a child forked before the store is read: a child forked later shares
    the parent's entries, and either side touching one copies the page it is on (about 300 MB
    at 100k entries)."""
    if not ready():
        return None
    snapshot = memory.model.index.snapshot()
    if snapshot is None:
        return None
    with snapshot:
        rows, records = snapshot.kept_entries(), snapshot.records()
        return scan_findings(memory, rows, records, snapshot.kept_entry)


def _secret_scan(memory: Memory, entries: Iterable[Entry]) -> dict[str, list[Finding]]:
    """The secret findings of each of ``entries``, by entry file (those with some).

    The full scan costs ~0.2 ms a text, so its verdicts are cached per entry file and text;
    the ids it flagged are kept too, so that index.md redacts them with the full scan.
    """
    from memsite.core.secrets import allowed_findings, entry_findings, is_allowed

    caches = memory.model.caches
    cached = caches.load_verdicts()
    fresh: dict[str, tuple[int, list[str]]] = {}
    found: dict[str, list[Finding]] = {}
    for entry in entries:
        digest = zlib.crc32(repr(sorted(entry.raw.items())).encode("utf-8", "replace"))
        hit = cached.get(entry.filename)
        if hit is not None and hit[0] == digest:
            messages = hit[1]
        elif is_allowed(entry.raw):
            messages = allowed_findings(entry.raw)
        else:
            messages = [message for _, message in entry_findings(entry.raw)]
        fresh[entry.filename] = (digest, messages)
        if messages:
            found[entry.filename] = rules.secret_findings(
                entry, messages, allowed=is_allowed(entry.raw)
            )
    if fresh != cached:
        caches.save_verdicts(fresh)
    flagged = {e.ids[0] for found_here in found.values() for e in found_here if e.kind == "secret"}
    if flagged != caches.flagged():
        caches.save_flagged(flagged)
    return found


def refuse_unreviewed_secrets(memory: Memory, action: str) -> None:
    """Stop ``action`` (a publishing command) while a suspected secret is in the memory."""
    ids = sorted({f.ids[0][:8] for f in secret_findings(memory) if f.kind == "secret"})
    if ids:
        shown = ", ".join(ids[:10]) + (f" and {len(ids) - 10} more" if len(ids) > 10 else "")
        raise MemsiteError(
            f"{action} refuses to publish: {counted(len(ids), 'entry')} "
            f"{'holds a suspected secret' if len(ids) == 1 else 'hold suspected secrets'} "
            f"({shown}); see `memsite review`, then delete each (rotate the credential if it "
            "reached git), or have a person rewrite a reviewed false positive with --allow-secret"
        )


def conflict_findings(memory: Memory, only: Iterable[str] | None = None) -> list[Finding]:
    """``possible_conflict`` findings over the active facts (``only``: pairs with one of these
    ids): ``core.review_conflicts.conflict_findings`` over this operation's state."""
    state = memory.state()
    result = state.result
    per_category: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for entry in result.entries:
        if result.status[entry.id] == ACTIVE:
            per_category[entry.category].append((entry.id, entry.normalized))
    entry_of = result.by_id.__getitem__
    return conflict_rules.conflict_findings(per_category, state.scan.records, entry_of, only)


def _active_state(memory: Memory) -> tuple[list[Entry], list[Record]]:
    """The active entries and every record, as this operation's state holds them (review
    works from one snapshot, and may run on another thread than the one that opened the
    index)."""
    state = memory.state()
    result = state.result
    return [e for e in result.entries if result.status[e.id] == ACTIVE], state.scan.records


def drift_findings(memory: Memory) -> list[Finding]:
    """Active facts whose anchored files changed since they were pinned."""
    from memsite.memory.anchors import standings

    active, records = _active_state(memory)
    entries = [e for e in active if e.raw.get("anchors")]  # re-pinning keeps them anchored
    every = standings(memory, entries, records) if entries else {}
    found = []
    for entry in entries:
        drifted = [(a, s) for a, s in every[entry.id].anchors if s.drifted]
        if drifted:
            found.append(rules.drift(entry, drifted))
    return found


def stale_findings(memory: Memory) -> list[Finding]:
    """Active facts neither written nor verified within memory.reviewAfterDays, oldest first."""
    if memory.config.review_after is None:
        return []
    active, records = _active_state(memory)
    verified: dict[str, datetime] = {}
    for record in records:
        if record.kind == VERIFY:
            verified[record.target] = max(
                record.created, verified.get(record.target, record.created)
            )
    today = memory.now().date()
    stale = []
    for entry in active:
        confirmed = max(entry.created, verified.get(entry.id, entry.created))
        days = overdue(memory.config.review_days(entry.category), confirmed.date(), today)
        if days is not None:
            stale.append((confirmed, entry.id, entry, days))
    ordered = sorted(stale, key=lambda item: (item[0], item[1]))
    return [rules.stale(entry, confirmed, days) for confirmed, _, entry, days in ordered]


class Later:
    """The findings of a review, made while the caller does other work (see
    :func:`findings_later`)."""

    def __init__(self, memory: Memory, task: Task[ScanFindings | None] | None) -> None:
        self._memory = memory
        self._task = task

    def result(self) -> list[Finding]:
        scanned = self._task.result() if self._task is not None else None
        return findings(self._memory, scanned)


def findings_later(memory: Memory, fork: bool) -> Later:
    """Start a review's text pass in a forked child (``fork``), then bring the index up to
    date here: the child reads the index's rows on its own once it is (a child forked after
    the store is read would share the entries, and either side touching one copies its memory
    page). ``result()`` gives every finding, the child's pass used if it saw this state."""
    from memsite.parallel import Gate, Task, freeze_for_fork

    task: Task[ScanFindings | None] | None = None
    with Gate() as gate:
        if fork:
            task = Task(scan_findings_from_index, memory, gate.wait, fork=freeze_for_fork())
        gate.open(not memory.index().in_memory)
    return Later(memory, task)
