"""Anchors: a fact tied to a file of the project, or to a span of its lines. Pure.

An anchor records the file's git blob id (SHA-1 of ``blob <size>\\0`` and the bytes, as
``git hash-object`` computes it for a file without filters) and, for a span, the lines and a
hash of their text with whitespace normalized. A whole-file anchor drifts on any edit; a span
anchor only when its lines change: the same text found elsewhere in the file is ``moved``.

Anchor paths come from entry files, so they are untrusted: ``check_path`` accepts only a
relative path inside the project (no ``..``, no absolute path, no drive, no NUL), and readers
still confirm that the real path stays inside the project before opening it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from memsite.core.text import counted
from memsite.errors import InvalidEntryFileError, InvalidInputError

UNCHANGED = "unchanged"
MOVED = "moved"
CHANGED = "changed"
MISSING = "missing"
RENAMED = "renamed"
DRIFTED = frozenset((CHANGED, MISSING, RENAMED))
ANCHORS_MAX = 20
PATH_MAX = 1024
_SHA1 = re.compile(r"[0-9a-f]{40}")
_SPEC = re.compile(r"(?P<path>.+?)(?::(?P<start>\d+)(?:-(?P<end>\d+))?)?")
_SPACE = re.compile(r"\s+")


class Anchor(NamedTuple):
    path: str
    blob: str
    lines: tuple[int, int] | None = None
    span: str | None = None

    def as_dict(self) -> dict[str, Any]:
        obj: dict[str, Any] = {"path": self.path, "blob": self.blob}
        if self.lines is not None:
            obj["lines"] = list(self.lines)
            obj["span"] = self.span
        return obj

    @property
    def label(self) -> str:
        if self.lines is None:
            return self.path
        return f"{self.path}:{self.lines[0]}-{self.lines[1]}"


class Located(NamedTuple):
    """Where an anchor stands today: its state, and the lines or path it has now."""

    state: str
    lines: tuple[int, int] | None = None
    path: str | None = None  # the new path of a renamed file

    @property
    def drifted(self) -> bool:
        return self.state in DRIFTED


def blob_id(data: bytes) -> str:
    """The git blob id of a file's bytes (what ``git hash-object --no-filters`` prints)."""
    import hashlib  # ~3 ms of OpenSSL start-up: only in the commands that hash files

    digest = hashlib.sha1(b"blob %d\0" % len(data), usedforsecurity=False)
    digest.update(data)
    return digest.hexdigest()


def check_path(path: str) -> str:
    """A project-relative POSIX path, or ValueError saying why it cannot be one."""
    if not path or len(path) > PATH_MAX:
        raise ValueError("is empty or too long")
    if "\x00" in path or "\\" in path or not path.isprintable():
        raise ValueError("holds a NUL, a backslash or a control character")
    if path.startswith("/") or re.match(r"[A-Za-z]:", path):
        raise ValueError("is absolute (give a path relative to the project)")
    parts = path.split("/")
    if any(part in ("", ".", "..") for part in parts):
        raise ValueError("has an empty, '.' or '..' part (give a plain relative path)")
    return path


def parse_spec(spec: str) -> tuple[str, tuple[int, int] | None]:
    """``PATH`` or ``PATH:START-END`` (or ``PATH:LINE``) as given on the command line."""
    match = _SPEC.fullmatch(spec.strip())
    if match is None or not match["path"]:
        raise InvalidInputError(f"invalid anchor {spec[:80]!r}: use PATH or PATH:START-END")
    lines = None
    if match["start"] is not None:
        start = int(match["start"])
        end = int(match["end"]) if match["end"] is not None else start
        if start < 1 or end < start:
            raise InvalidInputError(
                f"invalid anchor lines in {spec[:80]!r}: use START-END with 1 <= START <= END"
            )
        lines = (start, end)
    return match["path"], lines


