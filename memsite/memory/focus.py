"""The facts a runner's prompt hook adds (`memsite prompt`, installed by `agents install
--per-prompt`): the few most relevant to the prompt, within ``memory.perPromptTokenBudget``.

- Silent when nothing is relevant enough: with the semantic extra, a fact found by meaning
  alone must reach ``recall.FLOOR`` cosine, and one found by words too ``recall.AGREE``;
  without it, its words must match (``recall.relevant`` with ``strict``).
- Once per fact per session: the ids given to a session are kept in
  ``cache/prompted-<hash of the session>.marshal`` (derived: losing it only means a fact may
  be given again).
- The gate, the validity windows and the markers apply as in `context`: the text is the index's
  own rendering (``indexmd._index_texts``), holding only these facts.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memsite.memory import Memory

PROMPT_FACTS = 3  # the most facts one prompt adds
PROMPT_CHARS = 1000  # of a prompt's start that is searched (a pasted log can be megabytes)
SEEN_MAX = 2000  # ids remembered per session
_VERSION = 1  # of the session files' shape


def prompt_facts(memory: Memory, prompt: str, session: str | None) -> dict[str, Any]:
    """``{"text", "ids"}``: the facts for this prompt (text "" when there are none)."""
    from memsite.core.budget import INDEX_HEADER
    from memsite.memory.indexmd import _index_texts
    from memsite.memory.recall import relevant

    words = prompt[:PROMPT_CHARS]
    if not memory.config.enabled or not words.strip():
        return {"text": "", "ids": []}
    seen = _seen(memory, session)
    found = [i for i in relevant(memory, words, PROMPT_FACTS + len(seen), True) if i not in seen]
    if not found:
        return {"text": "", "ids": []}
    budget = memory.config.prompt_budget
    rendered = _index_texts(
        memory, lambda render: render(budget), first=found[:PROMPT_FACTS], only_first=True
    )
    if not rendered.task:
        return {"text": "", "ids": []}
    _remember(memory, session, [*seen, *rendered.task])
    return {"text": rendered.text.removeprefix(INDEX_HEADER).lstrip("\n"), "ids": rendered.task}


def _path(memory: Memory, session: str) -> Path:
    name = hashlib.sha256(session.encode("utf-8", "surrogatepass")).hexdigest()[:32]
    return memory.store.cache_dir / f"prompted-{name}.marshal"


def _seen(memory: Memory, session: str | None) -> list[str]:
    """The ids this session was given (none when the file is missing, not this clone's, or
    reached through a symbolic link: ``Caches.load_bound``)."""
    if session is None:
        return []
    held = memory.model.caches.load_bound(_path(memory, session), _VERSION).get("ids")
    return [i for i in held if isinstance(i, str)][-SEEN_MAX:] if isinstance(held, list) else []


def _remember(memory: Memory, session: str | None, ids: list[str]) -> None:
    """Keep the ids given to ``session`` (nothing when the cache cannot be written: a
    read-only checkout gives the facts again rather than fail the runner's prompt)."""
    if session is not None:
        memory.model.caches.save_bound(_path(memory, session), _VERSION, {"ids": ids[-SEEN_MAX:]})
