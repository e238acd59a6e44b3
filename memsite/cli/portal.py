"""CLI commands of the portal (build, serve, gh-deploy). Heavy imports stay inside commands."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from memsite.cli.kit import emit_json, get_memory, json_option, out, warn
from memsite.core.text import counted
from memsite.errors import ConfigError

if TYPE_CHECKING:
    from memsite.memory import Memory
    from memsite.portal.build import BuildResult

PROGRESS_FROM = 1000  # entries; smaller builds finish before progress would help


class _Progress:
    """A build's progress on stderr: a line as each step begins; for the entry pages, click's
    progress bar on a terminal, else (CI, a pipe) a plain line per quarter."""

    def __init__(self) -> None:
        self.tty = sys.stderr.isatty()
        self.bar: Any = None
        self.step = -1
        self.done = False  # the count reached its total (told again at the end: not redrawn)

    def stage(self, text: str) -> None:
        self._close()
        out(text, err=True)

    def count(self, done: int, total: int) -> None:
        if total < PROGRESS_FROM or self.done:
            return
        self.done = done >= total
        if not self.tty:
            step = done * 4 // total
            if step > self.step:
                self.step = step
                out(f"Entry pages {done:,} / {total:,}", err=True)
            return
        if self.bar is None:
            self.bar = click.progressbar(length=total, label="Entry pages", file=sys.stderr)
            self.bar.__enter__()
        self.bar.update(done - self.bar.pos)
        if done >= total:
            self._close()

    def _close(self) -> None:
        if self.bar is not None:
            self.bar.__exit__(None, None, None)
            self.bar = None


def _progress(memory: Memory, quiet: bool) -> _Progress | None:
    """The progress of a build of ``memory`` (none with --quiet or --json, or for a store
    small enough to be built before it would help)."""
    if quiet:
        return None
    try:
        with os.scandir(memory.store.entries_dir) as found:
            big = sum(1 for item in found if item.name.endswith(".json")) >= PROGRESS_FROM
    except OSError:
        big = False
    return _Progress() if big else None


def _rebuild_note(message: str) -> None:
    """What a build says when it cannot go on from the last one."""
    out(f"memsite: {message}", err=True)


def _site_url() -> str | None:
    """A site URL from the environment (the Pages workflow passes the one GitHub assigns)."""
    from memsite.core.urls import url_problem

    value = os.environ.get("MEMSITE_SITE_URL") or None
    why = url_problem(value) if value else None
    if why:
        raise ConfigError(f"$MEMSITE_SITE_URL {why}: set it to the site's http(s) URL, or unset it")
    return value


def _warn_site_url(memory: Memory, remote: str, site_url: str | None) -> None:
    """One line on stderr when a GitHub Pages project site has no site_url (not an error:
    the pages work without it)."""
    from memsite.portal.publish import site_url_warning

    message = site_url_warning(memory, remote, site_url)
    if message:
        warn(message)


def _refuse_markup(memory: Memory) -> None:
    """``build --strict``: one line per site setting that would have carried markup, then
    the error (``check`` lists the same)."""
    from memsite.core.siteconfig import markup_problems

    problems = markup_problems(memory.config.site)
    name = memory.store.config_path.name
    for problem in problems:
        out(f"{name}: {problem}", err=True)
    if problems:
        them = "it" if len(problems) == 1 else "them"
        raise ConfigError(
            f"{counted(len(problems), 'site setting')} in {name} would carry markup (listed "
            f"above): make {them} plain text, or build without --strict to show {them} escaped"
        )


@click.command()
@click.option(
    "--site-dir",
    metavar="DIR",
    help="Folder to build into (default: the store's site/). A non-empty folder that memsite "
    "did not create is never cleaned.",
)
@click.option(
    "--strict",
    is_flag=True,
    help="Fail on any MkDocs warning, and refuse while an entry holds a suspected secret.",
)
@click.option(
    "--releases",
    metavar="PATTERN",
    help="Add the memory at each git tag matching PATTERN (a glob such as 'v*'), under "
    "as-of/ (default: the config's site.releases; '' adds none).",
)
@click.option(
    "--clean",
    is_flag=True,
    help="Build the whole site from nothing (default: go on from the last build into the same "
    "folder, rewriting only what changed).",
)
@click.option("--quiet", "-q", is_flag=True, help="Print no progress, only the result.")
@json_option
@click.pass_context
def build(
    ctx: click.Context,
    site_dir: str | None,
    strict: bool,
    releases: str | None,
    clean: bool,
    quiet: bool,
    as_json: bool,
) -> None:
    """Build the memory portal: an MkDocs + Material site of every entry.

    Pages: home, categories, one per entry (with its supersession history and JSON), tags,
    timeline, review and search; index.md and llms.txt at the root for agents. Settings come
    from the config's "site" section; $MEMSITE_SITE_URL sets site_url when the config has none.
    With --releases, a page per release lists what changed and the facts active then.
    """
    from memsite.portal.build import build_site
    from memsite.portal.cache import PortalCache

    started = time.perf_counter()
    memory = get_memory(ctx)
    if strict:
        memory.refuse_unreviewed_secrets("memsite build --strict")
        _refuse_markup(memory)
    # The store's site/ (or a --site-dir inside the store) is never written through a link.
    target = memory.store.site_target(Path(site_dir) if site_dir else None)
    site_url = _site_url()
    shown = _progress(memory, quiet or as_json)
    _, _, result = build_site(
        memory,
        target,
        strict=strict,
        site_url=site_url,
        progress=shown.count if shown else None,
        cache=PortalCache(releases=releases),
        reuse=_rebuild_note,
        clean=clean,
        stage=shown.stage if shown else None,
    )
    _warn_site_url(memory, "origin", site_url)
    pattern = memory.config.site.get("releases") if releases is None else releases
    if pattern and not result.releases:
        warn(f"no git tag matches {pattern[:80]!r}: the portal has no release pages")
    _report(result, time.perf_counter() - started, as_json)


def _report(result: BuildResult, seconds: float, as_json: bool) -> None:
    """What `memsite build` says once the site is built."""
    if as_json:
        emit_json(
            {
                "site_dir": str(result.site_dir),
                "entries": result.entries,
                "pages": result.pages,
                "findings": result.findings,
                "releases": result.releases,
                "warnings": result.warnings,
                "seconds": round(seconds, 3),
            }
        )
        return
    for message in result.warnings:
        warn(message)
    out(
        f"Built the portal of {counted(result.entries, 'entry')} "
        f"({counted(result.pages, 'page')}) in {result.site_dir} in {seconds:.1f} s"
    )
    out(
        "Next: browse it with `memsite serve` (its links need a web server), or publish the "
        "folder (`memsite gh-deploy`, or any static host)"
    )


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option(
    "--port", type=click.IntRange(0, 65535), default=8000, show_default=True, help="Port."
)
@click.pass_context
def serve(ctx: click.Context, host: str, port: int) -> None:
    """Build the portal, serve it, and live-reload open pages when entries change.

    Watches entries/ and the config: a new or changed entry shows in the open browser within
    a couple of seconds; only the pages it touches are re-rendered. Ctrl-C stops. Requests
    must name the server in Host (its address, or localhost on a loopback one; else 421): a
    DNS-rebinding web page gets nothing.
    """
    from memsite.portal.serve import serve as run

    memory = get_memory(ctx)
    try:
        run(memory, host, port, out, lambda m: out(f"Error: {m}", err=True), warn=warn)
    except KeyboardInterrupt:
        out("Stopped.")


@click.command(name="gh-deploy")
@click.option("--remote", default="origin", show_default=True, help="Git remote to push to.")
@click.option("--branch", default="gh-pages", show_default=True, help="Branch to publish to.")
@click.option("--message", "-m", help="Commit message of the published site.")
@click.option("--force", is_flag=True, help="Force-push the branch (replacing its history).")
@json_option
@click.pass_context
def gh_deploy(
    ctx: click.Context, remote: str, branch: str, message: str | None, force: bool, as_json: bool
) -> None:
    """Build the portal and publish it to the gh-pages branch (ghp-import), like mkdocs.

    Nothing is pushed when the build fails. The site of a public repository is public.
    """
    from memsite.portal.publish import gh_deploy as deploy

    memory, site_url = get_memory(ctx), _site_url()
    _warn_site_url(memory, remote, site_url)
    done = deploy(
        memory,
        remote=remote,
        branch=branch,
        message=message,
        force=force,
        site_url=site_url,
        reuse=_rebuild_note,
    )
    if as_json:
        emit_json(
            {
                "status": "deployed",
                "remote": done.remote,
                "branch": done.branch,
                "site_dir": str(done.site_dir),
                "entries": done.entries,
            }
        )
    else:
        out(f"Published {counted(done.entries, 'entry')} to {done.remote}/{done.branch}")


COMMANDS: list[click.Command] = [build, serve, gh_deploy]
