"""Stable keys of what a page is made from, the same in every process (``hash()`` is not:
Python salts string hashes per process).

A build remembers, for each file it wrote, the key of what the file was made from; the next
build (another process) renders again only what has a new key. A key is a 16-byte BLAKE2b
of a canonical text of the object:

* an :class:`~memsite.portal.model.EntryView` by its own digest (every compared field, made
  once per view and kept on it: a view is shared by its entry page, category, tag and month
  pages and the search index);
* an entry's JSON file (:class:`~memsite.portal.model.JsonSource`) by what its text is made
  of: the entry's whole object (or, made by ``PortalCache``, the file's name, a digest of
  the original object and how it was redacted), its status, successors and flags;
* a dataclass by its type's name and every field but the private ones (``_hash``): one
  left out of equality or ``repr`` still counts; the same for the core's plain record
  classes (``Entry``, ``Record``, ``Standing``: every slot, as when they were dataclasses);
* tuples, lists, dicts and sets by their items (sets sorted, so their order cannot matter);
* anything else by ``repr``. An object whose ``repr`` names its address gets a new key in
  every process: it is then always rendered again, never wrongly kept.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Iterable
from typing import Any

from memsite.core.entry import Entry
from memsite.core.records import Record
from memsite.core.standing import Standing
from memsite.portal.model import EntryView, JsonSource

_PLAIN = (str, int, float, bool, bytes, type(None))
_RECORDS: tuple[type, ...] = (Entry, Record, Standing)


def view_digest(view: EntryView) -> str:
    """The digest of one view (in hex), made once and kept on it."""
    found = view._digest
    if not found:
        text = repr(view).encode("utf-8", "surrogatepass")
        found = hashlib.blake2b(text, digest_size=16).hexdigest()
        object.__setattr__(view, "_digest", found)
    return found


def views_key(views: Iterable[EntryView]) -> bytes:
    """The key of a run of views (a piece of MkDocs' search index)."""
    digest = hashlib.blake2b(digest_size=16)
    for view in views:
        digest.update(view_digest(view).encode())
    return digest.digest()


def key_of(obj: Any, salt: bytes = b"") -> bytes:
    """The stable key of ``obj`` (see the module), mixed with ``salt`` (what every page of a
    kind also shows: its frame)."""
    parts: list[str] = []
    _canon(obj, parts)
    digest = hashlib.blake2b(salt, digest_size=16)
    digest.update("\x1f".join(parts).encode("utf-8", "surrogatepass"))
    return digest.digest()


def _canon(obj: Any, out: list[str]) -> None:
    kind = type(obj)
    if kind in _PLAIN:
        out.append(repr(obj))
    elif kind is EntryView:
        out.append("V" + view_digest(obj))
    elif kind is tuple or kind is list:
        out.append(f"({len(obj)}")
        for item in obj:
            _canon(item, out)
        out.append(")")
    elif kind is dict:
        out.append(f"{{{len(obj)}")
        for name, value in obj.items():
            _canon(name, out)
            _canon(value, out)
        out.append("}")
    elif kind is set or kind is frozenset:
        out.append(f"<{len(obj)}")
        out.extend(sorted(key_of(item).hex() for item in obj))
        out.append(">")
    elif kind is JsonSource:
        out.append("J")
        made_of = obj.origin or dict(obj.entry.raw)  # (the object's digest, when known)
        _canon((made_of, obj.status, obj.superseded_by, obj.held, obj.flags), out)
    elif dataclasses.is_dataclass(obj):
        out.append(kind.__qualname__)
        for spec in dataclasses.fields(obj):
            if not spec.name.startswith("_"):
                _canon(getattr(obj, spec.name), out)
    elif kind in _RECORDS:
        out.append(kind.__qualname__)
        for name in kind.__slots__:
            _canon(getattr(obj, name), out)
    elif isinstance(obj, tuple):  # a NamedTuple: its name, then its items
        out.append(kind.__qualname__)
        _canon(tuple(obj), out)
    else:
        out.append(repr(obj))
