"""The human read view, ``compacted/<category>.md``, and how an entry's text may be shown. Pure.

Same compaction in, same bytes out: no clock, no host data. File names come only from the
config's categories, never from what an entry file says.
"""

from __future__ import annotations

from collections.abc import Sequence

from memsite.core.entry import Entry
from memsite.core.secrets import is_allowed, redact
from memsite.core.text import printable

COMPACTED_HEADER = (
    "<!-- Auto-generated from entries/ by memsite. Do not edit. Rebuild: memsite compact -->\n"
)


def category_title(name: str) -> str:
    words = name.replace("-", " ").replace("_", " ").replace(".", " ").split()
    title = " ".join(words)
    return title[:1].upper() + title[1:]


def compacted_text(category: str, bullets: Sequence[str]) -> str:
    """The view of a category from its active entries' bullets (``compacted_bullet``)."""
    head = f"{COMPACTED_HEADER}# {category_title(category)}\n\n"
    return head + ("".join(bullets) if bullets else "_No active entries._\n")


def public_text(entry: Entry, *, full: bool = False) -> str:
    """Entry content as it may be shown: suspected secrets redacted unless allowed (``full``:
    with the full scan, for a fact it flagged), and no control characters (a terminal showing
    the file would obey them)."""
    if is_allowed(entry.raw) or not (full or entry.is_suspect()):
        return printable(entry.content, multiline=True)
    return printable(redact(entry.content, full=full), multiline=True)


def compacted_bullet(entry: Entry) -> str:
    """An entry's line in its category's view (continuation lines indented)."""
    body = public_text(entry).strip().splitlines() or [""]
    text = "\n  ".join(line.rstrip() for line in body)
    suspect = entry.is_suspect() and not is_allowed(entry.raw)
    meta = [entry.created.strftime("%Y-%m-%d"), entry.short_id]
    if entry.key:
        meta.insert(0, f"key: {redact(entry.key) if suspect else entry.key}")
    if entry.confidence != "medium":
        meta.append(f"{entry.confidence} confidence")
    shown_tags = [redact(t) for t in entry.tags] if suspect else entry.tags
    tags = f" [{', '.join(shown_tags)}]" if entry.tags else ""
    return f"- {text}{tags} ({' · '.join(meta)})\n"
