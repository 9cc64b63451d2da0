"""A built site is what the build wrote, and what a fresh build from results/ writes.

- The build lists every file of the site with its sha256 in ``site-files.json`` (``reportgen pdf``
  adds the two files it writes); verify refuses a file the list lacks (a planted page), a listed
  file that is missing, and one whose bytes differ (a changed JS bundle, chart, CSV download or
  coverage.json).
- No HTML or SVG file of the site holds an event attribute (onerror=...) or an inline script (the
  pages' policy allows neither; the only inline <script> elements are JSON data).
- ``rebuild_problems`` (`reportgen verify` and `reportgen pdf`, through commands.build.verify_site) builds the site again from results/
  and the archive into a temporary folder and compares the two lists: numbers.json, the chart data,
  the CSV downloads and coverage.json are recomputed, never trusted, so a forgery that rewrote a
  figure, the index and the list together is still refused.  Builds are byte-for-byte repeatable.
- Every JSON file verify reads is read bounded (size and nesting): one line naming the file.
"""
import contextlib
import hashlib
import html
import io
import os
import re
import shutil
from pathlib import Path

from reportgen.data import merge, plainfile
from reportgen.errors import ReportError
from study import leftovers, schema

MANIFEST = "site-files.json"
PDF_OUTPUTS = ("print.html", "study.pdf")
"""Written into a built site by `reportgen pdf` (listed by it, and left out of the rebuild comparison)."""
JSON_LIMIT = 32 * 2**20
"""The most bytes numbers.json, coverage.json, machine.json or site-files.json may have (a site's
index is about 1.5 MB): a larger one is refused unread."""
FILE_LIMIT = 64 * 2**20
"""The most bytes any file of a site may have (the site's budget is 40 MB in all)."""
_HEX = re.compile(r"[0-9a-f]{64}")
DATA_SCRIPT_TYPES = ("application/json",)
"""<script> types that are data, never run (Material's __config, the charts' specs)."""
CONFIG_ID = "__config"
"""The element Material's bundle reads its settings from (the first of that id), the search worker's URL among them."""
SPEC_ID = re.compile(r"spec-[A-Za-z0-9_]+")
"""A chart's Vega-Lite spec (charts.embed_html), read by charts.js as the data of div.vchart."""


def read_json(path, limit=JSON_LIMIT):
    """A JSON file of the site, bounded: ReportError in one line naming it (too big, not a plain
    file, not UTF-8, invalid, nested deeper than schema.MAX_DEPTH)."""
    try:
        data = plainfile.read_bytes(path, limit)
        return schema.loads(data.decode("utf-8"))
    except FileNotFoundError:
        raise ReportError(f"{path}: missing") from None
    except (OSError, ValueError, RecursionError) as exc:
        raise ReportError(f"{path}: {str(exc)[:200] or type(exc).__name__}") from None


def _files(site_dir, problems=None):
    """{relative path: absolute path} of every plain file of the site (links are verify's to refuse;
    a folder nested too deep is a line in ``problems``, plainfile.walk)."""
    out = {}
    for top, dirs, names in plainfile.walk(site_dir, problems, "a built site"):
        dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(top, d))]
        for name in names:
            path = os.path.join(top, name)
            if not os.path.islink(path):
                out[Path(path).relative_to(site_dir).as_posix()] = path
    return out


def _sha256(path):
    """sha256 of a plain file of at most FILE_LIMIT bytes (ReportError naming it otherwise: a FIFO
    or a huge file planted in a site is refused, never read)."""
    return hashlib.sha256(plainfile.read_bytes(path, FILE_LIMIT)).hexdigest()


def _write(site_dir, files):
    """Write the manifest whole or not at all (pdf adds to a published site's manifest; a write cut by
    a full disk left it cut, and every check refused the site)."""
    import json
    text = json.dumps({"files": dict(sorted(files.items()))}, indent=0) + "\n"
    plainfile.replace_whole(Path(site_dir) / MANIFEST, text.encode("utf-8"))


def write_manifest(site_dir):
    """List every file of a freshly built site with its sha256 (the build calls it before verify)."""
    site_dir = Path(site_dir)
    _write(site_dir, {rel: _sha256(path) for rel, path in _files(site_dir).items() if rel != MANIFEST})


def add_to_manifest(site_dir, names):
    """Add (or update) the files ``names`` that `reportgen pdf` has just written."""
    site_dir = Path(site_dir)
    files = read_manifest(site_dir)
    files.update({name: _sha256(site_dir / name) for name in names})
    _write(site_dir, files)


def drop_broken(site_dir, names):
    """Remove those of the files ``names`` (`reportgen pdf`'s outputs) that differ from their entry, or
    have none, or an entry without its file: a pdf stopped while it replaced them (a kill, a full disk)
    left a file its list did not name.  An output intact is kept: a verify that then refuses the site,
    or a print that fails, leaves the published PDF in place.  The list is written first; a link is
    removed, never its target."""
    site_dir = Path(site_dir)
    files = read_manifest(site_dir)
    broken = []
    for name in names:
        path = site_dir / name
        try:
            intact = name in files and _sha256(path) == files[name]
        except (OSError, ReportError):
            intact = False
        if not intact and (name in files or os.path.lexists(path)):
            broken.append(name)
    if any(name in files for name in broken):
        _write(site_dir, {rel: sha for rel, sha in files.items() if rel not in broken})
    for name in broken:
        if os.path.lexists(site_dir / name) and not os.path.isdir(site_dir / name):
            os.unlink(site_dir / name)
    return broken