def _normal_lines(text_lines: Sequence[str]) -> list[str]:
    """Every line with its whitespace collapsed and trimmed (blank lines kept, so a span keeps
    its line count wherever it moves)."""
    return [_SPACE.sub(" ", line).strip() for line in text_lines]


def _hash(parts: Sequence[str]) -> str:
    import hashlib

    return hashlib.sha1("\n".join(parts).encode(), usedforsecurity=False).hexdigest()


def split_lines(data: bytes) -> list[str]:
    return data.decode("utf-8", "replace").splitlines()


def make_anchor(path: str, data: bytes, lines: tuple[int, int] | None) -> Anchor:
    """The anchor for ``path`` with content ``data`` (InvalidInputError for lines past the end
    or a span of blank lines only)."""
    if lines is None:
        return Anchor(path, blob_id(data))
    text = split_lines(data)
    start, end = lines
    if end > len(text):
        size = counted(len(text), "line")
        raise InvalidInputError(f"anchor {path}:{start}-{end} is past the end of the file ({size})")
    chosen = _normal_lines(text[start - 1 : end])
    if not any(chosen):
        raise InvalidInputError(f"anchor {path}:{start}-{end} holds only blank lines")
    return Anchor(path, blob_id(data), lines, _hash(chosen))


def locate(anchor: Anchor, data: bytes) -> Located:
    """The state of ``anchor`` against the file's content today (the file is where it was)."""
    if blob_id(data) == anchor.blob:
        return Located(UNCHANGED, anchor.lines)
    if anchor.lines is None or anchor.span is None:
        return Located(CHANGED)
    found = _find_span(anchor, split_lines(data))
    if found is None:
        return Located(CHANGED)
    return Located(UNCHANGED if found == anchor.lines else MOVED, found)


def _find_span(anchor: Anchor, text: Sequence[str]) -> tuple[int, int] | None:
    """The lines holding the span's text, the nearest to where it was when it is there twice."""
    assert anchor.lines is not None
    start, end = anchor.lines
    size = end - start + 1
    normal = _normal_lines(text)
    best: tuple[int, int] | None = None
    for i in range(len(normal) - size + 1):
        if _hash(normal[i : i + size]) == anchor.span:
            lines = (i + 1, i + size)
            if best is None or abs(lines[0] - start) < abs(best[0] - start):
                best = lines
    return best


def read_anchors(value: Any) -> tuple[Anchor, ...]:
    """Anchors read from an entry or record (untrusted); InvalidEntryFileError saying why not."""
    if value is None:
        return ()
    if not isinstance(value, list) or len(value) > ANCHORS_MAX:
        raise InvalidEntryFileError(f"'anchors' must be a list of at most {ANCHORS_MAX} anchors")
    found = []
    for item in value:
        if not isinstance(item, dict):
            raise InvalidEntryFileError("'anchors' must hold objects with path and blob")
        found.append(_read_anchor(item))
    return tuple(found)


def _read_anchor(item: Mapping[str, Any]) -> Anchor:
    path, blob = item.get("path"), item.get("blob")
    if not isinstance(path, str) or not isinstance(blob, str) or not _SHA1.fullmatch(blob):
        raise InvalidEntryFileError("an anchor needs a 'path' and a 40-hex 'blob'")
    try:
        check_path(path)
    except ValueError as exc:
        raise InvalidEntryFileError(f"anchor path {path[:80]!r} {exc}") from None
    lines, span = item.get("lines"), item.get("span")
    if lines is None:
        return Anchor(path, blob)
    if (
        not isinstance(lines, list)
        or len(lines) != 2
        or not all(type(n) is int for n in lines)
        or not 1 <= lines[0] <= lines[1] < 1 << 31
        or not isinstance(span, str)
        or not _SHA1.fullmatch(span)
    ):
        raise InvalidEntryFileError("an anchor's 'lines' must be [START, END] with a 'span' hash")
    return Anchor(path, blob, (lines[0], lines[1]), span)
