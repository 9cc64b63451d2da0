"""What a page's content may hold: the elements, attributes and classes that the Markdown of docs/
and the code's own cells write, and nothing else.

A page's content is the HTML that Markdown makes of a docs page (raw HTML passes through it) or of a
generated provenance page; the theme wraps it.  It used to be read against a growing list of refusals
(style and hidden attributes, bdo, dialog, SVG presentation attributes, the theme's own hiding
classes...): each round of attacks found one more element or attribute that shows a page's text
otherwise than it is written.  An allow-list ends that: whatever the build does not write is refused,
with the page and the element named.  The theme's part of a page (header, navigation, footer) comes
from the pinned theme and reportgen/publish/theme, which are code, not content.
"""
import hashlib
import re
import unicodedata

from pygments.token import STANDARD_TYPES

from reportgen.data import plainfile
from reportgen.publish import digitforms, numerals
from reportgen.publish.digitforms import COMPUTED, EDGE, LEFT_OUT
from reportgen.publish.nesting import nesting_problem
from reportgen.data.seed import FENCE_LANGUAGES

_TEXT = frozenset()
_HEADING = frozenset({"id"})
ELEMENTS = {
    "p": frozenset({"class"}), "br": _TEXT, "hr": _TEXT, "blockquote": _TEXT,
    "h1": _HEADING, "h2": _HEADING, "h3": _HEADING, "h4": _HEADING, "h5": _HEADING, "h6": _HEADING,
    "strong": _TEXT, "em": _TEXT, "b": _TEXT, "i": _TEXT, "small": _TEXT, "sub": _TEXT, "sup": _TEXT,
    "code": _TEXT, "pre": frozenset({"class"}),
    "ul": _TEXT, "ol": _TEXT, "li": _TEXT,
    "table": _TEXT, "thead": _TEXT, "tbody": _TEXT, "tr": _TEXT, "th": _TEXT, "td": _TEXT,
    "details": frozenset({"class", "open"}), "summary": _TEXT,
    "a": frozenset({"class", "href", "title", "download", "data-num"}),
    "span": frozenset({"class", "id", "title", "data-num", "data-conclusion", "data-verdict", "data-flipped"}),
    "div": frozenset({"class", "id", "data-chart", "data-today"}),
    "img": frozenset({"class", "src", "alt"}),   # a chart's static fallback (charts.embed_html)
    "script": frozenset({"type", "id"}),          # a chart's spec: JSON data (plugin.spec_problem checks it)
}
"""Each element a page's content may hold, with the attributes it may carry.  No svg or math (their
presentation attributes place and hide text), no style, no form, media or embedding element."""
ADMONITIONS = frozenset({"note", "abstract", "info", "tip", "success", "question", "warning", "failure", "danger",
                         "bug", "example", "quote"})
OWN_CLASSES = frozenset({"admonition", "admonition-title", "highlight", "filename", "headerlink", "num", "cur",
                         "failed", "finding", "today", "vchart", "vchart-fallback", "csv", "verbatim", "verdict",
                         "legend", "hist", "ok", "warn", "bad"})
"""The classes the project's Markdown, cells and charts write (study.css styles them) besides the
admonition kinds and Pygments' token classes.  The theme's own classes (md-toggle, md-typeset__...)
hide or move what they mark: a page's content names none."""
CLASSES = OWN_CLASSES | ADMONITIONS | frozenset(c for c in STANDARD_TYPES.values() if c)
FURNITURE = {"headerlink": "a", "csv": "p"}
"""Classes of the page's furniture, with the one element each marks: print.css hides them and pdf cuts
headerlinks out, so they hold no figure (no digit)."""
_NAME = re.compile(r"\w[\w.:-]{0,199}")
"""An id, or a data-* value (a figure's key, a chart's or conclusion's name): no space, quote or angle bracket."""
_KEY = re.compile(r"[\w.:/=+,@%#-]{1,400}")
_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*):")
SAFE_SCHEMES = ("http", "https", "mailto")
"""What a link of a page (and, in verify, any link or resource of a built page) may name besides a path
of the site."""
_SOURCE = re.compile(r"(?:\.\./)*assets/charts/([\w-]+)\.svg")
"""The only images content shows: the build's own static charts."""


def _value_problem(tag, name, value, charts=None):
    """Why one attribute value is not one the build writes, or None (``charts``: the names of the
    charts the build draws, when known)."""
    if name == "class":
        odd = next((c for c in value.split() if c not in CLASSES or FURNITURE.get(c, tag) != tag), None)
        return None if odd is None else f"the class {odd[:40]!r}"
    if name == "id":
        # '__' names the theme's own run-time ids (__config, __code_6: a heading of that id made block 6's copy
        # button copy the heading's 'curl ... | sh')
        return None if _NAME.fullmatch(value) and not value.startswith("__") else "an id the build does not write"
    if name in ("data-num", "data-chart", "data-today", "data-conclusion", "data-verdict", "data-flipped"):
        return None if _KEY.fullmatch(value) else "a value that is not a name"
    if name == "href":
        plain = re.sub(r"[\x00-\x20\x7f]+", "", value)   # browsers drop these inside a scheme
        scheme = _SCHEME.match(plain)
        if plain.startswith(("//", "\\", "/\\")) or (scheme and scheme.group(1).lower() not in SAFE_SCHEMES):
            return "a link other than a page, an anchor or an http(s) address"
        return None
    if name == "src":   # a missing chart's alt text shows as the page's text
        drawn = _SOURCE.fullmatch(value)
        return None if drawn and (charts is None or drawn.group(1) in charts) else "an image other than the build's own charts"
    if name == "type":
        return None if value.strip().lower() == "application/json" else "a script that runs"
    if name == "open":
        return None if value in ("", "open") else "a value"
    return None   # title, alt, download: text


def _file_name(href):
    """The file name a link's target has (its path's last part, without query or fragment)."""
    return re.split(r"[?#]", href, maxsplit=1)[0].rsplit("/", 1)[-1]