def read_manifest(site_dir):
    path = Path(site_dir) / MANIFEST
    data = read_json(path)
    files = data.get("files") if isinstance(data, dict) else None
    if not isinstance(files, dict) or not all(isinstance(k, str) and isinstance(v, str) and _HEX.fullmatch(v)
                                              for k, v in files.items()):
        raise ReportError(f"{path}: files: expected an object of relative path -> sha256")
    return files


def manifest_problems(site_dir, listed=None):
    """Every file of the site is listed with its sha256, and every listed file is there (``listed``:
    the list as the caller read it, once: serve copies what it checked, never a list read again)."""
    site_dir = Path(site_dir)
    try:
        listed = read_manifest(site_dir) if listed is None else listed
    except ReportError as exc:
        return [f"{p}; `reportgen build` lists every file it writes" for p in exc.problems]
    out = []
    for rel, path in sorted(_files(site_dir, out).items()):
        if rel == MANIFEST:
            continue
        if rel not in listed:
            out.append(f"{path}: not listed in {MANIFEST}: a file the build did not write")
            continue
        try:
            digest = _sha256(path)
        except ReportError as exc:
            out.extend(exc.problems)
            continue
        if digest != listed[rel]:
            out.append(f"{path}: differs from the sha256 {MANIFEST} lists for it (changed after the build)")
    present = _files(site_dir)
    out.extend(f"{site_dir / rel}: listed in {MANIFEST} but missing" for rel in sorted(set(listed) - set(present)))
    return out


