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
import re
from html.parser import HTMLParser

from pygments.token import STANDARD_TYPES

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
    "span": frozenset({"class", "id", "title", "data-num", "data-conclusion", "data-verdict"}),
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
LINK_SCHEMES = ("http", "https", "mailto")
_SOURCE = re.compile(r"(?:\.\./)*assets/charts/[\w.-]+\.svg")
"""The only images content shows: the build's own static charts."""


def _value_problem(tag, name, value):
    """Why one attribute value is not one the build writes, or None."""
    if name == "class":
        odd = next((c for c in value.split() if c not in CLASSES or FURNITURE.get(c, tag) != tag), None)
        return None if odd is None else f"the class {odd[:40]!r}"
    if name == "id":
        return None if _NAME.fullmatch(value) and value != "__config" else "an id the build does not write"
    if name in ("data-num", "data-chart", "data-today", "data-conclusion", "data-verdict"):
        return None if _KEY.fullmatch(value) else "a value that is not a name"
    if name == "href":
        plain = re.sub(r"[\x00-\x20\x7f]+", "", value)   # browsers drop these inside a scheme
        scheme = _SCHEME.match(plain)
        if plain.startswith(("//", "\\", "/\\")) or (scheme and scheme.group(1).lower() not in LINK_SCHEMES):
            return "a link other than a page, an anchor or an http(s) address"
        return None
    if name == "src":
        return None if _SOURCE.fullmatch(value) else "an image other than the build's own charts"
    if name == "type":
        return None if value.strip().lower() == "application/json" else "a script that runs"
    if name == "open":
        return None if value in ("", "open") else "a value"
    return None   # title, alt, download: text


class _Content(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.problem, self.furniture = None, []   # the furniture elements open, by tag

    def handle_starttag(self, tag, attrs):
        if self.problem:
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
            why = _value_problem(tag, name, value or "")
            if why:
                self.problem = f"<{tag} {name}={str(value)[:60]!r}>: {why}"
                return

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        self.handle_endtag(tag)

    def handle_endtag(self, tag):
        if tag in self.furniture:
            del self.furniture[len(self.furniture) - 1 - self.furniture[::-1].index(tag):]

    def handle_data(self, data):
        if self.furniture and re.search(r"\d", data) and not self.problem:
            self.problem = (f"text {data.strip()[:30]!r} inside a permalink or CSV link, which print hides: "
                            "it holds no figure")


def content_problem(where, page_html):
    """One line naming the first element, attribute or class of a page's content (its HTML as the
    Markdown wrote it, before the theme wraps it) outside ELEMENTS and CLASSES, or None."""
    parser = _Content()
    parser.feed(page_html)
    parser.close()
    if parser.problem is None:
        return None
    return (f"{where}: {parser.problem}; a page's content holds only the elements, attributes and classes "
            "the build writes (reportgen/publish/pagecontent.py), so that it shows its text as written")


DOCS_FILES = re.compile(r"(?:[\w-]+/)*[\w.-]+\.md|assets/css/[\w.-]+\.css|assets/js/[\w.-]+\.js"
                        r"|assets/vendor/(?:[\w.-]+\.js|LICENSE\.[\w.-]+)|snippets/[\w.-]+\.py|words/[\w.-]+\.yaml")
"""The files docs/ holds: pages, the project's stylesheets and scripts, vendored scripts with their
licences, code snippets the pages show, and the words (not published).  Any other file (an .svg, an
.html, a .pdf) would be published as written, unread by the page checks."""


def docs_file_problem(rel):
    """One line for a docs file outside DOCS_FILES, or None."""
    if DOCS_FILES.fullmatch(rel):
        return None
    return (f"docs/{rel}: not a kind of file docs/ holds (pages .md, assets/css/*.css, assets/js/*.js, "
            "assets/vendor/ scripts and licences, snippets/*.py, words/*.yaml); another file would be published "
            "as written, unread by the page checks")
