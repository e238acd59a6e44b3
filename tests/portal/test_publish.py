"""The GitHub Pages workflow: least privilege, pinned actions, valid for the schema and zizmor."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from memsite.portal.publish import pages_workflow
from memsite.version import __version__
from tests.conftest import Invoke


def load(text: str) -> dict[Any, Any]:
    data = yaml.safe_load(text)
    assert isinstance(data, dict)
    return data


def test_workflow_shape() -> None:
    flow = load(pages_workflow(".memsite"))
    assert flow["permissions"] == {}
    assert flow["concurrency"]["group"] == "memsite-pages"
    build, deploy = flow["jobs"]["build"], flow["jobs"]["deploy"]
    assert build["permissions"] == {"contents": "read"}
    assert deploy["permissions"] == {"pages": "write", "id-token": "write"}
    assert deploy["needs"] == "build"
    assert deploy["environment"]["name"] == "github-pages"
    steps = build["steps"]
    uses = [s.get("uses", "").split("@")[0] for s in steps + deploy["steps"]]
    assert uses.index("actions/checkout") < uses.index("actions/setup-python")
    assert "actions/upload-pages-artifact" in uses and "actions/deploy-pages" in uses
    checkout = next(s for s in steps if s.get("uses", "").startswith("actions/checkout"))
    assert checkout["with"]["persist-credentials"] is False
    runs = " ".join(s.get("run", "") for s in steps)
    assert "pip install" in runs and "memsite" in runs
    assert '--store "$MEMSITE_STORE_PATH" build --strict --site-dir' in runs
    build_step = next(s for s in steps if "build --strict" in s.get("run", ""))
    assert build_step["env"]["MEMSITE_STORE_PATH"] == ".memsite"
    for step in steps + deploy["steps"]:
        if "uses" in step:
            ref = step["uses"].split("@")[1]
            assert len(ref) == 40 and all(c in "0123456789abcdef" for c in ref), step["uses"]
    assert flow[True]["push"]["paths"][0] == ".memsite/entries/**"  # `on:` parses as True


def test_the_build_goes_on_from_the_last_runs() -> None:
    """actions/cache restores the last run's site and build state, keyed to memsite's version
    and the config; the checkout's own cache folder is removed first, and only then is a
    restored state believed."""
    steps = load(pages_workflow(".memsite"))["jobs"]["build"]["steps"]
    names = [s["name"] for s in steps]
    clear = steps[names.index("Clear the checkout's cache folder")]
    restore = steps[names.index("Restore the last build")]
    build = next(s for s in steps if "build --strict" in s.get("run", ""))
    assert names.index("Clear the checkout's cache folder") < names.index("Restore the last build")
    assert names.index("Restore the last build") < steps.index(build)
    assert clear["run"] == 'rm -rf "$MEMSITE_STORE_PATH/cache"'
    assert restore["uses"].startswith("actions/cache@")
    paths = restore["with"]["path"].splitlines()
    assert paths == [
        ".memsite/cache/build-*.marshal",
        ".memsite/cache/findings.marshal",
        "${{ runner.temp }}/memsite-site",
    ]
    assert "$RUNNER_TEMP/memsite-site" in build["run"]  # the folder the cache restores
    key = restore["with"]["key"]
    assert key.startswith(f"memsite-{__version__}-${{{{ hashFiles('.memsite/config.json') }}}}-")
    assert restore["with"]["restore-keys"].strip() == key.rsplit("-", 1)[0] + "-"
    assert build["env"]["MEMSITE_CACHE_RESTORED"] == "1"
    # A shallow clone would name its one commit as every fact's origin, and a build would
    # draw every page again at each push: the whole history is checked out.
    checkout = next(s for s in steps if s.get("uses", "").startswith("actions/checkout"))
    assert checkout["with"]["fetch-depth"] == 0


@pytest.mark.parametrize("store", ["docs/memory", 'odd "store" dir', ".lean-spec/memory", "."])
def test_store_paths_are_quoted_not_interpolated(store: str) -> None:
    text = pages_workflow(store)
    flow = load(text)
    step = next(s for s in flow["jobs"]["build"]["steps"] if "env" in s)
    assert step["env"]["MEMSITE_STORE_PATH"] == store
    assert store not in step["run"]  # never spliced into the shell command


def write(tmp_path: Path, store: str = ".memsite") -> Path:
    path = tmp_path / ".github" / "workflows" / "memsite-pages.yml"
    path.parent.mkdir(parents=True)
    path.write_text(pages_workflow(store), encoding="utf-8")
    return path


@pytest.mark.skipif(shutil.which("check-jsonschema") is None, reason="check-jsonschema missing")
def test_schema_accepts_the_workflow(tmp_path: Path) -> None:
    path = write(tmp_path)
    done = subprocess.run(
        ["check-jsonschema", "--builtin-schema", "vendor.github-workflows", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.skipif(shutil.which("check-jsonschema") is None, reason="check-jsonschema missing")
def test_schema_check_can_fail(tmp_path: Path) -> None:
    path = write(tmp_path)
    path.write_text(path.read_text().replace("runs-on:", "runs_on:"))
    done = subprocess.run(
        ["check-jsonschema", "--builtin-schema", "vendor.github-workflows", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode != 0


@pytest.mark.skipif(shutil.which("zizmor") is None, reason="zizmor missing")
@pytest.mark.parametrize("store", [".memsite", 'odd "store" $(dir)'])
def test_zizmor_finds_nothing(tmp_path: Path, store: str) -> None:
    path = write(tmp_path, store)
    done = subprocess.run(
        ["zizmor", "--offline", "--no-progress", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "No findings" in done.stdout + done.stderr


@pytest.mark.skipif(shutil.which("zizmor") is None, reason="zizmor missing")
def test_zizmor_would_catch_persisted_credentials(tmp_path: Path) -> None:
    path = write(tmp_path)
    path.write_text(path.read_text().replace("persist-credentials: false", "fetch-depth: 1"))
    done = subprocess.run(
        ["zizmor", "--offline", "--no-progress", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode != 0 and "artipacked" in done.stdout + done.stderr


@pytest.mark.skipif(shutil.which("git") is None, reason="git missing")
def test_init_github_pages_writes_the_workflow(runner: Invoke, store_root: Path) -> None:
    subprocess.run(["git", "init", "-q", str(store_root.parent)], check=True)
    result = runner("init", "--github-pages")
    assert result.exit_code == 0, result.stderr
    path = store_root.parent / ".github" / "workflows" / "memsite-pages.yml"
    assert path.read_text() == pages_workflow(".memsite")


@pytest.mark.parametrize(
    ("store", "odd"),
    [
        ("mem[1]/.memsite", "[]"),
        ("*/.memsite", "*"),
        ("a{b,c}", "{}"),
        ("!neg", "!"),
        ("x+(y)", "+("),
        ("line\nbreak", "\n"),
        ('odd "store" $(dir)', ""),  # quoted where it appears: written as it is
        ("docs/memory", ""),
    ],
)
def test_pattern_characters_of_store_paths(store: str, odd: str) -> None:
    from memsite.portal.publish import pattern_characters

    assert pattern_characters(store) == odd


@pytest.mark.skipif(shutil.which("git") is None, reason="git missing")
@pytest.mark.parametrize("flag", ["--github-pages", "--github-check"])
def test_a_store_path_of_glob_characters_gets_no_workflow(
    runner: Invoke, tmp_path: Path, flag: str
) -> None:
    """A workflow would read mem[1] as a pattern in its path filters, cache paths and
    hashFiles(): one line, a non-zero exit, and no workflow written."""
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    store = tmp_path / "mem[1]" / ".memsite"
    result = runner("--store", str(store), "init", flag)
    assert result.exit_code != 0
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "'[]'" in lines[0] and "Traceback" not in result.stderr
    assert "move the store" in lines[0]
    assert not (tmp_path / ".github").exists()
