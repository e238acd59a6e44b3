"""``memsite serve``: build, serve over HTTP, re-render what an entry change touches, reload.

The built site lives in the store's ``cache/serve-site/``. A threaded HTTP server serves it
and adds a small script to every HTML page that long-polls ``/livereload/<epoch>``; the answer
comes when a rebuild finishes, and the page reloads itself. watchdog watches ``entries/`` and
the config file. A change in ``entries/`` is an incremental update: rescan (cached), compact,
then re-render and rewrite only the pages whose data changed; the search index and the review
findings follow in a background thread. A config change rebuilds everything. A request
whose Host or Origin names another server is refused (memsite.core.hosts: DNS rebinding).
"""

from __future__ import annotations

import contextlib
import errno
import gc
import os
import re
import socket
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from watchdog.events import FileSystemEventHandler

from memsite.core.hosts import WILDCARDS, host_allowed, one_value, origin_allowed, served
from memsite.core.review import Finding
from memsite.errors import MemsiteError
from memsite.memory import Memory
from memsite.portal.build import build_site
from memsite.portal.cache import PortalCache
from memsite.portal.derive import secret_ids
from memsite.portal.gather import findings as gather_findings
from memsite.portal.gather import portal_for
from memsite.portal.model import Portal
from memsite.portal.searchdata import search_files
from memsite.portal.site import Site

_WRITES = frozenset({"created", "modified", "deleted", "moved", "closed"})
POLL_SECONDS = 25.0
STOP_SECONDS = 5.0  # Ctrl-C's wait for the follow-up to leave the read model (see _quiet)
QUIET_SECONDS = 0.1
_LIVERELOAD_RE = re.compile(r"/livereload/(\d+)\Z")
_SCRIPT = (
    "<script>(function(){var epoch=%d;function poll(){"
    'fetch("/livereload/"+epoch,{cache:"no-store"}).then(function(r){return r.text()})'
    ".then(function(t){if(parseInt(t,10)>epoch){location.reload()}else{poll()}})"
    ".catch(function(){setTimeout(poll,1000)})}"
    'if(document.readyState==="complete"){poll()}else{window.addEventListener("load",poll)}'
    "})();</script>"
)


class Reloader:
    """The site's version: bumped after every rebuild; long polls wait for a newer one."""

    def __init__(self) -> None:
        self.epoch = 1
        self._cond = threading.Condition()
        self.idle = threading.Event()
        self.idle.set()

    def bump(self) -> None:
        with self._cond:
            self.epoch += 1
            self._cond.notify_all()

    def wait_newer(self, seen: int, timeout: float) -> int:
        with self._cond:
            self._cond.wait_for(lambda: self.epoch > seen, timeout=timeout)
            return self.epoch


class PortalServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, host: str, port: int, root: Path, reloader: Reloader) -> None:
        self.root = root
        self.reloader = reloader
        super().__init__((host, port), _Handler)
        # The bound port (0 asks for any): a Host must name it, so a rebinding page is refused.
        self.serving = served(host, int(self.server_address[1]), socket.gethostname())

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A browser that leaves a page mid-answer (live-reload polls do) is not an error."""
        kind = sys.exc_info()[0]
        if kind is not None and issubclass(kind, ConnectionError | TimeoutError):
            return
        super().handle_error(request, client_address)


class _Handler(SimpleHTTPRequestHandler):
    server: PortalServer

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, directory=str(args[2].root), **kwargs)

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the terminal shows rebuilds, not every request."""

    def parse_request(self) -> bool:
        """Refuse, before any method runs, a request whose Host names another server (a
        DNS-rebinding page's) or that a page of another site sends (Origin)."""
        if not super().parse_request():
            return False
        host = one_value(self.headers.get_all("Host"))
        origin = one_value(self.headers.get_all("Origin"))
        if not host_allowed(host, self.server.serving):
            self.send_error(HTTPStatus.MISDIRECTED_REQUEST, "Host names another server")
            return False
        if not origin_allowed(origin, self.server.serving):
            self.send_error(HTTPStatus.FORBIDDEN, "Cross-origin requests are refused")
            return False
        return True

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-cache")
        super().end_headers()

    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0].split("#", 1)[0]
        match = _LIVERELOAD_RE.match(path)
        if match:
            epoch = self.server.reloader.wait_newer(int(match.group(1)), POLL_SECONDS)
            self._send(HTTPStatus.OK, "text/plain; charset=utf-8", str(epoch).encode())
            return
        self.server.reloader.idle.wait(timeout=30)
        target = Path(self.translate_path(path))
        if target.is_dir() and path.endswith("/"):
            target = target / "index.html"
        if not target.exists() and (self.server.root / "404.html").is_file():
            target = self.server.root / "404.html"  # Material's not-found page
            status = HTTPStatus.NOT_FOUND
        else:
            status = HTTPStatus.OK
        if target.suffix == ".html" and target.is_file():
            try:
                html = target.read_bytes()
            except OSError:
                self.send_error(HTTPStatus.NOT_FOUND)
                return
            script = (_SCRIPT % self.server.reloader.epoch).encode()
            cut = html.rfind(b"</body>")
            html = html[:cut] + script + html[cut:] if cut >= 0 else html + script
            self._send(status, "text/html; charset=utf-8", html)
            return
        super().do_GET()

    def _send(self, status: HTTPStatus, content_type: str, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def bind(host: str, port: int, root: Path, reloader: Reloader) -> PortalServer:
    """Open the listening socket now, so a taken port fails before any build work."""
    try:
        return PortalServer(host, port, root, reloader)
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise MemsiteError(
                f"cannot serve on {host}:{port}: the port is in use; choose another with --port"
            ) from None
        raise MemsiteError(f"cannot serve on {host}:{port}: {exc.strerror or exc}") from None


@dataclass
class Session:
    """The state `serve` keeps between rebuilds."""

    memory: Memory
    site: Site
    portal: Portal
    findings: list[Finding]
    cache: PortalCache
    site_url: str
    config_bytes: bytes
    lock: threading.Lock = field(default_factory=threading.Lock)
    generation: int = 0


def _url(host: str, port: int) -> str:
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/"


def _site_url(host: str, port: int) -> str:
    """The URL links are built for: a wildcard address is reached as localhost here."""
    return _url("localhost" if host in WILDCARDS else host, port)


def cold_build(memory: Memory, site_dir: Path, site_url: str, cache: PortalCache) -> Session:
    memory = memory.reopen(remember=True)  # unchanged entries keep their objects from now on
    site, portal, _ = build_site(memory, site_dir, site_url=site_url, cache=cache, swap=False)
    findings = [
        Finding(f.kind, tuple(e.id for e in f.entries), f.files, f.message) for f in portal.findings
    ]
    return Session(memory, site, portal, findings, cache, site_url, memory.store.config_bytes())


def update(session: Session, log: Callable[[str], None]) -> Session:
    """Rebuild after a change: everything if the config changed, else what changed."""
    started = time.perf_counter()
    store = session.memory.store
    if store.config_bytes() != session.config_bytes:
        memory = session.memory.reopen()
        with session.lock:
            fresh = cold_build(memory, session.site.site_dir, session.site_url, PortalCache())
        log(f"Config changed: rebuilt everything in {time.perf_counter() - started:.1f} s")
        return fresh
    memory = session.memory.reopen(remember=True)
    # The rebuild makes a million short-lived objects (every entry read again) next to the
    # millions the session keeps: the collector's passes over them cost a quarter of it. What
    # little cyclic garbage it leaves is collected once it is done.
    gc.disable()
    try:
        portal = portal_for(memory, session.cache, session.findings)
        with session.lock:
            changed = session.site.update(portal)
    finally:
        gc.enable()
    session.memory = memory
    session.portal = portal
    session.generation += 1
    log(f"Rebuilt {changed} files in {time.perf_counter() - started:.2f} s")
    return session


def background(session: Session) -> None:
    """The slower follow-ups of a rebuild: the search index, the review's findings (full
    secret scan)."""
    generation = session.generation
    memory, portal = session.memory, session.portal
    files = search_files(portal)
    with session.lock:
        if generation != session.generation:
            return
        session.site.write_search(files, atomic=True)
    findings = gather_findings(memory)
    rescan = bool(secret_ids(findings) - secret_ids(session.findings))
    with session.lock:
        if generation != session.generation:
            return
        # Rare: the full scan found more than the last one; those entries are redacted anew.
        portal = portal_for(memory, session.cache, findings)
        session.findings = findings
        session.portal = portal
        session.site.update(portal)
        if rescan:
            session.site.write_search(search_files(portal), atomic=True)


class _Watch(FileSystemEventHandler):
    """watchdog handler: notes that entries/ or the config changed."""

    def __init__(self, entries_dir: Path, config_path: Path) -> None:
        super().__init__()
        self.entries_dir = str(entries_dir)
        self.config_path = str(config_path)
        self.cond = threading.Condition()
        self.dirty = False
        self.last = 0.0

    def relevant(self, path: str) -> bool:
        if path == self.config_path:
            return True
        folder, _, name = path.rpartition("/")
        return folder == self.entries_dir and name.endswith(".json") and not name.startswith(".")

    def dispatch(self, event: Any) -> None:
        # Reads show up too (opened, closed_no_write): the rebuild's own scan must not count.
        if event.is_directory or event.event_type not in _WRITES:
            return
        paths = [event.src_path, getattr(event, "dest_path", "")]
        if not any(self.relevant(os.fsdecode(p)) for p in paths if p):
            return
        with self.cond:
            self.dirty = True
            self.last = time.monotonic()
            self.cond.notify_all()

    def mark(self) -> None:
        """A change seen otherwise (before the observer started)."""
        with self.cond:
            self.dirty = True
            self.last = time.monotonic()
            self.cond.notify_all()

    def wait_change(self) -> None:
        """Block until a relevant change has been followed by a quiet moment."""
        with self.cond:
            while not self.dirty:
                self.cond.wait(timeout=0.5)
            while time.monotonic() - self.last < QUIET_SECONDS:
                self.cond.wait(timeout=QUIET_SECONDS)
            self.dirty = False


def _stat_state(store: Any) -> list[tuple[int, int, int] | None]:
    """What a change of entries/ (a file added, removed or renamed in) or of the config
    changes: inode, mtime and ctime of each."""
    found: list[tuple[int, int, int] | None] = []
    for path in (store.entries_dir, store.config_path):
        try:
            info = os.stat(path)
        except OSError:
            found.append(None)
        else:
            found.append((info.st_ino, info.st_mtime_ns, info.st_ctime_ns))
    return found


def _watch(store: Any) -> tuple[_Watch, Any]:
    """A started watchdog observer of entries/ and the config file's folder."""
    from watchdog.observers import Observer

    watch = _Watch(store.entries_dir, store.config_path)
    observer = Observer()
    observer.schedule(watch, str(store.entries_dir), recursive=False)
    observer.schedule(watch, str(store.config_path.parent), recursive=False)
    observer.daemon = True
    observer.start()
    return watch, observer


def _loop(
    box: dict[str, Session],
    watch: _Watch,
    reloader: Reloader,
    log: Callable[[str], None],
    error: Callable[[str], None],
    busy: threading.Lock,
) -> None:
    """Rebuild after every change, forever; the follow-ups run on another thread (holding
    ``busy`` while they work)."""
    pending = threading.Event()
    helper = threading.Thread(
        target=_follow_up, args=(box, pending, error, busy), name="memsite-follow-up", daemon=True
    )
    helper.start()
    while True:
        watch.wait_change()
        reloader.idle.clear()
        try:
            box["session"] = update(box["session"], log)
        except MemsiteError as exc:
            error(str(exc))
            continue
        finally:
            reloader.idle.set()
        reloader.bump()
        pending.set()


def serve(
    memory: Memory,
    host: str,
    port: int,
    log: Callable[[str], None],
    error: Callable[[str], None],
    *,
    warn: Callable[[str], None] | None = None,
    ready: Callable[[str], None] | None = None,
) -> None:
    """Build, serve and rebuild on changes until interrupted (Ctrl-C).

    Ctrl-C stops at once whatever runs: the rebuild is in this thread (interrupted where it
    stands), the HTTP server, the watcher and the follow-up are daemon threads that are not
    waited for beyond a moment.
    """
    store = memory.store
    site_dir = store.writable(store.serve_dir, tree=True)  # never through a link in cache/
    reloader = Reloader()
    server = bind(host, port, site_dir, reloader)
    bound = int(server.server_address[1])  # the real port when 0 was asked
    url = _site_url(host, bound)
    if host in WILDCARDS:
        (warn or error)(
            f"--host {host or '(all)'} serves the portal to every machine that can reach this "
            "one, with everything in the memory; use --host 127.0.0.1 to keep it local"
        )
    observer: Any = None
    thread: threading.Thread | None = None
    busy = threading.Lock()
    try:
        started = time.perf_counter()
        # The observer starts after the first build (a running thread would keep the build
        # from forking); what changed meanwhile shows in the folders' stat, taken before.
        before = _stat_state(store)
        session = cold_build(memory, site_dir, url, PortalCache())
        log(f"Built {len(session.portal.entries)} entries in {time.perf_counter() - started:.1f} s")
        watch, observer = _watch(store)
        if _stat_state(store) != before:
            watch.mark()  # written during the first build: the loop takes it in at once
        # Said before the first answer (the socket is bound; early requests wait in its
        # backlog), so whoever sees the portal answer has seen this line too.
        shown = _url(host or "0.0.0.0", bound)
        log(f"Serving {shown} (watching {store.entries_dir}; Ctrl-C to stop)")
        thread = threading.Thread(
            target=server.serve_forever, args=(0.1,), name="memsite-http", daemon=True
        )
        thread.start()
        if ready is not None:
            ready(url)
        _loop({"session": session}, watch, reloader, log, error, busy)
    finally:
        if observer is not None:
            observer.stop()
        if thread is not None:
            server.shutdown()
        server.server_close()
        if isinstance(sys.exc_info()[1], KeyboardInterrupt):
            _quiet(busy, log)


def _quiet(busy: threading.Lock, log: Callable[[str], None]) -> None:
    """Wait for the follow-up to leave the read model (``busy``, then kept), whose database
    the exit closes (under a reader, SQLite crashes); else end here, without that clean-up."""
    with contextlib.suppress(KeyboardInterrupt):  # a second Ctrl-C: end here
        if busy.acquire(timeout=STOP_SECONDS):
            return
    log("Stopped.")
    sys.stdout.flush()  # (stderr writes through)
    os._exit(0)  # the follow-up still reads the database: no exit clean-up under it


def _follow_up(
    box: dict[str, Session],
    pending: threading.Event,
    error: Callable[[str], None],
    busy: threading.Lock,
) -> None:
    """The background worker: after each rebuild, the search index and the review findings."""
    while True:
        pending.wait()
        pending.clear()
        try:
            with busy:
                background(box["session"])
        except MemsiteError as exc:
            error(str(exc))
