"""A site built from hostile records, in headless Chromium: no dialog opens, no request leaves.

A new run carries script-injection payloads in a failed record's error, in its log lines
and in its environment (CPU model); every page that shows them is loaded and watched.
"""
import functools
import http.server
import shutil
import threading
from urllib.parse import urlparse

import pytest
from conftest import ROOT, copy_project
from helpers import ENV, record, reseal_old_run, write_run

from reportgen.commands import build
from study import identity

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
playwright = pytest.importorskip("playwright.sync_api")
if CHROMIUM is None:
    pytest.skip("Debian's chromium is not installed", allow_module_level=True)

pytestmark = pytest.mark.browser
PAYLOAD = ('<img src=x onerror=alert(1)> [x](javascript:alert(2)) {: onclick="alert(3)"} '
           '<script>alert(4)</script> | <svg onload=alert(5)> `x` <a href="javascript:alert(6)">a</a>')
HOSTILE_ENV = dict(ENV, cpu_model=PAYLOAD)
# a past date (load refuses runs from the future); the hostile CPU name makes a machine id of its own
RUN = f"20261201T000000Z-standard-{identity.machine_id(HOSTILE_ENV)}"
LOG = f"start\n```\n<script>alert(7)</script>\n{PAYLOAD}\n```\nend\n"
PAGES = ("provenance/numpy_gemm/dtype-float32.html", "gemm.html", "environment.html", "history.html", "machines.html", "index.html")


@pytest.fixture(scope="module")
def hostile_site(tmp_path_factory):
    dest = tmp_path_factory.mktemp("hostile-site") / "project"
    copy_project(dest)
    rec = record(RUN, case_id="numpy_gemm/dtype=float32/n=31/threads=1/blas=configured", status="run_failed",
                 error=PAYLOAD, check={"reference": "none", "max_abs_err": None, "max_rel_err": None,
                                       "threshold": None, "passed": None})
    rec.update(samples=[], stats=None, repeat=0, log={"path": f"runs/{RUN}/logs/numpy_gemm.log",
                                                      "lines": [1, 6], "sha256": "pending"})
    rec["case"]["n"] = rec["case"]["m"] = rec["case"]["k"] = 31
    run = write_run(dest / "results", RUN, [rec], profile="standard", log_text=LOG,
                    finished_at="2026-12-01T00:10:00Z")
    import json
    manifest = json.loads((run / "run.json").read_text())
    manifest["environment"] = dict(HOSTILE_ENV, machine_id=identity.machine_id(HOSTILE_ENV))
    (run / "run.json").write_text(json.dumps(manifest, indent=1))
    reseal_old_run(run)
    # the hostile CPU name makes it a machine of its own: publish that machine, so its strings reach every page
    build.build(dest, dest / "site", machine=identity.machine_id(manifest["environment"]))
    return dest / "site"


@pytest.fixture(scope="module")
def server(hostile_site):
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(hostile_site))
    handler.log_message = lambda *a, **k: None
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


@pytest.fixture(scope="module")
def browser():
    with playwright.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=[
            "--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--disable-component-update", "--no-first-run", "--disable-sync"])
        yield b
        b.close()


@pytest.mark.parametrize("path", PAGES)
def test_hostile_strings_stay_text_in_the_browser(server, browser, hostile_site, path):
    assert "alert(1)" in (hostile_site / path).read_text(encoding="utf-8") or path == "index.html"
    context = browser.new_context()
    page = context.new_page()
    dialogs, outside = [], []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))

    def watch(request):
        url = urlparse(request.url)
        if url.scheme not in ("http", "data", "blob") or url.hostname not in (None, "127.0.0.1", "localhost"):
            outside.append(request.url)
    page.on("request", watch)
    try:
        page.goto(f"{server}/{path}", wait_until="networkidle")
        page.evaluate("() => document.querySelectorAll('details').forEach(d => { d.open = true; })")  # folded tables too
        for link in page.locator("a.num.failed").all()[:5]:
            link.hover()
        page.wait_for_timeout(300)
        live = page.evaluate("""() => [...document.querySelectorAll('*')].flatMap(e => [...e.attributes]
            .filter(a => (a.name.startsWith('on') || /^\\s*javascript:/i.test(a.value)) && /alert/.test(a.value))
            .map(a => e.tagName + ' ' + a.name + '=' + a.value))""")
        scripts = page.evaluate("() => [...document.scripts].filter(s => /alert/.test(s.textContent)).length")
    finally:
        context.close()
    assert dialogs == [] and outside == [] and live == [] and scripts == 0
