"""Search by words, by meaning, or both (``search --mode``), and the facts relevant to a task
or a prompt.

- ``exact``: memsite's lexical ranking (``core.ranking``: stems, typos, synonyms, BM25).
- ``semantic``: the semantic extra's vectors (``storage.embedding``, ``readmodel.vectors``).
  A fact found by meaning alone must reach ``FLOOR`` cosine: every query has nearest
  neighbours, and below it they are noise (on the evaluation set half the answers score over
  0.55, and a gibberish query's nearest fact 0.47).
- ``hybrid``: both, fused by reciprocal rank (``core.vectors.fuse``): a fact both find ranks
  first, exact identifiers and typo tolerance keep working.
- ``auto`` (the default): hybrid when the extra is installed, exact otherwise.

Each hit says which rankings found it (``signals``), and its cosine when the semantic one saw
it (``similarity``).
"""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING, Any

from memsite.memory import reads

if TYPE_CHECKING:
    from memsite.memory import Memory
    from memsite.storage.readmodel import Row

MODES = ("auto", "exact", "semantic", "hybrid")
FLOOR = 0.5  # the cosine a fact found by meaning alone must reach
AGREE = 0.3  # the cosine a fact found by words too needs to be given to a prompt
POOL = 50  # hits of each ranking that are fused
Chosen = list[tuple[float, "dict[str, Any] | Row", dict[str, Any]]]


def mode_used(mode: str) -> str:
    """The ranking ``mode`` stands for here: ``auto`` is hybrid when the semantic extra is
    installed; semantic and hybrid without it are refused in one line naming the extra."""
    from memsite.errors import InvalidInputError
    from memsite.storage import embedding

    if mode not in MODES:
        raise InvalidInputError(f"unknown search mode {mode!r}: use one of {', '.join(MODES)}")
    if mode == "exact" or (mode == "auto" and not embedding.available()):
        return "exact"
    if mode == "auto":
        return "hybrid"
    if not embedding.available():
        raise embedding.Missing(f"--mode {mode} needs the model: {embedding.EXTRA}")
    return mode


def search(
    memory: Memory,
    query: str,
    category: str | None = None,
    limit: int = 20,
    include_all: bool = False,
    daily: bool = False,
    expand: bool = False,
    mode: str = "auto",
) -> list[dict[str, Any]]:
    """Ranked search (see the module docstring); ``daily``: the daily logs' lines too (found
    by words); ``expand``: the facts linked to the hits follow."""
    reads.check_query(memory, query, category)
    chosen = ranked(memory, query, category, include_all, daily, mode_used(mode))
    return reads.shape_hits(memory, chosen[: max(limit, 0)], include_all, expand)


def ranked(
    memory: Memory, query: str, category: str | None, include_all: bool, daily: bool, used: str
) -> Chosen:
    """Every hit of ``used`` ranking, best first: (score, hit, its signal fields)."""
    if used == "exact":
        lexical = reads.exact(memory, query, category, include_all, daily)
        return [(key[0], hit, {"signals": ["exact"]}) for key, hit in lexical]
    near = _semantic(memory, query, category, include_all)
    if used == "semantic":
        return [
            (round(cosine, 6), row, {"signals": ["semantic"], "similarity": round(cosine, 4)})
            for row, cosine in near
            if cosine >= FLOOR
        ]
    lexical = reads.exact(memory, query, category, include_all, daily)[:POOL]
    hits: dict[str, dict[str, Any] | Row] = {_key(hit): hit for _, hit in lexical}
    similar = {row.id: cosine for row, cosine in near}
    semantic = [row for row, cosine in near if cosine >= FLOOR or row.id in hits]
    hits.update((row.id, row) for row in semantic if row.id not in hits)
    from memsite.core.vectors import fuse

    fused = fuse({"exact": [_key(h) for _, h in lexical], "semantic": [r.id for r in semantic]})
    lexical_keys = {_key(h) for _, h in lexical}
    semantic_keys = {r.id for r in semantic}
    out: Chosen = []
    for key, score in fused:
        signals = [
            s for s, held in (("exact", lexical_keys), ("semantic", semantic_keys)) if key in held
        ]
        extra: dict[str, Any] = {"signals": signals}
        if key in similar:
            extra["similarity"] = round(similar[key], 4)
        out.append((round(score, 6), hits[key], extra))
    return out


def _key(hit: dict[str, Any] | Row) -> str:
    """A hit's name in the fusion: an entry's id, a daily line's place."""
    if isinstance(hit, dict):
        return f"daily:{hit['file']}:{hit['line']}"
    return hit.id


def _semantic(
    memory: Memory, query: str, category: str | None, include_all: bool
) -> list[tuple[Row, float]]:
    """The ``POOL`` facts nearest ``query`` by meaning, with their cosines (each fact is
    embedded once, by the first command that needs it after it arrived)."""
    from memsite.storage.embedding import Model

    model = Model()
    index = memory.index()
    index.vectors.prepare(model)
    vector = index.vectors.query(model, query)
    return index.vectors.nearest(vector, POOL, category, include_all)


def relevant(memory: Memory, text: str, limit: int, strict: bool) -> list[str]:
    """The ids of the active facts most relevant to ``text`` (a task, a prompt), best first:
    found by meaning over ``FLOOR``, or by words; with ``strict`` (a prompt, where silence is
    better than noise) and the semantic extra, a fact found by words needs a cosine of
    ``AGREE`` too. Facts the gate holds back or out of their window are left to the caller's
    index rendering, which drops them."""
    used = mode_used("auto")
    chosen = ranked(memory, text, None, False, False, used)
    found: list[str] = []
    for _, hit, extra in chosen:
        if isinstance(hit, dict):
            continue
        signals: Collection[str] = extra["signals"]
        close = extra.get("similarity", 0.0) >= (FLOOR if signals == ["semantic"] else AGREE)
        if not strict or used == "exact" or close:
            found.append(hit.id)
        if len(found) == limit:
            break
    return found
