"""Wiring agent runners to the memory: hook outputs, instruction blocks, install and uninstall.

`install` registers the MCP server and adds a marked, replaceable block to each runner's
always-loaded instruction file; for Claude Code it also adds hooks to `.claude/settings.json`.
Every edit is reversible: blocks are delimited by markers, JSON edits touch only memsite's keys,
and `<store>/agents.json` records what install created, so `uninstall` deletes the files memsite
created and gives existing files their original bytes back. Plans are computed first (pure
text transforms) and written only when every file could be understood.

Claude Code hook contract (code.claude.com/docs/en/hooks): a command hook gets the event as JSON
on stdin (`session_id`, `transcript_path`, `cwd`, `hook_event_name`, plus `source` for
SessionStart, `trigger` for PreCompact, `stop_hook_active` for Stop) and may print JSON on stdout
with exit 0: SessionStart adds context with ``{"hookSpecificOutput": {"hookEventName":
"SessionStart", "additionalContext": …}}``; Stop keeps the agent working with ``{"decision":
"block", "reason": …}`` (the reason is its next instruction), and a Stop hook that fires again
because of that block sees ``stop_hook_active: true``; ``systemMessage`` shows a note to the user.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import time
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memsite.errors import InvalidInputError, MemsiteError

HOOK_CONTEXT_MAX = 9_000
HOOK_OUTPUT_MAX = 10_000
_PREAMBLE = (
    "Project memory (memsite). Facts other agents recorded for this project; "
    "search more with `memsite search QUERY`, record new durable facts with "
    '`memsite add "..." -c CATEGORY`.\n\n'
)


def claude_hook_output(index_text: str, event: str = "SessionStart") -> dict[str, Any]:
    """The JSON a Claude Code hook prints to add context, kept under 10,000 characters."""
    text = _PREAMBLE + index_text
    limit = HOOK_CONTEXT_MAX
    while True:
        if len(text) > limit:
            cut = text.rfind("\n", 0, limit)
            text = text[: cut if cut > 0 else limit] + "\n…(truncated: `memsite context`)\n"
        output = {"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}
        # JSON escaping (quotes, backslashes, control characters) can lengthen the printed form.
        if len(json.dumps(output, indent=2, ensure_ascii=False)) < HOOK_OUTPUT_MAX:
            return output
        limit -= 1_000


# --- Claude Code hooks -------------------------------------------------------------------------

SESSION_MATCHER = "startup|resume|clear|compact"
REMIND_INTERVAL = 30 * 60.0
HOOK_STATE = "agent-hooks.json"
_STATE_SESSIONS = 200
STOP_REASON = (
    "memsite: before you finish, record every durable fact from this session that the next agent "
    "would need and that project memory does not hold yet (a convention, an architecture fact, "
    "how to build/test/deploy, a decision and its reason, a pitfall): one fact per call of the "
    'memory_write MCP tool, or `memsite add "FACT" -c CATEGORY`. Skip what is only about this '
    "task. If there is nothing to record, just stop."
)
PRE_COMPACT_MESSAGE = (
    "memsite: the conversation is being compacted. Durable facts from it that are not in project "
    "memory yet survive only in the summary; ask the agent to record them (memory_write or "
    "`memsite add`)."
)
_OUR_HOOK_RE = re.compile(r"^memsite\b.*\s(context --format claude-hook|agents hook [a-z-]+)$")


def hook_commands(store_rel: str, auto_flush: bool) -> dict[str, tuple[str | None, str]]:
    """Event name → (matcher, command line) of memsite's Claude Code hooks."""
    store = '"${CLAUDE_PROJECT_DIR:-.}"/' + shlex.quote(store_rel)
    base = f"memsite --store {store}"
    commands: dict[str, tuple[str | None, str]] = {
        "SessionStart": (SESSION_MATCHER, f"{base} context --format claude-hook"),
    }
    if auto_flush:
        commands["PreCompact"] = (None, f"{base} agents hook pre-compact")
        commands["Stop"] = (None, f"{base} agents hook stop")
    return commands


