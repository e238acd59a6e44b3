"""The kinds of file memsite edits to wire a runner, each reversible. Pure text transforms.

* :class:`MarkdownBlock` — memsite's instructions between ``<!-- memsite:begin -->`` and
  ``<!-- memsite:end -->`` in an always-loaded instruction file (with an optional header for a
  file memsite creates, such as a Cursor rule's front matter).
* :class:`TomlServer` — an ``[mcp_servers.memsite]`` table in a marked block of a TOML file.
* :class:`JsonServer` — a ``memsite`` entry in a JSON file's MCP server map.
* :class:`JsonHooks` — memsite's hook commands in a JSON settings file (Claude Code's shape,
  which Codex and Gemini CLI read too); :class:`FlatHooks` — the flat ``version``/``hooks``
  shape of Copilot and Cursor; :class:`JsonParts` — several parts in one JSON file.

JSON edits touch only memsite's keys; when a file's own formatting can be given back on
uninstall, its original bytes are recorded.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from memsite.blocks import add_block, find_block, remove_block
from memsite.errors import InvalidInputError
from memsite.runners import edits
from memsite.runners.base import Wiring

BEGIN = "<!-- memsite:begin -->"
END = "<!-- memsite:end -->"
TOML_BEGIN = "# memsite:begin"
TOML_NOTE = " (written by `memsite agents install`; `agents uninstall` removes it)"
TOML_END = "# memsite:end"
HookTable = dict[str, tuple[str | None, str]]


def instruction_block(categories: tuple[str, ...], store_rel: str) -> str:
    """The Markdown block for AGENTS.md, CLAUDE.md, copilot-instructions.md and the Cursor rule."""
    names = ", ".join(f"`{c}`" for c in categories)
    return (
        f"{BEGIN}\n"
        "## Project memory (memsite)\n\n"
        f"This repository keeps a shared memory of durable facts in `{store_rel}/` (one JSON file "
        f"per fact in `{store_rel}/entries/`, merged through git). This block is managed by "
        "`memsite agents install`; write your own notes outside it.\n\n"
        f"- **Read first.** At the start of a task read `{store_rel}/index.md`, the summary of the "
        "most important facts (`memsite context` prints it, rebuilding it when stale). Search for "
        'more with the `memory_search` MCP tool or `memsite search "QUERY"`.\n'
        "- **Write what the next agent needs.** When you learn a durable fact (a convention, an "
        "architecture fact, how to build, test or deploy, a decision and its reason, a pitfall), "
        "record it: MCP tool `memory_write` (content, category) or "
        '`memsite add "FACT" -c CATEGORY [-t tag,…] [--key SUBJECT]`. One fact per entry, a '
        "sentence or two; no secrets; nothing that only matters for the current task.\n"
        f"- **Categories:** {names}.\n"
        "- **Facts change:** never edit entry files; supersede instead: `memory_write` with "
        '`supersedes=[ID]`, or `memsite amend ID "NEW FACT"`. An answer `duplicate` means the '
        "fact is already recorded.\n"
        "- **What is current:** compaction (`memsite compact`, run by the git hooks and by "
        "`memsite context`) keeps one current fact per subject: a fact replaces those it "
        "supersedes, the newest fact with the same key wins, an exact repeat counts once; "
        "replaced facts stay as history.\n"
        "- **Branches:** each branch only adds its own entry files, so merges never conflict; "
        "the index is rebuilt after a merge.\n"
        f"{END}"
    )


def server_args(wiring: Wiring, editor: bool) -> list[str]:
    """`memsite` arguments: VS Code and Cursor expand ${workspaceFolder}; Claude Code and Codex
    start project servers in the repository root, where the default store is found."""
    if editor:
        return ["--store", "${workspaceFolder}/" + wiring.store_rel, "mcp"]
    if wiring.store_rel == ".memsite":
        return ["mcp"]
    return ["--store", wiring.store_rel, "mcp"]


@dataclass(frozen=True)
class MarkdownBlock:
    rel: str
    header: str = ""  # written above the block when memsite creates the file

    def install(self, wiring: Wiring, before: str | None, record: dict[str, Any]) -> str:
        block = instruction_block(wiring.categories, wiring.store_rel)
        text = self.header if before is None and self.header else before
        after, separator = add_block(text, block, BEGIN, END)
        record.setdefault("separator", separator)
        return after

    def uninstall(self, before: str, record: dict[str, Any] | None) -> str | None:
        after = remove_block(before, BEGIN, END, record.get("separator") if record else None)
        created = record is None or bool(record.get("created"))
        if created and after.strip() in ("", self.header.strip()):
            return None
        return after


@dataclass(frozen=True)
class TomlServer:
    """Codex's ``[mcp_servers.memsite]`` table, in a marked block."""

    rel: str

    def install(self, wiring: Wiring, before: str | None, record: dict[str, Any]) -> str:
        command, *args = [*wiring.program, *server_args(wiring, editor=False)]
        block = (  # a JSON string is a TOML basic string too
            f"{TOML_BEGIN}{TOML_NOTE}\n[mcp_servers.memsite]\ncommand = {json.dumps(command)}\n"
            f"args = {json.dumps(args)}\n{TOML_END}"
        )
        outside = before or ""
        span = find_block(outside, TOML_BEGIN, TOML_END)
        if span is not None:
            outside = outside[: span[0]] + outside[span[1] :]
        servers = self._parse(outside, "is not valid TOML ({}): fix it first").get("mcp_servers")
        if isinstance(servers, dict) and "memsite" in servers:
            raise InvalidInputError(
                f"{self.rel} already defines [mcp_servers.memsite] outside memsite's block: "
                "remove it, or leave this runner out with --runner"
            )
        after, separator = add_block(before, block, TOML_BEGIN, TOML_END)
        self._parse(after, "cannot add [mcp_servers.memsite] ({}): add it by hand")
        record.setdefault("separator", separator)
        return after

    def _parse(self, text: str, problem: str) -> dict[str, Any]:
        try:
            return tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise InvalidInputError(f"{self.rel}: " + problem.format(exc)) from None

    def uninstall(self, before: str, record: dict[str, Any] | None) -> str | None:
        after = remove_block(
            before, TOML_BEGIN, TOML_END, record.get("separator") if record else None
        )
        created = record is None or bool(record.get("created"))
        return None if created and not after.strip() else after


