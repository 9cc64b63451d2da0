"""How deep a docs page's own text nests: Python-Markdown converts nesting by recursion (lists, quotes, and
md_in_html's block elements), and a page nested past what its stack bears ended the build in a RecursionError or
worse; pagecontent.source_problem reads each page's own text with nesting_problem before MkDocs converts it."""
import re

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
_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")


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
            out.append(_CODE_SPAN.sub(lambda m: " " * len(m.group(0)), line))
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
