"""Quote one figure of a current record (time, ratio, rate, share, archived cell), linked to its
provenance; the records are found with reportgen.data.queries.  None of these formats a sentence."""
from reportgen.render.figures import fmt_number
from reportgen.render.markdown import ms_cell


def fig(book, cur, suffix, text, unit, also=()):
    """One current figure of a record, linked to its provenance (``also``: other records it rests on)."""
    return book.current(f"{cur.record['id']}#{suffix}", text, unit, cur, also=also)


def ms(book, cur, stat="p50"):
    return ms_cell(book, cur, stat, f"{stat}_ms")


def seconds(book, cur, suffix, value_s):
    """A duration of a record's extra field, in ms below one second, else in s.

    Give it a suffix of its own (e.g. ``compile_time``): the e2e tables use ``compile_s`` for the
    same quantity always in seconds, and one figure id should always show the same text.
    """
    if value_s < 1:
        return fig(book, cur, suffix, fmt_number(value_s * 1e3, "ms") + " ms", "ms")
    return fig(book, cur, suffix, fmt_number(value_s, "s") + " s", "s")


def times(book, cur, suffix, ratio, *others):
    """A ratio figure ('12.3×') attached to one record; ``others``: the records it is a ratio to (a jump
    of any of them flags it, render.figures.FigureBook.current)."""
    return fig(book, cur, suffix, fmt_number(ratio, "×") + "×", "×", also=others)


def gflops(book, cur):
    """The p50 GFLOPS of a GEMM record (same figure id as the GEMM pages use)."""
    return fig(book, cur, "gflops_p50", fmt_number(cur.gflops(), "GFLOPS"), "GFLOPS")


def percent(book, cur, suffix, share, *others):
    """A share figure ('12.3%') attached to one record; ``others``: the records it is a share of (a jump
    of any of them flags it, as for times)."""
    return fig(book, cur, suffix, fmt_number(share * 100, "%") + "%", "%", also=others)


def hist(book, tables, table, row, col):
    """An archived figure exactly as printed, or None when the archive lacks it."""
    try:
        return book.historical(tables[table].cell(row, col))
    except KeyError:
        return None
