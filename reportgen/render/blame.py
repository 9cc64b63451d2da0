"""Which record field a page broke on: the current records' fields are read through mappings that note the last
field a page found missing or null, and the last values it read, so a page that stops on one names the record's
file, its line and the field (for a value of an odd kind, the latest of that kind: the exception is quoted beside it).

The contracts (study.work) say what each kind of record holds; a page reads more than any contract lists (a graph
step's intermediate_bytes, a peak's vector FMA counts), and a record without one stopped the build with
"docs/credibility.md: cannot be checked or shown (KeyError: 'intermediate_bytes')", naming a page, not the input.
"""
import collections
import itertools

_LAST = {}
"""The last field found missing ("missing") and the last found null ("null"): (where, path)."""
_READ = collections.deque(maxlen=32)
"""The last values read, (where, path, value): a page stopping on one of an odd kind (a text where a count was)."""


class Fields(dict):
    """A record's mapping (its extra, check or case) whose reads by [] note a missing key or a null value, and
    whose nested mappings are read the same way.  A copy of it (copy, deepcopy, pickle) is a plain dict."""

    def __init__(self, data, where, path):
        super().__init__(data)
        self._where, self._path = where, path

    reader = None
    """A callable(where, path) told of every read, or None (the build): tests/test_fields_held.py lists with it what
    the pages read of each record."""

    def __reduce__(self):
        return dict, (dict(self),)

    def _nested(self, key, value):
        if Fields.reader is not None:
            Fields.reader(self._where, (*self._path, key))
        if not isinstance(value, dict):
            _READ.append((self._where, (*self._path, key), value))
        if value is None:
            _LAST["null"] = (self._where, (*self._path, key))
        elif isinstance(value, dict) and not isinstance(value, Fields):
            value = Fields(value, self._where, (*self._path, key))
            dict.__setitem__(self, key, value)
        return value

    def __getitem__(self, key):
        try:
            value = dict.__getitem__(self, key)
        except KeyError:
            _LAST["missing"] = (self._where, (*self._path, key))
            raise
        return self._nested(key, value)

    def get(self, key, default=None):
        if key not in self.keys():
            return default
        return self._nested(key, dict.__getitem__(self, key))


def track(*currents):
    """Replace the extra, check and case of each current record (``currents``: {id: merge.Current} each) by a Fields
    naming the record's file and line."""
    lines = {}
    for cur in (cur for current in currents for cur in current.values()):
        rec, run = cur.record, cur.run
        if run is None:
            where = f"record {str(rec.get('id'))[:200]!r}"
        else:
            if id(run) not in lines:
                lines[id(run)] = {id(r): i for i, r in enumerate(run.records)}
            index = lines[id(run)].get(id(rec))
            where = run.where(index) if index is not None else str(run.path / "records.jsonl")
        for root in ("extra", "check", "case"):
            if isinstance(rec.get(root), dict) and not isinstance(rec[root], Fields):
                rec[root] = Fields(rec[root], where, (root,))


def start():
    """Forget what an earlier page read."""
    _LAST.clear()
    _READ.clear()


def _odd(exc):
    """The latest value read that ``exc`` names: its type quoted in a TypeError ("'str' and 'int'", "type 'bool'"),
    its repr in a ValueError ("invalid literal for int() with base 10: 'many'")."""
    said = str(exc)
    for where, path, value in reversed(_READ):
        if value is None or isinstance(value, (int, float)) and not isinstance(value, bool):
            continue
        named = f"'{type(value).__name__}'" in said if isinstance(exc, TypeError) else repr(value)[:60] in said
        if named:
            return where, path, value
    return None


def blamed(exc):
    """'<records.jsonl>:<line>: <field>: missing' (or null, or the odd value) when ``exc`` is a page stopping on the
    last field it found missing (a KeyError of that key), null (a TypeError about None) or of a kind the page cannot
    use (a TypeError naming its type, a ValueError naming its value), else None."""
    if isinstance(exc, KeyError) and "missing" in _LAST and exc.args and exc.args[0] == _LAST["missing"][1][-1]:
        (where, path), what = _LAST["missing"], "missing"
    elif isinstance(exc, TypeError) and "NoneType" in str(exc) and "null" in _LAST:
        (where, path), what = _LAST["null"], "null"
    elif isinstance(exc, (TypeError, ValueError)) and (odd := _odd(exc)) is not None:
        where, path, value = odd
        what = (f"{str(value)[:40]!r} (of type {type(value).__name__}), of a kind a page cannot use (the latest value of "
                f"that kind the page read before it stopped: {type(exc).__name__}: {str(exc)[:120]})")
    else:
        return None
    shown = ".".join(str(part) for part in itertools.islice(path, 12))
    if what in ("missing", "null"):
        what += ", but a page prints it (a record of its kind holds it)"
    return f"{where}: {shown[:200]}: {what}"