class Markup(plainfile.Parser):
    """Event attributes, inline scripts, javascript: URLs and XSLT hooks of one HTML, SVG or XML file
    (verify's page parser extends it)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.events, self.inline, self.urls, self.sources, self.repeated, self.otherwise = [], [], [], [], [], []
        self.script_tags, self.reordered = [], []   # every <script> (a non-page document has none); bidi display
        self.data, self._data = [], None   # [tag, id, text] of every JSON <script> and element with id __config
        self.titles, self.tables = 0, []   # the open table parts: text right inside one is moved by the browser
        self.hidden = None   # ":<line>: holds ..." for the first bidi or zero-width character, entities decoded

    def feed(self, data):
        """Parse ``data``, first refusing what a browser parses otherwise than this parser does, and
        noting the first bidi or zero-width character it shows (entities decoded: &#x202E; is one).  A
        reference of more digits than any character has is read as the U+FFFD a browser shows."""
        data = plainfile.bounded_references(data)
        self.hidden = self.hidden or plainfile.hidden_text_problem("", html.unescape(data))
        self.otherwise.extend(f"{found.group(0)[:20]!r}" for found in _PARSED_OTHERWISE.finditer(data))
        if "\x00" in data or data.startswith("\ufffd\ufffd"):   # UTF-16/32 (a browser follows its mark)
            self.otherwise.append("UTF-16, UTF-32 or NUL bytes")
        if "\x1b" in data or _OTHER_CHARSET.search(data):   # ISO-2022-JP's escapes swallow a quote
            self.otherwise.append("a charset other than UTF-8, or an ESC byte")
        super().feed(data)   # plainfile.Parser reads '<![' as text (noted above)

    def handle_starttag(self, tag, attrs):
        names = [name.lower() for name, _value in attrs]
        if len(set(names)) < len(names):   # a browser reads the first, a dict of them the last
            twice = sorted({n for n in names if names.count(n) > 1})
            self.repeated.append(f"<{tag} {' '.join(twice)[:60]}>")
        if "</" in (self.get_starttag_text() or ""):   # <title><img alt="</title><script>">: a browser ends
            self.otherwise.append(f"<{tag} ...</...>")      # the title there (as written: &lt;/ is text)
        if tag.rsplit(":", 1)[-1] in ("bdo", "dialog", "datalist", "audio", "rp", "video", "canvas", "meter", "progress",
                                      "select") or (tag == "input" and str(dict(attrs).get("type")).lower() == "hidden"):
            self.reordered.append(f"<{tag}>")   # <bdo dir=rtl>gol.exe</bdo> shows exe.log; the browser hides the rest
        if tag in _TABLE_PARTS + ("td", "th", "caption"):
            self.tables.append(tag)
        if tag == "title":
            self.titles += 1
            if self.titles > 1:   # a second <title> in the body: hidden by the browser
                self.reordered.append("<title> (a second one)")
        for name, value in attrs:
            low, text = name.lower(), _css_text(str(value or "")).lower()
            if (low == "dir" and text.strip() not in ("ltr", "auto", "")) or low in ("unicode-bidi", "direction") \
                    or low in ("style", "hidden", "popover", "inert", "data-clipboard-text", "data-clipboard-target"):
                # no built page or chart has one: flex order, font-size:0, hidden or popover text, and a copy
                # button that copied another command than the page shows
                self.reordered.append(f"<{tag} {name}={str(value)[:40]!r}>")
            if name.lower().startswith("on"):
                self.events.append(f"<{tag} {name}={str(value)[:60]!r}>")
            elif name.lower() == "srcdoc":   # an iframe's document, scripts included, inline in one attribute
                self.inline.append(f"<{tag} srcdoc={str(value)[:60]!r}>")
            elif _SCRIPT_URL.search(_URL_NOISE.sub("", str(value or "")).lower()):
                # any attribute: an SVG <animate values="...;javascript:..."> sets a link's href too
                self.urls.append(f"<{tag} {name}={str(value)[:60]!r}>")
        kind = (dict(attrs).get("type") or "").strip().lower() if tag == "script" else None
        named = str(dict(attrs).get("id"))
        if kind in DATA_SCRIPT_TYPES or named == CONFIG_ID or SPEC_ID.fullmatch(named):
            self.data.append([tag if kind is None else "script", named, ""])
            self._data = self.data[-1] if tag == "script" else None   # a non-script's text is not read
        if tag == "script" or tag.endswith(":script"):   # <svg:script>, <html:script> run in XML files too
            self.script_tags.append(f"<{tag}>")
            attrs = dict(attrs)
            kind = (attrs.get("type") or "").strip().lower()
            if "src" not in attrs and kind not in DATA_SCRIPT_TYPES:
                self.inline.append(f"<script{' type=' + repr(kind) if kind else ''}>")
            elif "src" in attrs:
                self.sources.append(f"<{tag} src={str(attrs['src'])[:60]!r}>")
        elif tag.endswith((":element", ":attribute")):   # XSLT making a <script> or an onload=
            made = (dict(attrs).get("name") or "").strip().lower()
            if made.endswith("script") or made.startswith("on"):
                self.inline.append(f"<{tag} name={made[:40]!r}>")

    def handle_endtag(self, tag):
        if tag == "script":
            self._data = None
        if tag in _TABLE_PARTS + ("td", "th", "caption") and tag in self.tables:
            del self.tables[len(self.tables) - 1 - self.tables[::-1].index(tag):]

    def handle_data(self, data):
        if self.tables and self.tables[-1] in _TABLE_PARTS and data.strip():   # <table>...gol</table> shows gol
            self.reordered.append(f"text {data.strip()[:20]!r} right inside <{self.tables[-1]}>")   # above the table
        if self._data is not None and self.cdata_elem == "script":
            self._data[2] += data
        if self.cdata_elem == "script" and "<" in data:   # in <svg> (or an XML file) a browser reads a script's
            self.otherwise.append("<script>...<...")      # text as markup: <script type=application/json><script href=x>
        elif self.cdata_elem and "</" in data:   # <title><script type=application/json></title><script>...:
            self.otherwise.append(f"<{self.cdata_elem}>...</...")   # a browser ended the title there

    def handle_comment(self, data):
        if data.startswith("#"):   # <!--#exec cmd="..." -->: a server-side include, run by a host that parses them
            self.otherwise.append(f"<!--{data[:20]}")
        if "</" in data:   # <title><!--</title><script>: a browser ends the title inside the "comment"
            self.otherwise.append("<!-- ...</... -->")

    def handle_decl(self, decl):
        self.handle_comment(decl)

    def unknown_decl(self, data):
        self.handle_comment(data)

    def handle_pi(self, data):
        if re.match(r"(?i)php\b|=", data.strip()):   # <?php ... ?> or <?= ... ?>: a host running PHP runs it
            self.inline.append(f"<?{data.strip()[:40]} (PHP)")
        if data.strip().lower().startswith("xml-stylesheet"):   # an XSLT that writes a script at view time
            self.inline.append(f"<?{data.strip().rstrip('?')[:60]}?> (a stylesheet that may write scripts)")


_PARSED_OTHERWISE = re.compile(r"--!>|--\s+>|<!---?>|<!\[|<!ENTITY|<!DOCTYPE[^>\[]*\[|<(?:[\w.-]+:)?(?:noembed|noscript|noframes|xmp|"
                               r"plaintext|style|math|template|textarea|iframe)\b|</(?:script|title)(?!\s*>)", re.I)
"""Markup that a browser and Python's HTMLParser read differently (a comment closed by --!> or <!-->,
CDATA in HTML, an XML entity holding a tag, the raw-text elements, <style> inside svg or math, an end
tag </script/> or </title x>; also "</" in an attribute, UTF-16 or NUL bytes): each hid a script
from the checks ('-- >' closes a comment for Python's parser, not for a browser); a marked section '<![x[ ... ]]>', which Python reads as one declaration and a browser ends
at its first '>' (a live <meta http-equiv="refresh"> inside one), or '<![foo[' that stopped the parser in an
AssertionError). A built page holds none of them (its styles are linked files)."""
_OTHER_CHARSET = re.compile(r"(?:charset|encoding)\s*=\s*[\"']?(?!utf-?8\b)[\w-]+", re.I)
"""A declared charset other than UTF-8 (a meta charset, an XML declaration's encoding)."""
_ODD_TAG = re.compile(r"<(?![A-Za-z/!?])")
"""In a document other than a page, a tag whose name does not start with an ASCII letter (<_:script
xmlns:_=...>, a non-ASCII prefix): an XML parser reads a tag the HTML parser here reads as text."""
_TABLE_PARTS = ("table", "thead", "tbody", "tfoot", "tr")
"""Table elements whose own text a browser moves out, above the table (foster parenting)."""


def _css_text(text):
    """CSS text with its escapes decoded (\\202E, \\64 irection) and comments dropped, as a browser reads it."""
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r"\\([0-9a-fA-F]{1,6})\s?|\\(.)", lambda m: chr(min(int(m.group(1), 16), 0x10FFFF) or 0xFFFD)
                  if m.group(1) else m.group(2), text)


