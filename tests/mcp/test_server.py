"""The MCP server in-process, through the SDK's own `Client`: tools, results, errors, resources."""

from __future__ import annotations

import json
import shutil
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import anyio
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp_types import ReadResourceResult, TextResourceContents, ToolAnnotations

from memsite.mcp import catalog
from memsite.mcp.instructions import INSTRUCTIONS_MAX, build_instructions
from memsite.mcp.server import build_server
from memsite.memory import Memory
from memsite.storage.layout import Store
from tests.conftest import make_entry, write_raw

T = TypeVar("T")
DEMO = Path(__file__).resolve().parents[2] / "examples" / "demo"
TOOLS = {
    "memory_write",
    "memory_read",
    "memory_search",
    "memory_delete",
    "memory_list",
    "memory_log",
    "memory_verify",
    "memory_retire",
    "memory_relate",
    "memory_reconcile",
}


def session(store_root: Path, body: Callable[[Client], Awaitable[T]]) -> T:
    """Run ``body`` against a fresh server on the store, connected in memory."""
    server = build_server(Memory.open(str(store_root)))

    async def main() -> T:
        async with Client(server) as client:
            return await body(client)

    return anyio.run(main)


def text_of(result: ReadResourceResult) -> TextResourceContents:
    (content,) = result.contents
    assert isinstance(content, TextResourceContents)
    return content


def hints(annotations: ToolAnnotations | None) -> ToolAnnotations:
    assert annotations is not None
    return annotations


async def call(client: Client, tool: str, **arguments: Any) -> dict[str, Any]:
    """Call a tool that must succeed; its structured content."""
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, result.content
    assert isinstance(result.structured_content, dict)
    return result.structured_content


async def fail(client: Client, tool: str, **arguments: Any) -> str:
    """Call a tool that must fail with a tool error; its text."""
    result = await client.call_tool(tool, arguments)
    assert result.is_error, result.structured_content
    assert result.structured_content is None
    return " ".join(c.text for c in result.content if hasattr(c, "text"))


def test_tools_have_input_schemas_and_the_right_annotations(store_root: Path) -> None:
    async def body(client: Client) -> None:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert set(tools) == TOOLS
        for tool in tools.values():
            assert tool.input_schema["type"] == "object"
            assert tool.output_schema is not None and tool.output_schema["type"] == "object"
            assert tool.description
            assert tool.annotations is not None
            assert tool.annotations.open_world_hint is False
        assert tools["memory_write"].input_schema["required"] == ["content", "category"]
        # overriding the secret check is a person's decision (the CLI), never an agent's
        assert "allow_secret" not in tools["memory_write"].input_schema["properties"]
        assert tools["memory_read"].input_schema["required"] == ["id"]
        assert tools["memory_search"].input_schema["required"] == ["query"]
        for name in ("memory_read", "memory_search", "memory_list"):
            assert hints(tools[name].annotations).read_only_hint is True, name
        write = hints(tools["memory_write"].annotations)
        delete = hints(tools["memory_delete"].annotations)
        assert write.read_only_hint is False and write.destructive_hint is False
        assert write.idempotent_hint is True  # an identical write answers `duplicate`
        assert delete.read_only_hint is False and delete.destructive_hint is True
        # list and search answer objects: arrays are wrapped
        for name in ("memory_list", "memory_search"):
            schema = tools[name].output_schema
            assert schema is not None and schema["properties"]["entries"]["type"] == "array"
        assert "conventions" in str(tools["memory_write"].description)
        for tool in tools.values():  # shown as written: no docstring wraps or indentation
            assert "\n" not in str(tool.description) and "  " not in str(tool.description)

    session(store_root, body)


def test_the_server_serves_the_catalog_and_advertises_no_prompts(store_root: Path) -> None:
    async def body(client: Client) -> None:
        tools = [t.name for t in (await client.list_tools()).tools]
        assert sorted(tools) == sorted(catalog.TOOLS) and set(tools) == TOOLS
        capabilities = client.server_capabilities
        assert capabilities is not None
        assert capabilities.tools is not None and capabilities.resources is not None
        assert capabilities.prompts is None  # memsite has no prompts

    session(store_root, body)