def parse_hook_input(raw: str) -> dict[str, Any]:
    """The hook's stdin JSON; anything unreadable counts as an empty event (hooks fail open)."""
    try:
        data = json.loads(raw) if raw.strip() else {}
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def hook_response(
    event: str,
    payload: Mapping[str, Any],
    *,
    auto_flush: bool,
    state_path: Path,
    now: float | None = None,
) -> dict[str, Any] | None:
    """What a memsite hook prints for ``event`` (`stop`, `pre-compact`); None: print nothing.

    The Stop reminder blocks at most once per session every REMIND_INTERVAL seconds and never
    when ``stop_hook_active`` is true, so it cannot loop.
    """
    if not auto_flush:
        return None
    if event == "pre-compact":
        return {"systemMessage": PRE_COMPACT_MESSAGE}
    if event != "stop" or payload.get("stop_hook_active") is True:
        return None
    moment = time.time() if now is None else now
    session = str(payload.get("session_id") or "default")[:200]
    try:
        state = json.loads(state_path.read_text(encoding="utf-8"))
        if not isinstance(state, dict):
            state = {}
    except (OSError, ValueError):
        state = {}
    last = state.get(session)
    if isinstance(last, int | float) and moment - last < REMIND_INTERVAL:
        return None
    state[session] = moment
    recent = sorted(state.items(), key=lambda kv: kv[1] if isinstance(kv[1], int | float) else 0)
    _write_atomic(state_path, json.dumps(dict(recent[-_STATE_SESSIONS:])) + "\n")
    return {"decision": "block", "reason": STOP_REASON}


def _write_atomic(path: Path, text: str) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    except OSError:
        pass  # the state only spaces reminders out; without it a reminder comes again


# --- instruction blocks ------------------------------------------------------------------------

BEGIN = "<!-- memsite:begin -->"
END = "<!-- memsite:end -->"
TOML_BEGIN = "# memsite:begin (written by `memsite agents install`; `agents uninstall` removes it)"
TOML_END = "# memsite:end"
MDC_HEADER = (
    "---\n"
    "description: Project memory (memsite), when and how to read and record durable facts\n"
    "alwaysApply: true\n"
    "---\n\n"
)


def instruction_block(categories: Iterable[str], store_rel: str) -> str:
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
        f"{END}"
    )


def toml_block(args: list[str]) -> str:
    return (
        f'{TOML_BEGIN}\n[mcp_servers.memsite]\ncommand = "memsite"\n'
        f"args = {json.dumps(args)}\n{TOML_END}"
    )


def _find_block(text: str, begin: str, end: str) -> tuple[int, int] | None:
    """Span of the marked block: from its begin line to the end of its end line (newline too)."""
    start = text.find(begin)
    if start < 0 or (start > 0 and text[start - 1] != "\n"):
        return None
    stop = text.find(end, start)
    if stop < 0:
        raise InvalidInputError(
            f"a '{begin}' marker has no '{end}' after it: repair or remove the memsite block"
        )
    stop += len(end)
    if text.startswith("\r\n", stop):
        stop += 2
    elif text.startswith("\n", stop):
        stop += 1
    return start, stop


def add_block(text: str | None, block: str, begin: str, end: str) -> tuple[str, str]:
    """``text`` with ``block`` in place of the old one, or appended; returns (text, separator)."""
    if text is None:
        return block + "\n", ""
    span = _find_block(text, begin.split(" (")[0], end)
    if span is not None:
        return text[: span[0]] + block + "\n" + text[span[1] :], ""
    if text == "" or text.endswith("\n\n"):
        separator = ""
    elif text.endswith("\n"):
        separator = "\n"
    else:
        separator = "\n\n"
    return text + separator + block + "\n", separator


def remove_block(text: str, begin: str, end: str, separator: str | None) -> str:
    """``text`` without the block and the separator install put before it."""
    span = _find_block(text, begin.split(" (")[0], end)
    if span is None:
        return text
    before, after = text[: span[0]], text[span[1] :]
    if separator is None:  # no record: drop the blank line install would have added
        separator = "\n" if before.endswith("\n\n") else ""
    if separator and before.endswith(separator):
        before = before[: -len(separator)]
    return before + after


