"""The thirty-eighth round of the hostile corpus (issue #29), and what round 37 left.

- A figure resting on a jumped record carried the flag on its page and in the CSV downloads, but
  numbers.json said nothing and its chart point looked like any other: numbers.json entries now
  carry ``jumped``, and a chart's flagged points carry the flag in their tooltip and the chart a
  subtitle counting them.

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
from helpers import record
from test_hostile_round4 import _expect

from reportgen.data import merge
from reportgen.render import charts
from reportgen.render.figures import FigureBook

MUTATIONS = {}
SPECIAL = {"jump_in_chart_and_index": None}


class _Run:
    def __init__(self, run_id, rec):
        self.run_id, self.records, self.machine = run_id, [rec], "m"
        self.manifest = {"profile": "standard", "run_id": run_id, "finished_at": "2026-12-01T00:00:00Z"}


def test_a_jumped_record_is_flagged_in_the_index_and_its_chart(monkeypatch):
    rec = record()
    monkeypatch.setattr(merge.runfacts, "order_key", lambda run: run.run_id)
    current = merge.current_records([_Run(rec["run_id"], rec)], {(rec["run_id"], rec["id"])})
    [cur] = current.values()
    assert cur.jumped
    assert not merge.current_records([_Run(rec["run_id"], rec)])[rec["id"]].jumped
    book = FigureBook()
    book.set_page("gemm.md")
    book.jumped = {(rec["run_id"], rec["id"])}
    book.current("f", "1.0", "ms", cur)
    assert book.index()[0]["jumped"] is True
    plain = FigureBook()
    plain.set_page("gemm.md")
    plain.current("f", "1.0", "ms", cur)
    assert plain.index()[0]["jumped"] is False
    spec = charts.flagged(charts.numpy_gflops(_Table(), current, None).to_dict())
    assert "subtitle" in spec["title"], _expect("jump_in_chart_and_index")
    tips = [n["encoding"]["tooltip"] for n in charts._walk(spec) if isinstance(n.get("encoding"), dict)
            and isinstance(n["encoding"].get("tooltip"), list)]
    assert tips and all(t[-1]["field"] == charts.FLAG for t in tips)
    unflagged = charts.flagged(charts.numpy_gflops(_Table(), merge.current_records([_Run(rec["run_id"], rec)]), None).to_dict())
    assert not isinstance(unflagged["title"], dict) or "subtitle" not in unflagged["title"]


class _Table:
    rows, columns = [], []


def _calls(src):
    import re
    for m in re.finditer(r"(book\.current|\.fig)\(", src):
        i, depth = m.end(), 1
        while depth and i < len(src):
            depth += {"(": 1, ")": -1}.get(src[i], 0)
            i += 1
        yield m.start(), src[m.start():i]


def test_a_figure_dividing_two_records_names_both():
    """A figure computed from two records' figures (a ratio, a share of a peak) passes the other record
    (also=) or its derivation (derived=): else a jump of the other record leaves it unflagged.  Read
    from the source: a division between two records' stat()/gflops() in the call, or in a name
    assigned from one a few lines above it."""
    import re
    from pathlib import Path
    root = Path(__file__).resolve().parents[1] / "reportgen"
    bare = []
    for path in sorted([*root.glob("pages/*.py"), *root.glob("render/*.py")]):
        src = path.read_text(encoding="utf-8")
        assigned = [(m.start(), m.group(1)) for m in re.finditer(r"^\s*(\w+) = (.*)$", src, re.M)
                    if "/" in m.group(2) and len(set(re.findall(r"(\w+)\.(?:stat|gflops)\(", m.group(2)))) > 1]
        for at, call in _calls(src):
            if "also=" in call or "derived=" in call:
                continue
            near = [name for where, name in assigned if 0 < at - where < 600 and re.search(rf"\b{name}\b", call)]
            if len(set(re.findall(r"(\w+)\.(?:stat|gflops)\(", call))) > 1 or near:
                bare.append(f"{path.name}:{src[:at].count(chr(10)) + 1}")
    assert bare == [], bare
