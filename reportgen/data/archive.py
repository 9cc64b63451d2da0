"""The historical tables of the seed, read from archive/ exactly as printed.

archive/ is sealed: archive/SHA256SUMS lists the sha256 of every other file under it, and
every read checks it, so one changed digit of a historical table is noticed. To change the
archive deliberately, edit it, then run ``python -m reportgen.data.archive --reseal`` and commit
both (the diff of SHA256SUMS shows which files changed).
"""
import hashlib
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from reportgen.data import plainfile, safeyaml
from reportgen.errors import ReportError

TABLE_FIELDS = ("id", "title", "seed_section", "seed_lines", "unit", "environment",
                "unit_evidence", "row_header", "columns", "rows")
SEAL = "SHA256SUMS"
RESEAL = "python -m reportgen.data.archive --reseal"
_NUMBER = re.compile(r"^(-?[0-9]{1,30}(?:\.[0-9]{1,30})?)\s*(s|ms|%|GFLOPS)?$")
"""An archived figure as the seed prints it: ASCII digits (``\\d`` would read an Arabic-Indic eight
as 8), at most 30 before and after the point (400 nines read as infinity)."""
COLUMN_KINDS = ("figure", "text")


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


KEY = re.compile(r"[A-Za-z0-9_.+=-]+")
"""A table's id, a row's and a column's key: each is part of a figure's id on the pages (markup in a row key was
refused by the page check, which blamed docs/archive.md instead of the table)."""


def _shape_problems(path, raw):
    """The table's columns and rows are what _table reads: a list of column mappings (key, label,
    kind figure or text) and a list of row mappings (key, label, cells), each unit a string or
    null and each join a mapping; one line naming the file and the field otherwise."""
    out = []
    for name in ("columns", "rows"):
        if not isinstance(raw[name], list) or not all(isinstance(item, dict) for item in raw[name]):
            out.append(f"{path}: {name}: expected a list of mappings, got {type(raw[name]).__name__} {raw[name]!r:.40}")
    if out:
        return out
    keys = set()
    for i, col in enumerate(raw["columns"]):
        where = f"{path}: columns[{i}]"
        if str(col.get("key")) in keys:   # a second column of one key: its figures overwrote the first's
            out.append(f"{where}.key: {str(col.get('key'))[:40]!r} names an earlier column too")
        keys.add(str(col.get("key")))
        out += [f"{where}.{name}: expected a string, got {type(col.get(name)).__name__}"
                for name in ("key", "label") if not isinstance(col.get(name), str)]
        if isinstance(col.get("key"), str) and not KEY.fullmatch(col["key"]):
            out.append(f"{where}.key: {col['key'][:40]!r} is not a name ({KEY.pattern})")
        if col.get("kind") not in COLUMN_KINDS:
            out.append(f"{where}.kind: expected one of {', '.join(COLUMN_KINDS)}, got {col.get('kind')!r:.40}")
        out += _optional_problems(where, col)
    for name in ("title", "unit_evidence", "row_header", "seed_section"):   # each shown as one line of text
        if not isinstance(raw.get(name), str) or "\n" in raw[name] or "\r" in raw[name]:
            out.append(f"{path}: {name}: expected a one-line string, got {type(raw.get(name)).__name__}")
    lines = raw.get("seed_lines")
    if not (isinstance(lines, list) and len(lines) == 2 and all(isinstance(n, int) and not isinstance(n, bool) and n > 0
                                                                for n in lines) and lines[0] <= lines[1]):
        out.append(f"{path}: seed_lines: expected [first, last], two line numbers, got {lines!r:.40}")
    if raw.get("environment") is not None and not isinstance(raw.get("environment"), str):
        out.append(f"{path}: environment: expected a string (an id of environments.yaml) or null, got "
                   f"{type(raw['environment']).__name__}")
    seen = set()
    for i, row in enumerate(raw["rows"]):
        where = f"{path}: rows[{i}]"
        if str(row.get("key")) in seen:   # a second row of one key: lookups took one, the page showed both
            out.append(f"{where}.key: {str(row.get('key'))[:40]!r} names an earlier row too")
        seen.add(str(row.get("key")))
        if not isinstance(row.get("key"), (str, int)) or isinstance(row.get("key"), bool):
            out.append(f"{where}.key: expected a string, got {type(row.get('key')).__name__}")
        elif not KEY.fullmatch(str(row["key"])):
            out.append(f"{where}.key: {str(row['key'])[:40]!r} is not a name ({KEY.pattern})")
        if not isinstance(row.get("label"), str):
            out.append(f"{where}.label: expected a string, got {type(row.get('label')).__name__}")
        if not isinstance(row.get("cells"), list):
            out.append(f"{where}.cells: expected a list of strings, got {type(row.get('cells')).__name__}")
        out += _optional_problems(where, row)
    return out


