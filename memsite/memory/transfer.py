"""Facts in and out of the memory: `import` from other tools' files, `export` as JSONL or a
Markdown bundle. Parsing and formats are pure (``core.transfer``); this module reads and writes.

Imports are idempotent: a fact whose text its category already holds (in any status) and an
entry whose id the store already holds are left out, so a second run writes nothing. Every
fact passes the secret check; one that fails is refused and reported, the others still go in.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memsite.core import transfer as formats
from memsite.core.entry import check_value, entry_from_object
from memsite.core.secrets import ALLOW_KEY, is_allowed, refusal
from memsite.core.text import normalize, split_names
from memsite.errors import InvalidEntryFileError, InvalidInputError, MemsiteError, StorageError
from memsite.files import read_text, replace_if_changed, storage_errors, write_atomic
from memsite.memory.shapes import entry_json
from memsite.memory.writes import write_locked

if TYPE_CHECKING:
    from memsite.memory import Memory

IMPORT_TAG = "imported"
SOURCE_SUFFIXES = (".md", ".mdc", ".markdown", ".txt")
EXPORT_MARKER = ".memsite-export"


def _sources(path: Path, source: str) -> list[Path]:
    if not path.exists():
        raise InvalidInputError(f"{path} does not exist: give a file (or a folder of rules)")
    if path.is_dir():
        if source != "agents-md":
            raise InvalidInputError(f"{path} is a folder: --from {source} reads one file")
        found = sorted(p for p in path.rglob("*") if p.is_file() and p.suffix in SOURCE_SUFFIXES)
        if not found:
            raise InvalidInputError(f"{path} holds no Markdown files to import")
        return found
    return [path]


def _parse(memory: Memory, path: Path, source: str, category: str | None) -> formats.Parsed:
    categories = list(memory.config.categories)
    if category is not None and category not in categories:
        raise InvalidInputError(
            f"unknown category {category!r}: use one of {', '.join(categories)}"
        )
    parsed = formats.Parsed()
    for file in _sources(path, source):
        text = read_text(file)
        if text is None:
            raise InvalidInputError(f"{file} does not exist")
        name = file.name
        if source == "agents-md":
            part = formats.parse_agents_md(text, name, categories, category)
        elif source == "mcp-memory":
            part = formats.parse_mcp_memory(text, name, category or categories[0])
        else:
            part = formats.parse_jsonl(text, name)
        parsed.facts += part.facts
        parsed.problems += part.problems
    return parsed


def import_facts(
    memory: Memory,
    path: Path,
    source: str,
    category: str | None = None,
    dry_run: bool = False,
    allow_secret: bool = False,
) -> dict[str, Any]:
    """Write the facts of ``path`` (read as ``source``) that the memory does not hold yet."""
    if source not in formats.SOURCES:
        raise InvalidInputError(f"unknown source {source!r}: use {', '.join(formats.SOURCES)}")
    parsed = _parse(memory, path, source, category)
    facts: list[dict[str, Any]] = []
    problems = list(parsed.problems)
    seen: set[tuple[str, str]] = set()
    for fact in parsed.facts:
        try:
            if fact.obj is not None:
                status, entry_id = _import_entry(memory, fact.obj, dry_run, allow_secret)
            else:
                status, entry_id = _import_fact(memory, fact, seen, dry_run, allow_secret)
        except MemsiteError as exc:
            problems.append(f"{fact.where}: {exc}")
            continue
        facts.append(
            {"where": fact.where, "status": status, "id": entry_id, "category": fact.category}
        )
    counts = {s: sum(f["status"] == s for f in facts) for s in ("written", "would write", "exists")}
    return {
        "source": source,
        "dry_run": dry_run,
        "written": counts["written"] + counts["would write"],
        "existing": counts["exists"],
        "facts": facts,
        "problems": problems,
    }


def _import_fact(
    memory: Memory,
    fact: formats.Fact,
    seen: set[tuple[str, str]],
    dry_run: bool,
    allow_secret: bool,
) -> tuple[str, str | None]:
    normalized = normalize(fact.content)
    if (fact.category, normalized) in seen:
        return "exists", None
    seen.add((fact.category, normalized))
    held = memory.index().entries.holding(fact.category, normalized)
    if held is not None:
        return "exists", held
    tags = split_names([*fact.tags, IMPORT_TAG])
    if dry_run:
        refused = refusal({"content": fact.content}, tags)
        if refused is not None and not allow_secret:
            raise InvalidInputError(f"refused: {refused}")
        return "would write", None
    answer = memory.add(
        fact.content,
        fact.category,
        tags=tags,
        agent="memsite import",
        allow_secret=allow_secret,
    )
    return ("written" if answer["status"] == "written" else "exists"), answer["id"]


def _import_entry(
    memory: Memory, obj: Mapping[str, Any], dry_run: bool, allow_secret: bool
) -> tuple[str, str | None]:
    """An exported entry object, written as it is (its id, time and every key kept)."""
    try:
        check_value(obj)
        entry = entry_from_object(obj)
    except InvalidEntryFileError as exc:
        raise InvalidInputError(f"not a valid entry ({exc})") from None
    if entry.category not in memory.config.categories:
        raise InvalidInputError(
            f"category {entry.category!r} is not in memory.categories: add it to the config"
        )
    if memory.index().entries.has_id(entry.id):
        return "exists", entry.id
    fields = {"content": entry.content, "reason": entry.reason, "agent": entry.agent}
    refused = refusal(fields, entry.tags)
    if refused is not None and not (allow_secret or is_allowed(obj)):
        raise InvalidInputError(f"refused: {refused}")
    if dry_run:
        return "would write", entry.id
    record = dict(obj)  # as exported: every key, in its order
    if refused is not None and allow_secret:
        record[ALLOW_KEY] = True

    def decide() -> dict[str, Any] | None:
        return None if memory.index().entries.has_id(entry.id) else record

    done = write_locked(memory, decide, new_id=_no_new_id)
    return ("written" if done is not None else "exists"), entry.id


def _no_new_id() -> str:
    raise StorageError("an entry file with this name exists already: import left it alone")


# --- export ---------------------------------------------------------------------------------


def export(
    memory: Memory, fmt: str, *, include_all: bool = False, output: Path | None = None
) -> dict[str, Any]:
    """The memory as JSONL (to ``output``, or returned as text) or as a Markdown bundle."""
    result = memory.state().result
    chosen = result.entries if include_all else result.active()
    entries = formats.export_order(chosen)
    if fmt == "jsonl":
        text = "".join(formats.jsonl_line(entry_json(e)) for e in entries)
        if output is None:
            return {"format": fmt, "entries": len(entries), "text": text}
        with storage_errors("write", output):
            write_atomic(output, text.encode("utf-8"))
        return {"format": fmt, "entries": len(entries), "path": str(output)}
    if fmt != "markdown":
        raise InvalidInputError(f"unknown format {fmt!r}: use jsonl or markdown")
    folder = output or Path("memsite-export")
    files = {
        formats.markdown_name(e): formats.markdown_file(e, entry_json(e), result.status[e.id])
        for e in entries
    }
    _write_bundle(folder, files)
    return {"format": fmt, "entries": len(entries), "path": str(folder)}


def _write_bundle(folder: Path, files: dict[str, str]) -> None:
    """Write the bundle's files; files of an earlier export that are gone now are removed."""
    marker = folder / EXPORT_MARKER
    if folder.exists() and not folder.is_dir():
        raise InvalidInputError(f"{folder} is a file: give a folder for the Markdown bundle")
    if folder.is_dir() and any(folder.iterdir()) and not marker.exists():
        raise InvalidInputError(
            f"{folder} is not empty and is no memsite export: give an empty or new folder"
        )
    with storage_errors("write", folder):
        folder.mkdir(parents=True, exist_ok=True)
        marker.write_text("Written by `memsite export --format markdown`.\n", encoding="utf-8")
        for name, text in sorted(files.items()):
            replace_if_changed(folder / name, text.encode("utf-8"))
        for path in folder.glob("*.md"):
            if path.name not in files:
                path.unlink()