_URL_NOISE = re.compile(r"[\x00-\x20\x7f]+")
"""What a browser drops from a URL before reading its scheme (tabs, newlines, spaces, controls)."""
_SCRIPT_URL = re.compile(r"(?:^|[;,])(?:java|vb)script:")


def markup_problems(where, parsed):
    """The one-line problems of a parsed file (a Markup)."""
    return ([f"{where}{parsed.hidden} (entities decoded)"] if parsed.hidden else []) + (
            [f"{where}: {r}: an attribute given twice (a browser keeps the first, a check may read the last)"
             for r in parsed.repeated]
            + [f"{where}: {o}: markup a browser reads otherwise than the checks do (comments closed early, CDATA, "
               "entities, raw-text elements, inline styles); a built page holds none" for o in parsed.otherwise]
            + [f"{where}: {e}: an event attribute (a built page has none; its policy runs no inline script)"
             for e in parsed.events]
            + [f"{where}: {u}: a javascript: URL (a built page has none; it runs script on the site's origin)"
               for u in parsed.urls]
            + [f"{where}: {s}: an inline script (a built page has none; only JSON data sits in <script>)"
               for s in parsed.inline]
            + [f"{where}: {r}: text shown in another order than it is written, or hidden (bdo, dir=rtl, "
               "unicode-bidi, direction, any style or hidden attribute, popover, a clipboard text, an element the "
               "browser hides); a built page has none" for r in parsed.reordered])


INERT_TYPES = ("", ".js", ".mjs", ".css", ".map", ".json", ".jsonl", ".png", ".jpg", ".jpeg", ".gif", ".webp",
               ".avif", ".ico", ".woff", ".woff2", ".ttf", ".otf", ".eot", ".pdf", ".csv", ".txt", ".log",
               ".py", ".c", ".h", ".s", ".ll", ".md", ".yaml", ".yml", ".ptx", ".cu", ".tsv", ".gz", ".zip")
"""Types a static host serves as something no browser renders as a document (script, style, data,
image, font, plain text, download).  Every other file of the site, docs/ ones included, is read for
scripts: a list of the active types (.html, .svg, .xml...) missed their kin (.xsd and .rng are
application/xml, .kml, .xspf and .mathml are +xml), each a document a browser runs script in."""
PACKED_DOCUMENT_TYPES = (".svgz",)
HOST_CONTROL_FILES = ("_worker.js", "_redirects", "_headers", "_routes.json", ".htaccess", "web.config",
                      "staticwebapp.config.json", "vercel.json", "netlify.toml", "firebase.json")
SERVER_TYPES = (".php", ".php3", ".php4", ".php5", ".php7", ".php8", ".phtml", ".pht", ".phps", ".phar", ".shtml",
                ".shtm", ".stm", ".ssi", ".cgi", ".fcgi", ".pl", ".asp", ".aspx", ".ashx", ".asmx", ".jsp", ".jspx",
                ".cfm", ".cfml")
"""Suffixes a web server may run as a program wherever they stand in a name (Apache's AddHandler reads
a.php.txt as PHP): a static site has none."""
DOCUMENT_TYPES = (".html", ".htm", ".xhtml", ".xht", ".svg", ".xml", ".xsl", ".xslt", ".mathml", ".mht",
                  ".mhtml")
"""Suffixes a host may type as a document wherever they stand in a name: Apache's mod_mime reads every
suffix and skips those it does not know, so a.html.map (.map is not in its stock types) is HTML."""


def _inert(rel):
    """True when a site file is served as no document: its last suffix is inert and no earlier one
    names a document (trailing dots and spaces dropped: Apache types b.html. as HTML)."""
    suffixes = Path(rel.lower().rstrip(". ")).suffixes
    last = suffixes[-1] if suffixes else ""
    return last in INERT_TYPES and not any(s in DOCUMENT_TYPES for s in suffixes[:-1])


MAX_STYLESHEET_CHARS = 64 * 1024
"""The most characters a project stylesheet (docs/assets/css) holds: the committed ones have under 3000."""


def _prelude(css, at):
    """The text before ``at`` back to the previous brace: a rule's selectors (found by index: slicing the
    whole prefix at every brace made 1.28 MB of empty rules take 69 s)."""
    return css[max(css.rfind("}", 0, at), css.rfind("{", 0, at)) + 1:at]


