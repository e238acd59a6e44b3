"""Facts in and out of the memory: `import` from other tools' files, `export` as JSONL, a
Markdown bundle or a graph (``memory.graph``). Parsing and formats are pure
(``core.transfer``, ``core.graph``); this module reads and writes.

Imports are idempotent: a fact whose text its category already holds (in any status) and an
entry or record whose id the store already holds are left out, so a second run writes nothing.
A record (``export --all`` writes them after the entries) is written as `memsite retire`,
`verify` and `relate` write one, once the facts it names are in the store; one naming a fact
the store does not hold is reported and skipped. Every fact and record passes the secret
check; one that fails is refused and reported, the others still go in.
Only the person running the import can let a suspected secret in (``allow_secret``): an
``allow_secret`` key in the file is dropped. An import that would supersede, override or retire
facts of other authors (``core.transfer.displaced`` states the rule) is refused unless ``force``.
Only regular files are read (or standard input, handed over as ``text``): never a FIFO or a
device, which could be read forever.

Exports go through ``files.write_output`` (a FIFO or ``/dev/stdout`` is written into, never
renamed over), or into a folder (``memory.bundle``, for Markdown).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memsite.core import transfer as formats
from memsite.core.entry import Entry, entry_from_object
from memsite.core.graph import FORMATS as FORMATS_OF_GRAPHS
from memsite.core.records import RETIRE, Record, record_from_object
from memsite.core.secrets import ALLOW_KEY, redact, redact_object, refusal
from memsite.core.text import normalize, split_names
from memsite.core.validate import check_imported
from memsite.errors import (
    InvalidEntryFileError,
    InvalidInputError,
    MemsiteError,
    SecretFoundError,
    StorageError,
)
from memsite.files import file_kind, read_text, write_output
from memsite.memory.bundle import write_bundle
from memsite.memory.shapes import entry_json
from memsite.memory.writes import write_locked

if TYPE_CHECKING:
    from memsite.memory import Memory

IMPORT_TAG = "imported"
SOURCE_SUFFIXES = (".md", ".mdc", ".markdown", ".txt")
SECRET_HINT = "; if it is a reviewed false positive, pass --allow-secret"
STDIN = "-"
EXPORT_FORMATS = ("jsonl", "markdown", *FORMATS_OF_GRAPHS)


def _sources(path: Path, source: str) -> list[Path]:
    kind = file_kind(path)
    if kind == "missing":
        raise InvalidInputError(f"{path} does not exist: give a file (or a folder of rules)")
    if kind == "a folder":
        if source != "agents-md":
            raise InvalidInputError(f"{path} is a folder: --from {source} reads one file")
        found = sorted(p for p in path.rglob("*") if p.is_file() and p.suffix in SOURCE_SUFFIXES)
        if not found:
            raise InvalidInputError(f"{path} holds no Markdown files to import")
        return found
    if kind != "file":
        raise InvalidInputError(
            f"{path} is {kind}, not a regular file: give a file, or - to read standard input"
        )
    return [path]


def _texts(path: Path, source: str, text: str | None) -> Iterator[tuple[str, str]]:
    """(name, text) of each file to import; ``text`` is standard input's when ``path`` is -."""
    if str(path) == STDIN:
        if text is None:
            raise InvalidInputError("- stands for standard input, and none was given: pipe it in")
        yield "stdin", text
        return
    for file in _sources(path, source):
        read = read_text(file)  # a regular file only (a FIFO swapped in now is refused)
        if read is None:
            raise InvalidInputError(f"{file} does not exist")
        yield file.name, read


def _parse(
    memory: Memory, path: Path, source: str, category: str | None, text: str | None
) -> formats.Parsed:
    categories = list(memory.config.categories)
    category = formats.import_category(source, category, categories)
    parsed = formats.Parsed()
    for name, content in _texts(path, source, text):
        if source == "agents-md":
            part = formats.parse_agents_md(content, name, categories, category)
        elif source == "mcp-memory":
            part = formats.parse_mcp_memory(content, name, str(category))  # required
        else:
            part = formats.parse_jsonl(content, name)
        parsed.facts += part.facts
        parsed.problems += part.problems
        parsed.records += part.records
    return parsed


