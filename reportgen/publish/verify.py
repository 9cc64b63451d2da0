"""`reportgen verify`: results, archive, templates and the built site agree.

Fails (ReportError, exit 1) naming file and field for: a record failing the
schema, a missing or altered log, a figure on a page without a record, an
archived figure missing from the site, an archived figure shown with other
digits, a duplicate id, NaN/inf, and hand-typed figures in page templates.
With ``strict``, also for every acceptance item of the coverage page that is not met.
"""
import hashlib
import json
import os
import posixpath
import re
from pathlib import Path
from urllib.parse import unquote

from reportgen.data import archive, load, logtext, plainfile, safeyaml
from reportgen.publish import coverage, links, sitecheck
from reportgen.publish.pagecontent import SAFE_SCHEMES, typed_figures
from study import leftovers, schema
from reportgen.errors import ReportError

# A number followed by a unit, outside placeholders and code: a hand-typed result (the Chinese
# units milliseconds, seconds and times are written as \u escapes: no CJK in Python).



URL_ATTRIBUTES = ("src", "href", "srcset", "action", "formaction", "poster", "data", "xlink:href", "background")
"""Attributes whose value a browser loads or follows: each may name a path of the site or a scheme of
SAFE_SCHEMES only.  A page that loads file:///... (or runs javascript:) in a reader's browser, or in
the browser `reportgen pdf` drives, was not built by reportgen."""
_SCHEME = re.compile(r"^\s*([a-zA-Z][a-zA-Z0-9+.\-]*):")
RESOURCES = {"script": ("src",), "img": ("src", "srcset"), "iframe": ("src",), "frame": ("src",), "embed": ("src",),
             "object": ("data",), "link": ("href",), "source": ("src", "srcset"), "video": ("src", "poster"),
             "audio": ("src",), "track": ("src",), "input": ("src",), "image": ("href", "xlink:href")}
"""What an element loads by itself (a link is followed only when clicked): a built page loads every
resource from the site, never from another host (mkdocs.yml vendors even the search shim)."""
_OUTSIDE = re.compile(r"^[\s\x00-\x1f]*(?:[a-zA-Z][a-zA-Z0-9+.\-]*:|[/\\][/\\])")
"""A URL of another origin: a scheme (https:, data:) or a protocol-relative //host."""


NAMED_ON_DOCUMENT = ("img", "image", "form", "iframe", "embed", "object")
"""Elements whose name (and, for embed and object, id) becomes a property of document that hides the
built-in one: <img name="currentScript"> is document.currentScript to every script of the page (a
script that finds its own URL there loads its neighbours from the image's folder); a browser reads
<image> as <img>."""


