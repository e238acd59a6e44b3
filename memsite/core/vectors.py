"""Vector arithmetic for semantic recall, in plain Python: a query's vector, the sign code
that preselects candidates, the cosine that ranks them, and the fusion of ranked lists.

A search embeds one query and compares it with every stored fact. Importing numpy costs
~120 ms on the machines we measure, more than the whole exact search at 10k facts, so the
query path needs none: each fact keeps a 256-bit sign code (one Python int), the Hamming
distance (``int.bit_count``) picks ``PRESELECT`` candidates, and their full vectors are
ranked by cosine. Bulk embedding (every fact, once) uses numpy; see ``storage.embedding``.
"""

from __future__ import annotations

import math
import operator
import struct
from collections import Counter
from collections.abc import Mapping, Sequence

PRESELECT = 200  # candidates whose full vectors are compared: sign codes keep the true top 10
RRF_K = 60  # reciprocal rank fusion's constant (Cormack et al., 2009)


def mean_unit(rows: Sequence[Sequence[float]]) -> list[float]:
    """The mean of ``rows`` scaled to unit length (zeros when there are none, or they cancel)."""
    if not rows:
        return []
    total = [sum(column) for column in zip(*rows, strict=True)]
    length = math.sqrt(sum(x * x for x in total))
    return [x / length for x in total] if length else [0.0] * len(total)


def sign_code(vector: Sequence[float]) -> int:
    """One bit per dimension, set where the value is positive."""
    code = 0
    for bit, value in enumerate(vector):
        if value > 0:
            code |= 1 << bit
    return code


def pack(vector: Sequence[float]) -> tuple[bytes, bytes]:
    """A unit vector as stored: its sign code (little-endian bytes) and float16 values."""
    width = (len(vector) + 7) // 8
    return sign_code(vector).to_bytes(width, "little"), struct.pack(f"<{len(vector)}e", *vector)


def unpack(values: bytes) -> tuple[float, ...]:
    return struct.unpack(f"<{len(values) // 2}e", values)


def nearest_codes(query: int, codes: Sequence[int], allowed: bytes, count: int) -> list[int]:
    """The positions of the ``count`` codes nearest ``query`` in Hamming distance, among those
    ``allowed`` marks (a byte each, non-zero: allowed); ties: lower position first.

    One pass gives the distances; a histogram of them (distances are 0 to 256) gives the
    largest one still needed, and a second pass the positions within it: ~30 ms at 100,000
    codes, where ``heapq.nsmallest`` with a key took ~75 ms."""
    far = 1 << 16
    distances = [
        (query ^ code).bit_count() if ok else far for code, ok in zip(codes, allowed, strict=True)
    ]
    histogram = Counter(distances)
    total, limit = 0, -1
    for distance in sorted(histogram):
        if distance == far:
            break
        total += histogram[distance]
        limit = distance
        if total >= count:
            break
    within = [i for i, distance in enumerate(distances) if distance <= limit]
    within.sort(key=distances.__getitem__)  # stable: positions stay in order among ties
    return within[:count]


def cosine(query: Sequence[float], vector: Sequence[float]) -> float:
    """The dot product of two unit vectors (0 for vectors of different lengths)."""
    if len(query) != len(vector):
        return 0.0
    return float(sum(map(operator.mul, query, vector)))


def fuse(ranked: Mapping[str, Sequence[str]], k: int = RRF_K) -> list[tuple[str, float]]:
    """Reciprocal rank fusion of several ranked lists of keys (``ranked``: signal → keys,
    best first): each key scores the sum of 1 / (k + rank) over the lists holding it. Best
    first; ties keep the order of first appearance."""
    scores: dict[str, float] = {}
    for keys in ranked.values():
        for rank, key in enumerate(keys, 1):
            scores[key] = scores.get(key, 0.0) + 1.0 / (k + rank)
    return sorted(scores.items(), key=lambda pair: -pair[1])
