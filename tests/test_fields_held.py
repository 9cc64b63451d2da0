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


class _Read(dict):
    """A record's mapping that remembers, in ``log``, the path of every key read through [] or get by the code that
    prints pages (PRINTERS)."""

    def __init__(self, data, path, log):
        super().__init__(data)
        self._path, self._log = path, log

    def __reduce__(self):   # a copy is a plain dict again
        return dict, (dict(self),)

    def _seen(self, key):
        value = dict.__getitem__(self, key)
        caller = sys._getframe(2).f_code.co_filename.replace("\\", "/")
        if any(part in caller for part in PRINTERS):
            self._log.add(self._path + (key,))
        if isinstance(value, dict) and not isinstance(value, _Read):
            value = _Read(value, self._path + (key,), self._log)
            dict.__setitem__(self, key, value)
        return value

    def __getitem__(self, key):
        return self._seen(key)

    def get(self, key, default=None):
        return self._seen(key) if key in self.keys() else default


def _reads(tmp_path, monkeypatch):
    """{record id: (record, set of paths read)} of the current records of a build of the committed results."""
    from reportgen.commands import build
    from reportgen.publish import plugin
    seen = {}
    made = plugin.Data.__init__

    def tracked(self, *args, **kwargs):
        made(self, *args, **kwargs)
        for cur in self.current.values():
            rec, log = cur.record, set()
            seen[rec["id"]] = (rec, log)
            for root in ("extra", "check", "case"):
                if isinstance(rec.get(root), dict):
                    rec[root] = _Read(rec[root], (root,), log)

    monkeypatch.setattr(plugin.Data, "__init__", tracked)
    dest = copy_project(tmp_path / "project")
    build.build(dest, dest / "site")
    return seen


def test_every_field_a_page_reads_is_held(tmp_path, monkeypatch):
    from reportgen.data import claims
    unheld = collections.defaultdict(set)
    for rec, log in _reads(tmp_path, monkeypatch).values():
        plain = {**rec, **{root: _unwrapped(rec.get(root)) for root in ("extra", "check", "case")}}
        held = set(claims.claims(plain)) | set(claims.durations(plain))
        prefixes = {path[:i] for path in held for i in range(1, len(path) + 1)}
        for path in log:
            value = _lookup(plain, path)
            if (path in prefixes or value in (None, {}, [], "")
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