def stylesheet_problems(path, rules=False):
    """A site stylesheet read as a browser reads it: strict UTF-8 (a UTF-16 file or an @charset of
    another encoding hid a U+202E from a UTF-8 reading), no bidi or zero-width character once its
    escapes are decoded, and with ``rules`` (a stylesheet not the theme's own) only the properties and
    values of the allow-list (CSS_PROPERTIES, _value_problem): nothing that shows a page's text
    otherwise than it is written."""
    try:
        data = plainfile.read_bytes(path, FILE_LIMIT)
        text = data.decode("utf-8")
    except ReportError as exc:
        return exc.problems
    except UnicodeDecodeError as exc:
        return [f"{path}: not UTF-8 at byte {exc.start} (a UTF-16 or other stylesheet); the site's stylesheets are UTF-8"]
    charset = re.match(r'\ufeff?@charset\s*"([^"]*)"', text)
    if "\x00" in text or (charset and charset.group(1).lower() not in ("utf-8", "utf8")):
        return [f"{path}: declares another encoding than UTF-8 (or holds NUL bytes); a browser would read it otherwise"]
    if rules and len(text) > MAX_STYLESHEET_CHARS:
        return [f"{path}: {len(text)} characters, more than the {MAX_STYLESHEET_CHARS} a project stylesheet may hold "
                "(its rules are read one by one: 1.28 MB of empty rules took 69 s)"]
    decoded = _css_text(text)
    hidden = plainfile.hidden_text_problem(path, decoded)
    if hidden:
        return [f"{hidden} (CSS escapes decoded)"]
    # no string at all (comments aside): a "/*" inside a string hid every later rule from a reading that
    # drops comments, while the browser applied them (a string opens before any such "comment")
    if rules and "\\" in text:   # ".x\/*" opens no comment in a browser: what followed it was applied, unread
        return [f"{path}: a backslash (a CSS escape) at character {text.index(chr(92))}: a rule that shows a page's text "
                "otherwise than it is written could hide behind it (\\/* opens no comment); the project's stylesheets "
                "write every name and value plainly"]
    bare = re.sub(r"/\*.*?\*/", "", re.sub(r'^\ufeff?@charset\s*"[^"]*"\s*;', "", text), flags=re.S)
    quoted = re.search(r"[\"']", bare) if rules else None
    found = (quoted or _css_outside_allowed(decoded)) if rules else None
    if found:
        return [f"{path}: {found.group(0)[:60]!r}: a rule that shows a page's text otherwise than it is written "
                "(reordered, replaced or hidden); the project's stylesheets use only CSS_PROPERTIES"]
    return []


CSS_PROPERTIES = re.compile(
    r"(?:-webkit-)?print-color-adjust|color|background(?:-color)?|border(?:-(?:top|right|bottom|left))?"
    r"(?:-(?:width|style|color|radius))?|border-collapse|padding(?:-(?:top|right|bottom|left))?"
    r"|margin(?:-(?:top|right|bottom|left))?|(?:min-|max-)?(?:width|height)|table-layout|display|font-size"
    r"|font-weight|font-style|line-height|text-align|text-decoration|vertical-align|white-space|word-break"
    r"|overflow(?:-wrap|-x|-y)?|hyphens|(?:page-)?break-(?:before|after|inside)|columns|size|cursor")
"""The properties a stylesheet of the project (docs/assets/css: study.css, print.css) may set: layout,
colour, type size and breaks.  Everything else (position, transform, opacity, clip-path, list-style
strings, text-emphasis, content, order...) is refused rather than listed: each new way to move,
replace or hide a figure was one more entry in a list of refusals."""
_COLOUR = re.compile(r"#[0-9a-f]{3}|#[0-9a-f]{6}", re.I)
"""The colours a project stylesheet writes: opaque hex (an alpha, a system colour or color-mix hid text)."""
_SIZE = re.compile(r"(?:\d+(?:\.\d*)?|\.\d+)(?:r?em|px|%)|0", re.I)


_KEYWORDS = {
    "display": "block table none table-header-group", "overflow": "visible auto scroll",
    "overflow-x": "visible auto scroll", "overflow-y": "visible auto scroll", "overflow-wrap": "normal anywhere break-word",
    "vertical-align": "baseline top middle bottom text-top text-bottom sub super", "text-decoration": "none underline",
    "white-space": "normal nowrap pre pre-wrap pre-line", "word-break": "normal break-all keep-all break-word",
    "hyphens": "none manual auto", "text-align": "left right center justify start end",
    "font-style": "normal italic", "font-weight": "normal bold bolder lighter 400 500 600 700 800 900",
    "table-layout": "auto", "border-collapse": "collapse separate", "cursor": "auto default pointer help",
    "print-color-adjust": "exact economy", "-webkit-print-color-adjust": "exact economy", "size": "a4 a3 letter portrait landscape",
    "columns": "1 2 3 4 auto",
}
"""The values a project stylesheet may give these properties: no hidden overflow (max-width:1.2em with
overflow:hidden cut "206" to "20"), no table-column or table-caption display, no strike-through."""
_LUMINANCE_DARK, _LUMINANCE_LIGHT = 0.4, 0.8


def _luminance(hex_colour):
    digits = hex_colour[1:] if len(hex_colour) == 7 else "".join(c * 2 for c in hex_colour[1:])
    channels = [int(digits[i:i + 2], 16) / 255 for i in (0, 2, 4)]
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def _box_problem(name, value):
    """Why a margin, padding or border value may hide or move text (negative, too wide), or None."""
    for part in value.split():
        if part in ("auto", "0", "solid", "dotted", "dashed", "none") or _COLOUR.fullmatch(part):
            continue
        size = re.fullmatch(r"(\d+(?:\.\d*)?|\.\d+)(em|rem|px|%|mm|vh)", part)
        if not size:
            return "sizes in em, rem, px, %, mm or vh, not negative (a negative margin moved text over a figure)"
        most = {"em": 5, "rem": 5, "px": 80, "%": 20, "mm": 30, "vh": 40}[size.group(2)]
        if name.startswith("border"):
            most = {"em": .3, "rem": .3, "px": 4}.get(size.group(2), 0)
        if float(size.group(1)) > most:
            return "a size beyond what a layout needs (a 9999px border covered the figures beside it)"
    return None


