"""The seventy-eighth round of the hostile corpus (issue #29), data set: attack only, then fixed.

13 probes over changed code, 6 failed (one weak): claims.level_jump left durations out, so an INT8 training 50x
slower and the untuned kernels' total 9.5x (with every allocation row) were printed unflagged; an allocation row's
weight 0 stopped the build in a ZeroDivisionError, a best time of 5e-324 printed 'inf x', an untuned total of 1e300
a 300-digit cell; retest reused records of a run the build refuses against the other runs.  A weak pass mended: the
graph page's explanation beside a flagged ratio said nothing of the flag.

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
import copy
import json

import pytest
from conftest import ROOT
from test_hostile_round4 import _expect

MUTATIONS = {}
SPECIAL = {case: None for case in ("durations_over_changed_code", "kernel_sum_at_the_jump_factor",
                                   "allocation_is_the_searchs_own", "allocation_weight_and_durations",
                                   "denormal_durations", "retest_reuses_what_a_build_accepts",
                                   "explanation_rests_on_a_flag")}
RUN = "20261203T133805Z-standard-6b7b274cee60"


def _tune():
    for line in (ROOT / "results" / "runs" / RUN / "records.jsonl").read_text(encoding="utf-8").splitlines():
        rec = json.loads(line)
        if rec.get("experiment") == "e2e_tune" and rec.get("status") == "ok":
            return rec
    raise AssertionError("no e2e_tune record in the committed run")


def test_a_duration_moved_over_changed_code_is_a_level():
    from reportgen.data import claims
    before = {"id": "int8/model=digits_cnn/train", "extra": {"training": {"seconds": 1.66, "epochs": 15}}}
    after = copy.deepcopy(before)
    after["extra"]["training"]["seconds"] = 82.8
    found = claims.level_jump(before, after, 2.0)
    assert found and _expect("durations_over_changed_code") in found[1] and found[0] > 40
    after["extra"]["training"]["seconds"] = 1.66 * 3   # within a single shot's spread
    assert claims.level_jump(before, after, 2.0) is None


@pytest.mark.parametrize("scale, moved", [(6.0, True), (9.5, True), (1.5, False)])
def test_the_untuned_kernels_total_jumps_at_the_timings_factor(scale, moved):
    from reportgen.data import claims
    before = _tune()
    after = copy.deepcopy(before)
    after["extra"]["untuned_kernel_seconds"] *= scale
    for row in after["extra"]["allocation"]:
        row["seconds"] *= scale
    for compare in (claims.level_jump, claims.jump):
        found = compare(before, after, 2.0)
        assert (found is not None and _expect("kernel_sum_at_the_jump_factor") in found[1]) is moved, (compare, found)


def _allocation(tmp_path, change):
    from reportgen.data import searchfacts
    rec = _tune()
    folder = rec["extra"]["artifacts"]["trials"].rsplit("/", 1)[0]
    change(rec["extra"])
    searchfacts._READ.clear()
    return searchfacts._allocation_problems(ROOT / "results", rec, folder)


def test_the_allocation_table_is_the_searchs_own_and_adds_up(tmp_path):
    assert _allocation(tmp_path, lambda e: None) == []

    def scaled(extra):   # rows and total forged together, the search's file left alone
        extra["untuned_kernel_seconds"] *= 9.5
        for row in extra["allocation"]:
            row["seconds"] *= 9.5
    said = _allocation(tmp_path, scaled)
    assert said and _expect("allocation_is_the_searchs_own") in said[0], said
    from reportgen.data import searchfacts
    rec = _tune()
    rec["extra"]["artifacts"].pop("allocation", None)
    rec["extra"]["untuned_kernel_seconds"] *= 2   # the file's rows, a total they do not add up to
    searchfacts._READ.clear()
    said = searchfacts._allocation_problems(ROOT / "results", rec, rec["extra"]["artifacts"]["trials"].rsplit("/", 1)[0])
    assert said and said[0].startswith("untuned_kernel_seconds:") and "add up to" in said[0], said


@pytest.mark.parametrize("field, value, expect", [("weight", 0, "allocation_weight_and_durations"),
                                                  ("best_s", 5e-324, "denormal_durations"),
                                                  ("best_s", 0, "denormal_durations")])
def test_an_allocation_row_that_divides_by_nothing_is_refused(field, value, expect):
    from study import work
    rec = _tune()
    rec["extra"]["allocation"][0][field] = value
    said = [p for p in work.extra_problems(rec) if p]
    assert any(f"extra.allocation[0].{field}" in p and _expect(expect) in p for p in said), said


@pytest.mark.parametrize("value", [1e300, 5e-324, 0])
def test_the_untuned_total_is_a_plausible_duration(value):
    from study import work
    rec = _tune()
    rec["extra"]["untuned_kernel_seconds"] = value
    said = [p for p in work.extra_problems(rec) if p]
    assert any("extra.untuned_kernel_seconds" in p and _expect("denormal_durations") in p for p in said), said


def test_retest_reuses_only_runs_a_build_accepts_together(monkeypatch, capsys):
    from types import SimpleNamespace
    from reportgen.commands import retest
    from reportgen.data import load
    runs = [SimpleNamespace(run_id=f"2026120{i}T000000Z-quick-aaaaaaaaaaaa", records=[]) for i in (1, 2)]
    monkeypatch.setattr(load, "across", lambda _dir, held: [f"results/runs/{r.run_id}/run.json: environment.cpu_mhz: "
                                                             "1.4x the machine's first run" for r in held[1:]])
    kept = retest._standing_together(ROOT / "results", runs)
    assert [r.run_id for r in kept] == [runs[0].run_id]
    assert _expect("retest_reuses_what_a_build_accepts") in capsys.readouterr().err
    monkeypatch.setattr(load, "across", lambda _dir, held: ["a problem naming no run"] if held else [])
    assert retest._standing_together(ROOT / "results", runs) == []


def test_the_graph_explanation_says_its_ratio_is_flagged():
    from reportgen.render.figures import rests_on_jump
    from reportgen.data.words import W
    flagged = W("figures.current.new_level", href="x")
    assert _expect("explanation_rests_on_a_flag") in rests_on_jump("0.40" + flagged)
    page = (ROOT / "docs" / "graph.md").read_text(encoding="utf-8")
    assert "{{ f.rests }}" in page
    source = (ROOT / "reportgen" / "pages" / "graph.py").read_text(encoding="utf-8")
    assert 'out["rests"] = rests_on_jump(out["ratio"]' in source
