"""What is said about a fact, each a record file of its own beside the entries (a fact is
never edited): `verify` (it still holds; drifted anchors pinned again), `retire` (withdrawn
without a successor), `relate` (a typed link to another fact), `approve` (a held-back fact
may reach agents). See ``core.records``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memsite.core.anchors import Anchor
from memsite.core.records import APPROVE, LINK_TYPES, RELATE, RETIRE, VERIFY, build_record
from memsite.core.secrets import refuse_secrets
from memsite.errors import InvalidInputError, MemsiteError
from memsite.memory.anchors import repin as repin_anchors
from memsite.memory.anchors import standings, work_tree
from memsite.memory.reads import compact_component
from memsite.memory.writes import write_locked

if TYPE_CHECKING:
    from memsite.core.entry import Entry
    from memsite.memory import Memory


class DriftError(MemsiteError):
    """verify was asked to confirm a fact whose anchors drifted (re-pin or amend it)."""


def _active_target(memory: Memory, ref: str, action: str) -> Entry:
    from memsite.core.schema import ACTIVE

    entry = memory.resolve(ref)
    status = compact_component(memory, entry.id).status[entry.id]
    if status != ACTIVE:
        raise InvalidInputError(
            f"entry {entry.short_id} is {status}: only an active fact can be {action} "
            f"(see `memsite read {entry.short_id}`)"
        )
    return entry


def _text(kind: str, value: str | None, required: bool) -> str | None:
    from memsite.core.entry import REASON_MAX
    from memsite.core.validate import check_text

    if value is None or not value.strip():
        if required:
            raise InvalidInputError(f"{kind} is empty: say why")
        return None
    return check_text(kind, value.strip(), REASON_MAX)


def verify(
    memory: Memory,
    ref: str,
    evidence: str | None = None,
    repin: bool = False,
    agent: str | None = None,
) -> dict[str, Any]:
    """Record that a fact still holds; with drifted anchors only when ``repin`` (the anchors
    are then pinned to the files as they are now)."""
    refuse_secrets({"evidence": evidence}, (), False)
    evidence = _text("evidence", evidence, required=False)
    entry = _active_target(memory, ref, "verified")
    tree = work_tree(memory)
    standing = standings(memory, [entry], tree=tree)[entry.id]
    drifted = [(a, s) for a, s in standing.anchors if s.drifted]
    pinned: list[Anchor] = []
    if drifted and not repin:
        shown = ", ".join(f"{a.label} {s.state}" for a, s in drifted)
        raise DriftError(
            f"entry {entry.short_id} has drifted anchors ({shown}): check the fact against the "
            f"code, then run `memsite verify {entry.short_id} --repin` (or amend it)"
        )
    if repin and standing.anchors:
        pinned = repin_anchors(tree, entry, standing)
    obj = build_record(VERIFY, entry.id, memory.now(), agent=agent, text=evidence, anchors=pinned)
    path = _write(memory, obj)
    return {
        "status": "verified",
        "id": entry.id,
        "record": obj["id"],
        "path": path,
        "repinned": [a.label for a in pinned],
    }


def retire(memory: Memory, ref: str, reason: str, agent: str | None = None) -> dict[str, Any]:
    """Withdraw an active fact without a successor (its page and history stay)."""
    refuse_secrets({"reason": reason}, (), False)
    text = _text("reason", reason, required=True)
    entry = _active_target(memory, ref, "retired")
    obj = build_record(RETIRE, entry.id, memory.now(), agent=agent, text=text)
    path = _write(memory, obj)
    return {"status": "retired", "id": entry.id, "record": obj["id"], "path": path}


def relate(
    memory: Memory,
    source: str,
    target: str,
    link: str,
    reason: str | None = None,
    agent: str | None = None,
) -> dict[str, Any]:
    """A typed link from one fact to another (written once: the same link again is kept)."""
    if link not in LINK_TYPES:
        raise InvalidInputError(
            f"unknown link type {link[:40]!r}: use one of {', '.join(LINK_TYPES)}"
        )
    refuse_secrets({"reason": reason}, (), False)
    text = _text("reason", reason, required=False)
    first, second = memory.resolve(source), memory.resolve(target)
    if first.id == second.id:
        raise InvalidInputError("a fact cannot be linked to itself: give two different ids")
    for record in memory.index().records.about([first.id]):
        if (record.kind, record.target, record.other, record.link) == (
            RELATE,
            first.id,
            second.id,
            link,
        ):
            return {
                "status": "exists",
                "id": first.id,
                "other": second.id,
                "type": link,
                "record": record.id,
                "path": str(memory.store.entry_path(record.filename)),
            }
    obj = build_record(
        RELATE, first.id, memory.now(), agent=agent, text=text, other=second.id, link=link
    )
    path = _write(memory, obj)
    return {
        "status": "related",
        "id": first.id,
        "other": second.id,
        "type": link,
        "record": obj["id"],
        "path": path,
    }


def approve(
    memory: Memory, refs: list[str], reason: str | None = None, agent: str | None = None
) -> dict[str, Any]:
    """An approve record for each held-back fact of ``refs``, so that it reaches agents;
    facts the gate does not hold back are named in ``not_held`` and get no record."""
    from memsite.memory.trust import current

    if not refs:
        raise InvalidInputError("no fact named: give the ids to approve (see `memsite review`)")
    refuse_secrets({"reason": reason}, (), False)
    text = _text("reason", reason, required=False)
    entries = [_active_target(memory, ref, "approved") for ref in refs]
    held = current(memory).held
    approved, not_held = [], []
    for entry in {e.id: e for e in entries}.values():
        if entry.id not in held:
            not_held.append(entry.id)
            continue
        obj = build_record(APPROVE, entry.id, memory.now(), agent=agent, text=text)
        path = _write(memory, obj)
        approved.append({"id": entry.id, "was": held[entry.id], "record": obj["id"], "path": path})
    return {
        "status": "approved" if approved else "unchanged",
        "approved": approved,
        "not_held": not_held,
    }


def _write(memory: Memory, obj: dict[str, Any]) -> str:
    """Write a record file (under the write lock, taken into the index at once); its agent
    is checked as an entry's is (printable, bounded, nothing hidden)."""
    from memsite.core.validate import check_agent

    check_agent(obj["agent"], memory.config.limits)
    done = write_locked(memory, lambda: obj)
    assert done is not None
    return str(done[0])
