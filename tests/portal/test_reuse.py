"""`memsite build` going on from the last build (``portal.reuse``): byte for byte what a build
from nothing makes, after any change; never trusting a state it should not."""

from __future__ import annotations

import json
import marshal
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memsite.memory import Memory
from memsite.portal import reuse
from memsite.portal.build import build_site
from memsite.portal.cache import PortalCache
from memsite.portal.site import MARKER
from tests.conftest import Invoke, clean_env
from tests.portal.conftest import copy_demo


def tree(site: Path) -> dict[str, bytes]:
    found = {}
    for folder, _, names in os.walk(site):
        for name in names:
            path = Path(folder) / name
            found[path.relative_to(site).as_posix()] = path.read_bytes()
    return found


def open_memory(store: Path) -> Memory:
    return Memory.open(str(store), {}, store.parent)


def build(store: Path, site: Path, *, clean: bool = False) -> list[str]:
    """A build as `memsite build` makes it (going on from the last one unless ``clean``), in
    a memory opened anew (as a new process would); the lines it said."""
    said: list[str] = []
    build_site(open_memory(store), site, cache=PortalCache(), reuse=said.append, clean=clean)
    return said


def assert_same_as_cold(store: Path, site: Path, scratch: Path) -> None:
    cold = scratch / f"cold-{len(list(scratch.iterdir()))}"
    build(store, cold, clean=True)
    made, expected = tree(site), tree(cold)
    assert sorted(made) == sorted(expected)
    for rel, data in expected.items():
        assert made[rel] == data, rel


def entry_files(store: Path) -> list[Path]:
    return sorted((store / "entries").glob("*.json"))


def change(store: Path, op: str, pick: int, step: int) -> None:
    """One change of the kind a team makes: a fact added (tagged or not), amended, retired,
    an entry file deleted (a revert), or the config changed."""
    memory = open_memory(store)
    result = memory.state().result
    active = [e for e in result.entries if result.status[e.id] == "active"]
    target = active[pick % len(active)] if active else None
    if op == "add" or target is None:
        memory.add(f"Step {step}: the queue drains before a deploy", "operations")
    elif op == "tagged":
        memory.add(f"Step {step}: pin the base image", "conventions", tags=["docker", "ci"])
    elif op == "amend":
        memory.amend(target.id, f"{target.content} (amended at step {step})")
    elif op == "retire":
        memory.retire(target.id, f"no longer true at step {step}")
    elif op == "delete":
        files = entry_files(store)
        files[pick % len(files)].unlink()
    else:
        config = json.loads((store / "config.json").read_text("utf-8"))
        config.setdefault("site", {})["site_name"] = f"Memory, step {step}"
        (store / "config.json").write_text(json.dumps(config), "utf-8")


OPS = st.sampled_from(["add", "tagged", "amend", "retire", "delete", "config"])


