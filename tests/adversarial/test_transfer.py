"""import and export against hostile files and targets (issue 30, items 8 and 9): a FIFO or a
device given to import is refused, never read forever; a file's own ``allow_secret`` is not
obeyed; an import that replaces or retires other authors' facts needs --force; export writes
into a FIFO or a device instead of renaming over it; a Markdown export deletes only files it
wrote.

Commands that could hang on the code before the fix run as subprocesses with a deadline."""

from __future__ import annotations

import hashlib
import json
import os
import socket
import stat
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from tests.conftest import Invoke, Result, clean_env, make_entry, write_raw

AWS = "AKIA" + "Z7VQ3XK2P4L9WQ8M"  # an AWS access key id's shape
DEADLINE = 120  # seconds: far beyond what a working command takes; a hang fails the test
ALICE_ID = "0a11ce00-0000-4000-8000-000000000001"


def memsite(
    store_root: Path, *args: str, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memsite", "--store", str(store_root), *args],
        cwd=store_root.parent,
        input=stdin,
        capture_output=True,
        text=True,
        env=clean_env(),
        timeout=DEADLINE,
    )


def one_error_line(done: subprocess.CompletedProcess[str] | Result, *words: str) -> None:
    """The command failed with one line saying what is wrong (holding ``words``)."""
    code = done.returncode if isinstance(done, subprocess.CompletedProcess) else done.exit_code
    assert code != 0
    assert "Traceback" not in done.stderr
    lines = [line for line in done.stderr.splitlines() if line.startswith("Error:")]
    assert len(lines) == 1, done.stderr
    for word in words:
        assert word in lines[0], lines[0]


def line(obj: dict[str, Any]) -> str:
    return json.dumps(obj) + "\n"


# --- import: what is read -------------------------------------------------------------------


def test_import_refuses_a_fifo_instead_of_waiting_on_it(store_root: Path) -> None:
    fifo = store_root.parent / "memory.jsonl"
    os.mkfifo(fifo)  # no writer ever comes: reading it would block forever
    done = memsite(store_root, "import", str(fifo), "--from", "jsonl")
    one_error_line(done, "is a FIFO, not a regular file", "- to read standard input")
    assert list((store_root / "entries").iterdir()) == []


def test_import_refuses_a_character_device(store_root: Path) -> None:
    done = memsite(store_root, "import", os.devnull, "--from", "mcp-memory", "-c", "operations")
    one_error_line(done, "is a character device, not a regular file")


def test_import_reads_standard_input_for_a_dash(store_root: Path) -> None:
    fact = make_entry("Builds run on Node 20", id="5a5a5a5a-0000-4000-8000-000000000001")
    done = memsite(store_root, "import", "-", "--from", "jsonl", "--json", stdin=line(fact))
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["written"] == 1 and answer["facts"][0]["where"] == "stdin:1"


# --- import: a file's own allow_secret ------------------------------------------------------


def test_a_files_allow_secret_is_ignored(store_root: Path, runner: Invoke) -> None:
    source = store_root.parent / "export.jsonl"
    secret = make_entry(f"The deploy key is {AWS}", id="5ec0e700-0000-4000-8000-000000000001")
    plain = make_entry("Deploy on Tuesdays", id="5ec0e701-0000-4000-8000-000000000002")
    source.write_text(
        line({**secret, "allow_secret": True}) + line({**plain, "allow_secret": True}),
        encoding="utf-8",
    )
    done = runner("import", str(source), "--from", "jsonl")
    assert done.exit_code == 1
    assert AWS not in done.stdout + done.stderr
    assert done.stderr.count("allow_secret is ignored") == 1  # said once, not per line
    assert "export.jsonl:1" in done.stderr and "--allow-secret" in done.stderr
    files = list((store_root / "entries").iterdir())
    (written,) = [json.loads(p.read_text(encoding="utf-8")) for p in files]
    assert written["content"] == "Deploy on Tuesdays"
    assert "allow_secret" not in written  # the file's claim did not travel into the store
    allowed = runner("import", str(source), "--from", "jsonl", "--allow-secret")  # a person's
    assert allowed.exit_code == 0, allowed.stderr
    kept = [json.loads(p.read_text(encoding="utf-8")) for p in (store_root / "entries").iterdir()]
    assert [e.get("allow_secret") for e in kept if e["id"] == secret["id"]] == [True]


# --- import: other authors' facts -----------------------------------------------------------


