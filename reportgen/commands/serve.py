"""`reportgen serve`: the built site on localhost (it needs nothing from outside)."""
import contextlib
import errno
import functools
import hashlib
import http.server
import io
import os
import re
import urllib.parse
from pathlib import Path

from reportgen.data import plainfile
from reportgen.errors import ReportError
from reportgen.publish.plugin import PAGE_CSP
from reportgen.publish.sitecheck import PDF_OUTPUTS

TEXT_TYPES = {".log": "text/plain; charset=utf-8", ".jsonl": "text/plain; charset=utf-8",
              ".txt": "text/plain; charset=utf-8"}
"""Raw records and logs are shown as text in the browser, not offered as downloads."""


TIMEOUT_S = 30
"""A connection idle this long is closed (a client that never finishes its request holds nothing)."""
HEAD_DEADLINE_S = 30
"""The whole request head (its line and headers) arrives within this many seconds of the connection, or the
connection is closed: TIMEOUT_S bounds each read only, and a client sending a byte every 29 s kept one for days."""
MAX_CONNECTIONS = 64
"""Connections served at once; one more is closed at once (each holds a thread)."""

CSP = PAGE_CSP + "; frame-ancestors 'none'"
"""Every response: nothing is loaded from elsewhere, and no plugin or frame runs (the pages carry
the same policy as a meta element for static hosting; frame-ancestors only works as a header)."""


class Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, **TEXT_TYPES}
    timeout = TIMEOUT_S

    def setup(self):
        super().setup()
        import socket
        import threading

        self._cut = False

        def cut():
            self._cut = True   # what was read so far is no request: never answered
            try:
                self.connection.shutdown(socket.SHUT_RDWR)   # the blocked read returns, the handler ends
            except OSError:
                pass
        self._deadline = threading.Timer(HEAD_DEADLINE_S, cut)
        self._deadline.daemon = True
        self._deadline.start()

    def parse_request(self):
        parsed = not self._cut and super().parse_request()   # the request line is in; this reads the headers
        self._deadline.cancel()   # the head is in: the response is the server's to send
        if self._cut:
            self.close_connection = True
            return False
        return parsed

    def finish(self):
        self._deadline.cancel()
        super().finish()

    def end_headers(self):
        self.send_header("Content-Security-Policy", CSP)
        self.send_header("X-Content-Type-Options", "nosniff")
        super().end_headers()

    def send_error(self, code, message=None, explain=None):
        """A missing page gets the site's own 404 page, not a bare 'Error response'."""
        body = self._listed_bytes("404.html") if code == 404 else None
        if body is not None:
            self.send_response(404, message)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)
            return
        super().send_error(code, message, explain)

    def send_head(self):
        """Only a file the build listed, with the bytes it listed (site-files.json, read at start): a
        page or script planted or changed while the server runs is not found.  A path the file system
        cannot name (a %00 in it) is a bad request, not a traceback; a path through a symlink, or one
        that resolves outside the site, is not found."""
        try:
            path = Path(self.translate_path(self.path))
            # a folder is answered with its index.html or index.htm: those are checked too (a link or
            # a hard link planted as sub/index.html served a file from outside)
            if not all(_inside_site(Path(self.directory), p) for p in (path, path / "index.html", path / "index.htm")):
                self.send_error(404, "not found")
                return None
            if path.is_dir():
                if not self.path.split("?", 1)[0].split("#", 1)[0].endswith("/"):
                    # to the folder's URL as the site names it, never the request's own path: http.server echoes
                    # it, and '/\\evil.example/../assets' sent a browser to http://evil.example/assets/
                    rel = path.relative_to(self.directory).as_posix()
                    self.send_response(301)
                    self.send_header("Location", urllib.parse.quote("/" if rel == "." else f"/{rel}/"))
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return None
                path = next((path / name for name in ("index.html", "index.htm") if (path / name).is_file()), path)
            body = self._listed_bytes(path.relative_to(self.directory).as_posix())
        except ValueError:
            self.send_error(400, "bad path")
            return None
        except OSError as exc:   # a name too long for the file system (ENAMETOOLONG), a path through a file
            self.log_message("%s: %s; not found", self.path[:200], exc.strerror or type(exc).__name__)
            self.send_error(404, "not found")
            return None
        if body is None:
            self.send_error(404, "not found")
            return None
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(str(path)))
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        return io.BytesIO(body)

    def _listed_bytes(self, rel):
        """The bytes of site file ``rel`` if the build listed it and they still hash to what it listed
        (and it is a plain file of one name: _own_file), else None.  serve answers only from its private
        copy, checked at start; this hash per answer is a second guard, kept because the copy lies in
        the temporary folder, which another local user's process may write to."""
        want = self.server.listed.get(rel)
        body = _own_file(Path(self.directory) / rel) if want else None
        if body is not None and hashlib.sha256(body).hexdigest() == want:
            return body
        if body is not None:
            self.log_message("%s: changed since the build listed it; not served", rel)
        return None

    def list_directory(self, path):
        """A folder without an index.html is not found, as on a static host: the built site links
        every file it serves, and a listing would show what no page shows (an old run's data)."""
        self.send_error(404, "not found")
        return None

    def log_message(self, format, *args):   # noqa: A002 - the base class's name
        """One plain line per request, with the client's text escaped (no terminal control)."""
        # backslashreplace leaves ASCII controls as they are: ESC[2J or an OSC 8 link reached the terminal
        text = re.sub(r"[\x00-\x1f\x7f]", lambda m: f"\\x{ord(m.group(0)):02x}",
                      (format % args).encode("ascii", "backslashreplace").decode("ascii"))
        _log(f"{self.address_string()} {text}")


