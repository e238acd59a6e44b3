"""Git, the one way memsite calls it: a helper that runs git and git hooks that recompact.

Each hook gets a marked block, appended to any existing hook and replaced (never duplicated)
when `init --git-hook` runs again; content outside the block is left as it was.
"""

from __future__ import annotations

import os
import shlex
import stat
import subprocess
import sys
from pathlib import Path

from memsite.errors import GitError, StorageError
from memsite.blocks import add_block
from memsite.files import read_text, storage_errors, write_atomic

HOOKS = ("post-merge", "post-checkout", "post-rewrite")
BEGIN = "# >>> memsite >>>"
END = "# <<< memsite <<<"


def run_git(cwd: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    """Run git in ``cwd``; with ``check``, a failure raises GitError with git's message."""
    try:
        done = subprocess.run(
            ["git", *args], cwd=cwd, capture_output=True, text=True, check=False, errors="replace"
        )
    except FileNotFoundError:
        raise GitError("git is not installed: install git first") from None
    except OSError as exc:
        raise GitError(f"cannot run git in {cwd}: {exc.strerror}") from None
    if check and done.returncode != 0:
        raise GitError(first_line(done.stderr))
    return done


def first_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[0].removeprefix("fatal: ").removeprefix("error: ") if lines else "no details"


def repo_top(path: Path) -> Path:
    """The top folder of the git work tree holding ``path``."""
    done = run_git(path, "rev-parse", "--show-toplevel", check=False)
    if done.returncode != 0:
        raise GitError(f"{path} is not inside a git repository: run `git init` first")
    return Path(done.stdout.strip()).resolve()


def hooks_dir(path: Path) -> Path:
    done = run_git(path, "rev-parse", "--git-path", "hooks")
    hooks = Path(done.stdout.strip())
    return (hooks if hooks.is_absolute() else path / hooks).resolve()


def hook_block(store_rel: str) -> str:
    store_arg = shlex.quote(store_rel)
    python = shlex.quote(sys.executable)
    return (
        f"{BEGIN}\n"
        "# Rebuild memsite's derived views after git changed the entries"
        " (written by `memsite init --git-hook`).\n"
        "if command -v memsite >/dev/null 2>&1; then\n"
        f"  memsite --store {store_arg} compact --quiet || true\n"
        "else\n"
        f"  {python} -m memsite --store {store_arg} compact --quiet || true\n"
        "fi\n"
        f"{END}"
    )


def install_hooks(store_root: Path, project_root: Path) -> list[str]:
    """Add (or refresh) memsite's block in each hook; returns the hook paths."""
    top = repo_top(project_root)
    folder = hooks_dir(project_root)
    block = hook_block(os.path.relpath(store_root, top))
    with storage_errors("create", folder):
        folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name in HOOKS:
        path = folder / name
        if path.exists() and not path.is_file():
            raise StorageError(f"cannot install the {name} hook: {path} is not a file")
        existing = read_text(path)
        merged = (
            "#!/bin/sh\n" + block + "\n"
            if not existing
            else add_block(existing, block, BEGIN, END)[0]
        )
        if merged != existing:
            write_atomic(path, merged.encode("utf-8"))
        with storage_errors("make executable", path):
            path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
        written.append(str(path))
    return written
