"""Daily session logs: ``daily/<UTC date>-<session>.md``, appended to, searched, pruned by date."""

from __future__ import annotations

import contextlib
import os
import re
from datetime import date, datetime
from pathlib import Path

from memsite.core.text import one_line
from memsite.files import storage_errors
from memsite.storage.layout import Store

# A log that became a link between the check and the open is refused, not followed.
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
DAILY_RE = re.compile(r"(\d{4}-\d{2}-\d{2})-([a-z0-9][a-z0-9._-]{0,63})\.md")


def append_log(store: Store, text: str, session: str, now: datetime) -> Path:
    """Append one timestamped bullet (appends of one line are atomic: no temporary needed)."""
    path = store.daily_dir / f"{now.strftime('%Y-%m-%d')}-{session}.md"
    line = f"- {now.strftime('%H:%M:%S')}Z {one_line(text)}\n"
    store.writable(path)  # neither daily/ nor the log may be a link (tracked with trackDaily)
    with storage_errors("write to", store.daily_dir):
        store.daily_dir.mkdir(exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | _NOFOLLOW, 0o644)
        try:
            if os.fstat(fd).st_size == 0:
                header = f"# Daily log {now.strftime('%Y-%m-%d')} ({session})\n\n"
                os.write(fd, header.encode("utf-8"))
            os.write(fd, line.encode("utf-8"))
        finally:
            os.close(fd)
    return path


def daily_logs(store: Store) -> list[tuple[date, Path]]:
    """Daily log files, oldest first, dated by their file names (none while daily/ is a
    symbolic link: it is never followed, so pruning deletes nothing elsewhere)."""
    logs: list[tuple[date, Path]] = []
    if store.why_unsafe(store.daily_dir) is not None:
        return logs
    with contextlib.suppress(OSError):
        for item in os.scandir(store.daily_dir):
            match = DAILY_RE.fullmatch(item.name)
            if match and item.is_file(follow_symlinks=False):
                with contextlib.suppress(ValueError):
                    logs.append((date.fromisoformat(match.group(1)), Path(item.path)))
    return sorted(logs)


def session_logs(store: Store) -> dict[str, list[tuple[date, Path]]]:
    """Each session's daily logs, oldest first."""
    found: dict[str, list[tuple[date, Path]]] = {}
    for day, path in daily_logs(store):
        match = DAILY_RE.fullmatch(path.name)
        assert match is not None
        found.setdefault(match.group(2), []).append((day, path))
    return found


def log_lines(path: Path, limit: int = 8 << 20) -> list[str]:
    """The lines of a daily log (undecodable bytes replaced; a huge file is skipped)."""
    try:
        if path.lstat().st_size > limit:
            return []
        return path.read_bytes().decode("utf-8", errors="replace").splitlines()
    except OSError:
        return []