_SMALL = ("sub", "sup", "small")


class _Content(plainfile.Parser):
    def __init__(self, charts=None):
        super().__init__(convert_charrefs=True)
        self.problem, self.furniture, self.charts = None, [], charts   # the furniture elements open, by tag
        self.small = 0   # <sub>, <sup>, <small> open: one level shrinks the type, fourteen hid a caveat

    def handle_starttag(self, tag, attrs):
        if self.problem:
            return
        if tag in _SMALL:
            self.small += 1
            if self.small > 1:
                self.problem = f"<{tag}> inside another <sub>, <sup> or <small>: type shrunk past reading"
                return
        if self.furniture or any(c in FURNITURE for c in str(dict(attrs).get("class") or "").split()):
            self.furniture.append(tag)
        allowed = ELEMENTS.get(tag)
        if allowed is None:
            self.problem = f"<{tag[:40]}>: an element the build does not write"
            return
        for name, value in attrs:
            if name not in allowed:
                self.problem = f"<{tag} {name[:40]}>: an attribute the build does not write on <{tag}>"
                return
            why = _value_problem(tag, name, value or "", self.charts)
            if why:
                self.problem = f"<{tag} {name}={str(value)[:60]!r}>: {why}"
                return
        saved = dict(attrs).get("download")
        if saved and saved != _file_name(dict(attrs).get("href") or ""):
            # a run log linked as 'download="\u5b89\u88c5\u8bf4\u660e.html"' was saved as the install guide's page
            self.problem = (f"<{tag} download={saved[:60]!r}>: a name other than the linked file's own "
                            f"({_file_name(dict(attrs).get('href') or '')[:60]!r})")

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        self.handle_endtag(tag)

    def handle_endtag(self, tag):
        if tag in _SMALL and self.small:
            self.small -= 1
        if tag in self.furniture:
            del self.furniture[len(self.furniture) - 1 - self.furniture[::-1].index(tag):]

    def handle_data(self, data):
        if self.furniture and re.search(r"\d", data) and not self.problem:
            self.problem = (f"text {data.strip()[:30]!r} inside a permalink or CSV link, which print hides: "
                            "it holds no figure")


def content_problem(where, page_html, charts=None):
    """One line naming the first element, attribute or class of a page's content (its HTML as the
    Markdown wrote it, before the theme wraps it) outside ELEMENTS and CLASSES, or None (``charts``:
    the names of the charts the build draws; an image shows only one of them)."""
    marked = plainfile.marked_section_problem(where, page_html)
    if marked:
        return marked
    parser = _Content(charts)
    parser.feed(page_html)
    parser.close()
    if parser.problem is None:
        return None
    return (f"{where}: {parser.problem}; a page's content holds only the elements, attributes and classes "
            "the build writes (reportgen/publish/pagecontent.py), so that it shows its text as written")


DOCS_FILES = re.compile(r"(?:[\w-]+/)*[\w-]+\.md|assets/css/[\w-]+\.css|assets/js/[\w-]+\.js"
                        r"|snippets/[\w-]+\.py|words/[\w-]+\.yaml", re.ASCII)
"""(One suffix each: a host may type x.html.py by its .html.)"""
"""The files docs/ holds: pages, the project's stylesheets and scripts, vendored scripts with their
licences, code snippets the pages show, and the words (not published).  Any other file (an .svg, an
.html, a .pdf) would be published as written, unread by the page checks."""


OWN_SCRIPTS = {
    "assets/js/charts.js": "fb47c2fef517dc93d35945dadb05019e7aae61f55c6505e19f7ab48ce90d78e5",
    "assets/js/md-scope.js": "f452833b68a4e46aa8615db9145a3c8f9169b31e94f2a0f5faba451059c7614c",
    "assets/js/md-tabbed.js": "605cb75e48dbcc7e574169edb14d04e99f00d68ac81e9519e1ae64d7c1e84687",
}
"""The project's own scripts under docs/assets/js, each by its sha256: a script runs on every page, so it is
code, changed with this list in a reviewed commit (a docs/assets/js/evil.js listed in extra_javascript
passed every check; stylesheets are read against an allow-list, a script cannot be)."""
VENDORED = {
    "LICENSE.iframe-worker": "dd69737a4768aab9f934a5aed9efab9561ac4062d4fdbe490d44369a2cf48b6b",
    "LICENSE.vega": "63727832aaf62004a2b249c933e327f3c90caf49e41a72f4bf436edf632cbda8",
    "LICENSE.vega-embed": "32df67148f0fc3db0eb9e263a7b75d07f1eb14c61955005a4a39c6918d10d137",
    "LICENSE.vega-lite": "f618900fd0d64046963b29f40590cdd1e341a2f41449f99110d82fd81fea808c",
    "iframe-worker-inner.js": "ab0c2fc2883a6df703dd93ba369c1c85fd190a85bbcc1e8d194f6ea1cdfe7131",
    "iframe-worker-shim.js": "985798267697f0061b91828c9244594a4b122f4e1c892bd9ee8be2fa1bc21b0b",
    "vega-embed.min.js": "b1455caba2fb1a72fb46025ba0ba1316e2dbc7f0dd40a3f6040172bf9c08ba91",
    "vega-lite.min.js": "6d5035fdd429b4bc6f91f3754426c3f516f3dbd8e08b105cfc2496bed4ebd254",
    "vega.min.js": "8f6a3587cf8d4f42c7e08120e3eb05d067e746d554e39d2dcf52acc0bd5ba28f",
}
"""docs/assets/vendor/: the vendored scripts (Vega 5, Vega-Lite 5, vega-embed 6, iframe-worker 1.0.4) and
their licences, each by its sha256.  A change inside a minified file is a byte no reviewer reads: it
rewrote every figure in the browser.  Vendoring a new version updates this list, in code."""


