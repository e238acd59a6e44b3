"""The operations of memsite, shared by the CLI and the MCP server.

Each method takes plain values and returns JSON-ready values; problems are raised as
``MemsiteError`` subclasses whose messages say what to do. The clock is injected.
"""

from __future__ import annotations

import builtins
import contextlib
import hashlib
import json
import marshal
import os
import re
import zlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memsite import __version__
from memsite.compaction import ACTIVE, STATUSES, Compaction, Finding, compact
from memsite.config import Config
from memsite.entry import (
    MAX_FUTURE,
    Entry,
    build_entry,
    check_name,
    entry_from_object,
    is_uuid,
    normalize,
    parse_entry,
    split_tags,
)
from memsite.errors import (
    AmbiguousIdError,
    EntryNotFoundError,
    InvalidInputError,
    MemsiteError,
    SecretFoundError,
)
from memsite.secrets import ALLOW_KEY, REDACTED_FIELDS, redact_object
from memsite.secrets import describe as describe_secrets
from memsite.secrets import entry_findings as entry_secret_findings
from memsite.secrets import redact as redact_secrets
from memsite.secrets import scan as scan_secrets
from memsite.similarity import NEAR_DUPLICATE_THRESHOLD, similar_pairs, similar_to, token_set
from memsite.snapshot import Snapshot, build_snapshot, content_digest
from memsite.store import Scan, Store, clock, combine_stamps

if TYPE_CHECKING:
    from memsite.search import Corpus

_ID_INPUT_RE = re.compile(r"[0-9a-f][0-9a-f-]{3,35}")
STATE_FILE = "state.json"
SNAPSHOT_FILE = "snapshot.marshal"
SECRETS_FILE = "secrets.marshal"


@dataclass
class State:
    scan: Scan
    result: Compaction


def _entry_json(entry: Entry, **extra: Any) -> dict[str, Any]:
    """The on-disk object for output, with suspected secrets redacted (unless allowed)."""
    shown = redact_object(entry.raw) if entry.is_suspect() else dict(entry.raw)
    return {**shown, **extra}


def _refuse_secrets(obj: Mapping[str, Any], allow: bool) -> bool:
    """Raise if a field of a new entry looks like it holds a secret; True if one was allowed."""
    found = False
    for name in REDACTED_FIELDS:
        value = obj.get(name)
        if isinstance(value, str):
            hits = scan_secrets(value)
            if hits and not allow:
                raise SecretFoundError(
                    f"{describe_secrets(name, value, hits)}: remove it (use an environment "
                    "variable or vault path instead), or pass --allow-secret "
                    "(allow_secret=true over MCP) if it is a reviewed false positive"
                )
            found = found or bool(hits)
    for tag in obj.get("tags") or []:
        hits = scan_secrets(tag)
        if hits:
            if not allow:
                raise SecretFoundError(
                    f"{describe_secrets('a tag', tag, hits)}: remove it, or pass --allow-secret "
                    "if it is a reviewed false positive"
                )
            found = True
    return found