def import_facts(
    memory: Memory,
    path: Path,
    source: str,
    category: str | None = None,
    dry_run: bool = False,
    allow_secret: bool = False,
    *,
    agent: str | None = None,
    force: bool = False,
    text: str | None = None,
) -> dict[str, Any]:
    """Write the facts of ``path`` (read as ``source``; ``-``: ``text``, standard input's)
    that the memory does not hold yet. ``agent`` names whoever runs the import: the facts of
    anyone else that it would supersede, override or retire are listed (``displaced``), and the
    import is refused unless ``force`` (or ``dry_run``, which writes nothing)."""
    if source not in formats.SOURCES:
        raise InvalidInputError(f"unknown source {source!r}: use {', '.join(formats.SOURCES)}")
    parsed = _parse(memory, path, source, category, text)
    replaced = _displaced(memory, parsed, agent)
    if replaced and not (force or dry_run):
        raise InvalidInputError(_displacing(path, replaced))
    facts: list[dict[str, Any]] = []
    problems = list(parsed.problems)
    seen: set[tuple[str, str]] = set()
    for fact in parsed.facts:
        try:
            if fact.obj is not None:
                status, entry_id = _import_entry(memory, fact.obj, dry_run, allow_secret)
            else:
                status, entry_id = _import_fact(memory, fact, seen, dry_run, allow_secret)
        except SecretFoundError as exc:
            problems.append(f"{fact.where}: {exc}{SECRET_HINT}")
            continue
        except MemsiteError as exc:
            problems.append(f"{fact.where}: {exc}")
            continue
        row = {"where": fact.where, "status": status, "id": entry_id, "category": fact.category}
        facts.append({**row, "content": redact(fact.content)})  # as shown: secrets hidden
    held = {f["id"] for f in facts if f["id"] is not None}
    records = _import_records(memory, parsed.records, held, dry_run, allow_secret, problems)
    counts = {s: sum(f["status"] == s for f in facts) for s in ("written", "would write", "exists")}
    return {
        "source": source,
        "dry_run": dry_run,
        "written": counts["written"] + counts["would write"],
        "existing": counts["exists"],
        "facts": facts,
        "records": records,
        "problems": problems,
        "displaced": [d.shown() for d in replaced],
        "notes": _allow_notes(parsed.facts),
    }


def _allow_notes(facts: Iterable[formats.Fact]) -> list[str]:
    """One note when lines of the file carry their own ``allow_secret`` (it is dropped)."""
    where = next((f.where for f in facts if f.obj is not None and ALLOW_KEY in f.obj), None)
    if where is None:
        return []
    return [
        f"{where}: the file's {ALLOW_KEY} is ignored (here and on every line): only "
        "--allow-secret, given by the person importing, lets a suspected secret in"
    ]


def _displaced(
    memory: Memory, parsed: formats.Parsed, author: str | None
) -> list[formats.Displaced]:
    """The held facts of other authors that the entries of ``parsed`` would replace (only
    entries with ``supersedes`` or a key can) or its retire records withdraw (invalid ones
    are reported when written)."""
    index = memory.index()
    retiring = [r for r in _records(parsed.records) if r.kind == RETIRE]
    incoming = []
    for fact in parsed.facts:
        if fact.obj is None or not (fact.obj.get("supersedes") or fact.obj.get("key")):
            continue
        try:
            entry = entry_from_object(fact.obj)
        except InvalidEntryFileError:
            continue
        if entry.category in memory.config.categories and not index.entries.has_id(entry.id):
            incoming.append(entry)
    if not (incoming or retiring):
        return []
    return formats.displaced(memory.state().result.active(), incoming, author, retiring)


def _records(found: Iterable[tuple[str, dict[str, Any]]]) -> Iterator[Record]:
    """The valid records of ``found`` (the others are reported when written)."""
    for _, obj in found:
        try:
            yield record_from_object(obj)
        except InvalidEntryFileError:
            continue


def _displacing(path: Path, replaced: list[formats.Displaced]) -> str:
    ids = ", ".join(d.held.short_id for d in replaced[:3]) + (", ..." if len(replaced) > 3 else "")
    count = f"{len(replaced)} fact{'s' if len(replaced) > 1 else ''}"
    return (
        f"{path} would supersede or override (or retire) {count} of other authors ({ids}): "
        "list them with --dry-run, then pass --force to import anyway"
    )


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
            raise SecretFoundError(f"refused: {refused}")
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
    """An exported entry object, written as it is (its id, time and every key kept), but for
    the file's own ``allow_secret``: that is the person's decision, made with --allow-secret."""
    try:
        check_imported(obj)
        entry = entry_from_object(obj)
    except InvalidEntryFileError as exc:
        raise InvalidInputError(f"not a valid entry ({exc})") from None
    if entry.category not in memory.config.categories:
        raise InvalidInputError(
            f"category {entry.category!r} is not in memory.categories: add it to the config"
        )
    if memory.index().entries.has_id(entry.id):
        return "exists", entry.id
    fields = {"content": entry.content, "key": entry.key, "reason": entry.reason}
    refused = refusal({**fields, "agent": entry.agent}, entry.tags)
    if refused is not None and not allow_secret:
        raise SecretFoundError(f"refused: {refused}")
    if dry_run:
        return "would write", entry.id
    record = dict(obj)  # as exported: every key, in its order
    if refused is not None:
        record[ALLOW_KEY] = True  # the person allowed it (an existing key keeps its place)
    else:
        record.pop(ALLOW_KEY, None)

    def decide() -> dict[str, Any] | None:
        return None if memory.index().entries.has_id(entry.id) else record

    done = write_locked(memory, decide, new_id=_no_new_id)
    return ("written" if done is not None else "exists"), entry.id