def docs_file_problem(rel, data=None):
    """One line for a docs file outside DOCS_FILES, or None (``data``: a vendored file's bytes, or its path)."""
    if rel.startswith("assets/vendor/"):
        name = rel[len("assets/vendor/"):]
        if data is not None and not isinstance(data, bytes):
            data = plainfile.read_bytes(data, plainfile.MAX_ARCHIVE_FILE_BYTES)
        if name in VENDORED and data is not None and hashlib.sha256(data).hexdigest() == VENDORED[name]:
            return None
        return (f"docs/{rel}: not a kind of file docs/ holds: not one of the vendored files, byte for byte (pagecontent.VENDORED lists each by its "
                "sha256); a vendored script is changed by vendoring a release and updating that list")
    if rel.startswith("assets/js/") and DOCS_FILES.fullmatch(rel):
        if data is not None and not isinstance(data, bytes):
            data = plainfile.read_bytes(data, plainfile.MAX_ARCHIVE_FILE_BYTES)
        if data is not None and hashlib.sha256(data).hexdigest() == OWN_SCRIPTS.get(rel):
            return None
        return (f"docs/{rel}: not one of the project's scripts, byte for byte (pagecontent.OWN_SCRIPTS lists each by "
                "its sha256): a script runs on every page, so it changes with that list, as code does")
    from reportgen.publish.sitecheck import PDF_OUTPUTS
    if rel in {name.removesuffix(".html") + ".md" for name in PDF_OUTPUTS}:
        # built as site/print.html, the name `reportgen pdf` writes: verify then failed for good on a sound site
        return f"docs/{rel}: a page of the name `reportgen pdf` writes into the site ({', '.join(PDF_OUTPUTS)}): name it otherwise"
    if DOCS_FILES.fullmatch(rel):
        if data is None:
            return None
        try:   # every kind docs/ holds is text: MkDocs stopped on a page's bad byte naming no file
            (data if isinstance(data, bytes) else plainfile.read_bytes(data, plainfile.MAX_ARCHIVE_FILE_BYTES)).decode("utf-8")
        except UnicodeDecodeError as exc:
            return f"docs/{rel}: not UTF-8 text (byte {exc.start}: {exc.reason})"
        return None
    return (f"docs/{rel}: not a kind of file docs/ holds (pages .md, assets/css/*.css, assets/js/*.js, "
            "the vendored files, snippets/*.py, words/*.yaml); another file would be published as written, unread "
            "by the page checks")


BUILT_ONLY = frozenset({"num", "cur", "failed", "verdict", "today", "vchart", "vchart-fallback", "csv",
                        "headerlink"})
"""Classes only the build writes (a figure, a verdict, a chart, the furniture): a docs page that wrote
one by hand dressed its own words as a checked figure or verdict, or hid them as furniture."""
_CLASSES = re.compile(r"""class\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))|\{:?([^{}\n]*)\}""", re.I)


NESTING = "*_[]<>`"
MAX_MARKS = 200
"""The most of one character Markdown nests on that a docs paragraph may hold (the pages hold 54 at most):
20 000 '*' around a word exceeded Python's recursion limit, 20 000 '[' ran two minutes past every
time limit of the build (Markdown's conversion is MkDocs', outside the render's limits)."""
MAX_PAGE_MARKS = 1000
"""The most of one such character a docs page may hold in all (the pages hold 130 at most): an
unclosed tag start is scanned for to the page's end, so 20 000 paragraphs of '<a ' took 39 s and
twice as many four times that, whatever each paragraph holds (1000 take 0.14 s, 2000 1.5 s)."""
MAX_HEADINGS = 200
"""The most headings a docs page's own text holds (the committed pages: 16): the table of contents lists each one
on the page, and 43 500 identical headings (261 KB) made an 18.6 MB page in two minutes and 693 MB."""
MAX_PAGE_HEADINGS = 500
"""The most headings a page of docs/ holds as converted, its placeholders' included (the committed pages: 21 at
most, the history page's runs): a heading inside a list or a box escapes the source's count (MAX_HEADINGS)."""
_HEADING = re.compile(r"^ {0,3}#{1,6}(?:[ \t]|$)|^ {0,3}(?:=+|-+)[ \t]*$|<h[1-6]\b", re.M | re.I)
MAX_BLOCK_LINES = 400
"""The most lines one block of a docs page's own text holds (a run of lines with no blank line; the committed
pages' longest has 19): Python-Markdown re-scans the rest of a block for each heading it takes off it, and
40 000 setext headings ('a', '-') in one block took 228 s to convert."""
MAX_TABLE_CELLS = 64
"""The most '|' one line of a docs page's own text holds (the committed pages' most: 6): Markdown pads every
row of a table to its header's cells, so a header of thousands made megabytes of HTML of each bare row."""
MAX_PAGE_CHARS = 256 * 1024
"""The most characters a docs page's own text may hold, before and after its Jinja runs (the pages hold
11 000 at most): every check of the page and MkDocs' conversion read it whole, some more than once."""
_FENCE = re.compile(r"^[ \t>]*(?:`{3,}|~{3,})[ \t]*\{?[ \t]*\.?([^\s{}`]*)", re.M)
_PAIRS = (("{{", "}}"), ("{%", "%}"), ("{##", "##}"), ("<!--", "-->"))


def _closed_only(text):
    """The text with each Jinja or comment opener that nothing closes after it broken in two ('{{' as
    '{ {'): each such opener sent the checks' lazy scans to the page's end, 20 000 of them (a {% raw %}
    block) took 7.5 s, a 4 MiB page hours.  Lines and every closed pair stay where they are."""
    for opener, closer in _PAIRS:
        last = text.rfind(closer)
        cut = last + len(closer) if last >= 0 else 0
        if opener in text[cut:]:
            text = text[:cut] + text[cut:].replace(opener, opener[0] + " " + opener[1:])
    return text


