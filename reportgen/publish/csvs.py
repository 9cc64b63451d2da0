"""A CSV beside every table of the article pages: what the reader of a results page downloads to
redo a comparison in their own tool (the figures as the page prints them, units included).

Runs on the rendered HTML of a page (after Markdown, before the theme): each <table> becomes rows
of cell texts; a link after the table points at ``csv/<page>-<n>.csv``.  Provenance pages are left
out: their tables are per-record evidence, and the raw records are already shipped as JSON.
"""
import csv
import html
import io
import re

from reportgen.data import plainfile
from reportgen.errors import ReportError

def _tables(page_html):
    """(start, end) of each '<table>...</table>' of a page, as the regex '<table>.*?</table>' finds them, in one pass:
    the regex read the rest of the page again for every '<table>' with no close after it (495 of them, in comments,
    held a 7 MB page for 73 s); past the first such one no later '<table>' has a close either."""
    found, at = [], 0
    while (start := page_html.find("<table>", at)) >= 0:
        end = page_html.find("</table>", start + len("<table>"))
        if end < 0:
            break
        found.append((start, end + len("</table>")))
        at = end + len("</table>")
    return found



class _Cells(plainfile.Parser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.rows, self._row, self._cell = [], None, None

    def handle_starttag(self, tag, attrs):
        if tag == "tr":
            self._row = []
        elif tag in ("td", "th") and self._row is not None:
            self._cell = []
        elif tag == "br" and self._cell is not None:
            self._cell.append(" ")

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self._row.append(" ".join("".join(self._cell).split()))
            self._cell = None
        elif tag == "tr" and self._row is not None:
            self.rows.append(self._row)
            self._row = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def rows(table_html):
    """The cell texts of one HTML table, header row first."""
    parser = _Cells()
    parser.feed(table_html)
    parser.close()
    return parser.rows


def to_csv(table_rows):
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows([[guard(c) for c in row] for row in table_rows])
    return out.getvalue()


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"[-+]?(\d[\d,]*(\.\d*)?|\.\d+)([eE][-+]?\d+)?")


def guard(cell):
    """A cell a spreadsheet would run as a formula (= + - @, or a tab or CR before one) is kept
    text with a leading apostrophe; only a whole plain number (-1.5, +3e-4) is left as it is:
    "-1 +1+cmd|..." starts like a number but is a formula.  Each part after a ';' is guarded too: a
    spreadsheet of a ';' locale (German, French) splits the file there, and 'a;=1+1' ran =1+1.  A part is read
    past its leading spaces and quotes: the writer doubles a cell's quotes, and 'x;"=2+3"' reached such a
    spreadsheet as a field '=2+3'."""
    return ";".join(f"'{part}" if (part[:1] in FORMULA_STARTS or part.lstrip(" \"'")[:1] in FORMULA_STARTS)
                    and not _NUMBER.fullmatch(part) else part for part in cell.split(";"))


MAX_TABLES = 200
"""The most tables a page may hold, each published as a CSV of its own (the committed pages: 25 at most): one
252 KB page of 28 000 tables wrote as many files."""


def attach(page_html, stem, label):
    """(page HTML with a CSV link after every table, {site path: CSV text})."""
    spans = _tables(page_html)
    tables = len(spans)
    if tables > MAX_TABLES:
        raise ReportError(f"docs/{stem}.md: {tables} tables, more than the {MAX_TABLES} a page may hold (each is "
                          "published as a CSV download of its own)")
    files, count = {}, [0]
    depth = stem.count("/")

    def one(table):
        count[0] += 1
        name = f"csv/{stem.replace('/', '-')}-{count[0]}.csv"
        files[name] = to_csv(rows(table))
        href = html.escape("../" * depth + name)
        return table + f'\n<p class="csv"><a href="{href}" download>{html.escape(label)}</a></p>'

    parts, at = [], 0
    for start, end in spans:
        parts += [page_html[at:start], one(page_html[start:end])]
        at = end
    return "".join(parts) + page_html[at:], files
