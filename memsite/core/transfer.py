"""Facts in and out: reading other tools' memories, writing memsite's own as JSONL or Markdown.
Pure: texts in, facts or texts out.

Sources read:

* ``agents-md``: bullet lists in CLAUDE.md, AGENTS.md, .github/copilot-instructions.md or Cursor
  rules. Each top-level bullet is a fact (its indented sub-bullets and continuation lines join
  it); the heading above it picks the category (a configured category's name, or a usual
  heading for one, e.g. "Code style" → conventions), other headings take the category given.
  Fenced code, front matter and memsite's own marked block are skipped.
* ``mcp-memory``: the MCP reference memory server's JSONL. Each observation of an entity is a
  fact tagged with the entity's name (and type); each relation is a fact "A relation B" tagged
  with both entities.
* ``jsonl``: memsite's own export, one entry object per line, taken as it is (ids and times
  kept), so that export and import round-trip losslessly. What such entries would replace of
  other authors' facts is found by :func:`displaced`. ``export --all`` adds the records
  (verify, retire, relate: objects with a ``record`` key) after the entries, as they are on
  disk: without them an import would bring a retired fact back and lose every link.

A Markdown export keeps a manifest in its folder (:data:`MANIFEST`: the name and SHA-256 of
each file it wrote), so that a later export removes only its own files, unchanged.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from memsite.core.entry import Entry, format_created
from memsite.core.records import RETIRE, Record
from memsite.core.text import as_name, one_line
from memsite.errors import InvalidInputError

SOURCES = ("agents-md", "mcp-memory", "jsonl")
MANIFEST = ".memsite-export.json"
# The only names a bundle's files get (see markdown_name): a manifest naming anything else is
# not believed, so a planted one can never make an export delete a person's own notes.
_BUNDLE_NAME = r"\d{4}-\d\d-\d\dT\d\d-\d\d-\d\dZ-[0-9a-f]{8}\.md"
_DIGEST = r"[0-9a-f]{64}"
BEGIN = "<!-- memsite:begin -->"
END = "<!-- memsite:end -->"
# Compiled on first use (re caches them): every command imports this module for its CLI choices.
_BULLET = r"^(\s*)(?:[-*+]|\d{1,3}[.)])\s+(.*)$"
_HEADING = r"^(#{1,6})\s+(.*?)\s*#*\s*$"
_FENCE = r"^\s*(```|~~~)"
# Headings that usually hold one kind of fact, by the category they map to.
HEADING_WORDS = {
    "conventions": "convention conventions style code-style coding guideline guidelines rules "
    "naming lint linting formatting standards",
    "architecture": "architecture structure layout design overview components modules "
    "project-structure codebase",
    "operations": "operations commands build building test tests testing deploy deployment "
    "setup development workflow ci release releasing running run scripts tooling",
    "decisions": "decisions decision adr adrs choices rationale",
}


@dataclass(frozen=True)
class Fact:
    """A fact read from a source, before it is written; ``where`` says where it came from."""

    content: str
    category: str
    where: str
    tags: tuple[str, ...] = ()
    obj: Mapping[str, Any] | None = None  # a whole entry object (jsonl): written as it is


@dataclass
class Parsed:
    facts: list[Fact] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    # (where, object) of each record line of a jsonl export, checked when it is written
    records: list[tuple[str, dict[str, Any]]] = field(default_factory=list)


def heading_category(heading: str, categories: Sequence[str]) -> str | None:
    """The category a heading names, or None."""
    words = re.findall(r"[a-z0-9]+", heading.lower())
    joined = "-".join(words)
    for category in categories:
        if category in words or category == joined:
            return category
    for category, usual in HEADING_WORDS.items():
        if category in categories and any(w in usual.split() for w in (*words, joined)):
            return category
    return None


def _body_start(lines: Sequence[str]) -> int:
    """The first line after front matter (Cursor rules), or 0."""
    if lines and lines[0].strip() == "---":
        ends = [i for i, line in enumerate(lines[1:], 1) if line.strip() == "---"]
        return ends[0] + 1 if ends else 0
    return 0


def _plain_lines(lines: Sequence[str]) -> Iterator[tuple[int, str | None]]:
    """(line number, line) of the lines outside front matter, fenced code and memsite's own
    block; (number, None) where one of those begins, which ends the fact before it."""
    first = _body_start(lines)
    fenced = in_block = False
    for number, line in enumerate(lines[first:], first + 1):
        stripped = line.strip()
        if stripped == BEGIN:
            in_block = True
            yield number, None
        elif stripped == END:
            in_block = False
        elif in_block:
            continue
        elif re.match(_FENCE, line):
            fenced = not fenced
            yield number, None
        elif not fenced:
            yield number, line


def import_category(source: str, category: str | None, categories: Sequence[str]) -> str | None:
    """The category for facts that name none (``category``: one of ``categories``). An
    mcp-memory file names none for any fact, so it needs one: filing them all under some
    default would be a guess nobody is told about."""
    if category is not None and category not in categories:
        raise InvalidInputError(
            f"unknown category {category!r}: use one of {', '.join(categories)}"
        )
    if category is None and source == "mcp-memory":
        raise InvalidInputError(
            "the MCP memory server's file gives its facts no category: pass --category with "
            f"the one to file them under ({', '.join(categories)})"
        )
    return category


def parse_agents_md(text: str, name: str, categories: Sequence[str], default: str | None) -> Parsed:
    """Facts from the bullet lists of an instruction file (see the module's docstring)."""
    found = Parsed()
    category: str | None = default
    heading = ""
    unmapped: set[str] = set()
    current: list[str] = []
    start = 0

    def close() -> None:
        if current:
            content = one_line(" ".join(current)).replace(" \0 ", "; ").replace("\0", "")
            if category is None:
                unmapped.add(heading)
            elif content:
                found.facts.append(Fact(content, category, f"{name}:{start}"))
        current.clear()

    for number, line in _plain_lines(text.splitlines()):
        if line is None:
            close()
        elif m := re.match(_HEADING, line):
            close()
            heading = m[2]
            category = heading_category(heading, categories) or default
        elif m := re.match(_BULLET, line):
            if not m[1] or not current:  # a top-level bullet starts a fact
                close()
                start = number
                current.append(m[2])
            else:
                current.append("\0 " + m[2])  # a sub-bullet joins its parent after "; "
        elif current and line.strip() and line[:1].isspace():
            current.append(line.strip())  # a continuation line
        else:
            close()
    close()
    for heading in sorted(unmapped):
        label = f"heading {heading!r}" if heading else "bullets before any heading"
        found.problems.append(
            f"{name}: {label} maps to no category: pass --category C for such facts"
        )
    return found


def _json_lines(text: str, name: str, problems: list[str]) -> Iterator[tuple[str, Any]]:
    """(where, value) of each non-blank line that is JSON; the others are reported."""
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        where = f"{name}:{number}"
        try:
            yield where, json.loads(line)
        except (ValueError, RecursionError):
            problems.append(f"{where}: not valid JSON; skipped")


def parse_mcp_memory(text: str, name: str, category: str) -> Parsed:
    """Facts from the MCP reference memory server's JSONL (entities and relations)."""
    found = Parsed()
    for where, item in _json_lines(text, name, found.problems):
        if not isinstance(item, dict):
            found.problems.append(f"{where}: not a JSON object; skipped")
        elif item.get("type") == "entity":
            found.facts += _entity_facts(item, where, category, found.problems)
        elif item.get("type") == "relation":
            fact = _relation_fact(item, where, category)
            if fact is None:
                found.problems.append(f"{where}: a relation needs from, relationType and to")
            else:
                found.facts.append(fact)
        else:
            found.problems.append(f"{where}: neither an entity nor a relation; skipped")
    return found


def _entity_facts(
    item: Mapping[str, Any], where: str, category: str, problems: list[str]
) -> list[Fact]:
    entity = item.get("name")
    observations = item.get("observations")
    if not isinstance(entity, str) or not isinstance(observations, list):
        problems.append(f"{where}: an entity needs a name and a list of observations")
        return []
    kind = item.get("entityType")
    tags = tuple(
        t
        for t in dict.fromkeys([as_name(entity), as_name(kind) if isinstance(kind, str) else None])
        if t
    )
    facts = []
    for observation in observations:
        if isinstance(observation, str) and observation.strip():
            content = observation.strip()
            if not _mentions(content, entity):
                content = f"{entity}: {content}"
            facts.append(Fact(content, category, where, tags))
    return facts


def _mentions(text: str, name: str) -> bool:
    return name.lower() in text.lower()


def _relation_fact(item: Mapping[str, Any], where: str, category: str) -> Fact | None:
    source, relation, target = item.get("from"), item.get("relationType"), item.get("to")
    if not all(isinstance(v, str) and v.strip() for v in (source, relation, target)):
        return None
    assert isinstance(source, str) and isinstance(relation, str) and isinstance(target, str)
    tags = tuple(t for t in dict.fromkeys([as_name(source), as_name(target)]) if t)
    return Fact(f"{source} {relation.replace('_', ' ')} {target}", category, where, tags)


def parse_jsonl(text: str, name: str) -> Parsed:
    """Entry and record objects from memsite's JSONL export (checked when they are written)."""
    found = Parsed()
    for where, obj in _json_lines(text, name, found.problems):
        if isinstance(obj, dict) and "record" in obj:
            found.records.append((where, obj))
            continue
        if not isinstance(obj, dict) or not isinstance(obj.get("content"), str):
            found.problems.append(f"{where}: not an entry object; skipped")
            continue
        category = obj.get("category")
        found.facts.append(
            Fact(obj["content"], category if isinstance(category, str) else "", where, obj=obj)
        )
    return found


# --- export ---------------------------------------------------------------------------------


def export_order(entries: Iterable[Entry]) -> list[Entry]:
    """Oldest first, then by id: the order facts were written in, stable across runs."""
    return sorted(entries, key=lambda e: (e.created, e.id, e.filename))


def record_order(records: Iterable[Record]) -> list[Record]:
    """Oldest first, then by id: as for entries, so the same records give the same lines
    whatever their files are called."""
    return sorted(records, key=lambda r: (r.created, r.id, r.filename))


def jsonl_line(obj: Mapping[str, Any]) -> str:
    """One entry object per line, its keys in the entry file's order (same store, same bytes)."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n"


def markdown_name(entry: Entry) -> str:
    """A file name built from checked fields only (a UUID and a time), never from a file name."""
    return f"{entry.created.strftime('%Y-%m-%dT%H-%M-%S')}Z-{entry.id[:8]}.md"


def markdown_file(entry: Entry, obj: Mapping[str, Any], status: str) -> str:
    """One fact as Markdown with YAML front matter (values as JSON scalars, valid YAML)."""
    meta: dict[str, Any] = {
        "id": entry.id,
        "category": entry.category,
        "created": format_created(entry.created),
        "status": status,
        "confidence": entry.confidence,
        "tags": list(entry.tags),
    }
    for key in ("key", "agent", "reason", "valid_from", "valid_to"):
        if obj.get(key):
            meta[key] = obj[key]
    if entry.supersedes:
        meta["supersedes"] = list(entry.supersedes)
    lines = ["---"]
    for key, value in meta.items():
        lines.append(f"{key}: {json.dumps(value, ensure_ascii=False)}")
    lines += ["---", "", str(obj.get("content", "")).strip(), ""]
    return "\n".join(lines)


def digest(data: bytes) -> str:
    import hashlib  # ~3 ms of OpenSSL start-up: only for the commands that hash

    return hashlib.sha256(data).hexdigest()


def manifest_text(digests: Mapping[str, str]) -> str:
    """The manifest of a bundle: each file's name and SHA-256, sorted (same files, same bytes)."""
    body = {
        "written_by": "memsite export --format markdown",
        "files": dict(sorted(digests.items())),
    }
    return json.dumps(body, indent=1) + "\n"


def manifest_files(text: str) -> dict[str, str]:
    """name → SHA-256 of the files a manifest lists; only names a bundle's files can have and
    well-formed digests (anything else, or a manifest that is not one, counts for nothing)."""
    try:
        files = json.loads(text).get("files")
    except (ValueError, RecursionError, AttributeError):
        return {}
    if not isinstance(files, dict):
        return {}
    return {
        name: value
        for name, value in files.items()
        if isinstance(value, str)
        and re.fullmatch(_BUNDLE_NAME, name)
        and re.fullmatch(_DIGEST, value)
    }


# --- what an import replaces ----------------------------------------------------------------


@dataclass(frozen=True)
class Displaced:
    """A held fact of another author that an imported entry would replace (``how``:
    ``supersedes`` when the entry names it, ``overrides`` when it wins on the same key), or
    that an imported retire record would withdraw (``retires``)."""

    held: Entry
    by: Entry | Record
    how: str

    def shown(self) -> dict[str, Any]:
        return {
            "id": self.held.id,
            "category": self.held.category,
            "agent": self.held.agent,
            "how": self.how,
            "by": self.by.id,
        }


def displaced(
    held: Iterable[Entry],
    incoming: Iterable[Entry],
    author: str | None,
    retiring: Iterable[Record] = (),
) -> list[Displaced]:
    """The facts of ``held`` (the memory's active facts) of other authors that ``incoming``
    (the entries an import would write) would supersede or override.

    The rule: an incoming entry replaces a held fact when its ``supersedes`` names the fact's
    id, or when both have the same category and key and the incoming entry comes first in
    compaction's order (newer, then higher confidence, then greater id: it would win); an
    incoming retire record (``retiring``) withdraws the held fact it targets. A fact
    is another author's unless its ``agent`` equals ``author``, the name of whoever runs the
    import: a fact with no agent, or an import with no name, counts as another's. The file's
    own claims of authorship are never asked (the file is what is being checked).
    """
    others = [e for e in held if not (author and e.agent == author)]
    by_id = {e.id: e for e in others}
    by_key: dict[tuple[str, str], list[Entry]] = {}
    for entry in others:
        if entry.key:
            by_key.setdefault((entry.category, entry.key), []).append(entry)
    found: dict[str, Displaced] = {}
    for entry in incoming:
        for target in entry.supersedes:
            if target in by_id and target not in found:
                found[target] = Displaced(by_id[target], entry, "supersedes")
        rivals = by_key.get((entry.category, entry.key), []) if entry.key else []
        for fact in rivals:
            if fact.id not in found and entry.order_key > fact.order_key:
                found[fact.id] = Displaced(fact, entry, "overrides")
    for record in retiring:
        if record.kind == RETIRE and record.target in by_id and record.target not in found:
            found[record.target] = Displaced(by_id[record.target], record, "retires")
    return sorted(found.values(), key=lambda d: d.held.order_key, reverse=True)