# --- JSON configs ------------------------------------------------------------------------------


def dump_json(obj: Any) -> str:
    return json.dumps(obj, indent=2, ensure_ascii=False) + "\n"


def _load_json(rel: str, text: str | None) -> dict[str, Any]:
    if text is None:
        return {}
    try:
        data = json.loads(text) if text.strip() else {}
    except ValueError as exc:
        raise InvalidInputError(
            f"{rel} is not plain JSON ({exc}); memsite does not rewrite files with comments: "
            "fix it, or leave this runner out with --runner"
        ) from None
    if not isinstance(data, dict):
        raise InvalidInputError(f"{rel} does not hold a JSON object: fix it or leave it out")
    return data


def _child(obj: dict[str, Any], key: str, rel: str, kind: type) -> Any:
    value = obj.get(key)
    if value is not None and not isinstance(value, kind):
        raise InvalidInputError(f"{rel}: '{key}' is not a JSON {kind.__name__}: fix it first")
    return value


def add_server(
    obj: dict[str, Any], rel: str, container: str, entry: dict[str, Any]
) -> list[list[str]]:
    """Put ``entry`` at obj[container]["memsite"]; returns the containers this created."""
    created: list[list[str]] = []
    servers = _child(obj, container, rel, dict)
    if servers is None:
        servers = obj[container] = {}
        created.append([container])
    if servers.get("memsite") != entry:
        servers["memsite"] = entry
    return created


def remove_server(obj: dict[str, Any], container: str, created: list[list[str]] | None) -> None:
    servers = obj.get(container)
    if isinstance(servers, dict):
        servers.pop("memsite", None)
        if not servers and (created is None or [container] in created):
            del obj[container]


def _is_ours(hook: Any) -> bool:
    return (
        isinstance(hook, dict)
        and isinstance(hook.get("command"), str)
        and _OUR_HOOK_RE.match(hook["command"]) is not None
    )


def add_hooks(
    obj: dict[str, Any], rel: str, wanted: Mapping[str, tuple[str | None, str]]
) -> list[list[str]]:
    """Add memsite's hook groups (replacing stale memsite hooks); returns created containers."""
    created: list[list[str]] = []
    hooks = _child(obj, "hooks", rel, dict)
    if hooks is None:
        hooks = obj["hooks"] = {}
        created.append(["hooks"])
    for event in ("SessionStart", "PreCompact", "Stop"):
        groups = hooks.get(event)
        if groups is not None and not isinstance(groups, list):
            raise InvalidInputError(f"{rel}: 'hooks.{event}' is not a JSON list: fix it first")
        if event not in wanted:
            if groups:
                _drop_our_hooks(hooks, event, None)
            continue
        matcher, command = wanted[event]
        if groups is None:
            groups = hooks[event] = []
            created.append(["hooks", event])
        if any(_group_has(g, matcher, command) for g in groups):
            continue
        _drop_our_hooks(hooks, event, None, keep_list=True)
        group: dict[str, Any] = {} if matcher is None else {"matcher": matcher}
        group["hooks"] = [{"type": "command", "command": command}]
        hooks[event].append(group)
    return created


def _group_has(group: Any, matcher: str | None, command: str) -> bool:
    return (
        isinstance(group, dict)
        and group.get("matcher") == matcher
        and isinstance(group.get("hooks"), list)
        and any(isinstance(h, dict) and h.get("command") == command for h in group["hooks"])
    )


def _drop_our_hooks(
    hooks: dict[str, Any], event: str, created: list[list[str]] | None, keep_list: bool = False
) -> None:
    groups = hooks.get(event)
    if not isinstance(groups, list):
        return
    kept = []
    for group in groups:
        if isinstance(group, dict) and isinstance(group.get("hooks"), list):
            mine = [h for h in group["hooks"] if _is_ours(h)]
            if mine:
                rest = [h for h in group["hooks"] if not _is_ours(h)]
                if not rest:
                    continue
                group["hooks"] = rest
        kept.append(group)
    hooks[event] = kept
    if not kept and not keep_list and (created is None or ["hooks", event] in created):
        del hooks[event]


