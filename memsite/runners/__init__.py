"""Agent runners (Claude Code, Codex, Copilot, Cursor, Gemini CLI): their files, install plans,
hooks.

Each runner is one module that defines ``RUNNER`` (a :class:`~memsite.runners.base.Runner`);
the built-in ones are listed in ``BUILTIN``, and other packages add theirs the same way through
the ``memsite.runners`` entry point group (a ``module:attribute`` naming a Runner), as
``simonw/llm`` registers its own models through the interface plugins use.
"""

from __future__ import annotations

import importlib
from functools import cache

from memsite.errors import InvalidInputError
from memsite.runners.base import Runner

BUILTIN = (
    "memsite.runners.claude",
    "memsite.runners.codex",
    "memsite.runners.copilot",
    "memsite.runners.cursor",
    "memsite.runners.gemini",
)
ENTRY_POINTS = "memsite.runners"
# The built-in runners' names, without importing them (each module is named after its runner,
# as a test checks): for help texts, which every `memsite --help` builds.
BUILTIN_NAMES = tuple(module.rpartition(".")[2] for module in BUILTIN)


@cache
def registry() -> dict[str, Runner]:
    """Every known runner by name: the built-in ones, then those of installed plugins."""
    from importlib.metadata import entry_points

    found: dict[str, Runner] = {}
    for module in BUILTIN:
        runner: Runner = importlib.import_module(module).RUNNER
        found[runner.name] = runner
    for point in entry_points(group=ENTRY_POINTS):
        plugin = point.load()
        if isinstance(plugin, Runner) and plugin.name not in found:
            found[plugin.name] = plugin
    return found


def parse_runners(values: tuple[str, ...] | list[str]) -> list[Runner]:
    """Runners from repeated or comma-separated names; `all` means every runner."""
    known = registry()
    chosen: set[str] = set()
    for value in values:
        for name in (part.strip().lower() for part in value.split(",")):
            if not name:
                continue
            if name == "all":
                chosen.update(known)
            elif name in known:
                chosen.add(name)
            else:
                raise InvalidInputError(
                    f"unknown runner {name[:40]!r}: use {', '.join(known)} or all"
                )
    return [r for name, r in known.items() if name in chosen]