def source_problem(where, own):
    """One line for markup only the build writes in a docs page's own text (``own``: its Markdown
    before placeholders fill in, Jinja's string constants included; template_problem keeps a page
    from assembling such markup out of pieces): a data- attribute (a figure's key, a chart, a verdict,
    a table-of-contents label), a BUILT_ONLY class (``num`` only on the legend of the figure styles),
    a script; or None.  The text is read as written and with every Jinja tag, comment and placeholder
    dropped (ver{## ##}dict, da{% if x %}{% endif %}ta-num).  A paragraph holds at most MAX_MARKS of each
    character Markdown nests on (its cost grows with the paragraph: 60 lines of 200 '[' took 36 s), a
    page at most MAX_PAGE_MARKS (an unclosed '<a ' costs with the rest of the page)."""
    if len(own) > MAX_PAGE_CHARS:
        return (f"{where}: {len(own)} characters, more than the {MAX_PAGE_CHARS} a docs page's own text may hold "
                "(its checks and MkDocs' conversion read it whole)")
    stray, seen, opened = None, 0, 0
    for n, line in enumerate(own.split("\n"), 1):   # one pass: a page of 10 000 marks was read 10 000 times
        if BANNER_MARK in line:
            seen += 1
            if line.strip() != BANNER_MARK or opened > 0 or seen > 1:   # nor inside a comment ('<!--' before it)
                stray = n
                break
        opened += line.count("<!--") - line.count("-->")
    if stray:   # '<di<!-- reportgen:banner -->v markdown>' was two pieces to every check, one tag to MkDocs
        return (f"{where}:{stray}: the banner mark {BANNER_MARK!r} stands on a line of its own, once, outside a "
                "comment: the build replaces it after every check has read the page")
    fence = next((f for f in _FENCE.finditer(own) if f.group(1).lower() not in FENCE_LANGUAGES
                  or own[f.end():own.find("\n", f.end()) % (len(own) + 1)].strip(" \t}")), None)
    if fence:
        return (f"{where}:{own.count(chr(10), 0, fence.start()) + 1}: a code fence of {fence.group(1)[:30]!r}: a docs "
                f"page's fences are {', '.join(sorted(repr(x) for x in FENCE_LANGUAGES))}, with no option after it "
                "(Pygments takes minutes on some languages' text; hl_lines=\"1-999999\" repeated took 4 GB)")
    marked = plainfile.marked_section_problem(where, own)   # before any parser
    if marked:
        return marked
    written, own = own, _closed_only(own)
    number = 1
    for block in re.split(r"(\n[ \t]*\n)", own):   # a paragraph, and the blank lines after it
        wide = max(line.count("|") for line in block.split("\n"))
        if wide > MAX_TABLE_CELLS:
            return (f"{where}:{number}: a line of {wide} '|', more than {MAX_TABLE_CELLS}: a table's every row is "
                    "padded to its header's cells (a 33 KB table of 398 rows became 30 MB of HTML)")
        if block.count("\n") >= MAX_BLOCK_LINES:
            return (f"{where}:{number}: {block.count(chr(10)) + 1} lines without a blank line, more than {MAX_BLOCK_LINES}: "
                    "Python-Markdown re-scans the rest of a block for each heading it takes off it (40 000 setext "
                    "headings in one block took 228 s)")
        mark = next((ch for ch in NESTING if block.count(ch) > MAX_MARKS), None)
        if mark:
            return (f"{where}:{number}: {block.count(mark)} {mark!r} in one paragraph, more than {MAX_MARKS}: "
                    "Python-Markdown nests (and backtracks) on each (20 000 '[' kept a build busy for minutes)")
        number += block.count("\n")
    mark = next((ch for ch in NESTING if own.count(ch) > MAX_PAGE_MARKS), None)
    if mark:
        return (f"{where}: {own.count(mark)} {mark!r} in the page, more than {MAX_PAGE_MARKS}: Python-Markdown "
                "scans on from each to the page's end (20 000 paragraphs of '<a ' kept a build busy for 39 s)")
    headings = len(_HEADING.findall(own))
    if headings > MAX_HEADINGS:
        return (f"{where}: {headings} headings, more than {MAX_HEADINGS}: each is an entry of the page's table of "
                "contents, written beside every heading (43 500 made an 18.6 MB page)")
    nested = nesting_problem(where, written)   # after the marks' bounds: its parsers read an unclosed '<a ' slowly
    if nested:
        return nested
    own = own + "\n" + re.sub(r"\{##.*?##\}|\{%.*?%\}|\{\{.*?\}\}", "", own, flags=re.S)
    own = plainfile.unescape(own)   # class="&#99;sv" is csv to the browser
    found = re.search(r"(?<![\w-])data-[A-Za-z][\w-]*\s*=|<\s*script\b|\bid\s*=\s*[\"']?spec-", own, re.I)
    if found:
        return (f"{where}: {found.group(0)[:40]!r}: markup only the build writes (a figure's key, a chart, a "
                "verdict, a table-of-contents label); a docs page shows these through placeholders")
    for match in _CLASSES.finditer(own):
        names = next(g for g in match.groups() if g is not None)
        if match.group(4) is None:
            tokens = names.split()
        else:   # attr_list: {: .csv } and {: class="csv" } alike
            given = re.findall(r"""class\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s}]+))""", names, re.I)
            tokens = [t[1:] for t in names.split() if t.startswith(".")] + " ".join(" ".join(g) for g in given).split()
        odd = next((t for t in tokens if t in BUILT_ONLY and not (t == "num" and "legend" in tokens)), None)
        if odd:
            return (f"{where}: the class {odd!r}: only the build writes it (a figure, a verdict, a chart or the "
                    "page's furniture); a docs page shows these through placeholders")
    return None