def remove_hooks(obj: dict[str, Any], created: list[list[str]] | None) -> None:
    hooks = obj.get("hooks")
    if not isinstance(hooks, dict):
        return
    for event in list(hooks):
        _drop_our_hooks(hooks, event, created)
    if not hooks and (created is None or ["hooks"] in created):
        del obj["hooks"]


# --- runners and targets ---------------------------------------------------------------------

RUNNERS = ("claude", "codex", "copilot", "cursor")
_DETECT = {
    "claude": (".claude", "CLAUDE.md", ".mcp.json"),
    "codex": ("AGENTS.md", ".codex"),
    "copilot": (".github/copilot-instructions.md", ".vscode"),
    "cursor": (".cursor", ".cursorrules"),
}


@dataclass(frozen=True)
class Target:
    rel: str
    kind: str  # "block", "mdc", "toml", "servers", "mcpServers", "hooks"


TARGETS: dict[str, tuple[Target, ...]] = {
    "claude": (
        Target(".mcp.json", "mcpServers"),
        Target("CLAUDE.md", "block"),
        Target(".claude/settings.json", "hooks"),
    ),
    "codex": (Target(".codex/config.toml", "toml"), Target("AGENTS.md", "block")),
    "copilot": (
        Target(".vscode/mcp.json", "servers"),
        Target(".github/copilot-instructions.md", "block"),
    ),
    "cursor": (
        Target(".cursor/mcp.json", "mcpServers"),
        Target(".cursor/rules/memsite.mdc", "mdc"),
    ),
}


def parse_runners(values: Iterable[str]) -> list[str]:
    """Runner names from repeated or comma-separated options; `all` means every runner."""
    chosen: list[str] = []
    for value in values:
        for name in (part.strip().lower() for part in value.split(",")):
            if not name:
                continue
            if name == "all":
                chosen.extend(RUNNERS)
            elif name in RUNNERS:
                chosen.append(name)
            else:
                raise InvalidInputError(f"unknown runner {name!r}: use {', '.join(RUNNERS)} or all")
    return [r for r in RUNNERS if r in chosen]


def detect_runners(root: Path) -> list[str]:
    """The runners the repository shows signs of using; all of them when it shows none."""
    found = [r for r in RUNNERS if any((root / marker).exists() for marker in _DETECT[r])]
    return found or list(RUNNERS)


# --- planning and applying -------------------------------------------------------------------

MANIFEST = "agents.json"  # in the store: what install created, so uninstall can undo exactly


@dataclass
class Wiring:
    """Where memsite is wired: the repository root and the store, relative to it."""

    root: Path
    store_rel: str
    categories: tuple[str, ...]
    auto_flush: bool

    @property
    def manifest_rel(self) -> str:
        return f"{self.store_rel}/{MANIFEST}"


@dataclass
class Plan:
    """File contents before and after (None: absent); only changed files are listed."""

    changes: dict[str, tuple[str | None, str | None]] = field(default_factory=dict)
    unchanged: list[str] = field(default_factory=list)
    dirs_created: list[str] = field(default_factory=list)
    dirs_removed: list[str] = field(default_factory=list)

    def record(self, rel: str, before: str | None, after: str | None) -> None:
        if before == after:
            self.unchanged.append(rel)
        else:
            self.changes[rel] = (before, after)


def _read(root: Path, rel: str) -> str | None:
    path = root / rel
    try:
        with open(path, encoding="utf-8", newline="") as handle:
            return handle.read()
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise MemsiteError(f"cannot read {path}: {exc}: fix it or leave this runner out") from None


def _load_manifest(wiring: Wiring) -> dict[str, Any]:
    text = _read(wiring.root, wiring.manifest_rel)
    try:
        data = json.loads(text) if text else {}
    except ValueError:
        data = {}
    files = data.get("files") if isinstance(data, dict) else None
    return {"files": files if isinstance(files, dict) else {}, "dirs": _dirs(data)}


