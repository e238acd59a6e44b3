"""Reading the portal's split search index back (tests only): rows, terms and postings."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass
class SearchFiles:
    meta: dict[str, Any]
    rows: list[list[Any]]  # by ref: id, title, text, category, tags, status, day, key
    postings: dict[str, tuple[int, dict[int, int]]]  # term → (df, {ref: value})

    @property
    def ids(self) -> list[str]:
        return [row[0] for row in self.rows]

    def status(self, row: list[Any]) -> str:
        return str(self.meta["statuses"][row[5]])


def read_search(site: Path) -> SearchFiles:
    folder = site / "search"
    meta = json.loads((folder / "meta.json").read_text("utf-8"))
    rows: list[list[Any]] = []
    for number in range(-(-meta["documents"] // meta["chunk"])):
        rows += json.loads((folder / "d" / f"{number}.json").read_text("utf-8"))
    postings: dict[str, tuple[int, dict[int, int]]] = {}
    for number in range(len(meta["shards"])):
        shard = json.loads((folder / "t" / f"{number}.json").read_text("utf-8"))
        for term, df, flat in zip(shard["terms"], shard["df"], shard["postings"], strict=True):
            found: dict[int, int] = {}
            ref = 0
            for k in range(0, len(flat), 2):
                ref += flat[k]
                found[ref] = flat[k + 1]
            postings[term] = (df, found)
    return SearchFiles(meta, rows, postings)
