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
        "store": str(store.root),
        "layout": "leanspec" if store.leanspec else "memsite",
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
    }