_LOG = {"broken": False}


def _log(line):
    """Print one line of the request log.  A log that can no longer be written (a full disk, a pipe whose
    reader is gone) is said once on stderr and dropped: the pages are still served (each request failed
    with an empty reply and two tracebacks before)."""
    if _LOG["broken"]:
        return
    try:
        print(line, flush=True)
    except (OSError, ValueError) as exc:   # ValueError: stdout closed
        _LOG["broken"] = True
        try:
            import sys
            print(f"serve: the request log cannot be written ({getattr(exc, 'strerror', None) or exc}); "
                  "serving on without it", file=sys.stderr, flush=True)
        except (OSError, ValueError):
            pass


def _inside_site(root, path):
    """Whether ``path`` names something under ``root`` reached through no symlink."""
    try:
        rel = path.relative_to(root)
    except ValueError:
        return False
    here = root
    for part in rel.parts:
        here = here / part
        if here.is_symlink():
            return False
    if not Path(os.path.realpath(path)).is_relative_to(os.path.realpath(root)):
        return False
    try:   # a hard link is a second name of a file elsewhere (ln ~/.netrc site/x.txt): never served
        return os.lstat(path).st_nlink == 1 or not os.path.isfile(path)
    except OSError:
        return True   # missing: the base class answers 404


def _own_file(path):
    """The bytes of the site file ``path`` if it is a plain file of one name (no symlink, hard link,
    FIFO or file over 64 MiB), else None: a 404.html planted as a link to a file outside the site
    would be sent to every request for a missing page."""
    try:
        if os.lstat(path).st_nlink != 1:
            return None
        return plainfile.read_bytes(path)
    except (OSError, ReportError):
        return None


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, *args, **kwargs):
        import threading
        super().__init__(*args, **kwargs)
        # connections, not threads: each holds a handler and its head deadline's timer, so counting threads shut
        # visitors out after 34 half-open connections, unsaid
        self._slots, self._full_said = threading.BoundedSemaphore(MAX_CONNECTIONS), False

    def process_request(self, request, client_address):
        """At most MAX_CONNECTIONS served at once: one more is closed unanswered, said once while they are full."""
        if not self._slots.acquire(blocking=False):
            if not self._full_said:
                _log(f"{client_address[0]}: turned away: {MAX_CONNECTIONS} connections are open (said once while full)")
            self._full_said = True
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self._slots.release()
            raise

    def process_request_thread(self, request, client_address):
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._full_said = False
            self._slots.release()

    def handle_error(self, request, client_address):
        """A client that goes away or sends garbage is not a traceback: one line at most."""
        import sys
        exc = sys.exc_info()[1]
        if isinstance(exc, (ConnectionError, TimeoutError)):
            return
        _log(f"{client_address[0]}: request failed: {type(exc).__name__}")


def _site_problem(site_dir):
    from reportgen.commands.build import committed_problem, link_problem
    from study import leftovers
    problem = link_problem(site_dir) or committed_problem(site_dir)
    if problem:
        return problem
    if not (Path(site_dir) / "index.html").exists():
        return f"{site_dir}: no built site; run `reportgen build` first{leftovers.stopped_swap(site_dir)}"
    return None


