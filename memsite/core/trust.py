"""The gate: which active facts reach an agent. Pure.

Being parsed safely is not being trusted (DESIGN §14). Each entry or record file is

- ``reviewed`` when the reviewed ref holds it as the work tree does (``storage.provenance``);
- ``local`` when memsite wrote it in this clone and the ref does not hold it yet (the ledger,
  ``storage.ledger``, confirmed by the file's bytes);
- ``unreviewed`` otherwise: merged from a branch that never went through review, dropped in
  by another tool, or edited by hand.

With trust off (no remote, no git, no reviewed ref) every file counts as reviewed.

A fact is *held back* (kept, searchable, flagged and listed by `review`, but not delivered)
when, in this order of precedence:

1. its text holds invisible or direction-changing characters (``hidden_text``, see
   ``core.hidden``), even when reviewed: they can carry instructions a reviewer never sees;
2. its text reads as a directive to run something or to the agent itself (``suspicious``,
   naming the rule, see ``core.directives``), even when reviewed;
3. its file is ``unreviewed``.

An approve record lets a held-back fact through, but only when the record's own file is
reviewed or local: an approval that comes with the same unreviewed branch approves nothing.
The characters of an approved ``hidden_text`` fact are still removed from what agents get.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memsite.core.review import Finding

REVIEWED = "reviewed"
LOCAL = "local"
UNREVIEWED = "unreviewed"
HIDDEN_TEXT = "hidden_text"
SUSPICIOUS = "suspicious"
HELD_KINDS = (UNREVIEWED, HIDDEN_TEXT, SUSPICIOUS)


def level(name: str, on: bool, reviewed: Collection[str], local: Collection[str]) -> str:
    """The trust of the file ``name`` (reviewed when trust is off)."""
    if not on or name in reviewed:
        return REVIEWED
    return LOCAL if name in local else UNREVIEWED


def content_flag(text: str) -> str:
    """ "" for plain text, else why it is held back whatever its file's trust:
    ``hidden_text`` or ``suspicious:<rule>``."""
    from memsite.core.directives import suspicious
    from memsite.core.hidden import has_hidden

    if has_hidden(text):
        return HIDDEN_TEXT
    rule = suspicious(text)
    return f"{SUSPICIOUS}:{rule}" if rule else ""


def approved_ids(
    approvals: Iterable[tuple[str, str]],
    on: bool,
    reviewed: Collection[str],
    local: Collection[str],
) -> set[str]:
    """The facts approved by an approve record that counts: (record file, target id) pairs
    whose file is reviewed or local."""
    return {
        target
        for name, target in approvals
        if level(name, on, reviewed, local) in (REVIEWED, LOCAL)
    }


def held_back(
    active: Iterable[tuple[str, str]],
    flags: Mapping[str, str],
    on: bool,
    reviewed: Collection[str],
    local: Collection[str],
    approved: Collection[str],
) -> dict[str, str]:
    """Active fact id → why it is held back (``hidden_text``, ``suspicious:<rule>`` or
    ``unreviewed``), for ``active`` (id, file name) pairs; ``flags``: file → content flag."""
    held = {}
    for entry_id, name in active:
        if entry_id in approved:
            continue
        why = flags.get(name, "")
        if not why and level(name, on, reviewed, local) == UNREVIEWED:
            why = UNREVIEWED
        if why:
            held[entry_id] = why
    return held


def kind_of(why: str) -> str:
    """The review finding kind of a held-back reason (``suspicious:pipe-to-shell`` →
    ``suspicious``)."""
    return why.partition(":")[0]


_WHY = {
    HIDDEN_TEXT: "holds invisible or direction-changing characters",
    UNREVIEWED: "did not come through the reviewed ref",
}


def held_findings(
    held: Mapping[str, str], files: Mapping[str, str], ref: str | None
) -> list[Finding]:
    """A finding for each held-back fact (``held``: id → why; ``files``: id → file name), in
    the order of the kinds: hidden text, suspicious, unreviewed."""
    from memsite.core.review import Finding

    found = []
    for kind in (HIDDEN_TEXT, SUSPICIOUS, UNREVIEWED):
        for entry_id, why in sorted(held.items()):
            if kind_of(why) != kind:
                continue
            if kind == SUSPICIOUS:
                what = f"reads as {why.partition(':')[2] or 'a directive'}"
            else:
                what = _WHY[kind] + (f" ({ref})" if kind == UNREVIEWED and ref else "")
            found.append(
                Finding(
                    kind,
                    (entry_id,),
                    (files.get(entry_id, ""),),
                    f"entry {entry_id[:8]} {what}: held back from agents until "
                    f"`memsite approve {entry_id[:8]}`",
                )
            )
    return found