@pytest.mark.parametrize(
    ("tool", "arguments", "expected"),
    [
        ("memory_read", {}, "missing argument 'id' (memory_read takes id, as_of)"),
        (
            "memory_write",
            {"content": "A fact."},
            "missing argument 'category' (memory_write takes content, category, tags, "
            "supersedes, reason, confidence, key, agent, anchors, valid_from, valid_to)",
        ),
        (
            "memory_log",
            {"text": "x", "kind": "bogus"},
            "argument 'kind' should be 'note', 'task', 'done' or 'decision' "
            "(memory_log takes text, kind)",
        ),
        (
            "memory_read",
            {"id": "ffff0000"},
            "no entry with id 'ffff0000': find ids with memory_list or memory_search",
        ),
    ],
)
def test_errors_are_one_line_in_the_agents_words(
    store_root: Path, tool: str, arguments: dict[str, Any], expected: str
) -> None:
    """No SDK prefix, no pydantic dump with a URL, and the agent's tools, not shell commands."""

    async def body(client: Client) -> None:
        assert await fail(client, tool, **arguments) == expected

    session(store_root, body)


def test_write_read_search_delete(store_root: Path) -> None:
    async def body(client: Client) -> None:
        written = await call(
            client,
            "memory_write",
            content="Always use pnpm, never npm or yarn.",
            category="conventions",
            tags=["pnpm", "Tooling"],
            confidence="high",
            agent="claude",
        )
        assert written["status"] == "written"
        assert written["near_duplicates"] == [] and written["warnings"] == []
        entry_id = written["id"]
        assert Path(written["path"]).is_file()

        read = await call(client, "memory_read", id=entry_id[:8])
        assert read["content"] == "Always use pnpm, never npm or yarn."
        assert read["tags"] == ["pnpm", "tooling"] and read["agent"] == "claude"
        assert read["status"] == "active" and read["superseded_by"] == []
        assert [link["id"] for link in read["chain"]] == [entry_id]

        found = await call(client, "memory_search", query="pnmp")  # a typo still finds it
        assert [hit["id"] for hit in found["entries"]] == [entry_id]
        assert found["entries"][0]["score"] > 0

        deleted = await call(client, "memory_delete", id=entry_id)
        assert deleted == {
            "status": "deleted",
            "id": entry_id,
            "path": written["path"],
            "revived": [],
        }
        assert not Path(written["path"]).exists()
        assert (await call(client, "memory_search", query="pnpm"))["entries"] == []

    session(store_root, body)


def test_duplicate_write_answers_duplicate_and_writes_nothing(store_root: Path) -> None:
    async def body(client: Client) -> None:
        first = await call(
            client, "memory_write", content="Run tests with pytest -q.", category="operations"
        )
        again = await call(
            client, "memory_write", content="  run TESTS with pytest -q  ", category="operations"
        )
        assert again["status"] == "duplicate" and again["id"] == first["id"]
        near = await call(
            client,
            "memory_write",
            content="Run tests with pytest -q always.",
            category="operations",
        )
        assert near["status"] == "written"
        assert [n["id"] for n in near["near_duplicates"]] == [first["id"]]

    session(store_root, body)
    assert len(list((store_root / "entries").glob("*.json"))) == 2


def test_supersedes_and_keys_through_write(store_root: Path) -> None:
    async def body(client: Client) -> None:
        old = await call(
            client, "memory_write", content="Deploy with Fabric.", category="operations"
        )
        new = await call(
            client,
            "memory_write",
            content="Deploy with Ansible.",
            category="operations",
            supersedes=old["id"][:6],
            reason="Fabric was retired",
        )
        listed = await call(client, "memory_list")
        assert [e["id"] for e in listed["entries"]] == [new["id"]]
        read = await call(client, "memory_read", id=old["id"])
        assert read["status"] == "superseded" and read["superseded_by"] == [new["id"]]
        assert [link["id"] for link in read["chain"]] == [new["id"], old["id"]]
        assert (await call(client, "memory_read", id=new["id"]))["reason"] == "Fabric was retired"
        # a supersedes id from another branch is accepted with a warning
        other = "0f0e0d0c-0000-4000-8000-000000000000"
        answer = await call(
            client,
            "memory_write",
            content="CI runs on Buildkite.",
            category="operations",
            supersedes=[other],
        )
        assert "not in this checkout" in answer["warnings"][0]
        # same key: the newer entry wins, the older is overridden
        a = await call(
            client, "memory_write", content="Use npm.", category="conventions", key="pkg"
        )
        b = await call(
            client, "memory_write", content="Use pnpm.", category="conventions", key="pkg"
        )
        assert (await call(client, "memory_read", id=a["id"]))["status"] == "overridden"
        assert (await call(client, "memory_read", id=b["id"]))["status"] == "active"

    session(store_root, body)