def _import_records(
    memory: Memory,
    found: Iterable[tuple[str, dict[str, Any]]],
    held: set[str],
    dry_run: bool,
    allow_secret: bool,
    problems: list[str],
) -> list[dict[str, Any]]:
    """Write the records of a jsonl export (after its entries: ``held`` are the ids this
    import wrote, would write or found), each reported in ``problems`` when it cannot go in."""
    done = []
    for where, obj in found:
        try:
            status, record = _import_record(memory, obj, held, dry_run, allow_secret)
        except MemsiteError as exc:
            hint = SECRET_HINT if isinstance(exc, SecretFoundError) else ""
            problems.append(f"{where}: {exc}{hint}")
            continue
        done.append({"where": where, "status": status, "id": record, "kind": obj["record"]})
    return done


def _import_record(
    memory: Memory, obj: dict[str, Any], held: set[str], dry_run: bool, allow_secret: bool
) -> tuple[str, str]:
    """One exported record object, written as it is (its id, time and keys kept) but for the
    file's own ``allow_secret``, when the facts it names are in the store."""
    try:
        check_imported(obj)
        record = record_from_object(obj)
    except InvalidEntryFileError as exc:
        raise InvalidInputError(f"not a valid record ({exc})") from None
    index = memory.index()
    for named in (record.target, record.other):
        if named is not None and named not in held and not index.entries.has_id(named):
            raise InvalidInputError(
                f"the {record.kind} record {record.short_id} names fact {named[:8]}, which "
                "the memory does not hold: skipped (import the export it came with)"
            )
    refused = refusal({"reason": record.text, "agent": record.agent}, ())
    if refused is not None and not allow_secret:
        raise SecretFoundError(f"refused: {refused}")

    def holds() -> bool:
        return any(r.id == record.id for r in memory.index().records.about([record.target]))

    if holds():
        return "exists", record.id
    if dry_run:
        return "would write", record.id
    kept = {name: value for name, value in obj.items() if name != ALLOW_KEY}
    written = write_locked(memory, lambda: None if holds() else kept, new_id=_no_new_id)
    return ("written" if written is not None else "exists"), record.id


def _no_new_id() -> str:
    raise StorageError("an entry file with this name exists already: import left it alone")


# --- export ---------------------------------------------------------------------------------


def export(
    memory: Memory, fmt: str, *, include_all: bool = False, output: Path | None = None
) -> dict[str, Any]:
    """The memory as JSONL, GraphML or DOT (to ``output``; returned as text without one, or
    for ``-``) or as a Markdown bundle (a folder)."""
    if fmt not in EXPORT_FORMATS:
        raise InvalidInputError(f"unknown format {fmt!r}: use {', '.join(EXPORT_FORMATS)}")
    to_stdout = output is not None and str(output) == STDIN
    result = memory.state().result
    chosen = result.entries if include_all else result.active()
    entries = formats.export_order(chosen)
    if fmt != "markdown":
        text, counts = _export_text(memory, fmt, entries, include_all)
        if output is None or to_stdout:
            return {"format": fmt, **counts, "text": text}
        write_output(output, text.encode("utf-8"), f"a {fmt} export")
        return {"format": fmt, **counts, "path": str(output)}
    if to_stdout:
        raise InvalidInputError(
            "a Markdown export is a folder of files: give its path (- is standard output, "
            "for the other formats)"
        )
    folder = output or Path("memsite-export")
    files = {
        formats.markdown_name(e): formats.markdown_file(e, entry_json(e), result.status[e.id])
        for e in entries
    }
    write_bundle(folder, {name: text.encode("utf-8") for name, text in files.items()})
    return {"format": fmt, "entries": len(entries), "path": str(folder)}


def _export_text(
    memory: Memory, fmt: str, entries: list[Entry], include_all: bool
) -> tuple[str, dict[str, int]]:
    """A one-file export and its counts."""
    if fmt in FORMATS_OF_GRAPHS:
        from memsite.memory.graph import graph_text

        return graph_text(memory, fmt, entries)
    # --all adds the records (what makes a fact retired, verified or linked): without
    # them an import brings retired facts back. Active facts alone need none.
    records = formats.record_order(memory.state().scan.records) if include_all else []
    text = "".join(formats.jsonl_line(entry_json(e)) for e in entries)
    text += "".join(formats.jsonl_line(_record_json(r.raw)) for r in records)
    return text, {"entries": len(entries), "records": len(records)}


def _record_json(obj: Mapping[str, Any]) -> dict[str, Any]:
    """A record's on-disk object, with suspected secrets redacted (as for an entry)."""
    text = obj.get("evidence", obj.get("reason"))
    fields = {"reason": text if isinstance(text, str) else None, "agent": obj.get("agent")}
    return dict(obj) if refusal(fields, ()) is None else redact_object(obj)
