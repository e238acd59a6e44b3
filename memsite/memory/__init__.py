"""Memory: one opened store and every memsite operation; the one door to the memory.

The CLI, the MCP server, the runners and the portal import this module and nothing under it
(an architecture test holds them to it). Each method hands plain values to the module that
does the work (imported when first needed, so that each command loads only its own rules) and
returns JSON-ready values; problems are ``MemsiteError`` subclasses whose messages say what to
do. The clock, the environment and the working directory are injected (:meth:`Memory.open`).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Unpack

from memsite.core.config import Config
from memsite.memory.state import Known, ReadModel, State
from memsite.storage.layout import Store

if TYPE_CHECKING:
    from contextlib import AbstractContextManager

    from memsite.core.entry import Entry
    from memsite.core.review import Finding
    from memsite.memory.asof import Point
    from memsite.memory.portal_input import FileLinks as FileLinks
    from memsite.memory.portal_input import PortalInput as PortalInput
    from memsite.memory.review import Later as Later
    from memsite.memory.shapes import AddOptions, AmendOptions, Searching
    from memsite.storage.git import Repository
    from memsite.storage.readmodel import Index

__all__ = [
    "Memory",
    "State",
    "Store",
    "clock",
    "provenance_ahead",
    "recover_cache",
    "repository",
    "session_name",
    "store_place",
]


def clock() -> datetime:
    return datetime.now(UTC)


def session_name(given: str | None = None, *, connection: bool = False) -> str:
    """The current session's name (see ``sessions.current_session``): ``given``, else
    $MEMSITE_SESSION, else one per MCP connection (``connection``) or terminal session."""
    from memsite.memory.sessions import current_session

    return current_session(given, connection=connection)


def repository(path: Path) -> Repository:
    """The git work tree holding ``path`` (GitError outside one), for publishing."""
    from memsite.storage.git import Repository

    return Repository(path)


def store_place(explicit: str | None, cwd: Path) -> tuple[Path, Path]:
    """Where `init` puts the store (or finds it) from ``cwd``, and the top of its project's
    git work tree (its project folder outside git): what a plan needs before anything exists."""
    from memsite.memory.setup import nearest_folder, store_root
    from memsite.storage.git import project_top

    root = store_root(explicit, cwd).resolve()
    return root, project_top(nearest_folder(root))


def provenance_ahead(memory: Memory) -> AbstractContextManager[None]:
    """Around a command that shows every fact's provenance (a build): git's part of it
    started ahead, to run meanwhile (``memory.trust.provenance_ahead``)."""
    from memsite.memory.trust import provenance_ahead as ahead

    return ahead(memory)


def recover_cache(memory: Memory, exc: BaseException) -> bool:
    """Did ``exc`` come from reading ``memory``'s cache (raised in the read model's code, or
    by SQLite)? Then the cache is let go (rebuilt, or held in memory: the index's notice says
    which) and the caller runs the operation once more; else False, and ``exc`` is a bug."""
    import sqlite3

    from memsite.storage.readmodel.facade import DAMAGE

    if not isinstance(exc, DAMAGE):
        return False
    frames, tb = [], exc.__traceback__
    while tb is not None:
        frames.append(tb.tb_frame.f_code.co_filename)
        tb = tb.tb_next
    readmodel = os.path.join("memsite", "storage", "readmodel", "")
    rows = os.path.join("memsite", "storage", "entries.py")
    if not isinstance(exc, sqlite3.Error) and not any(
        readmodel in f or f.endswith(rows) for f in frames
    ):
        return False
    index = memory.model.index
    index.recover(exc)
    for notice in index.notices:
        print(f"memsite: {notice}", file=sys.stderr)
    index.notices.clear()
    index.close()
    return True


class Memory:
    """One opened store with its config: every memsite operation."""

    def __init__(
        self,
        store: Store,
        config: Config,
        now: Callable[[], datetime] | None = None,
        cwd: Path | None = None,
        known: Known | None = None,
        point: Point | None = None,
    ) -> None:
        self.store = store
        self.config = config
        self.now = now or clock
        self.cwd = cwd or store.project_root  # where relative anchor paths start
        self.model = ReadModel(store, config, known)
        self.point = point  # the past state this is (``as_of``), None for today's

    @classmethod
    def open(
        cls,
        explicit: str | None = None,
        env: Mapping[str, str] | None = None,
        cwd: Path | None = None,
        now: Callable[[], datetime] | None = None,
    ) -> Memory:
        """The store at ``explicit``, else $MEMSITE_STORE, else the nearest one upwards."""
        cwd = cwd or Path.cwd()
        store = Store.locate(explicit, os.environ if env is None else env, cwd)
        return cls(store, store.load_config(), now, cwd)

    @classmethod
    def init(
        cls, explicit: str | None, cwd: Path, *, force: bool = False, git_hook: bool = False
    ) -> dict[str, Any]:
        """Create a store (idempotent): ``memory``, what was ``created`` and the ``hooks``."""
        from memsite.memory.setup import init_store

        made = init_store(explicit, cwd, force=force, git_hook=git_hook)
        return {**made, "memory": cls(made["store"], made["store"].load_config(), None, cwd)}

    def reopen(self, *, remember: bool = False, cwd: Path | None = None) -> Memory:
        """The store opened again (``remember``: unchanged entries keep their objects)."""
        known = (self.model.known if self.model.known is not None else {}) if remember else None
        config = self.config if self.point is not None else self.store.load_config()
        return Memory(self.store, config, self.now, cwd or self.cwd, known, self.point)

    def as_of(self, when: str) -> Memory:
        """The memory as it was at ``when``, a date or a git ref (``memory.asof``), on that
        point's clock; its ``point`` says which past state it is."""
        from memsite.memory.asof import past

        store, config, point = past(self, when)
        return Memory(store, config, point.clock, self.cwd, point=point)

    def state(self) -> State:
        """Every entry read and compacted."""
        return self.model.state()

    def index(self) -> Index:
        """The indexed read model, up to date with entries/ (see ``storage.readmodel``)."""
        return self.model.synced()

    def invalidate(self) -> None:
        """Forget what was read (after a write, or to see other writers' entries)."""
        self.model.invalidate()

    def resolve(self, ref: str) -> Entry:
        """An entry by full id or unique prefix of at least 4 hex characters."""
        from memsite.memory import reads

        return reads.resolve(self, ref)

    def project_top(self) -> Path:
        """The top of the project's git work tree (the project folder outside git)."""
        from memsite.storage.git import project_top

        return project_top(self.store.project_root)

    def add(self, content: str, category: str, **options: Unpack[AddOptions]) -> dict[str, Any]:
        """Write one fact, unless an active one of the category says the same already
        (options: tags, supersedes, reason, confidence, agent, key, allow_secret, anchors)."""
        from memsite.memory import writes

        return writes.add(self, content, category, **options)

    def amend(self, ref: str, content: str, **options: Unpack[AmendOptions]) -> dict[str, Any]:
        """Supersede an entry with new content, keeping its category, key, tags, anchors and
        validity window (options: agent, allow_secret, anchors, valid_from, valid_to)."""
        from memsite.memory import writes

        return writes.amend(self, ref, content, **options)

    def delete(self, ref: str) -> dict[str, Any]:
        """Remove an entry file; report the entries that come back because of it."""
        from memsite.memory import writes

        return writes.delete(self, ref)

    def log(
        self, text: str, session: str | None = None, allow_secret: bool = False, kind: str = "note"
    ) -> dict[str, Any]:
        """Append a timestamped line to today's daily log of the session."""
        from memsite.memory import writes

        return writes.log(self, text, session, allow_secret, kind)

    def prune(self, before: date | None = None, dry_run: bool = False) -> dict[str, Any]:
        """Delete expired daily logs; with ``before``, inactive entries created before it."""
        from memsite.memory import writes

        return writes.prune(self, before, dry_run)

    def reconcile(self) -> dict[str, Any]:
        """Each anchor of each active fact against today's files (writes nothing)."""
        from memsite.memory import anchors

        return anchors.reconcile(self)

    def verify(
        self,
        ref: str,
        evidence: str | None = None,
        *,
        repin: bool = False,
        agent: str | None = None,
    ) -> dict[str, Any]:
        """Record that a fact still holds (refused for drifted anchors unless ``repin``)."""
        from memsite.memory import records

        return records.verify(self, ref, evidence, repin, agent)

    def retire(self, ref: str, reason: str, *, agent: str | None = None) -> dict[str, Any]:
        """Withdraw a fact without a successor: status ``retired``, its page kept."""
        from memsite.memory import records

        return records.retire(self, ref, reason, agent)

    def relate(
        self,
        source: str,
        target: str,
        link: str,
        *,
        reason: str | None = None,
        agent: str | None = None,
    ) -> dict[str, Any]:
        """A typed link from one fact to another."""
        from memsite.memory import records

        return records.relate(self, source, target, link, reason, agent)

    def approve(
        self, refs: Iterable[str], *, reason: str | None = None, agent: str | None = None
    ) -> dict[str, Any]:
        """Let held-back facts reach agents: an approve record for each (a person's act)."""
        from memsite.memory import records

        return records.approve(self, list(refs), reason, agent)

    def check(self, base: str) -> dict[str, Any]:
        """Problems in the entry files added since the merge base of ``base`` and HEAD."""
        from memsite.memory import check

        return check.check(self, base)

    def read(self, ref: str) -> dict[str, Any]:
        """One entry with ``status``, ``superseded_by`` and its whole ``chain``."""
        from memsite.memory import reads

        return reads.read(self, ref)

    def list_entries(
        self,
        category: str | None = None,
        tag: str | None = None,
        include_all: bool = False,
        limit: int | None = None,
    ) -> list[dict[str, Any]]:
        """Active entries (``include_all``: every status, with ``status``), newest first."""
        from memsite.memory import reads

        return reads.list_entries(self, category, tag, include_all, limit)

    def search(
        self, query: str, category: str | None = None, limit: int = 20, **more: Unpack[Searching]
    ) -> list[dict[str, Any]]:
        """Ranked search by words, meaning or both (more: ``recall.search``'s options)."""
        from memsite.memory import recall

        return recall.search(self, query, category, limit, **more)

    def sessions(self) -> list[dict[str, Any]]:
        """Sessions with daily logs, most recently active first."""
        from memsite.memory import sessions

        return sessions.list_sessions(self)

    def session(self, session: str) -> dict[str, Any]:
        """One session's daily logs."""
        from memsite.memory import sessions

        return sessions.show_session(self, session)

    def compact(self, full: bool = False) -> dict[str, Any]:
        """Bring compacted/ and index.md up to date (``full``: re-read every file first)."""
        from memsite.memory import views

        return views.compact(self, full)

    def context(
        self, budget: int | None = None, session: str | None = None, task: str | None = None
    ) -> str:
        """What an agent gets at session start (see ``context_with_warnings``)."""
        return self.context_with_warnings(budget, session, task)[0]

    def context_with_warnings(
        self, budget: int | None = None, session: str | None = None, task: str | None = None
    ) -> tuple[str, list[str]]:
        """What an agent gets at session start, and warnings (``memory.context``)."""
        from memsite.memory import context

        return context.context(self, budget, session, task)

    def context_report(
        self, budget: int | None = None, session: str | None = None, task: str | None = None
    ) -> dict[str, Any]:
        """`context --json`: the text with the ids it holds, left out and held back."""
        from memsite.memory import context

        return context.context_report(self, budget, session, task)

    def prompt_facts(self, prompt: str, session: str | None = None) -> dict[str, Any]:
        """The few facts most relevant to a runner's prompt, once per session (``focus``)."""
        from memsite.memory import focus

        return focus.prompt_facts(self, prompt, session)

    def index_text(self, budget: int | None = None) -> str:
        """index.md as compaction writes it, within ``budget`` (default: the config's)."""
        from memsite.memory.indexmd import index_text

        return index_text(self, budget or self.config.budget)

    def index_within(
        self, characters: int, shown: Callable[[str], str], first_build: bool = True
    ) -> str | None:
        """The index for the largest budget whose ``shown`` form fits in ``characters``
        (None when the views were never built and not ``first_build``)."""
        from memsite.memory.context import index_within

        return index_within(self, characters, shown, first_build)

    def portal_input(self, known: FileLinks | None = None, tags: str | None = None) -> PortalInput:
        """Everything the portal shows, read once (``memory.portal_input``; ``tags``: the
        releases to show the memory at, a glob)."""
        from memsite.memory.portal_input import NO_LINKS, portal_input

        return portal_input(self, known or NO_LINKS, tags)

    def import_facts(self, path: Path, source: str, **options: Any) -> dict[str, Any]:
        """Write the facts of ``path`` not held yet (options: ``transfer.import_facts``'s)."""
        from memsite.memory import transfer

        return transfer.import_facts(self, path, source, **options)

    def export(self, fmt: str, *, include_all: bool = False, output: Path | None = None) -> Any:
        """The memory as JSONL, a Markdown bundle or a graph (byte-deterministic)."""
        from memsite.memory import transfer

        return transfer.export(self, fmt, include_all=include_all, output=output)

    def findings(self) -> list[Finding]:
        from memsite.memory import review

        return review.findings(self)

    def findings_later(self, fork: bool) -> Later:
        """A review's findings, made in a forked child while the caller works (``fork``)."""
        from memsite.memory import review

        return review.findings_later(self, fork)

    def refuse_unreviewed_secrets(self, action: str) -> None:
        from memsite.memory import review

        review.refuse_unreviewed_secrets(self, action)

    def review(self, full: bool = False) -> dict[str, Any]:
        """Every finding; ``full`` re-reads every entry file first (finds in-place edits)."""
        from memsite.memory import review

        return review.report(self, full)

    def status(self) -> dict[str, Any]:
        from memsite.memory import status

        return status.status(self)
