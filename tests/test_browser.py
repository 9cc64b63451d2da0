"""The built site in headless Chromium (Debian's, driven by Playwright), on localhost only."""
import functools
import http.server
import json
import os
import re
import shutil
import threading
from urllib.parse import urlparse

import pytest
from helpers import wait_until

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
playwright = pytest.importorskip("playwright.sync_api")

if CHROMIUM is None:
    if os.environ.get("CI"):
        raise RuntimeError("CI must install Debian's chromium (see .ci/run)")
    pytest.skip("Debian's chromium is not installed", allow_module_level=True)

pytestmark = pytest.mark.browser
PAGES = ("index.html", "method.html", "environment.html", "graph.html", "gemm.html", "gemm-ladder.html",
         "codegen.html", "int8.html", "e2e.html", "archive.html", "history.html", "references.html", "coverage.html",
         "provenance.html", "provenance/numpy_gemm.html", "provenance/gemm_tvm.html",
         "provenance/numpy_gemm/dtype-float32.html", "provenance/gemm_tvm/impl-tvm-stage-parallel.html")
CHART_PAGES = ("gemm.html", "gemm-ladder.html", "e2e.html", "history.html")


@pytest.fixture(scope="module")
def server(built_site):
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(built_site / "site"))
    handler.log_message = lambda *a, **k: None
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
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


@pytest.fixture
def page(browser):
    context = browser.new_context()
    pg = context.new_page()
    pg.outside, pg.errors = [], []

    def route(r):
        host = urlparse(r.request.url).hostname
        if host not in ("127.0.0.1", "localhost"):
            pg.outside.append(r.request.url)
            return r.abort()
        return r.continue_()

    pg.route("**/*", route)
    pg.on("console", lambda m: m.type == "error" and pg.errors.append(m.text))
    pg.on("pageerror", lambda e: pg.errors.append(str(e)))
    yield pg
    context.close()


# The two checks below read the sweep's visit of each page (one visit serves every per-page check).
@pytest.mark.parametrize("path", PAGES)
def test_page_loads_offline_without_errors(sweep, path):
    seen = sweep["pages"][path]
    assert seen["outside"] == []
    assert seen["errors"] == []
    assert seen["title"]


@pytest.mark.parametrize("path", CHART_PAGES)
def test_every_chart_renders(sweep, path):
    seen = sweep["pages"][path]
    assert seen["charts"] >= 1
    assert seen["drawn"] == seen["charts"]   # each chart holds its svg or canvas
    assert seen["errors"] == []


def test_chinese_search_finds_a_page(server, page):
    page.goto(f"{server}/index.html", wait_until="networkidle")
    page.locator("label.md-search__icon, .md-search__input").first.click()
    box = page.locator("input.md-search__input")
    box.fill("峰值")
    box.press("End")   # Material reacts to key events; fill() alone sends none
    results = page.locator(".md-search-result__item")
    results.first.wait_for(timeout=20000)
    assert results.count() >= 1
    assert page.outside == []


def test_provenance_link_resolves(server, page):
    page.goto(f"{server}/gemm.html", wait_until="networkidle")
    link = page.locator("a.num.cur").first
    target = link.get_attribute("href")
    anchor = target.split("#", 1)[1]
    link.click()
    page.wait_for_load_state("networkidle")
    assert page.url.endswith("#" + anchor)
    entry = page.locator(f"[id='{anchor}']")
    assert entry.count() == 1
    assert "sha256" in page.content()
    log_link = page.locator("a[href*='/logs/']").first
    response = page.request.get(page.url.rsplit("/", 1)[0] + "/" + log_link.get_attribute("href"))
    assert response.ok


@pytest.fixture
def disk_page(browser):
    """A page for file:// (site opened from disk): any http(s) request is recorded and refused."""
    context = browser.new_context()
    pg = context.new_page()
    pg.outside, pg.errors = [], []

    def route(r):
        if not r.request.url.startswith(("file:", "data:", "blob:")):
            pg.outside.append(r.request.url)
            return r.abort()
        return r.continue_()

    pg.route("**/*", route)
    pg.on("console", lambda m: m.type == "error" and pg.errors.append(m.text))
    pg.on("pageerror", lambda e: pg.errors.append(str(e)))
    yield pg
    context.close()


@pytest.mark.parametrize("query", ["量化", "GEMM"])
def test_search_works_from_disk(built_site, disk_page, query):
    """Opened as file://site/index.html, Material's search (offline plugin) still answers."""
    disk_page.goto((built_site / "site" / "index.html").as_uri(), wait_until="load")
    disk_page.locator("label.md-search__icon, .md-search__input").first.click()
    box = disk_page.locator("input.md-search__input")
    box.fill(query)
    box.press("End")
    results = disk_page.locator(".md-search-result__item")
    results.first.wait_for(timeout=20000)
    assert results.count() >= 1
    assert disk_page.outside == []
    assert disk_page.errors == []


