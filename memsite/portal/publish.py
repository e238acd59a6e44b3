"""Publishing the portal: the GitHub Pages workflow, and ``gh-deploy`` to a ``gh-pages`` branch.

``pages_workflow`` is the text of ``.github/workflows/memsite-pages.yml`` that
``memsite init --github-pages`` writes: build with ``--strict`` in one job (read-only token,
no persisted credentials), deploy with ``actions/deploy-pages`` in another (the only job that
may write to Pages). ``gh_deploy`` builds and pushes the site with ghp-import, as
``mkdocs gh-deploy`` does, and refuses when the build fails.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from memsite.core.text import one_line
from memsite.errors import MemsiteError
from memsite.files import write_atomic
from memsite.memory import repository
from memsite.version import __version__

if TYPE_CHECKING:
    from memsite.memory import Memory

WORKFLOW_PATH = ".github/workflows/memsite-pages.yml"
# The portal shows the commit that added each fact: a shallow clone would name its one
# commit for all of them, and a build would draw every page again at every push.
HISTORY_FOR_ORIGINS = "for the commit that added each fact"
# Actions pinned to full commit hashes (a tag can be moved); the comment names the release.
ACTIONS = {
    "checkout": "actions/checkout@11bd71901bbe5b1630ceea73d27597364c9af683 # v4.2.2",
    "setup-python": "actions/setup-python@a26af69be951a213d495a4c3e4e4022e16d87065 # v5.6.0",
    "cache": "actions/cache@5a3ec84eff668545956fd18022155c47e93e2684 # v4.2.3",
    "configure-pages": "actions/configure-pages@983d7736d9b0ae728b81ab479565c72886d7745b # v5.0.0",
    "upload-pages-artifact": (
        "actions/upload-pages-artifact@56afc609e74202658d3ffba0e8f6dda462b719fa # v3.0.1"
    ),
    "deploy-pages": "actions/deploy-pages@d6db90164ac5ed86f2b6aed7e0febac5b3c0c03e # v4.0.5",
}


def checkout_and_python(*, full_history: str = "") -> str:
    """A workflow's first two steps: check out without persisted credentials (``full_history``:
    every commit, for the reason it names), then Python."""
    name = f"Check out (full history, {full_history})" if full_history else "Check out"
    depth = "          fetch-depth: 0\n" if full_history else ""
    return f"""\
      - name: {name}
        uses: {ACTIONS["checkout"]}
        with:
{depth}          persist-credentials: false
      - name: Set up Python
        uses: {ACTIONS["setup-python"]}
        with:
          python-version: "3.12"
