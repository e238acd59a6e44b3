"""`memsite init --techdocs`: a repository's memory in an organisation's Backstage TechDocs.

Backstage shows a repository's MkDocs site on its catalog page and indexes the site's
``search/search_index.json`` into the organisation's search. TechDocs builds the site with
``techdocs-cli generate``, which keeps only allowlisted MkDocs plugins: ``--defaultPlugin
memsite`` lets memsite's through (a Backstage that builds the docs itself needs
``techdocs.generator.mkdocs.dangerouslyAllowAdditionalPlugins``). This module plans what a
repository needs, at its top:

- ``catalog-info.yaml`` with the ``backstage.io/techdocs-ref: dir:.`` annotation (written when
  absent; an existing catalog file is never touched: the plan says what to add);
- ``mkdocs.yml`` with ``plugins: [techdocs-core, memsite]`` and ``docs/index.md`` (written when
  absent; an existing ``mkdocs.yml`` is never rewritten: the plan gives the lines to add);
- ``.github/workflows/memsite-techdocs.yml``: on pushes to the default branch, generate and
  publish the site (``techdocs-cli publish`` to S3, GCS or Azure), memsite's own file.

An existing ``mkdocs.yml`` whose ``docs_dir`` leaves the repository (an absolute path, ``..``,
or a symlink out of it) is refused, as TechDocs refuses it. Planning reads; ``apply`` writes.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memsite.errors import InvalidInputError
from memsite.files import read_text, write_atomic
from memsite.portal.publish import HISTORY_FOR_ORIGINS, checkout_and_python
from memsite.version import __version__

CATALOG = "catalog-info.yaml"
MKDOCS = "mkdocs.yml"
DOCS_INDEX = "docs/index.md"
WORKFLOW = ".github/workflows/memsite-techdocs.yml"
ANNOTATION = "backstage.io/techdocs-ref: dir:."
TECHDOCS_PLUGIN = "techdocs-core"
# The versions the workflow installs: the ones memsite's end-to-end tests generate with.
TECHDOCS_CLI = "1.8.15"
TECHDOCS_CORE = "1.7.1"
SETUP_NODE = "actions/setup-node@49933ea5288caeca8642d1e84afbd3f7d6820020 # v4.4.0"
NEXT = (
    "Next: commit them, then set the repository variable TECHDOCS_BUCKET (and "
    "TECHDOCS_PUBLISHER_TYPE, TECHDOCS_ENTITY when not awsS3 and this repository's "
    "component) and the publisher's secrets. TechDocs keeps memsite's plugin only when told "
    "to: the workflow passes --defaultPlugin memsite; a Backstage that builds the docs itself "
    "needs techdocs.generator.mkdocs.dangerouslyAllowAdditionalPlugins: [memsite]"
)
PUBLISHERS = ("awsS3", "googleGcs", "azureBlobStorage", "openStackSwift")


@dataclass(frozen=True)
class Step:
    """One file of the plan: ``write`` it (``text``), leave it ``as_is`` (it holds what it
    needs), or ``advise`` (it exists and lacks something: ``advice`` says what to add)."""

    rel: str
    action: str
    text: str = ""
    advice: str = ""

    def shown(self) -> dict[str, str]:
        found = {"path": self.rel, "action": self.action}
        return found | ({"add": self.advice} if self.advice else {})


def entity_name(folder: str) -> str:
    """A catalog entity name from the repository's folder name (Backstage allows letters,
    digits and ``-_.``, 63 characters, starting and ending with a letter or digit)."""
    name = re.sub(r"[^A-Za-z0-9_.-]+", "-", folder).strip("-_.")[:63].strip("-_.")
    return name or "project"


def catalog_text(name: str) -> str:
    return f"""\
# This repository in a Backstage catalog (written by `memsite init --techdocs`). TechDocs
# builds its docs, the project memory included, from this folder (mkdocs.yml).
apiVersion: backstage.io/v1alpha1
kind: Component
metadata:
  name: {name}
  annotations:
    {ANNOTATION}
spec:
  type: service
  lifecycle: production
  owner: unknown  # the owning team's group, as your catalog names it
"""


def mkdocs_text(site_name: str, store: str | None) -> str:
    """``mkdocs.yml`` for TechDocs; ``store``: the store's path when the plugin would not
    find it by itself (the nearest .memsite/ from mkdocs.yml upwards)."""
    plugin = "  - memsite\n"
    if store is not None:
        plugin = f"  - memsite:\n      store: {json.dumps(store)}\n"
    return f"""\
# The docs TechDocs builds for this repository (written by `memsite init --techdocs`); the
# memsite plugin adds the project memory under memory/.
site_name: {json.dumps(site_name, ensure_ascii=False)}
docs_dir: docs
plugins:
  - {TECHDOCS_PLUGIN}
{plugin}"""


DOCS_TEXT = """\
# Documentation

