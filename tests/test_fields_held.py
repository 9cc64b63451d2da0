"""Every record field a page reads is held by something: a level over changed code (claims.claims,
claims.durations) or a check named in claims.HELD_BY.

The site is built from the committed results with each current record's extra, check and case replaced by a
dict that remembers the keys read through it; a field read that no level and no HELD_BY entry holds fails the
test, naming the family and the path.  (A page printing a field no rule compared is how the data rounds of
issue #29 kept finding figures a forged run took over: the micro-kernel's cache blocks were the last.)
"""
import collections
import sys

import pytest

from conftest import copy_project

pytestmark = pytest.mark.slow   # a whole build


PRINTERS = ("reportgen/pages/", "reportgen/render/")
"""The code that puts a record's fields on a page (a read elsewhere builds an id, a check, a comparison)."""


def _reads(tmp_path, monkeypatch):
    """{record id: (record, set of paths read)} of the current records of a build of the committed results: the
    build's own field tracker (reportgen.render.blame.Fields, which the data wraps each record's extra, check and
    case in) tells of each read, and a read whose caller is a printer is noted for the record it names."""
    from reportgen.commands import build
    from reportgen.publish import plugin
    from reportgen.render import blame
    seen, reads = {}, collections.defaultdict(set)
    made = plugin.Data.__init__

    def tracked(self, *args, **kwargs):
        made(self, *args, **kwargs)
        for cur in self.current.values():
            rec = cur.record
            wrapped = [rec[root] for root in ("extra", "check", "case") if isinstance(rec.get(root), blame.Fields)]
            assert wrapped, f"{rec['id']}: the build did not track this current record's fields"
            seen[rec["id"]] = (rec, reads[wrapped[0]._where])

    def reader(where, path):   # reader <- Fields._nested <- Fields.__getitem__ / get <- the code that read
        caller = sys._getframe(3).f_code.co_filename.replace("\\", "/")
        if any(part in caller for part in PRINTERS):
            reads[where].add(path)

    monkeypatch.setattr(plugin.Data, "__init__", tracked)
    monkeypatch.setattr(blame.Fields, "reader", staticmethod(reader))
    dest = copy_project(tmp_path / "project")
    build.build(dest, dest / "site")
    return seen


def test_every_field_a_page_reads_is_held(tmp_path, monkeypatch):
    from reportgen.data import claims
    unheld = collections.defaultdict(set)
    found = _reads(tmp_path, monkeypatch)
    assert sum(len(log) for _, log in found.values()) > 1000, "the tracker saw the pages read almost nothing"
    for rec, log in found.values():
        plain = {**rec, **{root: _unwrapped(rec.get(root)) for root in ("extra", "check", "case")}}
        held = set(claims.claims(plain)) | set(claims.durations(plain))
        prefixes = {path[:i] for path in held for i in range(1, len(path) + 1)}
        for path in log:
            value = _lookup(plain, path)
            printed_text = isinstance(value, str) and not claims.text_level(path)   # a text: a level at same code only
            if (path in prefixes and not printed_text or value in (None, {}, [], "")
                    or path[0] == "case" and path[1] not in set(claims.unnamed_case(plain)) | claims.CASE_LEFT_OUT):
                continue   # a level, nothing printed, or a case field the record's id names (held by its id)
            if any(key in claims.HELD_BY for key in path):
                continue
            unheld[rec["experiment"]].add(".".join(map(str, path)))
    assert not unheld, "; ".join(f"{family}: {', '.join(sorted(paths))}" for family, paths in sorted(unheld.items()))


def _unwrapped(value):
    if isinstance(value, dict):
        return {k: _unwrapped(dict.__getitem__(value, k)) for k in value.keys()}
    if isinstance(value, list):
        return [_unwrapped(v) for v in value]
    return value


def _lookup(rec, path):
    node = rec
    for key in path:
        if not isinstance(node, dict) or key not in node:
            return None
        node = node[key]
    return node