def _value_problem(name, value):
    """Why one declaration of an allowed property still hides or moves text, or None."""
    value = value.strip().lower().removesuffix("!important").strip()
    if name in ("color", "background", "background-color"):
        if not _COLOUR.fullmatch(value):
            return "an opaque #hex colour only"
        if name == "color" and _luminance(value) > _LUMINANCE_DARK:
            return "a text colour too light to read on the page (#fff on white hid every verdict)"
        if name != "color" and _luminance(value) < _LUMINANCE_LIGHT:
            return "a background too dark for the page's text"
        return None
    if name in _KEYWORDS:
        return None if value in _KEYWORDS[name].split() else f"one of: {_KEYWORDS[name]}"
    if name.startswith(("margin", "padding", "border")) and name not in ("border-collapse",):
        return _box_problem(name, value)
    if name in ("font-size", "line-height") or name.endswith(("width", "height")):
        if value in ("auto", "none", "max-content", "min-content", "normal"):
            return None
        unitless = name == "line-height" and re.fullmatch(r"\d+(?:\.\d*)?|\.\d+", value)
        if not (unitless or _SIZE.fullmatch(value)):
            return "a size in em, rem, px or % (no calc(), vw, pt, exponents...)"
        number = float(re.sub(r"[a-z%]+", "", value) or 0)
        if name == "font-size" and not (value.endswith("rem") and number >= .5 or value.endswith("px") and number >= 9):
            return "a type size in rem (at least .5) or px (at least 9): em and % sizes multiply when nested"
        if name in ("height", "max-height"):   # a fixed height let paragraphs spill over each other
            return "auto or none only"
        if name in ("width", "max-width") and 0 < number < (
                64 if value.endswith("px") else 10 if value.endswith("%") else 4):
            return "a box too small for a figure (max-width:1.1em in a scrolling box showed 206 as 20)"
        lines = number / {"px": 16, "%": 100}.get(re.sub(r"[\d.]+", "", value), 1)   # 1%, 1px: a hundredth of a line
        if name == "line-height" and lines < 1:
            return "a line height under one line (lines drawn over each other)"
        if name in ("width", "min-width") and not value.endswith("%") and (
                number > (1600 if value.endswith("px") else 100)):
            return "a box wider than a page (text pushed past a window that cannot scroll sideways)"
        if name in ("width", "min-width", "max-width") and value.endswith("%") and number > 100:
            return "a box wider than its container"
        if name in ("width", "height", "max-width", "max-height") and number == 0:
            return "a zero size"
    return None


def _selector_problem(name, selectors):
    """True when a colour or a type size is given to what it may not reach: a colour only to the page's
    content (.md-typeset, the project's own classes; a white background to body), never to the
    theme's header, footer or navigation (dark text on its indigo header, a white footer hid the
    commit and machine the page was built from); a type size never to what may be the root element
    (html{font-size:9px} made .5rem figures 4.5 px)."""
    for selector in (s.strip() for s in selectors):
        if name in ("color", "background", "background-color"):
            if re.search(r"\.md-(?!typeset\b)|\.(?:no-)?js\b", selector):
                return True
            # only what carries one of the project's classes (the theme puts .md-typeset on its footer
            # too: '.md-typeset div' darkened the footer naming the commit and machine)
            last = re.split(r"[\s>+~]+", re.sub(r"\([^()]*\)", "", selector).strip())[-1]
            if not (re.search(r"\.(?!md-|(?:no-)?js\b)[\w-]+", last) or (name != "color" and selector in ("body", "html"))):
                return True
        if name == "font-size":
            outside = re.sub(r"\[[^\]]*\]", "", re.sub(r"\([^()]*\)", "", re.sub(r"\([^()]*\)", "", selector)))
            # :not(...), :has(...) and [attr~=x] set aside: html[lang~=zh] named the root
            if not (re.search(r"[\s>+~]", outside) or re.match(r"\.(?!(?:no-)?js\b)[\w-]+", outside)):
                return True
    return False


_HIDEABLE = re.compile(r"(?:\.headerlink|\.md-clipboard|p\.csv|::?(?:before|after))$")
"""What a project stylesheet may hide (display: none): the page's furniture, in print (permalinks, copy
buttons, CSV links, toggle icons), never an element that holds a figure."""


_SCROLLING = re.compile(r"\.vchart$")
"""What a project stylesheet may let scroll (overflow other than visible): the chart box, whose drawing
keeps its size on a phone; a scrolling figure box cut "0.5862" to "0.586" in print."""


