"""Writing to the memory: add (with duplicate and near-duplicate checks), amend, delete, log,
prune; and the one locked write every entry and record file goes through (:func:`write_locked`).

Writes hold the store's write lock from the duplicate check to the new file, so the same fact
written by racing agents lands once. Text that looks like a credential is refused before any
other check, so that no error message can echo it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from datetime import date
from typing import TYPE_CHECKING, Any

from memsite.core.anchors import Anchor
from memsite.core.ids import is_uuid
from memsite.core.secrets import ALLOW_KEY, refuse_secrets
from memsite.core.similarity import NEAR_DUPLICATE_THRESHOLD, similar_to, token_set
from memsite.core.text import normalize, split_names
from memsite.core.validate import build_entry, check_name, check_text
from memsite.errors import InvalidInputError
from memsite.memory.shapes import content_of, write_answer
from memsite.storage.daily import append_log
from memsite.storage.entries import delete_entry_file, random_id, write_indexed

if TYPE_CHECKING:
    from pathlib import Path

    from memsite.memory import Memory
    from memsite.storage.readmodel import Index


def write_locked(
    memory: Memory,
    decide: Callable[[], dict[str, Any] | None],
    new_id: Callable[[], str] | None = None,
) -> tuple[Path, dict[str, Any]] | None:
    """Write the object ``decide`` gives (None: nothing) under the store's write lock, with
    the index as every writer before the lock left it (``storage.entries.write_indexed``)."""

    def decided() -> dict[str, Any] | None:
        memory.invalidate()  # what other writers added before the lock counts
        return decide()

    if new_id is None:
        done = write_indexed(memory.store, memory.model.index, decided)
    else:
        done = write_indexed(memory.store, memory.model.index, decided, new_id)
    if done is not None:
        memory.model.written()
    return done


def _targets(index: Index, supersedes: Iterable[str]) -> tuple[list[str], list[str]]:
    """Full ids of the entries superseded, and warnings for ids not in this checkout."""
    targets: list[str] = []
    warnings: list[str] = []
    for ref in supersedes:
        from memsite.core.ids import id_reference

        ref = ref.strip()
        value = id_reference(ref)
        if is_uuid(ref) and not index.entries.has_id(value):
            targets.append(value)
            warnings.append(
                f"supersedes {value}, which is not in this checkout "
                "(fine if it lives on another branch)"
            )
        else:
            targets.append(index.entries.match_id(ref))
    return targets, warnings


def add(
    memory: Memory,
    content: str,
    category: str,
    *,
    tags: Iterable[str] = (),
    supersedes: Iterable[str] = (),
    allow_secret: bool = False,
    anchors: Iterable[str] | Sequence[Anchor] = (),
    **fields: str | None,
) -> dict[str, Any]:
    """Write one entry, unless an active entry of the category already says the same.

    ``fields`` are reason, confidence, agent, key, valid_from and valid_to (its validity
    window: a fact out of it now is written, with a warning). Text that looks like a credential is
    refused unless ``allow_secret`` marks a reviewed false positive (recorded in the entry).
    ``anchors`` are ``PATH[:START-END]`` specs (or anchors made already).
    """
    from memsite.memory.anchors import anchors_from_specs

    tags = list(tags)
    # Before any validation, so that no error message can echo a pasted credential; tags as
    # given (lower-casing would hide the shape of many tokens).
    as_given = split_names(tags, lower=False)
    allowed = refuse_secrets({"content": content, **fields}, as_given, allow_secret)
    given = list(anchors)
    specs = [a for a in given if isinstance(a, str)]
    pinned = [a for a in given if isinstance(a, Anchor)]
    pinned += anchors_from_specs(memory, specs, memory.cwd) if specs else []
    answer: dict[str, Any] = {}

    def decide() -> dict[str, Any] | None:
        obj, found = _checked(memory, content, category, tags, supersedes, pinned, fields)
        answer.update(found)
        if obj is not None and allowed:
            obj[ALLOW_KEY] = True
        return obj

    done = write_locked(memory, decide)
    if done is not None:
        path, obj = done
        answer.update(id=obj["id"], path=str(path))
        if obj.get("key"):
            answer["warnings"] += _overridden_on_arrival(memory, obj)
        answer["warnings"] += _conflicts_on_arrival(memory, obj)
        answer["warnings"] += _out_of_window(memory, obj)
    return answer


def _out_of_window(memory: Memory, obj: dict[str, Any]) -> list[str]:
    """Said when the new fact does not hold now, so that the writer knows agents do not get
    it (a past fact recorded for its history, or one that starts later)."""
    from memsite.core.entry import read_window
    from memsite.core.standing import EXPIRED, window_state

    state = window_state(read_window(obj), memory.now())
    if state is None:
        return []
    if state == EXPIRED:
        return [f"valid_to {obj['valid_to']} is past: the fact is expired, out of the index"]
    return [f"valid_from {obj['valid_from']} is ahead: the fact stays out of the index until then"]


CONFLICT_CANDIDATES = 20  # the active facts of its category a search ranks first, per query


def _conflicts_on_arrival(memory: Memory, obj: dict[str, Any]) -> list[str]:
    """The active facts of the new fact's category it may conflict with (``core.conflicts``,
    the rule `review` applies), among those a search for its words ranks first: no pass over
    the store. Said, as near duplicates are, so that the writer supersedes the wrong one or
    says that both hold."""
    from memsite.core.conflicts import SLOT_THRESHOLD, SUBJECT_SHARED_MIN, assertion_of, differ
    from memsite.core.schema import ACTIVE
    from memsite.core.stem import stem

    index = memory.index()
    if index.entries.statuses_of([obj["id"]]).get(obj["id"]) != ACTIVE:
        return []  # overridden on arrival (said apart), or not kept
    mine = assertion_of(obj["id"], normalize(obj["content"]))
    words = sorted(mine.subject | {stem(n) for n in mine.names if n.isalnum()})
    if not words:
        return []
    found = index.search.candidates(
        [[w] for w in words], category=obj["category"], include_all=False, limit=CONFLICT_CANDIDATES
    )
    # Two facts that may conflict share at least two of the subject's words and a quarter of
    # them (``core.conflicts``): the candidates' analysed terms tell, before any is rebuilt.
    need = max(SUBJECT_SHARED_MIN, math.ceil(SLOT_THRESHOLD * len(mine.subject) - 1e-9))
    conflicts = []
    for candidate in sorted(found, key=lambda c: c.row.id):
        if (
            candidate.row.id != mine.id
            and len(mine.subject.intersection(candidate.body.split())) >= need
        ):
            other = candidate.row.entry()
            why = differ(mine, assertion_of(other.id, other.normalized))
            if why is not None:
                conflicts.append(f"{other.short_id} ({why})")
    if not conflicts:
        return []
    more = f" and {len(conflicts) - 5} more" if len(conflicts) > 5 else ""
    first = conflicts[0].split()[0]
    return [
        f"may conflict with {', '.join(conflicts[:5])}{more}: supersede the one that is wrong, "
        f"or if both hold, `memsite relate {mine.id[:8]} {first} --type distinct-from`"
    ]


def _overridden_on_arrival(memory: Memory, obj: dict[str, Any]) -> list[str]:
    """A keyed fact another fact of its key overrides as soon as it is written: one dated
    later than this writer's clock (the clocks of the two writers differ, or it was written
    meanwhile). Said, so that the writer can supersede it rather than be overridden."""
    from memsite.core.compaction import compact
    from memsite.core.schema import OVERRIDDEN

    index = memory.index()
    if index.entries.statuses_of([obj["id"]]).get(obj["id"]) != OVERRIDDEN:
        return []
    linked = index.entries.component(obj["id"])
    winner = compact(linked, (), index.records.retired({e.id for e in linked}), report=False)
    other = winner.by_id.get(winner.winner.get(obj["id"], ""))
    if other is None:
        return []
    return [
        f"{other.short_id} (key {obj['key']!r}, dated {other.created:%Y-%m-%d %H:%M:%S} UTC) is "
        f"later than this write's clock, so it overrides this fact at once: if this one "
        f"replaces it, run `memsite amend {other.short_id}` or add with --supersedes "
        f"{other.short_id}; else check this machine's clock"
    ]


def _checked(
    memory: Memory,
    content: str,
    category: str,
    tags: list[str],
    supersedes: Iterable[str],
    anchors: list[Anchor],
    fields: dict[str, str | None],
) -> tuple[dict[str, Any] | None, dict[str, Any]]:
    """Under the write lock: the new entry's object (None when an active entry of the
    category says the same already), and the answer so far (near duplicates, warnings)."""
    index = memory.index()
    targets, warnings = _targets(index, supersedes)
    obj = build_entry(
        content=content,
        category=category,
        categories=memory.config.categories,
        created=memory.now(),
        tags=split_names(tags),
        supersedes=targets,
        limits=memory.config.limits,
        anchors=anchors,
        entry_id=random_id(),  # (uuid's, which costs ~3 ms to import)
        **fields,
    )
    normalized = normalize(content)
    replaced = set(targets)
    same = index.entries.same_content(category, normalized, replaced)
    if same is not None:
        path = memory.store.entry_path(same.file)
        return None, write_answer("duplicate", same.id, str(path), [], warnings)
    mine = token_set(normalized)
    candidates = index.search.near_candidates(category, mine, NEAR_DUPLICATE_THRESHOLD, replaced)
    near = [{"id": i, "similarity": s} for i, s in similar_to(mine, candidates)]
    return obj, write_answer("written", "", "", near, warnings)


def amend(
    memory: Memory,
    ref: str,
    content: str,
    *,
    agent: str | None = None,
    allow_secret: bool = False,
    anchors: Iterable[str] | None = None,
    valid_from: str | None = None,
    valid_to: str | None = None,
) -> dict[str, Any]:
    """Supersede an entry with new content, keeping its category, key, tags and confidence;
    its validity window, each side unless given (an empty one opens it); and its anchors,
    pinned to the files as they are now, unless ``anchors`` are given."""
    from memsite.memory.anchors import carried_anchors

    old = memory.resolve(ref)
    if old.category not in memory.config.categories:
        raise InvalidInputError(
            f"entry {old.short_id} is in category {old.category!r}, which the config does "
            "not allow: add it to memory.categories or use `memsite add` with a category"
        )
    warnings: list[str] = []
    kept: list[str] | list[Anchor] = (
        list(anchors) if anchors is not None else carried_anchors(memory, old, warnings)
    )
    answer = add(
        memory,
        content,
        old.category,
        tags=old.tags,
        supersedes=[old.id],
        confidence=old.confidence,
        agent=agent,
        key=old.key,
        reason="amended",
        allow_secret=allow_secret,
        anchors=kept,
        valid_from=old.raw.get("valid_from") if valid_from is None else valid_from,
        valid_to=old.raw.get("valid_to") if valid_to is None else valid_to,
    )
    answer["warnings"] = [*warnings, *answer["warnings"]]
    return answer


def delete(memory: Memory, ref: str) -> dict[str, Any]:
    """Remove an entry file; report the entries that come back because of it."""
    from memsite.core.compaction import compact

    entry = memory.resolve(ref)
    index = memory.index()
    linked = index.entries.component(entry.id)
    ids = {e.id for e in linked}
    before = {e.id for e in compact(linked, (), index.records.retired(ids), report=False).active()}
    path = delete_entry_file(memory.store, entry.filename)
    memory.invalidate()
    index = memory.index()
    after = compact(
        index.entries.with_ids(ids), (), index.records.retired(ids), report=False
    ).active()
    revived = [e.id for e in after if e.id not in before]
    return {"status": "deleted", "id": entry.id, "path": str(path), "revived": revived}


def log(
    memory: Memory,
    text: str,
    session: str | None = None,
    allow_secret: bool = False,
    kind: str = "note",
) -> dict[str, Any]:
    """Append a timestamped line to today's daily log of the session (one file per session,
    so branches never conflict). ``kind`` task, done or decision marks what carries over."""
    from memsite.core.sessions import KINDS, log_text
    from memsite.memory.sessions import current_session

    refuse_secrets({"content": text}, (), allow_secret)
    session = current_session(session)  # never a shared name: branches must not share a file
    check_name("session", session)
    if kind not in KINDS:
        raise InvalidInputError(f"unknown kind {kind!r}: use one of {', '.join(KINDS)}")
    if not text.strip():
        raise InvalidInputError("log text is empty: give the note to record")
    check_text("log text", text, memory.config.limits.content_max)
    closes = None
    if kind == "done":
        from memsite.memory.sessions import closed_task

        closes = closed_task(memory, session, text)
    path = append_log(memory.store, log_text(kind, text), session, memory.now())
    answer = {"status": "logged", "path": str(path), "session": session, "kind": kind}
    return answer if kind != "done" else {**answer, "closed": closes}


def prune(memory: Memory, before: date | None = None, dry_run: bool = False) -> dict[str, Any]:
    """Delete expired daily logs; with ``before``, inactive entries created before it too (an
    entry only together with everything it supersedes, so that nothing comes back)."""
    from memsite.core.compaction import prunable
    from memsite.memory.sessions import expired_logs

    entries: list[str] = []
    facts: list[dict[str, str]] = []  # what each entry said, for a person to check
    if before is not None:
        result = memory.state().result
        doomed = prunable(result, before, memory.config.categories)
        for entry in result.entries:
            if entry.id in doomed:
                entries.append(entry.id)
                facts.append(
                    {"id": entry.id, "category": entry.category, "content": content_of(entry)}
                )
                if not dry_run:
                    delete_entry_file(memory.store, entry.filename)
        if not dry_run:
            memory.invalidate()
    daily = expired_logs(memory, dry_run)
    return {"dry_run": dry_run, "entries": entries, "facts": facts, "daily": daily}