FILTERS = {"indent": re.compile(r"\d{1,2}"), "join": re.compile(r"[ ,\u3001\uff0c;\uff1b/|\u00b7\u00a7-]{0,4}")}
"""The Jinja filters a docs page may use (the ones it does), each with the one argument it may take:
indent a width, join a separator of punctuation.  Format, replace and the like would build markup out
of pieces no source check sees; indent('c') wrote its text after every line break (class=\\nsv made
class=csv)."""


def template_problem(tree):
    """The first node of a parsed docs page that assembles text out of pieces, with ``what`` set to name it, or None: a
    filter outside FILTERS, a slice or an indexed character, a join of a literal list, a concatenation of constants
    ("da" ~ "ta-num" made a figure's key no check read in one piece), arithmetic."""
    import jinja2.nodes as nodes
    other = next(tree.find_all((nodes.Include, nodes.Extends, nodes.Import, nodes.FromImport)), None)
    if other is not None:   # no loader: an internal error; with one, another file's text no check of the page read
        other.what = "an include, extends or import (another template's text, read by no check of this page)"
        return other
    blocks = next(tree.find_all((nodes.Macro, nodes.CallBlock, nodes.FilterBlock, nodes.AssignBlock, nodes.With)), None)
    if blocks is not None:
        blocks.what = "a macro, call, filter, set or with block typed into the page (its text set aside, read by no check)"
        return blocks
    for assign in tree.find_all(nodes.Assign):   # {% set a = b ~ b %} doubled a value per line: gigabytes, no output
        kinds = (nodes.Concat, nodes.Filter, nodes.BinExpr)
        grows = assign.node if isinstance(assign.node, kinds) else next(assign.node.find_all(kinds), None)
        if grows is not None:
            grows.what = ("a {% set %} that builds a value (~, a filter or arithmetic): a page's set names a "
                          "placeholder's value, it makes none (doubling one per line took gigabytes)")
            return grows
    deep = _nested_loop(tree, nodes)
    if deep is not None:
        deep.what = (f"loops nested more than {MAX_LOOPS} deep (three loops over a placeholder's text, a character "
                     "at a time, ran a build for minutes)")
        return deep
    for node in tree.find_all((nodes.Name, nodes.Call)):
        if isinstance(node, nodes.Name) and node.name == "loop":
            node.what = "Jinja's loop counter typed into the page (loop.index wrote figures no placeholder gave)"
            return node
        if isinstance(node, nodes.Call) and isinstance(node.node, nodes.Getattr) and (
                node.node.attr not in METHODS or isinstance(node.node.node, nodes.Const)
                or node.kwargs or node.dyn_args or node.dyn_kwargs or not node.args or node.args[1:] and not (
                    node.node.attr == "get" and len(node.args) == 2 and isinstance(node.args[1], nodes.Const)
                    and node.args[1].value in ("", None))):   # get(key, '0.01 ms') gave a figure of its own
            node.what = f"the method {node.node.attr!r:.40} typed into the page (only {', '.join(METHODS)} of a placeholder)"
            return node
    number = _typed_number(tree)
    if number is not None:
        return number
    arithmetic = (nodes.Add, nodes.Sub, nodes.Div, nodes.FloorDiv, nodes.Neg, nodes.Pos)   # * % ** : plugin.UNBOUNDED
    for node in tree.find_all((nodes.Filter, nodes.Slice, nodes.Getitem, nodes.Concat, nodes.Output, *arithmetic)):
        if isinstance(node, nodes.Filter) and node.name in FILTERS and (
                isinstance(node.node, nodes.Const) or node.kwargs or node.dyn_args or node.dyn_kwargs or len(node.args) > 1
                or not all(isinstance(a, nodes.Const) and type(a.value) is (int if node.name == "indent" else str)
                           and FILTERS[node.name].fullmatch(str(a.value)) for a in node.args)):
            node.what = f"the filter {node.name!r:.40} on a constant, or with another argument than its own"
            return node
        if isinstance(node, nodes.Output):
            literal = next((n for n in node.nodes if isinstance(n, nodes.Const)), None)
            if literal is None:
                continue
            node, node.what = literal, "a placeholder that is a constant ({{ '' }} split ver{{ '' }}dict from a check)"
        elif isinstance(node, nodes.Filter) and (node.name not in FILTERS or (
                node.name == "join" and isinstance(node.node, (nodes.List, nodes.Tuple)))):
            node.what = f"the filter {node.name!r:.40}"
        elif isinstance(node, nodes.Slice) or (isinstance(node, nodes.Getitem) and isinstance(node.arg, nodes.Const)
                                               and not isinstance(node.arg.value, str)):
            node.what = "a slice or an indexed character of a value"
        elif isinstance(node, nodes.Concat) and all(isinstance(n, nodes.Const) for n in node.nodes):
            node.what = "a concatenation of constants"
        elif isinstance(node, arithmetic):   # a figure of the page's own: {{ g.threads + g.threads }} printed 22 threads
            node.what = "arithmetic on a placeholder (+, -, /): a figure the page computes, which no record holds"
        else:
            continue
        return node
    return None


MAX_LOOPS = 2
"""How deep a docs page's {% for %} loops may nest (a table's rows and their cells)."""


def _nested_loop(node, nodes, depth=0):
    """The first {% for %} nested deeper than MAX_LOOPS under ``node``, or None."""
    for child in node.iter_child_nodes():
        inner = depth + isinstance(child, nodes.For)
        if inner > MAX_LOOPS:
            return child
        found = _nested_loop(child, nodes, inner)
        if found is not None:
            return found
    return None


METHODS = ("get", "startswith", "endswith")
"""The methods a docs page calls on a placeholder's value, with one argument (a dict's get, with an empty
default at most; a word's start): '{} ms'.format(0.01) and '0.01_ms'.replace('_', ' ') wrote figures and markup no source check
read whole."""