def test_pages_carry_only_what_they_use(built_site):
    """Vega (0.8 MB) is fetched by charts.js on a page with a chart, not by every page; the search
    index every page view downloads leaves out the per-record provenance pages but keeps their
    family indexes, so a family is still found by name."""
    site = built_site / "site"
    pages = [site / p for p in _site_pages(built_site)]
    assert not [p for p in pages if "vega.min.js" in p.read_text(encoding="utf-8")]
    assert all((site / "assets" / "vendor" / name).is_file()
               for name in ("vega.min.js", "vega-lite.min.js", "vega-embed.min.js"))
    index = json.loads((site / "search" / "search_index.json").read_text(encoding="utf-8"))
    located = {doc["location"].split("#")[0] for doc in index["docs"]}
    assert not [loc for loc in located if loc.startswith("provenance/") and loc.count("/") >= 2]
    assert not [loc for loc in located if loc.startswith("provenance/machine-")]
    assert {"provenance/gemm_tvm.html", "provenance/e2e.html"} <= located


def _site_pages(built_site):
    """Every page of the built site (print.html, written by `reportgen pdf`, is the PDF's source, not a page)."""
    site = built_site / "site"
    return sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html")
                  if not p.relative_to(site).as_posix().startswith(("assets/", "data/", "search/"))
                  and p.name != "print.html")


# Tables (and their Material scroll wrappers) wider than the article column hide columns.
_WIDE_TABLES = """() => {
  const art = document.querySelector('article').getBoundingClientRect();
  return [...document.querySelectorAll('article table')].filter(t => {
    const r = t.getBoundingClientRect();
    return t.scrollWidth > t.clientWidth + 1 || r.right > art.right + 1 || r.left < art.left - 1;
  }).map(t => (t.rows[0] ? t.rows[0].innerText : '').replace(/\\s+/g, ' ').slice(0, 80));
}"""


# At phone width a table may be wider than the column, but then it scrolls inside its wrapper,
# which stays on screen; no figure is broken over two lines (a "ms" on the next line, "35./9");
# no chart text is drawn under 9 px (vega's SVG shrunk to the column).
_PHONE = """() => {
  const vw = document.documentElement.clientWidth;
  const out = {overflow: [], broken: [], small: []};
  const figure = /^[\\s\\d.,:×x%~≈+\\-–—/()（）]*(ms|s|GFLOPS|GiB|MiB|KiB|MB|KB)?[\\s)）]*$/;
  for (const t of document.querySelectorAll('article table')) {
    if (!t.getBoundingClientRect().width) continue;   // inside a closed block
    const wrap = t.closest('.md-typeset__scrollwrap');
    const box = (wrap || t).getBoundingClientRect();
    const scrolls = wrap && ['auto', 'scroll'].includes(getComputedStyle(wrap).overflowX);
    if (box.right > vw + 1 || box.left < -1 || (!scrolls && t.getBoundingClientRect().right > vw + 1))
      out.overflow.push((t.rows[0] ? t.rows[0].innerText : '').replace(/\\s+/g, ' ').slice(0, 60));
    for (const cell of t.querySelectorAll('td, th')) {
      const figs = [...cell.querySelectorAll('.num')];
      if (/\\d/.test(cell.innerText) && figure.test(cell.innerText)) figs.push(cell);
      for (const f of figs) {
        const r = document.createRange(); r.selectNodeContents(f);
        const tops = new Set([...r.getClientRects()].filter(x => x.width > 0).map(x => Math.round(x.top)));
        if (tops.size > 1) out.broken.push(f.innerText.slice(0, 40));
      }
    }
  }
  for (const text of document.querySelectorAll('article div.vchart svg text')) {
    if (!text.textContent.trim() || !text.getBoundingClientRect().width) continue;
    const m = text.getScreenCTM();   // a rotated axis title has its scale in b, not a
    const px = parseFloat(getComputedStyle(text).fontSize) * Math.hypot(m.a, m.b);
    if (px < 9) out.small.push(text.textContent.slice(0, 30) + ' ' + px.toFixed(1) + 'px');
  }
  return out;
}"""


SCREENS = os.path.join(os.path.dirname(__file__), "output", "screens")
RENDERED = "[...document.querySelectorAll('div.vchart')].every(d => d.dataset.rendered === '1')"


def _longest_run(path):
    """The longest run of non-space characters in a page's article: what can push a table wide."""
    text = re.sub(r"<[^>]+>", " ", path.read_text(encoding="utf-8", errors="replace"))
    return max((len(w) for w in text.split()), default=0)


def _sampled_pages(built_site):
    """The fast tier's pages: every page that is not a per-record provenance page, plus the record
    pages most likely to overflow (the longest unbroken strings, the most tables).  The slow tier
    sweeps every page (test_every_page_of_the_site)."""
    site = built_site / "site"
    pages = _site_pages(built_site)
    records = [p for p in pages if p.startswith("provenance/") and p.count("/") >= 2]
    by_run = sorted(records, key=lambda p: -_longest_run(site / p))[:3]
    by_tables = sorted(records, key=lambda p: -(site / p).read_text(encoding="utf-8").count("<table"))[:2]
    return [p for p in pages if p not in records or p in by_run + by_tables or p in PAGES]


