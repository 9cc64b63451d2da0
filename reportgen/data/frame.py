"""The merged records as pandas frames: one row per current record, one row per archived cell.

``records_frame(current)`` turns {case id: Current} (merge.current_records) into one DataFrame
indexed by record id: family, status, machine, run, profile, finished_at, every case field as a
``case.<name>`` column, the stats as ``stats.<name>``, the check as ``check.<name>``, the log a
figure cites as ``log.<name>``, and ``current``, the Current object itself.  Queries select rows
here (boolean filters, ``.loc``, groupby); a page that shows a row shows it through the Current in
``current`` and its FigureBook, never through a value of the frame: the frame selects, the book
formats.  Case, check and log values stay the Python objects of the record (object columns: an int
stays an int, a missing field is None); only the stats, which are numbers by schema, are float
columns, for sorting and comparing.

``archive_frame(tables)`` does the same for the historical tables: every value is the string the
seed prints, digit for digit (object columns, never parsed into numbers).

A build computes ``current`` once (merge.current_records returns ``Records``); ``of(current)``
builds its frame the first time it is asked and keeps it until the mapping changes.  A plain dict
(a test's hand-made records) gets a fresh frame each time.
"""
import dataclasses

import numpy as np
import pandas as pd

from study import schema

BASE = ("family", "status", "metric", "unit", "machine", "run", "reused_from", "profile", "finished_at")
STATS = tuple(f"stats.{k}" for k in schema.STATS_FIELDS)
CHECK = tuple(f"check.{k}" for k in schema.CHECK_FIELDS)
LOG = tuple(f"log.{k}" for k in schema.LOG_FIELDS)
NUMERIC = {*STATS, "check.max_abs_err", "check.max_rel_err", "check.threshold"}
ARCHIVE = ("table", "row", "row_label", "column", "column_label", "text", "kind", "unit", "cell")


def _column(name, values):
    return pd.Series(values, dtype="float64" if name in NUMERIC else object)


def _frame(columns, index):
    """A frame of object columns (float for NUMERIC), the given names in order; no type inference."""
    index = pd.Index(index, dtype=object, name="id")
    return pd.DataFrame({name: _column(name, values).set_axis(index) for name, values in columns.items()},
                        index=index)


def records_frame(current):
    """One row per current record (see the module docstring); index: record id, in ``current``'s order."""
    curs = list(current.values())
    runs = {}   # id(run) -> (machine, profile, finished_at): one machine id per run, not per record

    def run_fields(cur):
        if cur.run is None:
            return None, None, None
        key = id(cur.run)
        if key not in runs:
            runs[key] = (cur.machine, cur.run.manifest["profile"], cur.run.manifest["finished_at"])
        return runs[key]

    of_run = [run_fields(c) for c in curs]
    recs = [c.record for c in curs]
    columns = {
        "family": [r["experiment"] for r in recs], "status": [r["status"] for r in recs],
        "metric": [r["metric"] for r in recs], "unit": [r["unit"] for r in recs],
        "machine": [f[0] for f in of_run], "run": [r["run_id"] for r in recs],
        "reused_from": [r["reused_from"] for r in recs],
        "profile": [f[1] for f in of_run], "finished_at": [f[2] for f in of_run],
    }
    keys = sorted({k for r in recs for k in r["case"]})
    columns.update({f"case.{k}": [r["case"].get(k) for r in recs] for k in keys})
    for prefix, names in (("stats", STATS), ("check", CHECK), ("log", LOG)):
        columns.update({name: [(r[prefix] or {}).get(name.split(".", 1)[1]) for r in recs] for name in names})
    columns["current"] = curs
    return _frame(columns, [r["id"] for r in recs])


class Records(dict):
    """{case id: Current} that keeps its frame and its families' frames (``of``, ``select``): built
    on first use, dropped by any change to the mapping.  The records themselves are read-only once
    loaded."""

    _frame = None
    _families = None


def _dropping_frames(name):
    method = getattr(dict, name)

    def changed(self, *args, **kwargs):
        self._frame = self._families = None
        return method(self, *args, **kwargs)
    changed.__name__ = name
    return changed


for _name in ("__setitem__", "__delitem__", "__ior__", "clear", "pop", "popitem", "setdefault", "update"):
    setattr(Records, _name, _dropping_frames(_name))


def of(current):
    """The frame of a current mapping: kept on a Records, built afresh for a plain dict."""
    if not isinstance(current, Records):
        return records_frame(current)
    if current._frame is None:
        current._frame = records_frame(current)
    return current._frame