@settings(
    max_examples=5,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(steps=st.lists(st.tuples(OPS, st.integers(0, 1000)), min_size=1, max_size=3))
def test_a_build_after_any_changes_is_a_cold_builds(
    tmp_path_factory: object, steps: list[tuple[str, int]]
) -> None:
    base = tmp_path_factory.mktemp("reuse")  # type: ignore[attr-defined]
    store = copy_demo(base / "project")
    site, scratch = base / "site", base / "cold"
    scratch.mkdir()
    assert build(store, site) == []
    for number, (op, pick) in enumerate(steps):
        change(store, op, pick, number)
        said = build(store, site)
        assert said == (
            ["the config changed since the last build: what it shows is drawn again"]
            if op == "config"
            else []
        )
        assert_same_as_cold(store, site, scratch)
        assert_state_describes(store, site)


def assert_state_describes(store: Path, site: Path) -> None:
    """The state names every file of the folder as it is (taken by the build's sweep)."""
    _, saved = saved_state(store, site)
    assert saved["files"] == reuse.survey(site)[0]


def test_an_unchanged_page_is_not_written_again(tmp_path: Path) -> None:
    store = copy_demo(tmp_path / "project")
    site = tmp_path / "site"
    build(store, site)
    first = entry_files(store)[0].stem.rsplit("-", 1)[-1]
    page = next((site / "entries").glob(f"{first}*/index.html"))
    before = page.stat()
    open_memory(store).add("A fact that touches no other entry's page", "operations")
    build(store, site)
    after = page.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    assert_same_as_cold(store, site, tmp_path)


@pytest.mark.slow
def test_after_one_add_the_search_index_is_patched_not_made_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The search files one new fact does not touch keep their inode and time; a file the
    patch reads back, edited since, makes the index whole again; either way, a cold build's
    bytes. (600 facts, and new ones as long as they are: the rounded average length stays,
    which the demo's 64 facts would not keep: the index would be made whole.)"""
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    from gen_store import generate

    from memsite.portal import searchpatch

    patched: list[bool] = []  # each build's answer: patched (True) or made whole

    def spy(*args: Any) -> Any:
        found = real(*args)
        patched.append(found is not None)
        return found

    real = searchpatch.patch
    monkeypatch.setattr(searchpatch, "patch", spy)
    store = generate(600, tmp_path / "project")
    site = tmp_path / "site"
    build(store, site)

    def stats() -> dict[str, tuple[int, int]]:
        files = (site / "search").rglob("*.json")
        return {
            p.relative_to(site).as_posix(): (p.stat().st_ino, p.stat().st_mtime_ns) for p in files
        }

    before = stats()
    steps = " ".join(f"step{n}" for n in range(32))  # as long as the average fact
    open_memory(store).add(f"Quarterly zebra audits run on the first Monday: {steps}", "operations")
    build(store, site)
    after = stats()
    changed = sorted(rel for rel in after if after[rel] != before.get(rel))
    assert "search/meta.json" in changed and "search/v/5.json" in changed  # (zebra)
    assert 3 < len(changed) < 30, changed
    assert patched == [True]
    assert_same_as_cold(store, site, tmp_path)
    _, saved = saved_state(store, site)
    documents = json.loads((site / "search" / "meta.json").read_bytes())["documents"]
    assert len(saved["state"]["search"]["digests"]) == 16 * documents  # type: ignore[index]
    # meta.json edited in place as the survey cannot tell (same size, same second): the
    # patch, which reads it back, is not believed, and the index is made whole.
    meta = site / "search" / "meta.json"
    data, info = bytearray(meta.read_bytes()), meta.stat()
    at = data.index(b'"days":[') + 8
    data[at : at + 1] = b"7" if data[at : at + 1] != b"7" else b"8"
    meta.write_bytes(bytes(data))
    os.utime(meta, ns=(info.st_atime_ns, info.st_mtime_ns))
    open_memory(store).add(f"Quarterly yak audits run on the last Friday: {steps}", "operations")
    build(store, site)
    assert patched == [True, False]
    assert_same_as_cold(store, site, tmp_path)


def test_a_stray_file_and_a_page_of_a_deleted_entry_are_swept(tmp_path: Path) -> None:
    store = copy_demo(tmp_path / "project")
    site = tmp_path / "site"
    build(store, site)
    (site / "stray.html").write_text("not memsite's")
    victim = entry_files(store)[3]
    entry_id = json.loads(victim.read_text("utf-8"))["id"]
    assert (site / "entries" / entry_id / "index.html").is_file()
    victim.unlink()
    build(store, site)
    assert not (site / "stray.html").exists()
    assert not (site / "entries" / entry_id).exists()
    assert_same_as_cold(store, site, tmp_path)
    assert_state_describes(store, site)


# --- a state that must not be believed -----------------------------------------------------


def saved_state(store: Path, site: Path) -> tuple[Path, dict[str, object]]:
    path = reuse.state_path(open_memory(store), site)
    data = path.read_bytes()
    return path, marshal.loads(data[:-16])


def save_state(path: Path, saved: dict[str, object]) -> None:
    body = marshal.dumps(saved)
    path.write_bytes(body + reuse._digest(body))


def cli_build(runner: Invoke, store: Path, site: Path, *extra: str) -> list[str]:
    result = runner("--store", str(store), "build", "--site-dir", str(site), "--quiet", *extra)
    assert result.exit_code == 0, result.stderr
    return result.stderr.splitlines()


def test_a_damaged_state_is_rebuilt_with_one_line(
    runner: Invoke, store_root: Path, tmp_path: Path
) -> None:
    store = copy_demo(tmp_path / "project")
    site = tmp_path / "site"
    assert cli_build(runner, store, site) == []
    path, _ = saved_state(store, site)
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))
    open_memory(store).add("A fact after the damage", "operations")
    lines = cli_build(runner, store, site)
    assert len(lines) == 1 and "was damaged; building the whole site" in lines[0]
    assert_same_as_cold(store, site, tmp_path)
    path.write_bytes(path.read_bytes()[:100])  # cut short
    lines = cli_build(runner, store, site)
    assert len(lines) == 1 and "was damaged" in lines[0]
    assert cli_build(runner, store, site) == []  # and the state it left is believed