def _dirs(data: Any) -> list[str]:
    dirs = data.get("dirs") if isinstance(data, dict) else None
    return [d for d in dirs if isinstance(d, str)] if isinstance(dirs, list) else []


def _server_args(wiring: Wiring, editor: bool) -> list[str]:
    """`memsite` arguments: VS Code and Cursor expand ${workspaceFolder}; Claude Code and Codex
    start project servers in the repository root, where the default store is found."""
    if editor:
        return ["--store", "${workspaceFolder}/" + wiring.store_rel, "mcp"]
    if wiring.store_rel == ".memsite":
        return ["mcp"]
    return ["--store", wiring.store_rel, "mcp"]


def _server_entry(wiring: Wiring, target: Target) -> dict[str, Any]:
    editor = target.rel.startswith((".vscode/", ".cursor/"))
    return {"type": "stdio", "command": "memsite", "args": _server_args(wiring, editor)}


def plan_install(wiring: Wiring, runners: Iterable[str]) -> Plan:
    """Every file change `agents install` makes for ``runners``; nothing is written."""
    plan = Plan()
    manifest = _load_manifest(wiring)
    files: dict[str, Any] = dict(manifest["files"])
    block = instruction_block(wiring.categories, wiring.store_rel)
    for runner in runners:
        for target in TARGETS[runner]:
            if target.rel in plan.changes or target.rel in plan.unchanged:
                continue
            before = _read(wiring.root, target.rel)
            record = dict(files.get(target.rel) or {"created": before is None})
            after = _install_one(wiring, target, before, block, record)
            plan.record(target.rel, before, after)
            if before != after or target.rel in files:
                files[target.rel] = record
            if before is None:
                for parent in reversed(Path(target.rel).parents[:-1]):
                    folder = parent.as_posix()
                    if not (wiring.root / folder).exists() and folder not in plan.dirs_created:
                        plan.dirs_created.append(folder)
    dirs = manifest["dirs"] + [d for d in plan.dirs_created if d not in manifest["dirs"]]
    new_manifest = dump_json({"version": 1, "files": dict(sorted(files.items())), "dirs": dirs})
    before = _read(wiring.root, wiring.manifest_rel)
    if plan.changes or before is not None:
        plan.record(wiring.manifest_rel, before, new_manifest if files else before)
    return plan


def _install_one(
    wiring: Wiring, target: Target, before: str | None, block: str, record: dict[str, Any]
) -> str:
    if target.kind in ("block", "mdc"):
        text = before
        if before is None and target.kind == "mdc":
            text = MDC_HEADER
        after, separator = add_block(text, block, BEGIN, END)
        if "separator" not in record:
            record["separator"] = separator
        return after
    if target.kind == "toml":
        return _install_toml(wiring, target, before, record)
    obj = _load_json(target.rel, before)
    original = json.loads(dump_json(obj))
    if target.kind == "hooks":
        created = add_hooks(obj, target.rel, hook_commands(wiring.store_rel, wiring.auto_flush))
    else:
        created = add_server(obj, target.rel, target.kind, _server_entry(wiring, target))
    if before is not None and obj == original:
        return before  # nothing to add: keep the file's own formatting
    known = record.setdefault("containers", [])
    known.extend(c for c in created if c not in known)
    if before is not None and dump_json(original) != before and "original" not in record:
        record["original"] = before
    return dump_json(obj)


