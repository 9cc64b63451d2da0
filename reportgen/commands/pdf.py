"""`reportgen pdf`: the whole article as one PDF (site/study.pdf), printed by headless Chromium.

Runs after `reportgen build`. The article content of every page in the nav is taken from the
built site, in nav order, into one print page (site/print.html) with the site's own
stylesheets and a print stylesheet; Chromium prints it once, so no PDF merge library is
needed. Ids are prefixed with the page name so that links between chapters stay inside the
PDF. Charts are the static SVGs the build writes (the same Vega-Lite specs), tables keep the
historical / current marking.

Without Chromium (a fresh machine before `apt-get install chromium`) or without Playwright,
it prints one line saying so and skips: `make site` does not fail for a missing printer.
"""
import html
import os
import posixpath
import re
import shutil
from pathlib import Path

import yaml
from reportgen.data import plainfile, safeyaml
from reportgen.publish import nofollow
from reportgen.publish.sitecheck import FILE_LIMIT
from reportgen.data.words import W
from reportgen.errors import ReportError
from reportgen.publish.verify import PRINT_PAGE

PDF_NAME = "study.pdf"
SKIP = "reportgen pdf: skipped, {why}; the site itself is complete (install Debian's chromium for site/study.pdf)"

PRINT_CSS = "assets/css/print.css"
"""The print page's own styles, a file every build ships (docs/assets/css/print.css): an inline
<style> is markup verify refuses in a page."""


_PAGE_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_./-]*\.md")


def nav_pages(root):
    """The Markdown pages of mkdocs.yml's nav, in order (the generated provenance pages are not in it)."""
    path = Path(root) / "mkdocs.yml"
    try:   # read within limits, as build reads it: an alias reused in nav: expanded to 10^7 pages
        config = safeyaml.loads(plainfile.read_text(path, plainfile.MAX_ARCHIVE_FILE_BYTES))
    except ReportError:   # a link, not a plain file, too large: it names the file
        raise
    except (OSError, ValueError, yaml.YAMLError) as exc:
        raise ReportError(f"{path}: cannot be read ({safeyaml.describe(exc)[:200]})") from None
    out = []

    def walk(items):
        for item in items if isinstance(items, list) else ():
            # "- index.md" (a page titled by MkDocs) or "- Title: page.md" / "- Section: [...]"
            for title, value in (item.items() if isinstance(item, dict) else [(Path(str(item)).stem, item)]):
                if isinstance(value, list):
                    walk(value)
                elif (isinstance(value, str) and value.endswith(".md") and not value.startswith(("/", "~"))
                      and ".." not in Path(value).parts):
                    if not _PAGE_NAME.fullmatch(value):   # the name becomes ids and links of print.html
                        raise ReportError(f"{path}: nav: {value!r:.60} is not a page name print.html can carry "
                                          "(letters, digits, '_', '-', '.' and '/')")
                    out.append((str(title), value))   # a page of docs/ only: print.html copies each page's HTML
    walk(config.get("nav", []) if isinstance(config, dict) else [])
    return out, config.get("site_name", "") if isinstance(config, dict) else ""


_ARTICLE = re.compile(r'<article class="md-content__inner md-typeset">(.*)</article>', re.S)
_STYLES = re.compile(r'<link rel="stylesheet" href="(assets/[^"]+)">')
_HEADERLINK = re.compile(r'<a class="headerlink"[^>]*>.*?</a>', re.S)
_CHART_SVG = re.compile(r'(src="(?:\.\./)*assets/charts/([A-Za-z0-9_]+))\.svg')
_CLOSED = re.compile(r"<details(?![^>]*\bopen\b)")


