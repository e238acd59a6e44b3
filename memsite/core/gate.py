"""The pull-request gate's rules for what a branch does to the memory besides adding facts
(``memsite check``): pure, over what git and the compaction say.

A branch may add entry files; everything else it does to what the memory says must be seen
by a reviewer before it merges, so each is a problem:

* a new file that is malformed, holds a secret, repeats a fact, forks one or may conflict
  with one (the caller's ``added_problems``, over the review's findings);
* an entry file edited in place, deleted, or turned into another kind of file (entry files
  are never modified: a fact changes by a new entry that supersedes it);
* a new fact dated in the future (it would win every contradiction, for ever);
* a new keyed fact that overrides an active fact the branch did not add, without naming it
  in ``supersedes`` (an amendment says what it replaces; a silent override does not);
* a new fact that plausibly overlaps an active fact the branch did not add, with no relation
  recorded between them (``overlap_problems``): both anchored to one file, or saying nearly
  the same (the near-duplicate measure `add` warns with: Jaccard similarity of their word
  sets at least 0.8, one category). A supersession (either way) or a relate record of any
  type between the two clears it. (A possible conflict is the caller's ``added_problems``:
  the rule of ``core.conflicts``, which a relation other than conflicts-with silences.);
* a retire record for a fact the branch did not add (listed with the fact's text);
* a change to the config is listed (``config_changes``), and fails only when a value would
  carry markup (the caller's ``config_problems``).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from memsite.core.compaction import Compaction
from memsite.core.entry import Entry
from memsite.core.markdown import public_text
from memsite.core.records import Record
from memsite.core.review import future_findings
from memsite.core.schema import ACTIVE, OVERRIDDEN, SUPERSEDED
from memsite.core.secrets import redact
from memsite.core.similarity import similar_to, token_set
from memsite.core.text import one_line, printable

Problem = dict[str, Any]
_PREVIEW = 80
# git's status letter of a changed entry file: the problem's kind, and what happened.
_CHANGES = {
    "M": ("edited", "was edited in place"),
    "D": ("deleted", "was deleted"),
    "T": ("retyped", "was replaced by a link"),
}


def problem(file: str, kind: str, message: str, ids: Iterable[str] = ()) -> Problem:
    return {"file": file, "kind": kind, "message": message, "ids": list(ids)}


def changed_file_problems(
    changes: Iterable[tuple[str, str]], ids: Mapping[str, str]
) -> list[Problem]:
    """One problem per entry file the branch modified, deleted or retyped (``changes``:
    git's status letter and the file's name; ``ids``: the id each name held, when known)."""
    found = []
    for status, name in changes:
        if status not in _CHANGES:
            continue
        kind, verb = _CHANGES[status]
        what = f"{name} ({ids[name][:8]})" if name in ids else name
        fix = (
            "restore it and retire the fact instead (`memsite retire ID --reason ...`)"
            if status == "D"
            else "restore it and write a new fact that supersedes it (`memsite amend ID`)"
        )
        found.append(problem(name, kind, f"{what} {verb}: entry files are never changed; {fix}"))
    return found


def duplicate_problems(new: Iterable[Entry], result: Compaction) -> list[Problem]:
    """New facts that say what a fact of their category (not one they supersede) says."""
    saying: dict[tuple[str, str], list[Entry]] = {}
    for other in result.entries:
        if result.status[other.id] != SUPERSEDED:
            saying.setdefault((other.category, other.normalized), []).append(other)
    found = []
    for entry in new:
        same = [
            other
            for other in saying.get((entry.category, entry.normalized), [])
            if other.id != entry.id and other.id not in entry.supersedes
        ]
        if same:
            found.append(
                problem(
                    entry.filename,
                    "duplicate",
                    f"{entry.short_id} says what {same[0].short_id} says already in "
                    f"{entry.category}: drop the new file",
                    (entry.id, same[0].id),
                )
            )
    return found


def future_problems(new: Iterable[Entry], now: datetime) -> list[Problem]:
    """The new facts dated in the future (beyond the clock skew review allows)."""
    return [
        problem(f.files[0], "future_timestamp", f.message, f.ids) for f in future_findings(new, now)
    ]


def override_problems(new: Iterable[Entry], result: Compaction, added: set[str]) -> list[Problem]:
    """New keyed facts that override an active fact the branch did not add, without naming it
    in ``supersedes``: the reviewer must see whose fact is replaced."""
    keyed = {e.id: e for e in new if e.key and result.status.get(e.id) == ACTIVE}
    found = []
    for loser, winner in result.winner.items():  # one pass, whatever the store's size
        entry, other = keyed.get(winner), result.by_id[loser]
        if (
            entry is not None
            and other.filename not in added
            and result.status.get(loser) == OVERRIDDEN
            and loser not in entry.supersedes
        ):
            found.append(
                problem(
                    entry.filename,
                    "overrides",
                    f"{entry.short_id} (key {entry.key!r}) overrides {other.short_id}, an "
                    f"active fact this branch did not add ({_preview(other)}): if it "
                    f"replaces it, name it (`--supersedes {other.short_id}`), else drop "
                    "the key",
                    (entry.id, other.id),
                )
            )
    return found


def added_facts(new: Iterable[Entry], result: Compaction) -> list[dict[str, str]]:
    """The active facts a branch adds, oldest first, as agents will be told them once it
    merges: id, category and content on one line, with no control characters and suspected
    secrets redacted (those a person allowed too: check's output lands in CI logs)."""
    found = [e for e in new if result.status.get(e.id) == ACTIVE]
    found.sort(key=lambda e: e.order_key)
    return [{"id": e.id, "category": e.category, "content": _shown(e)} for e in found]


def _shown(entry: Entry) -> str:
    text = redact(entry.content, full=True) if entry.is_suspect() else entry.content
    return one_line(printable(text, multiline=True))


def overlap_problems(
    new: Iterable[Entry],
    others: Sequence[Entry],
    related: Collection[tuple[str, str]],
    reported: Collection[tuple[str, str]] = (),
) -> list[Problem]:
    """One problem per new fact that plausibly overlaps some of ``others`` (the active facts
    the branch did not add): anchored to a file one of them is anchored to, or a near
    duplicate of one of its category. ``related``: pairs (sorted) a relate record links;
    ``reported``: pairs (sorted) already reported otherwise (a possible conflict)."""
    by_path: dict[str, list[Entry]] = {}
    by_category: dict[str, list[Entry]] = {}
    for other in others:
        by_category.setdefault(other.category, []).append(other)
        for path in {a.path for a in other.anchors}:
            by_path.setdefault(path, []).append(other)
    tokens: dict[str, list[tuple[str, frozenset[str]]]] = {}
    found = []
    for entry in new:
        why: dict[str, str] = {}  # the other fact's id → why they overlap
        for path in sorted({a.path for a in entry.anchors}):
            for other in by_path.get(path, ()):
                why.setdefault(other.id, f"both anchored to {path}")
        if entry.category in by_category:
            if entry.category not in tokens:
                tokens[entry.category] = [
                    (o.id, token_set(o.normalized)) for o in by_category[entry.category]
                ]
            mine = token_set(entry.normalized)
            for other_id, score in similar_to(mine, tokens[entry.category]):
                why.setdefault(other_id, f"{score:.0%} the same words")
        by_id = {o.id: o for o in others if o.id in why}
        overlapping = [
            by_id[i]
            for i in sorted(why, key=lambda i: by_id[i].order_key, reverse=True)
            if not _settled(entry, by_id[i], related, reported)
        ]
        if overlapping:
            found.append(_overlap(entry, overlapping, why))
    return found


def _settled(
    entry: Entry,
    other: Entry,
    related: Collection[tuple[str, str]],
    reported: Collection[tuple[str, str]],
) -> bool:
    pair = (entry.id, other.id) if entry.id < other.id else (other.id, entry.id)
    return (
        other.id in entry.supersedes
        or entry.id in other.supersedes
        or entry.normalized == other.normalized  # a duplicate, reported as one
        or pair in related
        or pair in reported
    )


def _overlap(entry: Entry, others: Sequence[Entry], why: Mapping[str, str]) -> Problem:
    first = others[0]
    more = f" (and {len(others) - 1} more: {', '.join(o.short_id for o in others[1:4])})"
    return problem(
        entry.filename,
        "overlaps",
        f"{entry.short_id} overlaps {first.short_id}, an active fact this branch did not add "
        f"({why[first.id]}: {_preview(first)}){more if len(others) > 1 else ''}, with no "
        f"relation recorded: if it replaces it, supersede it (`--supersedes {first.short_id}`); "
        f"else say how they relate (`memsite relate {entry.short_id} {first.short_id} --type "
        "refines|supports|depends-on|distinct-from`)",
        (entry.id, *(o.id for o in others)),
    )


def retire_problems(
    records: Iterable[Record], added: set[str], result: Compaction
) -> list[Problem]:
    """Retire records the branch adds for facts it did not add, each with the fact's text."""
    found = []
    for record in records:
        if record.kind != "retire" or record.filename not in added:
            continue
        target = result.by_id.get(record.target)
        if target is not None and target.filename in added:
            continue
        what = f"{target.short_id} ({_preview(target)})" if target else record.target[:8]
        found.append(
            problem(
                record.filename,
                "retires",
                f"{record.filename} retires {what}, a fact this branch did not add: a "
                "reviewer must agree to withdraw it",
                (record.id, record.target),
            )
        )
    return found


def config_changes(before: Any, after: Any, prefix: str = "") -> list[str]:
    """The settings a change of the config touches, as dotted paths (``site.site_name``),
    in order: what a reviewer should read in the diff."""
    if isinstance(before, dict) and isinstance(after, dict):
        changed = []
        for key in sorted(set(before) | set(after), key=str):
            path = f"{prefix}{key}"
            if key not in before:
                changed.append(f"{path} (added)")
            elif key not in after:
                changed.append(f"{path} (removed)")
            else:
                changed += config_changes(before[key], after[key], f"{path}.")
        return changed
    return [] if before == after else [prefix.rstrip(".") or "(the whole file)"]


def _preview(entry: Entry) -> str:
    """The fact's text, redacted and on one line, shortened (check's output lands in CI logs)."""
    text = one_line(public_text(entry))
    return repr(text if len(text) <= _PREVIEW else text[: _PREVIEW - 1] + "…")
