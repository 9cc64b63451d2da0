"""The fifty-second round of the hostile corpus (issue #29).

Data set (6 of 9 failed): round 51 made an operator profile's row labels claims, but not the shapes of
ORT's nodes the per-convolution tables match kernels by (two nodes' shapes swapped made TVM 15.66x
slower on the stem), nor did anything type those shapes' dimensions (a 'x' stopped the build); a rule
record's vector lanes were untyped (a 0 divided by zero); a GEMM search's failures by category were its
word (61 numeric failures beside a log of 128 valid trials) and untyped; an operator profile's order
named its bottleneck (the rows reversed named a 3 % kernel).

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
import copy
import json
from pathlib import Path

from conftest import ROOT
from test_hostile_round4 import _expect

MUTATIONS = {}
SPECIAL = {case: None for case in ("profile_shapes", "profile_shape_types", "rule_lanes", "gemm_search_failures",
                                   "gemm_failures_types", "profile_order")}


def _committed(run, test):
    for line in (ROOT / "results" / "runs" / run / "records.jsonl").read_text(encoding="utf-8").splitlines():
        rec = json.loads(line)
        if test(rec):
            return rec
    raise AssertionError(f"no such record in {run}")


def test_a_node_s_shapes_are_claims():
    from reportgen.data import claims
    rows = [{"node": "stem", "op": "Conv", "inputs": [[1, 3, 224, 224], [64, 3, 7, 7]], "outputs": [[1, 64, 112, 112]],
             "seconds": 5e-4},
            {"node": "c62", "op": "Conv", "inputs": [[1, 64, 28, 28], [128, 64, 1, 1]], "outputs": [[1, 128, 28, 28]],
             "seconds": 4e-5}]
    rec = {"id": "e2e/model=m/size=224/engine=ort/batch=1/threads=2", "case": {}, "extra": {"node_profile": rows}}
    swapped = copy.deepcopy(rows)
    for key in ("inputs", "outputs"):
        swapped[0][key], swapped[1][key] = swapped[1][key], swapped[0][key]
    moved = claims.jump(rec, dict(rec, extra={"node_profile": swapped}), 2.0)
    assert moved and "node_profile.#rows" in moved[1] and _expect("profile_shapes") in moved[1]


def test_profile_shapes_and_rule_lanes_are_typed():
    from study import work
    extra = {"node_profile": [{"node": "c", "op": "Conv", "seconds": 1e-4, "inputs": [[1, 64, 28, 28], ["x", 64, 1, 1]],
                               "outputs": [[1, 128, 28, 28]]}]}
    said = work._nested_problems(extra)
    assert said and said[0].startswith("extra.node_profile[0].inputs:") and _expect("profile_shape_types") in said[0]
    for rules in ({"lanes": "x"}, {"lanes": 0}, {"kernels": {"k": {"ic_lanes": "x"}}}):
        said = work._nested_problems({"rules": rules})
        assert said and _expect("rule_lanes") in said[0]
    assert work._nested_problems({"rules": {"lanes": 16, "kernels": {"k": {"ic_lanes": 16}}}}) == []


def test_a_gemm_search_s_failures_are_its_trial_log_s():
    from reportgen.data import searchfacts
    run = "20261129T171403Z-standard-f6ab9f827cfd"
    rec = _committed(run, lambda r: r["id"] == "gemm_tvm/impl=tvm/stage=autotuned/m=1024/n=1024/k=1024/threads=2")
    results = Path(ROOT / "results")
    assert searchfacts._search_problems(results, rec, rec["extra"]) == []
    forged = copy.deepcopy(rec)
    forged["extra"]["failures"]["numeric_check_failed"] = 61
    said = searchfacts._search_problems(results, forged, forged["extra"])
    assert said and said[0].startswith("failures:") and _expect("gemm_search_failures") in said[0]


def test_a_search_s_failures_are_counts_by_name():
    from study import work
    for failures in ({"timeout": "many"}, {"<b>": 1}):
        said = [p for p in work._nested_problems({"failures": failures}) if p]
        assert said and said[0].startswith(_expect("gemm_failures_types"))
    assert work.EXTRA_TYPES["failures"] == (dict,)   # ["timeout"] stopped the tuning table (AttributeError)


def test_an_operator_profile_is_ordered_slowest_first():
    from study import work
    rows = [{"op": f"k{i}", "kind": "kernel", "calls": 1, "seconds": s} for i, s in enumerate((3e-3, 2e-3, 1e-3))]
    assert work._profile_total_problems({"op_profile": rows, "op_profile_total_s": 1e-2}) == []
    said = work._profile_total_problems({"op_profile": rows[::-1], "op_profile_total_s": 1e-2})
    assert said and said[0].startswith("extra.op_profile:") and _expect("profile_order") in said[0]
