"""Entry ids: what a UUID looks like, and which entry a full id or a prefix names. Pure."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from memsite.errors import AmbiguousIdError, EntryNotFoundError, InvalidInputError

UUID_RE = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")


def is_uuid(value: str) -> bool:
    return UUID_RE.fullmatch(value) is not None


_ID_INPUT_RE = re.compile(r"[0-9a-f][0-9a-f-]{3,35}")


def id_reference(ref: str) -> str:
    """``ref`` as an id or id prefix to look up (lower case), or InvalidInputError."""
    value = ref.strip().lower()
    if not _ID_INPUT_RE.fullmatch(value) or sum(c != "-" for c in value[:4]) < 4:
        raise InvalidInputError(
            f"invalid id {ref[:80]!r}: give a full entry id or a prefix of at least 4 hex "
            "characters"
        )
    return value


def choose_id(ref: str, matches: Sequence[str], total: int | None = None) -> str:
    """The one id among ``matches`` (sorted ids that start with ``ref``; ``total`` of them)."""
    count = len(matches) if total is None else total
    if not matches:
        raise EntryNotFoundError(
            f"no entry with id {ref!r}: find ids with `memsite list` or `memsite search`"
        )
    if count > 1:
        shown = ", ".join(m[:13] for m in matches[:10])
        more = f" and {count - 10} more" if count > 10 else ""
        raise AmbiguousIdError(
            f"id prefix {ref!r} matches {count} entries ({shown}{more}): give more characters"
        )
    return matches[0]


def match_id(ref: str, ids: Iterable[str]) -> str:
    """The one id that ``ref`` (a full id or a prefix of 4+ hex characters) names."""
    value = id_reference(ref)
    known = ids if isinstance(ids, set | dict) else set(ids)
    if value in known:
        return value
    return choose_id(ref, sorted(i for i in known if i.startswith(value)))
