"""The semantic model (``storage.embedding``): read from the installed wheel's own files, equal to
WordLlama's own loader, and never asking the network for anything."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import numpy
import pytest

from memsite.core.vectors import cosine, mean_unit, unpack
from memsite.storage import embedding

TEXTS = [
    "Use pnpm, never npm, for installs",
    "Deploys go through the staging cluster first",
    "émojis 🎉 and 中文",
    "x",
]


def test_our_vectors_are_wordllamas_own() -> None:
    """WordLlama's loader, pointed at its own package folder (the pinned way round its
    tokenizer/ versus tokenizers/ mix-up), gives the vectors our reader gives."""
    from wordllama import WordLlama

    home = embedding.folder()
    assert home is not None
    theirs = WordLlama.load(cache_dir=home, disable_download=True).embed(TEXTS, norm=True)
    ours = numpy.array([unpack(vec) for _, vec in embedding.Model().embed_many(TEXTS)])
    assert ours.shape == theirs.shape == (len(TEXTS), 256)
    assert numpy.allclose(ours, theirs, atol=2e-3)  # ours are stored as float16


def test_a_query_in_plain_python_is_the_bulk_vector(tmp_path: Path) -> None:
    """A query's vector (``core.bpe`` ids, rows read by offset) is a fact's vector (numpy)."""
    from tokenizers import Tokenizer

    model = embedding.Model()
    tokenizer = Tokenizer.from_file(str(model.home / embedding.TOKENIZER))
    for text in TEXTS:
        ids = tokenizer.encode(text, add_special_tokens=False).ids
        (_, stored), *_ = model.embed_many([text])
        assert cosine(mean_unit(model.rows(ids)), unpack(stored)) > 0.999


def test_the_wheels_loader_would_ask_the_hub(tmp_path: Path) -> None:
    """Why we read the files ourselves: the pinned wheel ships tokenizers/, its loader looks
    in tokenizer/ (then ~/.cache, then the hub). When a release fixes it, this fails and the
    workaround can go."""
    from wordllama import WordLlama

    with pytest.raises(FileNotFoundError):
        WordLlama.load(cache_dir=tmp_path / "empty", disable_download=True)


def test_missing_extra_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(embedding.Missing, match=r"pip install 'memsite\[semantic\]'"):
        embedding.Model(tmp_path)


def test_search_by_meaning_works_offline(store_root: Path, tmp_path: Path) -> None:
    """With every proxy pointing at a closed port, the hub told to stay offline and an empty
    home (no model cache), a semantic search embeds and finds."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{probe.getsockname()[1]}"
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMSITE_")}
    env.update(
        HOME=str(home),
        HF_HUB_OFFLINE="1",
        HTTP_PROXY=closed,
        HTTPS_PROXY=closed,
        ALL_PROXY=closed,
        http_proxy=closed,
        https_proxy=closed,
        NO_PROXY="",
        XDG_CACHE_HOME=str(home / ".cache"),
    )
    run = [sys.executable, "-m", "memsite", "--store", str(store_root)]
    subprocess.run(
        [*run, "add", "The cat sleeps on the sofa", "-c", "conventions"],
        env=env,
        check=True,
        capture_output=True,
    )
    found = subprocess.run(
        [*run, "search", "kitten napping on the couch", "--mode", "semantic", "--json"],
        env=env,
        capture_output=True,
        text=True,
    )
    assert found.returncode == 0, found.stderr
    assert "The cat sleeps" in found.stdout
    assert not list(home.rglob("*"))  # nothing fetched, nothing cached in the home


def test_two_installs_of_one_wheel_name_one_model(tmp_path: Path) -> None:
    """The model is named by its files' contents, not their place or times: a venv's and
    pipx's copies share the stored vectors."""
    import shutil

    home = embedding.folder()
    assert home is not None
    copy = tmp_path / "wordllama"
    (copy / "tokenizers").mkdir(parents=True)
    (copy / "weights").mkdir()
    for name in (embedding.TOKENIZER, embedding.WEIGHTS):
        shutil.copyfile(home / name, copy / name)
    assert embedding.Model(copy).name == embedding.Model().name
    with open(copy / embedding.WEIGHTS, "r+b") as handle:  # other weights: another model
        handle.seek(-10, os.SEEK_END)
        handle.write(b"\x01" * 10)
    assert embedding.Model(copy).name != embedding.Model().name
