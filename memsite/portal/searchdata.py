"""Search data of the portal: memsite's own index, split so that a query loads only what it needs.

The browser (``assets/memsite/search.js``) runs the CLI's ranking (``core.ranking``) over files
written here, with the same analysis (``core.stem.terms``: word tokens, then Porter stems) and
the same tables (synonyms, common words, weights), which ``meta.json`` carries. So the header
box, the search page and ``memsite search`` agree on tokens, stems, typos and order.

Files under ``search/`` (``refs`` are positions in :attr:`Portal.entries` read backwards,
oldest first: a new fact takes the next ref, and the refs of all others stay as they were):

* ``meta.json``: counts, the shared name lists (categories, tags, statuses), the first term of
  every term shard, the word lengths that have a vocabulary file, the ranking's tables, and
  the day of every ref (``days``: runs of ``[day delta, count]``, days since 1970), from which
  the browser takes the recency factor against today, as the CLI does.
* ``t/N.json``: a contiguous, sorted range of terms, each with its document frequency and its
  postings ``[ref delta, value, ...]``. A value is ``impact * 8 + status``: the term's BM25
  weight in that entry (content terms, plus tag and key terms counting ``META_WEIGHT`` times),
  scaled to an integer, with the average length rounded to three digits (what one new fact
  moves it by seldom changes that). So a value depends on its entry and its term alone, and
  one new fact changes the shards of its own terms only. A shard ends before a term whose
  hash says so once it holds :data:`SHARD_MIN` bytes (or before :data:`SHARD_MAX`): its ends
  do not move when another shard grows. A term held by more than :data:`MAX_POSTINGS`
  entries keeps the postings of its highest impacts (its frequency stays exact, for the
  IDF).
* ``v/L.json``: the indexed words of length ``L`` (unstemmed), for typo matching.
* ``i/XY.json``: ids starting with ``XY`` and their refs, newest first, for lookup by id
  prefix.
* ``d/N.json``: what a result shows for refs ``N * CHUNK`` onwards: id, title, text, category,
  tags, status, day, key.
* ``f/KIND-N.json``: the refs (delta coded) of one category (``c``), tag (``g``) or status
  (``s``), loaded when the search page filters on it.

The CLI's score has one term these files cannot give: the bonus for query words that stand next
to each other in a fact (it needs word positions). Everything else is the same formula (the
recency factor from the day, not the second, of a fact).

Since every file depends only on the entries it covers, a rebuild after one new fact gives
mostly the same bytes: only its own terms' shards, the last rows file, its id prefix, its
filters and ``meta.json`` change. ``memsite build`` then makes just those
(``portal.searchpatch``), and ``serve`` writes only the files whose bytes changed.
"""

from __future__ import annotations

import itertools
import json
import sys
import zlib
from array import array
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Sequence
from datetime import datetime
from operator import itemgetter
from typing import Any, NamedTuple

from memsite.core import ranking
from memsite.core.schema import STATUSES
from memsite.core.stem import MIN_WORD, entry_terms
from memsite.core.text import normalize, one_line
from memsite.portal.keys import view_digest
from memsite.portal.model import EntryView, Portal

VERSION = 3
META_FILE = "search/meta.json"
# At 100k entries these give shards of 36 KB on average (what a query fetches per word).
SHARD_MIN = 16_000  # a shard holds at least this much of JSON (unless it is the last) ...
SHARD_MAX = 64_000  # ... and ends before this much (unless one term is larger)
CUT_EVERY = 16  # past SHARD_MIN, a term starts a shard when its hash is 0 modulo this
MAX_POSTINGS = 5_000
CHUNK = 40  # results shown per fetch of ``d/N.json``
TEXT_MAX = 600  # characters of an entry's text kept for its snippet
SCALE = 50  # impacts are round(weight * SCALE): at most about 2.2 * 50 = 110
DAY = 86_400
ID_CHARS = 2


def import_lunr() -> None:
    """Import lunr.py without its optional NLTK language support (which pulls in SciPy, ~2 s).

    MkDocs' and Material's search plugins import lunr.py, so the portal build calls this
    before MkDocs runs.
    """
    if "lunr" in sys.modules:
        return
    blocked = "nltk" not in sys.modules
    if blocked:
        sys.modules["nltk"] = None  # type: ignore[assignment]
    try:
        import lunr  # noqa: F401
    finally:
        if blocked:
            del sys.modules["nltk"]


