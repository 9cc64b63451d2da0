"""The forty-ninth round of the hostile corpus (issue #29).

Data set: a forged failure of a new case first, or a forged quick run, made the case 'known', and a
forged ok of it then took a finding's smallest size unflagged; a one-record run reported another
machine's caches, clock, affinity and target; an e2e_tune record's kernel lists held repeats and a
kernel in both (30/35 scheduled for 21/21), or lacked a list (a KeyError); a tuned e2e record's
unscheduled kernels were held to nothing (21/36 for 21/21), or missing (a KeyError).

Site set: a family module nested past Python's parser (an internal MemoryError or RecursionError of
every build and retest); a campaign of 30 000 steps checked in quadratic time (4 minutes a build); a
docs line of 20 000 nested '*' or '[' (a recursion blamed on mkdocs.yml, two minutes past every time
limit); a requirements.lock of 2 GiB of zeros read whole (4.5 GB).

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
import copy

from test_hostile_round4 import _expect
from test_hostile_round47 import _Case, _rec, _records

MUTATIONS = {}
SPECIAL = {case: None for case in ("failed_then_ok_new", "quick_then_standard_new", "hardware_changed",
                                   "coverage_lists", "tuned_unscheduled", "family_module_deep", "campaign_steps",
                                   "docs_nesting", "lock_huge")}


def test_a_case_never_measured_ok_in_its_profile_is_new_whatever_came_before():
    from reportgen.pages import history
    same = lambda *_: False   # noqa: E731
    for status in ("timeout", "check_failed", "run_failed"):
        runs = [_Case("r1", [_rec(32)]), _Case("r2", [_rec(32), _rec(31, status=status)]), _Case("r3", [_rec(32), _rec(31)])]
        found = history.all_jumps(runs, same)
        assert [(j[0], j[2], j[5]) for j in found] == [(_rec(31)["id"], "r3", _expect("failed_then_ok_new"))], found
    quick = _Case("q1", [_rec(32), _rec(31)])
    quick.manifest["profile"] = "quick"
    found = history.all_jumps([_Case("r1", [_rec(32)]), quick, _Case("r2", [_rec(32), _rec(31)])], same)
    assert [(j[0], j[2], j[5]) for j in found] == [(_rec(31)["id"], "r2", _expect("quick_then_standard_new"))], found


def test_one_machine_s_runs_report_one_hardware():
    from reportgen.data import runfacts

    class Run:
        def __init__(self, run_id, **env):
            from pathlib import Path
            self.run_id, self.machine, self.path = run_id, "m", Path("results/runs") / run_id
            self.manifest = {"environment": {"caches": {"L1d": "48K", "L3": "32768K"}, "physical_cores": 2,
                                             "tvm_target": {"kind": "llvm", "mcpu": "znver5"}, "affinity": [0, 1],
                                             "cpu_mhz": {"value": 2596.1, "source": "x"}, **env}}
    assert runfacts.hardware_problems([Run("a"), Run("b", cpu_mhz={"value": 2600.0, "source": "x"})]) == []
    said = runfacts.hardware_problems([Run("a"), Run("b", caches={"L1d": "8K", "L3": "512K"})])
    assert said and said[0].startswith("results/runs/b/run.json: environment.caches") and _expect("hardware_changed") in said[0]
    assert "environment.cpu_mhz" in runfacts.hardware_problems([Run("a"), Run("b", cpu_mhz={"value": 5200.0, "source": "x"})])[0]
    assert "environment.affinity" in runfacts.hardware_problems([Run("a"), Run("b", affinity=[0])])[0]


def test_a_search_s_kernel_lists_are_distinct_and_disjoint():
    from study import schema
    [rec, *_] = _records("e2e_tune", lambda r: "coverage" in r["extra"])
    assert schema.record_problems(rec) == []
    scheduled = rec["extra"]["coverage"]["scheduled"]
    for coverage in ({"scheduled": scheduled + scheduled[:9], "unscheduled": []},
                     {"scheduled": scheduled, "unscheduled": scheduled[:5]},
                     {"unscheduled": []}):
        forged = copy.deepcopy(rec)
        forged["extra"]["coverage"] = coverage
        said = schema.record_problems(forged)
        assert said and said[0].startswith("extra.coverage") and (
            _expect("coverage_lists") in said[0] or "is both scheduled and not" in said[0]), said


def test_a_tuned_record_s_unscheduled_kernels_are_its_tuning_s():
    from reportgen.data import runfacts
    from reportgen.data import load
    from conftest import ROOT
    runs = load.read_runs(ROOT / "results")
    run = next(r for r in runs if any(isinstance((x.get("extra") or {}).get("tuning"), dict)
                                       and "record" in x["extra"]["tuning"] and x["experiment"] == "e2e" for x in r.records))
    index, rec = next((i, x) for i, x in enumerate(run.records) if x["experiment"] == "e2e"
                      and isinstance((x.get("extra") or {}).get("tuning"), dict) and "record" in x["extra"]["tuning"])
    by_id = {r.run_id: r for r in runs}
    assert runfacts._tuning_claim_problems(run, rec["extra"]["tuning"], by_id) == []
    forged = dict(rec["extra"]["tuning"], unscheduled=[f"k{i}" for i in range(15)])
    said = runfacts._tuning_claim_problems(run, forged, by_id)
    assert said and said[0].startswith(".unscheduled: 15 kernels") and _expect("tuned_unscheduled") in said[0]
    missing = {k: v for k, v in rec["extra"]["tuning"].items() if k != "unscheduled"}
    assert runfacts._tuning_claim_problems(run, missing, by_id)[0].startswith(".unscheduled: missing")


def test_a_family_module_nested_too_deep_is_named(tmp_path):
    from study import family
    (tmp_path / "experiments").mkdir()
    (tmp_path / "experiments" / "deep.py").write_text("-" * 100_000 + "1\n")
    (tmp_path / "experiments" / "sum.py").write_text("x = 1" + " + 1" * 300_000 + "\n")
    _found, problems = family.declared(tmp_path)
    assert len(problems) == 2 and all(_expect("family_module_deep") in p for p in problems), problems


def test_a_campaign_holds_at_most_max_steps_checked_in_one_pass():
    import datetime
    import json
    from conftest import ROOT
    from study import schema, work
    path = next((ROOT / "results" / "campaigns").glob("*/campaign.json"))
    state = json.loads(path.read_text(encoding="utf-8"))
    assert schema.campaign_problems(state, state["key"]) == []
    t0 = datetime.datetime(2026, 11, 1)
    state["steps"] = [{"run_id": f"{t0 + datetime.timedelta(seconds=i):%Y%m%dT%H%M%SZ}-standard-ab32f168216c", "trials": 0,
                       "seconds": 0, "cumulative_trials": 0, "estimated_kernel_s": None, "records": 0}
                      for i in range(work.MAX_CAMPAIGN_STEPS - len(state["steps"]))] + state["steps"]
    assert schema.campaign_problems(state, state["key"]) == []
    state["steps"].append(dict(state["steps"][-1]))
    said = schema.campaign_problems(state, state["key"])
    assert said and _expect("campaign_steps") in said[0]


def test_a_docs_line_that_markdown_nests_on_is_refused_naming_it():
    from reportgen.publish import pagecontent
    assert pagecontent.source_problem("docs/x.md", "a *b* [c](d)\n") is None
    said = pagecontent.source_problem("docs/x.md", "intro\n" + "*" * 20_000 + "x" + "*" * 20_000 + "\n")
    assert said.startswith("docs/x.md:1: 40000 '*' in one paragraph") and _expect("docs_nesting") in said
    assert pagecontent.source_problem("docs/x.md", "[" * 20_000 + "x" + "]" * 20_000).startswith("docs/x.md:1: 20000 '['")


def test_a_lock_git_holds_larger_than_max_is_not_read(tmp_path):
    import subprocess
    from reportgen.data import runfacts
    git = ["git", "-C", str(tmp_path), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(git[:3] + ["init", "-q"], check=True)
    (tmp_path / "requirements.lock").write_bytes(b"apache-tvm==0.27.0.post1\n" + b"#" * (runfacts.MAX_LOCK_BYTES + 1))
    subprocess.run(git[:3] + ["add", "-A"], check=True)
    subprocess.run(git + ["commit", "-qm", "c"], check=True)
    commit = subprocess.run(git[:3] + ["rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    assert runfacts._locks(tmp_path, [commit]) == {}

    class Run:
        def __init__(self):
            from pathlib import Path
            self.run_id, self.path = "r", Path("results/runs/r")
            self.manifest = {"git": {"commit": commit}, "environment": {"tvm_version": "0.27.0.post1"}}
    said = runfacts.environment_problems(tmp_path, [Run()], ({commit: 0}, [commit]))
    assert said and _expect("lock_huge") in said[0]
