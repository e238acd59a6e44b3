"""Writing and reading files safely, for every layer: atomic replacement, new files that never
overwrite, bounded reads, one StorageError per failure.

* Every ``OSError`` becomes a :class:`~memsite.errors.StorageError` here, once, with a line
  that names the path and the cause.
* Replacing a file is atomic (a temporary file, then ``os.replace``) and the temporary lives
  in a folder git ignores (the store's ``cache/tmp/``), so an interrupted write never leaves a
  file that ``git status`` shows. Stale temporaries (older than an hour: their writer died)
  are removed by the next write that cleans up.
* New entry files are created with ``os.link``, which fails rather than overwrite.
* Reads are bounded: a file is ``stat``-ed before it is read, and only a regular file is
  read (it is opened without blocking, so a FIFO or a device put in its place never hangs).
* Output a person names (``export -o``) goes through :func:`write_output`: a regular file is
  replaced atomically, a FIFO or a character device (``/dev/stdout``) is written into and
  never renamed over (as root, a rename replaced ``/dev/full`` itself).
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from memsite.errors import InvalidInputError, StorageError

if TYPE_CHECKING:
    import hashlib

TEMP_MAX_AGE = 3600.0
TEMP_SUFFIX = ".tmp"


def failure(action: str, path: Path | str, exc: OSError) -> StorageError:
    """The one-line error for a failed file operation."""
    cause = exc.strerror or exc.__class__.__name__
    return StorageError(f"cannot {action} {path}: {cause}")


@contextlib.contextmanager
def storage_errors(action: str, path: Path | str) -> Iterator[None]:
    """Turn an ``OSError`` raised inside the block into a StorageError."""
    try:
        yield
    except OSError as exc:
        raise failure(action, getattr(exc, "filename", None) or path, exc) from None


def temp_name(final: Path) -> str:
    """A temporary name: hidden, never ``*.json``, unique to this process and call."""
    return f".{final.name}.{os.getpid()}.{os.urandom(4).hex()}{TEMP_SUFFIX}"


def _write_new(path: Path, data: bytes, *, sync: bool) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        if sync:
            os.fsync(fd)
    finally:
        os.close(fd)


def _temp_for(final: Path, tmp_dir: Path | None) -> Path:
    if tmp_dir is not None:
        with contextlib.suppress(OSError):
            tmp_dir.mkdir(parents=True, exist_ok=True)
            return tmp_dir / temp_name(final)
    return final.with_name(temp_name(final))


def write_atomic(
    path: Path, data: bytes, *, tmp_dir: Path | None = None, sync: bool = False
) -> None:
    """Replace ``path`` with ``data`` atomically: readers see the old file or the new one.

    The temporary goes to ``tmp_dir`` when given (on another file system: next to ``path``).
    """
    with storage_errors("write", path):
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = _temp_for(path, tmp_dir)
        try:
            _write_new(tmp, data, sync=sync)
            try:
                os.replace(tmp, path)
            except OSError as exc:
                if exc.errno != errno.EXDEV:
                    raise
                tmp.unlink(missing_ok=True)
                tmp = path.with_name(temp_name(path))
                _write_new(tmp, data, sync=sync)
                os.replace(tmp, path)
        finally:
            tmp.unlink(missing_ok=True)


def write_output(path: Path, data: bytes, what: str) -> None:
    """Write ``data`` to an output path a person named (``what`` says what it is for).

    A regular file, or a new name, is replaced atomically. A FIFO or a character device (a
    terminal, ``/dev/null``, ``/dev/stdout``) is opened and written into: never renamed over,
    nothing created. So is any file reached through ``/dev`` or ``/proc`` (``/dev/stdout`` of
    a command whose output goes to a file: it is appended to, as the shell would). Folders,
    sockets and block devices are refused.
    """
    kind = file_kind(path)
    if kind in ("a FIFO", "a character device") or (kind == "file" and _system_path(path)):
        _write_into(path, data)
    elif kind == "missing" and _system_path(path):
        raise InvalidInputError(f"{path} does not exist: memsite creates no files there")
    elif kind in ("file", "missing"):
        write_atomic(path, data)
    else:
        raise InvalidInputError(
            f"{path} is {kind}: give a file for {what}, a FIFO, or - for standard output"
        )


def _system_path(path: Path) -> bool:
    """Does ``path`` lie directly in /dev or anywhere in /proc (its folder's links followed:
    /dev/fd is /proc/self/fd)? Names there stand for open files and devices."""
    folder = os.path.realpath(os.path.dirname(os.path.abspath(path)))
    return folder in ("/dev", "/proc") or folder.startswith("/proc/")


def _write_into(path: Path, data: bytes) -> None:
    """Write into what ``path`` names now, without creating or renaming anything; a FIFO
    waits for its reader, as ``cat > fifo`` does."""
    with storage_errors("write", path):
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_NOCTTY)
        try:
            mode = os.fstat(fd).st_mode
            if not (stat.S_ISFIFO(mode) or stat.S_ISCHR(mode) or stat.S_ISREG(mode)):
                raise InvalidInputError(
                    f"{path} is {_mode_kind(mode)} now: give a file, a FIFO, or - for standard "
                    "output"
                )
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
        finally:
            os.close(fd)


def replace_if_changed(path: Path, data: bytes, *, tmp_dir: Path | None = None) -> bool:
    """Write ``path`` atomically unless it already holds ``data`` (its mtime then stays)."""
    try:
        if path.stat().st_size == len(data) and read_bounded(path, len(data)) == data:
            return False
    except (OSError, OverflowError):  # not there, not a regular file, or it grew: replaced
        pass
    write_atomic(path, data, tmp_dir=tmp_dir)
    return True


def link_new(make: Callable[[int], tuple[Path, bytes]], tmp_dir: Path) -> tuple[Path, int]:
    """Create a new file under a name no other writer can take; returns it and the attempt.

    ``make(n)`` gives the n-th candidate name and its bytes. The bytes go to a temporary
    file that is fsynced, then hard-linked to the name: ``os.link`` fails instead of
    overwriting, so on a clash the next candidate is tried.
    """
    folder = make(0)[0].parent
    with storage_errors("write to", folder):
        for attempt in range(100):
            final, data = make(attempt)
            tmp = _temp_for(final, tmp_dir)
            try:
                try:
                    _write_new(tmp, data, sync=True)
                    os.link(tmp, final)
                except FileExistsError:
                    continue
                except OSError as exc:
                    if exc.errno not in (
                        errno.EXDEV,
                        errno.EPERM,
                        errno.EMLINK,
                        errno.ENOENT,
                        errno.EACCES,
                    ):
                        raise
                    # cache/ gone, unwritable or on another file system: link from beside.
                    tmp.unlink(missing_ok=True)
                    tmp = final.with_name(temp_name(final))
                    _write_new(tmp, data, sync=True)
                    try:
                        os.link(tmp, final)
                    except FileExistsError:
                        continue
            finally:
                tmp.unlink(missing_ok=True)
            fsync_dir(folder)
            return final, attempt
    raise StorageError(f"could not find a free file name in {folder} after 100 tries")


def fsync_dir(path: Path) -> None:
    with contextlib.suppress(OSError):  # not every file system lets a folder be fsynced
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def unlink(path: Path) -> None:
    with storage_errors("delete", path):
        path.unlink()
    fsync_dir(path.parent)


def file_kind(path: Path | str) -> str:
    """What ``path`` names, links followed (stat only): ``missing``, ``file`` (a regular one),
    else a phrase for messages: ``a folder``, ``a FIFO``, ``a character device``, ..."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return "missing"
    except OSError as exc:
        raise failure("look at", path, exc) from None
    return _mode_kind(mode)


