"""Bad input gives one actionable line (or a sensible result), never a traceback."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import click
import pytest

from tests.conftest import Invoke
from tests.portal.conftest import broken_links, copy_demo


def one_error(result: object) -> str:
    code = result.exit_code
    stderr = result.stderr
    assert code == 1, stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), stderr
    assert "Traceback" not in stderr
    return str(lines[0])


def set_site(store: Path, **site: object) -> None:
    (store / "config.json").write_text(json.dumps({"memory": {}, "site": site}), encoding="utf-8")


def test_missing_store(runner: Invoke, tmp_path: Path) -> None:
    line = one_error(runner("--store", str(tmp_path / "nowhere"), "build"))
    assert "no memory store" in line and "init" in line


def test_empty_store_gives_an_empty_portal(runner: Invoke, store_root: Path) -> None:
    result = runner("build")
    assert result.exit_code == 0, result.stderr
    site = store_root / "site"
    assert "The memory is empty" in (site / "index.html").read_text()
    assert broken_links(site) == []
    meta = json.loads((site / "search" / "meta.json").read_text())
    assert meta["documents"] == 0 and meta["shards"] == [""]
    assert (site / "timeline" / "index.html").is_file()


def test_unknown_site_key(runner: Invoke, store_root: Path) -> None:
    set_site(store_root, site_nmae="typo")
    assert "unknown key 'site.site_nmae'" in one_error(runner("build"))


@pytest.mark.parametrize(
    "nav",
    [
        [{"Evil": "javascript:alert(1)"}],
        [{"Two": "a", "Keys": "b"}],
        "not a list",
        [{"Quote": 'https://x.org/"onclick="y'}],
    ],
)
def test_bad_extra_nav(runner: Invoke, store_root: Path, nav: object) -> None:
    set_site(store_root, extra_nav=nav)
    assert "extra_nav" in one_error(runner("build"))


def test_site_settings_override_the_defaults(runner: Invoke, tmp_path: Path) -> None:
    store = copy_demo(tmp_path / "demo")
    set_site(
        store,
        site_name="Team memory",
        repo_url="https://github.com/acme/checkout",
        palette={"scheme": "slate", "primary": "teal"},
        extra_nav=[{"Source": "https://github.com/acme/checkout"}],
        copyright="© Acme",
    )
    assert runner("--store", str(store), "build", "--strict").exit_code == 0
    html = (store / "site" / "index.html").read_text()
    assert "<title>Team memory</title>" in html
    assert 'data-md-color-primary="teal"' in html
    assert 'href="https://github.com/acme/checkout"' in html
    assert "© Acme" in html


def test_strict_fails_on_a_mkdocs_warning(runner: Invoke, store_root: Path) -> None:
    set_site(store_root, extra_nav=[{"Missing": "missing.md"}])
    lenient = runner("build")
    assert lenient.exit_code == 0
    assert "Warning: " in lenient.stderr and "missing.md" in lenient.stderr
    line = one_error(runner("build", "--strict"))
    assert "missing.md" in line


def test_foreign_folder_is_never_cleaned(runner: Invoke, tmp_path: Path) -> None:
    target = tmp_path / "mine"
    target.mkdir()
    (target / "thesis.tex").write_text("precious")
    line = one_error(runner("build", "--site-dir", str(target)))
    assert "not empty" in line and "memsite did not create it" in line
    assert (target / "thesis.tex").read_text() == "precious"
    assert sorted(p.name for p in target.iterdir()) == ["thesis.tex"]


def test_own_folder_is_rebuilt_clean(runner: Invoke, tmp_path: Path) -> None:
    target = tmp_path / "site"
    assert runner("build", "--site-dir", str(target)).exit_code == 0
    (target / "stale.html").write_text("old")
    assert runner("build", "--site-dir", str(target)).exit_code == 0
    assert not (target / "stale.html").exists()
    assert (target / ".memsite-site").is_file()


def test_site_dir_is_a_file(runner: Invoke, tmp_path: Path) -> None:
    target = tmp_path / "file"
    target.write_text("x")
    assert "it is a file" in one_error(runner("build", "--site-dir", str(target)))


def test_site_dir_cannot_be_created(runner: Invoke, tmp_path: Path) -> None:
    blocker = tmp_path / "regular-file"
    blocker.write_text("x")
    line = one_error(runner("build", "--site-dir", str(blocker / "site")))
    assert "cannot write the site" in line and "Not a directory" in line


def test_port_in_use(runner: Invoke) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        line = one_error(runner("serve", "--port", str(port)))
    assert f"127.0.0.1:{port}" in line and "in use" in line and "--port" in line


def test_gh_deploy_outside_git(runner: Invoke) -> None:
    assert "not inside a git repository" in one_error(runner("gh-deploy"))


def test_every_portal_command_and_option_has_help(runner: Invoke) -> None:
    from memsite.cli.portal import COMMANDS

    assert sorted(c.name or "" for c in COMMANDS) == ["build", "gh-deploy", "serve"]
    for command in COMMANDS:
        assert command.help and len(command.help) > 40, command.name
        for param in command.params:
            if isinstance(param, click.Option):
                assert param.help, f"{command.name} {param.opts}"
        assert runner(str(command.name), "--help").exit_code == 0


@pytest.mark.parametrize(
    ("where", "said"),
    [
        (".memsite", "the memory store itself"),
        (".", "the repository root"),
        ("..", "a folder holding the store"),
        (".memsite/entries", "inside the store's entries/"),
        (".memsite/entries/site", "inside the store's entries/"),
    ],
)
def test_a_site_dir_that_would_replace_the_memory_is_refused(
    runner: Invoke, store_root: Path, where: str, said: str
) -> None:
    (store_root.parent / "README.md").write_text("the project's own file")
    assert runner("add", "A fact that must survive", "-c", "decisions").exit_code == 0
    before = sorted(p.name for p in (store_root / "entries").iterdir())
    line = one_error(runner("build", "--site-dir", str(store_root.parent / where)))
    assert f"it is {said}" in line and "choose a folder of its own with --site-dir" in line
    assert sorted(p.name for p in (store_root / "entries").iterdir()) == before
    assert (store_root.parent / "README.md").read_text() == "the project's own file"
    assert not (store_root / "entries" / "site").exists()
