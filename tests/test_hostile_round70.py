"""The seventieth round of the hostile corpus (issue #29): attack only, then fixed.

Round 69's weak data findings first: a ratio of two records of one run (the INT8 speed-up, a ratio to ORT), each
record moved under the jump factor in opposite directions over changed code, moved past it unflagged; a line in
a summary's words naming no record ('[int8] p50 0.0500 ms over 200 samples') inside a record's cited lines stood in
its excerpt.

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
from test_hostile_round4 import _expect

from reportgen.data import merge
from reportgen.pages import history, pairs

MUTATIONS = {}
SPECIAL = {case: None for case in ("ratio_of_two_records", "stray_median_cited")}

FP32, INT8 = "int8/model=m/engine=tvm_fp32", "int8/model=m/engine=tvm_int8"


class _Run:
    def __init__(self, run_id, fp32, int8, commit):
        self.run_id, self.machine = run_id, "m"
        self.manifest = {"git": {"commit": commit, "dirty": False}, "profile": "standard", "environment": {}}
        self.records = [{"id": cid, "case": None, "experiment": "int8", "status": "ok", "stats": {"p50": p50},
                         "reused_from": None, "fingerprint": commit[:1] * 64, "run_id": run_id}
                        for cid, p50 in ((FP32, fp32), (INT8, int8))]


def _changed(a, b, _family=None):
    return a.manifest["git"]["commit"] != b.manifest["git"]["commit"]


def _flagged(runs, confirming=frozenset()):
    current = {"m": merge.current_records(runs)}
    return pairs.flagged_pairs(runs, current, set(), _changed, confirming, history.JUMP)


def test_a_ratio_of_two_records_each_under_the_factor_is_flagged():
    steady = [_Run(f"2026010{i + 1}T000000Z-standard-m", 1.0, 0.285, "a" * 40) for i in range(3)]
    # over changed code: FP32 x1.8, INT8 x1/1.8 (each under 2x), the speed-up 3.51x -> 11.4x
    forged = _Run("20260104T000000Z-standard-m", 1.8, 0.285 / 1.8, "b" * 40)
    assert not history.all_jumps(steady + [forged], _changed)   # neither record moved by the factor
    found = _flagged(steady + [forged])
    assert len(found) == 1 and not found[0].same_code and found[0].level_run == "20260101T000000Z-standard-m"
    assert {found[0].a[1], found[0].b[1]} == {FP32, INT8}
    # a copy of the forged run does not confirm it; a run a maintainer accepted does
    copy = _Run("20260105T000000Z-standard-m", 1.8, 0.285 / 1.8, "b" * 40)
    assert len(_flagged(steady + [forged, copy])) == 1
    assert not _flagged(steady + [forged, copy], confirming={"20260105T000000Z-standard-m"})
    # at the same code it is a jump of the same code
    same = _flagged(steady + [_Run("20260104T000000Z-standard-m", 1.8, 0.285 / 1.8, "a" * 40)])
    assert len(same) == 1 and same[0].same_code
    assert not _flagged(steady + [_Run("20260104T000000Z-standard-m", 1.3, 0.285 / 1.3, "b" * 40)])   # 1.69x: under the factor
    assert _expect("ratio_of_two_records") in pairs.__doc__
    assert "A ÷ B" in history.pairs_text(found)


def test_a_median_in_a_summarys_words_inside_the_cited_lines_is_refused():
    from types import SimpleNamespace

    from reportgen.data import runfacts
    from study import citation
    from test_hostile_round56_data import _cur
    rec = _cur("e2e", "ort", "20261206T000000Z-standard-x", 0.01).record
    rec.update(reused_from=None, samples=[0.01] * 5, log=dict(rec["log"], lines=[1, 3]))
    own = f"[e2e] {citation.summary(rec['id'], 'ok', rec['samples'], 0.01)}"
    run = SimpleNamespace(run_id=rec["run_id"], records=[rec], where=lambda i: f"x/records.jsonl:{i + 1}")
    for stray in ("[e2e] p50 0.0500 ms over 200 samples", "[e2e] ort: p50 0.05 ms over 200 samples",
                  "note p50\u200b 0.05 ms over 9 samples"):
        said = runfacts.unnamed_problems(run, lambda _rec, stray=stray: ["[e2e] timing", stray, own])
        assert said and "line 2 of" in said[0] and _expect("stray_median_cited") in said[0], stray
    assert runfacts.unnamed_problems(run, lambda _rec: ["[e2e] timing", "[e2e] p50 is the median", own]) == []
