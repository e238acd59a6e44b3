"""Git, the one place memsite runs it: every question the other layers ask of git (the work
tree's top, the store's folder in it, HEAD, the commits that added entry files, renames, a
pull request's merge base and new files, remotes, the files it tracks, the files and blobs of
a commit), and the hooks that recompact.

Each hook gets a marked block, appended to any existing hook and replaced (never duplicated)
when `init --git-hook` runs again; content outside the block is left as it was.
"""

from __future__ import annotations

import os
import shlex
import stat
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from memsite.blocks import add_block
from memsite.errors import GitError, StorageError
from memsite.files import read_text, storage_errors, write_atomic

if TYPE_CHECKING:
    import subprocess

HOOKS = ("post-merge", "post-checkout", "post-rewrite")
BEGIN = "# >>> memsite >>>"
END = "# <<< memsite <<<"


def run_git(cwd: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    """Run git in ``cwd``; with ``check``, a failure raises GitError with git's message.
    (subprocess is imported here: ~3 ms that `context` with fresh views does not need.)"""
    import subprocess

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


# --- questions about a repository -----------------------------------------------------------


def _answer(cwd: Path, *args: str) -> subprocess.CompletedProcess[str] | None:
    """git's answer, or None when git is missing or fails (the caller does without)."""
    try:
        done = run_git(cwd, *args, check=False)
    except GitError:
        return None
    return done if done.returncode == 0 else None


def show_prefix(path: Path) -> str:
    """``path``'s folder inside its git work tree, as git spells paths ('' at the top, or
    outside a work tree)."""
    done = _answer(path, "rev-parse", "--show-prefix")
    return done.stdout.strip() if done is not None else ""


def prefix_and_head(path: Path) -> tuple[str, str] | None:
    """``path``'s folder inside its work tree and the HEAD commit; None without either."""
    done = _answer(path, "rev-parse", "--show-prefix", "HEAD")
    lines = done.stdout.splitlines() if done is not None else []
    if len(lines) != 2:
        return None
    return lines[0].strip(), lines[1].strip()


def added_commits(folder: Path) -> dict[str, str]:
    """File name in ``folder`` → the latest commit that added it (one ``git log`` for all;
    names relative to the folder, its sub-folders left out)."""
    done = _answer(
        folder,
        *("-c", "core.quotePath=false", "log", "--diff-filter=A", "--no-renames"),
        *("--relative", "--name-only", "--format=%H", "--", "."),
    )
    added: dict[str, str] = {}
    commit = ""
    for line in done.stdout.splitlines() if done is not None else []:
        if len(line) in (40, 64) and all(c in "0123456789abcdef" for c in line):
            commit = line
        elif line and "/" not in line and not line.startswith('"') and commit:
            added.setdefault(line, commit)  # newest first: the latest addition of the file
    return added


def tracked_files(folder: Path, paths: Iterable[str]) -> list[str]:
    """The files git tracks at or under ``paths`` (relative to ``folder``), as paths relative
    to it, sorted (one ``git ls-files`` for all; none without git or outside a work tree)."""
    done = _answer(folder, "ls-files", "-z", "--", *paths)
    return sorted(p for p in done.stdout.split("\0") if p) if done is not None else []


def renames(root: Path, wanted: Iterable[str]) -> dict[str, str]:
    """old → new paths git knows of (relative to the work tree's top): uncommitted renames
    first, then renames in recent history when some of ``wanted`` are not among them."""
    moves: dict[str, str] = {}
    done = _answer(root, "diff", "-M", "--name-status", "-z", "HEAD")
    if done is not None:
        moves.update(_renames(done.stdout))
    if any(p not in moves for p in wanted):
        done = _answer(
            root,
            *("log", "-M", "--diff-filter=R", "--name-status", "-z", "--format="),
            *("-n", "2000", "--reverse", "HEAD"),
        )
        if done is not None:
            for old, new in _renames(done.stdout).items():
                moves.setdefault(old, new)
    return moves


def _renames(output: str) -> dict[str, str]:
    """old → new paths from ``--name-status -z`` output (R<score> old new)."""
    parts = output.split("\0")
    moves = {}
    i = 0
    while i < len(parts):
        status = parts[i]
        if status.startswith("R") and i + 2 < len(parts):
            moves[parts[i + 1]] = parts[i + 2]
            i += 3
        elif status.startswith("C") and i + 2 < len(parts):
            i += 3
        elif status:
            i += 2
        else:
            i += 1
    return moves


def commit_of(top: Path, ref: str) -> str | None:
    """The commit ``ref`` names, or None when it names none."""
    done = _answer(top, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
    return done.stdout.strip() if done is not None else None


def merge_base(top: Path, ref: str) -> tuple[str | None, str]:
    """(the merge base of ``ref`` and HEAD, None and why there is none)."""
    done = run_git(top, "merge-base", ref, "HEAD", check=False)
    if done.returncode == 0:
        return done.stdout.strip(), ""
    shallow = run_git(top, "rev-parse", "--is-shallow-repository", check=False)
    if shallow.stdout.strip() == "true":
        return None, (
            "this clone is shallow: fetch the full history (`git fetch --unshallow`, or "
            "`fetch-depth: 0` in actions/checkout)"
        )
    return None, first_line(done.stderr) if done.stderr.strip() else "they share no history"


def added_since(top: Path, commit: str, folder: str) -> list[str]:
    """Paths of the files added to ``folder`` (relative to ``top``) since ``commit``."""
    done = run_git(
        top,
        *("diff", "--name-only", "--diff-filter=A", "-z", "--no-renames", commit, "HEAD"),
        *("--", folder),
    )
    return [path for path in done.stdout.split("\0") if path]


def changed_since(top: Path, commit: str, paths: Iterable[str]) -> list[tuple[str, str]]:
    """(status, path) of the files under ``paths`` (relative to ``top``) that changed since
    ``commit``: ``A`` added, ``M`` modified, ``D`` deleted, ``T`` changed type (a file made
    a symbolic link); renames count as a deletion and an addition."""
    done = run_git(
        top, *("diff", "--name-status", "-z", "--no-renames", commit, "HEAD"), *("--", *paths)
    )
    fields = [f for f in done.stdout.split("\0") if f]
    return [(fields[i][0], fields[i + 1]) for i in range(0, len(fields) - 1, 2)]


def file_at(top: Path, commit: str, path: str, limit: int) -> bytes | None:
    """The bytes of ``path`` (relative to ``top``) at ``commit``, None when it is not there
    or is larger than ``limit``."""
    size = _answer(top, "cat-file", "-s", f"{commit}:{path}")
    if size is None or not size.stdout.strip().isdigit() or int(size.stdout) > limit:
        return None
    import subprocess

    try:
        done = subprocess.run(
            ["git", "cat-file", "blob", f"{commit}:{path}"], cwd=top, capture_output=True
        )
    except OSError:
        return None
    return done.stdout if done.returncode == 0 else None


def has_remote(top: Path, remote: str) -> bool:
    return remote_url(top, remote) is not None


def remote_url(top: Path, remote: str) -> str | None:
    """The URL git fetches ``remote`` from (None: no such remote)."""
    done = _answer(top, "remote", "get-url", remote)
    return done.stdout.strip() if done is not None else None


def push(top: Path, remote: str, branch: str, *, force: bool = False) -> None:
    """Push ``branch`` to ``remote``; GitError with git's own reason when it fails."""
    run_git(top, "push", remote, branch, *(["--force"] if force else []))


def project_top(path: Path) -> Path:
    """The top of the git work tree holding ``path``, or ``path`` itself outside one."""
    try:
        return repo_top(path)
    except GitError:
        return path


class Repository:
    """The git work tree holding a folder, for what publishing asks of it."""

    def __init__(self, path: Path) -> None:
        try:
            self.top = repo_top(path)
        except GitError:
            raise GitError(
                f"{path} is not inside a git repository: gh-deploy publishes to a branch of one"
            ) from None

    def has_remote(self, remote: str) -> bool:
        return has_remote(self.top, remote)

    def remote_url(self, remote: str) -> str | None:
        return remote_url(self.top, remote)

    def push(self, remote: str, branch: str, *, force: bool = False) -> None:
        push(self.top, remote, branch, force=force)


# --- the memory at a commit (``storage.cuts``) ----------------------------------------------


# Modes of a file in a git tree.
REGULAR, EXECUTABLE, LINK = "100644", "100755", "120000"


class TreeFile(NamedTuple):
    """One file at a commit: its mode, blob id, size and path (relative to the top)."""

    mode: str
    blob: str
    size: int
    path: str


def commit_and_date(top: Path, ref: str) -> tuple[str, str] | None:
    """The commit ``ref`` names and its committer time (seconds since 1970, as git spells
    it: a crafted commit may hold any number); None when it names none."""
    if ref.startswith("-"):
        return None  # never an option to git
    done = _answer(top, "log", "-1", "--no-walk", "--format=%H%n%ct", f"{ref}^{{commit}}", "--")
    lines = done.stdout.split() if done is not None else []
    return (lines[0], lines[1]) if len(lines) == 2 else None


def is_shallow(top: Path) -> bool:
    done = _answer(top, "rev-parse", "--is-shallow-repository")
    return done is not None and done.stdout.strip() == "true"


def tree_files(top: Path, commit: str, paths: Iterable[str]) -> list[TreeFile]:
    """The files at ``paths`` (relative to ``top``; a folder ending in ``/``: the files
    directly in it) at ``commit``, with their sizes: one ``git ls-tree``."""
    done = run_git(top, "ls-tree", "-l", "-z", "--full-tree", commit, "--", *paths)
    found = []
    for line in done.stdout.split("\0"):
        head, _, path = line.partition("\t")
        fields = head.split()
        if len(fields) == 4 and fields[1] == "blob" and fields[3].isdigit():
            found.append(TreeFile(fields[0], fields[2], int(fields[3]), path))
    return found


def blobs(top: Path, ids: Iterable[str]) -> dict[str, bytes]:
    """The bytes of each blob in ``ids``, read by one ``git cat-file --batch``."""
    wanted = sorted(set(ids))
    if not wanted:
        return {}
    import subprocess

    try:
        done = subprocess.run(
            ["git", "cat-file", "--batch"],
            cwd=top,
            input="".join(f"{blob}\n" for blob in wanted).encode(),
            capture_output=True,
            check=False,
        )
    except OSError as exc:
        raise GitError(f"cannot run git in {top}: {exc.strerror}") from None
    if done.returncode != 0:
        raise GitError(first_line(done.stderr.decode(errors="replace")) or "git cat-file failed")
    data, at, found = done.stdout, 0, {}
    while at < len(data):
        end = data.index(b"\n", at)
        header = data[at:end].split()
        at = end + 1
        if len(header) != 3:  # "<id> missing"
            continue
        size = int(header[2])
        found[header[0].decode()] = data[at : at + size]
        at += size + 1
    return found


def tags_matching(top: Path, pattern: str) -> list[tuple[str, str, str]]:
    """(name, commit, date) of the tags matching the glob ``pattern``, oldest first (by the
    tag's date: the tagger's, else the commit's; then by version); one ``git for-each-ref``."""
    done = _answer(
        top,
        "for-each-ref",
        "--sort=version:refname",  # ties (tags of one second) in version order
        "--sort=creatordate",
        "--format=%(refname:strip=2)%00%(objectname)%00%(*objectname)%00%(creatordate:iso-strict)"
        "%00%(objecttype)%00%(*objecttype)",
        f"refs/tags/{pattern}",
    )
    found = []
    for line in done.stdout.splitlines() if done is not None else []:
        fields = line.split("\0")
        if len(fields) == 6 and (fields[5] or fields[4]) == "commit":  # not a tree's or blob's
            name, plain, peeled, date = fields[:4]
            found.append((name, peeled or plain, date))
    return found
