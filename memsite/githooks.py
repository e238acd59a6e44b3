"""Git integration written by `memsite init`: hooks that recompact after git changes entries.

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

from memsite.errors import MemsiteError

HOOKS = ("post-merge", "post-checkout", "post-rewrite")
BEGIN = "# >>> memsite >>>"
END = "# <<< memsite <<<"


def git(cwd: Path, *args: str) -> str:
    try:
        done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=False)
    except FileNotFoundError:
        raise MemsiteError("git is not installed: install git, or leave out --git-hook") from None
    if done.returncode != 0:
        raise MemsiteError(
            f"{cwd} is not inside a git repository: run `git init` first, or leave out --git-hook"
        )
    return done.stdout.strip()


def repo_paths(store_root: Path) -> tuple[Path, Path]:
    """The work tree's top folder and the hooks folder of the repository holding the store."""
    cwd = store_root.parent
    top = Path(git(cwd, "rev-parse", "--show-toplevel"))
    hooks = Path(git(cwd, "rev-parse", "--git-path", "hooks"))
    return top, hooks if hooks.is_absolute() else (cwd / hooks)


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
        f"{END}\n"
    )


def merge_block(existing: str, block: str) -> str:
    """Put ``block`` into a hook script: replace our old block, or append it."""
    if BEGIN in existing and END in existing:
        head, _, rest = existing.partition(BEGIN)
        _, _, tail = rest.partition(END)
        return head + block.rstrip("\n") + tail
    if not existing:
        return "#!/bin/sh\n" + block
    return existing + ("" if existing.endswith("\n") else "\n") + block


def install_hooks(store_root: Path) -> list[str]:
    top, hooks_dir = repo_paths(store_root)
    store_rel = os.path.relpath(store_root, top)
    block = hook_block(store_rel)
    hooks_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for name in HOOKS:
        path = hooks_dir / name
        existing = path.read_text(encoding="utf-8") if path.exists() else ""
        merged = merge_block(existing, block)
        if merged != existing:
            path.write_text(merged, encoding="utf-8")
        path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
        written.append(str(path))
    return written


def write_pages_workflow(store_root: Path) -> str:
    from memsite.publish import pages_workflow

    try:
        top, _ = repo_paths(store_root)
    except MemsiteError:
        top = store_root.parent
    path = top / ".github" / "workflows" / "memsite-pages.yml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(pages_workflow(os.path.relpath(store_root, top)), encoding="utf-8")
    return str(path)
