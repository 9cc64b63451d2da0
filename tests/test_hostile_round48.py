"""The forty-eighth round of the hostile corpus (issue #29).

Data set: a record's 3 samples padded to 30 (stats unchanged) turned a verdict from 'too few samples,
p = 0.1' to 'holds, p = 3e-11'; a timed NumPy case recorded as evidence (no samples) stopped the build
with an internal error; a case this machine only ever skipped, forged ok, was not a new case.

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
import copy

from test_hostile_round4 import _expect
from test_hostile_round47 import _Case, _rec, _records

MUTATIONS = {}
SPECIAL = {case: None for case in ("samples_padded", "timed_as_evidence", "skipped_then_ok")}


def test_padded_samples_are_a_jump():
    from reportgen.pages import history
    same = lambda *_: False   # noqa: E731
    real = _rec(32)
    padded = copy.deepcopy(real)
    padded["samples"] = [x * (1 + 0.001 * (i % 3)) for i in range(10) for x in real["samples"]]
    [jump] = history.all_jumps([_Case("r1", [real]), _Case("r2", [padded])], same)
    assert jump[5] == _expect("samples_padded") and jump[3] >= 2
    assert history.all_jumps([_Case("r1", [real]), _Case("r2", [copy.deepcopy(real)])], same) == []


def test_a_timed_case_is_not_evidence():
    from study import schema
    [rec, *_] = _records("numpy_gemm", lambda r: "n=32/" in r["id"])
    assert schema.record_problems(rec) == []
    rec.update(metric="evidence", samples=[], stats=None, repeat=0, number=0, warmup=0, unit="")
    said = schema.record_problems(rec)
    assert said and _expect("timed_as_evidence") in said[0] and said[0].startswith("metric:")
    [quant, *_] = _records("int8", lambda r: "quant=" in r["id"])
    assert schema.record_problems(quant) == []   # evidence by its case


def test_a_case_only_ever_skipped_then_ok_is_new():
    from reportgen.pages import history
    same = lambda *_: False   # noqa: E731
    skipped = dict(_rec(64, status="skipped"))
    runs = [_Case("r1", [_rec(32), skipped]), _Case("r2", [_rec(32), _rec(64)])]
    [jump] = history.all_jumps(runs, same)
    assert jump[0] == _rec(64)["id"] and jump[5] == _expect("skipped_then_ok")
    failed = dict(_rec(64, status="timeout"))   # a failure of a measured case fixed by a rerun is no new case
    assert history.all_jumps([_Case("r1", [_rec(32), failed]), _Case("r2", [_rec(32), _rec(64)])], same) == []