def _rewrite(content, stem, stems):
    """Page-local ids become '<page>--<id>'; links to included pages point inside the print page."""
    def local(page, anchor):   # ids of charts and specs keep their names (tag below)
        return f'href="#{anchor}"' if anchor.startswith(("spec-", "chart-")) else f'href="#{page}--{anchor}"'

    def href(m):
        target = m.group(1)
        path, hash_, anchor = target.partition("#")
        if not path:   # '#' alone: the page's own top
            return local(stem, anchor) if anchor else f'href="#{stem}"'
        if re.match(r"[A-Za-z][A-Za-z0-9+.-]*:|/", path):
            return m.group(0)
        # as the page's folder reads it (a provenance page's '../index.html'), from the print page at the site's root
        whole = posixpath.normpath(posixpath.join(posixpath.dirname(stem), path))
        if whole.endswith(".html") and whole[:-5] in stems:
            return local(whole[:-5], anchor) if hash_ and anchor else f'href="#{whole[:-5]}"'
        return f'href="{html.escape(whole + hash_ + anchor, quote=True)}"'

    def tag(m):   # inside tags only: `href="#groups"` typed as code is text, printed as written
        inner = re.sub(r'(?<=\s)id="((?!spec-|chart-)[^"]+)"', lambda i: f'id="{stem}--{i.group(1)}"', m.group(0))
        return re.sub(r'(?<=\s)href="([^"]*)"', href, inner)
    return re.sub(r"<[A-Za-z][^<>]*>", tag, content)


def assemble(site_dir, pages, site_name):
    """One HTML page holding every nav page's article, in order."""
    site_dir = Path(site_dir)
    stems = {Path(md).with_suffix("").as_posix() for _, md in pages}
    first = (site_dir / "index.html").read_text(encoding="utf-8")
    styles = "\n".join(f'<link rel="stylesheet" href="{href}">' for href in _STYLES.findall(first))
    site_name = html.escape(site_name)
    body = [W("pdf.assemble.cover", site_name=site_name)]
    toc = [f'<li><a href="#{html.escape(Path(md).with_suffix("").as_posix())}">{html.escape(title)}</a></li>'
           for title, md in pages if (site_dir / Path(md).with_suffix(".html")).exists()]
    body.append(W("pdf.assemble.toc", items="".join(toc)))
    for title, md in pages:
        stem = Path(md).with_suffix("").as_posix()
        html_path = site_dir / f"{stem}.html"
        # read name by name, no link followed: a page swapped for a link after verify printed its target
        match = _ARTICLE.search(plainfile.read_under(site_dir, f"{stem}.html", FILE_LIMIT).decode(
            "utf-8", errors="replace")) if html_path.exists() else None
        if match is None:
            continue
        # a collapsed block (the §9 tables, percentiles, calibration tables, IR diffs) prints open
        # a headerlink is cut out as a space: cut to nothing it joined its neighbours ("&" "#x202E;",
        # "<" "script ...") into markup the page never held
        content = _CLOSED.sub("<details open", _HEADERLINK.sub(" ", match.group(1)))
        # charts print from their copy with larger text (the page's SVG would shrink to ~5 pt)
        content = _CHART_SVG.sub(lambda m: m.group(1) + ".print.svg"
                                 if (site_dir / "assets" / "charts" / f"{m.group(2)}.print.svg").exists() else m.group(0),
                                 content)
        body.append(f'<section class="print-page md-typeset" id="{html.escape(stem)}" data-title="{html.escape(title)}">'
                    f"{_rewrite(content, stem, stems)}</section>")
    from reportgen.publish.plugin import CSP_META   # the print page is a page of the site: the same policy
    return ('<!doctype html>\n<html lang="zh"><head><meta charset="utf-8">'
            f"{CSP_META}<title>{site_name}</title>\n{styles}\n<link rel=\"stylesheet\" href=\"{PRINT_CSS}\"></head>\n"
            '<body class="md-typeset">\n' + "\n".join(body) + "\n</body></html>\n")


def chromium():
    """Debian's chromium (or $REPORTGEN_CHROMIUM), else None."""
    return os.environ.get("REPORTGEN_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")