def _mode_kind(mode: int) -> str:
    if stat.S_ISREG(mode):
        return "file"
    if stat.S_ISDIR(mode):
        return "a folder"
    kinds = {
        stat.S_IFIFO: "a FIFO",
        stat.S_IFCHR: "a character device",
        stat.S_IFBLK: "a block device",
        stat.S_IFSOCK: "a socket",
    }
    return kinds.get(stat.S_IFMT(mode), "not a regular file")


def _open_regular(path: Path | str) -> int:
    """A descriptor of the regular file ``path``, opened without blocking (a FIFO or a
    device swapped in after a stat is refused here, never read); OSError otherwise."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise OSError(errno.EINVAL, f"it is {_mode_kind(mode)}, not a regular file", str(path))
    return fd


def read_bounded(path: Path | str, limit: int) -> bytes:
    """The bytes of the regular file ``path``, or OverflowError when it is larger than
    ``limit`` (checked by stat first, so a huge file is never read)."""
    with open(_open_regular(path), "rb") as handle:
        size = os.fstat(handle.fileno()).st_size
        if size > limit:
            raise OverflowError(size)
        data = handle.read(limit + 1)
    if len(data) > limit:  # it grew meanwhile
        raise OverflowError(len(data))
    return data


def read_text(path: Path, limit: int = 16 << 20) -> str | None:
    """A text file's content; None when it does not exist; StorageError when unreadable."""
    try:
        data = read_bounded(path, limit)
    except FileNotFoundError:
        return None
    except OverflowError as exc:
        raise StorageError(f"cannot read {path}: it is {exc.args[0]} bytes, too large") from None
    except OSError as exc:
        raise failure("read", path, exc) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise StorageError(f"cannot read {path}: not valid UTF-8 (byte {exc.start})") from None