def test_list_wraps_entries_and_passes_unknown_keys_through(store_root: Path) -> None:
    planted = make_entry("Legacy fact from another tool.", "architecture")
    planted["x-origin"] = {"tool": "lean-spec"}
    planted["tags"] = None  # lenient reading: null tags, no confidence
    del planted["confidence"]
    write_raw(store_root, planted)

    async def body(client: Client) -> None:
        for i in range(3):
            await call(
                client,
                "memory_write",
                content=f"Fact number {i} about queues.",
                category="architecture",
            )
        everything = await call(client, "memory_list")
        assert list(everything) == ["entries"] and len(everything["entries"]) == 4
        legacy = next(e for e in everything["entries"] if e["id"] == planted["id"])
        assert legacy["x-origin"] == {"tool": "lean-spec"}
        assert (await call(client, "memory_list", limit=2))["entries"].__len__() == 2
        assert (await call(client, "memory_list", category="decisions"))["entries"] == []
        with_status = await call(client, "memory_list", include_all=True)
        assert {e["status"] for e in with_status["entries"]} == {"active"}
        searched = await call(client, "memory_search", query="queues", limit=2)
        assert list(searched) == ["entries"] and len(searched["entries"]) == 2

    session(store_root, body)


def test_structured_content_matches_the_declared_output_schema(store_root: Path) -> None:
    jsonschema = pytest.importorskip("jsonschema")

    async def body(client: Client) -> None:
        schemas = {t.name: t.output_schema for t in (await client.list_tools()).tools}
        written = await call(client, "memory_write", content="Schemas hold.", category="decisions")
        Memory(Store(store_root), Store(store_root).load_config()).log("daily note on schemas")
        results = {
            "memory_write": written,
            "memory_read": await call(client, "memory_read", id=written["id"]),
            "memory_search": await call(client, "memory_search", query="schemas", daily=True),
            "memory_list": await call(client, "memory_list", include_all=True),
        }
        assert any(h.get("source") == "daily" for h in results["memory_search"]["entries"])
        results["memory_delete"] = await call(client, "memory_delete", id=written["id"])
        for name, value in results.items():
            jsonschema.validate(value, schemas[name])

    session(store_root, body)


def test_each_call_sees_entries_written_by_others_meanwhile(store_root: Path) -> None:
    async def body(client: Client) -> None:
        assert (await call(client, "memory_search", query="kafka"))["entries"] == []
        # another process (a fresh Memory, as `memsite add` would have) writes meanwhile
        other = Memory.open(str(store_root))
        other.add("Events go through Kafka.", "architecture")
        hits = (await call(client, "memory_search", query="kafka"))["entries"]
        assert [h["content"] for h in hits] == ["Events go through Kafka."]
        index = await client.read_resource("memsite://index")
        assert "Events go through Kafka." in text_of(index).text

    session(store_root, body)


BAD_CALLS = [
    ("memory_read", {"id": "../../etc/passwd"}, "give a full entry id or a prefix"),
    ("memory_read", {"id": "deadbeef"}, "no entry with id 'deadbeef'"),
    ("memory_read", {"id": "ab"}, "at least 4 hex characters"),
    ("memory_delete", {"id": "/etc/passwd"}, "give a full entry id"),
    ("memory_delete", {"id": "0123456789"}, "no entry with id"),
    ("memory_write", {"content": "A fact.", "category": "gossip"}, "use one of conventions"),
    ("memory_write", {"content": "   ", "category": "conventions"}, "content is empty"),
    ("memory_write", {"content": "x" * 4001, "category": "conventions"}, "split it into"),
    ("memory_write", {"content": 42, "category": "conventions"}, "valid string"),
    ("memory_write", {"category": "conventions"}, "content"),
    (
        "memory_write",
        {"content": "A fact.", "category": "conventions", "tags": ["no spaces!"]},
        "invalid tag",
    ),
    (
        "memory_write",
        {"content": "A fact.", "category": "conventions", "confidence": "sure"},
        "'high', 'medium' or 'low'",
    ),
    (
        "memory_write",
        {"content": "A fact.", "category": "conventions", "supersedes": ["nope"]},
        "invalid id",
    ),
    ("memory_search", {"query": "  "}, "search query is empty"),
    ("memory_search", {"query": "x", "limit": "many"}, "valid integer"),
    ("memory_search", {"query": "x", "category": "Not A Name"}, "invalid category"),
    ("memory_list", {"tag": "../x"}, "invalid tag"),
    ("memory_list", {"limit": -1}, "greater than or equal to 0"),
]


