"""How deep a docs page's own text nests: Python-Markdown converts nesting by recursion (lists, quotes, and
md_in_html's block elements), and a page nested past what its stack bears ended the build in a RecursionError or
worse; pagecontent.source_problem reads each page's own text with nesting_problem before MkDocs converts it."""
import re
import sys
import time

import markdown

from reportgen.data import plainfile

MAX_INDENT = 96
"""The most columns a line of a docs page's own text is indented (a tab counts 4; the committed pages' deepest:
42): each 4 columns is a list or a quote Python-Markdown nests into by recursion, and 250 tab-indented items
(32 KB) ran it out of stack."""
MAX_HTML_DEPTH = 32
"""How deep a docs page's own block elements nest (the committed pages: 1): 400 nested '<div markdown>' (9.6 KB)
ran Python-Markdown's md_in_html out of stack."""
_NESTED_BLOCK = re.compile(r"<(/?)(div|section|details|summary|article|aside|blockquote|figure|main|nav|header|footer|"
                        r"ul|ol|dl|table|form|fieldset)\b", re.I)
_VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"})
"""The elements that hold nothing: they open no level."""
_MARKER = re.compile(r"(?:[-+*>]|\d+[.)])")
_MARKERS = re.compile(r"[ \t]*(?:(?:[-+*]|\d+[.)])[ \t]+|>[ \t]*)*")


def nesting_problem(where, own):
    """One line for a page nested deeper than Python-Markdown's recursion bears (MAX_INDENT, MAX_HTML_DEPTH),
    or None."""
    for number, line in enumerate(own.split("\n"), 1):
        wide = line.replace(">", " ").expandtabs(4)   # '>     - x': a quote's own indentation nests as deep
        if len(wide) - len(wide.lstrip(" ")) > MAX_INDENT:
            return (f"{where}:{number}: a line indented more than {MAX_INDENT} columns (a tab counts 4): each 4 is a "
                    "list or a quote Python-Markdown nests into (250 nested list items ran it out of stack)")
        opened = _MARKERS.match(line).group(0)
        if len(_MARKER.findall(opened)) > MAX_HTML_DEPTH:   # '- - - ... x': a list in a list on one line
            return (f"{where}:{number}: more than {MAX_HTML_DEPTH} list or quote markers opening one line: each is a "
                    "list Python-Markdown nests into ('- - - ...' 500 long ran it out of stack)")
    deep = _Depth()
    deep.feed(_code_blanked(own))
    deep.close()
    if deep.line is None:   # and as written, tag by tag, with no state a fence, a comment or a quote could hold open
        deep.line = _written_depth(own)
    if deep.line is not None:
        return (f"{where}:{deep.line}: block elements nested more than {MAX_HTML_DEPTH} deep (400 nested "
                "'<div markdown>' ran Python-Markdown out of stack)")
    return None


_FENCE_LINE = re.compile(r"^[ \t>]*(`{3,}|~{3,})")
def _spans_blanked(line):
    """``line`` with its code spans blanked: a run of backticks opens a span that the next run of as many closes
    (one pass over the runs; a regex with a backreference took 91 s on a 4.8 KB line of backticks)."""
    import bisect
    runs = [(m.start(), m.end()) for m in re.finditer(r"`+", line)]
    by_length = {}
    for index, (start, end) in enumerate(runs):
        by_length.setdefault(end - start, []).append(index)
    out, index = list(line), 0
    while index < len(runs):
        start, end = runs[index]
        same = by_length[end - start]
        after = bisect.bisect_right(same, index)
        if after == len(same):
            index += 1
            continue
        close = runs[same[after]][1]
        out[start:close] = " " * (close - start)
        index = same[after] + 1
    return "".join(out)


def _code_blanked(text):
    """``text`` with its fenced blocks' lines and its code spans blanked (lines kept): code is shown, never
    parsed, so a '<!--' or an unclosed attribute quote in a fence hid the nested elements after it from the count
    (480 nested '<div markdown="1">' after a fenced '<!--')."""
    out, fence = [], None
    for line in text.split("\n"):
        opened = _FENCE_LINE.match(line)
        if fence is None and opened:
            fence = opened.group(1)[0] * len(opened.group(1))
            out.append("")
        elif fence is not None:
            if opened and opened.group(1).startswith(fence):
                fence = None
            out.append("")
        else:
            out.append(_spans_blanked(line))
    return "\n".join(out)


_TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9-]*)([^<>]*)")


class _Levels:
    """The open elements of a page as md_in_html nests them, one set of rules for both readers: a tag of
    _NESTED_BLOCK, or of any name once one carried a markdown attribute, or any non-void tag inside such an element
    opens a level ('<li>' repeated 990 times inside one '<div markdown="1">' ran it out of stack); an end tag closes
    the innermost open element of its name, a stray one nothing."""

    def __init__(self):
        self.open, self.marked = [], set()

    def opens(self, tag, markdown):
        """Whether ``tag`` (carrying a markdown attribute or not) opened a level past MAX_HTML_DEPTH."""
        if markdown:
            self.marked.add(tag)
        inside = any(t in self.marked for t in self.open)
        if tag in self.marked or _NESTED_BLOCK.fullmatch(f"<{tag}") is not None or (inside and tag not in _VOID):
            self.open.append(tag)
        return len(self.open) > MAX_HTML_DEPTH

    def closes(self, tag):
        if tag in self.open:
            del self.open[len(self.open) - 1 - self.open[::-1].index(tag):]


def _written_depth(text):
    """The line where the elements nest past MAX_HTML_DEPTH counted tag by tag as written (_Levels), or None.  Read
    besides the parser: an unclosed fence blanked the rest of a page that Markdown converted (480 nested
    '<div markdown="1">' after it)."""
    levels = _Levels()
    for match in _TAG.finditer(text):
        tag = match.group(2).lower()
        if match.group(1):
            levels.closes(tag)
        elif levels.opens(tag, re.search(r"(?:^|\s)markdown\b", match.group(3)) is not None):
            return text.count("\n", 0, match.start()) + 1
    return None


