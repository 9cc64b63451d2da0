"""Markdown building blocks of every page: a table, a timing cell.  Cell text comes escaped
from reportgen.render.cells (the one escaping point) or from a FigureBook; a table built with
pandas goes through ``table``, which takes only finished strings."""
from reportgen.render.figures import fmt_number
from reportgen.data.words import W


def markdown(headers, rows):
    """A Markdown table; every cell is already finished text (escaped or a figure): a cell that is
    not a string (a raw number or record value that skipped cells/FigureBook) or a row of the wrong
    width is refused, never stringified into the page."""
    headers = list(headers)
    wrong = [f"row {i} cell {j}: {value!r:.60}" for i, row in enumerate(rows)
             for j, value in enumerate(row) if not isinstance(value, str)]
    wrong += [f"header {h!r:.60}" for h in headers if not isinstance(h, str)]
    wrong += [f"row {i}: {len(row)} cells for {len(headers)} headers" for i, row in enumerate(rows)
              if len(row) != len(headers)]
    if wrong:
        raise TypeError("markdown: cells must be finished strings, one per header: " + "; ".join(wrong[:5]))
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def table(frame, headers=None):
    """A Markdown table of a frame of finished cells, its columns in order (the index is not shown):
    ``headers`` or the column names on top.  Every cell and header must already be a string (a
    figure from a FigureBook, text from cells); anything else (a NaN pandas left for a missing cell,
    a raw number or record value) is refused rather than stringified into the page."""
    headers = list(frame.columns if headers is None else headers)
    rows = frame.to_numpy(dtype=object).tolist()
    wrong = [f"{frame.index[i]!r}/{frame.columns[j]!r}: {value!r:.60}" for i, row in enumerate(rows)
             for j, value in enumerate(row) if not isinstance(value, str)]
    wrong += [f"header {h!r:.60}" for h in headers if not isinstance(h, str)]
    if wrong or len(headers) != frame.shape[1]:
        raise TypeError(f"table: cells must be finished strings, {len(headers)} headers for {frame.shape[1]} "
                        f"columns: " + "; ".join(wrong[:5]))
    return markdown(headers, rows)


def ms_cell(book, cur, stat, suffix):
    if cur is None:
        return W("markdown.ms_cell.text")
    if not cur.ok:
        return book.failed(cur)
    return book.current(f"{cur.record['id']}#{suffix}", fmt_number(cur.stat(stat) * 1e3, "ms") + " ms", "ms", cur)
