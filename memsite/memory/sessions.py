"""Sessions: the current one's name, their daily logs listed and shown, expired logs, and the
carry-over of the last one's open work into the next session's context. Each operation reads
every log once (``_read``)."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping
from datetime import date, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from memsite.core.sessions import CARRYOVER_MAX_TOKENS, LogLine, carried, carryover_text, parse_line
from memsite.core.text import as_name
from memsite.errors import EntryNotFoundError, InvalidInputError
from memsite.files import storage_errors
from memsite.storage.daily import daily_logs, log_lines, session_logs

if TYPE_CHECKING:
    from memsite.memory import Memory


class _Session(NamedTuple):
    name: str
    logs: list[tuple[date, str, list[str]]]  # (day, file name, raw lines), oldest first

    def lines(self) -> list[LogLine]:
        return [line for *_, raw in self.logs for line in map(parse_line, raw) if line]

    def activity(self) -> tuple[str, str, str]:
        """Its last day and the time of its last line there (then the name, to break ties)."""
        day, _, raw = self.logs[-1]
        times = [line.time for line in map(parse_line, raw) if line is not None]
        return day.isoformat(), max(times, default=""), self.name


def _read(memory: Memory) -> list[_Session]:
    """Every session with daily logs, the most recently active first."""
    found = [
        _Session(name, [(day, path.name, log_lines(path)) for day, path in logs])
        for name, logs in session_logs(memory.store).items()
    ]
    return sorted(found, key=_Session.activity, reverse=True)


def list_sessions(memory: Memory) -> list[dict[str, Any]]:
    """Every session with daily logs, the most recently active first."""
    rows = []
    for session in _read(memory):
        lines = session.lines()
        rows.append(
            {
                "session": session.name,
                "first": session.logs[0][0].isoformat(),
                "last": session.logs[-1][0].isoformat(),
                "files": [f"daily/{name}" for _, name, _ in session.logs],
                "lines": len(lines),
                "open": [f"[{k.kind}] {k.text}" for k in carried(lines)],
            }
        )
    return rows


def session_logs_text(memory: Memory) -> list[tuple[str, list[tuple[str, list[str]]]]]:
    """(session, [(day, raw lines)]) for every session, the most recently active first."""
    return [(s.name, [(day.isoformat(), raw) for day, _, raw in s.logs]) for s in _read(memory)]


def show_session(memory: Memory, session: str) -> dict[str, Any]:
    name = session.strip().lower()
    logs = session_logs(memory.store).get(name)
    if not logs:
        raise EntryNotFoundError(
            f"no session {session!r} has daily logs: see `memsite sessions list`"
        )
    return {
        "session": name,
        "logs": [
            {"file": f"daily/{path.name}", "date": day.isoformat(), "lines": log_lines(path)}
            for day, path in logs
        ],
    }


def carryover(memory: Memory, current: str | None) -> str:
    """The last session's open tasks and decisions (not the current session's), or ''."""
    if not memory.config.session_carryover:
        return ""
    last = next((s for s in _read(memory) if s.name != current), None)
    if last is None:
        return ""
    day = last.logs[-1][0].isoformat()
    return carryover_text(last.name, day, carried(last.lines()), CARRYOVER_MAX_TOKENS)


def closed_task(memory: Memory, session: str, text: str) -> dict[str, str] | None:
    """The open task that a ``[done]`` line of ``text`` logged now in ``session`` closes: one
    of the session's own, else one the session was handed from the last other session (which
    its carry-over then replaces); None when no open task reads the same."""
    from memsite.core.text import one_line

    wanted = one_line(text)
    found = _read(memory)
    mine = next((s for s in found if s.name == session), None)
    last = next((s for s in found if s.name != session), None)
    for candidate in (mine, last):
        lines = carried(candidate.lines()) if candidate is not None else []
        if candidate is not None and any(k.kind == "task" and k.text == wanted for k in lines):
            return {"session": candidate.name, "task": wanted}
    return None


def has_daily_logs(memory: Memory) -> bool:
    """Any file in daily/ (a scan of a small folder; nothing imported)."""
    try:
        with os.scandir(memory.store.daily_dir) as items:
            return any(item.name.endswith(".md") for item in items)
    except OSError:
        return False


def daily_log_files(memory: Memory) -> list[tuple[date, Path]]:
    """The daily log files, oldest first, dated by their names."""
    return daily_logs(memory.store)


def expired_logs(memory: Memory, dry_run: bool) -> list[str]:
    """Daily logs older than memory.dailyRetentionDays, deleted unless ``dry_run``."""
    cutoff = memory.now().date() - timedelta(days=memory.config.daily_retention_days)
    pruned = []
    for day, path in daily_log_files(memory):
        if day < cutoff:
            if not dry_run:
                with storage_errors("delete", path):
                    path.unlink(missing_ok=True)
            pruned.append(f"daily/{path.name}")
    return pruned


def current_session(
    given: str | None = None, env: Mapping[str, str] | None = None, *, connection: bool = False
) -> str:
    """The current session's name, the one way every writer names it: ``given`` (a runner's
    hook payload, --session), else $MEMSITE_SESSION, else one drawn for this MCP connection
    (``connection``), else one per terminal session: ``cli-`` and a hash of the host, its boot
    and the process's session id (sids are small numbers that other machines reuse). Never a
    shared name: two branches logging on one day must write different files."""
    environ = os.environ if env is None else env
    for candidate in (given, environ.get("MEMSITE_SESSION")):
        if candidate:
            name = as_name(candidate)
            if name is None:
                raise InvalidInputError(
                    f"session {candidate[:80]!r} has no letters or digits: give a name like "
                    "feature-login"
                )
            return name
    if connection:
        return f"mcp-{os.urandom(4).hex()}"
    import zlib

    boot = ""
    with (
        contextlib.suppress(OSError),
        open("/proc/sys/kernel/random/boot_id", encoding="ascii") as handle,
    ):
        boot = handle.read().strip()
    seed = f"{_host()}:{boot}:{os.getsid(0)}".encode()
    return f"cli-{zlib.crc32(seed):08x}"


def _host() -> str:
    """This machine's name: on POSIX ``uname``'s, which is what ``socket.gethostname`` gives
    too, without importing socket (~4 ms, at every session start)."""
    if hasattr(os, "uname"):
        return os.uname().nodename
    import socket

    return socket.gethostname()