def status_order() -> list[str]:
    """Statuses with ``active`` first (a posting's low bits; 0 is the common case)."""
    return sorted(STATUSES, key=lambda s: s != "active")


def analysed(entry: EntryView) -> tuple[list[str], list[str], set[str]]:
    """An entry's content terms, tag and key terms, and the words kept for typo matching:
    ``core.stem.entry_terms``, the CLI's analysis, of the portal's (redacted) text."""
    names = (*(t.name for t in entry.tags), *([entry.key] if entry.key else []))
    body, meta, words, _ = entry_terms(normalize(entry.content), names)
    return body, meta, {w for w in words if len(w) >= MIN_WORD}


def search_order(portal: Portal) -> list[EntryView]:
    """The entries by ref: oldest first (:attr:`Portal.entries` backwards)."""
    return portal.entries[::-1]


def average_length(total: int, documents: int) -> float:
    """The average analysed length the impacts use: rounded to three significant digits, so
    that one more fact seldom changes it (and with it every impact)."""
    return float(f"{total / documents:.3g}") if documents else 0.0


def impacts(
    entries: Sequence[EntryView],
) -> tuple[dict[str, array[int]], dict[int, set[str]], int]:
    """term → [ref, value, ref, value, ...] in ref order; words by length; the analysed
    length of all entries (the average's numerator)."""
    by_length: dict[int, set[str]] = defaultdict(set)
    rows = []
    for entry in entries:
        body, meta, words = analysed(entry)
        for word in words:
            by_length[len(word)].add(word)
        rows.append((body, meta))  # the words are not kept: at 100k entries, 150 MB
    total = sum(len(body) + len(meta) for body, meta in rows)
    average = average_length(total, len(entries))
    statuses = {name: n for n, name in enumerate(status_order())}
    postings: dict[str, array[int]] = defaultdict(lambda: array("i"))  # 4 bytes a value
    for ref, (entry, (body, meta)) in enumerate(zip(entries, rows, strict=True)):
        for term, value in posting_values(body, meta, average, statuses[entry.status]):
            postings[term].extend((ref, value))
    return postings, by_length, total


def posting_values(
    body: Sequence[str], meta: Sequence[str], average: float, status: int
) -> list[tuple[str, int]]:
    """Each term of one entry and its posting's value: ``impact * 8 + status``."""
    k1, b = ranking.K1, ranking.B
    norm = k1 * (1 - b + b * (len(body) + len(meta)) / (average or 1.0))
    counts: Counter[str] = Counter(body)
    for term in meta:
        counts[term] += ranking.META_WEIGHT  # type: ignore[assignment]
    return [
        (term, (int(tf * (k1 + 1) / (tf + norm) * SCALE + 0.5) or 1) * 8 + status)
        for term, tf in counts.items()
    ]


