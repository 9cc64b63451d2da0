"""The ninety-first round of the hostile corpus (issue #29), data set: attack only, then fixed.

15 probes, 9 failed (one weak).  Mended here:
- a case first measured on a machine in a profile stood on nothing (a new machine id printed ResNet-18 at 0.07x
  unmarked; a machine's first 'full' run added a batch-8 case 3.3x faster than one image, and an error 2300x
  higher): history.first_levels flags every first measurement that no accepted run holds;
- the headline goal (TVM's best not slower than ONNX Runtime) is decided by the noise rule on both records' samples,
  not by p50 / p50 against 1.0 (ORT 3 % slower turned 'missed' into 'met');
- an INT8 accuracy 1.48 points below FP32's beside a top-1 agreement of 1.0 is refused (study.scores), and so are a
  first call under half the fastest warm call and an operator profile's total far from the median call.
- a median of the same code beyond 1.25x of its case's range over the earlier runs (three or more) is a jump
  (TensorFlow's ResNet-18 at 0.55x, under the 2x jump, beside seven runs of 14.8-19.7 ms).
Left open, with their levers in the issue's note: a compile time no run compares (claims.NOISY) turns a worked example; retest builds on the newest
valid run.

The case ids below are entries of tests/data/hostile/cases.yaml (test_hostile.py finds each one's test).
"""
from test_hostile_round4 import _expect

MUTATIONS, SPECIAL = {}, dict.fromkeys(("first_measurement_held", "first_profile_held", "accuracy_bounded_by_agreement",
                                        "goal_by_noise_rule", "first_call_floor", "profile_total_span",
                                        "same_code_range"))


class _Run:
    def __init__(self, run_id, p50, machine="m", profile="standard", case="numpy_gemm/n=1"):
        self.run_id, self.machine = run_id, machine
        self.manifest = {"git": {"commit": "a" * 40, "dirty": False}, "profile": profile}
        self.records = [{"id": case, "status": "ok", "stats": {"p50": p50}, "reused_from": None,
                         "fingerprint": "a" * 64, "run_id": run_id}]


def test_a_machine_s_first_measurement_stands_on_an_accepted_run_only():
    from reportgen.pages import history
    from reportgen.data.words import W
    runs = [_Run("r1", 1.0), _Run("r2", 0.07, machine="new"), _Run("r3", 0.07, machine="new")]
    flagged = history.first_levels(runs, confirming={"r1"})
    assert flagged == {("r2", "numpy_gemm/n=1"), ("r3", "numpy_gemm/n=1")}   # a copy repeats the level
    assert history.first_levels(runs, confirming={"r1", "r3"}) == set()   # an accepted run measured it again
    assert history.first_levels(runs, confirming={"r1", "r2"}) == set()   # the first one was accepted
    moved = runs[:2] + [_Run("r3", 1.0, machine="new")]
    assert history.first_levels(moved, confirming={"r1"}) == {("r2", "numpy_gemm/n=1")}   # moved away: its own
    text = history.jumps_text(runs, first=flagged)
    assert _expect("first_measurement_held") in text and W("history.jumps.new_case") in text


def test_a_profile_s_first_measurement_is_held_too():
    from reportgen.pages import history
    runs = [_Run("r1", 1.0), _Run("r2", 1.0, profile="full"), _Run("r3", 0.3, profile="full", case="numpy_gemm/n=8")]
    flagged = history.first_levels(runs, confirming={"r1"})
    assert flagged == {("r2", "numpy_gemm/n=1"), ("r3", "numpy_gemm/n=8")}, flagged
    assert _expect("first_profile_held") in history.first_levels.__doc__


def test_an_accuracy_is_bounded_by_its_agreement_with_the_reference():
    from study import scores
    score = {"accuracy": 519 / 539, "fp32_accuracy": 527 / 539, "top1_agree": 1.0}
    said = scores.score_problems({"score": score})
    assert said and said[0].startswith("extra.score.accuracy: ") and _expect("accuracy_bounded_by_agreement") in said[0]
    assert scores.score_problems({"score": dict(score, top1_agree=1 - 8 / 539)}) == []   # 8 images answered otherwise


def test_the_headline_goal_is_decided_by_the_noise_rule(monkeypatch):
    from types import SimpleNamespace
    from reportgen.data import merge
    from reportgen.data.merge import Current
    from reportgen.pages import e2e
    from reportgen.render.figures import FigureBook
    from helpers import record

    def cur(engine, scale):
        samples = [0.01 * scale * (1 + 0.001 * i) for i in range(30)]
        rec = record(case_id=f"e2e/model=resnet18_v1/size=224/engine={engine}/batch=1/threads=2", samples=samples)
        return Current(rec, SimpleNamespace(run_id="r1", machine="m", manifest={"profile": "standard"}))
    for ort_scale, word in ((1.03, "e2e.goal.par"), (0.98, "e2e.goal.par"), (1.2, "e2e.goal.met"), (0.8, "e2e.goal.missed")):
        found = {"ort": cur("ort", ort_scale), "tvm_d": cur("tvm_d", 1.0)}
        monkeypatch.setattr(e2e, "_get", lambda current, model, engine: found.get(engine))
        monkeypatch.setattr(e2e, "same_run", lambda a, b: True)
        monkeypatch.setattr(merge, "fastest", lambda cands: cands[0])
        book = FigureBook()
        book.set_page("e2e.md")
        said = e2e.goal(book, {})
        assert _expect("goal_by_noise_rule") == "e2e.goal" and word.split(".")[-1] in _words(word, said), (ort_scale, said)


def _words(key, said):
    from reportgen.data.words import W
    head = W(key, effect="5%", p="0").split("\uff1a")[0]   # the verdict's bold word, before its explanation
    return key.split(".")[-1] if head in said else said


def test_a_first_call_and_a_profile_total_are_held_to_the_samples():
    from study import scores
    rec = {"unit": "s", "samples": [0.0156, 0.0158], "stats": {"p50": 0.0157},
           "extra": {"cold_seconds": 0.0005, "op_profile_total_s": 1000.0}}
    said = scores.timing_problems(rec)
    assert [p.split(":")[0] for p in said] == ["extra.cold_seconds", "extra.op_profile_total_s"], said
    assert _expect("first_call_floor") in said[0] and _expect("profile_total_span") in said[1]
    rec["extra"] = {"cold_seconds": 0.85, "op_profile_total_s": 0.02}
    assert scores.timing_problems(rec) == []


def test_a_same_code_median_beyond_the_case_s_range_is_a_jump():
    from reportgen.pages import history
    from test_hostile_round35_data import _changed, _Run as _Same
    runs = [_Same(f"r{i}", p50, "a" * 64) for i, p50 in enumerate((1.0, 1.3, 0.9, 1.1, 0.6))]
    found = history.all_jumps(runs, _changed)
    assert [(j[2], j[5]) for j in found] == [("r4", history.RANGE_STAT)], found
    assert _expect("same_code_range") in history.RANGE_STAT and ("r4", "numpy_gemm/n=1") in history.flagged(runs, _changed)
    runs[-1] = _Same("r4", 0.75, "a" * 64)   # within RANGE of the range's low end (0.9 / 1.25 = 0.72)
    assert history.all_jumps(runs, _changed) == []
    runs[-1] = _Same("r4", 0.6, "b" * 64, commit="b" * 40)   # another code: a level of its own, no range
    assert [j[5] for j in history.all_jumps(runs, _changed)] != [history.RANGE_STAT]