The team's [project memory](memory/index.md): conventions, decisions and pitfalls, each fact
with its history, kept by memsite in `.memsite/`.
"""


# The workflow (``str.format`` fields in braces; GitHub's ``${{ }}`` doubled).
_WORKFLOW = """\
# Publishes this repository's TechDocs, the project memory included, to the object storage
# Backstage reads them from (written by `memsite init --techdocs`). Set the repository
# variables TECHDOCS_PUBLISHER_TYPE (awsS3, googleGcs, azureBlobStorage or openStackSwift),
# TECHDOCS_BUCKET and TECHDOCS_ENTITY (namespace/kind/name, default {entity}), or give them
# when running it by hand; the publisher's credentials come from the repository's secrets.
name: memsite techdocs

on:
  push:
    branches: [main]
  workflow_dispatch:
    inputs:
      publisher-type:
        description: "techdocs-cli publisher: {publishers}"
        required: false
        type: string
      bucket:
        description: The bucket or container the site goes to
        required: false
        type: string
      entity:
        description: The catalog entity, as namespace/kind/name
        required: false
        type: string

permissions: {{}}

concurrency:
  group: memsite-techdocs
  cancel-in-progress: false

jobs:
  publish:
    name: Generate and publish the TechDocs site
    runs-on: ubuntu-latest
    permissions:
      contents: read
    env:
      TECHDOCS_PUBLISHER_TYPE: {publisher_type}
      TECHDOCS_BUCKET: {bucket}
      TECHDOCS_ENTITY: {entity_setting}
    steps:
{setup}      - name: Set up Node.js
        uses: {setup_node}
        with:
          node-version: "22"
      - name: Install memsite and TechDocs' MkDocs plugins
        run: python -m pip install "memsite=={version}" "mkdocs-techdocs-core=={core}"
      - name: Generate
        # techdocs-cli keeps only allowlisted MkDocs plugins: --defaultPlugin lets memsite's in.
        run: >-
          npx --yes "@techdocs/cli@{cli}" generate --no-docker --defaultPlugin memsite
          --source-dir . --output-dir ./site
      - name: Publish
        env:
{secrets}
        run: |
          if [ -z "$TECHDOCS_BUCKET" ]; then
            echo "::error::Set the repository variable TECHDOCS_BUCKET (the bucket Backstage reads)"
            exit 1
          fi
          if [ -n "$GCS_KEY_JSON" ]; then  # googleGcs: a service account's JSON key
            export GOOGLE_APPLICATION_CREDENTIALS="$RUNNER_TEMP/gcs-key.json"
            printf '%s' "$GCS_KEY_JSON" > "$GOOGLE_APPLICATION_CREDENTIALS"
          fi
          set -- --publisher-type "$TECHDOCS_PUBLISHER_TYPE" --storage-name "$TECHDOCS_BUCKET"
          if [ "$TECHDOCS_PUBLISHER_TYPE" = azureBlobStorage ]; then
            # Without an account key the Azure SDK signs in with AZURE_TENANT_ID,
            # AZURE_CLIENT_ID and AZURE_CLIENT_SECRET.
            set -- "$@" --azureAccountName "$AZURE_ACCOUNT_NAME"
            if [ -n "$AZURE_ACCOUNT_KEY" ]; then
              set -- "$@" --azureAccountKey "$AZURE_ACCOUNT_KEY"
            fi
          fi
          npx --yes "@techdocs/cli@{cli}" publish "$@" --entity "$TECHDOCS_ENTITY" \\
            --directory ./site
"""


def workflow_text(entity: str) -> str:
    """The workflow generating the TechDocs site and publishing it to object storage."""
    return _WORKFLOW.format(
        entity=entity,
        publishers=", ".join(PUBLISHERS),
        publisher_type=_setting("publisher-type", "TECHDOCS_PUBLISHER_TYPE", "awsS3"),
        bucket=_setting("bucket", "TECHDOCS_BUCKET"),
        entity_setting=_setting("entity", "TECHDOCS_ENTITY", entity),
        setup=checkout_and_python(full_history=HISTORY_FOR_ORIGINS),
        setup_node=SETUP_NODE,
        version=__version__,
        core=TECHDOCS_CORE,
        cli=TECHDOCS_CLI,
        secrets=_secrets(),
    )


# The publishers' credentials, from the repository's secrets (each SDK's own variables; the
# GCS key is written to a file for GOOGLE_APPLICATION_CREDENTIALS).
SECRETS = (
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_REGION",
    "GCS_KEY_JSON",
    "AZURE_ACCOUNT_NAME",
    "AZURE_ACCOUNT_KEY",
    "AZURE_TENANT_ID",
    "AZURE_CLIENT_ID",
    "AZURE_CLIENT_SECRET",
)


def _secrets() -> str:
    return "\n".join(f"          {name}: ${{{{ secrets.{name} }}}}" for name in SECRETS)


def _setting(field: str, variable: str, default: str | None = None) -> str:
    """A GitHub expression: the run's input, else the repository variable, else ``default``."""
    fallback = "" if default is None else " || '" + default.replace("'", "''") + "'"
    return f"${{{{ inputs.{field} || vars.{variable}{fallback} }}}}"


