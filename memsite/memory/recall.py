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
from typing import TYPE_CHECKING, Any, NamedTuple

from memsite.errors import InvalidInputError
from memsite.memory import reads

if TYPE_CHECKING:
    from memsite.memory import Memory
    from memsite.storage.readmodel import Row

MODES = ("auto", "exact", "semantic", "hybrid")
FLOOR = 0.5  # the cosine a fact found by meaning alone must reach
AGREE = 0.3  # the cosine a fact found by words too needs to be given to a prompt
POOL = 50  # hits of each ranking that are fused (at least as many as asked for)
WAITING_MAX = 64  # facts waiting for their vectors past which a prompt is answered by words
Chosen = list[tuple[float, "dict[str, Any] | Row", dict[str, Any]]]


def mode_used(mode: str) -> str:
    """The ranking ``mode`` stands for here: ``auto`` is hybrid when the semantic extra is
    installed; semantic and hybrid without it are refused in one line naming the extra."""
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
    with_provenance: bool = True,
) -> list[dict[str, Any]]:
    """Ranked search (see the module docstring); ``daily``: the daily logs' lines too (found
    by words, so not with ``semantic``); ``expand``: the facts linked to the hits follow;
    without ``with_provenance``, the hits have no ``provenance`` (git is not asked)."""
    reads.check_query(memory, query, category)
    used = mode_used(mode)
    if daily and used == "semantic":
        raise InvalidInputError("daily log lines are found by words: leave out --mode semantic")
    pool = max(POOL, limit)
    chosen = ranked(memory, query, Scope(category, include_all, daily, pool), used)
    return reads.shape_hits(memory, chosen[: max(limit, 0)], include_all, expand, with_provenance)


class Scope(NamedTuple):
    """What a ranking looks at, and how many hits each ranking hands to the fusion."""

    category: str | None = None
    include_all: bool = False
    daily: bool = False
    pool: int = POOL
    most: int | None = None  # facts waiting for their vectors past which words alone answer


def ranked(memory: Memory, query: str, scope: Scope, used: str) -> Chosen:
    """Every hit of ``used`` ranking, best first: (score, hit, its signal fields). When the
    vectors cannot be brought up to date (the cache busy or read-only, or more than
    ``scope.most`` facts waiting), hybrid is exact, and semantic one line saying so."""
    near = None if used == "exact" else _semantic(memory, query, scope)
    if near is None and used == "semantic":
        raise InvalidInputError(
            "the facts' vectors cannot be made now (the cache is busy or read-only): try "
            "again, or use --mode exact"
        )
    lexical = [] if used == "semantic" else reads.exact(memory, query, *scope[:3])
    if near is None:
        return [(key[0], hit, {"signals": ["exact"]}) for key, hit in lexical]
    if used == "semantic":
        return [
            (round(cosine, 6), row, {"signals": ["semantic"], "similarity": round(cosine, 4)})
            for row, cosine in near
            if cosine >= FLOOR
        ]
    return _fused(lexical[: scope.pool], near)


def _fused(
    lexical: list[tuple[Any, dict[str, Any] | Row]], near: list[tuple[Row, float]]
) -> Chosen:
    """Reciprocal rank fusion of the two rankings (``core.vectors.fuse``); a fact only the
    semantic one found must reach ``FLOOR``."""
    from memsite.core.vectors import fuse

    hits: dict[str, dict[str, Any] | Row] = {_key(hit): hit for _, hit in lexical}
    similar = {row.id: cosine for row, cosine in near}
    semantic = [row for row, cosine in near if cosine >= FLOOR or row.id in hits]
    hits.update((row.id, row) for row in semantic if row.id not in hits)
    lexical_keys = [_key(h) for _, h in lexical]
    semantic_keys = [r.id for r in semantic]
    found = (("exact", set(lexical_keys)), ("semantic", set(semantic_keys)))
    out: Chosen = []
    for key, score in fuse({"exact": lexical_keys, "semantic": semantic_keys}):
        extra: dict[str, Any] = {"signals": [s for s, held in found if key in held]}
        if key in similar:
            extra["similarity"] = round(similar[key], 4)
        out.append((round(score, 6), hits[key], extra))
    return out


def _key(hit: dict[str, Any] | Row) -> str:
    """A hit's name in the fusion: an entry's id, a daily line's place."""
    if isinstance(hit, dict):
        return f"daily:{hit['file']}:{hit['line']}"
    return hit.id


def _semantic(memory: Memory, query: str, scope: Scope) -> list[tuple[Row, float]] | None:
    """The facts nearest ``query`` by meaning, with their cosines (each fact is embedded
    once, by the first command that needs it after it arrived); None when the vectors cannot
    be brought up to date now."""
    import sqlite3

    from memsite.storage.embedding import Model

    model = Model()
    index = memory.index()
    try:
        if index.vectors.prepare(model, scope.most) < 0:
            return None
    except sqlite3.OperationalError as exc:
        if not any(word in str(exc) for word in ("locked", "busy", "readonly", "read-only")):
            raise
        return None
    vector = index.vectors.query(model, query)
    return index.vectors.nearest(vector, scope.pool, scope.category, scope.include_all)


def relevant(memory: Memory, text: str, limit: int, strict: bool) -> list[str]:
    """The ids of the active facts most relevant to ``text`` (a task, a prompt) that may reach
    an agent (``memory.trust``, ``memory.windows``), best first: found by meaning over
    ``FLOOR``, or by words. With ``strict`` (a prompt, where silence is better than noise, and
    which must answer in moments: words alone while many facts wait for their vectors) and
    the semantic extra, a fact found by words needs a cosine of ``AGREE`` too."""
    from memsite.memory.trust import current
    from memsite.memory.windows import out_of_window

    used = mode_used("auto")
    near = None if used == "exact" else _semantic(memory, text, Scope(most=WAITING_MAX))
    lexical = reads.exact(memory, text, None, False, False)
    chosen: Chosen
    if near is None:  # no extra, or no vectors now: words alone
        chosen = [(key[0], hit, {"signals": ["exact"]}) for key, hit in lexical]
    else:
        chosen = _fused(lexical[:POOL], near)
    left = current(memory).held.keys() | out_of_window(memory).keys()
    found: list[str] = []
    for _, hit, extra in chosen:
        if isinstance(hit, dict) or hit.id in left:
            continue
        signals: Collection[str] = extra["signals"]
        close = extra.get("similarity", 0.0) >= (FLOOR if signals == ["semantic"] else AGREE)
        if not strict or near is None or close:
            found.append(hit.id)
        if len(found) == limit:
            break
    return found
