"""Facts that do not hold now: active facts past their ``valid_to`` (expired) or before their
``valid_from`` (upcoming), judged against the memory's clock (``Memory.now``: a memory opened
as of another time judges as of then) by ``core.standing.window_state``.

Compaction and the read model never judge them (a status kept on disk cannot change as days
pass): index.md and `context` leave these facts out (``views``, which rebuilds index.md when
one of them opens or closes), outputs flag them (``Standing.fields``), and `review` lists the
expired ones.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING

from memsite.core.entry import Window
from memsite.core.schema import ACTIVE
from memsite.core.standing import EXPIRED, expired, window_state

if TYPE_CHECKING:
    from memsite.core.review import Finding
    from memsite.memory import Memory


def out_of_window(memory: Memory) -> dict[str, str]:
    """Active fact id → EXPIRED or UPCOMING, for each whose window is not open now; read from
    the index's columns (no entry is rebuilt: `context` asks this at every session start)."""
    now = memory.now()
    found = {}
    for entry_id, opens, closes in memory.index().entries.windows():
        state = window_state(Window(_moment(opens), _moment(closes)), now)
        if state is not None:
            found[entry_id] = state
    return found


def _moment(timestamp: float | None) -> datetime | None:
    return None if timestamp is None else datetime.fromtimestamp(timestamp, UTC)


def expired_findings(memory: Memory) -> list[Finding]:
    """Active facts past their valid_to, the longest expired first."""
    state = memory.state()
    result = state.result
    now = memory.now()
    found = [
        entry
        for entry in result.entries
        if entry.raw.get("valid_to")
        and result.status[entry.id] == ACTIVE
        and window_state(entry.window, now) == EXPIRED
    ]
    found.sort(key=lambda entry: (entry.window.end or now, entry.id))
    return [expired(entry) for entry in found]
