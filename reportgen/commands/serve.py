"""`reportgen serve`: the built site on localhost (it needs nothing from outside)."""
import errno
import functools
import http.server
from pathlib import Path

from reportgen.errors import ReportError

TEXT_TYPES = {".log": "text/plain; charset=utf-8", ".jsonl": "text/plain; charset=utf-8",
              ".txt": "text/plain; charset=utf-8"}
"""Raw records and logs are shown as text in the browser, not offered as downloads."""


class Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, **TEXT_TYPES}


def open_server(site_dir, port):
    """The bound server (port 0: a free one), or a ReportError saying why not."""
    site_dir = Path(site_dir)
    if not (site_dir / "index.html").exists():
        raise ReportError(f"{site_dir}: no built site; run `reportgen build` first")
    if not 0 <= int(port) <= 65535:
        raise ReportError(f"--port {port}: not a TCP port (0-65535; 0 picks a free one)")
    handler = functools.partial(Handler, directory=str(site_dir))
    try:
        return http.server.ThreadingHTTPServer(("127.0.0.1", int(port)), handler)
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise ReportError(f"--port {port}: already in use on 127.0.0.1; choose another, "
                              "or --port 0 for a free one") from exc
        if exc.errno == errno.EACCES:
            raise ReportError(f"--port {port}: not allowed for this user (ports below 1024 need root); "
                              "choose one above 1024") from exc
        raise ReportError(f"--port {port}: cannot listen on 127.0.0.1: {exc.strerror}") from exc


def serve(site_dir, port):
    with open_server(site_dir, port) as httpd:
        bound = httpd.server_address[1]
        print(f"serving {site_dir} on http://127.0.0.1:{bound}/ (Ctrl-C to stop)", flush=True)
        try:
            httpd.serve_forever()
        except KeyboardInterrupt:
            print("stopped")
