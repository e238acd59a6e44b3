"""Memory: one opened store and every memsite operation, shared by the CLI and the MCP server.

A thin facade: each method hands plain values to ``writes``, ``reads`` or ``upkeep`` (imported
when first needed, so that each command loads only its own rules) and returns JSON-ready
values; problems are raised as ``MemsiteError`` subclasses whose messages say what to do. The
clock is injected, and so are the environment and the working directory (through
:meth:`Memory.open`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memsite.core.config import Config
from memsite.memory.state import ReadModel, State
from memsite.storage.layout import Store

if TYPE_CHECKING:
    from memsite.core.compaction import Finding
    from memsite.core.entry import Entry
    from memsite.storage.index import Index

__all__ = ["Memory", "State", "clock"]


def clock() -> datetime:
    return datetime.now(UTC)


class Memory:
    """One opened store with its config: every memsite operation."""

    def __init__(
        self,
        store: Store,
        config: Config,
        now: Callable[[], datetime] = clock,
        cwd: Path | None = None,
    ) -> None:
        self.store = store
        self.config = config
        self.now = now
        self.cwd = cwd or store.project_root  # where relative anchor paths start
        self.model = ReadModel(store, config)

    @classmethod
    def open(
        cls,
        explicit: str | None = None,
        env: Mapping[str, str] | None = None,
        cwd: Path | None = None,
        now: Callable[[], datetime] = clock,
    ) -> Memory:
        cwd = cwd or Path.cwd()
        store = Store.locate(explicit, os.environ if env is None else env, cwd)
        return cls(store, store.load_config(), now, cwd)

    # --- what this operation has read -------------------------------------------------------

    def state(self) -> State:
        """Every entry read and compacted."""
        return self.model.state()

    def index(self) -> Index:
        """The indexed read model, up to date with entries/ (see ``storage.index``)."""
        return self.model.synced()

    def fingerprint(self) -> str:
        return self.model.fingerprint()

    def invalidate(self) -> None:
        """Forget what was read (after a write, or to see other writers' entries)."""
        self.model.invalidate()

    def resolve(self, ref: str) -> Entry:
        """An entry by full id or unique prefix of at least 4 hex characters."""
        from memsite.errors import EntryNotFoundError

        index = self.index()
        entry = index.by_id(index.match_id(ref))
        if entry is None:  # removed meanwhile
            raise EntryNotFoundError(f"no entry with id {ref!r}: it was removed meanwhile")
        return entry

    # --- writing ----------------------------------------------------------------------------

    def add(
        self,
        content: str,
        category: str,
        *,
        tags: Iterable[str] = (),
        supersedes: Iterable[str] = (),
        reason: str | None = None,
        confidence: str | None = None,
        agent: str | None = None,
        key: str | None = None,
        allow_secret: bool = False,
        anchors: Iterable[str] = (),
    ) -> dict[str, Any]:
        """Write one entry unless an active entry of the category says the same already;
        ``anchors`` (``PATH[:START-END]``) tie it to files of the project as they are now."""
        from memsite.memory import writes

        return writes.add(
            self,
            content,
            category,
            tags=tags,
            supersedes=supersedes,
            reason=reason,
            confidence=confidence,
            agent=agent,
            key=key,
            allow_secret=allow_secret,
            anchors=anchors,
        )

    def amend(
        self,
        ref: str,
        content: str,
        *,
        agent: str | None = None,
        allow_secret: bool = False,
        anchors: Iterable[str] | None = None,
    ) -> dict[str, Any]:
        """Supersede an entry with new content, keeping its category, key, tags, confidence
        (and its anchors, re-pinned to the files as they are now, unless ``anchors`` given)."""
        from memsite.memory import writes

        return writes.amend(
            self, ref, content, agent=agent, allow_secret=allow_secret, anchors=anchors
        )

    # --- claims: anchors, verification, retirement, links ------------------------------------

    def reconcile(self) -> dict[str, Any]:
        """Each anchor of each active fact against today's files (writes nothing)."""
        from memsite.memory import claims

        return claims.reconcile(self)

    def verify(
        self,
        ref: str,
        evidence: str | None = None,
        *,
        repin: bool = False,
        agent: str | None = None,
    ) -> dict[str, Any]:
        """Record that a fact still holds (refused for drifted anchors unless ``repin``)."""
        from memsite.memory import claims

        return claims.verify(self, ref, evidence, repin, agent)

    def retire(self, ref: str, reason: str, *, agent: str | None = None) -> dict[str, Any]:
        """Withdraw a fact without a successor: status ``retired``, its page kept."""
        from memsite.memory import claims

        return claims.retire(self, ref, reason, agent)

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
        from memsite.memory import claims

        return claims.relate(self, source, target, link, reason, agent)

    def check(self, base: str) -> dict[str, Any]:
        """Problems in the entry files added since the merge base of ``base`` and HEAD."""
        from memsite.memory import check

        return check.check(self, base)

    def delete(self, ref: str) -> dict[str, Any]:
        """Remove an entry file; report the entries that come back because of it."""
        from memsite.memory import writes

        return writes.delete(self, ref)

    def log(
        self,
        text: str,
        session: str | None = None,
        allow_secret: bool = False,
        kind: str = "note",
    ) -> dict[str, Any]:
        """Append a timestamped line to today's daily log of the session."""
        from memsite.memory import writes

        return writes.log(self, text, session, allow_secret, kind)

    def sessions(self) -> list[dict[str, Any]]:
        """Sessions with daily logs, most recently active first."""
        from memsite.memory import sessions

        return sessions.list_sessions(self)

    def session(self, session: str) -> dict[str, Any]:
        """One session's daily logs."""
        from memsite.memory import sessions

        return sessions.show_session(self, session)

    # --- reading ----------------------------------------------------------------------------

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
        self,
        query: str,
        category: str | None = None,
        limit: int = 20,
        include_all: bool = False,
        daily: bool = False,
        expand: bool = False,
    ) -> list[dict[str, Any]]:
        """Ranked search over content, tags and keys (and daily logs with ``daily``); with
        ``expand``, the facts linked to the hits follow, each with ``via``."""
        from memsite.memory import reads

        return reads.search(self, query, category, limit, include_all, daily, expand)

    def context(self, budget: int | None = None, session: str | None = None) -> str:
        """index.md within the budget (compacting first when the views are stale), then the
        last session's open work (not ``session``'s, the current one) when configured."""
        from memsite.memory import upkeep

        return upkeep.context(self, budget, session)[0]

    def context_with_warnings(
        self, budget: int | None = None, session: str | None = None
    ) -> tuple[str, list[str]]:
        from memsite.memory import upkeep

        return upkeep.context(self, budget, session)

    # --- in and out -------------------------------------------------------------------------

    def import_facts(
        self,
        path: Path,
        source: str,
        *,
        category: str | None = None,
        dry_run: bool = False,
        allow_secret: bool = False,
    ) -> dict[str, Any]:
        """Write the facts of ``path`` (agents-md, mcp-memory or jsonl) not held yet."""
        from memsite.memory import transfer

        return transfer.import_facts(
            self, path, source, category=category, dry_run=dry_run, allow_secret=allow_secret
        )

    def export(
        self, fmt: str, *, include_all: bool = False, output: Path | None = None
    ) -> dict[str, Any]:
        """The memory as JSONL or a Markdown bundle (byte-deterministic)."""
        from memsite.memory import transfer

        return transfer.export(self, fmt, include_all=include_all, output=output)

    # --- upkeep -----------------------------------------------------------------------------

    def is_fresh(self) -> bool:
        from memsite.memory import upkeep

        return upkeep.is_fresh(self)

    def ensure_fresh(self) -> bool:
        from memsite.memory import upkeep

        return upkeep.ensure_fresh(self)

    def compact(self, full: bool = False) -> dict[str, Any]:
        """Bring compacted/ and index.md up to date (``full``: re-read and rebuild everything);
        prune expired daily logs and stale temporaries."""
        from memsite.memory import upkeep

        return upkeep.compact(self, full)

    def findings(self) -> list[Finding]:
        from memsite.memory import upkeep

        return upkeep.findings(self)

    def secret_findings(self) -> list[Finding]:
        from memsite.memory import upkeep

        return upkeep.secret_findings(self)

    def refuse_unreviewed_secrets(self, action: str) -> None:
        from memsite.memory import upkeep

        upkeep.refuse_unreviewed_secrets(self, action)

    def review(self, full: bool = False) -> dict[str, Any]:
        """Every finding; ``full`` re-reads every entry file first (finds in-place edits)."""
        if full:
            self.invalidate()
            self.model.synced(full=True)
        return {"findings": [f.as_dict() for f in self.findings()]}

    def status(self) -> dict[str, Any]:
        from memsite.memory import upkeep

        return upkeep.status(self)

    def prune(self, before: date | None = None, dry_run: bool = False) -> dict[str, Any]:
        """Delete expired daily logs; with ``before``, inactive entries created before it."""
        from memsite.memory import upkeep

        return upkeep.prune(self, before, dry_run)
