"""The historical tables of the seed, read from archive/ exactly as printed."""
import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from .errors import ReportError

TABLE_FIELDS = ("id", "title", "seed_section", "seed_lines", "unit", "environment",
                "unit_evidence", "row_header", "columns", "rows")
_NUMBER = re.compile(r"^(-?\d+(?:\.\d+)?)\s*(s|ms|%|GFLOPS)?$")


@dataclass
class Cell:
    """One archived figure or text, with the exact string the seed prints."""

    id: str
    text: str
    kind: str          # figure | text
    unit: str | None
    join: dict = field(default_factory=dict)

    @property
    def value(self):
        """The number inside a figure string ('0.0987 s' -> 0.0987), None for shapes/text."""
        match = _NUMBER.match(self.text) if self.kind == "figure" else None
        return float(match.group(1)) if match else None

    @property
    def decimals(self):
        match = _NUMBER.match(self.text)
        if not match or "." not in match.group(1):
            return 0
        return len(match.group(1).split(".")[1])


@dataclass
class Table:
    id: str
    meta: dict
    columns: list
    rows: list   # [{key, label, join, cells: {colkey: Cell}}]

    def cell(self, row, col):
        for r in self.rows:
            if r["key"] == row:
                return r["cells"][col]
        raise KeyError(f"{self.id}: no row {row!r}")

    def figures(self):
        return [c for r in self.rows for c in r["cells"].values() if c.kind == "figure"]


def _table(path, raw):
    problems = [f"{path}: {name}: missing" for name in TABLE_FIELDS if name not in raw]
    if problems:
        raise ReportError(problems)
    if raw["id"] != path.stem:
        problems.append(f"{path}: id: {raw['id']!r} must equal the file name {path.stem!r}")
    columns = raw["columns"]
    rows = []
    for i, row in enumerate(raw["rows"]):
        where = f"{path}: rows[{i}]"
        cells = row.get("cells", [])
        if len(cells) != len(columns):
            problems.append(f"{where}.cells: {len(cells)} cells for {len(columns)} columns")
            continue
        out = {}
        for col, text in zip(columns, cells):
            if not isinstance(text, str):
                problems.append(f"{where}.cells.{col['key']}: expected the printed string, "
                                f"got {type(text).__name__} {text!r} (quote it to keep every digit)")
                continue
            # a row may carry its own unit (a table of figures quoted from prose mixes units)
            cell = Cell(f"{raw['id']}/{row['key']}/{col['key']}", text, col["kind"],
                        row.get("unit", col.get("unit")) if col["kind"] == "figure" else col.get("unit"),
                        {**row.get("join", {}), **col.get("join", {})})
            if cell.kind == "figure" and cell.unit != "shape" and cell.value is None:
                problems.append(f"{where}.cells.{col['key']}: {text!r} is not a number with an optional unit")
            out[col["key"]] = cell
        rows.append({"key": str(row["key"]), "label": row["label"], "join": row.get("join", {}),
                     "cells": out})
    if problems:
        raise ReportError(problems)
    return Table(raw["id"], {k: raw[k] for k in TABLE_FIELDS if k not in ("columns", "rows")},
                 columns, rows)


def read_archive(archive_dir):
    """Every table under archive/tables, keyed by id, plus the environments."""
    archive_dir = Path(archive_dir)
    tables = {}
    for path in sorted((archive_dir / "tables").glob("*.yaml")):
        try:
            raw = yaml.safe_load(path.read_text(encoding="utf-8"))
        except yaml.YAMLError as exc:
            raise ReportError(f"{path}: invalid YAML: {exc}") from exc
        table = _table(path, raw)
        tables[table.id] = table
    environments = yaml.safe_load((archive_dir / "environments.yaml").read_text(encoding="utf-8"))
    missing = [f"{archive_dir / 'tables' / (t.id + '.yaml')}: environment: unknown {t.meta['environment']!r}"
               for t in tables.values()
               if t.meta["environment"] is not None and t.meta["environment"] not in environments]
    if missing:
        raise ReportError(missing)
    return tables, environments