def _css_outside_allowed(css):
    """The first declaration, at-rule, nesting or value of ``css`` beyond CSS_PROPERTIES and the values
    they may take, or None."""
    found = re.search(r"@(?!media\b|page\b|charset\b)[a-z-]+", css, re.I)   # @font-face (other glyphs), @counter-style
    if found:
        return found
    depth, nested = [], None
    for mark in re.finditer(r"[{}]|[^{}]+", css):   # a rule inside a rule (CSS nesting) hid its declarations
        if mark.group(0) == "{":
            prelude = _prelude(css, mark.start()).strip().lower()
            if depth and not depth[-1].startswith(("@media", "@page")):
                nested = nested or mark
            depth.append(prelude)
        elif mark.group(0) == "}" and depth:
            depth.pop()
    if nested:
        return nested
    for block in re.finditer(r"\{([^{}]*)\}", css):
        selectors = _prelude(css, block.start()).split(",")
        for decl in re.finditer(r"([-a-zA-Z]+)\s*:([^;]*)", block.group(1)):
            if not CSS_PROPERTIES.fullmatch(decl.group(1).lower()) or _value_problem(decl.group(1).lower(), decl.group(2)):
                return decl
            if _selector_problem(decl.group(1).lower(), selectors):
                return decl
            hides = decl.group(1).lower() == "display" and "none" in decl.group(2).lower()
            if hides and not all(_HIDEABLE.search(s.strip()) for s in selectors):
                return decl
            scrolls = decl.group(1).lower().startswith("overflow") and decl.group(2).strip().lower() != "visible" \
                and not decl.group(1).lower().startswith("overflow-wrap")
            if scrolls and not all(_SCROLLING.search(s.strip()) for s in selectors):   # print clips a scrolling box
                return decl
            table = all(re.search(r"(?:^|[\s>])table(?::[^\s>]*)?$", s.strip()) for s in selectors)
            if table and decl.group(1).lower() in ("width", "max-width") and decl.group(2).strip().lower() not in (
                    "100%", "auto", "none", "max-content"):   # width:10% squeezed every column to a smear
                return decl
            unwrapped = decl.group(1).lower() == "white-space" and decl.group(2).strip().lower() in ("nowrap", "pre") or \
                decl.group(1).lower().endswith("width") and "max-content" in decl.group(2).lower() and \
                not all(re.search(r"(?:^|[\s>])table(?::[^\s>]*)?$", s.strip()) for s in selectors)
            if unwrapped and not all(re.search(r"\.num$", s.strip()) for s in selectors):   # a paragraph past the window
                return decl
            heads = decl.group(1).lower() == "display" and "table-header-group" in decl.group(2).lower()
            if heads and not all(s.strip().endswith("thead") for s in selectors):   # a row moved to the top
                return decl
    return None


def _gunzip(path, data):
    """The content of a gzip site file (at most FILE_LIMIT bytes), or ReportError naming it."""
    import gzip
    import io
    import zlib
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(data)) as fh:
            content = fh.read(FILE_LIMIT + 1)
    except (OSError, EOFError, ValueError, zlib.error) as exc:
        raise ReportError(f"{path}: not a readable gzip file ({type(exc).__name__}); a host may send it as the "
                          "document its inner suffix names") from exc
    if len(content) > FILE_LIMIT:
        raise ReportError(f"{path}: more than {FILE_LIMIT} bytes once decompressed")
    return content


def other_markup_problems(site_dir, parsed, stylesheets=True):
    """markup_problems of every HTML or SVG file of the site that verify's page parse did not read
    (``parsed(rel)`` is true for those it read), and any script they load: they carry no policy.
    ``stylesheets``: stylesheet_problems of every .css file too (verify reads them itself, with the
    project's rules, in _stylesheet_problems)."""
    out = []
    for rel, path in sorted(_files(Path(site_dir)).items()):
        if rel.lower().endswith(".css"):   # content: "\202E" reorders the text it is put before
            out.extend(stylesheet_problems(path)[:1] if stylesheets else [])
            continue
        if rel.lower().endswith(PACKED_DOCUMENT_TYPES):
            out.append(f"{path}: a compressed document ({Path(rel).suffix}), which a static host serves as SVG "
                       "and verify cannot read for scripts; ship it uncompressed (.svg)")
            continue
        if any(part.lower().rstrip(". ") in HOST_CONTROL_FILES for part in Path(rel).parts):   # _worker.js/ is a folder too
            out.append(f"{path}: a file a static host reads as its own settings or server code (Cloudflare's "
                       "_worker.js, Netlify's _redirects, Apache's .htaccess...); a built site holds none")
            continue
        server = [s for s in Path(rel.lower().rstrip(". ")).suffixes if s in SERVER_TYPES]
        if server:
            out.append(f"{path}: a {server[0]} file, which a host may run as a program (PHP, server-side includes, "
                       "CGI); a built site holds none")
            continue
        if parsed(rel) or _inert(rel):
            continue
        parser = Markup()
        try:
            data = plainfile.read_bytes(path, FILE_LIMIT)
            if rel.lower().endswith(".gz"):   # x.xml.gz: a host sends the XML with Content-Encoding: gzip
                data = _gunzip(path, data)
            text = data.decode("utf-8", errors="replace")
            parser.feed(text)   # a page's rules, bidi and zero-width characters among them, in any document
            if _ODD_TAG.search(text):   # any file read here: a.svg., b.svg.foo and .atom are XML to some host
                parser.otherwise.append("a tag name not starting with an ASCII letter")
        except ReportError as exc:
            out.extend(exc.problems)
            continue
        out.extend(markup_problems(path, parser))
        out.extend(f"{path}: {s}: a script loaded by a document without the pages' content policy (only the "
                   "site's .html pages carry one; an .htm, .svg or .xml file would run it on the site's origin)"
                   for s in parser.sources)
        if parser.script_tags and not parser.sources and not parser.inline:   # a data <script> in an SVG or XML file: none is built
            out.append(f"{path}: {parser.script_tags[0]}: a script element in a document other than a page "
                       "(the build writes none: an XML parser reads a data script's text as markup)")
    return out