@pytest.mark.parametrize(("tool", "arguments", "expected"), BAD_CALLS)
def test_bad_input_is_a_tool_error_and_the_server_keeps_serving(
    store_root: Path, tool: str, arguments: dict[str, Any], expected: str
) -> None:
    async def body(client: Client) -> None:
        text = await fail(client, tool, **arguments)
        assert expected in text
        assert text != f"Error executing tool {tool}"  # never the bare crash message
        written = await call(client, "memory_write", content="Still serving.", category="decisions")
        assert written["status"] == "written"

    session(store_root, body)


def test_unknown_tool_is_an_error(store_root: Path) -> None:
    async def body(client: Client) -> None:
        text = await fail(client, "memory_erase", id="x")
        assert text == f"no tool 'memory_erase': the tools are {', '.join(catalog.TOOLS)}"

    session(store_root, body)


def test_resources(store_root: Path) -> None:
    async def body(client: Client) -> None:
        templates = (await client.list_resource_templates()).resource_templates
        assert [t.uri_template for t in templates] == ["memsite://entries/{id}"]
        assert [str(r.uri) for r in (await client.list_resources()).resources] == [
            "memsite://index"
        ]
        written = await call(
            client, "memory_write", content="The API is GraphQL.", category="architecture"
        )
        index = text_of(await client.read_resource("memsite://index"))
        assert index.text.startswith("<!-- Auto-generated.")
        assert "- The API is GraphQL." in index.text
        assert (store_root / "index.md").read_text(encoding="utf-8") == index.text  # compacted
        entry = text_of(await client.read_resource(f"memsite://entries/{written['id']}"))
        assert entry.mime_type == "application/json"
        assert json.loads(entry.text)["content"] == "The API is GraphQL."
        for uri, expected in [
            ("memsite://entries/deadbeef", "no entry with id"),
            ("memsite://entries/zzzz", "invalid id"),
        ]:
            with pytest.raises(MCPError, match=expected):
                await client.read_resource(uri)
        with pytest.raises(MCPError):
            await client.read_resource("memsite://entries/..%2F..%2Fetc%2Fpasswd")
        assert (await call(client, "memory_list"))["entries"]  # still serving

    session(store_root, body)


def test_instructions_carry_the_guide_and_the_index(store_root: Path) -> None:
    """Views built once in this clone, then a fact written: the instructions hold it (stale
    views are compacted incrementally before the answer; only a first build is skipped)."""
    Memory.open(str(store_root)).compact()
    Memory.open(str(store_root)).add("Releases are cut on Tuesdays.", "operations")

    async def body(client: Client) -> str | None:
        return client.instructions

    instructions = session(store_root, body)
    assert instructions is not None and len(instructions) <= INSTRUCTIONS_MAX
    assert "memory_write" in instructions and "memory_search" in instructions
    assert "conventions, architecture, operations, decisions" in instructions
    assert "- Releases are cut on Tuesdays." in instructions
    assert "Auto-generated" not in instructions


def test_instructions_stay_under_2000_characters_with_a_huge_index(store_root: Path) -> None:
    (store_root / "config.json").write_text(
        json.dumps({"memory": {"autoInjectTokenBudget": 200000}}), encoding="utf-8"
    )
    for i in range(400):
        content = f"Service {i} owns the table t{i}; " + "details " * 30
        created = f"2026-03-07T10:{i // 60:02d}:{i % 60:02d}.000Z"
        category = "architecture" if i % 4 else "decisions"
        write_raw(store_root, make_entry(content, category, created=created))
    memory = Memory.open(str(store_root))
    assert len(memory.context()) > 50_000
    instructions = build_instructions(memory)
    assert INSTRUCTIONS_MAX - 300 < len(instructions) <= INSTRUCTIONS_MAX  # the room is used
    assert instructions.startswith("memsite is this project's shared memory")
    assert "Service 399 owns" in instructions  # the newest facts come first
    assert "## Architecture" in instructions and "## Decisions" in instructions
    assert "Service 396 owns" in instructions  # the newest decision, past many architecture ones


def test_instructions_cover_every_category_of_the_demo_store(tmp_path: Path) -> None:
    demo = tmp_path / "demo"
    shutil.copytree(DEMO, demo, ignore=shutil.ignore_patterns("cache", "compacted", "index.md"))
    memory = Memory.open(str(demo / ".memsite"))
    memory.compact()
    instructions = build_instructions(memory.reopen())
    assert len(instructions) <= INSTRUCTIONS_MAX
    present = {e["category"] for e in memory.list_entries()}
    assert present == set(memory.config.categories)
    for category in present:
        assert f"## {category.capitalize()}" in instructions, category