class _Depth(plainfile.Parser):
    """How deep a page's own block elements nest, its tags read as a browser reads them (a '</div' inside an
    attribute's value closes nothing): a tag of _NESTED_BLOCK, or of any name once one carried a markdown attribute,
    with a value or bare (md_in_html recurses into every such tag, a <tr> or an <li> as a <div>: 400 nested
    '<tr markdown="1">' ran it out of stack, and 450 nested '<center markdown>' passed a regex that wanted
    'markdown=').  ``line``: where the nesting first went past MAX_HTML_DEPTH, else None."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.levels, self.line = _Levels(), None

    def set_cdata_mode(self, elem):
        """Tags are read on after a <style> or <script> (one shown in a code span put the parser in CDATA mode, and the
        450 nested '<div markdown>' after it went uncounted); docs pages hold neither (source_problem)."""

    def handle_starttag(self, tag, attrs):
        if self.levels.opens(tag, any(name == "markdown" for name, _value in attrs)) and self.line is None:
            self.line = self.getpos()[0]

    def handle_endtag(self, tag):
        # as a browser and md_in_html read it ('</ul>' after each '<div markdown>' kept one shared count at 1)
        self.levels.closes(tag)


MAX_CONVERT_FRAMES = 300
"""How deep Python-Markdown may recurse converting one docs page, in Python frames above its caller (the committed
pages: 74 at most; each nested '<div markdown>' or quote costs 3, a nested list item 4).  MkDocs converts the page
from about the same depth under Python's limit of 1000, so a page converted within this bound is converted in the
build with room to spare."""


def _frames():
    frame, count = sys._getframe(1), 0
    while frame is not None:
        frame, count = frame.f_back, count + 1
    return count


class _Late(BaseException):
    """The conversion ran past its seconds: no Exception, so no extension's 'except Exception' swallows it
    (pymdownx.superfences catches every Exception around a fence's highlighting: an alarm inside one was lost and
    the rest of the page converted unbounded)."""


def _converted(text, extensions, configs, seconds):
    """How Python-Markdown, with the site's ``extensions``, converts ``text``: "deep" when it recurses past
    MAX_CONVERT_FRAMES, "slow" when it takes more than ``seconds``, else None.  While it converts, Python's limit
    is lowered to the bound and sys.getrecursionlimit answers the real one: the guards Markdown and its extensions
    keep (quotes stop nesting, pymdownx's details stop nesting, 100 calls short of the limit) read the limit MkDocs
    converts under, as they do in the build, so the check converts what MkDocs converts (a lowered limit they read
    stopped 4 of 21 nested details in the check that the build published), and a page that would reach them
    overflows the bound first."""
    import signal

    def late(_signum, _frame):
        raise _Late()
    limit, read = sys.getrecursionlimit(), sys.getrecursionlimit
    converter = markdown.Markdown(extensions=extensions, extension_configs=configs)
    converter.treeprocessors.register(_References(converter), "reportgen-references", 30)   # before 'inline' (20)
    try:
        previous = signal.signal(signal.SIGALRM, late)
    except ValueError:   # not the main thread: unbounded in time
        previous = None
    sys.getrecursionlimit = lambda: limit
    sys.setrecursionlimit(_frames() + MAX_CONVERT_FRAMES)
    if previous is not None:
        signal.setitimer(signal.ITIMER_REAL, max(seconds, 0.001))
    try:
        try:
            html = converter.convert(text)
        finally:   # disarmed first: an alarm after the conversion returned lands here, and is 'slow' below
            if previous is not None:
                signal.setitimer(signal.ITIMER_REAL, 0)
    except RecursionError:
        return "deep", 0
    except _Late:
        return "slow", 0
    except _LongReference:
        return "reference", 0
    finally:
        if previous is not None:
            signal.signal(signal.SIGALRM, previous)
        sys.setrecursionlimit(limit)
        sys.getrecursionlimit = read
    return ("big" if len(html) > MAX_CONVERTED_CHARS else None), len(html)


class _LongReference(Exception):
    pass


class _References(markdown.treeprocessors.Treeprocessor):
    """Between the block parse and the inline one: a reference definition (wherever Markdown found it: in a quote, a
    list, over three lines) longer than MAX_REFERENCE_CHARS stops the conversion before any link copies it."""

    def run(self, root):
        if any(len(str(url)) + len(str(title or "")) > MAX_REFERENCE_CHARS for url, title in self.md.references.values()):
            raise _LongReference()


SEARCH_S = 15
"""The most seconds the search for an overflowing page's line may take (a 250 KB page of tables converts in 2.7 s,
and 15 halvings took 40 s): past it the page is refused at the lines the search has narrowed it to."""
CONVERT_S, BUILD_CONVERT_S = 10, 60
"""The most seconds the check's conversion of one page, and of every page of a build together, may take (the
committed pages: 0.14 s all together, the build's own pages a few seconds; a 256 KB page of tables 2.7 s): attr_list
reads braces in quadratic time, and one heading of 130 000 '{ ' kept a build busy for five minutes.  MkDocs converts
each passing page again, so the build's conversions take at most twice the budget."""


MAX_CONVERTED_CHARS = 8_000_000
"""The most characters of HTML one page may convert to (the committed pages: under 430 000 each, whole): Markdown
copies a reference's title into every link using it, and 900 '[r]' beside one title of 250 000 characters made a
254 KB page 225 MB of HTML; a table pads every row to its header's cells."""
MAX_REFERENCE_CHARS = 2000
"""The most characters a reference definition ('[r]: url "title"') may hold, address and title: each link naming it
repeats them (a three-line definition inside a quote slipped past a reading of the text; Markdown's own list of
references is read, before any link copies one)."""
BUILD_CONVERTED_CHARS = 16_000_000
"""The most characters of HTML the build's pages may convert to together (the committed site's HTML files: 6.7 MB
whole, theme and navigation included): 24 pages just under MAX_CONVERTED_CHARS each wrote 210 MB."""