def _typed_number(tree):
    """The first number constant of a page's Jinja outside the places a page needs one (a filter's width,
    a placeholder's argument, a comparison), with ``what`` set, or None: {% set best = 0.013 %} and
    {{ x or 0.013 }} typed a figure that the page showed as a placeholder's."""
    import jinja2.nodes as nodes
    allowed = {id(n) for output in tree.find_all(nodes.Output) for n in output.nodes}   # {{ 0.03 }}: its own message
    for node in tree.find_all((nodes.Filter, nodes.Call, nodes.Compare)):
        operands = ([node.expr] + [op.expr for op in node.ops]) if isinstance(node, nodes.Compare) else node.args
        allowed.update(id(n) for n in operands if isinstance(n, nodes.Const))
    for node in tree.find_all(nodes.Const):
        if isinstance(node.value, (int, float)) and not isinstance(node.value, bool) and id(node) not in allowed:
            node.what = f"the number {node.value!r:.20} typed into the page's Jinja"
            return node
    # a string holding a digit only as what a placeholder is asked for (its arguments, a key) or compared
    # with: {% for d in ['0.01'] %}{{ d }} ms{% endfor %} showed a figure no placeholder gave
    asked = {id(n) for call in tree.find_all(nodes.Call) if isinstance(call.node, nodes.Name)
             for arg in [*call.args, *(k.value for k in call.kwargs)] for n in [arg, *arg.find_all(nodes.Const)]}
    asked.update(id(g.arg) for g in tree.find_all(nodes.Getitem))
    asked.update(id(n) for c in tree.find_all(nodes.Compare) for n in [c.expr, *(op.expr for op in c.ops)])
    for node in tree.find_all(nodes.Const):
        if isinstance(node.value, str) and re.search(r"\d", node.value) and id(node) not in asked | allowed:
            node.what = f"the text {node.value[:20]!r} typed into the page's Jinja (a digit only as what a placeholder is asked for)"
            return node
    return None


# -- hand-typed figures in a docs page ---------------------------------------------------------

_NUMBER = r"(?<![A-Za-z0-9_.#\u00a7])(?<![A-Za-z_]-)(?:\d+(?:\.\d+)?|\.\d+)(?:[eE][-+]?\d+)?"
_TYPED = re.compile(_NUMBER + r"\s*"
                    r"(?:(?i:ms|[KMGTP]?FLOP(?:S|/s)|[KMGT]?Hz|[KMGT]?OPS\b|QPS\b|FPS\b|[KMGT]i?B(?:/s)?\b|min\b|times\b"
                    r"|(?:milli|micro|nano)?sec(?:ond)?s?\b|[u\u00b5\u03bc]sec\b|x\b|(?:tok(?:en)?s?|img|images?|it"
                    r"|samples?|req|requests?)/s)|[\u6beb\u5fae\u7eb3]?\u79d2|[\u6b21\u5f20\u6761\u4e2a]/\u79d2|s\b|[u\u00b5\u03bc]s\b|ns\b|%|\u2030"
                    r"|\u500d(?!\u6570)|[\u00d7\u2715\u2716\u2a09\u2573](?!\s*\d)|\u5206\u949f|\u5c0f\u65f6|\u5929|h\b)")
"""A number and a unit as a reader sees them: after a Chinese character too (\u5ef6\u8fdf0.01ms), in a
range (1-2 ms), in any letter case (206 Gflops); not inside an id (n=32 ms, x-32 s)."""
_UNIT_WORD = (r"(?<![A-Za-z])(?i:[KMGTP]?FLOP(?:S|/s)|[KMGT]?OPS|QPS|FPS|ms|[u\u00b5\u03bc]s|ns|(?:milli|micro|nano)?seconds?"
              r"|[KMGT]i?B(?:/s)?|[KMGT]?Hz|minutes?|hours?|(?:tok(?:en)?s?|img|images?|samples?|req|requests?)/s)(?![A-Za-z])"
              r"|[\u6beb\u5fae\u7eb3]?\u79d2|\u6b21/\u79d2|\u500d|%|\u2030|\u5206\u949f|\u5c0f\u65f6")
"""Units that name a figure's kind wherever they stand: before a figure, or in a table's header."""
_UNIT_FIRST = re.compile(r"(?:[(\uff08]\s*(?:" + _UNIT_WORD + r")\s*[)\uff09]|" + _UNIT_WORD + r")\s*"
                         r"(?:[:=\uff1a]|\u4e3a|\u662f|\u8fbe\u5230|\u7ea6|\u7ea6\u4e3a|\u8fbe)\s*[-+]?" + _NUMBER)
"""A unit, then a figure: \u5cf0\u503c\uff08GFLOPS\uff09\uff1a1840, \u5ef6\u8fdf\uff08\u6beb\u79d2\uff09\u4e3a 0.01."""
_CODE = re.compile(r"```.*?```|`[^`\n]*`|\{\{.*?\}\}|\{%.*?%\}", re.S)


def _literals_only(code):
    """A Jinja expression or statement with only its string literals kept (all else as spaces, lines
    kept where they are)."""
    kept = [" "] * len(code)
    for found in re.finditer(r"\"([^\"\n]*)\"|'([^'\n]*)'|(?<=\{\{)\s*([-+]?[\d.]+)(?=\s*\}\})", code):
        literal = found.group(1) or found.group(2) or found.group(3) or ""
        start = found.start() + (0 if found.group(3) else 1)
        kept[start:start + len(literal)] = literal
    return "".join("\n" if c == "\n" else k for c, k in zip(code, kept))


def _caption_only(code):
    """A code span or fenced block as spaces (lines kept), but for a fence's title="..." caption,
    which pymdownx shows above the block as text."""
    kept = re.sub(r"[^\n]", " ", code)
    caption = re.match(r"(`{3,}|~{3,})[^\n]*?\btitle=(\"[^\"\n]*\"|'[^'\n]*')", code)
    if caption:
        start, end = caption.start(2) + 1, caption.end(2) - 1
        kept = kept[:start] + code[start:end] + kept[end:]
    return kept