def test_a_suspected_secret_is_refused_and_an_agent_cannot_override_it(store_root: Path) -> None:
    fact = {"content": "The deploy key is AKIAZ7VQ3XK2P4L9WQ8M.", "category": "operations"}

    async def body(client: Client) -> tuple[str, str]:
        text = await fail(client, "memory_write", **fact)
        retried = await fail(client, "memory_write", **fact, allow_secret=True)
        return text, retried

    text, retried = session(store_root, body)
    assert "looks like a secret" in text and "AKIAZ7VQ3XK2P4L9WQ8M" not in text  # never echoed
    assert "ask a person" in text and "--allow-secret" in text  # how a person can allow it
    assert "allow_secret=true" not in text
    assert "AKIAZ7VQ3XK2P4L9WQ8M" not in retried
    assert list((store_root / "entries").glob("*.json")) == []  # nothing was written


@pytest.mark.parametrize("index", range(0, 37, 4))
def test_planted_secrets_never_reach_an_mcp_answer(store_root: Path, index: int) -> None:
    from tests.secrets_corpus import FAKE_SECRETS

    fake = FAKE_SECRETS[index % len(FAKE_SECRETS)]
    entry_id = "5ec7e7aa-0000-4000-8000-000000000001"
    write_raw(store_root, make_entry(fake.fact, category="operations", id=entry_id))
    words = [w for w in fake.fact.split() if len(w) > 3 and fake.value not in w][:2]

    async def body(client: Client) -> list[str]:
        answers = [
            json.dumps(await call(client, "memory_read", id=entry_id)),
            json.dumps(await call(client, "memory_list")),
            json.dumps(await call(client, "memory_search", query=" ".join(words) or "staging")),
            text_of(await client.read_resource(f"memsite://entries/{entry_id}")).text,
            text_of(await client.read_resource("memsite://index")).text,
            client.instructions or "",
        ]
        return answers

    answers = session(store_root, body)
    assert "[redacted: " in answers[0] and "[redacted: " in answers[4]
    for answer in answers:
        assert fake.value not in answer


@pytest.mark.parametrize(
    ("client", "env", "argument", "recorded"),
    [
        ("claude-code", None, None, "claude-code"),
        ("claude-code", "ci-bot", None, "ci-bot"),  # $MEMSITE_AGENT says who, when set
        ("claude-code", "ci-bot", "reviewer", "reviewer"),  # and the call itself, first
        ("evil\x1b]0;title\x07" + "x" * 300, None, None, "evil]0;title" + "x" * 52),
        ("   ", None, None, None),
    ],
)
def test_writes_record_the_client_named_in_the_handshake(
    store_root: Path,
    monkeypatch: pytest.MonkeyPatch,
    client: str,
    env: str | None,
    argument: str | None,
    recorded: str | None,
) -> None:
    from mcp_types import Implementation

    if env is None:
        monkeypatch.delenv("MEMSITE_AGENT", raising=False)
    else:
        monkeypatch.setenv("MEMSITE_AGENT", env)
    server = build_server(Memory.open(str(store_root)))
    fact: dict[str, Any] = {"content": "Releases are cut on Tuesdays.", "category": "operations"}
    if argument is not None:
        fact["agent"] = argument

    async def main() -> dict[str, Any]:
        info = Implementation(name=client, version="1.0")
        async with Client(server, client_info=info) as connected:
            written = await call(connected, "memory_write", **fact)
            return await call(connected, "memory_read", id=written["id"])

    entry = anyio.run(main)
    assert entry.get("agent") == recorded


def test_memory_log_writes_to_this_connections_session(
    store_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MEMSITE_SESSION", raising=False)

    async def body(client: Client) -> tuple[dict[str, Any], dict[str, Any]]:
        first = await call(client, "memory_log", text="Wire the login page", kind="task")
        second = await call(client, "memory_log", text="Wire the login page", kind="done")
        return first, second

    first, second = session(store_root, body)
    assert first["session"] == second["session"] and first["session"].startswith("mcp-")
    other, _ = session(store_root, body)
    assert other["session"] != first["session"]  # one session per connection
    lines = Path(first["path"]).read_text(encoding="utf-8").splitlines()
    assert lines[-2:][0].endswith("[task] Wire the login page")
    assert lines[-1].endswith("[done] Wire the login page")
    monkeypatch.setenv("MEMSITE_SESSION", "Feature Login")
    named, _ = session(store_root, body)
    assert named["session"] == "feature-login"