class _Nums(sitecheck.Markup):
    """Collect data-num elements (id, kind, text, href), element ids, elements dressed as figures
    without a data-num, and links or resources with a scheme outside SAFE_SCHEMES, of one page
    (and, as every file of the site, its event attributes and inline scripts)."""

    def __init__(self):
        super().__init__()
        self.nums, self.ids, self._open, self.forged, self.schemes, self.outside = [], set(), None, [], [], []
        self._plain = None   # an open "num failed" status or "num legend" sample: words, never digits
        self.scripts = []    # every <script src>, as written: _script_problems resolves it against the page
        self.clobber = []    # elements that name a property of document (<img name=currentScript>)
        self.twice = []      # ids given to two elements: a script reads the first (Material's #__config)
        self.links = []      # every <a href>, as written: _link_problems resolves each in the site

    def handle_starttag(self, tag, attrs):
        url_count, said, inline = len(self.urls), len(self.schemes) + len(self.outside), len(self.inline)
        super().handle_starttag(tag, attrs)
        attrs = dict(attrs)
        if "srcdoc" in attrs:   # said once below, as a page's inline frame
            del self.inline[inline:]
        if "id" in attrs:
            if attrs["id"] in self.ids:
                self.twice.append(attrs["id"])
            self.ids.add(attrs["id"])
        if (tag == "script" or tag.endswith(":script")) and attrs.get("src") is not None:
            self.scripts.append(attrs["src"])
        if tag == "a" and attrs.get("href") is not None:
            self.links.append(attrs["href"])
        for name in URL_ATTRIBUTES:
            scheme = _SCHEME.match(attrs.get(name) or "")
            if scheme and scheme.group(1).lower() not in SAFE_SCHEMES:
                self.schemes.append(f"<{tag} {name}={str(attrs[name])[:80]!r}>")
        for name in RESOURCES.get(tag, ()):   # srcset: "url 1x, url 2x"
            urls = (attrs.get(name) or "").split(",") if name == "srcset" else [attrs.get(name) or ""]
            if any(_OUTSIDE.match(url) for url in urls):
                self.outside.append(f"<{tag} {name}={str(attrs[name])[:80]!r}>")
        if tag in NAMED_ON_DOCUMENT and ("name" in attrs or tag in ("embed", "object")) and \
                (tag, attrs.get("name")) != ("form", "search"):   # the theme's search form is document.search
            self.clobber.append(f"<{tag} {' '.join(f'{k}={v!r:.40}' for k, v in attrs.items() if k in ('name', 'id'))}>")
        if tag == "base" or "srcdoc" in attrs or (tag == "meta" and str(attrs.get("http-equiv")).lower() == "refresh"):
            self.outside.append(f"<{tag} {' '.join(attrs)[:60]}>")   # another base, an inline frame, a redirect
        classes = set((attrs.get("class") or "").split())
        if "data-num" not in attrs and {"num", "fig"} & classes:
            element = f"<{tag} class={attrs.get('class')!r}>"
            if classes & {"failed", "legend"}:   # a failed case's status, the legend of index.md
                self._plain = {"tag": tag, "element": element, "text": ""}
            else:
                self.forged.append(element)
        if "data-num" in attrs:
            classes = attrs.get("class", "").split()
            self._open = {"id": attrs["data-num"], "href": attrs.get("href"), "text": "",
                          "kind": "historical" if "hist" in classes else "current"}
        if len(self.schemes) + len(self.outside) > said:   # a javascript: link said once, as a page's link
            del self.urls[url_count:]

    def handle_data(self, data):
        super().handle_data(data)   # a script's data holding "</" (Markup)
        if self._open is not None:
            self._open["text"] += data
        if self._plain is not None:
            self._plain["text"] += data

    def handle_endtag(self, tag):
        super().handle_endtag(tag)   # a JSON script's end (Markup)
        if self._plain is not None and tag == self._plain["tag"]:
            if any(c.isdigit() for c in self._plain["text"]):
                self.forged.append(self._plain["element"] + f" showing {self._plain['text'][:40]!r}")
            self._plain = None
        if self._open is not None and tag in ("a", "span"):
            self.nums.append(self._open)
            self._open = None


PRINT_PAGE = "print.html"
"""The whole article on one page, assembled from the built pages by `reportgen pdf`: its figures are
the pages' figures, so each must be listed for some page (not for print.html itself)."""


def _html_page(src):
    """numbers.json names a page by its source (gemm.md); the site has gemm.html."""
    return (src or "")[:-3] + ".html" if (src or "").endswith(".md") else (src or "")


_PARSED = {}
"""sha256 of a page's bytes -> its parse (figures and element ids, read only). A build verifies its
site once, but tests and `reportgen pdf` verify the same pages again in one process; parsing is
most of a verification and the digest costs a small part of it, so a page is parsed once per
content, never per path or time stamp (a changed byte is a new parse)."""
_PARSED_MAX = 4096


