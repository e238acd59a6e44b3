"""`memsite init --techdocs`: the files a repository needs for Backstage TechDocs, written only
where absent; what exists is never rewritten (the answer says what to add); a docs folder
outside the repository is refused as TechDocs refuses it; the workflow passes
check-jsonschema and zizmor."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
import yaml

from memsite.portal.techdocs import ANNOTATION, entity_name, workflow_text
from tests.conftest import Invoke, git
from tests.workflows import lint_workflow

FILES = [
    "catalog-info.yaml",
    "mkdocs.yml",
    "docs/index.md",
    ".github/workflows/memsite-techdocs.yml",
]


@pytest.fixture
def repo(store_root: Path) -> Path:
    root = store_root.parent
    git(root, "init", "-q", "-b", "main")
    return root


def snapshot(root: Path) -> dict[str, tuple[bytes, int]]:
    return {
        str(p.relative_to(root)): (p.read_bytes(), p.stat().st_mtime_ns)
        for p in root.rglob("*")
        if p.is_file() and ".git/" not in p.as_posix() and ".memsite" not in p.parts
    }


def test_a_fresh_repository_gets_every_file(repo: Path, runner: Invoke) -> None:
    done = runner("init", "--techdocs")
    assert done.exit_code == 0, done.stderr
    for rel in FILES:
        assert (repo / rel).is_file(), rel
        assert f"Wrote {rel}" in done.stdout
    assert "--defaultPlugin memsite" in done.stdout  # the step TechDocs needs, said
    catalog = yaml.safe_load((repo / "catalog-info.yaml").read_text())
    assert catalog["metadata"]["annotations"] == {"backstage.io/techdocs-ref": "dir:."}
    assert catalog["metadata"]["name"] == entity_name(repo.name)
    mkdocs = yaml.safe_load((repo / "mkdocs.yml").read_text())
    assert mkdocs["plugins"] == ["techdocs-core", "memsite"] and mkdocs["docs_dir"] == "docs"
    assert "memory/index.md" in (repo / "docs" / "index.md").read_text()


def test_it_is_idempotent_and_a_dry_run_writes_nothing(repo: Path, runner: Invoke) -> None:
    planned = runner("init", "--techdocs", "--dry-run", "--json")
    assert planned.exit_code == 0, planned.stderr
    assert [s["action"] for s in planned.json()["techdocs"]] == ["write"] * 4
    assert snapshot(repo) == {}
    assert runner("init", "--techdocs").exit_code == 0
    before = snapshot(repo)
    again = runner("init", "--techdocs", "--json")
    assert again.exit_code == 0
    assert {s["action"] for s in again.json()["techdocs"]} == {"as_is"}
    assert snapshot(repo) == before  # not even rewritten with the same bytes


def test_a_dry_run_without_techdocs_is_a_usage_error(repo: Path, runner: Invoke) -> None:
    done = runner("init", "--dry-run")
    assert done.exit_code == 2 and "--dry-run goes with --techdocs" in done.stderr


def test_existing_files_are_left_alone_and_the_answer_says_what_to_add(
    repo: Path, runner: Invoke
) -> None:
    catalog = "apiVersion: backstage.io/v1alpha1\nkind: Component\nmetadata:\n  name: shop\n"
    mkdocs = "site_name: Shop\nplugins:\n  - search\n  - mermaid2\n"
    (repo / "catalog-info.yaml").write_text(catalog)
    (repo / "mkdocs.yml").write_text(mkdocs)
    done = runner("init", "--techdocs")
    assert done.exit_code == 0, done.stderr
    assert (repo / "catalog-info.yaml").read_text() == catalog
    assert (repo / "mkdocs.yml").read_text() == mkdocs
    assert not (repo / "docs").exists()  # the host's docs are the host's
    assert f"under metadata.annotations:\n    {ANNOTATION}" in done.stdout
    assert "under plugins:\n  - techdocs-core\n  - memsite" in done.stdout
    steps = runner("init", "--techdocs", "--json").json()["techdocs"]
    assert [(s["path"], s["action"]) for s in steps[:2]] == [
        ("catalog-info.yaml", "advise"),
        ("mkdocs.yml", "advise"),
    ]


def test_a_site_with_both_plugins_and_the_annotation_is_set_up(repo: Path, runner: Invoke) -> None:
    (repo / "catalog-info.yaml").write_text(f"metadata:\n  annotations:\n    {ANNOTATION}\n")
    (repo / "mkdocs.yml").write_text(
        "site_name: x\nplugins:\n  - techdocs-core\n  - memsite:\n      path: kb\n"
    )
    steps = runner("init", "--techdocs", "--json").json()["techdocs"]
    assert [s["action"] for s in steps] == ["as_is", "as_is", "write"]


@pytest.mark.parametrize("docs_dir", ["../elsewhere", "/srv/docs"])
def test_a_docs_dir_outside_the_repository_is_refused(
    repo: Path, runner: Invoke, docs_dir: str
) -> None:
    (repo / "mkdocs.yml").write_text(f"site_name: x\ndocs_dir: {docs_dir}\n")
    done = runner("init", "--techdocs")
    assert done.exit_code == 1
    assert done.stderr.startswith("Error: mkdocs.yml: docs_dir") and "TechDocs" in done.stderr
    assert len(done.stderr.splitlines()) == 1
    assert not (repo / "catalog-info.yaml").exists()  # refused before anything is written


def test_a_docs_folder_linked_out_of_the_repository_is_refused(
    repo: Path, runner: Invoke, tmp_path_factory: pytest.TempPathFactory
) -> None:
    outside = tmp_path_factory.mktemp("outside")
    os.symlink(outside, repo / "docs")
    done = runner("init", "--techdocs")
    assert done.exit_code == 1 and "outside the repository" in done.stderr
    assert not (outside / "index.md").exists()


def test_an_unreadable_mkdocs_yml_is_one_line(repo: Path, runner: Invoke) -> None:
    (repo / "mkdocs.yml").write_text("site_name: [unclosed\n")
    done = runner("init", "--techdocs")
    assert done.exit_code == 1 and "is not valid YAML" in done.stderr
    assert len(done.stderr.splitlines()) == 1 and "Traceback" not in done.stderr


def test_a_store_elsewhere_is_named_in_the_plugin(tmp_path: Path, runner: Invoke) -> None:
    project = tmp_path / "app"
    project.mkdir()
    git(project, "init", "-q")
    done = runner("--store", str(project / "knowledge" / "store"), "init", "--techdocs")
    assert done.exit_code == 0, done.stderr
    mkdocs = yaml.safe_load((project / "mkdocs.yml").read_text())
    assert mkdocs["plugins"][1] == {"memsite": {"store": "knowledge/store"}}


def test_the_workflow_is_valid_and_zizmor_finds_nothing(repo: Path, runner: Invoke) -> None:
    assert runner("init", "--techdocs").exit_code == 0
    path = repo / ".github" / "workflows" / "memsite-techdocs.yml"
    flow = yaml.safe_load(path.read_text())
    job = flow["jobs"]["publish"]
    assert job["permissions"] == {"contents": "read"} and flow["permissions"] == {}
    pins = [step["uses"].split("@")[1] for step in job["steps"] if "uses" in step]
    assert pins and all(re.fullmatch(r"[0-9a-f]{40}", pin) for pin in pins)  # pinned by SHA
    assert set(flow[True]["workflow_dispatch"]["inputs"]) == {"publisher-type", "bucket", "entity"}
    for step in job["steps"]:  # no expression spliced into a shell
        assert "${{" not in step.get("run", "")
    # Entry pages name the commit that added each fact: a shallow clone would name its one.
    checkout = next(s for s in job["steps"] if s.get("uses", "").startswith("actions/checkout"))
    assert checkout["with"] == {"fetch-depth": 0, "persist-credentials": False}
    assert path.read_text() == workflow_text(f"default/component/{entity_name(repo.name)}")
    assert lint_workflow(path) == []
    # zizmor can fail: an input spliced into the shell is caught
    broken = path.with_name("broken.yml")
    broken.write_text(path.read_text().replace('"$TECHDOCS_BUCKET" ]', "${{ inputs.bucket }} ]"))
    assert [p for p in lint_workflow(broken) if p.startswith("zizmor")]
