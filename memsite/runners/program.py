"""Which memsite the runners start: the running one as a command (``--absolute`` writes it into
their configs), and whether the PATH a runner sees finds it as plain ``memsite``.

Runners start their MCP servers and hooks with the PATH of the shell they were started from,
where the virtualenv memsite was installed in is usually not active: Claude Code then reports
``ENOENT`` for the server and its session-start hook exits 127.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Mapping
from pathlib import Path

NAMES = ("memsite", "memsite.exe")  # the console script, on POSIX and on Windows


def running_program() -> tuple[str, ...]:
    """The command that starts this memsite: the console script next to the interpreter, or
    ``PYTHON -m memsite`` when there is none (an install without scripts)."""
    folder = Path(sys.executable).parent
    for name in NAMES:
        script = folder / name
        if script.is_file():
            return (str(script),)
    return (sys.executable, "-m", "memsite")


def _same(a: str, b: str) -> bool:
    return os.path.normcase(os.path.realpath(a)) == os.path.normcase(os.path.realpath(b))


def runner_path(environ: Mapping[str, str]) -> str:
    """The PATH a runner sees: this one without an active virtualenv's bin folder."""
    venvs = [environ.get("VIRTUAL_ENV", "")]
    if sys.prefix != sys.base_prefix:
        venvs.append(sys.prefix)
    bins = [os.path.join(v, sub) for v in venvs if v for sub in ("bin", "Scripts")]
    parts = environ.get("PATH", os.defpath).split(os.pathsep)
    return os.pathsep.join(p for p in parts if p and not any(_same(p, b) for b in bins))


def path_problem(environ: Mapping[str, str]) -> str | None:
    """Why runners would not start this memsite as plain ``memsite`` (None: they would)."""
    program = running_program()
    found = shutil.which("memsite", path=runner_path(environ))
    if found is None:
        problem = "`memsite` is not on the PATH runners see (without an active virtualenv)"
    elif len(program) > 1 or not _same(found, program[0]):
        problem = f"`memsite` on the PATH runners see is {found}, not this memsite"
    else:
        return None
    return (
        f"{problem}: they may fail to start its MCP server and hooks; install again with "
        f"--absolute to write the full path ({' '.join(program)})"
    )