def is_temporary(name: str) -> bool:
    """A temporary of this or an earlier memsite version (``.tmp-*`` in entries/, ``.*.tmp``)."""
    return name.startswith(".") and (
        name.startswith(".tmp-") or name.endswith((TEMP_SUFFIX, ".memsite-tmp"))
    )


def stale_temporaries(folders: Iterable[Path], now: float | None = None) -> list[Path]:
    """Temporaries older than an hour in ``folders`` (younger ones may belong to a writer)."""
    moment = time.time() if now is None else now
    found = []
    for folder in folders:
        try:
            items = list(os.scandir(folder))
        except OSError:
            continue
        for item in items:
            if is_temporary(item.name):
                with contextlib.suppress(OSError):
                    if moment - item.stat(follow_symlinks=False).st_mtime > TEMP_MAX_AGE:
                        found.append(Path(item.path))
    return sorted(found)


def remove_files(paths: Iterable[Path]) -> int:
    removed = 0
    for path in paths:
        with contextlib.suppress(OSError):
            path.unlink()
            removed += 1
    return removed


def digest_tree(digest: hashlib.blake2b, top: Path, suffix: str = "") -> None:
    """Feed ``digest`` every file under ``top`` whose name ends with ``suffix``, in a fixed
    order: its path relative to ``top``, then a BLAKE2b of its bytes (one that cannot be read
    counts by its name alone). What a cache keyed to code or templates is made from."""
    import hashlib

    for folder, dirs, names in os.walk(top):
        dirs.sort()
        for name in sorted(names):
            if not name.endswith(suffix):
                continue
            path = os.path.join(folder, name)
            digest.update(os.path.relpath(path, top).encode("utf-8", "surrogateescape"))
            with contextlib.suppress(OSError), open(path, "rb") as handle:
                digest.update(hashlib.blake2b(handle.read(), digest_size=16).digest())


def blake2b_hex(data: bytes) -> str:
    """The BLAKE2b digest of ``data`` (32 bytes, hex) without importing hashlib, whose
    OpenSSL start-up costs ~4 ms: `context` stamps the config with it at every session
    start. hashlib's own BLAKE2b is this one."""
    try:
        from _blake2 import blake2b
    except ImportError:  # an interpreter built without it
        from hashlib import blake2b
    return blake2b(data, digest_size=32).hexdigest()