def test_a_state_of_another_version_or_clone_is_not_believed(
    runner: Invoke, store_root: Path, tmp_path: Path
) -> None:
    store = copy_demo(tmp_path / "project")
    site = tmp_path / "site"
    cli_build(runner, store, site)
    path, saved = saved_state(store, site)
    save_state(path, {**saved, "inputs": (reuse.FORMAT, "0.0.1", (3, 11), b"x")})
    lines = cli_build(runner, store, site)
    assert len(lines) == 1 and "made by another memsite" in lines[0]
    path, saved = saved_state(store, site)
    save_state(path, {**saved, "home": "1:2"})
    lines = cli_build(runner, store, site)
    assert len(lines) == 1 and "not made in this clone" in lines[0]
    # A workflow that restored cache/ from its own earlier run says so: believed.
    path, saved = saved_state(store, site)
    save_state(path, {**saved, "home": "1:2"})
    result = runner(
        "--store",
        str(store),
        "build",
        "--site-dir",
        str(site),
        "--quiet",
        env={reuse.RESTORED: "1"},
    )
    assert result.exit_code == 0 and result.stderr == ""
    assert_same_as_cold(store, site, tmp_path)


def test_a_site_that_cannot_be_read_midway_is_built_whole(
    runner: Invoke, store_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another tool deleting or locking a folder of the site while the build reads it: one
    line, a whole build, no traceback (as root, a real EACCES cannot be made: it is raised)."""
    store = copy_demo(tmp_path / "project")
    site = tmp_path / "site"
    cli_build(runner, store, site)
    real, failed = os.scandir, []

    def scandir(path: str) -> Any:  # the survey's first look into entries/ fails, once
        if str(path) == str(site / "entries") and not failed:
            failed.append(path)
            raise PermissionError(13, "Permission denied", path)
        return real(path)

    monkeypatch.setattr(reuse.os, "scandir", scandir)
    lines = cli_build(runner, store, site)
    monkeypatch.setattr(reuse.os, "scandir", real)
    assert failed
    assert len(lines) == 1 and "cannot read the site" in lines[0] and "Permission" in lines[0]
    assert_same_as_cold(store, site, tmp_path)


def walked(top: Path) -> reuse.Survey:
    """What a survey should give, by os.walk: files, and each folder's count of names."""
    files, held = {}, {}
    for folder, dirs, names in os.walk(top):
        prefix = Path(folder).relative_to(top).as_posix() + "/"
        prefix = "" if prefix == "./" else prefix
        held[prefix] = len(dirs) + len(names)
        for name in names:
            info = os.lstat(os.path.join(folder, name))
            files[prefix + name] = (info.st_size, int(info.st_mtime))
    return reuse.Survey(files, None, held)


@pytest.mark.parametrize("broken", ["none", "link", "unreadable"])
def test_a_survey_of_many_folders_read_in_two_processes_is_whole(
    tmp_path: Path, broken: str
) -> None:
    """Past reuse._SPLIT folders at one depth, a forked child reads half of them: the two
    halves together are the whole folder; a link or an unreadable folder in either half is
    still found (the child's error is raised here as an OSError, which the build reports)."""
    site = tmp_path / "site"
    count = reuse._SPLIT + 37
    for number in range(count):
        page = site / "entries" / f"{number:05d}" / "index.html"
        page.parent.mkdir(parents=True)
        page.write_bytes(b"x" * (number % 7))
    (site / "entries" / "00003" / "deep").mkdir()
    (site / "index.html").write_text("home")
    (site / "empty").mkdir()
    assert reuse.survey(site) == walked(site)
    if broken == "link":
        (site / "entries" / "00001" / "deep2").symlink_to(tmp_path)
        (site / "entries" / f"{count - 2:05d}" / "to").symlink_to(tmp_path)
        assert reuse.survey(site).link in {"entries/00001/deep2", f"entries/{count - 2:05d}/to"}
    elif broken == "unreadable":
        real = os.scandir  # one folder gone after its parent was listed

        def scandir(path: str) -> Any:
            return real(path if not str(path).endswith("00004") else "/nonexistent/00004")

        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(reuse.os, "scandir", scandir)
            with pytest.raises(OSError, match="No such file"):
                reuse.survey(site)


def test_a_state_naming_paths_outside_the_site_is_not_believed(
    runner: Invoke, store_root: Path, tmp_path: Path
) -> None:
    store = copy_demo(tmp_path / "project")
    site = tmp_path / "site"
    cli_build(runner, store, site)
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    path, saved = saved_state(store, site)
    state = dict(saved["state"])  # type: ignore[call-overload]
    state["written"] = {**state["written"], "../victim.txt": b"k" * 16}
    save_state(path, {**saved, "state": state})
    lines = cli_build(runner, store, site)
    assert len(lines) == 1 and "was damaged" in lines[0]
    assert victim.read_text() == "keep me"


def test_another_site_in_the_folder_is_not_gone_on_from(
    runner: Invoke, store_root: Path, tmp_path: Path
) -> None:
    store = copy_demo(tmp_path / "project")
    other = copy_demo(tmp_path / "other")
    open_memory(other).add("Only the other project knows this", "operations")
    site = tmp_path / "site"
    cli_build(runner, store, site)
    cli_build(runner, other, site)  # another store's build replaced the folder
    lines = cli_build(runner, store, site)
    assert len(lines) == 1 and "is not the one the build cache describes" in lines[0]
    assert_same_as_cold(store, site, tmp_path)


def test_a_foreign_folder_is_never_wiped_though_a_state_names_it(
    runner: Invoke, store_root: Path, tmp_path: Path
) -> None:
    store = copy_demo(tmp_path / "project")
    site = tmp_path / "site"
    cli_build(runner, store, site)
    os.rename(site, tmp_path / "moved")
    site.mkdir()
    (site / "notes.txt").write_text("mine")
    result = runner("--store", str(store), "build", "--site-dir", str(site))
    assert result.exit_code != 0 and "did not create it" in result.stderr
    assert [p.name for p in site.iterdir()] == ["notes.txt"]


def test_clean_builds_whole_and_leaves_a_state(
    runner: Invoke, store_root: Path, tmp_path: Path
) -> None:
    store = copy_demo(tmp_path / "project")
    site = tmp_path / "site"
    cli_build(runner, store, site)
    page = next((site / "entries").glob("*/index.html"))
    before = page.stat().st_ino
    assert cli_build(runner, store, site, "--clean") == []
    assert page.stat().st_ino != before  # written anew
    assert (site / MARKER).read_text().splitlines()[-1].startswith("Build ")
    assert saved_state(store, site)[1]["marker"]


# --- killed builds ---------------------------------------------------------------------------


def test_a_build_killed_at_any_point_leaves_nothing_trusted(tmp_path: Path) -> None:
    """SIGKILL at random moments of builds that go on from the last: the next build still
    makes a cold build's site."""
    store = copy_demo(tmp_path / "project")
    site = tmp_path / "site"
    command = [sys.executable, "-m", "memsite", "--store", str(store), "build"]
    command += ["--site-dir", str(site), "--quiet"]
    scratch = tmp_path / "tmp"  # a killed build cannot remove its scratch folders: kept here
    scratch.mkdir()
    env = {**clean_env(), "TMPDIR": str(scratch)}
    subprocess.run(command, env=env, check=True, capture_output=True)
    started = time.perf_counter()
    subprocess.run(command, env=env, check=True, capture_output=True)
    whole = time.perf_counter() - started  # how long one build takes on this machine now
    chance = random.Random(26)
    codes = []
    for step in range(6):
        open_memory(store).add(f"Fact {step} before a kill", "operations")
        process = subprocess.Popen(
            command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        try:
            process.wait(timeout=chance.uniform(0.02, 0.8) * whole)
        except subprocess.TimeoutExpired:
            process.send_signal(signal.SIGKILL)
        codes.append(process.wait())
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert_same_as_cold(store, site, tmp_path)
    assert -signal.SIGKILL in codes  # (the builds cut short, most of them)


def test_a_file_edited_or_deleted_in_the_site_is_written_again(tmp_path: Path) -> None:
    store = copy_demo(tmp_path / "project")
    site = tmp_path / "site"
    build(store, site)
    page = next((site / "entries").glob("*/index.html"))
    tags = site / "tags" / "index.html"
    page.unlink()
    tags.write_text("edited by hand")
    assert build(store, site) == []
    assert page.is_file() and "edited by hand" not in tags.read_text()
    assert_same_as_cold(store, site, tmp_path)


def test_a_link_in_the_site_is_never_written_through(tmp_path: Path) -> None:
    store = copy_demo(tmp_path / "project")
    site = tmp_path / "site"
    build(store, site)
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "index.html").write_text("keep me")
    first = entry_files(store)[0]
    entry_id = json.loads(first.read_text("utf-8"))["id"]
    folder = site / "entries" / entry_id
    for path in folder.iterdir():
        path.unlink()
    folder.rmdir()
    folder.symlink_to(victim, target_is_directory=True)
    first.unlink()  # its page is no longer made: a warm build would delete it
    said = build(store, site)
    assert len(said) == 1 and "holds a symbolic link" in said[0]
    assert (victim / "index.html").read_text() == "keep me"
    assert_same_as_cold(store, site, tmp_path)


def test_a_build_while_another_runs_into_the_folder_is_refused(
    runner: Invoke, store_root: Path, tmp_path: Path
) -> None:
    import fcntl

    store = copy_demo(tmp_path / "project")
    site = tmp_path / "site"
    cli_build(runner, store, site)
    before = tree(site)
    lock = reuse.state_path(open_memory(store), site).with_suffix(".lock")
    with open(lock, "rb") as held:
        fcntl.flock(held, fcntl.LOCK_EX)  # as the other build holds it
        result = runner("--store", str(store), "build", "--site-dir", str(site), "--quiet")
    assert result.exit_code != 0
    assert "another memsite build into" in result.stderr and "Traceback" not in result.stderr
    assert tree(site) == before  # untouched
    assert cli_build(runner, store, site) == []  # and the state is still believed after


def test_a_build_that_cannot_take_turns_says_it_builds_whole(tmp_path: Path) -> None:
    """No lock can be taken where cache/ is a symbolic link (memsite writes nothing through
    one): no state is read or written, and the build says so in one line."""
    store = copy_demo(tmp_path / "project")
    site = tmp_path / "site"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    shutil.rmtree(store / "cache", ignore_errors=True)
    (store / "cache").symlink_to(elsewhere, target_is_directory=True)
    for _ in range(2):
        said = build(store, site)
        assert len(said) == 1 and "cannot take turns here" in said[0], said
        assert "building the whole site" in said[0]
    assert list(elsewhere.iterdir()) == []  # nothing written through the link
    assert build(store, site, clean=True) == []  # asked for a whole build: nothing to say
    assert_same_as_cold(store, site, tmp_path)