def _install_toml(
    wiring: Wiring, target: Target, before: str | None, record: dict[str, Any]
) -> str:
    block = toml_block(_server_args(wiring, editor=False))
    outside = before or ""
    span = _find_block(outside, TOML_BEGIN.split(" (")[0], TOML_END)
    if span is not None:
        outside = outside[: span[0]] + outside[span[1] :]
    try:
        current = tomllib.loads(outside)
    except tomllib.TOMLDecodeError as exc:
        raise InvalidInputError(f"{target.rel} is not valid TOML ({exc}): fix it first") from None
    servers = current.get("mcp_servers")
    if isinstance(servers, dict) and "memsite" in servers:
        raise InvalidInputError(
            f"{target.rel} already defines [mcp_servers.memsite] outside memsite's block: "
            "remove it, or leave codex out with --runner"
        )
    after, separator = add_block(before, block, TOML_BEGIN, TOML_END)
    try:
        tomllib.loads(after)
    except tomllib.TOMLDecodeError as exc:
        raise InvalidInputError(
            f"{target.rel}: cannot add [mcp_servers.memsite] ({exc}): add it by hand"
        ) from None
    if "separator" not in record:
        record["separator"] = separator
    return after


def plan_uninstall(wiring: Wiring, runners: Iterable[str]) -> Plan:
    """Every file change `agents uninstall` makes: memsite's blocks, keys and files go."""
    plan = Plan()
    manifest = _load_manifest(wiring)
    files: dict[str, Any] = dict(manifest["files"])
    for runner in runners:
        for target in TARGETS[runner]:
            if target.rel in plan.changes or target.rel in plan.unchanged:
                continue
            before = _read(wiring.root, target.rel)
            record = files.pop(target.rel, None)
            if before is None:
                continue
            plan.record(target.rel, before, _uninstall_one(target, before, record))
    gone = {rel for rel, (_, after) in plan.changes.items() if after is None}
    remaining_dirs = []
    for rel in sorted(manifest["dirs"], key=lambda d: -d.count("/")):
        path = wiring.root / rel
        if not path.is_dir():
            continue
        left = [p.name for p in path.iterdir() if f"{rel}/{p.name}" not in gone]
        if left:
            remaining_dirs.append(rel)
        else:
            plan.dirs_removed.append(rel)
            gone.add(rel)
    before = _read(wiring.root, wiring.manifest_rel)
    if before is not None:
        if files or remaining_dirs:
            data = {"version": 1, "files": dict(sorted(files.items())), "dirs": remaining_dirs}
            after = dump_json(data)
        else:
            after = None
        plan.record(wiring.manifest_rel, before, after)
    return plan


def _uninstall_one(target: Target, before: str, record: dict[str, Any] | None) -> str | None:
    # Without a record (manifest lost) memsite assumes it created what is left empty.
    created = record is None or bool(record.get("created"))
    if target.kind in ("block", "mdc", "toml"):
        begin, end = (TOML_BEGIN, TOML_END) if target.kind == "toml" else (BEGIN, END)
        after = remove_block(before, begin, end, record.get("separator") if record else None)
        header = MDC_HEADER if target.kind == "mdc" else ""
        if created and after.strip() in ("", header.strip()):
            return None
        return after
    obj = _load_json(target.rel, before)
    unchanged = json.loads(dump_json(obj))
    containers = record.get("containers") if record else None
    if target.kind == "hooks":
        remove_hooks(obj, containers)
    else:
        remove_server(obj, target.kind, containers)
    if obj == unchanged:
        return before
    if not obj and created:
        return None
    original = record.get("original") if record else None
    if isinstance(original, str) and _load_json(target.rel, original) == obj:
        return original
    return dump_json(obj)


def apply(wiring: Wiring, plan: Plan) -> None:
    """Write the plan: new contents atomically, deletions, then folders memsite emptied."""
    for rel in plan.dirs_created:
        (wiring.root / rel).mkdir(parents=True, exist_ok=True)
    try:
        for rel, (_, after) in plan.changes.items():
            path = wiring.root / rel
            if after is None:
                path.unlink(missing_ok=True)
                continue
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(f".{path.name}.memsite-tmp")
            with open(tmp, "w", encoding="utf-8", newline="") as handle:
                handle.write(after)
            os.replace(tmp, path)
        for rel in plan.dirs_removed:
            (wiring.root / rel).rmdir()
    except OSError as exc:
        raise MemsiteError(f"cannot update {exc.filename}: {exc.strerror}") from None
