"""A build's own folder beside the site, and the swap that puts it in place whole: a build
killed halfway leaves the earlier site as it was (DESIGN §9's marker says the folder is
memsite's)."""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

from memsite.errors import MemsiteError
from memsite.portal.site import MARKER

MARKER_TEXT = "Built by memsite (`memsite build`); the folder is replaced on every build.\n"
Stage = Callable[[str], None]  # a line saying what the build does now ("Search index…")


def silent(text: str) -> None:
    """No stage line."""


_STAGING = ".building-"


def staging_dir(site_dir: Path) -> Path:
    """A new folder beside ``site_dir`` (same file system: the swap is a rename) for a build
    to fill; those a killed build left behind go first (their process is gone)."""
    prefix = f".{site_dir.name}{_STAGING}"
    with contextlib.suppress(OSError):
        for old in site_dir.parent.iterdir():
            pid = old.name.removeprefix(prefix).split("-")[0]
            if old.name.startswith(prefix) and pid.isdigit() and not _alive(int(pid)):
                shutil.rmtree(old, ignore_errors=True)
    staging = site_dir.parent / f"{prefix}{os.getpid()}-{os.urandom(4).hex()}"
    try:
        staging.mkdir()
        (staging / MARKER).write_text(MARKER_TEXT, encoding="utf-8")
    except OSError as exc:
        raise MemsiteError(
            f"cannot write the site beside {site_dir}: {exc.strerror}; choose another --site-dir"
        ) from None
    return staging


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def swap_in(staging: Path, site_dir: Path, stage: Stage = silent) -> None:
    """Put the finished ``staging`` where ``site_dir`` is: in one step where the system can
    exchange two names (Linux's renameat2), else by two renames a moment apart; the earlier
    site is removed afterwards, said first (``stage``): a disk may take a minute to remove
    100k pages."""
    if not site_dir.exists():
        os.rename(staging, site_dir)
        return
    if not _exchange(staging, site_dir):
        aside = staging.with_name(staging.name + "-old")
        os.rename(site_dir, aside)
        os.rename(staging, site_dir)
        staging = aside
    if _holds_pages(staging):  # (not the empty folder a first build found)
        stage("Removing the earlier site…")
    shutil.rmtree(staging, ignore_errors=True)  # the earlier site, now under the staging name


def _holds_pages(folder: Path) -> bool:
    """Does ``folder`` hold anything but memsite's marker?"""
    with contextlib.suppress(OSError), os.scandir(folder) as found:
        return any(item.name != MARKER for item in found)
    return False


def _exchange(a: Path, b: Path) -> bool:
    if not sys.platform.startswith("linux"):
        return False
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        done = libc.renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), 2)
    except (AttributeError, OSError):
        return False  # no renameat2 in this C library
    return bool(done == 0)


_AT_FDCWD = -100  # the working directory, for the *at() calls (paths here are absolute)
