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