def _shown_attributes(tag):
    """The text a reader sees of a tag apart from the line: its alt, title, value and label attributes."""
    shown = re.findall(r"\b(?:alt|title|value|label|aria-label|placeholder|content)\s*=\s*(?:\"([^\"]*)\"|'([^']*)'"
                       r"|([^\s\"'=<>`]+))", tag.group(0), re.I)   # title=0.01ms, unquoted, is a tooltip too
    return " ".join(a or b or c for a, b, c in shown)


_TAG = re.compile(r"</?[A-Za-z][\w:-]*(?:\s(?:[^<>\"']|\"[^\"]*\"|'[^']*')*+)?/?>")
"""An HTML tag as Markdown passes it through, a quoted '>' inside it ('<span title=">"> ms'); '<0.01 ms =>'
is no tag but text.  One whitespace, then a possessive run (its alternatives share no character): '\\s+'
beside '[^<>"']' split the spaces after an unclosed '<a' every way (32 000 spaces: 130 s)."""


def typed_figures(docs_dir):
    """Hand-typed figures in page templates, as 'path:line: text' problems."""
    out = []
    from mkdocs.utils import is_markdown_file   # x.markdown, .mdown, .mkd are pages too
    for path in [p for p in plainfile.tree(docs_dir) if is_markdown_file(p.name) and p.is_file()]:
        text = plainfile.read_text(path, plainfile.MAX_ARCHIVE_FILE_BYTES)
        if len(text) > MAX_PAGE_CHARS:   # the build refuses it (source_problem); its checks would read it whole
            out.append(f"{path}: {len(text)} characters, more than the {MAX_PAGE_CHARS} a docs page may hold")
            continue
        found, meta = {}, plainfile.front_matter(text)   # its values as YAML decodes them ("0.01\u0020ms" in a title)
        for variant in _as_rendered(text) + ([meta] if meta else []):
            for line, figure in _typed_in(variant):
                found.setdefault((line, re.sub(r"\s+", " ", figure)), None)
        stray, unused = digitforms.stray_in([_as_read(_closed_only(v), sup="^") for v in _as_rendered(
            plainfile.without_front_matter(text))], digitforms.declared(plainfile.front_matter_data(text)))
        out.extend(f"{path}:{line}: hand-typed figure {figure!r}: take it from a record or the archive through a "
                   "placeholder" for line, figure in found)
        lines = {n for n, _f in found}   # a line the unit check named already is named once
        out.extend(digitforms.problems(path, [(n, w) for n, w in stray if n not in lines], unused))
    return out


def typed_in_rendered(where, text, seen="in the page as rendered (placeholder figures left out)", phrases=None):
    """Hand-typed figures of a page rendered with every placeholder value holding a digit left out (plugin): a loop's
    or condition's figure, a digit or unit typed against a placeholder (1{{ v }} ms, 0.01 {{ unit }}), two figures
    side by side ({{ a }}{{ b }}); with ``phrases`` (declared: digitforms), its numbers outside the allowed forms."""
    side = [f"{m.group(0).replace(LEFT_OUT, '{{ }}').replace(EDGE, '')} (two figures side by side read as one number)"
            for m in re.finditer(rf"{LEFT_OUT}{EDGE}(?:<[^<>]*>)*[.,]?(?:<[^<>]*>)*{EDGE}{LEFT_OUT}", text)]
    text = text.replace(EDGE, "")
    text, computed = text.replace(COMPUTED, ""), re.sub(f"{COMPUTED}[^{COMPUTED}]*{COMPUTED}", LEFT_OUT, text)
    glued = side + [m.group(0).replace(LEFT_OUT, "{{ }}") for m in re.finditer(rf"[\d.]{LEFT_OUT}|{LEFT_OUT}[\d.]\d?", text)]
    found = dict.fromkeys(glued + [re.sub(r"\s+", " ", figure) for _line, figure in _typed_in(text.replace(LEFT_OUT, ""))])
    if phrases is not None:
        found.update(dict.fromkeys(w for _l, w in digitforms.stray_in([_as_read(_closed_only(computed.replace(LEFT_OUT, " ")),
                                                                                     sup="^")], phrases)[0]))
    return [f"{where}: hand-typed figure {figure!r} {seen}: take it from a record or the archive through a "
            "placeholder" for figure in found]


def _keep_lines(match):
    return "\n" * match.group(0).count("\n")


def _as_rendered(text):
    """The page text as Jinja may render it, for the figure check: its comments dropped (0.01{## ##}ms),
    a {% set %} name's literal filled in where it is used, and then (1) statements as spaces and
    placeholders as their literals, (2) statements and placeholders dropped, (3) as (2) with every
    innermost {% if %}...{% endif %} dropped too (0.02{% if false %}.{% endif %} ms)."""
    text = _closed_only(text)
    text = re.sub(r"\{##.*?##\}", _keep_lines, text, flags=re.S)
    for name, _q, literal in re.findall(r"\{%-?\s*set\s+(\w+)\s*=\s*(['\"])([^'\"\n]*)\2\s*-?%\}", text):
        text = re.sub(r"\{\{-?\s*" + re.escape(name) + r"\s*-?\}\}", literal.replace("\\", "\\\\"), text)
    first = text
    dropped = re.sub(r"\{%.*?%\}|\{\{(?!\s*(?:[-+]?[\d.]+|'[^'\n]*'|\"[^\"\n]*\")\s*\}\}).*?\}\}", _keep_lines, text,
                     flags=re.S)
    dropped = re.sub(r"\{\{\s*['\"]?(.*?)['\"]?\s*\}\}", r"\1", dropped)
    dead = dropped_if = text
    while True:
        dead = re.sub(r"\{%-?\s*if\b(?:(?!\{%).)*?%\}(?:(?!\{%).)*?(?:\{%-?\s*el(?:se|if)\b(?:(?!\{%).)*?%\}"
                      r"(?:(?!\{%).)*?)*\{%-?\s*endif\s*-?%\}", _keep_lines, dropped_if, flags=re.S)
        if dead == dropped_if:
            break
        dropped_if = dead
    dead = re.sub(r"\{%.*?%\}|\{\{.*?\}\}", _keep_lines, dead, flags=re.S)
    return [first, dropped, dead]