PDF_ACTIVE = re.compile(rb"/(JavaScript|JS|OpenAction|AA|Launch|EmbeddedFiles?|RichMedia|XFA|AcroForm|SubmitForm"
                        rb"|ImportData|GoToR|GoToE|ObjStm)(?![A-Za-z0-9])")
"""What a PDF may run or hide, which the browser's printout of the site never holds: scripts, actions on opening
or on an event, launched or embedded files, forms, other documents, and object streams (where a dictionary is
compressed out of sight of this scan).  A study.pdf of any bytes with an OpenAction script passed verify."""


def pdf_problems(site_dir):
    """The site's PDF is a PDF with nothing active in it (PDF_ACTIVE); its text is the browser's, not re-derived."""
    path = Path(site_dir) / PDF_OUTPUTS[1]
    if not path.exists():
        return []
    if not (Path(site_dir) / PDF_OUTPUTS[0]).is_file():   # `reportgen pdf` writes both; verify holds print.html
        return [f"{path}: no {PDF_OUTPUTS[0]} beside it, the page `reportgen pdf` prints it from; run it again"]
    try:
        data = plainfile.read_bytes(path, 1 << 30)
    except ReportError as exc:
        return exc.problems
    active = PDF_ACTIVE.search(data)
    if not data.startswith(b"%PDF-") or active:
        return [f"{path}: " + (f"holds /{active.group(1).decode()}, which a printout of the site never does (a script, "
                               "an action, an embedded file, a form or a hidden object stream)" if active else
                               "not a PDF (it does not begin with %PDF-)")]
    return []


def rebuild_problems(root, site_dir, build, limit=20, printed=None):
    """Build the site again from results/ and the archive into a temporary folder, for the
    publication machine the site names (site/machine.json, and whether --machine chose it), and
    refuse every file that differs (figures, index, charts' data, CSVs, coverage.json: recomputed, not trusted).
    ``build(root, site_dir, machine)`` is `reportgen build` (verify_site passes it: publish never imports commands).
    ``printed(fresh site dir)``: the print page `reportgen pdf` assembles from a site (pdf.print_page): print.html
    is held to it (one with the 'unconfirmed' flags cut out passed, left out of the comparison as the PDF is)."""
    site_dir = Path(site_dir)
    try:
        facts = read_json(site_dir / "machine.json")
        machine = facts["publication_machine"] if facts.get("reason") == merge.BY_OPTION else None
        if machine is not None and not (isinstance(machine, str) and re.fullmatch(r"[0-9a-f]{12}", machine)):
            raise ReportError(f"{site_dir / 'machine.json'}: publication_machine: {machine!r:.40} is not a machine id")
        given = read_manifest(site_dir)
    except (ReportError, AttributeError, KeyError, TypeError) as exc:
        return getattr(exc, "problems", None) or [f"{site_dir / 'machine.json'}: publication_machine: missing"]
    scratch = Path(leftovers.scratch("verify"))   # a killed verify's copy goes at the next one
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            fresh_dir = build(root, scratch / "site", machine)   # its progress lines are not verify's
        fresh = read_manifest(fresh_dir)
        if printed is not None and PDF_OUTPUTS[0] in given:
            fresh[PDF_OUTPUTS[0]] = hashlib.sha256(printed(fresh_dir)).hexdigest()
    except ReportError as exc:
        return [f"{site_dir}: a fresh build from results/ fails, so the site cannot be checked: {exc.problems[0]}"]
    except OSError as exc:   # a full temporary folder: MkDocs named the theme file it copied, not where to
        return [f"{scratch}: a fresh build to check the site against cannot be written there "
                f"({exc.strerror or exc}); free space, or set TMPDIR to another folder"]
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    for name in PDF_OUTPUTS[0 if printed is None else 1:]:   # the PDF's bytes are the browser's: pdf_problems
        given.pop(name, None)
    out = pdf_problems(site_dir)
    for rel in sorted(set(given) | set(fresh)):
        if rel not in fresh:
            out.append(f"{site_dir / rel}: a fresh build from results/ does not write this file")
        elif rel not in given:
            out.append(f"{site_dir / rel}: missing; a fresh build from results/ writes it")
        elif given[rel] != fresh[rel]:
            out.append(f"{site_dir / rel}: differs from a fresh build from results/ and the archive (figures, "
                       "numbers.json, chart data, CSV and coverage are recomputed, not trusted; after a change "
                       "to the checkout, run `reportgen build`)")
    if len(out) > limit:
        out = out[:limit] + [f"{site_dir}: and {len(out) - limit} more files differ from a fresh build"]
    return out
