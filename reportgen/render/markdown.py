"""Markdown building blocks of every page: a table, a timing cell.  Cell text comes escaped
from reportgen.render.cells (the one escaping point) or from a FigureBook."""
from reportgen.render.figures import fmt_number
from reportgen.data.words import W


def markdown(headers, rows):
    """A Markdown table; every cell is already finished text (escaped or a figure)."""
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def ms_cell(book, cur, stat, suffix):
    if cur is None:
        return W("markdown.ms_cell.text")
    if not cur.ok:
        return book.failed(cur)
    return book.current(f"{cur.record['id']}#{suffix}", fmt_number(cur.stat(stat) * 1e3, "ms") + " ms", "ms", cur)