def plant_alices_fact(store_root: Path) -> None:
    obj = make_entry(
        "Use pnpm", created="2026-03-07T10:00:00.000Z", id=ALICE_ID, agent="alice", key="pm"
    )
    write_raw(store_root, obj)


def test_superseding_another_authors_fact_needs_force(store_root: Path, runner: Invoke) -> None:
    plant_alices_fact(store_root)
    source = store_root.parent / "incoming.jsonl"
    takeover = make_entry(
        "Use npm", created="2026-03-07T09:00:00.000Z", agent="alice", supersedes=[ALICE_ID]
    )  # the file says alice wrote it too: the file's word is not asked
    source.write_text(line(takeover), encoding="utf-8")
    done = runner("import", str(source), "--from", "jsonl", "--agent", "mallory")
    one_error_line(done, "1 fact of other authors", ALICE_ID[:8], "--force")
    assert len(list((store_root / "entries").iterdir())) == 1  # nothing written
    dry = runner("import", str(source), "--from", "jsonl", "--dry-run", "--json")
    assert dry.exit_code == 0, dry.stderr
    assert dry.json()["displaced"] == [
        {
            "id": ALICE_ID,
            "category": "conventions",
            "agent": "alice",
            "how": "supersedes",
            "by": takeover["id"],
        }
    ]
    shown = runner("import", str(source), "--from", "jsonl", "--dry-run")
    assert f"Would replace {ALICE_ID[:8]} (conventions, by alice)" in shown.stdout
    forced = runner("import", str(source), "--from", "jsonl", "--force")
    assert forced.exit_code == 0, forced.stderr
    assert [e["content"] for e in runner("list", "--json").json()] == ["Use npm"]


def test_overriding_a_key_needs_force_but_ones_own_does_not(
    store_root: Path, runner: Invoke
) -> None:
    plant_alices_fact(store_root)
    source = store_root.parent / "incoming.jsonl"
    newer = make_entry("Use yarn", created="2026-03-08T10:00:00.000Z", key="pm")
    source.write_text(line(newer), encoding="utf-8")
    refused = runner("import", str(source), "--from", "jsonl")
    one_error_line(refused, "supersede or override", "--force")
    mine = runner("import", str(source), "--from", "jsonl", "--agent", "alice", "--json")
    assert mine.exit_code == 0, mine.stderr
    assert mine.json()["displaced"] == [] and mine.json()["written"] == 1


def test_retiring_another_authors_fact_needs_force(store_root: Path, runner: Invoke) -> None:
    plant_alices_fact(store_root)
    source = store_root.parent / "incoming.jsonl"
    retire = {
        "record": "retire",
        "id": "0a11ce00-0000-4000-8000-0000000000ff",
        "target": ALICE_ID,
        "created": "2026-03-08T10:00:00.000Z",
        "agent": "alice",  # the file's word is not asked
        "reason": "withdrawn",
    }
    source.write_text(line(retire), encoding="utf-8")
    refused = runner("import", str(source), "--from", "jsonl", "--agent", "mallory")
    one_error_line(refused, "1 fact of other authors", ALICE_ID[:8], "--force")
    assert len(list((store_root / "entries").iterdir())) == 1  # nothing written
    dry = runner("import", str(source), "--from", "jsonl", "--dry-run", "--json")
    assert [(d["id"], d["how"], d["by"]) for d in dry.json()["displaced"]] == [
        (ALICE_ID, "retires", retire["id"])
    ]
    forced = runner("import", str(source), "--from", "jsonl", "--force")
    assert forced.exit_code == 0, forced.stderr
    assert "Wrote 0 facts and 1 record from" in forced.stdout
    assert runner("list", "--json").json() == []  # retired
    mine = runner("import", str(source), "--from", "jsonl", "--agent", "alice", "--json")
    assert mine.json()["displaced"] == [] and mine.json()["records"][0]["status"] == "exists"


# --- export: where it writes ----------------------------------------------------------------


def test_export_streams_into_a_fifo_read_by_a_thread(store_root: Path, runner: Invoke) -> None:
    runner("add", "Use pnpm", "-c", "conventions")
    expected = runner("export").stdout
    fifo = store_root.parent / "out.jsonl"
    os.mkfifo(fifo)
    received: list[bytes] = []

    def read() -> None:
        with open(fifo, "rb") as handle:  # waits for the writer, as `cat fifo` would
            received.append(handle.read())

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    done = memsite(store_root, "export", "-o", str(fifo))
    assert done.returncode == 0, done.stderr
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)  # still the FIFO, not renamed over
    reader.join(DEADLINE)
    assert not reader.is_alive() and received == [expected.encode("utf-8")]