class Memory:
    """One opened store with its config: every memsite operation."""

    def __init__(self, store: Store, config: Config, now: Callable[[], datetime] = clock) -> None:
        self.store = store
        self.config = config
        self.now = now
        self._state: State | None = None
        self._snapshot: Snapshot | None = None
        self._fingerprint: str | None = None

    @classmethod
    def open(
        cls,
        explicit: str | None = None,
        env: Mapping[str, str] | None = None,
        cwd: Path | None = None,
        now: Callable[[], datetime] = clock,
    ) -> Memory:
        store = Store.locate(explicit, os.environ if env is None else env, cwd or Path.cwd())
        return cls(store, store.load_config(), now)

    # --- state ------------------------------------------------------------------------------

    def state(self) -> State:
        """Every entry read and compacted (and the snapshot refreshed while at it)."""
        if self._state is None:
            scan = self.store.scan()
            self._state = State(scan, compact(scan.entries, self.config.categories))
        return self._state

    def snapshot(self) -> Snapshot:
        """The slim read model of the active entries, rebuilt only when entries/ changed."""
        if self._snapshot is not None:
            return self._snapshot
        path = self.store.cache_dir / SNAPSHOT_FILE
        fingerprint = self.fingerprint()
        try:
            cached = Snapshot.load(path.read_bytes(), fingerprint)
        except OSError:
            cached = None
        if cached is None:
            state = self.state()
            cached = build_snapshot(state.result, state.scan.fingerprint)
            self._save_snapshot(cached)
        self._snapshot = cached
        return cached

    def _refresh_snapshot(self) -> None:
        """Rebuild a stale snapshot now (after a merge, say) rather than in the next `add`."""
        path = self.store.cache_dir / SNAPSHOT_FILE
        try:
            with open(path, "rb") as handle:
                head = handle.read(64)
        except OSError:
            head = b""
        if Snapshot.fingerprint_of(head) != self.fingerprint():
            state = self.state()
            self._save_snapshot(build_snapshot(state.result, state.scan.fingerprint))

    def _save_snapshot(self, snapshot: Snapshot) -> None:
        # Only an optimisation: a read-only store works without it.
        try:
            self.store.cache_dir.mkdir(exist_ok=True)
            self.store.write_derived(self.store.cache_dir / SNAPSHOT_FILE, snapshot.dump())
        except OSError:
            pass

    def _invalidate(self) -> None:
        self._state = None
        self._snapshot = None
        self._fingerprint = None

    def fingerprint(self) -> str:
        """The fingerprint of entries/, computed once per operation."""
        if self._state is not None:
            return self._state.scan.fingerprint
        if self._fingerprint is None:
            self._fingerprint = self.store.fingerprint()
        return self._fingerprint

    def resolve(self, ref: str) -> Entry:
        """An entry by full id or unique prefix of at least 4 hex characters."""
        by_id = self.state().result.by_id
        return by_id[self._match_id(ref, by_id)]

    def _match_id(self, ref: str, ids: Iterable[str]) -> str:
        value = ref.strip().lower()
        if not _ID_INPUT_RE.fullmatch(value) or sum(c != "-" for c in value[:4]) < 4:
            raise InvalidInputError(
                f"invalid id {ref!r}: give a full entry id or a prefix of at least 4 hex characters"
            )
        known = ids if isinstance(ids, (set, dict)) else set(ids)
        if value in known:
            return value
        matches = sorted(i for i in known if i.startswith(value))
        if not matches:
            raise EntryNotFoundError(
                f"no entry with id {ref!r}: find ids with `memsite list` or `memsite search`"
            )
        if len(matches) > 1:
            shown = ", ".join(m[:13] for m in matches[:10])
            more = f" and {len(matches) - 10} more" if len(matches) > 10 else ""
            raise AmbiguousIdError(
                f"id prefix {ref!r} matches {len(matches)} entries ({shown}{more}): "
                "give more characters"
            )
        return matches[0]

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
    ) -> dict[str, Any]:
        """Write one entry, unless an active entry of the category already says the same.

        Content, tags, key and reason that look like they hold a credential are refused unless
        ``allow_secret`` marks a reviewed false positive (recorded in the entry).
        """
        tags = list(tags)
        raw_tags = [t.strip() for value in tags for t in value.split(",") if t.strip()]
        # Before any validation, so that no error message can echo a pasted credential.
        allowed = _refuse_secrets(
            {"content": content, "key": key, "reason": reason, "agent": agent, "tags": raw_tags},
            allow_secret,
        )
        warnings: list[str] = []
        snapshot = self.snapshot()
        targets: list[str] = []
        for ref in supersedes:
            ref = ref.strip()
            if is_uuid(ref) and ref.lower() not in snapshot.ids:
                targets.append(ref.lower())
                warnings.append(
                    f"supersedes {ref.lower()}, which is not in this checkout "
                    "(fine if it lives on another branch)"
                )
            else:
                targets.append(self._match_id(ref, snapshot.ids))
        obj = build_entry(
            content=content,
            category=category,
            categories=self.config.categories,
            created=self.now(),
            tags=split_tags(tags),
            supersedes=targets,
            confidence=confidence,
            agent=agent,
            key=key,
            reason=reason,
            limits=self.config.limits,
        )
        if allowed:
            obj[ALLOW_KEY] = True
        replaced = set(targets)
        normalized = normalize(content)
        peers = [i for i in snapshot.rows(category) if snapshot.id[i] not in replaced]
        digest = content_digest(normalized)
        for i in peers:
            if snapshot.digest[i] == digest and self._same_content(
                snapshot.filename[i], normalized
            ):
                return {
                    "status": "duplicate",
                    "id": snapshot.id[i],
                    "path": str(self.store.entry_path(snapshot.filename[i])),
                    "near_duplicates": [],
                    "warnings": warnings,
                }
        mine = token_set(normalized)
        # Jaccard ≥ t needs set sizes within a factor t: filter on the stored sizes first.
        low, high = len(mine) * NEAR_DUPLICATE_THRESHOLD, len(mine) / NEAR_DUPLICATE_THRESHOLD
        candidates = [
            (snapshot.id[i], snapshot.content_words(i))
            for i in peers
            if low <= snapshot.words[i] <= high
        ]
        near = similar_to(mine, candidates)
        path, obj = self.store.write_entry(obj)
        self._invalidate()
        self._extend_snapshot(snapshot, path, obj)
        return {
            "status": "written",
            "id": obj["id"],
            "path": str(path),
            "near_duplicates": [{"id": i, "similarity": s} for i, s in near],
            "warnings": warnings,
        }

    def _same_content(self, filename: str, normalized: str) -> bool:
        """Confirm a digest match against the entry file itself."""
        try:
            entry = parse_entry(self.store.entry_path(filename).read_bytes(), filename)
        except (OSError, MemsiteError):
            return False
        return entry.normalized == normalized

    def _extend_snapshot(self, snapshot: Snapshot, path: Path, obj: dict[str, Any]) -> None:
        """Carry the snapshot over to the store with our new entry, when that is sound."""
        try:
            entry = entry_from_object(obj, path.name)
            fingerprint = combine_stamps([self.store.file_stamp(path)], start=snapshot.fingerprint)
        except (OSError, MemsiteError):
            return
        updated = snapshot.with_new_entry(entry, fingerprint)
        if updated is not None:
            self._save_snapshot(updated)

    def amend(
        self, ref: str, content: str, *, agent: str | None = None, allow_secret: bool = False
    ) -> dict[str, Any]:
        """Supersede an entry with new content, keeping its category, key, tags and confidence."""
        old = self.resolve(ref)
        if old.category not in self.config.categories:
            raise InvalidInputError(
                f"entry {old.short_id} is in category {old.category!r}, which the config does "
                "not allow: add it to memory.categories or use `memsite add` with a category"
            )
        return self.add(
            content,
            old.category,
            tags=old.tags,
            supersedes=[old.id],
            confidence=old.confidence,
            agent=agent,
            key=old.key,
            reason="amended",
            allow_secret=allow_secret,
        )

    def delete(self, ref: str) -> dict[str, Any]:
        """Remove an entry file; report the entries that come back because of it."""
        entry = self.resolve(ref)
        before = {e.id for e in self.state().result.active()}
        path = self.store.delete_entry_file(entry.filename)
        self._invalidate()
        after = self.state().result.active()
        revived = [e.id for e in after if e.id not in before]
        return {"status": "deleted", "id": entry.id, "path": str(path), "revived": revived}

    def log(
        self, text: str, session: str | None = None, allow_secret: bool = False
    ) -> dict[str, Any]:
        """Append a timestamped line to today's daily log of the session."""
        session = session or "default"
        check_name("session", session)
        if not text.strip():
            raise InvalidInputError("log text is empty: give the note to record")
        if len(text) > self.config.limits.content_max:
            raise InvalidInputError(
                f"log text is over {self.config.limits.content_max} characters: shorten it"
            )
        _refuse_secrets({"content": text}, allow_secret)
        path = self.store.append_log(text, session, self.now())
        return {"status": "logged", "path": str(path), "session": session}

    # --- reading ----------------------------------------------------------------------------

    def read(self, ref: str) -> dict[str, Any]:
        entry = self.resolve(ref)
        result = self.state().result
        return _entry_json(
            entry,
            status=result.status[entry.id],
            superseded_by=list(result.superseded_by.get(entry.id, [])),
            chain=[
                {
                    "id": e.id,
                    "created": e.raw["created"],
                    "status": result.status[e.id],
                    "content": _entry_json(e)["content"],
                }
                for e in result.chain(entry.id)
            ],
            file=entry.filename,
        )

    def list(
        self,
        category: str | None = None,
        tag: str | None = None,
        include_all: bool = False,
        limit: int | None = None,
    ) -> builtins.list[dict[str, Any]]:
        result = self.state().result
        if category is not None:
            check_name("category", category)
        if tag is not None:
            tag = check_name("tag", tag.lower())
        chosen = [
            e
            for e in (result.entries if include_all else result.active())
            if (category is None or e.category == category) and (tag is None or tag in e.tags)
        ]
        if limit is not None:
            chosen = chosen[: max(limit, 0)]
        if include_all:
            return [_entry_json(e, status=result.status[e.id]) for e in chosen]
        return [_entry_json(e) for e in chosen]

    def search(
        self,
        query: str,
        category: str | None = None,
        limit: int = 20,
        include_all: bool = False,
        daily: bool = False,
    ) -> builtins.list[dict[str, Any]]:
        from memsite.search import entry_corpus, rank

        if not query.strip():
            raise InvalidInputError("search query is empty: give words to look for")
        if category is not None:
            check_name("category", category)
        if include_all:
            pool = self.state().result.entries
            corpus = entry_corpus(e for e in pool if category is None or e.category == category)
        else:
            corpus = self.snapshot().corpus(category)
        if daily:
            self._add_daily_lines(corpus)
        out: builtins.list[dict[str, Any]] = []
        for hit in rank(corpus, query, self.now(), limit=max(limit, 0)):
            if not hit.ref:
                out.append(
                    {
                        "source": "daily",
                        "file": hit.file,
                        "line": hit.line,
                        "text": redact_secrets(hit.text),
                        "score": hit.score,
                    }
                )
                continue
            entry = self._load_hit(hit.ref, hit.file)
            if entry is None:
                continue
            if include_all:
                status = self.state().result.status[entry.id]
                out.append(_entry_json(entry, score=hit.score, status=status))
            else:
                out.append(_entry_json(entry, score=hit.score))
        return out

    def _load_hit(self, ref: str, filename: str) -> Entry | None:
        if self._state is not None:
            return self._state.result.by_id.get(ref)
        try:
            return parse_entry(self.store.entry_path(filename).read_bytes(), filename)
        except (OSError, MemsiteError):
            return None  # removed or broken since the snapshot was taken

    def _add_daily_lines(self, corpus: Corpus) -> None:
        from memsite.entry import word_tokens

        for day, path in self.store.daily_logs():
            try:
                lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
            except OSError:
                continue
            created = datetime(day.year, day.month, day.day, tzinfo=UTC).timestamp()
            for number, line in enumerate(lines, 1):
                if line.startswith("- "):
                    tokens = word_tokens(normalize(line[2:]))
                    corpus.add(
                        tokens, created, file=f"daily/{path.name}", line=number, text=line[2:]
                    )

    # --- derived views ----------------------------------------------------------------------

    def _state_stamp(self) -> dict[str, str]:
        return {
            "entries": self.fingerprint(),
            "config": hashlib.sha256(self.store.config_bytes()).hexdigest(),
            "version": __version__,
        }

    def is_fresh(self) -> bool:
        try:
            saved = json.loads((self.store.cache_dir / STATE_FILE).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return False
        return (
            saved == self._state_stamp()
            and self.store.index_path.is_file()
            and self.store.compacted_dir.is_dir()
        )

    def compact(self) -> dict[str, Any]:
        """Rebuild compacted/ and index.md; prune expired daily logs and stale temporaries."""
        from memsite.views import compacted_files, render_index

        state = self.state()
        result = state.result
        self._refresh_snapshot()
        files = compacted_files(result)
        written: builtins.list[str] = []
        removed: builtins.list[str] = []
        try:
            for name, text in files.items():
                if self.store.write_derived(self.store.compacted_dir / name, text.encode()):
                    written.append(f"compacted/{name}")
            for path in sorted(self.store.compacted_dir.glob("*.md")):
                if path.name not in files and _is_generated(path):
                    path.unlink()
                    removed.append(f"compacted/{path.name}")
            index = render_index(result, self.config.categories, self.config.budget)
            if self.store.write_derived(self.store.index_path, index.encode()):
                written.append("index.md")
            pruned = self._prune_daily(dry_run=False)
            temporaries = 0
            for tmp in self.store.stale_temporaries(self.now().timestamp()):
                tmp.unlink(missing_ok=True)
                temporaries += 1
            self.store.cache_dir.mkdir(exist_ok=True)
            self.store.write_derived(
                self.store.cache_dir / STATE_FILE,
                (json.dumps(self._state_stamp(), sort_keys=True) + "\n").encode(),
            )
        except OSError as exc:
            raise MemsiteError(
                f"cannot write derived files in {self.store.root}: {exc.strerror}"
            ) from None
        counts = self._counts(result)
        return {
            **counts,
            "invalid": len(state.scan.invalid),
            "written": written,
            "removed": removed,
            "pruned_daily": pruned,
            "removed_temporaries": temporaries,
        }

    def ensure_fresh(self) -> bool:
        """Compact when the views are stale and autoCompact is on; are they fresh now?"""
        if self.is_fresh():
            return True
        if self.config.auto_compact:
            self.compact()
            return True
        return False

    def context(self, budget: int | None = None) -> str:
        """index.md within the budget, compacting first when the views are stale."""
        if budget is not None and budget < 1:
            raise InvalidInputError("budget must be a positive number of tokens")
        from memsite.views import render_index

        if self.ensure_fresh() and budget is None:
            return self.store.index_path.read_text(encoding="utf-8")
        return render_index(
            self.state().result, self.config.categories, budget or self.config.budget
        )

    # --- review, status, prune --------------------------------------------------------------

    def findings(self) -> builtins.list[Finding]:
        state = self.state()
        result = state.result
        found: builtins.list[Finding] = [
            Finding("invalid_file", (), (f.filename,), f"{f.filename}: {f.message}; skipped")
            for f in state.scan.invalid
        ]
        found.extend(result.findings)
        for category in result.categories:
            active = result.active(category)
            items = [(e.id, token_set(e.normalized)) for e in active]
            for a, b, score in similar_pairs(items):
                ea, eb = result.by_id[a], result.by_id[b]
                found.append(
                    Finding(
                        "near_duplicate",
                        (a, b),
                        (ea.filename, eb.filename),
                        f"{ea.short_id} and {eb.short_id} in {category} are {score:.0%} similar: "
                        "supersede one or merge them",
                    )
                )
        unknown: dict[str, list[Entry]] = {}
        for entry in result.entries:
            if entry.category not in self.config.categories:
                unknown.setdefault(entry.category, []).append(entry)
        for category, members in sorted(unknown.items()):
            found.append(
                Finding(
                    "unknown_category",
                    tuple(e.id for e in members),
                    tuple(e.filename for e in members),
                    f"{len(members)} entries in category {category!r}, which the config does not "
                    "list: add it to memory.categories (weight 1 is used meanwhile)",
                )
            )
        found.extend(self.secret_findings())
        limit = self.now() + MAX_FUTURE
        for entry in result.entries:
            if entry.created > limit:
                found.append(
                    Finding(
                        "future_timestamp",
                        (entry.id,),
                        (entry.filename,),
                        f"{entry.short_id} is dated {entry.raw['created']}, in the future: it "
                        "would win every contradiction; supersede it with a correctly dated entry",
                    )
                )
        return found

    def secret_findings(self) -> builtins.list[Finding]:
        """Entries whose full detect-secrets scan finds something (and that are not allowed).

        The full scan costs ~0.2 ms a text, so its verdicts are cached per entry file and text.
        """
        path = self.store.cache_dir / SECRETS_FILE
        try:
            version, cached = marshal.loads(path.read_bytes())
            if version != (1, __version__) or not isinstance(cached, dict):
                cached = {}
        except (OSError, EOFError, ValueError, TypeError):
            cached = {}
        fresh: dict[str, tuple[int, builtins.list[str]]] = {}
        found: builtins.list[Finding] = []
        for entry in self.state().result.entries:
            digest = zlib.crc32(repr(sorted(entry.raw.items())).encode())
            hit = cached.get(entry.filename)
            if hit is not None and hit[0] == digest:
                messages = hit[1]
            else:
                messages = [message for _, message in entry_secret_findings(entry.raw)]
            fresh[entry.filename] = (digest, messages)
            found.extend(
                Finding(
                    "secret",
                    (entry.id,),
                    (entry.filename,),
                    f"{entry.short_id}: {message}; it is redacted everywhere memsite "
                    "publishes: remove the entry (and rotate the credential if it reached "
                    "git), or mark a false positive by rewriting it with --allow-secret",
                )
                for message in messages
            )
        if fresh != cached:
            with contextlib.suppress(OSError):
                self.store.cache_dir.mkdir(exist_ok=True)
                self.store.write_derived(path, marshal.dumps(((1, __version__), fresh)))
        return found

    def refuse_unreviewed_secrets(self, action: str) -> None:
        """Stop ``action`` (a publishing command) while a suspected secret is in the memory."""
        secrets_found = self.secret_findings()
        if secrets_found:
            ids = sorted({f.ids[0][:8] for f in secrets_found})
            shown = ", ".join(ids[:10]) + (f" and {len(ids) - 10} more" if len(ids) > 10 else "")
            raise MemsiteError(
                f"{action} refuses to publish: {len(ids)} entries hold suspected secrets "
                f"({shown}); see `memsite review`, then delete each (rotate the credential if it "
                "reached git) or rewrite a reviewed false positive with --allow-secret"
            )

    def review(self) -> dict[str, Any]:
        return {"findings": [f.as_dict() for f in self.findings()]}

    def _counts(self, result: Compaction) -> dict[str, Any]:
        by_status = dict.fromkeys(STATUSES, 0)
        by_category: dict[str, dict[str, int]] = {
            c: dict.fromkeys(STATUSES, 0) for c in result.categories
        }
        for entry in result.entries:
            status = result.status[entry.id]
            by_status[status] += 1
            by_category[entry.category][status] += 1
        return {"entries": len(result.entries), **by_status, "categories": by_category}

    def status(self) -> dict[str, Any]:
        state = self.state()
        logs = self.store.daily_logs()
        return {
            "store": str(self.store.root),
            **self._counts(state.result),
            "invalid": len(state.scan.invalid),
            "derived": "fresh" if self.is_fresh() else "stale",
            "daily_logs": len(logs),
            "findings": len(self.findings()),
        }

    def _expired_logs(self) -> builtins.list[Path]:
        cutoff = self.now().date() - timedelta(days=self.config.daily_retention_days)
        return [path for day, path in self.store.daily_logs() if day < cutoff]

    def _prune_daily(self, dry_run: bool) -> builtins.list[str]:
        pruned = []
        for path in self._expired_logs():
            if not dry_run:
                path.unlink(missing_ok=True)
            pruned.append(f"daily/{path.name}")
        return pruned

    def prune(self, before: date | None = None, dry_run: bool = False) -> dict[str, Any]:
        """Delete expired daily logs; with ``before``, inactive entries created before it too."""
        entries: builtins.list[str] = []
        if before is not None:
            doomed = self._prunable(before)
            result = self.state().result
            for entry in result.entries:
                if entry.id in doomed:
                    entries.append(entry.id)
                    if not dry_run:
                        self.store.delete_entry_file(entry.filename)
            if not dry_run:
                self._invalidate()
        daily = self._prune_daily(dry_run)
        return {"dry_run": dry_run, "entries": entries, "daily": daily}

    def _prunable(self, before: date) -> set[str]:
        """Inactive entries created before ``before`` whose removal revives nothing."""
        result = self.state().result
        cutoff = datetime(before.year, before.month, before.day, tzinfo=UTC)
        doomed = {
            e.id for e in result.entries if result.status[e.id] != ACTIVE and e.created < cutoff
        }
        # An entry goes only together with everything it transitively supersedes.
        changed = True
        while changed:
            changed = False
            for entry_id in sorted(doomed):
                if any(r.id not in doomed for r in result.replaced(entry_id)):
                    doomed.discard(entry_id)
                    changed = True
        # Duplicate and key groups can also hand the win back to an older entry: check by
        # compacting what would remain, and keep whatever a revival depends on.
        active_now = {e.id for e in result.active()}
        while doomed:
            remaining = [e for e in result.entries if e.id not in doomed]
            after = compact(remaining, self.config.categories)
            revived = [e for e in after.active() if e.id not in active_now]
            if not revived:
                break
            size = len(doomed)
            for entry in revived:
                for other in result.entries:
                    if other.id in doomed and (
                        (other.category, other.normalized) == (entry.category, entry.normalized)
                        or (
                            entry.key and (other.category, other.key) == (entry.category, entry.key)
                        )
                        or entry.id in {r.id for r in result.replaced(other.id)}
                    ):
                        doomed.discard(other.id)
            if len(doomed) == size:  # nothing to blame: prune nothing rather than revive
                return set()
        return doomed


def _is_generated(path: Path) -> bool:
    from memsite.views import COMPACTED_HEADER

    try:
        with open(path, encoding="utf-8") as handle:
            return handle.readline() == COMPACTED_HEADER.splitlines()[0]
    except (OSError, UnicodeDecodeError):
        return False


def parse_date(value: str) -> date:
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise InvalidInputError(f"invalid date {value!r}: use YYYY-MM-DD") from None