def write_pdf(root, site_dir, quiet=False, wait_s=600):
    """site/print.html and site/study.pdf; returns the PDF path, or None (with a one-line note) when skipped.

    The site is verified first (publish.verify: every figure as numbers.json records it, no page
    that loads file: or javascript:, every file as a fresh build writes it), so a site edited after
    its build is never printed. It holds the site's build lock while it reads and writes: a build
    publishing the same site is waited for (``wait_s``), then refused in one line."""
    site_dir = Path(site_dir)
    say = (lambda *_: None) if quiet else print
    from reportgen.commands import build
    linked = build.link_problem(site_dir, root)   # --site-dir: no link on its way down from the project (out/site,
    if linked:                                    # out a committed link, sent pdf into another folder's site)
        raise ReportError(linked)
    if not (site_dir / "index.html").exists():
        from study import leftovers
        say(SKIP.format(why=f"no built site in {site_dir} (run `reportgen build` first){leftovers.stopped_swap(site_dir)}"))
        return None
    exe = chromium()
    if exe is None:
        say(SKIP.format(why="chromium is not installed"))
        return None
    try:
        from playwright.sync_api import Error as PlaywrightError
    except ImportError:
        say(SKIP.format(why="playwright is not installed"))
        return None
    pages, site_name = nav_pages(root)
    for name in (PRINT_PAGE, PDF_NAME):   # a planted output link is named as such, before anything is read
        if (site_dir / name).is_symlink():
            raise nofollow.refuse(site_dir / name)
    with build._Lock(Path(site_dir).resolve(), wait_s):   # never a site that a build is replacing
        return _verified_pdf(root, site_dir, exe, pages, site_name, say)


def _verified_pdf(root, site_dir, exe, pages, site_name, say):
    from playwright.sync_api import Error as PlaywrightError
    from reportgen.commands import build
    from reportgen.publish import sitecheck
    # an earlier pdf's output its list does not name as it is (one stopped while it replaced them: a kill,
    # a full disk) goes first; intact ones stay until they are replaced whole below
    sitecheck.drop_broken(site_dir, [PRINT_PAGE, PDF_NAME])
    try:
        build.verify_site(root, site_dir, printed=printed(root, pages, site_name))
    except ReportError as exc:
        raise ReportError(exc.problems, hint=f"reportgen pdf: {site_dir} does not verify; nothing was printed "
                                             "(run `reportgen build`)") from None
    # both files are new files renamed into place (never written through a link planted there, never
    # left cut), then listed: the site's list of files names what pdf writes too
    printable = _replace(site_dir, PRINT_PAGE, print_page(root, site_dir, pages, site_name))
    sitecheck.add_to_manifest(site_dir, [PRINT_PAGE])
    out = site_dir / PDF_NAME
    if out.is_symlink():   # refused before the browser runs; write_bytes refuses it again
        raise nofollow.refuse(out)
    try:
        data = _print(exe, printable, site_dir)
    except PlaywrightError as exc:
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise ReportError(f"reportgen pdf: the browser {exe!r} failed: {first[:200]!r}; {out} was not written "
                          "(check the browser: REPORTGEN_CHROMIUM, or Debian's chromium)") from None
    _replace(site_dir, PDF_NAME, data)
    sitecheck.add_to_manifest(site_dir, [PDF_NAME])
    say(f"wrote {out}")
    return out


def printed(root, pages=None, site_name=None):
    """What verify holds a site's print.html to: the page assembled from a fresh build's pages (a print.html with
    the pages' 'unconfirmed' flags cut out passed, left out of the comparison as the PDF's bytes are)."""
    return lambda fresh: print_page(root, fresh, *((pages, site_name) if pages is not None else nav_pages(root)))