class _JsonTarget:
    """A JSON file where memsite owns some keys: ``add`` and ``remove`` edit the object."""

    rel: str

    def add(self, wiring: Wiring, obj: dict[str, Any]) -> list[list[str]]:
        raise NotImplementedError

    def remove(self, obj: dict[str, Any], containers: list[list[str]] | None) -> None:
        raise NotImplementedError

    def install(self, wiring: Wiring, before: str | None, record: dict[str, Any]) -> str:
        obj = edits.load_json(self.rel, before)
        original = json.loads(edits.dump_json(obj))
        created = self.add(wiring, obj)
        if before is not None and obj == original:
            return before  # nothing to add: keep the file's own formatting
        known = record.setdefault("containers", [])
        known.extend(c for c in created if c not in known)
        if before is not None and edits.dump_json(original) != before:
            record.setdefault("original", before)
        return edits.dump_json(obj)

    def uninstall(self, before: str, record: dict[str, Any] | None) -> str | None:
        created = record is None or bool(record.get("created"))
        obj = edits.load_json(self.rel, before)
        unchanged = json.loads(edits.dump_json(obj))
        self.remove(obj, record.get("containers") if record else None)
        if obj == unchanged:
            return before
        if not obj and created:
            return None
        original = record.get("original") if record else None
        if isinstance(original, str) and edits.load_json(self.rel, original) == obj:
            return original
        return edits.dump_json(obj)


