"""`reportgen serve`: the built site on localhost (it needs nothing from outside)."""
import functools
import http.server
from pathlib import Path

from .errors import ReportError


def serve(site_dir, port):
    site_dir = Path(site_dir)
    if not (site_dir / "index.html").exists():
        raise ReportError(f"{site_dir}: no built site; run `reportgen build` first")
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(site_dir))
    with http.server.ThreadingHTTPServer(("127.0.0.1", port), handler) as httpd:
        print(f"serving {site_dir} on http://127.0.0.1:{port}/ (Ctrl-C to stop)")
        httpd.serve_forever()