# --- the plan ------------------------------------------------------------------------------


def _plugin_names(plugins: Any) -> list[str]:
    names: list[str] = []
    for item in plugins if isinstance(plugins, list) else []:
        if isinstance(item, str):
            names.append(item)
        elif isinstance(item, dict):
            names += [str(key) for key in item]
    return names


def _load_mkdocs(path: Path, text: str) -> dict[str, Any]:
    from mkdocs.utils.yaml import yaml_load  # mkdocs' own loader: !ENV and other tags

    try:
        data = yaml_load(text)
    except Exception as exc:  # yaml's errors and the tags' own: all mean "cannot read it"
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise InvalidInputError(f"{path} is not valid YAML ({first}): fix it first") from None
    if not isinstance(data, dict):
        raise InvalidInputError(f"{path} holds no MkDocs settings (a YAML mapping): fix it first")
    return data


def check_docs_dir(top: Path, docs_dir: Any) -> None:
    """Refuse a ``docs_dir`` outside the repository at ``top`` (as TechDocs does): absolute,
    through ``..``, or a symlink that leads out."""
    name = "docs" if docs_dir is None else docs_dir
    if not isinstance(name, str) or not name.strip():
        raise InvalidInputError(f"{MKDOCS}: docs_dir must be a folder name, got {name!r}")
    if os.path.isabs(name) or ".." in Path(name).parts:
        raise InvalidInputError(
            f"{MKDOCS}: docs_dir {name!r} leaves the repository, which TechDocs refuses: "
            "keep the docs in a folder of the repository"
        )
    real, inside = (top / name).resolve(), top.resolve()
    if real != inside and inside not in real.parents:
        raise InvalidInputError(
            f"{MKDOCS}: docs_dir {name!r} is a link to {real}, outside the repository, which "
            "TechDocs refuses: move the docs into the repository"
        )


def _mkdocs_steps(top: Path, site_name: str, store: str | None) -> list[Step]:
    path = top / MKDOCS
    text = read_text(path)
    if text is None:
        steps = [Step(MKDOCS, "write", mkdocs_text(site_name, store))]
        if (top / "docs").is_symlink():
            check_docs_dir(top, "docs")
        docs = read_text(top / DOCS_INDEX)
        steps.append(Step(DOCS_INDEX, "as_is" if docs is not None else "write", DOCS_TEXT))
        return steps
    data = _load_mkdocs(path, text)
    check_docs_dir(top, data.get("docs_dir"))
    present = _plugin_names(data.get("plugins"))
    missing = [name for name in (TECHDOCS_PLUGIN, "memsite") if name not in present]
    if not missing:
        return [Step(MKDOCS, "as_is")]
    lines = "\n".join(f"  - {name}" for name in missing)
    if store is not None and "memsite" in missing:
        lines = lines.replace("  - memsite", f"  - memsite:\n      store: {json.dumps(store)}")
    advice = f"plugins:\n{lines}" if "plugins" not in data else f"under plugins:\n{lines}"
    return [Step(MKDOCS, "advise", advice=advice)]


def _catalog_step(top: Path, name: str) -> Step:
    text = read_text(top / CATALOG)
    if text is None:
        return Step(CATALOG, "write", catalog_text(name))
    if re.search(r"backstage\.io/techdocs-ref\s*:", text):
        return Step(CATALOG, "as_is")
    return Step(CATALOG, "advise", advice=f"under metadata.annotations:\n    {ANNOTATION}")


def plan(top: Path, store_root: Path, site_name: str) -> list[Step]:
    """What the repository at ``top`` needs for TechDocs, its store at ``store_root``."""
    name = entity_name(top.resolve().name)
    rel = os.path.relpath(store_root, top).replace(os.sep, "/")
    store = None if rel == ".memsite" else rel
    steps = [_catalog_step(top, name), *_mkdocs_steps(top, site_name, store)]
    workflow = workflow_text(f"default/component/{name}")
    held = read_text(top / WORKFLOW)
    steps.append(Step(WORKFLOW, "as_is" if held == workflow else "write", workflow))
    return steps


def apply(top: Path, steps: Sequence[Step]) -> None:
    for step in steps:
        if step.action == "write":
            write_atomic(top / step.rel, step.text.encode("utf-8"))
