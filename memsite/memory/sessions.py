"""Sessions: their daily logs listed and shown, and the carry-over of the last one's open work
into the next session's context."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memsite.core.sessions import (
    CARRYOVER_MAX_TOKENS,
    LogLine,
    carried,
    carryover_text,
    parse_line,
)
from memsite.errors import EntryNotFoundError
from memsite.storage.daily import log_lines, session_logs

if TYPE_CHECKING:
    from memsite.memory import Memory


def _lines(logs: list[Any]) -> list[LogLine]:
    return [line for _, path in logs for line in map(parse_line, log_lines(path)) if line]


def _last_time(logs: list[Any]) -> tuple[str, str]:
    day, path = logs[-1]
    times = [line.time for line in map(parse_line, log_lines(path)) if line is not None]
    return day.isoformat(), max(times, default="")


def list_sessions(memory: Memory) -> list[dict[str, Any]]:
    """Every session with daily logs, the most recently active first."""
    rows = []
    for session, logs in session_logs(memory.store).items():
        lines = _lines(logs)
        rows.append(
            {
                "session": session,
                "first": logs[0][0].isoformat(),
                "last": logs[-1][0].isoformat(),
                "files": [f"daily/{path.name}" for _, path in logs],
                "lines": len(lines),
                "open": [f"[{k.kind}] {k.text}" for k in carried(lines)],
                "_order": _last_time(logs),
            }
        )
    rows.sort(key=lambda r: (r["_order"], r["session"]), reverse=True)
    for row in rows:
        del row["_order"]
    return rows


def show_session(memory: Memory, session: str) -> dict[str, Any]:
    logs = session_logs(memory.store).get(session.strip().lower())
    if not logs:
        raise EntryNotFoundError(
            f"no session {session!r} has daily logs: see `memsite sessions list`"
        )
    return {
        "session": session.strip().lower(),
        "logs": [
            {"file": f"daily/{path.name}", "date": day.isoformat(), "lines": log_lines(path)}
            for day, path in logs
        ],
    }


def carryover(memory: Memory, current: str | None) -> str:
    """The last session's open tasks and decisions (not the current session's), or ''."""
    if not memory.config.session_carryover:
        return ""
    sessions = {s: logs for s, logs in session_logs(memory.store).items() if s != current}
    if not sessions:
        return ""
    last = max(sessions, key=lambda s: (_last_time(sessions[s]), s))
    lines = _lines(sessions[last])
    day = sessions[last][-1][0].isoformat()
    return carryover_text(last, day, carried(lines), CARRYOVER_MAX_TOKENS)
