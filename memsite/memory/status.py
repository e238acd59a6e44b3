"""`memsite status`: counts by category and status, whether the derived views are fresh, the
daily logs and the findings, notes about the store's layout, and the links and tracked files
in the way of its derived files (``memory.derived``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memsite.core.compaction import counts
from memsite.memory import derived
from memsite.memory.review import findings
from memsite.memory.sessions import daily_log_files
from memsite.memory.views import is_fresh

if TYPE_CHECKING:
    from memsite.memory import Memory


def status(memory: Memory) -> dict[str, Any]:
    state = memory.state()
    store = memory.store
    own = derived.report(memory)
    found = findings(memory, own=own)
    notes = []
    if store.shadowed is not None:
        notes.append(
            f"a LeanSpec store is also at {store.shadowed}; memsite uses {store.root} "
            f"(pass --store {store.relative(store.shadowed)} to use the other)"
        )
    return {
        "store": str(store.origin.root),  # a past state's: the store it was cut from
        "layout": "leanspec" if store.origin.leanspec else "memsite",
        "notes": notes,
        **derived.status_fields(own),
        **counts(state.result),
        "invalid": len(state.scan.invalid),
        "derived": "fresh" if is_fresh(memory) else "stale",
        "daily_logs": len(daily_log_files(memory)),
        "findings": len(found),
        "drifted": sum(1 for f in found if f.kind == "drift"),
        "stale": sum(1 for f in found if f.kind == "stale"),
        "records": len(state.scan.records),
        "trust": _trust(memory),
    }


def _trust(memory: Memory) -> dict[str, Any]:
    """The gate: on or off (and why), the reviewed ref, what it holds back and why."""
    from memsite.core.trust import HELD_KINDS, kind_of
    from memsite.memory.trust import current

    gate = current(memory)
    survey = gate.survey
    if survey.on:
        mode = f"on: facts reach agents once {survey.ref} holds them, or approved"
    elif survey.warning:
        mode = "off: every fact reaches agents (see the warning)"
    else:
        mode = "off: no git remote, so every fact reaches agents"
    kinds = [kind_of(why) for why in gate.held.values()]
    return {
        "on": survey.on,
        "mode": mode,
        "reviewed_ref": survey.ref,
        "commit": survey.commit,
        "warning": survey.warning,
        "local": len(gate.local),
        "held_back": len(gate.held),
        "held_back_by_kind": {k: kinds.count(k) for k in HELD_KINDS if k in kinds},
    }