"""


def _yaml_str(value: str) -> str:
    """A YAML double-quoted scalar (JSON string syntax is valid YAML)."""
    return json.dumps(value, ensure_ascii=False)


def _store_and_paths(store_rel: str, workflow: str) -> tuple[str, str]:
    """The store's path as the workflow names it, and the YAML list of the paths whose
    changes trigger the workflow (the store's entries and config, and the workflow itself)."""
    store = store_rel.replace("\\", "/").strip("/") or "."
    prefix = "" if store == "." else f"{store}/"
    paths = "\n".join(
        f"      - {_yaml_str(p)}" for p in (f"{prefix}entries/**", f"{prefix}config.json", workflow)
    )
    return store, paths


def pages_workflow(store_rel: str) -> str:
    """The GitHub Actions workflow publishing the portal of the store at ``store_rel``."""
    store, paths = _store_and_paths(store_rel, WORKFLOW_PATH)
    prefix = "" if store == "." else f"{store}/"
    config = "'" + f"{prefix}config.json".replace("'", "''") + "'"  # an expression's string
    return f"""\
# Publishes the memsite memory portal to GitHub Pages (written by `memsite init --github-pages`).
# Settings > Pages > Source must be "GitHub Actions". A Pages site of a public repository is
# public: everything in the memory is published (suspected secrets are redacted).
name: memsite portal

on:
  push:
    branches: [main]
    paths:
{paths}
  workflow_dispatch:

permissions: {{}}

concurrency:
  group: memsite-pages
  cancel-in-progress: false

jobs:
  build:
    name: Build the portal
    runs-on: ubuntu-latest
    permissions:
      contents: read
    steps:
{checkout_and_python(full_history=HISTORY_FOR_ORIGINS)}      - name: Install memsite
        run: python -m pip install "memsite=={__version__}"
      - name: Configure Pages
        id: pages
        uses: {ACTIONS["configure-pages"]}
      # The last run's site, build state and findings memo: the build rewrites only what
      # changed and reviews again only the categories that changed. Whatever the checkout
      # holds in the cache folder goes first: these are believed from another clone only
      # when this workflow restored them (MEMSITE_CACHE_RESTORED). The rest of cache/ is
      # bound to the clone that made it, and is not kept.
      - name: Clear the checkout's cache folder
        env:
          MEMSITE_STORE_PATH: {_yaml_str(store)}
        run: rm -rf "$MEMSITE_STORE_PATH/cache"
      - name: Restore the last build
        uses: {ACTIONS["cache"]}
        with:
          path: |
            {prefix}cache/build-*.marshal
            {prefix}cache/findings.marshal
            ${{{{ runner.temp }}}}/memsite-site
          key: memsite-{__version__}-${{{{ hashFiles({config}) }}}}-${{{{ github.sha }}}}
          restore-keys: |
            memsite-{__version__}-${{{{ hashFiles({config}) }}}}-
      - name: Build
        env:
          MEMSITE_STORE_PATH: {_yaml_str(store)}
          MEMSITE_SITE_URL: ${{{{ steps.pages.outputs.base_url }}}}
          MEMSITE_CACHE_RESTORED: "1"
        run: >-
          memsite --store "$MEMSITE_STORE_PATH" build --strict
          --site-dir "$RUNNER_TEMP/memsite-site"
      - name: Upload the site
        uses: {ACTIONS["upload-pages-artifact"]}
        with:
          path: ${{{{ runner.temp }}}}/memsite-site

  deploy:
    name: Deploy to GitHub Pages
    needs: build
    runs-on: ubuntu-latest
    permissions:
      pages: write
      id-token: write
    environment:
      name: github-pages
      url: ${{{{ steps.deployment.outputs.page_url }}}}
    steps:
      - name: Deploy
        id: deployment
        uses: {ACTIONS["deploy-pages"]}
"""


@dataclass
class Deployed:
    site_dir: Path
    remote: str
    branch: str
    entries: int


CHECK_WORKFLOW_PATH = ".github/workflows/memsite-check.yml"


def check_workflow(store_rel: str) -> str:
    """The GitHub Actions workflow running `memsite check` on pull requests that add facts."""
    store, paths = _store_and_paths(store_rel, CHECK_WORKFLOW_PATH)
    return f"""\
# Checks the facts a pull request adds to the memsite memory (written by
# `memsite init --github-check`): malformed files, suspected secrets, duplicates of active
# facts, forks and possible conflicts fail the check.
name: memsite check

on:
  pull_request:
    paths:
{paths}

permissions: {{}}

jobs:
  check:
    name: Check new facts
    runs-on: ubuntu-latest
    permissions:
      contents: read
    steps:
{checkout_and_python(full_history="to find the merge base")}      - name: Install memsite
        run: python -m pip install "memsite=={__version__}"
      - name: Check
        env:
          MEMSITE_STORE_PATH: {_yaml_str(store)}
          BASE_REF: ${{{{ github.base_ref }}}}
        run: memsite --store "$MEMSITE_STORE_PATH" check --base "origin/$BASE_REF"
"""


def write_pages_workflow(memory: Memory) -> str:
    """Write ``.github/workflows/memsite-pages.yml`` at the top of the repository."""
    return _write_workflow(memory, WORKFLOW_PATH, pages_workflow)


def write_check_workflow(memory: Memory) -> str:
    """Write ``.github/workflows/memsite-check.yml`` at the top of the repository."""
    return _write_workflow(memory, CHECK_WORKFLOW_PATH, check_workflow)


def pattern_characters(store_rel: str) -> str:
    """The characters of ``store_rel`` that a workflow cannot name as they are ("": none).
    Its path filters, ``actions/cache`` paths and ``hashFiles()`` read their paths as glob
    patterns (``* ? [ ] ! { }``, a backslash, and ``+(`` or ``@(`` groups), and a control
    character would end a YAML line: quoting cannot make them plain there."""
    found = {c for c in store_rel if c in "*?[]!{}\\" or ord(c) < 32 or ord(c) == 127}
    found |= {c for c in ("+(", "@(") if c in store_rel}
    return "".join(sorted(found))


def _write_workflow(memory: Memory, name: str, text: Callable[[str], str]) -> str:
    top = memory.project_top()
    path = top / name
    store_rel = os.path.relpath(memory.store.root, top)
    odd = pattern_characters(store_rel.replace(os.sep, "/"))
    if odd:
        raise MemsiteError(
            f"cannot write {name}: the store's path {store_rel!r} holds {odd!r}, which GitHub "
            "Actions reads as patterns in path filters, cache paths and hashFiles(); move the "
            "store to a plain path (memsite --store PATH) or write the workflow by hand"
        )
    write_atomic(path, text(store_rel).encode("utf-8"))
    return str(path)


def site_url_warning(memory: Memory, remote: str, site_url: str | None) -> str | None:
    """Why the portal needs ``site_url`` when it is set nowhere (the config, ``site_url``
    from $MEMSITE_SITE_URL) and git ``remote`` is a GitHub repository with a project site,
    which Pages serves under a sub-path: the feed and the sitemap need the address. None
    when it is set, or the site is not such a project site."""
    from memsite.core.urls import pages_project_url

    if memory.config.site.get("site_url") or site_url:
        return None
    try:
        url = repository(memory.store.project_root).remote_url(remote)
    except MemsiteError:  # not in a git repository: no Pages site to speak of
        return None
    address = pages_project_url(url) if url else None
    if address is None:
        return None
    config = os.path.relpath(memory.store.config_path, memory.store.project_root)
    return (
        f"site_url is not set, and GitHub Pages serves this project's site under a sub-path "
        f"({address}): its feed and sitemap need it; set site_url to {address} in "
        f"the site settings of {config}, or $MEMSITE_SITE_URL"
    )


def gh_deploy(
    memory: Memory,
    *,
    remote: str = "origin",
    branch: str = "gh-pages",
    message: str | None = None,
    force: bool = False,
    site_url: str | None = None,
    reuse: Callable[[str], None] | None = None,
) -> Deployed:
    """Build the portal (any failure stops here) and push it to ``branch`` with ghp-import.
    ``reuse``: go on from the last build into the store's site/, as `memsite build` does
    (and leave a state the next build goes on from); it gets the line why not."""
    import ghp_import

    from memsite.portal.build import build_site

    repo = repository(memory.store.project_root)
    if not repo.has_remote(remote):
        raise MemsiteError(
            f"git remote {remote!r} does not exist: add it (git remote add {remote} URL) "
            "or pass --remote"
        )
    memory.refuse_unreviewed_secrets("memsite gh-deploy")
    site_dir = memory.store.site_target()  # refused while site/ is, or holds, a link
    _, _, result = build_site(memory, site_dir, site_url=site_url, reuse=reuse)
    mesg = message or (
        f"Deploy the memsite portal ({result.entries} entries) with memsite {__version__}"
    )
    try:
        with contextlib.chdir(repo.top):
            ghp_import.ghp_import(
                str(site_dir), mesg=mesg, remote=remote, branch=branch, push=False, nojekyll=True
            )
    except ghp_import.GhpError as exc:
        raise MemsiteError(f"gh-deploy failed: {one_line(str(exc.message))[:300]}") from None
    try:
        repo.push(remote, branch, force=force)
    except MemsiteError as exc:
        raise MemsiteError(f"gh-deploy failed to push {branch} to {remote}: {exc}") from None
    return Deployed(site_dir, remote, branch, result.entries)