def _optional_problems(where, item):
    out = []
    if not isinstance(item.get("unit"), (str, type(None))):
        out.append(f"{where}.unit: expected a string or null, got {type(item['unit']).__name__}")
    if not isinstance(item.get("join", {}), dict) or not all(   # a key 1, a date or null: an internal TypeError
            isinstance(k, str) and isinstance(v, (str, int, float, type(None))) for k, v in item.get("join", {}).items()):
        out.append(f"{where}.join: expected a mapping of field names to plain values, got {str(item.get('join'))[:40]!r}")
    return out


def _table(path, raw):
    problems = [f"{path}: {name}: missing" for name in TABLE_FIELDS if name not in raw]
    if problems:
        raise ReportError(problems)
    problems = _shape_problems(path, raw)
    if problems:
        raise ReportError(problems)
    if raw["id"] != path.stem:
        problems.append(f"{path}: id: {raw['id']!r} must equal the file name {path.stem!r}")
    elif not KEY.fullmatch(str(raw["id"])):
        problems.append(f"{path}: id: {str(raw['id'])[:40]!r} is not a name ({KEY.pattern})")
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
                problems.append(f"{where}.cells.{col['key']}: {text!r:.60} is not a number with an optional unit")
            out[col["key"]] = cell
        rows.append({"key": str(row["key"]), "label": row["label"], "join": row.get("join", {}),
                     "cells": out})
    if problems:
        raise ReportError(problems)
    return Table(raw["id"], {k: raw[k] for k in TABLE_FIELDS if k not in ("columns", "rows")},
                 columns, rows)


def _sha256(path):
    return hashlib.sha256(plainfile.read_bytes(path, plainfile.MAX_ARCHIVE_FILE_BYTES)).hexdigest()


def _sealed_files(archive_dir, problems=None):
    """Every entry under archive/ but its folders and the seal itself (symlinks, FIFOs and devices
    included, as refusals); a folder nested too deep is a line in ``problems`` (plainfile.walk)."""
    return [p for p in plainfile.tree(archive_dir, problems, "the archive")
            if (p.is_symlink() or not p.is_dir()) and p.relative_to(archive_dir).as_posix() != SEAL]


def _name_problem(archive_dir, rel):
    """A file name one line of the seal cannot hold (a line break, or bytes that are not UTF-8 text):
    resealing it wrote a seal its own check refused, or ended in a traceback."""
    if len(rel.splitlines()) != 1 or rel.endswith(("\n", "\r")) or any("\udc80" <= ch <= "\udcff" for ch in rel):
        shown = str(Path(archive_dir) / rel).encode("utf-8", "backslashreplace").decode("utf-8")
        shown = "".join(ch if ch.isprintable() else f"\\u{ord(ch):04x}" for ch in shown)   # U+2028 breaks lines too
        return (f"{shown}: "
                "a file name the seal cannot list (a line break or bytes that are not UTF-8); rename or remove it")
    return None


