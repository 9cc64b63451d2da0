"""The forty-third round of the hostile corpus (issue #29): what round 42's data set left.

An INT8 record's tuning summary (trials 117 -> 5000, tensorized tasks 12/27 -> 27/27) and its VNNI
instruction counts, and a GEMM search's trials, records and seconds (x100), were published as current
figures on the record's word.  Each is now held to the files its run keeps: the search's trial log
and database, and the hottest kernel's assembly (reportgen.data.searchfacts).

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
import copy
import json

import pytest
from test_hostile_round4 import _expect
from test_hostile_round40 import _Run

MUTATIONS = {}
SPECIAL = {case: None for case in (
    "int8_search_account", "int8_asm_account", "gemm_search_account", "e2e_tune_search_account", "score_jump", "machine_pinned")}

RUN = "20261206T010000Z-standard-m"


def _write(root, rel, lines):
    path = root / "runs" / RUN / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(x) + "\n" for x in lines) if isinstance(lines, list) else lines)


def _trials(n, valid, tasks, last_s):
    return [{"task": tasks[i % len(tasks)], "elapsed_s": last_s * (i + 1) / n, "run_secs": [0.1] if i < valid else None,
             "category": None if i < valid else "build_failed"} for i in range(n)]


def _problems(root, *records):
    from reportgen.data import searchfacts
    return searchfacts.problems(root, [_Run(RUN, list(records))])


def _int8(root):
    tasks = [f"fused_conv{i}" for i in range(4)]
    db = f"runs/{RUN}/artifacts/int8/tune-net-int8"
    _write(root, "artifacts/int8/tune-net-int8/trials.jsonl", _trials(10, 6, tasks, 100.0))
    _write(root, "artifacts/int8/tune-net-int8/database_workload.json", [[i] for i in range(4)])
    _write(root, "artifacts/int8/net-hot.s", "fused_conv0:\n\tvpdpbusd %zmm1, %zmm2, %zmm3\n\t.p2align 4\n"
                                             ".LBB0_1:\n\t{vpdpbusd} %zmm1, %zmm2, %zmm4\n\tvpdpbusd %zmm0, %zmm2, %zmm4\n")
    asm = {"artifact": f"runs/{RUN}/artifacts/int8/net-hot.s", "hottest_kernel": "fused_conv0",
           "hottest": {"vpdpbusd": 2, "vpmaddwd": 0}, "all_kernels": {"vpdpbusd": 9, "vpmaddwd": 0},
           "kernels_with": {"vpdpbusd": 3, "vpmaddwd": 0}}
    tuning = {"source": "int8 family", "database": db, "run_id": RUN, "trials": 10, "valid": 6,
              "failures": {"build_failed": 4}, "seconds": 101.5, "tasks": 4,
              "tensorized": {"tasks": tasks[:2], "count": 2, "tuned_tasks": 4}}
    return {"id": "int8/model=net/engine=tvm_int8_tuned", "experiment": "int8", "status": "ok", "run_id": RUN,
            "reused_from": None, "extra": {"tuning": tuning, "asm": asm}}


def test_an_int8_records_search_account_is_its_trial_logs(tmp_path):
    rec = _int8(tmp_path)
    assert _problems(tmp_path, rec) == []
    for change, field in ((("trials", 5000), "tuning.trials"), (("valid", 5000), "tuning.valid"),
                          (("seconds", 9000), "tuning.seconds"), (("tasks", 27), "tuning.tasks")):
        forged = copy.deepcopy(rec)
        forged["extra"]["tuning"][change[0]] = change[1]
        said = _problems(tmp_path, forged)
        assert len(said) == 1 and f"extra.{field}: " in said[0], said
        assert field == "tuning.tasks" or _expect("int8_search_account") in said[0]
    forged = copy.deepcopy(rec)
    forged["extra"]["tuning"]["tensorized"].update(count=4)
    assert "tensorized.count: 4, but it names 2" in _problems(tmp_path, forged)[0]
    forged["extra"]["tuning"]["tensorized"].update(tasks=[*rec["extra"]["tuning"]["tensorized"]["tasks"], "x", "y"])
    assert "is no task of the search's trial log" in _problems(tmp_path, forged)[0]
    forged = copy.deepcopy(rec)
    forged["extra"]["tuning"]["tensorized"]["tuned_tasks"] = 27
    assert "tunes 4 tasks" in _problems(tmp_path, forged)[0]
    forged["extra"]["tuning"]["database"] = "runs/20261201T000000Z-standard-m/artifacts/int8/tune-net-int8"
    assert "must lie under runs/" + RUN in _problems(tmp_path, forged)[0]   # the search of another run


def test_an_int8_records_instruction_counts_are_its_assemblys(tmp_path):
    rec = _int8(tmp_path)
    forged = copy.deepcopy(rec)
    forged["extra"]["asm"]["hottest"]["vpdpbusd"] = 5
    said = _problems(tmp_path, forged)
    assert len(said) == 1 and "extra.asm.hottest.vpdpbusd: 5" in said[0] and _expect("int8_asm_account") in said[0]
    forged = copy.deepcopy(rec)
    forged["extra"]["asm"]["kernels_with"]["vpdpbusd"] = 60
    assert "kernels_with.vpdpbusd: 60 kernels, but all kernels hold 9" in _problems(tmp_path, forged)[0]
    forged["extra"]["asm"]["all_kernels"]["vpdpbusd"] = 1
    assert "more than all kernels hold (1)" in _problems(tmp_path, forged)[0]
    forged = copy.deepcopy(rec)
    forged["reused_from"] = "20261201T000000Z-standard-m"   # checked in the run that measured it
    forged["extra"]["asm"]["hottest"]["vpdpbusd"] = 5
    assert _problems(tmp_path, forged) == []


def _gemm(root):
    db = f"runs/{RUN}/artifacts/gemm_tvm/tune-1024"
    _write(root, "artifacts/gemm_tvm/tune-1024/ladder_trials.jsonl", _trials(8, 8, ["main"], 40.0))
    _write(root, "artifacts/gemm_tvm/tune-1024/database_tuning_record.json", [[0, [i]] for i in range(8)])
    return {"id": "gemm_tvm/impl=tvm/stage=autotuned", "experiment": "gemm_tvm", "status": "ok", "run_id": RUN,
            "reused_from": None, "extra": {"database": db, "trials_done": 8, "total_records": 8, "tuning_seconds": 40.2,
                                           "curve": [{"trial": i} for i in range(8)]}}


@pytest.mark.parametrize("field,value,said", [
    ("trials_done", 800, "the search's trial log holds 8 trials"), ("total_records", 800, "database holds 8 records"),
    ("tuning_seconds", 4000.0, "trial log ends at 40.0 s"), ("tuning_seconds", 1.0, "trial log ends at 40.0 s")])
def test_a_gemm_search_account_is_its_trial_logs(tmp_path, field, value, said):
    rec = _gemm(tmp_path)
    assert _problems(tmp_path, rec) == []
    forged = copy.deepcopy(rec)
    forged["extra"][field] = value
    found = _problems(tmp_path, forged)
    assert len(found) >= 1 and f"extra.{field}: " in found[0] and said in found[0], found
    assert field != "trials_done" or _expect("gemm_search_account") in found[0]


def test_a_group_d_search_account_is_its_trial_logs(tmp_path):
    ref = f"runs/{RUN}/artifacts/e2e_tune/tune-net"
    _write(tmp_path, "artifacts/e2e_tune/tune-net/trials.jsonl", _trials(6, 5, ["a", "b"], 30.0))
    rec = {"id": "e2e_tune/model=net", "experiment": "e2e_tune", "status": "ok", "run_id": RUN, "reused_from": None,
           "extra": {"artifacts": {"database": ref, "trials": f"{ref}/trials.jsonl"},
                     "tuning": {"measured": 6, "valid": 5, "seconds": 31.0}}}
    assert _problems(tmp_path, rec) == []
    rec["extra"]["tuning"]["measured"] = 600
    said = _problems(tmp_path, rec)
    assert len(said) == 1 and "extra.tuning.measured: 600" in said[0] and _expect("e2e_tune_search_account") in said[0]


def test_a_score_that_moves_on_the_same_code_is_a_jump():
    from reportgen.pages import history

    class R:
        def __init__(self, run_id, top1):
            self.run_id, self.machine = run_id, "m"
            self.manifest = {"git": {"commit": "a" * 40}}
            self.records = [{"id": "int8/model=m/size=224/engine=tvm_int8/batch=1/threads=2", "status": "ok",
                             "reused_from": None, "fingerprint": "f" * 64, "experiment": "int8", "case": {},
                             "stats": {"p50": 1.0}, "extra": {"score": {"top1_agree": top1, "accuracy": 0.9}}}]
    [jump] = history.all_jumps([R("r1", 0.61), R("r2", 0.99)], lambda *_: False)
    assert jump[5] == _expect("score_jump") and jump[4] is False
    assert history.all_jumps([R("r1", 0.61), R("r2", 0.62)], lambda *_: False) == []


def test_the_pinned_machine_is_published_and_the_rule_is_said(tmp_path):
    from test_machines import ENV, ZEN5, _write

    from reportgen.commands import build
    from reportgen.data import load, merge
    from reportgen.errors import ReportError
    from study import identity
    _write(tmp_path, "20260101T000000Z-standard", ENV, "standard")
    _write(tmp_path, "20260102T000000Z-standard", dict(ENV, **ZEN5), "standard", n=64, finished="2026-01-02T00:10:00Z")
    runs, pinned, forged = load.read_runs(tmp_path), identity.machine_id(ENV), identity.machine_id(dict(ENV, **ZEN5))
    assert merge.publication_machine(runs)[0] == forged   # newer, as complete: the rule alone takes it
    machine, reason = merge.publication_machine(runs, pinned, merge.PINNED)
    assert machine == pinned and _expect("machine_pinned") in reason and forged in reason
    with pytest.raises(ReportError, match="mkdocs.yml: plugins: reportgen: machine: 'zz' matches no"):
        merge.publication_machine(runs, "zz", merge.PINNED)
    (tmp_path / "mkdocs.yml").write_text("site_name: x\nplugins:\n  - search\n  - reportgen:\n      machine: " + pinned + "\n")
    assert build.pinned_machine(tmp_path) == pinned
    (tmp_path / "mkdocs.yml").write_text("site_name: x\nplugins:\n  - reportgen\n")
    assert build.pinned_machine(tmp_path) is None
