"""What git says about the entry files, for the trust gate: which of them the team reviewed,
and who added each one in which commit. The only other module that runs git (``storage.git``
holds the runner and the rest).

*Reviewed* files are those the reviewed ref (``trust.reviewedRef``, default the remote's
default branch) holds with the same content as the work tree: listed from the ref's tree and
compared with the work tree in two git calls for the whole store. A file changed by hand, by a
merge of an unreviewed branch or by another tool differs from the ref, so it is not reviewed.

Both answers are costly at 100k (a tree walk, a history walk), so callers cache them by
:func:`git_key`: a few file stats and reads under ``.git`` that change whenever HEAD, the
git index, a ref or the config does, found without starting git.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from memsite.errors import GitError
from memsite.storage.git import commit_of, run_git

if TYPE_CHECKING:
    import sqlite3

DEFAULT_REFS = ("origin/HEAD", "origin/main", "origin/master")
_SIGNATURES = frozenset("GBUXYRNE")  # git's %G? letters


class Survey(NamedTuple):
    """The reviewed ref and the entry files it vouches for (file names in entries/)."""

    on: bool  # False: no remote, no git or no reviewed ref: trust is off, all is delivered
    ref: str | None  # the ref's name as configured or found
    commit: str | None
    reviewed: frozenset[str]
    warning: str | None  # why the survey fell back (missing ref, shallow clone, config)


OFF = Survey(False, None, None, frozenset(), None)


class Added(NamedTuple):
    """The commit that added an entry file (the oldest one HEAD's history holds)."""

    commit: str
    author: str
    email: str
    date: str
    signature: str  # git's %G?: G good, B bad, U unknown validity, N none, ...


def _git_dir(start: Path) -> tuple[Path, Path] | bool:
    """(the git dir, the common dir) of the work tree holding ``start``, found without git;
    False when there is none, True when it is laid out in a way this does not read (then the
    caller asks git)."""
    for folder in (start, *start.parents):
        dot = folder / ".git"
        if dot.is_dir():
            return dot, dot
        if dot.is_file():
            try:
                text = dot.read_text(encoding="utf-8", errors="replace")
            except OSError:
                return True
            if not text.startswith("gitdir: "):
                return True
            git_dir = (folder / text[8:].strip()).resolve()
            try:
                common = (git_dir / (git_dir / "commondir").read_text().strip()).resolve()
            except OSError:
                common = git_dir
            return git_dir, common
    return False


def _stat(path: Path) -> tuple[int, int, int] | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_ino, info.st_size, info.st_mtime_ns


def _read(path: Path) -> str | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read(200)
    except OSError:
        return None


def git_key(start: Path, configured: str | None) -> tuple[object, ...] | None:
    """A value that changes whenever the survey's answer may: HEAD, the git index (a commit,
    merge or checkout rewrites it), the config (remotes), packed refs and the candidate
    refs' files; ``("none",)`` outside any work tree; None where git's files cannot be read
    (ask git every time)."""
    found = _git_dir(start)
    if found is False:
        return ("none",)
    if found is True:
        return None
    assert not isinstance(found, bool)
    git_dir, common = found
    names = [configured] if configured else list(DEFAULT_REFS)
    refs = []
    for name in names:
        for candidate in (name, f"refs/{name}", f"refs/remotes/{name}", f"refs/heads/{name}"):
            if ".." not in candidate and not candidate.startswith("/"):
                refs.append(_read(common / candidate))
    head = _read(git_dir / "HEAD") or ""
    branch = head[5:].strip() if head.startswith("ref: refs/") else ""
    return (
        str(git_dir),
        head,
        _read(common / branch) if branch and ".." not in branch else None,
        _stat(git_dir / "index"),
        _stat(common / "config"),
        _stat(common / "packed-refs"),
        _stat(git_dir / "shallow"),
        tuple(refs),
    )


def _answer(top: Path, *args: str) -> str | None:
    try:
        done = run_git(top, *args, check=False)
    except GitError:
        return None
    return done.stdout if done.returncode == 0 else None


def survey(top: Path, folder: str, configured: str | None, config_file: str) -> Survey:
    """Which entry files (``folder``: entries/ relative to ``top``) the reviewed ref holds
    unchanged. ``configured`` (``trust.reviewedRef``) counts only while ``config_file`` is as
    the default ref has it: an unreviewed branch cannot name its own branch as reviewed."""
    remotes = _answer(top, "remote")
    if remotes is None or not remotes.split():
        return OFF
    found = next(((r, c) for r in DEFAULT_REFS if (c := commit_of(top, r)) is not None), None)
    warning = None
    if configured and (found is None or configured != found[0]):
        edited = found is not None and _answer(
            top, "diff", "--name-only", found[1], "--", config_file
        )
        commit = commit_of(top, configured)
        if edited:
            assert found is not None
            warning = (
                f"trust.reviewedRef {configured!r} is set in a config.json that {found[0]} does "
                f"not hold: {found[0]} is used until the change is reviewed"
            )
        elif commit is None:
            warning = f"trust.reviewedRef {configured!r} names no commit: fetch it or fix it"
        else:
            found = (configured, commit)
    if found is None:
        named = configured or " or ".join(DEFAULT_REFS)
        why = warning or (
            f"no reviewed ref ({named} not found): run `git fetch`, or set trust.reviewedRef"
        )
        return Survey(False, None, None, frozenset(), why)  # as without a remote, warned
    ref, commit = found
    return Survey(True, ref, commit, _reviewed(top, folder, commit), warning or _shallow(top))


def _shallow(top: Path) -> str | None:
    if (_answer(top, "rev-parse", "--is-shallow-repository") or "").strip() == "true":
        return (
            "this clone is shallow: who added older facts is unknown (`git fetch --unshallow`, "
            "or fetch-depth: 0 in actions/checkout)"
        )
    return None


def _reviewed(top: Path, folder: str, commit: str) -> frozenset[str]:
    """The files of ``folder`` at ``commit`` whose work-tree copy is the same."""
    where = folder.rstrip("/") + "/"
    listed = _answer(
        top, "-c", "core.quotePath=false", "ls-tree", "-r", "-z", "--name-only", commit, "--", where
    )
    differ = _differing(top, commit, [where])
    if listed is None or differ is None:
        return frozenset()
    return frozenset(
        path[len(where) :]
        for path in listed.split("\0")
        if path.startswith(where) and path not in differ and "/" not in path[len(where) :]
    )


def _differing(top: Path, commit: str, paths: list[str]) -> set[str] | None:
    """The paths under ``paths`` whose work-tree copy differs from ``commit`` (None: git
    could not say)."""
    out = _answer(
        top,
        "-c",
        "core.quotePath=false",
        "diff",
        "--no-renames",
        "-z",
        "--name-only",
        commit,
        "--",
        *paths,
    )
    return None if out is None else {p for p in out.split("\0") if p}


def changed(top: Path, commit: str, folder: str, names: list[str]) -> frozenset[str]:
    """Which of ``names`` (files of ``folder``) differ in the work tree from ``commit``
    (all of them when git cannot say)."""
    where = folder.rstrip("/") + "/"
    differ = _differing(top, commit, [where + name for name in names])
    if differ is None:
        return frozenset(names)
    return frozenset(p[len(where) :] for p in differ if p.startswith(where))


def added(folder: Path) -> dict[str, Added]:
    """File name in ``folder`` → the commit that added it (the oldest in HEAD's history), from
    one ``git log`` for all; empty without git or commits."""
    return _log(folder, "HEAD") or {}


_LOG_ARGS = (
    *("-c", "core.quotePath=false", "log", "--diff-filter=A", "--no-renames"),
    *("--relative", "--name-only", "--format=%x00%H%x1f%an%x1f%ae%x1f%aI%x1f%G?"),
)
# The whole history's log started by :func:`log_ahead`: folder → (the commit it logs, the
# process that started it, git's process, the file its output goes to).
_AHEAD: dict[str, tuple[str, int, Any, Any]] = {}


def log_ahead(path: Path, folder: Path) -> None:
    """Start the ``git log`` of HEAD's whole history now, in the background, when there is no
    cache at ``path`` at all (a clone's first command, a CI build: at 100k files and 36
    commits git takes ~4.5 s, which then runs while the caller does other work). The next
    :func:`_log` of that commit takes its output; :func:`stop_ahead` ends it if none did."""
    import subprocess
    import tempfile

    if path.exists() or str(folder) in _AHEAD:
        return
    head = (_answer(folder, "rev-parse", "-q", "--verify", "HEAD^{commit}") or "").strip()
    if not head:
        return
    out = tempfile.TemporaryFile()  # noqa: SIM115 - closed by _taken or stop_ahead
    try:
        process = subprocess.Popen(
            ["git", *_LOG_ARGS, head, "--", "."],
            cwd=folder,
            stdout=out,
            stderr=subprocess.DEVNULL,
            stdin=subprocess.DEVNULL,
        )
    except OSError:
        out.close()
        return
    _AHEAD[str(folder)] = (head, os.getpid(), process, out)


def stop_ahead(folder: Path) -> None:
    """End the log :func:`log_ahead` started for ``folder`` if nothing took it."""
    found = _AHEAD.pop(str(folder), None)
    if found is not None and found[1] == os.getpid():
        _, _, process, out = found
        process.kill()
        process.wait()
        out.close()


def _taken(folder: Path, revisions: str) -> str | None:
    """The output of the log started ahead for ``folder``, if it logs ``revisions`` and git
    succeeded (else None, and the log is ended)."""
    found = _AHEAD.get(str(folder))
    if found is None or found[1] != os.getpid():
        return None
    if found[0] != revisions:
        stop_ahead(folder)
        return None
    del _AHEAD[str(folder)]
    _, _, process, out = found
    with out:
        if process.wait() != 0:
            return None
        out.seek(0)
        data: str = out.read().decode("utf-8", errors="replace")
    return data.replace("\r\n", "\n").replace("\r", "\n")  # as text=True reads it


def _log(folder: Path, revisions: str) -> dict[str, Added] | None:
    """:func:`added` for the history of ``revisions`` (a commit, or ``OLD..NEW``: the commits
    since OLD); None when git fails."""
    text = _taken(folder, revisions)
    if text is None:
        text = _answer(folder, *_LOG_ARGS, revisions, "--", ".")
    if text is None:
        return None
    found: dict[str, Added] = {}
    for block in text.split("\0"):
        head, _, names = block.partition("\n")
        fields = head.split("\x1f")
        if len(fields) != 5 or len(fields[0]) not in (40, 64):
            continue
        commit, author, email, date, signature = fields
        info = Added(commit, author, email, date, signature if signature in _SIGNATURES else "N")
        for name in names.splitlines():
            if name and "/" not in name and not name.startswith('"'):
                found[name] = info  # newest first: the last seen is the oldest addition
    return found


def lookup_added(
    path: Path, key: Any, names: list[str], folder: Path, home: str
) -> dict[str, Added]:
    """:func:`added` for ``names``, from the SQLite cache at ``path``, brought up to date when
    ``key`` (the git files' stamp) changed: by the commits since the HEAD it was made at when
    that commit is in HEAD's history (a commit, a pull, a merge: ~1.5 s less at 100k files
    than reading the whole history again), else by one ``git log`` of the whole history (a
    rebase or reset, another clone's cache (``home``), ``key`` None)."""
    import sqlite3

    try:
        db = sqlite3.connect(path, isolation_level=None)
    except sqlite3.Error:
        every = added(folder)
        return {n: every[n] for n in names if n in every}
    try:
        db.execute("CREATE TABLE IF NOT EXISTS state(stamp TEXT, home TEXT, head TEXT) STRICT")
        db.execute(
            "CREATE TABLE IF NOT EXISTS added(name TEXT PRIMARY KEY, 'commit' TEXT, "
            "author TEXT, email TEXT, date TEXT, signature TEXT) STRICT, WITHOUT ROWID"
        )
        _bring_up_to_date(db, key, folder, home)
        return {name: Added(*info) for name, *info in _rows(db, names)}
    except sqlite3.Error:
        every = added(folder)
        return {n: every[n] for n in names if n in every}
    finally:
        db.close()


def _bring_up_to_date(db: sqlite3.Connection, key: Any, folder: Path, home: str) -> None:
    """The cache's rows for HEAD as it is now (see :func:`lookup_added`). A name that the new
    commits add again (a file added on two branches) takes the whole history: which of its
    commits is the oldest is for one ``git log`` to say. The cached HEAD is read from a file
    anyone could write: only a commit id is ever passed to git."""
    import marshal
    import re

    stamp = marshal.dumps(key).hex()
    row = db.execute("SELECT stamp, home, head FROM state").fetchone()
    if row is not None and row[0] == stamp and row[1] == home and key is not None:
        return
    head = (_answer(folder, "rev-parse", "-q", "--verify", "HEAD^{commit}") or "").strip()
    was = row[2] if row is not None and row[1] == home and key is not None else None
    newer = None
    if (
        isinstance(was, str)
        and re.fullmatch("[0-9a-f]{40}|[0-9a-f]{64}", was)
        and head
        and _answer(folder, "merge-base", "--is-ancestor", was, head) is not None
    ):
        newer = _log(folder, f"{was}..{head}")
        if newer is not None and next(_rows(db, newer), None) is not None:
            newer = None
    whole = newer is None
    if whole:
        newer = _log(folder, head or "HEAD") or {}
    db.execute("BEGIN IMMEDIATE")
    if db.execute("SELECT stamp, home, head FROM state").fetchone() != row:
        db.execute("ROLLBACK")  # another process brought it up to date meanwhile
        return
    if whole:
        db.execute("DELETE FROM added")
    rows = [(name, *info) for name, info in (newer or {}).items()]
    db.executemany("INSERT OR REPLACE INTO added VALUES (?, ?, ?, ?, ?, ?)", rows)
    db.execute("DELETE FROM state")
    db.execute("INSERT INTO state VALUES (?, ?, ?)", (stamp, home, head))
    db.execute("COMMIT")


def _rows(db: sqlite3.Connection, names: Iterable[str]) -> Iterator[tuple[str, ...]]:
    """The cached rows of these names, read 400 names a statement as they are asked for."""
    wanted = sorted(set(names))
    for start in range(0, len(wanted), 400):
        chunk = wanted[start : start + 400]
        marks = ", ".join("?" * len(chunk))
        yield from db.execute(f"SELECT * FROM added WHERE name IN ({marks})", chunk)