def seal_problems(archive_dir):
    """Files under archive/ that differ from, are missing from, or were added after its seal."""
    archive_dir = Path(archive_dir)
    seal = archive_dir / SEAL
    try:
        lines = plainfile.read_text(seal, plainfile.MAX_ARCHIVE_FILE_BYTES).splitlines()
    except OSError:
        return [f"{seal}: missing: the archive is unsealed; run `{RESEAL}` to seal it deliberately"]
    except UnicodeDecodeError as exc:   # one stray byte was an "internal error" naming no file
        return [f"{seal}: not UTF-8 text ({exc.reason} at byte {exc.start}); restore it (git checkout) "
                f"or run `{RESEAL}`"]
    listed = {}
    for number, line in enumerate(lines, 1):
        sha, sep, rel = line.partition("  ")
        if not sep or not re.fullmatch(r"[0-9a-f]{64}", sha) or not rel:
            return [f"{seal}:{number}: expected '<sha256>  <path>', got {line[:60]!r}; run `{RESEAL}`"]
        listed[rel] = sha
    out = []
    actual = {p.relative_to(archive_dir).as_posix(): p for p in _sealed_files(archive_dir, out)}
    named = [_name_problem(archive_dir, rel) for rel in actual if _name_problem(archive_dir, rel)]
    if named:
        return out + named
    hint = f"if the change is deliberate, run `{RESEAL}` and commit archive/{SEAL}"
    for rel in sorted(set(listed) | set(actual)):
        path = archive_dir / rel
        if rel not in actual:
            out.append(f"{path}: sealed in archive/{SEAL} but missing; restore it (git checkout), or {hint}")
        elif path.is_symlink():
            out.append(f"{path}: is a symlink; the archive holds only plain files")
        elif not path.is_file():
            out.append(f"{path}: is not a plain file (a FIFO or device); the archive holds only plain files")
        elif rel not in listed:
            out.append(f"{path}: not in archive/{SEAL} (added after sealing); {hint}")
        elif _sha256(path) != listed[rel]:
            out.append(f"{path}: differs from its sealed sha256 in archive/{SEAL} "
                       f"(historical figures are never edited); {hint}")
    return out


def reseal(archive_dir):
    """Write archive/SHA256SUMS for the archive as it is now (a deliberate act: commit it)."""
    archive_dir = Path(archive_dir)
    linked = plainfile.linked_folder_problem(archive_dir, Path.cwd(), "the archive") or (
        f"{archive_dir}: is a symlink; the archive is a folder of the project" if os.path.islink(archive_dir) else None)
    if linked:   # a committed link 'archive -> elsewhere' had the seal written outside the project
        raise ReportError(linked)
    deep = []
    files = _sealed_files(archive_dir, deep)
    if deep:
        raise ReportError(deep)
    named = [_name_problem(archive_dir, p.relative_to(archive_dir).as_posix()) for p in files]
    if any(named):
        raise ReportError([line for line in named if line])
    links = [p for p in files if p.is_symlink()]
    if links:
        raise ReportError(f"{links[0]}: is a symlink; the archive holds only plain files")
    tree = [line for line in plainfile.tree_problems(archive_dir, "the archive")
            if not line.startswith(f"{archive_dir / SEAL}: ")]   # the seal itself is replaced whole, never followed
    if tree:   # the build's own rules (a hard link, a FIFO, a bidi name): a hard link to a file outside the project
        raise ReportError(tree)   # was sealed, its sha256 in a committed file, and the build refused the archive
    text = "".join(f"{_sha256(p)}  {p.relative_to(archive_dir).as_posix()}\n" for p in files)
    plainfile.replace_whole(archive_dir / SEAL, text.encode("utf-8"))
    return len(files)


def _load_yaml(path, what):
    try:
        # a plain file of bounded size (a FIFO would hang the read), no alias, bounded depth
        return safeyaml.loads(plainfile.read_text(path, plainfile.MAX_ARCHIVE_FILE_BYTES))
    except FileNotFoundError as exc:
        raise ReportError(f"{path}: missing: the archive needs its {what}; restore it with "
                          f"`git checkout -- {path.name}` in {path.parent}") from exc
    except OSError as exc:
        raise ReportError(f"{path}: cannot read: {exc.strerror}") from exc
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise ReportError(f"{path}: invalid YAML: {safeyaml.describe(exc) if isinstance(exc, yaml.YAMLError) else exc}") \
            from exc


