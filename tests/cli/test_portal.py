"""The portal's commands as a person meets them: `build` ends with the next step, and `build`
and `gh-deploy` warn when a GitHub Pages project site has no site_url."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.cli.helpers import add
from tests.conftest import Invoke, git

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
GIT_ENV = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.com",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.com",
}
WARNING = (
    "Warning: site_url is not set, and GitHub Pages serves this project's site under a sub-path "
    "(https://acme.github.io/shop/): its feed and sitemap need it; set site_url to "
    "https://acme.github.io/shop/ in the site settings of .memsite/config.json, or "
    "$MEMSITE_SITE_URL"
)


def project(store_root: Path, remote: str | None) -> Path:
    root = store_root.parent
    git(root, "init", "-q")
    if remote is not None:
        git(root, "remote", "add", "origin", remote)
    return root


def warnings(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("Warning: site_url")]


def test_build_ends_with_the_next_step(store_root: Path, runner: Invoke) -> None:
    add(runner, "Use pnpm")
    done = runner("build")
    assert done.exit_code == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[-2].startswith("Built the portal of 1 entry (")  # one entry, in the singular
    assert lines[-1] == (
        "Next: browse it with `memsite serve` (its links need a web server), or publish the "
        "folder (`memsite gh-deploy`, or any static host)"
    )


@pytest.mark.parametrize(
    ("remote", "warned"),
    [
        ("https://github.com/acme/shop.git", True),
        ("git@github.com:acme/shop.git", True),
        ("https://github.com/acme/acme.github.io.git", False),  # a user site: at the root
        ("https://gitlab.com/acme/shop.git", False),
        (None, False),
    ],
)
def test_build_warns_once_when_a_pages_project_site_has_no_site_url(
    store_root: Path, runner: Invoke, remote: str | None, warned: bool
) -> None:
    project(store_root, remote)
    add(runner, "Use pnpm")
    done = runner("build", "--json")
    assert done.exit_code == 0, done.stderr  # a warning, not an error
    assert warnings(done.stderr) == ([WARNING] if warned else [])


def test_no_warning_once_site_url_is_set(store_root: Path, runner: Invoke) -> None:
    project(store_root, "https://github.com/acme/shop.git")
    add(runner, "Use pnpm")
    given = runner("build", env={"MEMSITE_SITE_URL": "https://acme.github.io/shop/"})
    assert given.exit_code == 0 and warnings(given.stderr) == []
    config = json.loads((store_root / "config.json").read_text(encoding="utf-8"))
    config["site"]["site_url"] = "https://acme.github.io/shop/"
    (store_root / "config.json").write_text(json.dumps(config), encoding="utf-8")
    assert warnings(runner("build").stderr) == []


def test_gh_deploy_warns_about_the_missing_site_url(
    store_root: Path, runner: Invoke, tmp_path: Path
) -> None:
    root = project(store_root, "https://github.com/acme/shop.git")
    bare = tmp_path / "pages.git"
    git(tmp_path, "init", "-q", "--bare", str(bare))
    # pushes go to the local bare repository; `git remote get-url` still names GitHub
    git(root, "config", f"url.{bare}.pushInsteadOf", "https://github.com/acme/shop.git")
    add(runner, "Use pnpm")
    done = runner("gh-deploy", env=GIT_ENV)
    assert done.exit_code == 0, done.stderr
    assert warnings(done.stderr) == [WARNING]
    assert done.stdout.strip() == "Published 1 entry to origin/gh-pages"
    assert "index.html" in git(bare, "ls-tree", "--name-only", "gh-pages").split()
