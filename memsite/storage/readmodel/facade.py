"""The read model of one store, :class:`Index`: its database file, its freshness, and the
objects that read it (``entries``, ``records``, ``search``, ``views``, ``vectors``).

Freshness costs one ``stat`` of entries/: its inode, mtime and ctime are recorded after each
listing, and the folder is listed again only when they differ. A recorded state is *trusted*
only when a probe file touched before the listing got a later timestamp than the folder (so
any later change gives the folder a new timestamp, even on a file system with coarse
timestamps); otherwise the next command lists again. Writers serialize on the store's write
lock; concurrent syncs serialize on SQLite's write lock (``BEGIN IMMEDIATE``) and re-check
freshness once they hold it.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any

from memsite.errors import StorageError
from memsite.files import TEMP_SUFFIX
from memsite.storage.layout import Store
from memsite.storage.readmodel import ingest, schema
from memsite.storage.readmodel.queries import Entries, Records
from memsite.storage.readmodel.rows import collector_resting, transaction
from memsite.storage.readmodel.search import Search
from memsite.storage.readmodel.snapshot import Snapshot
from memsite.storage.readmodel.vectors import Vectors
from memsite.storage.readmodel.views import Views

# How long a command waits for another's write to the database before it answers from an
# index in memory instead (a first build at 100k holds it for ~8 s; most writes for ms).
BUSY_SECONDS = 5
# Items from which a step says, as it begins, what it is doing (reading new entry files,
# embedding entries): 10k take seconds, and a command that prints nothing seems stuck.
ANNOUNCE_FROM = 10_000


class Index:
    """The read model of one store. Its readers bring it up to date first (``sync``);
    writers call ``wrote`` with the file they linked."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.path = store.index_db
        self.notices: list[str] = []
        # Where a line goes at once (notices wait for the sync's end): a long step's start.
        self.tell: Callable[[str], None] = self.notices.append
        self.in_memory = False
        self._db: sqlite3.Connection | None = None
        self._synced = False
        self._building: Path | None = None
        self._unindexed = False  # a first build adds the tables' indexes once its rows are in
        self.entries = Entries(self)
        self.records = Records(self)
        self.search = Search(self)
        self.views = Views(self)
        self.vectors = Vectors(self)

    def announce(self, count: int, text: str) -> None:
        """Say ``text`` as a step over ``count`` items begins, if there are enough of them to
        take seconds (at 100k, the first command after a clone reads for about 20 s)."""
        if count >= ANNOUNCE_FROM:
            self.tell(text)

    # --- the database file ------------------------------------------------------------------

    @property
    def db(self) -> sqlite3.Connection:
        if self._db is None:
            self._db = self._open()
        return self._db

    def _open(self) -> sqlite3.Connection:
        if self.store.why_unsafe(self.store.cache_dir, children=True) is not None:
            # cache/ is (or holds) a symbolic link: SQLite would follow it, so the index lives
            # in memory for this run (review and status report the link).
            return self._memory()
        try:
            self.store.cache_dir.mkdir(parents=True, exist_ok=True)
            if not self.path.exists():
                # A first build: made under a temporary name without a journal (a crash leaves
                # only a temporary), linked into place when done.
                unique = f"{os.getpid()}-{os.urandom(8).hex()}"
                building = self.store.cache_dir / f".index-{unique}{TEMP_SUFFIX}"
                db = self._connect(str(building), journal=False)
                if db is not None:
                    self._building = building
                    return db
            db = self._connect(str(self.path))
        except (OSError, sqlite3.Error):
            return self._memory()  # a read-only checkout: an index in memory, for this run
        if db is None:
            return self._memory()
        return db

    def _connect(self, target: str, *, journal: bool = True) -> sqlite3.Connection | None:
        for attempt in range(2):
            # Not bound to the thread that opened it: serve's follow-up thread goes on with
            # the operation the main thread opened (each rebuild opens its own, so the two
            # never use one connection at the same time).
            db = sqlite3.connect(
                target, timeout=BUSY_SECONDS, isolation_level=None, check_same_thread=False
            )
            # Closed when the index goes, or at exit: the index and its readers refer to each
            # other, so no __del__ would run at exit, and a connection left open leaves its
            # write-ahead log behind (16 MB after a compact at 10k) for the next command to read.
            weakref.finalize(self, db.close)
            try:
                if not journal:
                    db.execute("PRAGMA journal_mode=OFF")
                    db.execute("PRAGMA synchronous=OFF")
                elif target != ":memory:":
                    db.execute("PRAGMA journal_mode=WAL")
                    db.execute("PRAGMA synchronous=NORMAL")
                home = "" if target == ":memory:" else self.store.home()
                if schema.ready(db, home):
                    return db
                with transaction(db):
                    held = schema.found(db)
                    if not schema.ready(db, home):  # nobody else made it meanwhile
                        self._note_rebuild(held, home)
                        schema.create(db, home, indexes=journal)
                        self._unindexed = not journal
                return db
            except sqlite3.DatabaseError as exc:
                db.close()
                if target == ":memory:" or attempt or not _corrupt(exc):
                    raise
                self.notices.append(
                    f"the cache {self.store.relative(self.path)} was unreadable ({exc}); "
                    "rebuilding it from entries/"
                )
                self._remove_files()
        return None

    def _note_rebuild(self, held: tuple[str, str] | None, home: str) -> None:
        """Say why a database of this version is built again (one of another version, or none,
        is rebuilt without a word: a new memsite, or a first build)."""
        if held is None or held[0] != schema.version():
            return
        why = "was not built in this clone (it came with the files)"
        if held[1] == home:
            why = "was damaged (tables missing)"
        self.notices.append(
            f"the cache {self.store.relative(self.path)} {why}; rebuilding it from entries/"
        )

    def _discard(self) -> None:
        """Forget the database: nothing of it (rows, flags, rendered bullets) survives into
        the next build, which reads entries/ only."""
        self.close()
        self.in_memory = False
        self._synced = False
        self._remove_files()

    def _remove_files(self) -> None:
        for suffix in ("", "-wal", "-shm"):
            with contextlib.suppress(OSError):
                os.unlink(f"{self.path}{suffix}")

    def _memory(self) -> sqlite3.Connection:
        self.in_memory = True
        db = self._connect(":memory:")
        assert db is not None
        return db

    def index_tables(self) -> None:
        """The indexes a first build left out, once its rows are in."""
        if self._unindexed:
            schema.add_indexes(self.db)
            self._unindexed = False

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    def meta(self, key: str) -> Any:
        row = self.db.execute("SELECT v FROM meta WHERE k = ?", (key,)).fetchone()
        return row[0] if row else None

    def set_meta(self, **values: Any) -> None:
        self.db.executemany(
            "UPDATE meta SET v = ? WHERE k = ?", [(v, k) for k, v in values.items()]
        )

    # --- freshness --------------------------------------------------------------------------

    def dir_state(self) -> str:
        info = os.stat(self.store.entries_dir)
        return f"{info.st_ino}:{info.st_mtime_ns}:{info.st_ctime_ns}"

    def probe(self) -> int | None:
        """The file system's clock now: the mtime of a file touched for the purpose."""
        if self.in_memory:
            return None
        path = self.store.clock_probe
        try:
            with open(path, "ab"):
                pass
            os.utime(path)
            return os.stat(path).st_mtime_ns
        except OSError:
            return None

    @staticmethod
    def trusted(state: str, probe: int | None) -> bool:
        if probe is None:
            return False
        _, mtime, ctime = state.split(":")
        return probe > max(int(mtime), int(ctime))

    def fresh(self) -> bool:
        """Does the index match entries/ without listing it?"""
        try:
            state = self.dir_state()
        except OSError:
            return False
        rows = dict(self.db.execute("SELECT k, v FROM meta WHERE k IN ('dir', 'trusted')"))
        return rows.get("dir") == state and bool(rows.get("trusted"))

    def sync(self, *, full: bool = False) -> sqlite3.Connection:
        """Take in the entry files added, removed or replaced since the last sync (``full``:
        discard the database and build it again from the entry files alone); the database,
        up to date."""
        if self._synced and not full:
            return self.db
        if full:
            self._discard()
            full = False  # a first build reads every file
        try:
            self._sync()
        except DAMAGE as exc:
            self.recover(exc)
            self._sync()
        self._synced = True
        return self.db

    def recover(self, exc: BaseException) -> None:
        """Go on without the database that failed (``exc``): held by another process too long,
        or read-only, the answer comes from an index in memory this time; damaged in any way
        (truncated, garbage, missing tables, wrong types), it is rebuilt from entries/. One
        line says which, and the next sync starts again."""
        text = str(exc).lower()
        where = self.store.relative(self.path)
        if self.in_memory:
            raise StorageError(f"cannot build the index in memory ({exc})") from None
        self.close()
        self._synced = False
        if isinstance(exc, sqlite3.OperationalError) and ("locked" in text or "busy" in text):
            self.notices.append(
                f"the cache {where} is held by another memsite process; answering from "
                "entries/ in memory this time"
            )
            self._db = self._memory()
        elif "readonly" in text or "disk i/o" in text:
            self._db = self._memory()  # the cache cannot be written: work without it
        else:
            self.notices.append(
                f"the cache {where} was damaged ({exc}); rebuilding it from entries/"
            )
            self._remove_files()

    def _sync(self) -> None:
        if self.fresh():
            return
        with collector_resting(), transaction(self.db):
            if not self.fresh():
                ingest.take_in(self)
        if self._building is not None:
            self._publish()

    def _publish(self) -> None:
        """Put a first build (made without a journal, under a temporary name) in place."""
        building, self._building = self._building, None
        assert building is not None
        self.close()
        try:
            os.link(building, self.path)  # fails if another process made one meanwhile
        except FileExistsError:
            pass  # theirs is as good as ours
        except OSError:
            self._db = self._memory()  # cache/ removed meanwhile: build again, in memory
            self._sync()
            return
        finally:
            with contextlib.suppress(OSError):
                os.unlink(building)
        self._db = self._open()

    def seed(self, source: Path) -> None:
        """Start this index as a copy of another store's (``storage.cuts``: a past state of it,
        whose entry files are hard links to its files): bound to this store, untrusted, so
        that the first sync lists entries/ and takes out the files it lacks. A source that
        cannot be copied leaves no index (the first sync builds one)."""
        unique = f"{os.getpid()}-{os.urandom(8).hex()}"
        building = self.store.cache_dir / f".index-{unique}{TEMP_SUFFIX}"
        try:
            self.store.writable(self.store.cache_dir, children=True).mkdir(exist_ok=True)
            src = sqlite3.connect(f"{source.absolute().as_uri()}?mode=ro", uri=True)
            with contextlib.closing(src), contextlib.closing(sqlite3.connect(building)) as db:
                src.backup(db)
                if not schema.ready(db, self.store.origin.home()):
                    return
                with db:
                    db.execute("UPDATE meta SET v = ? WHERE k = 'home'", (self.store.home(),))
                    db.execute("UPDATE meta SET v = '' WHERE k = 'dir'")
                    db.execute("UPDATE meta SET v = 0 WHERE k = 'trusted'")
                    fresh = os.urandom(16).hex()
                    db.execute("UPDATE meta SET v = ? WHERE k = 'instance'", (fresh,))
                db.execute("PRAGMA journal_mode=DELETE")
            os.link(building, self.path)
        except (OSError, StorageError, sqlite3.Error):
            pass  # no copy: the first sync builds the index from the files
        finally:
            with contextlib.suppress(OSError):
                os.unlink(building)

    def forget(self) -> None:
        """Look at entries/ again on the next read (another writer may have added files)."""
        self._synced = False

    def has_temporaries(self) -> bool:
        """Did entries/ hold temporaries when last listed?"""
        return bool(self.meta("temporaries"))

    # --- the writer's path ------------------------------------------------------------------

    def before_write(self) -> str | None:
        """The folder's state just before a writer links its file, when the index is trusted."""
        if not self.fresh():
            return None
        return self.dir_state()

    def wrote(self, path: Path, before: str | None) -> None:
        """Take in the file a writer (holding the write lock) just linked. The index stays
        trusted when it was trusted just before the link: nothing but this writer can have
        changed the folder under the lock, short of another program in those microseconds."""
        try:
            with transaction(self.db):
                if before is not None and self.meta("dir") == before:
                    ingest.apply(self, [], [path.name])
                    self.set_meta(dir=self.dir_state(), trusted=1)
                else:
                    with collector_resting():  # the folder changed meanwhile: maybe a big batch
                        ingest.take_in(self)
        except DAMAGE as exc:  # the file is linked: only the index has to catch up
            self.recover(exc)
            self._sync()
        self._synced = True

    # --- as a whole -------------------------------------------------------------------------

    def fingerprint(self) -> str:
        """Changes whenever the indexed entries change or a fact's line is counted (what the
        views are made from), and across rebuilds of the index."""
        return self._fingerprint("generation")

    def facts_fingerprint(self) -> str:
        """Changes whenever the indexed entries or records change, and across rebuilds, but
        not when a fact's line is counted: for what depends on the facts alone (the conflict
        markers, the trust gate), which `compact` finds before it counts."""
        return self._fingerprint("facts")

    def _fingerprint(self, counter: str) -> str:
        rows = dict(
            self.sync().execute("SELECT k, v FROM meta WHERE k IN ('instance', ?)", (counter,))
        )
        return f"{rows['instance']}:{rows[counter]}"

    def snapshot(self) -> Snapshot | None:
        """A read-only look at the index file on a connection of its own (see
        :class:`Snapshot`); None when the index is not a file (it is held in memory)."""
        if self.in_memory or not self.path.is_file():
            return None
        try:
            return Snapshot(self.path)
        except sqlite3.Error:
            return None


def _corrupt(exc: sqlite3.DatabaseError) -> bool:
    text = str(exc).lower()
    return "locked" not in text and "readonly" not in text and "disk i/o" not in text


# What a damaged database raises as it is read: SQLite's own errors, and what unmarshalling
# garbage, or rows of the wrong types, raise in the code that reads them.
DAMAGE = (sqlite3.DatabaseError, ValueError, TypeError, EOFError, KeyError, IndexError)
