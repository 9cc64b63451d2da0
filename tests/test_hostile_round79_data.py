"""The seventy-ninth round of the hostile corpus (issue #29), data set: attack only, then fixed.

15 probes over changed code, 8 failed (one weak): five from one cause, a count keyed by names (group C's kernel
calls, the quantized operators, an FMA row's registers, ORT's coverage by operator, a graph step's calls) renamed,
emptied or moved compared with nothing, because over changed code only the paths both records hold are compared;
a record's summary with a 7x median appended to another family's log of its run; a null flip margin beside two
flips and a null training count stopped the build in a generic message; retest reused a run of an unknown engine.

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
from types import SimpleNamespace

import pytest
from test_hostile_round4 import _expect

MUTATIONS = {}
SPECIAL = {case: None for case in ("named_counts_totals", "summary_in_another_log", "null_beside_its_count",
                                   "retest_engines_as_a_build")}


@pytest.mark.parametrize("field, before, after", [
    ("kernel_calls", {"fused_conv2d_add_relu": 20, "fused_dense": 5}, {"k1": 60, "k2": 15}),
    ("kernel_calls", {"fused_conv2d_add_relu": 20, "fused_dense": 5}, {}),
    ("quantized_ops", {"conv2d": 20}, {"conv2d_i8": 60}),
    ("vector_fma_instructions", {"ymm": 12}, {}),
    ("ort_coverage", {"by_op": {"Conv": {"integer": 20, "float": 0}}}, {"by_op": {"Conv_v2": {"integer": 0, "float": 20}}}),
])
def test_counts_keyed_by_names_are_compared_by_their_totals(field, before, after):
    from reportgen.data import claims
    old = {"id": "e2e/model=resnet18_v1/engine=tvm_c", "extra": {field: before}}
    new = {"id": "e2e/model=resnet18_v1/engine=tvm_c", "extra": {field: after}}
    found = claims.level_jump(old, new, 2.0)
    assert found is not None and _expect("named_counts_totals") in found[1], found
    same = {"id": old["id"], "extra": {field: before}}
    assert claims.level_jump(old, same, 2.0) is None


def test_a_renamed_count_of_the_same_total_moves_nothing():
    from reportgen.data import claims
    old = {"id": "x", "extra": {"kernel_calls": {"a": 20, "b": 5}}}
    new = {"id": "x", "extra": {"kernel_calls": {"a2": 20, "b2": 5}}}
    assert claims.level_jump(old, new, 2.0) is None


def test_a_summary_in_another_familys_log_is_refused():
    from reportgen.data import runfacts
    from study import citation
    rid = "numpy_gemm/dtype=float32/n=32/threads=1/blas=configured"
    rec = {"id": rid, "reused_from": None, "log": {"path": "logs/numpy_gemm.log", "lines": [1, 1]}, "case": {}}
    run = SimpleNamespace(records=[rec], where=lambda i: f"results/runs/r/records.jsonl:{i + 1}")
    line = f"[numpy_gemm] {rid}: p50 8.61 ms over 50 samples"
    said = {"logs/numpy_gemm.log": citation.summaries([f"[numpy_gemm] {rid}: p50 1.23 ms over 50 samples"]),
            "logs/gemm_hand.log": citation.summaries(["x", line])}
    found = runfacts._summarised_elsewhere(run, said, {rid})
    assert found and "line 2 of logs/gemm_hand.log" in found[0] and _expect("summary_in_another_log") in found[0]
    said.pop("logs/gemm_hand.log")
    assert runfacts._summarised_elsewhere(run, said, {rid}) == []


def test_a_null_flip_margin_beside_flips_is_refused():
    from study import work
    extra = {"agreement_set": {"margins": {"error_median": 0.1, "share_margin_below_error": 0.5, "flips": 2,
                                           "flip_margin_max": None, "margin_quantiles": {}}}}
    said = [p for p in work._nested_problems(extra) if p]
    assert any(_expect("null_beside_its_count") in p for p in said), said
    extra["agreement_set"]["margins"]["flips"] = 0
    assert not any(_expect("null_beside_its_count") in p for p in work._nested_problems(extra) if p)


def test_a_null_training_count_is_shown_as_absent():
    from conftest import ROOT
    source = (ROOT / "reportgen" / "pages" / "int8.py").read_text(encoding="utf-8")
    assert 'counts = t.get("counts") or {}' in source


def test_retest_leaves_out_a_run_of_an_unknown_engine(monkeypatch, capsys):
    from reportgen.commands import retest
    from reportgen.data import load
    from pathlib import Path
    run = SimpleNamespace(run_id="20261201T000000Z-quick-aaaaaaaaaaaa", path=Path("results/runs/20261201T000000Z-quick-aaaaaaaaaaaa"),
                          records=[{"id": "e2e/x", "experiment": "e2e", "case": {"engine": "ort_fp32_turbo"}}])
    monkeypatch.setattr(load, "across", lambda _dir, runs: [])
    assert retest._standing_together(Path("results"), [run]) == []
    assert _expect("retest_engines_as_a_build") in capsys.readouterr().err