def open_server(site_dir, port, listed=None):
    """The bound server (port 0: a free one), or a ReportError saying why not.  It answers only the
    files ``listed`` ({relative path: sha256}; default: the site's site-files.json, read now)."""
    site_dir = Path(site_dir)
    problem = _site_problem(site_dir)
    if problem:
        raise ReportError(problem)
    if not 0 <= int(port) <= 65535:
        raise ReportError(f"--port {port}: not a TCP port (0-65535; 0 picks a free one)")
    from reportgen.publish import sitecheck
    listed = sitecheck.read_manifest(site_dir) if listed is None else listed   # nothing else is served
    handler = functools.partial(Handler, directory=str(site_dir))
    try:
        server = Server(("127.0.0.1", int(port)), handler)
        server.listed = listed
        return server
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise ReportError(f"--port {port}: already in use on 127.0.0.1; choose another, "
                              "or --port 0 for a free one") from exc
        if exc.errno == errno.EACCES:
            raise ReportError(f"--port {port}: not allowed for this user (ports below 1024 need root); "
                              "choose one above 1024") from exc
        raise ReportError(f"--port {port}: cannot listen on 127.0.0.1: {exc.strerror}") from exc


def _snapshot(site_dir, copy, listed):
    """Copy every file of ``listed`` (site-files.json as serve read it, once) into ``copy``, each
    opened name by name without following a link (plainfile.read_under) and compared with its listed
    sha256 (ReportError naming it otherwise).  What is checked and served is this copy: a page changed
    between the checks and the first request, or a list rewritten to name ../../x or a folder swapped
    for a link, is not what a visitor gets or what serve writes."""
    import hashlib
    from reportgen.publish import sitecheck
    for rel, want in listed.items():
        data = plainfile.read_under(site_dir, rel, sitecheck.FILE_LIMIT)
        if hashlib.sha256(data).hexdigest() != want:
            raise ReportError(f"{Path(site_dir) / rel}: differs from the sha256 site-files.json lists for it "
                              "(changed after the build)")
        target = Path(copy) / rel   # read_under refused '..', absolute and empty names: inside the copy
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)


def serve(site_dir, port, root):
    """Serve a built site whose files are those its build listed (site-files.json, sha256 each): a page
    and a script planted after the build would run on the site's origin ('self' allows it).  The list
    sits in the folder it vouches for, so the pages are also read as verify reads them (scripts the
    build ships, no inline script or event, the theme's own settings), against the project ``root``;
    both checks, and every answer, read one private copy of the listed files (_snapshot)."""
    from study import leftovers
    from reportgen.publish import sitecheck, verify
    site_dir = Path(site_dir)
    problems = [p for p in [_site_problem(site_dir)] if p]
    try:
        listed = {} if problems else sitecheck.read_manifest(site_dir)   # read once: checked, copied, served
    except ReportError as exc:
        problems = exc.problems
    problems = problems or sitecheck.manifest_problems(site_dir, listed)
    # print.html and study.pdf left half-replaced by a stopped `reportgen pdf` are served without, not
    # the whole site refused: they are what the next pdf writes again
    printed = [p for p in problems if any(p.startswith(f"{site_dir / name}:") for name in PDF_OUTPUTS)]
    if printed and len(printed) == len(problems):
        listed = {rel: sha for rel, sha in listed.items() if rel not in PDF_OUTPUTS}
        print(f"serving without {', '.join(PDF_OUTPUTS)}: {printed[0]}; run `reportgen pdf` again", flush=True)
        problems = []
    if problems:
        raise ReportError(problems, hint="build the site again (`reportgen build`) and serve what it wrote")
    from reportgen.commands import stops

    def stop(_signum, _frame):   # SIGTERM as Ctrl-C: the copy is removed either way
        raise KeyboardInterrupt

    scratch = leftovers.scratch("serve")   # a killed serve's copy goes at the next one
    with stops.handled(stop), contextlib.ExitStack() as cleanup:
        cleanup.callback(leftovers.remove, scratch, False)
        copy = Path(scratch) / "site"
        try:
            _snapshot(site_dir, copy, listed)
        except OSError as exc:   # a full or read-only temporary folder: name it, not only the errno
            raise ReportError(f"{scratch}: cannot hold the checked copy of the site ({exc.strerror or exc}); "
                              "free space there, or set TMPDIR to another folder") from None
        problems = [p.replace(str(copy), str(site_dir), 1) for p in verify.script_problems(root, copy)]
        if problems:
            raise ReportError(problems, hint="build the site again (`reportgen build`) and serve what it wrote")
        with open_server(copy, port, listed) as httpd:
            bound = httpd.server_address[1]
            print(f"serving {site_dir} on http://127.0.0.1:{bound}/ (a checked copy; Ctrl-C to stop)", flush=True)
            try:
                httpd.serve_forever()
            except KeyboardInterrupt:
                print("stopped")