def test_export_writes_through_a_link_to_dev_null(store_root: Path, runner: Invoke) -> None:
    link = store_root.parent / "discard.jsonl"
    link.symlink_to(os.devnull)  # a character device behind a link: never replaced
    done = runner("export", "-o", str(link))
    assert done.exit_code == 0, done.stderr
    assert link.is_symlink() and os.readlink(link) == os.devnull
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)


def test_export_to_standard_output_by_name_and_by_dash(store_root: Path, runner: Invoke) -> None:
    runner("add", "Use pnpm", "-c", "conventions")
    expected = runner("export").stdout
    by_fd = memsite(store_root, "export", "-o", "/dev/fd/1")  # our pipe, through /proc
    assert by_fd.returncode == 0, by_fd.stderr
    assert by_fd.stdout == expected
    dash = runner("export", "-o", "-")
    assert dash.exit_code == 0 and dash.stdout == expected
    assert not (store_root.parent / "-").exists()


def test_export_refuses_a_folder_and_a_socket(store_root: Path, runner: Invoke) -> None:
    folder = store_root.parent / "out"
    folder.mkdir()
    one_error_line(runner("export", "-o", str(folder)), "is a folder")
    path = store_root.parent / "s"
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(path))
        one_error_line(runner("export", "-o", str(path)), "is a socket")
        assert stat.S_ISSOCK(os.lstat(path).st_mode)
    one_error_line(runner("export", "--format", "markdown", "-o", "-"), "folder")


# --- export: a Markdown bundle's folder -----------------------------------------------------


def test_markdown_export_leaves_a_stray_file_alone(store_root: Path, runner: Invoke) -> None:
    folder = store_root.parent / "notes"
    folder.mkdir()
    (folder / ".memsite-export").write_text("stray marker\n", encoding="utf-8")
    note = folder / "ideas.md"
    note.write_text("my own notes", encoding="utf-8")
    planted = {"ideas.md": hashlib.sha256(b"my own notes").hexdigest()}
    (folder / ".memsite-export.json").write_text(json.dumps({"files": planted}), "utf-8")
    runner("add", "Use pnpm", "-c", "conventions")
    done = runner("export", "--format", "markdown", "-o", str(folder))
    assert done.exit_code == 0, done.stderr
    assert note.read_text(encoding="utf-8") == "my own notes"  # a manifest cannot claim it
    assert len(list(folder.glob("*.md"))) == 2


def test_markdown_export_removes_only_its_own_unchanged_files(
    store_root: Path, runner: Invoke
) -> None:
    folder = store_root.parent / "bundle"
    first = runner("add", "Use pnpm", "-c", "conventions", "--json").json()["id"]
    second = runner("add", "Tabs, not spaces", "-c", "conventions", "--json").json()["id"]
    assert runner("export", "--format", "markdown", "-o", str(folder)).exit_code == 0
    manifest = json.loads((folder / ".memsite-export.json").read_text(encoding="utf-8"))
    pages = {name[-11:-3]: folder / name for name in manifest["files"]}
    assert set(pages) == {first[:8], second[:8]}
    pages[second[:8]].write_text("edited by a person", encoding="utf-8")
    (folder / "mine.md").write_text("a person's file", encoding="utf-8")
    runner("delete", first)
    runner("delete", second)
    assert runner("export", "--format", "markdown", "-o", str(folder)).exit_code == 0
    assert not pages[first[:8]].exists()  # the export's own file, unchanged: removed
    assert pages[second[:8]].read_text(encoding="utf-8") == "edited by a person"
    assert (folder / "mine.md").read_text(encoding="utf-8") == "a person's file"


def test_markdown_export_refuses_to_overwrite_a_changed_file(
    store_root: Path, runner: Invoke
) -> None:
    folder = store_root.parent / "bundle"
    runner("add", "Use pnpm", "-c", "conventions")
    assert runner("export", "--format", "markdown", "-o", str(folder)).exit_code == 0
    (page,) = folder.glob("*.md")
    page.write_text("edited by a person", encoding="utf-8")
    runner("add", "Tabs, not spaces", "-c", "conventions")
    done = runner("export", "--format", "markdown", "-o", str(folder))
    one_error_line(done, page.name, "was changed since")
    assert page.read_text(encoding="utf-8") == "edited by a person"