def test_every_holder_named_exists():
    import importlib
    from reportgen.data import claims
    for key, holders in claims.HELD_BY.items():
        for holder in holders:
            module, _, name = holder.rpartition(".")
            assert hasattr(importlib.import_module(module), name), (key, holder)


POISON = "\u2620printed"
"""What a number of a failed record prints as in test_no_page_prints_a_failed_record_s_numbers."""


class _PoisonFloat(float):
    def __format__(self, spec):   # 'e' alone: figures.fmt_number reads the exponent, and prints with another spec
        return float.__format__(self, spec) if spec == "e" else POISON

    __str__ = __repr__ = lambda self: POISON


class _PoisonInt(int):
    def __format__(self, spec):
        return POISON

    __str__ = __repr__ = lambda self: POISON


def _spreads(kind, name):   # what arithmetic makes of a poisoned number is poisoned too (a share, a ratio, a sum)
    def op(self, *args):
        value = getattr(kind, name)(self, *args)
        return _poisoned(value) if type(value) in (int, float) else value
    return op


for _kind, _poison in ((float, _PoisonFloat), (int, _PoisonInt)):
    for _name in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "neg", "abs"):
        for _side in ("", "r"):
            if hasattr(_kind, f"__{_side}{_name}__"):
                setattr(_poison, f"__{_side}{_name}__", _spreads(_kind, f"__{_side}{_name}__"))


def _poisoned(value):
    from reportgen.render import blame
    if isinstance(value, bool) or not isinstance(value, (int, float, dict, list)):
        return value
    if isinstance(value, float):
        return _PoisonFloat(value)
    if isinstance(value, int):
        return _PoisonInt(value)
    if isinstance(value, list):
        return [_poisoned(v) for v in value]
    out = value if isinstance(value, blame.Fields) else dict(value)
    for key in list(out.keys()):
        dict.__setitem__(out, key, _poisoned(dict.__getitem__(out, key)))
    return out


def test_no_page_prints_a_failed_record_s_numbers(tmp_path, monkeypatch):
    """Every current record of the committed results made a check_failed one, its samples, statistics, check and
    extra numbers printing as POISON: no page, CSV, chart or index shows one (a failed record has no figure: no run is
    compared with it; render.figures.FigureBook.current prints its status instead).  A number a page derives from one
    by arithmetic is poisoned too (+ - * / // % ** and abs); one through math or statistics is a plain float, held
by FigureBook.current, which refuses a figure of a failed record whatever its text."""
    from reportgen.commands import build
    from reportgen.publish import plugin
    checked = plugin.checked_runs
    flipped = []

    def failing(results_dir):   # every record of every run, as the build has read and checked them
        runs, campaigns = checked(results_dir)
        for rec in (rec for run in runs for rec in run.records):
            if rec["status"] in ("ok", "check_failed"):
                rec.update(status="check_failed", error="check_failed: forged", samples=_poisoned(list(rec["samples"] or ())))
                for root in ("stats", "check", "extra"):
                    if isinstance(rec.get(root), dict):
                        rec[root] = _poisoned(rec[root])
                flipped.append(rec["id"])
        return runs, campaigns

    monkeypatch.setattr(plugin, "checked_runs", failing)
    dest = copy_project(tmp_path / "project")
    build.build(dest, dest / "site")
    assert len(flipped) > 200, "the test made almost no record a failed one"
    shown = []
    for path in sorted((dest / "site").rglob("*")):
        if path.is_file() and path.suffix in (".html", ".json", ".csv", ".svg", ".txt", ".js"):
            text = path.read_text(encoding="utf-8", errors="replace")
            at = text.find(POISON)
            if at >= 0:
                shown.append(f"{path.relative_to(dest / 'site')}: ...{text[max(0, at - 120):at + 10]}")
    assert not shown, "\n".join(shown[:10])
