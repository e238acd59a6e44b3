"""The errors memsite raises: one family under MemsiteError, so that the CLI and MCP can turn
every one into a message, and the package face exports the same classes."""

from __future__ import annotations

import inspect
import subprocess
import sys

import pytest

import memsite
from memsite import errors

ALL = [
    cls
    for _, cls in inspect.getmembers(errors, inspect.isclass)
    if cls.__module__ == errors.__name__
]


def test_the_module_defines_the_errors_the_package_names() -> None:
    names = {cls.__name__ for cls in ALL}
    assert names == {
        "MemsiteError",
        "StoreNotFoundError",
        "ConfigError",
        "InvalidInputError",
        "EntryNotFoundError",
        "AmbiguousIdError",
        "SecretFoundError",
        "InvalidEntryFileError",
        "StorageError",
        "GitError",
    }


@pytest.mark.parametrize("cls", ALL, ids=lambda c: c.__name__)
def test_every_error_is_a_memsite_error_and_carries_its_message(cls: type[Exception]) -> None:
    assert issubclass(cls, errors.MemsiteError) and issubclass(cls, Exception)
    with pytest.raises(errors.MemsiteError) as raised:
        raise cls("what is wrong: what to do")
    assert str(raised.value) == "what is wrong: what to do"
    assert type(raised.value) is cls


@pytest.mark.parametrize(
    ("child", "parent"),
    [
        (errors.SecretFoundError, errors.InvalidInputError),
        (errors.AmbiguousIdError, errors.MemsiteError),
        (errors.GitError, errors.MemsiteError),
    ],
)
def test_direct_parents(child: type[Exception], parent: type[Exception]) -> None:
    assert child.__bases__ == (parent,)


@pytest.mark.parametrize(
    ("cls", "not_a"),
    [
        (errors.InvalidInputError, errors.SecretFoundError),
        (errors.StorageError, errors.InvalidInputError),
        (errors.InvalidEntryFileError, errors.InvalidInputError),
        (errors.EntryNotFoundError, errors.AmbiguousIdError),
    ],
)
def test_siblings_are_not_caught_for_each_other(
    cls: type[Exception], not_a: type[Exception]
) -> None:
    assert not issubclass(cls, not_a)


def test_a_secret_is_caught_as_invalid_input() -> None:
    with pytest.raises(errors.InvalidInputError):
        raise errors.SecretFoundError("content holds what looks like an AWS key")


@pytest.mark.parametrize("name", [n for n in memsite.__all__ if n.endswith("Error")])
def test_the_package_face_exports_the_same_classes(name: str) -> None:
    assert getattr(memsite, name) is getattr(errors, name)


def test_the_package_face_refuses_unknown_names() -> None:
    with pytest.raises(AttributeError, match="NoSuchError"):
        memsite.NoSuchError  # noqa: B018


@pytest.mark.parametrize(
    "code",
    [
        "import memsite; print(memsite.MemsiteError.__name__)",
        "from memsite import errors; print(errors.MemsiteError.__name__)",
        "from memsite import parallel, MemsiteError; print(MemsiteError.__name__)",
    ],
)
def test_the_package_face_works_in_a_fresh_interpreter(code: str) -> None:
    # In this process memsite.errors is loaded already; a fresh one once looped in
    # memsite.__getattr__ (RecursionError) before anything had loaded it.
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "MemsiteError"