def print_page(root, site_dir, pages, site_name):
    """The bytes of print.html, checked as a page of its own: cutting the pages' headerlinks out joined
    a docs page's "<<a class=headerlink>x</a>script src=...>" into a <script> the printing browser ran."""
    from reportgen.publish import sitecheck, verify
    page = assemble(site_dir, pages, site_name).encode("utf-8", "replace")
    parsed, where = verify._parse(page), Path(site_dir) / PRINT_PAGE
    made = (sitecheck.markup_problems(where, parsed) + verify._script_problems(root, site_dir, {PRINT_PAGE: parsed})
            + [f"{where}: {e}: loads or goes to something outside the site" for e in parsed.outside]
            + [f"{where}: {e}: a scheme a built page never uses" for e in parsed.schemes])
    made += _print_links_problems(site_dir, page.decode("utf-8"), parsed, where)
    if made:
        raise ReportError(made, hint="reportgen pdf: the page assembled for printing does not pass the pages' "
                                     "checks; nothing was printed")
    return page


def _print_links_problems(site_dir, text, parsed, where):
    """Every id of the print page given once and every link of it resolving (reportgen.publish.links), each named
    with the docs pages it came from: a chart shown on two pages gave its id twice, and "<a href='#why'>" kept a
    link to an id the print page renamed; print.html was written, and every later verify refused it."""
    from reportgen.publish import links
    chunks = [(part.split('"', 1)[0], part) for part in text.split('<section class="print-page md-typeset" id="')[1:]]

    def source(needle):
        return ", ".join(f"{stem}.md" for stem, chunk in chunks if needle in chunk) or "the print page's own frame"
    out = [f"{where}: id {name[:60]!r} is given twice (from {source(f'id={chr(34)}{name}{chr(34)}')}); each id of "
           "a printed page is its own" for name in dict.fromkeys(parsed.twice)]
    ids = {PRINT_PAGE: parsed.ids}
    for href in dict.fromkeys(parsed.links):
        out += [f"{p} (from {source(href)})" for p in links.problems(site_dir, PRINT_PAGE, [href], ids)]
        if len(out) >= 20:
            break
    return out


def _replace(site_dir, name, data):
    """site_dir/name written whole (plainfile.replace_whole); its path."""
    from reportgen.data import plainfile
    path = Path(site_dir) / name
    try:
        plainfile.replace_whole(path, data)
    except OSError as exc:
        raise ReportError(f"{path}: cannot write ({exc.strerror or exc}); free space or fix the folder, then run "
                          "`reportgen pdf` again (the site keeps serving without it)") from None
    return path


def allowed(url, origin):
    """May the browser printing the site load ``url``?  The site's own files, as the local server
    at ``origin`` serves them (it follows no link out of the site), and inline data: never a file:
    URL of this machine, never the network."""
    return url.startswith(origin + "/") or url.startswith("data:")


def _print(exe, printable, site_dir):
    """The PDF bytes of the print page, printed by the browser ``exe`` from a server of the site on
    127.0.0.1 (Playwright errors propagate)."""
    import threading
    from reportgen.commands import serve
    server = serve.open_server(site_dir, 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    origin = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        return _print_from(exe, f"{origin}/{printable.name}", origin)
    finally:
        server.shutdown()
        server.server_close()


def _print_from(exe, url, origin):
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=exe, args=[
            "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"])
        try:
            page = browser.new_page()
            page.route("**/*", lambda r: r.continue_() if allowed(r.request.url, origin) else r.abort())
            page.goto(url, wait_until="load")
            page.emulate_media(media="print")
            # outline: bookmarks from the headings; tagged: a structured (accessible) PDF
            return page.pdf(format="A4", print_background=True, display_header_footer=True,
                            outline=True, tagged=True,
                            header_template="<span></span>",
                            footer_template='<div style="font-size:8px;width:100%;text-align:center;color:#666">'
                                            '<span class="pageNumber"></span> / <span class="totalPages"></span></div>',
                            margin={"top": "14mm", "bottom": "16mm", "left": "12mm", "right": "12mm"})
        finally:
            browser.close()