ENVIRONMENT_FIELDS = {"label": str, "seed_sections": list, "facts": list}
"""A historical environment as the environment page prints it: a label, the seed sections it comes
from and the facts the seed states, each a string (a list or mapping would be printed raw)."""


def _environment_problems(path, environments):
    out = []
    for key, env in environments.items():
        where = f"{path}: {key}"
        if not isinstance(env, dict):
            out.append(f"{where}: expected a mapping of {', '.join(ENVIRONMENT_FIELDS)}, got {type(env).__name__}")
            continue
        out += [f"{where}.{name}: missing" for name in ENVIRONMENT_FIELDS if name not in env]
        out += [f"{where}.{name}: unknown field" for name in env if name not in ENVIRONMENT_FIELDS]
        for name, want in ENVIRONMENT_FIELDS.items():
            value = env.get(name)
            if name in env and not isinstance(value, want):
                out.append(f"{where}.{name}: expected {'a list of strings' if want is list else 'a string'}, "
                           f"got {type(value).__name__}")
            elif isinstance(value, list):
                out += [f"{where}.{name}[{i}]: expected a string, got {type(item).__name__}"
                        for i, item in enumerate(value) if not isinstance(item, str)]
    return out


def read_archive(archive_dir):
    """Every table under archive/tables, keyed by id, plus the environments; the seal checked."""
    archive_dir = Path(archive_dir)
    planted = plainfile.tree_problems(archive_dir, "the archive") if archive_dir.exists() else []
    if planted:   # a link would publish another folder's tables, sealed or not; a FIFO hang the read
        raise ReportError(planted)
    if not (archive_dir / "tables").is_dir():
        raise ReportError(f"{archive_dir / 'tables'}: missing: no historical tables to publish "
                          "(restore archive/ from git)")
    tables = {}
    for path in sorted((archive_dir / "tables").glob("*.yaml")):
        raw = _load_yaml(path, "historical table")
        if not isinstance(raw, dict):
            raise ReportError(f"{path}: expected a mapping of table fields, got {type(raw).__name__}")
        table = _table(path, raw)
        tables[table.id] = table
    if not tables:
        raise ReportError(f"{archive_dir / 'tables'}: no historical tables (*.yaml); restore archive/ from git")
    environments = _load_yaml(archive_dir / "environments.yaml", "historical environments")
    if not isinstance(environments, dict):
        raise ReportError(f"{archive_dir / 'environments.yaml'}: expected a mapping of environments")
    typed = _environment_problems(archive_dir / "environments.yaml", environments)
    if typed:
        raise ReportError(typed)
    missing = [f"{archive_dir / 'tables' / (t.id + '.yaml')}: environment: unknown {t.meta['environment']!r}"
               for t in tables.values()
               if t.meta["environment"] is not None and t.meta["environment"] not in environments]
    if missing:
        raise ReportError(missing)
    sealed = seal_problems(archive_dir)
    if sealed:
        raise ReportError(sealed)
    return tables, environments


def main(argv=None):
    """python -m reportgen.data.archive --reseal [ARCHIVE_DIR]: record the archive as it is now."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] != "--reseal" or len(args) > 2:
        print("usage: python -m reportgen.data.archive --reseal [ARCHIVE_DIR]", file=sys.stderr)
        return 2
    archive_dir = Path(args[1] if len(args) > 1 else "archive")
    try:
        count = reseal(archive_dir)
    except ReportError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except UnicodeError as exc:   # a name or text no check above foresaw: still one line, no traceback
        print(f"error: {archive_dir}: cannot write the seal: {exc.reason}", file=sys.stderr)
        return 1
    except OSError as exc:   # a full disk, a folder not writable: one line naming the file, no traceback
        print(f"error: {exc.filename or archive_dir}: cannot write the seal: {exc.strerror or exc}", file=sys.stderr)
        return 1
    print(f"sealed {count} files of {archive_dir} into {archive_dir / SEAL}; commit it")
    return 0


if __name__ == "__main__":
    sys.exit(main())