def day_runs(entries: Sequence[EntryView], runs: Sequence[int] = ()) -> list[int]:
    """The day (since 1970, UTC) of every ref as runs: ``[day delta, count, ...]``; after
    ``runs``, those of the refs before (``portal.searchpatch``), when given."""
    out = list(runs)
    last = sum(out[0::2])
    for entry in entries:
        day = int(_timestamp(entry.created) // DAY)
        if out and day == last:
            out[-1] += 1
        else:
            out += (day - last, 1)
            last = day
    return out


def _timestamp(created: str) -> float:
    try:
        return datetime.fromisoformat(created.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return 0.0


def _deltas(refs: Iterable[int]) -> list[int]:
    out: list[int] = []
    last = 0
    for ref in refs:
        out.append(ref - last)
        last = ref
    return out


def encode_postings(found: Sequence[int]) -> str:
    """A term's postings ``[ref, value, ...]`` (refs in order) as JSON ``[ref delta, value,
    ...]``, the strongest when too many."""
    pairs = list(zip(found[::2], found[1::2], strict=True))
    if len(pairs) > MAX_POSTINGS:
        # Values are impact * 8 + status: their order is the impacts' order.
        pairs = sorted(sorted(pairs, key=itemgetter(1), reverse=True)[:MAX_POSTINGS])
    flat: list[int] = []
    last = 0
    for ref, value in pairs:
        flat += (ref - last, value)
        last = ref
    return _dumps(flat)


def _starts_shard(term: str) -> bool:
    return zlib.crc32(term.encode("utf-8", "surrogatepass")) % CUT_EVERY == 0


def term_shards(postings: dict[str, array[int]]) -> list[tuple[str, bytes]]:
    """Sorted terms cut into shards of :data:`SHARD_MIN` to :data:`SHARD_MAX` bytes of JSON:
    (first term, file). Where a shard ends depends on the terms, not on the bytes before: a
    shard that grows moves at most its own end."""
    shards: list[tuple[str, bytes]] = []
    cutter = Cutter()
    for term in sorted(postings):
        found = postings[term]
        done = cutter.add(term, len(found) // 2, encode_postings(found))
        if done is not None:
            shards.append(done)
    if cutter.terms or not shards:
        shards.append(cutter.cut())
    return shards


class Cutter:
    """Terms, in order, into shards (:func:`term_shards`): each term with its document
    frequency and its encoded postings."""

    def __init__(self) -> None:
        self.terms: list[str] = []
        self.frequencies: list[int] = []
        self.encoded: list[str] = []
        self.size = 0

    def cuts_before(self, term: str, data: str) -> bool:
        """Does a shard end before ``term`` (whose postings are ``data``)?"""
        full = self.size >= SHARD_MIN and _starts_shard(term)
        return bool(self.terms) and (full or self.size + len(term) + len(data) + 10 > SHARD_MAX)

    def add(self, term: str, frequency: int, data: str) -> tuple[str, bytes] | None:
        """Take ``term``; the shard it ended, if it ended one."""
        done = self.cut() if self.cuts_before(term, data) else None
        self.terms.append(term)
        self.frequencies.append(frequency)
        self.encoded.append(data)
        self.size += len(term) + len(data) + 10
        return done

    def cut(self) -> tuple[str, bytes]:
        """The shard so far (first term, file); the next starts empty."""
        body = (
            f'{{"terms":{_dumps(self.terms)},"df":{_dumps(self.frequencies)},'
            f'"postings":[{",".join(self.encoded)}]}}'
        )
        shard = (self.terms[0] if self.terms else "", body.encode("utf-8"))
        self.terms, self.frequencies, self.encoded, self.size = [], [], [], 0
        return shard


def _result_row(
    entry: EntryView, cats: dict[str, int], tags: dict[str, int], statuses: dict[str, int]
) -> list[Any]:
    text = one_line(entry.content)  # search.js shows its code spans as code
    if len(text) > TEXT_MAX:
        text = text[: TEXT_MAX - 1] + "…"
    return [
        entry.id,
        entry.title,
        text,
        cats[entry.category],
        [tags[t.name] for t in entry.tags],
        statuses[entry.status],
        entry.day,
        entry.key or "",
    ]


def search_files(portal: Portal) -> dict[str, bytes]:
    """Every file of the portal's search index, by path under the site."""
    return dict(search_file_stream(portal))


class _Names(NamedTuple):
    """The shared name lists (categories, tags, statuses) and each name's number."""

    categories: dict[str, int]
    tags: dict[str, int]
    statuses: dict[str, int]


def _id_files(entries: Sequence[EntryView]) -> Iterator[tuple[str, bytes]]:
    """``i/XY.json``: ids starting with ``XY`` and their refs, newest first."""
    by_prefix: dict[str, list[list[Any]]] = defaultdict(list)
    for ref in range(len(entries) - 1, -1, -1):  # newest first
        entry_id = entries[ref].id
        by_prefix[entry_id[:ID_CHARS].lower()].append([entry_id, ref])
    for prefix, rows in by_prefix.items():
        if _safe_name(prefix):
            yield f"search/i/{prefix}.json", _dump(rows)


def row_files(
    entries: Sequence[EntryView], names: _Names, first: int = 0
) -> Iterator[tuple[str, bytes]]:
    """``d/N.json``: what a result shows, :data:`CHUNK` refs a file (from file ``first``)."""
    for number, start in enumerate(range(first * CHUNK, len(entries), CHUNK), first):
        chunk = entries[start : start + CHUNK]
        rows = [_result_row(e, *names) for e in chunk]
        yield f"search/d/{number}.json", _dump(rows)


def _filter_files(entries: Sequence[EntryView], names: _Names) -> Iterator[tuple[str, bytes]]:
    """``f/KIND-N.json``: the refs of each category, status and tag."""
    groups: dict[str, list[int]] = defaultdict(list)
    for ref, entry in enumerate(entries):
        groups[f"c-{names.categories[entry.category]}"].append(ref)
        groups[f"s-{names.statuses[entry.status]}"].append(ref)
        for tag in entry.tags:
            groups[f"g-{names.tags[tag.name]}"].append(ref)
    for name, refs in groups.items():
        yield f"search/f/{name}.json", _dump(_deltas(refs))


def names_of(portal: Portal) -> _Names:
    """The portal's shared name lists, numbered as the files refer to them."""
    return _Names(
        {c.name: n for n, c in enumerate(portal.categories)},
        {t.name: n for n, t in enumerate(portal.tags)},
        {name: n for n, name in enumerate(status_order())},
    )


def search_file_stream(
    portal: Portal, keep: dict[str, Any] | None = None
) -> Iterator[tuple[str, bytes]]:
    """The files of :func:`search_files` one at a time, ``meta.json`` last: a caller that
    writes each as it comes never holds them all (about 60 MB at 100k entries). ``keep``:
    filled once the stream ends with what a later build needs to patch the files after new
    facts only (``portal.searchpatch``)."""
    entries = search_order(portal)
    names = names_of(portal)
    postings, by_length, total = impacts(entries)
    sums: dict[str, tuple[int, int]] = {}  # each file's checksum (for the stamp) and size
    shards: list[str] = []  # the first term of each
    for number, (first, data) in enumerate(term_shards(postings)):
        shards.append(first)
        sums[f"search/t/{number}.json"] = (zlib.crc32(data), len(data))
        yield f"search/t/{number}.json", data
    del postings
    words = ((f"search/v/{n}.json", _dump(sorted(w))) for n, w in by_length.items())
    for name, data in itertools.chain(
        words, _id_files(entries), row_files(entries, names), _filter_files(entries, names)
    ):
        sums[name] = (zlib.crc32(data), len(data))
        yield name, data
    meta = {
        "version": VERSION,
        "documents": len(entries),
        "averageLength": average_length(total, len(entries)),
        "scale": SCALE,
        "chunk": CHUNK,
        "idChars": ID_CHARS,
        "minWord": MIN_WORD,
        "categories": list(names.categories),
        "categoryTitles": [c.title for c in portal.categories],
        "tags": list(names.tags),
        "statuses": list(names.statuses),
        "shards": shards,
        "lengths": sorted(by_length),
        "days": day_runs(entries),
        "ranking": ranking_tables(),
    }
    data = stamped(meta, sums)
    yield META_FILE, data
    if keep is not None:
        sums[META_FILE] = (zlib.crc32(data), len(data))
        keep.update(digests=digests_of(entries), total=total, sums=sums)


def stamped(meta: dict[str, Any], sums: dict[str, tuple[int, int]]) -> bytes:
    """``meta.json`` with its stamp: every other file is fetched as NAME?v=STAMP, and
    meta.json without the browser's cache, so a page never mixes files of two builds."""
    stamp = 0
    for name in sorted(sums):
        stamp = zlib.crc32(f"{name}:{sums[name][0]:08x}".encode(), stamp)
    return _dump({**meta, "stamp": f"{stamp:08x}"})


def digests_of(entries: Sequence[EntryView]) -> bytes:
    """Each view's digest (``portal.keys``), 16 bytes a ref: what the files were made of."""
    return b"".join(bytes.fromhex(view_digest(view)) for view in entries)


def ranking_tables() -> dict[str, Any]:
    """What ``search.js`` needs of ``core.ranking`` and ``core.thesaurus``, taken from them."""
    from memsite.core import thesaurus

    return {
        "stopwords": sorted(ranking.STOPWORDS),
        "thesaurus": [
            [" ".join(expression), [" ".join(o) for o in others]]
            for expression, others in sorted(thesaurus.table().items())
        ],
        "symbols": thesaurus.SYMBOLS,
        "synonymWeight": ranking.SYNONYM_WEIGHT,
        "compoundWeight": ranking.COMPOUND_WEIGHT,
        "prefixWeight": ranking.PREFIX_WEIGHT,
        "prefixMin": ranking.PREFIX_MIN,
        "prefixMaxTerms": ranking.PREFIX_MAX_TERMS,
        "fuzzyWeight": {str(k): v for k, v in ranking.FUZZY_WEIGHT.items()},
        "coveragePower": ranking.COVERAGE_POWER,
        "recencyWeight": ranking.RECENCY_WEIGHT,
        "recencyHalfLifeDays": ranking.RECENCY_HALF_LIFE_DAYS,
    }


def _safe_name(prefix: str) -> bool:
    return len(prefix) == ID_CHARS and all(c in "0123456789abcdef" for c in prefix)


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _dump(value: Any) -> bytes:
    return _dumps(value).encode("utf-8")
