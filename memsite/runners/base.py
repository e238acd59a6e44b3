"""What a runner is to memsite: a name, how to tell a repository uses it, and the files that wire
it (each a :class:`Target` that knows how to add memsite's part to a file and take it out).

A runner module defines ``RUNNER = Runner(...)``; the registry in ``memsite.runners`` lists the
built-in modules, and third-party runners register the same way (see its docstring).
"""

from __future__ import annotations

import shlex
from typing import Any, NamedTuple, Protocol

# How a hook command written by install starts memsite: `memsite`, the full path of a console
# script (`--absolute`; shell-quoted when it holds spaces), or `PYTHON -m memsite`. Uninstall
# recognises memsite's hooks by it, whichever form install wrote.
PROGRAM_PATTERN = (
    r"(?:memsite"
    r"|[^\s']*[/\\]memsite(?:\.exe)?"
    r"|'[^']*[/\\]memsite(?:\.exe)?'"
    r"|(?:[^\s']+|'[^']*') -m memsite)"
)
# A prompt hook that exits 2 blocks the user's prompt (Claude Code, Codex, Gemini CLI), and
# every usage error exits 2: a memsite without `prompt` (an older one on a teammate's PATH)
# would block every prompt. The hook's shell turns any failure into a quiet success.
NEVER_BLOCK = " || exit 0"
NEVER_BLOCK_PATTERN = r"(?: \|\| exit 0)?"


class Wiring(NamedTuple):
    """Where memsite is wired: the repository root, the store relative to it, and settings."""

    root: Any  # pathlib.Path; Any keeps this module free of IO imports
    store_rel: str
    categories: tuple[str, ...]
    auto_flush: bool
    program: tuple[str, ...] = ("memsite",)  # what starts memsite (--absolute: a full path)
    per_prompt: bool = False  # --per-prompt: a prompt hook too, where the runner has one

    @property
    def shell_program(self) -> str:
        """The program as the start of a shell command line (hooks run through a shell)."""
        return shlex.join(self.program)

    @property
    def manifest_rel(self) -> str:
        """The manifest of what install changed, in the store (see ``runners.plan``)."""
        return f"{self.store_rel}/agents.json"


class Target(Protocol):
    """One file a runner reads, and memsite's part in it."""

    @property
    def rel(self) -> str:
        """The file's path, relative to the repository root."""
        ...

    def install(self, wiring: Wiring, before: str | None, record: dict[str, Any]) -> str:
        """The file's text with memsite's part added or refreshed (``record``: what to undo)."""
        ...

    def uninstall(self, before: str, record: dict[str, Any] | None) -> str | None:
        """The file's text without memsite's part; None to delete a file memsite created."""
        ...


class Runner(NamedTuple):
    """An agent runner: its name, the signs that a repository uses it, its files."""

    name: str
    title: str
    markers: tuple[str, ...]
    targets: tuple[Target, ...]
    note: str | None = None  # shown after an install that wrote this runner's files
    # The prompt-submit event that --per-prompt hooks; None: this runner's prompt hooks cannot
    # add context, for the reason in ``prompt_note`` (said by `agents install --per-prompt`).
    prompt_event: str | None = None
    prompt_note: str | None = None

    def detected(self, exists: Any) -> bool:
        """Does the repository show signs of this runner? ``exists(rel)`` checks a path."""
        return any(exists(marker) for marker in self.markers)
