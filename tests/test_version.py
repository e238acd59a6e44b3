"""memsite's version is stated once: the package, its metadata and pyproject.toml agree, and
the caches' stamps carry it (a new version rebuilds them)."""

from __future__ import annotations

import importlib.metadata
import re
import tomllib
from pathlib import Path

import pytest

import memsite
from memsite import version
from memsite.storage.readmodel import schema

PYPROJECT = Path(__file__).resolve().parent.parent / "pyproject.toml"


def test_the_package_face_and_the_module_agree() -> None:
    assert memsite.__version__ is version.__version__
    assert "__version__" in memsite.__all__


def test_pyproject_states_the_same_version() -> None:
    project = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]
    assert project["version"] == version.__version__


def test_the_installed_metadata_states_the_same_version() -> None:
    assert importlib.metadata.version("memsite") == version.__version__


def test_the_version_is_a_release_number() -> None:
    assert re.fullmatch(r"\d+\.\d+\.\d+([.-]?(a|b|rc|dev|post)\d*)?", version.__version__)


def test_the_index_version_changes_with_memsite(monkeypatch: pytest.MonkeyPatch) -> None:
    before = schema.version()
    assert f":{version.__version__}:" in before
    monkeypatch.setattr(schema, "__version__", version.__version__ + ".post1")
    assert schema.version() != before
