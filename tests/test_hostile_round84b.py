"""The eighty-fourth round of the hostile corpus (issue #29), data set: attack only, then fixed.

14 probes, 4 failed: a record's extra.target of 990 nested '[' stopped the check itself (a RecursionError, 'reportgen
broke on this input' naming the run); '"kind": "cuda", ..., "kind": "llvm"' passed the CPU-target check, which read
the last key, and the graph page printed the CUDA text; a campaign's parts.target deeply nested or no JSON stopped
the campaign check; an e2e_tune record's estimated_kernel_s as a text stopped verify in a subtraction ('internal
error', naming nothing), in a search check that ran outside any record's name.

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
from pathlib import Path
from types import SimpleNamespace

import pytest
from helpers import record
from test_hostile_round4 import _expect

MUTATIONS = {}
SPECIAL = {case: None for case in ("target_read_strictly", "campaign_target_read_strictly", "estimate_typed",
                                   "search_check_names_its_record")}


@pytest.mark.parametrize("target", ["[" * 990, '{"kind": "cuda", "mcpu": "x", "kind": "llvm"}', "", "{'kind': 1"])
def test_a_records_target_is_read_strictly(target):
    from study import work
    rec = record(case_id="graph/case=hello", experiment="graph", case={"case": "hello"}, extra={"target": target})
    said = [p for p in work.extra_problems(rec) if p.startswith("extra.target")]
    assert said and _expect("target_read_strictly") in said[0], said
    fine = record(case_id="graph/case=hello", experiment="graph", case={"case": "hello"},
                  extra={"target": '{"kind": "llvm", "mcpu": "znver4"}'})
    assert not [p for p in work.extra_problems(fine) if p.startswith("extra.target")]


@pytest.mark.parametrize("target", ["[" * 990, "llvm -mcpu=znver4"])
def test_a_campaigns_target_is_read_strictly(target, tmp_path):
    from reportgen.data import campaigns
    said = campaigns.database_problems(tmp_path / "database_tuning_record.json", [], {"parts": {"target": target}}, 1)
    assert said and _expect("campaign_target_read_strictly") in said[0], said


@pytest.mark.parametrize("value,refused", [("0.5", True), ([1], True), (None, False), (0.002, False)])
def test_a_tuning_estimate_is_a_duration_or_null(value, refused):
    from study import work
    rec = record(case_id="e2e_tune/model=m", experiment="e2e_tune", case={"model": "m"},
                 extra={"estimated_kernel_s": value})
    said = [p for p in work.extra_problems(rec) if p.startswith("extra.estimated_kernel_s")]
    assert bool(said) == refused and (not said or _expect("estimate_typed") in said[0]), said


def test_a_search_check_stopping_on_a_field_names_the_record(monkeypatch):
    from reportgen.data import searchfacts
    monkeypatch.setitem(searchfacts.CHECKS, "e2e_tune", lambda *a: [0.5 - "x"])
    rec = {"id": "e2e_tune/model=m", "experiment": "e2e_tune", "status": "ok", "reused_from": None, "extra": {}}
    run = SimpleNamespace(run_id="r", records=[rec], where=lambda i: f"results/runs/r/records.jsonl:{i + 1}")
    said = searchfacts.problems(Path("/nonexistent"), [run])
    assert said and said[0].startswith("results/runs/r/records.jsonl:1: ") and _expect("search_check_names_its_record") in said[0]
