"""The forty-seventh round of the hostile corpus (issue #29): what the last rounds left declared.

Site set: a pass demonstration's IR texts of 25 000 lines each made the graph page's line diff take 40 s
a record (the build stopped naming the author's page), and a list of 4 million zeros in a record's extra
took 42 s and 2.3 GB to compare with the earlier run: both are bounded in study.work and refused naming
the field; a render stopped by its time limit names the project's code it was in.

The first run of a profile (the first 'full' run of a machine whose runs were all 'standard') had
nothing of its profile to compare its claims with, so a forged agreement, kernel or size went
unflagged.  Each family now declares which claims each profile key changes (study.family.Family
.claims_of): runs of two profiles are compared claim by claim, leaving out only those.

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
import pytest
from conftest import ROOT
from test_hostile_round4 import _expect

MUTATIONS = {}
SPECIAL = {case: None for case in ("first_of_profile", "ir_diff_lines", "claims_size", "slow_placeholder")}


class _R:
    def __init__(self, run_id, profile, extra, experiment="graph"):
        self.run_id, self.machine = run_id, "m"
        self.manifest = {"git": {"commit": "a" * 40}, "profile": profile}
        self.records = [{"id": f"{experiment}/model=m/size=224/engine=tvm_rules/batch=1/threads=2", "status": "ok",
                         "reused_from": None, "fingerprint": "f" * 64, "experiment": experiment, "case": {},
                         "stats": {"p50": 1.0}, "extra": extra}]


def test_the_first_run_of_a_profile_is_held_to_the_other_profiles_claims():
    from reportgen.data import profiles
    from reportgen.pages import history
    across = profiles.claims_across(ROOT)
    same = lambda *_: False   # noqa: E731 - the code did not change
    # graph: standard and full differ only in how long they time, so every claim is compared
    [jump] = history.all_jumps([_R("r1", "standard", {"nodes": 60}), _R("r2", "full", {"nodes": 6})], same, across)
    assert _expect("first_of_profile") in jump[5] and jump[4] is False
    assert history.all_jumps([_R("r1", "standard", {"nodes": 60}), _R("r2", "full", {"nodes": 60})], same, across) == []
    # without the profiles read, nothing but times is compared across profiles (as before)
    assert history.all_jumps([_R("r1", "standard", {"nodes": 60}), _R("r2", "full", {"nodes": 6})], same) == []
    # e2e: full checks 8 images where standard checks 4, so the agreement is left out; the engine is not
    e2e = {"agreement": {"top1_agree": 1.0}, "inputs": ["a"] * 4, "engine": {"threads": 2}}
    moved = {"agreement": {"top1_agree": 0.75}, "inputs": ["a"] * 8, "engine": {"threads": 2}}
    assert history.all_jumps([_R("r1", "standard", e2e, "e2e"), _R("r2", "full", moved, "e2e")], same, across) == []
    forged = dict(moved, engine={"threads": 1})
    [jump] = history.all_jumps([_R("r1", "standard", e2e, "e2e"), _R("r2", "full", forged, "e2e")], same, across)
    assert jump[5] == "extra.engine.threads"
    # quick and standard give int8 other images and schemes: its claims are not compared across them
    assert history.all_jumps([_R("r1", "quick", {"n": 1}, "int8"), _R("r2", "standard", {"n": 9}, "int8")], same, across) == []


def test_which_claims_a_profile_key_changes_is_declared_by_the_family(tmp_path):
    from study import family
    (tmp_path / "experiments").mkdir()
    (tmp_path / "experiments" / "x.py").write_text(
        'FAMILY = Family(name="x", timeout_s={"quick": 1, "standard": 1, "full": 1}, params=("a",),\n'
        '                claims_of={"b": [], "a": "check"})\n')
    _found, problems = family.declared(tmp_path)
    assert problems and "experiments/x.py: FAMILY.claims_of" in problems[0]
    (tmp_path / "experiments" / "x.py").write_text(
        'FAMILY = Family(name="x", timeout_s={"quick": 1, "standard": 1, "full": 1}, params=("a",),\n'
        '                claims_of={"b": []})\n')
    _found, problems = family.declared(tmp_path)
    assert problems == ["experiments/x.py: FAMILY.claims_of.b: not one of its params"]


@pytest.mark.parametrize("family", ["machine_peak", "numpy_gemm", "gemm_hand", "gemm_tvm", "graph", "e2e", "e2e_tune", "int8"])
def test_standard_and_full_differ_only_in_keys_their_family_declares(family):
    """Every family's first full run is held to its standard runs: a key the two profiles set apart that
    the family does not declare would leave its claims unchecked again."""
    from reportgen.data import profiles
    assert profiles.claims_across(ROOT)(family, "standard", "full") is not None


def _graph_record():
    import json
    from conftest import ROOT
    for path in sorted((ROOT / "results" / "runs").glob("*/records.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            rec = json.loads(line)
            if rec["experiment"] == "graph" and "relay_pass" in rec["case"] and rec["status"] == "ok":
                return rec
    raise AssertionError("no relay_pass record committed")


def test_a_pass_demonstration_holds_at_most_max_ir_lines():
    from study import schema, work
    rec = _graph_record()
    assert schema.record_problems(rec) == []
    rec["extra"]["after_text"] = "\n".join(f"l{i}" for i in range(work.MAX_IR_LINES + 1))
    said = schema.record_problems(rec)
    assert said and said[0].startswith("extra.after_text: 501 lines") and _expect("ir_diff_lines") in said[0]


def test_a_record_states_at_most_max_values():
    from study import schema, work
    rec = _graph_record()
    rec["extra"]["rows"] = [0] * (work.MAX_VALUES + 1)
    said = schema.record_problems(rec)
    assert said and _expect("claims_size") in said[0] and said[0].startswith("extra:")
    rec["extra"]["rows"] = [[0] * 1000 for _ in range(60)]
    rec["extra"]["cols"] = [{"a": 0} for _ in range(20_000)]   # counted at every depth
    assert _expect("claims_size") in schema.record_problems(rec)[0]
    rec["extra"]["cols"] = []
    assert schema.record_problems(rec) == []


def test_a_render_out_of_time_names_the_code_it_was_in():
    from reportgen.errors import ReportError
    from reportgen.publish import sandbox
    code = compile("def _demo_details():\n    while True:\n        pass\n_demo_details()",
                   str(ROOT / "reportgen" / "pages" / "graph.py"), "exec")
    with pytest.raises(ReportError) as err, sandbox.time_limit(1, "docs/graph.md"):
        exec(code, {})
    assert _expect("slow_placeholder") in str(err.value) and "docs/graph.md" in str(err.value)