def _typed_in(text):
    """(line, figure) of each hand-typed figure of one rendering of a page (_as_rendered)."""
    text = _closed_only(text)
    # text shown as code is still text (a ```text fence dressed as a log, a `code span`): its figures, but
    # for "16 x i32" (a type); a fence of a programming language is code, reviewed as code
    found = [(text.count("\n", 0, m.start() + f.start()) + 1, f.group(0))
             for m in _CODE.finditer(text) if not m.group(0).startswith("{") and _shown_as_text(m.group(0))
             for f in _TYPED.finditer(m.group(0))
             if not (re.search(r"[xX]$", f.group(0)) and re.match(r"\s+[a-z]+\d", m.group(0)[f.end():]))]
    masked, shown = _as_read(text)
    found += [(line, f.group(0)) for line, attributes in shown for f in _TYPED.finditer(attributes)]
    masked = re.sub(r"\\([.\\*_])", r"\1", unicodedata.normalize("NFKC", numerals.as_digits(masked)))
    # Markdown as it renders: [0.01](#x) ms and [0.01][r] ms show "0.01 ms"; **0.01** ms, ~~, __ too
    masked = re.sub(r"\[([^\]\n]*)\](?:\([^)\s]*(?:\s+[\"'(]([^\n]*?)[\"')])?\)|\[[^\]\n]*\])",
                    lambda m: f"{m.group(1)} {m.group(2) or ''}", masked)   # a link's title shows as a tooltip
    masked = re.sub(r"[*~]+|(?<!\w)_+|_+(?!\w)", "", masked)
    joined = masked.replace("\n", " ")   # 0.01<line break>ms is one figure to a reader
    return found + [(masked.count(chr(10), 0, match.start()) + 1, match.group(0))
                    for pattern in (_TYPED, _UNIT_FIRST) for match in pattern.finditer(joined)] + _typed_in_tables(masked)


def _as_read(text, sup="e"):
    """``text`` as read: code masked but a placeholder's literals and a fence's caption, comments dropped, tags nothing
    inline, entities decoded, lines kept; and (line, alt/title text) of each tag.  ``sup``: what <sup> reads as."""
    masked = _CODE.sub(lambda m: _literals_only(m.group(0)) if m.group(0).startswith("{") else
                       _caption_only(m.group(0)), text)
    masked = re.sub(r"<sup\b[^>]*>", sup, masked, flags=re.I)
    masked = re.sub(r"<!--.*?-->", lambda m: "\n" * m.group(0).count("\n"), masked, flags=re.S)
    shown = [(masked.count("\n", 0, tag.start()) + 1, _shown_attributes(tag)) for tag in _TAG.finditer(masked)]
    return plainfile.unescape(_TAG.sub(lambda tag: "\n" * tag.group(0).count("\n"), masked)), shown


_TEXT_FENCES = frozenset({"", "text", "txt", "plain", "plaintext", "console", "log", "output", "none", "md", "markdown"})


def _shown_as_text(code):
    """True for a code span, or a fence whose language is none or one of text (not a program)."""
    fence = re.match(r"(?:`{3,}|~{3,})\s*\{?\s*\.?([\w+-]*)", code)
    return fence is None or fence.group(1).lower() in _TEXT_FENCES


_SEPARATOR = re.compile(r"\s*\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)*\|?\s*")


def _typed_in_tables(masked):
    """(line, figure) of each bare number in a table column whose header names a unit (| GFLOPS | ... | 206.4 |).
    One pass: a table runs from its header and separator while its lines hold a '|', each row read under
    the table's header and under the latest header-shaped pair inside it (Markdown reads those as rows; a
    reader might not).  Each body was read again from every such pair: 'a|b' / '-|-' repeated took hours."""
    out, lines = {}, masked.split("\n")

    def header(at):   # with or without outer pipes ("ms | name" / "--- | ---")
        return "|" in lines[at] and at + 1 < len(lines) and "|" in lines[at + 1] and _SEPARATOR.fullmatch(lines[at + 1])

    def cells(line):
        return [cell.strip() for cell in line.strip().strip("|").split("|")]
    number = 0
    while number < len(lines):
        if not header(number):
            number += 1
            continue
        first = latest = cells(lines[number])
        body = number + 2
        while body < len(lines) and "|" in lines[body]:
            row = cells(lines[body])
            for heads in (first,) if latest is first else (first, latest):
                for head, cell in zip(heads, row):
                    if re.search(_UNIT_WORD, head) and re.fullmatch(r"\s*[-+]?(?:\d[\d,]*(?:\.\d+)?|\.\d+)\s*", cell):
                        out.setdefault((body + 1, f"{cell.strip()} ({head})"), None)
            if header(body):
                latest = row
            body += 1
        number = body
    return list(out)


BANNER_MARK = "<!-- reportgen:banner -->"   # a topic page puts it after its finding, chart and main table


def under_title(markdown, note, below_finding=False):
    """Insert a note after the page's first heading (or at the top when it has none); where the page
    opens with its finding, at the page's banner mark instead (a smoke-only warning stays on top)."""
    if below_finding and note and BANNER_MARK in markdown:
        return markdown.replace(BANNER_MARK, note, 1)
    markdown = markdown.replace(BANNER_MARK, "")
    if not note:
        return markdown
    # under the page's title where the page opens with it, else on top: a '# ' further down may be a line of a
    # fence, a comment or a raw <div> (the banner went into each and was hidden or shown as code)
    lines = markdown.split("\n")
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is not None and lines[first].startswith("# "):
        return "\n".join(lines[:first + 1] + ["", note] + lines[first + 1:])
    return note + "\n" + markdown