@dataclass(frozen=True)
class JsonServer(_JsonTarget):
    """``obj[container]["memsite"]``: the MCP server entry (``editor``: ${workspaceFolder})."""

    rel: str
    container: str
    editor: bool = False
    typed: bool = True  # write "type": "stdio" (Gemini CLI's entries have no such key)

    def add(self, wiring: Wiring, obj: dict[str, Any]) -> list[list[str]]:
        entry: dict[str, Any] = {"type": "stdio"} if self.typed else {}
        command, *args = [*wiring.program, *server_args(wiring, self.editor)]
        entry |= {"command": command, "args": args}
        return edits.add_server(obj, self.rel, self.container, entry)

    def remove(self, obj: dict[str, Any], containers: list[list[str]] | None) -> None:
        edits.remove_server(obj, self.container, containers)


@dataclass(frozen=True)
class JsonHooks(_JsonTarget):
    """Hook commands in a settings file with Claude Code's ``hooks`` shape."""

    rel: str
    commands: Callable[[Wiring], HookTable]
    events: tuple[str, ...]
    ours: Callable[[str], bool]

    def add(self, wiring: Wiring, obj: dict[str, Any]) -> list[list[str]]:
        wanted: Mapping[str, tuple[str | None, str]] = self.commands(wiring)
        return edits.add_hooks(obj, self.rel, wanted, self.events, self.ours)

    def remove(self, obj: dict[str, Any], containers: list[list[str]] | None) -> None:
        edits.remove_hooks(obj, containers, self.ours)


@dataclass(frozen=True)
class FlatHooks(_JsonTarget):
    """Hook commands in a ``{"version": 1, "hooks": {event: [entry, ...]}}`` file (Copilot's
    `.github/hooks/*.json`, Cursor's `.cursor/hooks.json`): one entry per event."""

    rel: str
    entries: Callable[[Wiring], Mapping[str, dict[str, Any]]]
    ours: Callable[[str], bool]

    def add(self, wiring: Wiring, obj: dict[str, Any]) -> list[list[str]]:
        created: list[list[str]] = []
        if "version" not in obj:
            obj["version"] = 1
            created.append(["version"])
        hooks = obj.get("hooks")
        if hooks is None:
            hooks = obj["hooks"] = {}
            created.append(["hooks"])
        if not isinstance(hooks, dict):
            raise InvalidInputError(f"{self.rel}: 'hooks' is not a JSON object: fix it first")
        for event, entry in self.entries(wiring).items():
            listed = hooks.get(event)
            if listed is None:
                listed = hooks[event] = []
                created.append(["hooks", event])
            if not isinstance(listed, list):
                raise InvalidInputError(f"{self.rel}: 'hooks.{event}' is not a JSON list: fix it")
            if entry in listed:
                continue
            listed[:] = [e for e in listed if not self._mine(e)] + [entry]
        return created

    def _mine(self, entry: Any) -> bool:
        return isinstance(entry, dict) and any(
            isinstance(entry.get(k), str) and self.ours(entry[k]) for k in ("command", "bash")
        )

    def remove(self, obj: dict[str, Any], containers: list[list[str]] | None) -> None:
        hooks = obj.get("hooks")
        if not isinstance(hooks, dict):
            return
        for event in list(hooks):
            listed = hooks[event]
            if not isinstance(listed, list):
                continue
            listed[:] = [e for e in listed if not self._mine(e)]
            if not listed and (containers is None or ["hooks", event] in containers):
                del hooks[event]
        if not hooks and (containers is None or ["hooks"] in containers):
            del obj["hooks"]
        if set(obj) == {"version"} and (containers is None or ["version"] in containers):
            del obj["version"]


@dataclass(frozen=True)
class JsonParts(_JsonTarget):
    """Several of memsite's parts in one JSON file (Gemini's settings: server and hooks)."""

    rel: str
    parts: tuple[_JsonTarget, ...]

    def add(self, wiring: Wiring, obj: dict[str, Any]) -> list[list[str]]:
        created: list[list[str]] = []
        for part in self.parts:
            created += [c for c in part.add(wiring, obj) if c not in created]
        return created

    def remove(self, obj: dict[str, Any], containers: list[list[str]] | None) -> None:
        for part in self.parts:
            part.remove(obj, containers)
