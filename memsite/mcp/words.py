"""Messages in an agent's words: the service speaks of shell commands (`memsite read ID`), an
agent over MCP has tools (memory_read). Pure text rules, applied to what the server says (its
errors and warnings), never to entries' own text.

Only the commands with a tool are rewritten; the rest (`memsite review`, `memsite approve`) are
a person's to run, and stay as the command a person types.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

_COMMAND = re.compile(r"`memsite ([^`]+)`")
_ADD_SUPERSEDING = re.compile(r"\badd with --supersedes ([\w-]+)")
_SUPERSEDES = re.compile(r"(?<![\w-])--supersedes ([\w-]+)")


def _quoted(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _options(words: Sequence[str]) -> tuple[list[str], dict[str, str]]:
    """Positional words and --name value options (a bare --flag is "true")."""
    plain: list[str] = []
    named: dict[str, str] = {}
    rest = list(words)
    while rest:
        word = rest.pop(0)
        if word.startswith("--"):
            name = word[2:].replace("-", "_")
            named[name] = rest.pop(0) if rest and not rest[0].startswith("--") else "true"
        else:
            plain.append(word)
    return plain, named


def _call(tool: str, arguments: Iterable[tuple[str, str]]) -> str:
    shown = []
    for name, value in arguments:
        if value in ("true", "false") or value.startswith("["):
            shown.append(f"{name}={value}")
        elif value == "...":
            shown.append(f"{name}=...")
        else:
            shown.append(f"{name}={_quoted(value)}")
    return f"{tool}({', '.join(shown)})" if shown else tool


def _by_id(tool: str) -> Callable[[list[str], dict[str, str]], str]:
    def render(plain: list[str], named: dict[str, str]) -> str:
        ids = [("id", plain[0])] if plain and plain[0] != "ID" else [("id", "...")]
        return _call(tool, ids + sorted(named.items()))

    return render


def _relate(plain: list[str], named: dict[str, str]) -> str:
    pairs = list(zip(("id", "other"), plain, strict=False))
    kind = named.pop("type", None)
    if kind is not None:
        pairs.append(("type", kind if "|" not in kind else kind.replace("|", " or ")))
    return _call("memory_relate", pairs + sorted(named.items()))


def _amend(plain: list[str], named: dict[str, str]) -> str:
    ids = plain[:1] if plain and plain[0] != "ID" else ["..."]
    return f"memory_write with supersedes=[{_quoted(ids[0]) if ids[0] != '...' else '...'}]"


def _add(plain: list[str], named: dict[str, str]) -> str:
    if "supersedes" in named:
        return f"memory_write with supersedes=[{_quoted(named['supersedes'])}, ...]"
    return "memory_write"


_TOOLS: Mapping[str, Callable[[list[str], dict[str, str]], str]] = {
    "list": lambda plain, named: "memory_list",
    "search": lambda plain, named: "memory_search",
    "read": _by_id("memory_read"),
    "verify": _by_id("memory_verify"),
    "retire": _by_id("memory_retire"),
    "delete": _by_id("memory_delete"),
    "reconcile": lambda plain, named: "memory_reconcile",
    "log": lambda plain, named: "memory_log",
    "relate": _relate,
    "amend": _amend,
    "add": _add,
}


def _tool_for(match: re.Match[str]) -> str:
    try:
        words = shlex.split(match.group(1))
    except ValueError:
        return match.group(0)
    if not words or words[0] not in _TOOLS:
        return match.group(0)
    plain, named = _options(words[1:])
    return _TOOLS[words[0]](plain, named)


def in_agent_words(message: str) -> str:
    """``message`` with each memsite command that has a tool named as that tool call."""
    text = _COMMAND.sub(_tool_for, message)
    text = _ADD_SUPERSEDING.sub(lambda m: f"memory_write with supersedes=[{_quoted(m[1])}]", text)
    return _SUPERSEDES.sub(lambda m: f"supersedes=[{_quoted(m[1])}]", text)


def _argument(error: Mapping[str, Any]) -> str:
    where = ".".join(str(part) for part in error.get("loc", ()))
    kind = str(error.get("type", ""))
    if kind == "missing":
        return f"missing argument {where!r}"
    if kind == "extra_forbidden":
        return f"unknown argument {where!r}"
    said = str(error.get("msg", "is not valid"))
    said = re.sub(r"^Input should", "should", said)
    said = said[:1].lower() + said[1:]
    joined = " " if said.startswith("should") else ": "
    return f"argument {where!r}{joined}{said}"


def argument_errors(errors: Iterable[Mapping[str, Any]], tool: str, takes: Sequence[str]) -> str:
    """One line for the argument errors of a tool call (pydantic's error dicts): each error in
    plain words, then what the tool takes. No values are echoed and no URLs given."""
    said = "; ".join(dict.fromkeys(_argument(error) for error in errors)) or "invalid arguments"
    return f"{said} ({tool} takes {', '.join(takes)})" if takes else said