WHOLE_FAMILY_SHOWN = frozenset({"e2e", "e2e_tune", "int8", "graph"})
"""The families whose pages print a family's own failure record (scope=family: retest's record of a family that exited
early) as a row of their tables.  The other families' pages read each record's case fields: a gemm_tvm failure
stopped the build in KeyError 'stage', so their queries leave it out (the history's runs table says it)."""


def _family(current, name):
    """The rows of one family (a groupby kept on a Records: most queries start from one family)."""
    frame = of(current)
    if not isinstance(current, Records):
        rows = frame[frame["family"].to_numpy() == name]
    else:
        if current._families is None:
            current._families = dict(tuple(frame.groupby("family", sort=False)))
        rows = current._families.get(name, frame.iloc[:0])
    if name in WHOLE_FAMILY_SHOWN or "case.scope" not in rows:
        return rows
    return rows[case(rows, "scope").to_numpy() != "family"]


def case(frame, key, default=None):
    """The case field ``key`` of every row; a record without it reads ``default`` (None: missing)."""
    name = f"case.{key}"
    if name not in frame:
        return pd.Series(default, index=frame.index, dtype=object)
    col = frame[name]
    return col if default is None else col.where(col.notna(), default)


def where(frame, **fields):
    """Rows whose case fields equal the values given, as ``record["case"].get(key) == value`` reads
    (None matches a record without the field); values are scalars."""
    mask = np.ones(len(frame), dtype=bool)
    for key, value in fields.items():
        col = case(frame, key).to_numpy()
        mask &= pd.isna(col) if value is None else (col == value)
    return frame[mask]


def select(current, family=None, **fields):
    """The frame rows of ``current`` of one family (all when None) whose case fields equal ``fields``."""
    frame = of(current) if family is None else _family(current, family)
    return where(frame, **fields) if fields else frame


def grid(frame, **orders):
    """The row a lookup finds (the first) for each combination of the case fields given, keeping only
    the values listed and ordering the rows by the lists: ``grid(rows, model=models, engine=engines)``
    is the record of every model and engine, model by model, engines in their listed order."""
    mask = np.ones(len(frame), dtype=bool)
    for key, values in orders.items():
        mask &= case(frame, key).isin(list(values)).to_numpy()
    rows = frame[mask]
    fields = pd.DataFrame({key: case(rows, key) for key in orders}, index=rows.index)
    keep = ~fields.duplicated().to_numpy()
    rows, fields = rows[keep], fields[keep]
    ranks = [fields[key].map({v: i for i, v in enumerate(values)}).to_numpy()
             for key, values in reversed(list(orders.items()))]
    return rows.iloc[np.lexsort(ranks)] if ranks else rows


def currents(frame):
    """The Current objects of a frame's rows, in order."""
    return list(frame["current"])


def first(frame):
    """The Current of the first row, or None for an empty frame."""
    return frame["current"].iloc[0] if len(frame) else None


def as_dict(frame):
    """{record id: Current} of a frame's rows, in order (what merge.family returns)."""
    return dict(zip(frame.index, frame["current"]))


def archive_frame(tables):
    """One row per archived cell of the given tables ({id: archive.Table}), index: the cell id
    (``table/row/column``): table, row key and label, column key and label, the printed ``text``,
    kind, unit, every ``join.<field>`` of its row and column, and ``cell``, the archive.Cell that
    FigureBook.historical shows.  Every value is the seed's string, never a parsed number."""
    rows = []
    for table in tables.values():
        labels = {c["key"]: c["label"] for c in table.columns}
        for row in table.rows:
            for key, cell in row["cells"].items():
                rows.append({"id": cell.id, "table": table.id, "row": row["key"], "row_label": row["label"],
                             "column": key, "column_label": labels[key], "text": cell.text, "kind": cell.kind,
                             "unit": cell.unit, "cell": cell, "join": cell.join})
    joins = sorted({k for r in rows for k in r["join"]})
    columns = {name: [r[name] for r in rows] for name in ARCHIVE}
    columns.update({f"join.{k}": [r["join"].get(k) for r in rows] for k in joins})
    return _frame(columns, [r["id"] for r in rows])


def fastest(candidates, key=None):
    """The fastest of ``candidates`` (lowest p50, or lowest ``key``; None skipped, None if none), marked
    as resting on a jump when a candidate it passed over is flagged: that record (a re-run forged slow)
    decided the choice, so the winner's figures and the verdicts on them say so (a faster BLAS
    environment slowed 3x handed the choice to the other, shown unflagged)."""
    found = [c for c in candidates if c is not None]
    if not found:
        return None
    top = min(found, key=key or (lambda c: c.stat("p50")))
    if not top.jumped and any(c.jumped for c in found if c is not top):
        return dataclasses.replace(top, jumped=True)
    return top