class Converter:
    """The site's Markdown conversion, checked page by page within MAX_CONVERT_FRAMES and CONVERT_S, the build's
    pages within BUILD_CONVERT_S together (``left``)."""

    def __init__(self, extensions, configs):
        self.extensions, self.configs, self.left, self.spent = extensions, configs, BUILD_CONVERT_S, 0.0
        self.written, self.sizes = 0, {}

    def _run(self, text, where=""):
        """(what _converted found, the seconds it had)."""
        started, seconds = time.monotonic(), min(CONVERT_S, self.left)
        if seconds <= 0:   # the build's time is spent: no page converts now, however small
            return "slow", 0
        found, chars = _converted(text, self.extensions, self.configs, seconds)
        self.left -= time.monotonic() - started
        self.spent += time.monotonic() - started
        self.written += chars
        self.sizes[where] = self.sizes.get(where, 0) + chars
        return ("many" if found is None and self.written > BUILD_CONVERTED_CHARS else found), seconds

    def _first_line(self, where, text):
        """The refusal of a page that overflows, at the first line whose text up to it overflows (a prefix nests no
        deeper than the page), found by halves within SEARCH_S."""
        lines, started = text.split("\n"), time.monotonic()
        low, high = 1, len(lines)
        while low < high and time.monotonic() - started < SEARCH_S:
            middle = (low + high) // 2
            if _converted("\n".join(lines[:middle]), self.extensions, self.configs, SEARCH_S)[0] == "deep":
                high = middle
            else:
                low = middle + 1
        return (f"{where}:{low}{'' if low == high else f'-{high}'}: Python-Markdown, converting the page with the "
                f"site's extensions, nests deeper than {MAX_CONVERT_FRAMES} calls by this line (lists, quotes or "
                "'<div markdown>' inside one another)")

    def _slow(self, where, seconds):
        if seconds < CONVERT_S:   # the build's time was spent on the pages before it
            return (f"{where}: the build's pages have used the {BUILD_CONVERT_S} s of conversion they have together "
                    f"({self.spent:.0f} s spent) before this one converted; the pages before it convert too slowly (a "
                    "pattern one of the site's extensions reads in quadratic time)")
        return (f"{where}: Python-Markdown took more than {CONVERT_S} s converting the page, with the site's "
                "extensions (the site's pages take under a second; attr_list read 130 000 '{ ' in one heading in "
                "quadratic time, and tables padded to wide headers write megabytes)")

    def problem(self, where, own, converted):
        """One line for a page MkDocs would convert past the bounds (``converted``: the text as the plugin hands it
        on), naming a line of the page's ``own`` text where that overflows too, else a line as rendered; or None.
        The page is converted as the build converts it, by Markdown itself with the site's extensions and settings,
        so no reading of the text beside it (nesting_problem's) decides alone: an unclosed fence hid 480 nested
        '<div markdown>' from that reading, which Markdown then nested."""
        found, seconds = self._run(converted, where)
        if found == "reference":
            return (f"{where}: a link reference definition of more than {MAX_REFERENCE_CHARS} characters (address and "
                    "title): Markdown copies them into every link that names it")
        if found == "many":
            largest = ", ".join(f"{page} {chars / 1e6:.1f} M" for page, chars in
                                sorted(self.sizes.items(), key=lambda item: -item[1])[:3])
            return (f"{where}: the build's pages convert to more than {BUILD_CONVERTED_CHARS} characters of HTML "
                    f"together with this one ({self.written} so far, the largest: {largest}; the site's pages write "
                    "about 3 million)")
        if found == "slow":
            return self._slow(where, seconds)
        if found == "big":
            return (f"{where}: Python-Markdown, converting the page with the site's extensions, writes more than "
                    f"{MAX_CONVERTED_CHARS} characters of HTML (a reference or a table's header repeated into every "
                    "use: the site's pages write under 500 000 each)")
        if found is None:
            return None
        if own != converted and self._run(own)[0] == "deep":
            return self._first_line(where, own)
        return self._first_line(where if own == converted else f"{where} (as rendered)", converted)


def conversion_problem(where, text, extensions, configs):
    """Converter.problem of one text as written and handed on (a page of its own)."""
    return Converter(extensions, configs).problem(where, text, text)


def converted_problem(where, own, converted, extensions, configs):
    """Converter.problem of one page, outside a build's budget."""
    return Converter(extensions, configs).problem(where, own, converted)