def _parse(data):
    key = hashlib.sha256(data).digest()
    if key not in _PARSED:
        if len(_PARSED) >= _PARSED_MAX:
            _PARSED.clear()
        parser = _Nums()
        # as read_text reads it; a marked section '<![' (refused by the page checks) is text to plainfile.Parser
        parser.feed(data.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n"))
        parser.close()
        _PARSED[key] = parser
    return _PARSED[key]


def _tree(folder, suffix=""):
    """Path(folder).rglob("*" + suffix), sorted, through plainfile.walk (no recursion, bounded depth:
    sitecheck.manifest_problems names a folder nested too deep)."""
    return [p for p in plainfile.tree(folder) if p.name.endswith(suffix)] if Path(folder).is_dir() else []


def _is_page(rel):
    return rel.endswith(".html") and not rel.startswith(("data/", "assets/"))


def _parse_pages(site_dir, problems):
    pages = {}
    for path in _tree(site_dir, ".html"):
        rel = path.relative_to(site_dir).as_posix()
        if not _is_page(rel) or path.is_symlink():
            continue
        try:
            pages[rel] = _parse(plainfile.read_bytes(path, sitecheck.FILE_LIMIT))
        except ReportError as exc:
            problems.extend(exc.problems)
    return pages


_TEMPLATE_SCRIPT = re.compile(r"""<script\b[^>]*\bsrc=["']\{\{\s*['"]([^'"]+)['"]\s*\|\s*url\s*\}\}""")
"""A theme template's own script: <script src="{{ 'assets/javascripts/bundle.a5f9d56c.min.js' | url }}">."""
_TEMPLATE_WORKER = re.compile(r"""["']search["']\s*:\s*["']([^"']+)["']\s*\|\s*url""")
"""The search worker a theme names in its #__config: "search": "assets/javascripts/workers/search.a7633da7.min.js" | url."""
CONFIG_ID, _SPEC_ID = sitecheck.CONFIG_ID, sitecheck.SPEC_ID
_BASE = re.compile(r"/|\.|\.\.(?:/\.\.)*")
"""The #__config base of a built page: / (the 404 page), . or ../.. (a page's way up to the site's root)."""


_THEME_FOLDERS = {}
"""_theme_folders' answer per (mkdocs.yml, its inode, size and times): verify asks three checks for it."""


def _theme_folders(root):
    """The theme's folders mkdocs.yml names (Material's, then its custom_dir)."""
    import yaml
    from mkdocs.utils import get_theme_dir
    path = Path(root) / "mkdocs.yml"
    try:
        st = os.lstat(path)
        key = (str(path.resolve()), st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
        if key not in _THEME_FOLDERS:
            config = safeyaml.loads(plainfile.read_text(path, plainfile.MAX_ARCHIVE_FILE_BYTES))   # bounded depth
            theme = config.get("theme") if isinstance(config.get("theme"), dict) else {"name": config.get("theme")}
            _THEME_FOLDERS.clear()
            _THEME_FOLDERS[key] = [Path(get_theme_dir(theme["name"]))] + (
                [Path(root) / theme["custom_dir"]] if theme.get("custom_dir") else [])
        return list(_THEME_FOLDERS[key])
    except (OSError, ValueError, yaml.YAMLError, AttributeError, KeyError, TypeError) as exc:
        raise ReportError(f"{path}: cannot tell the theme's folders ({type(exc).__name__}: {str(exc)[:120]})") from None


def _stylesheet_problems(root, site_dir):
    """Every stylesheet of the site but the theme's own (the same bytes at the same path of a theme
    folder) is strict UTF-8 without hidden characters and holds no rule that shows text otherwise than
    a page writes it (sitecheck.stylesheet_problems with the project's rules): a docs stylesheet reversed
    "gol.exe", put "0.01 ms" after a figure it hid with font-size:0.  The one reading of each stylesheet."""
    try:
        folders = _theme_folders(root)
    except ReportError as exc:
        return exc.problems
    out = []
    for path in [p for p in _tree(site_dir) if p.name.lower().endswith(".css") and p.is_file()]:   # u.CSS too
        rel = path.relative_to(site_dir).as_posix()
        theirs = next((f / rel for f in folders if (f / rel).is_file()), None)
        try:
            own = theirs is not None and plainfile.read_bytes(theirs, sitecheck.FILE_LIMIT) == \
                plainfile.read_bytes(path, sitecheck.FILE_LIMIT)
        except (OSError, ReportError):
            own = False
        if not own:
            out.extend(sitecheck.stylesheet_problems(path, rules=True))
    return out


def shipped_scripts(root, workers=False):
    """The site paths of every script a built page loads: the theme's own (Material's bundle, and the
    custom_dir's files standing in for its inline scripts) and mkdocs.yml's extra.polyfills and
    extra_javascript (charts.js, which loads the vendored chart libraries itself).  ``workers``: the
    paths of the search workers the theme's templates name in #__config instead."""
    return _shipped(root)[1 if workers else 0]


def _shipped(root):
    """(shipped_scripts, its workers), from one reading of mkdocs.yml and the theme's templates."""
    import yaml
    path = Path(root) / "mkdocs.yml"
    folders = _theme_folders(root)
    try:
        config = safeyaml.loads(plainfile.read_text(path, plainfile.MAX_ARCHIVE_FILE_BYTES))   # bounded depth
        texts = [template.read_text(encoding="utf-8", errors="replace") for folder in folders
                 for template in _tree(folder, ".html")]
        scripts = {found for text in texts for found in _TEMPLATE_SCRIPT.findall(text)}
        workers = {found for text in texts for found in _TEMPLATE_WORKER.findall(text)}
        for item in (list((config.get("extra") or {}).get("polyfills") or []) + list(config.get("extra_javascript") or [])):
            scripts.add(item["path"] if isinstance(item, dict) else item)
        return tuple({posixpath.normpath(str(script)) for script in found} for found in (scripts, workers))
    except (OSError, ValueError, yaml.YAMLError, AttributeError, KeyError, TypeError) as exc:
        raise ReportError(f"{path}: cannot tell the scripts the build ships ({type(exc).__name__}: {str(exc)[:120]})") from None


def _site_path(rel, src):
    """The site path a URL of page ``rel`` names (query and fragment dropped, %-escapes decoded)."""
    path = unquote(re.split(r"[?#]", src.strip().replace("\\", "/"))[0])
    return posixpath.normpath(path.lstrip("/") if path.startswith("/") else posixpath.join(posixpath.dirname(rel), path))


def _script_problems(root, site_dir, pages):
    """A page loads only the scripts the build ships: a file planted in docs/assets/js, or a cited log,
    loaded with <script src> ran on the site's origin, which the policy's 'self' allows."""
    try:
        shipped, workers = _shipped(root)
    except ReportError as exc:
        return exc.problems
    out = []
    for rel, parsed in pages.items():   # the pages _check_site read (_parse_pages), parsed once
        for src in parsed.scripts:
            if _OUTSIDE.match(src) or _SCHEME.match(src):   # said as another origin or scheme
                continue
            if _site_path(rel, src) not in shipped:
                out.append(f"{site_dir / rel}: <script src={src[:80]!r}>: not a script the build ships (the theme's, "
                           "mkdocs.yml's extra_javascript and polyfills); a page loads no other file as a script")
        out.extend(f"{site_dir / rel}: id {name[:60]!r}: given to two elements (a script reads the first: a page's own "
                   f"#{CONFIG_ID} came before the theme's)" for name in dict.fromkeys(parsed.twice))
        out.extend(_data_problems(site_dir / rel, rel, parsed.data, workers))
        out.extend(f"{site_dir / rel}: {element}: names a property of document (a script reading document.currentScript "
                   "or document.head would read this element); a built page has no named image, frame, embed or "
                   "object, and one named form (search)" for element in parsed.clobber)
    return out


def _data_problems(where, rel, data, workers):
    """The JSON a page holds is the theme's #__config, naming the search worker it ships, and the charts'
    specs: Material starts a Worker from the config's "search" URL, and vega-embed takes options
    (loader, expression functions) from a spec's "usermeta"."""
    out = []
    for tag, name, text in data:
        said = f"{where}: <{tag} id={name[:60]!r}>: JSON data the build does not write"
        if name != CONFIG_ID and not _SPEC_ID.fullmatch(name):
            out.append(f"{said} (only the theme's #{CONFIG_ID} and the charts' spec-<name>)")
            continue
        try:
            value = schema.loads(text) if tag == "script" else None
        except ValueError as exc:
            out.append(f"{said}: not valid JSON ({str(exc)[:80]})")
            continue
        hidden = plainfile.hidden_text_problem(said, json.dumps(value, ensure_ascii=False)) if value else None
        if not isinstance(value, dict):
            out.append(f"{said}: not a JSON object in a <script type=application/json>")
        elif hidden:   # "\u202e" in a spec's labels: an escape no check of the text saw
            out.append(f"{hidden} (JSON escapes decoded)")
        elif name == CONFIG_ID:
            search, base = value.get("search"), value.get("base")
            if not (isinstance(base, str) and _BASE.fullmatch(base)):
                out.append(f"{said}: base {str(base)[:60]!r} is not the way up to the site's root")
            if not (isinstance(search, str) and _site_path(rel, search) in workers):
                out.append(f"{said}: search {str(search)[:60]!r} is not the theme's search worker (Material "
                           "starts a Worker from it, on the site's origin)")
        elif "usermeta" in value:
            out.append(f"{said}: a chart spec with usermeta (vega-embed reads its options from it)")
    return out


_INDEX_FIELDS = {"id": str, "page": str, "kind": str}
_CURRENT_FIELDS = {"run": str, "record": str, "sha256": str}


def _index_problems(index_path, index):
    """numbers.json is a list of figure entries of the shape verify reads (else one line, not a crash)."""
    if not isinstance(index, list):
        return [f"{index_path}: expected a list of figures, got {type(index).__name__}"]
    for i, entry in enumerate(index):
        fields = dict(_INDEX_FIELDS, **(_CURRENT_FIELDS if isinstance(entry, dict)
                                        and entry.get("kind") == "current" else {}))
        if not isinstance(entry, dict):
            return [f"{index_path}: [{i}]: expected an object, got {type(entry).__name__}"]
        for name, want in fields.items():
            if not isinstance(entry.get(name), want):
                return [f"{index_path}: [{i}].{name}: expected a {want.__name__}, got {entry.get(name)!r:.60}"]
        if not isinstance(entry.get("value", ""), str):   # the figure's text, as the page shows it
            return [f"{index_path}: [{i}].value: expected a str, got {entry['value']!r:.60}"]
        if entry["kind"] not in ("current", "historical"):
            return [f"{index_path}: [{i}].kind: {entry['kind']!r:.40} is not current or historical"]
    return []


def _check_site(site_dir, tables, records, read_pages=None):
    """The pages against the figure index and the records. ``read_pages``: (pages, read problems) of
    _parse_pages when the caller has read them already (else they are read here)."""
    problems = []
    index_path = site_dir / "numbers.json"
    try:
        index = sitecheck.read_json(index_path)
    except ReportError as exc:
        return [f"{p} (the figure index)" for p in exc.problems]
    problems = _index_problems(index_path, index)
    if problems:
        return problems
    indexed = {(_html_page(e["page"]), e["id"]): e for e in index}
    by_id = {e["id"]: e for e in index}
    cells = {c.id: c for t in tables.values() for c in t.figures()}
    if read_pages is None:
        pages = _parse_pages(site_dir, problems)
    else:
        pages, read = read_pages
        problems.extend(read)
    for rel, page in pages.items():
        problems.extend(sitecheck.markup_problems(site_dir / rel, page))
    for (rel, figure_id), entry in sorted(indexed.items()):   # numbers.json -> pages
        if rel not in pages or figure_id not in {n["id"] for n in pages[rel].nums}:
            problems.append(f"{index_path}: figure {figure_id!r} is listed for {entry['page']} but that page "
                            "does not show it")
    values = {}
    for entry in index:
        values.setdefault(entry["id"], set()).add(entry.get("value"))
    ids = {rel: parsed.ids for rel, parsed in pages.items()}
    for rel, parsed in pages.items():                         # pages -> numbers.json
        problems.extend(links.problems(site_dir, rel, parsed.links, ids))
        problems.extend(f"{site_dir / rel}: {element}: dressed as a figure but without a data-num "
                        "(every figure of a page is indexed in numbers.json)" for element in parsed.forged)
        problems.extend(f"{site_dir / rel}: {element}: a scheme a built page never uses "
                        f"(only paths of the site and {', '.join(SAFE_SCHEMES)})" for element in parsed.schemes)
        problems.extend(f"{site_dir / rel}: {element}: loads or goes to something outside the site (a built page "
                        "loads every resource from the site; it has no base, redirect or inline frame)"
                        for element in parsed.outside)
        for num in parsed.nums:
            where = f"{site_dir / rel}: figure {num['id']!r}"
            entry = indexed.get((rel, num["id"])) if rel != PRINT_PAGE else by_id.get(num["id"])
            if entry is None:
                problems.append(f"{where}: not in numbers.json for this page" if rel != PRINT_PAGE
                                else f"{where}: not in numbers.json")
                continue
            if num["kind"] == "historical":
                cell = cells.get(num["id"])
                if cell is None:
                    problems.append(f"{where}: no such archived figure")
                elif num["text"] != cell.text:
                    problems.append(f"{where}: shows {num['text']!r} but the archive has {cell.text!r}")
                continue
            shown = {entry.get("value")} if rel != PRINT_PAGE else values.get(num["id"], set())
            if num["text"] not in shown:
                problems.append(f"{where}: shows {num['text']!r:.60} but numbers.json has "
                                f"{' or '.join(repr(v) for v in sorted(shown, key=str))[:120]}")
            rec = records.get((entry["run"], entry["record"]))
            if rec is None:
                problems.append(f"{where}: record {entry['record']!r} of run {entry['run']!r} is not in results/")
            elif rec["log"]["sha256"] != entry["sha256"]:
                problems.append(f"{where}: sha256 differs from record {entry['record']!r}")
            problems.extend(_href_problems(site_dir, rel, num, pages, where))
    problems.extend(_machine_problems(site_dir, index))
    missing = coverage.archived_missing(index, tables)
    problems.extend(f"{index_path}: archived figure {m!r} appears on no page" for m in missing)
    return problems


def _machine_problems(site_dir, index):
    """Every current figure outside the cross-machine page (and its provenance pages) belongs to the
    publication machine named in site/machine.json -- or says its machine in its id
    (``<machine>/<record id>#...``: a section measured only on another machine, which the page
    names above its tables)."""
    path = site_dir / "machine.json"
    try:
        machine = sitecheck.read_json(path)["publication_machine"]
    except ReportError as exc:
        return exc.problems
    except (KeyError, TypeError) as exc:
        return [f"{path}: cannot read the publication machine: {exc}"]
    out = []
    for entry in index:
        if entry["kind"] != "current" or entry["page"] == "machines.md":
            continue
        if entry.get("machine") != machine and not str(entry["id"]).startswith(f"{entry.get('machine')}/"):
            out.append(f"{site_dir / 'numbers.json'}: figure {entry['id']!r} on {entry['page']}: machine "
                       f"{entry.get('machine')!r} is not the publication machine {machine!r}")
    return out


def _href_problems(site_dir, rel, num, pages, where):
    href = num["href"] or ""
    path, _, anchor = href.partition("#")
    target = (site_dir / rel).parent.joinpath(path).resolve()
    try:
        target_rel = target.relative_to(site_dir.resolve()).as_posix()
    except ValueError:
        return [f"{where}: link {href!r} leaves the site"]
    parsed = pages.get(target_rel)
    if parsed is None:
        return [f"{where}: link {href!r} points to a missing page"]
    if anchor and anchor not in parsed.ids:
        return [f"{where}: link {href!r}: anchor #{anchor} not found on {target_rel}"]
    return []


def _published_data_problems(site_dir, runs):
    """site/ holds no symlink, and site/data/runs is exactly the runs' own files (nothing planted)."""
    out = []
    for top, dirs, names in plainfile.walk(site_dir):
        for name in dirs + names:
            if os.path.islink(os.path.join(top, name)):
                out.append(f"{os.path.join(top, name)}: is a symlink; a published site holds only plain files")
    by_id = {run.run_id: run for run in runs}
    data = site_dir / "data" / "runs"
    for path in _tree(data):
        if not path.is_file() or path.is_symlink():
            continue
        run_id, rel = path.relative_to(data).parts[0], path.relative_to(data / path.relative_to(data).parts[0])
        run = by_id.get(run_id)
        if run is None:
            out.append(f"{path}: published data of run {run_id!r}, which is not in results/")
            continue
        name = rel.as_posix()
        if Path(name).suffix.lower() not in schema.RUN_FILE_TYPES:
            out.append(f"{path}: results/runs/{run_id}/{name} is a {Path(name).suffix or 'typeless'} file, which a "
                       f"static host serves as a document of its own, outside the pages' policy; a site ships "
                       f"only the run files a run may carry ({' '.join(schema.RUN_FILE_TYPES)})")
            continue
        if name == "run.json":   # the manifest itself, as load read it
            try:
                same = json.loads(_site_bytes(path) or b"") == run.manifest
            except (ValueError, RecursionError):   # 10^5 "[" planted in the site
                same = False
        elif name not in run.manifest["files"]:
            out.append(f"{path}: not a file of run {run_id} (run.json files does not list it)")
            continue
        else:                    # the file as the run holds it (load checked its sha256), or its truncated copy
            same = _site_bytes(path) == load.shipped_bytes(run, name)
        if not same:
            out.append(f"{path}: differs from results/runs/{run_id}/{name}")
    return out


def _site_bytes(path):
    """A site file's bytes, or None when it is over sitecheck.FILE_LIMIT or no plain file (never read:
    manifest_problems names it); the comparison then reports it as differing."""
    try:
        return plainfile.read_bytes(path, sitecheck.FILE_LIMIT)
    except (ReportError, OSError):
        return None


SIZE_BUDGET_MB = 40
"""What a built site may weigh (MB, 10^6 bytes): it ships what its pages cite, so it grows with the
pages, not with the history of runs; a site over the budget is a regression to find, not to raise."""


def _size_problems(site_dir, budget_mb=SIZE_BUDGET_MB):
    sizes = {}
    for top, _dirs, names in plainfile.walk(site_dir):
        for name in names:
            path = os.path.join(top, name)
            if not os.path.islink(path):
                sizes[path] = os.path.getsize(path)
    total = sum(sizes.values())
    if total <= budget_mb * 1e6:
        return []
    largest = sorted(sizes, key=sizes.get, reverse=True)[:3]
    return [f"{site_dir}: {total / 1e6:.1f} MB, over the {budget_mb} MB budget (largest: "
            + ", ".join(f"{os.path.relpath(p, site_dir)} {sizes[p] / 1e6:.1f} MB" for p in largest) + ")"]


def _shipped_problems(folder, names, differs, unknown):
    """Files under ``folder`` named <run>/<name>: each must be a key of ``names`` (its value the
    record it comes from) and pass ``differs(path, record)`` (a message, or None when unaltered)."""
    out = []
    for path in _tree(folder):
        if not path.is_file() or path.is_symlink():
            continue
        parts = path.relative_to(folder).parts
        rec = names.get(tuple(parts)) if len(parts) == 2 else None
        problem = f"{path}: {unknown}" if rec is None else differs(path, rec)
        if problem:
            out.append(problem)
    return out


def _shipped_runs(folder, runs):
    """The runs that have a folder under ``folder`` (only their records can name a shipped file;
    a folder of no run is reported by _shipped_problems, file by file)."""
    present = {p.name for p in folder.iterdir()} if folder.is_dir() else set()
    return [run for run in runs if run.run_id in present]


def _published_records_problems(site_dir, runs):
    """site/data/records holds, per run, records of that run under their own names, unaltered."""
    from reportgen.render.figures import record_file

    def differs(path, rec):
        try:
            same = json.loads(_site_bytes(path) or b"") == rec
        except (ValueError, RecursionError):   # 10^5 "[" planted in the site
            same = False
        return None if same else f"{path}: differs from record {rec['id']} of run {rec['run_id']}"
    names = {(run.run_id, record_file(rec["id"])): rec for run in _shipped_runs(site_dir / "data" / "records", runs)
             for rec in run.records}
    return _shipped_problems(site_dir / "data" / "records", names, differs,
                             "not a record of a run in results/ (no record of that run has this name)")


def _published_excerpts_problems(site_dir, runs, results_dir):
    """site/data/logs holds, per run, the cited lines of its records' logs, unaltered."""
    from reportgen.render.figures import log_excerpt_file

    def differs(path, rec):
        if _site_bytes(path) == logtext.excerpt_text(results_dir, rec).encode("utf-8"):
            return None
        return f"{path}: differs from lines {rec['log']['lines']} of {rec['log']['path']}"
    names = {(run.run_id, log_excerpt_file(rec)): rec for run in _shipped_runs(site_dir / "data" / "logs", runs)
             for rec in run.records if rec.get("log")}
    return _shipped_problems(site_dir / "data" / "logs", names, differs,
                             "not the cited lines of a record of a run in results/")


def _csp_problems(site_dir):
    """Every page of the site (the 404 page and print.html too) declares the content policy."""
    from reportgen.publish.plugin import CSP_META
    out = []
    for path in _tree(Path(site_dir), ".html"):
        if path.is_symlink():
            continue
        try:   # a plain file within the limit: a FIFO named x.html would hang the read, a sparse one fill memory
            page = plainfile.read_bytes(path, sitecheck.FILE_LIMIT).decode("utf-8", errors="replace")
        except (ReportError, OSError) as exc:
            out.extend(getattr(exc, "problems", None) or [f"{path}: cannot read: {exc.strerror}"])
            continue
        if CSP_META not in page:
            out.append(f"{path}: no Content-Security-Policy meta element (every page of the site declares it)")
    return out


def _running_problems(root, site_dir, pages):
    """What could make a browser run script from the site, besides the pages' own markup: other
    documents, scripts and JSON settings the build does not ship, a page without the content policy."""
    found = (sitecheck.other_markup_problems(site_dir, _is_page, stylesheets=False) + _script_problems(root, site_dir, pages)
             + _stylesheet_problems(root, site_dir) + _csp_problems(site_dir)
             + _search_index_problems(site_dir, root))
    return found


def _search_index_problems(site_dir, root=None):
    """The search index's languages are language codes: Material's worker loads lunr.<lang>.min.js from
    each (config.lang "x/../../evil" ran a file of the site as its script)."""
    path = Path(site_dir) / "search" / "search_index.json"
    if not path.exists():
        return []
    try:
        config = sitecheck.read_json(path).get("config") or {}
    except (ReportError, AttributeError) as exc:
        return getattr(exc, "problems", None) or [f"{path}: expected an object with a config"]
    langs = config.get("lang") if isinstance(config, dict) else None
    if not isinstance(langs, list) or not all(isinstance(x, str) and re.fullmatch(r"[a-z]{2,3}(?:-[a-z]{2,4})?", x)
                                              for x in langs):
        return [f"{path}: config.lang: {str(langs)[:60]!r} is not a list of language codes (the search worker loads "
                "a script named after each)"]
    try:
        folders = _theme_folders(root) if root is not None else []
    except ReportError as exc:
        return exc.problems
    lunr = "assets/javascripts/lunr/min/lunr.{}.min.js"
    return [f"{path}: config.lang: {x!r}: the theme ships no {lunr.format(x)} (a planted one would run in the worker)"
            for x in langs if x != "en" and folders and not any((f / lunr.format(x)).is_file() for f in folders)]


def script_problems(root, site_dir):
    """Every check of what a browser runs from the site (`reportgen serve` makes them at start: the
    manifest proves a file unchanged since the build only if nobody rewrote the manifest too)."""
    site_dir = Path(site_dir)
    problems = []
    pages = _parse_pages(site_dir, problems)
    for rel, page in pages.items():
        problems.extend(sitecheck.markup_problems(site_dir / rel, page))
    return problems + _running_problems(root, site_dir, pages)


def verify(root, site_dir=None, strict=False, runs=None):
    """Raise ReportError listing every problem; return quietly when all is well.

    ``strict``: an unmet coverage item (site/coverage.json) is a problem too. ``runs``: the runs a
    build has just read and validated with load.read_runs (else they are read here).
    `reportgen verify` and `reportgen pdf` also compare the site with a fresh build
    (commands.build.verify_site).
    """
    from reportgen.publish.plugin import run_problems
    root = Path(root)
    runs, _campaigns, problems = run_problems(root / "results", runs)
    tables = {}
    try:
        tables, _envs = archive.read_archive(root / "archive")
    except ReportError as exc:
        problems.extend(exc.problems)
    problems.extend(typed_figures(root / "docs"))
    if site_dir is not None and tables and not problems:
        records = {(rec["run_id"], rec["id"]): rec for run in runs for rec in run.records}
        site_dir = Path(site_dir)
        if not site_dir.exists():
            problems.append(f"{site_dir}: no built site; run `reportgen build`{leftovers.stopped_swap(site_dir)}")
        else:
            problems.extend(sitecheck.manifest_problems(site_dir))
            read = []
            pages = _parse_pages(site_dir, read)
            problems.extend(_check_site(site_dir, tables, records, (pages, read)))
            problems.extend(_running_problems(root, site_dir, pages))
            problems.extend(_published_data_problems(site_dir, runs))
            problems.extend(_published_records_problems(site_dir, runs))
            problems.extend(_published_excerpts_problems(site_dir, runs, root / "results"))
            problems.extend(_size_problems(site_dir))
            if strict:
                problems.extend(coverage.strict_problems(site_dir / "coverage.json"))
    if problems:
        raise ReportError(problems)
    return True


__all__ = ["verify", "script_problems", "typed_figures", "schema"]