def _sweep(built_site, server, browser, pages):
    """Every given page visited once: at 1280 px it serves the console, outside-request, chart,
    wide-table and screenshot checks; a page with a table is then reflowed to 390 px for the
    phone-width check."""
    from reportgen.commands import pdf
    os.makedirs(SCREENS, exist_ok=True)
    nav = {f"{md.removesuffix('.md')}.html": f"{i:02d}-{md.removesuffix('.md')}.png"
           for i, (_, md) in enumerate(pdf.nav_pages(built_site)[0])}
    assert set(nav) <= set(pages)
    found = {"said": [], "wide": {1280: {}}, "phone": {}, "shots": [], "pages": {}}
    here = [None]

    def seen():
        return found["pages"][here[0]]

    def route(r):   # anything not from the local server is refused and recorded against the page
        if urlparse(r.request.url).hostname not in ("127.0.0.1", "localhost"):
            seen()["outside"].append(r.request.url)
            return r.abort()
        return r.continue_()

    def console(m):
        if m.type in ("warning", "error"):
            found["said"].append((here[0], m.type, m.text))
        if m.type == "error":
            seen()["errors"].append(m.text)

    def page_error(e):
        found["said"].append((here[0], "pageerror", str(e)))
        seen()["errors"].append(str(e))

    # 1280 x 800: the first screen of a chapter; the width checks do not depend on the height
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    pg = context.new_page()
    pg.route("**/*", route)
    pg.on("console", console)
    pg.on("pageerror", page_error)
    for path in pages:
        here[0] = path
        found["pages"][path] = {"outside": [], "errors": [], "charts": 0, "drawn": 0}
        # "load", then the charts' own rendered flag: waiting for network idle costs half a second a page
        pg.goto(f"{server}/{path}", wait_until="load")
        seen()["title"] = pg.title()
        if charts := pg.locator("div.vchart").count():
            wait_until(pg, RENDERED)
            seen()["charts"] = charts
            seen()["drawn"] = pg.evaluate("[...document.querySelectorAll('div.vchart')]"
                                          ".filter(d => d.querySelector('svg, canvas')).length")
        if wide := pg.evaluate(_WIDE_TABLES):
            found["wide"][1280][path] = wide
        if path in nav:
            found["shots"].append(os.path.join(SCREENS, nav[path]))
            pg.screenshot(path=found["shots"][-1])
        if "<table" in (built_site / "site" / path).read_text(encoding="utf-8") or charts:   # phone width
            pg.set_viewport_size({"width": 390, "height": 900})   # the same page, reflowed: no second load
            if charts:   # vega draws at its own size; give the reflow a frame
                pg.wait_for_timeout(50)
            phone = pg.evaluate(_PHONE)
            if any(phone.values()):
                found["phone"][path] = {k: v[:6] for k, v in phone.items() if v}
            pg.set_viewport_size({"width": 1280, "height": 800})
    context.close()
    found["nav"] = len(nav)
    return found


@pytest.fixture(scope="module")
def sweep(built_site, server, browser):
    """The sampled pages' findings, shared by the whole-site tests below."""
    return _sweep(built_site, server, browser, _sampled_pages(built_site))


@pytest.mark.slow
def test_every_page_of_the_site(built_site, server, browser):
    """All pages, every per-record provenance page included: no wide table, no console warning."""
    found = _sweep(built_site, server, browser, _site_pages(built_site))
    assert found["wide"] == {1280: {}} and found["phone"] == {} and found["said"] == []


def test_the_sample_keeps_every_kind_of_page(built_site):
    pages = _site_pages(built_site)
    sample = _sampled_pages(built_site)
    assert [p for p in pages if not p.startswith("provenance/") or p.count("/") < 2] == \
        [p for p in sample if not p.startswith("provenance/") or p.count("/") < 2]
    assert 1 <= sum(p.count("/") >= 2 for p in sample) <= 5 + len(PAGES) < sum(p.count("/") >= 2 for p in pages)


def test_no_table_is_wider_than_its_column(sweep):
    assert sweep["wide"][1280] == {}


def test_on_a_phone_figures_stay_whole_tables_scroll_and_chart_text_stays_legible(sweep):
    """At 390 px: tables scroll sideways inside their wrapper, no figure breaks over two lines,
    no chart text under 9 px."""
    assert sweep["phone"] == {}


def test_no_console_warning_on_any_page(sweep):
    """Vega warnings (e.g. an empty layer's 'Infinite extent') and errors count, on every page; and
    no page of the sample asks for anything outside the local server."""
    assert sweep["said"] == []
    assert {path: seen["outside"] for path, seen in sweep["pages"].items() if seen["outside"]} == {}


def test_first_screen_of_every_chapter_for_review(sweep):
    """Screenshots (1280 px, first screen) of every nav page into tests/output/screens/ (not committed)."""
    assert len(sweep["shots"]) == sweep["nav"] > 0
    assert all(os.path.getsize(s) > 0 for s in sweep["shots"])
