"""Markdown building blocks of every page: a table, a timing cell.  Cell text comes escaped
from reportgen.render.cells (the one escaping point) or from a FigureBook; a table built with
pandas goes through ``table``, which takes only finished strings."""
from reportgen.render.figures import fmt_number
from reportgen.data.words import W


def markdown(headers, rows, where=lambda i, j: f"row {i} cell {j}"):
    """A Markdown table; every cell is already finished text (escaped or a figure): a cell that is
    not a string (a raw number or record value that skipped cells/FigureBook) or a row of the wrong
    width is refused, never stringified into the page.  ``where(i, j)`` names a cell in the error."""
    headers = list(headers)
    wrong = [f"{where(i, j)}: {value!r:.60}" for i, row in enumerate(rows)
             for j, value in enumerate(row) if not isinstance(value, str)]
    wrong += [f"header {h!r:.60}" for h in headers if not isinstance(h, str)]
    wrong += [f"row {i}: {len(row)} cells for {len(headers)} headers" for i, row in enumerate(rows)
              if len(row) != len(headers)]
    if wrong:
        raise TypeError(f"table: cells must be finished strings, {len(headers)} headers for "
                        f"{max(map(len, rows), default=len(headers))} columns: " + "; ".join(wrong[:5]))
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def table(frame, headers=None):
    """A Markdown table of a frame of finished cells, its columns in order (the index is not shown):
    ``headers`` or the column names on top.  The cells are checked by :func:`markdown` (a NaN pandas
    left for a missing cell, a raw number or record value is refused), named by index and column."""
    headers = list(frame.columns if headers is None else headers)
    if len(headers) != frame.shape[1]:   # caught here even for a frame without rows
        raise TypeError(f"table: cells must be finished strings, {len(headers)} headers for {frame.shape[1]} columns")
    return markdown(headers, frame.to_numpy(dtype=object).tolist(),
                    where=lambda i, j: f"{frame.index[i]!r}/{frame.columns[j]!r}")


def ms_cell(book, cur, stat, suffix):
    if cur is None:
        return W("markdown.ms_cell.text")
    if not cur.ok:
        return book.failed(cur)
    return book.current(f"{cur.record['id']}#{suffix}", fmt_number(cur.stat(stat) * 1e3, "ms") + " ms", "ms", cur)
