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
from conftest import ROOT
from test_hostile_round4 import _expect
from test_hostile_round40 import _Run

MUTATIONS = {}
SPECIAL = {case: None for case in (
    "int8_search_account", "int8_asm_account", "gemm_search_account", "e2e_tune_search_account", "score_jump", "machine_pinned", "gemm_curve_account",
    "search_evidence_unnamed", "int8_own_search", "int8_borrowed_search", "campaign_snapshot",
    "rules_choice", "trial_log_duplicate_key", "agreement_jump",
    "asm_names_bounded", "evidence_read_once", "full_disk_destination", "untimed_claims",
    "rules_level", "trial_log_rows", "margins_typed",
    "experiment_scratch", "serve_log_full", "cache_in_checkout", "cwd_removed", "training_passed",
    "record_keys", "paired_ratio", "searched_by_case", "list_claims", "claim_paths",
    "page_fields", "pass_ir")}

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
            "reused_from": None, "case": {"model": "net", "engine": "tvm_int8_tuned", "input_size": 8, "seed": 0},
            "extra": {"tuning": tuning, "asm": asm}}


def test_an_int8_records_search_account_is_its_trial_logs(tmp_path):
    rec = _int8(tmp_path)
    assert _problems(tmp_path, rec) == []
    for change, field in ((("trials", 5000), "tuning.trials"), (("valid", 5000), "tuning.valid"),
                          (("seconds", 9000), "tuning.seconds"), (("tasks", 3), "tuning.tasks")):
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
    assert "is not this record's own search" in _problems(tmp_path, forged)[0]   # the search of another run


def test_an_int8_record_names_its_own_search_not_another_networks(tmp_path):
    rec = _int8(tmp_path)
    _write(tmp_path, "artifacts/int8/tune-digits-int8/trials.jsonl", _trials(10, 6, ["fused_conv0"], 100.0))
    rec["extra"]["tuning"]["database"] = f"runs/{RUN}/artifacts/int8/tune-digits-int8"
    [said] = _problems(tmp_path, rec)
    assert "extra.tuning.database: " in said and _expect("int8_own_search") in said


def test_a_borrowed_search_is_group_ds_search_of_the_same_network():
    from reportgen.data import searchfacts
    tuner = "20261201T000000Z-standard-m"
    d = {"id": "e2e_tune/model=inception", "experiment": "e2e_tune", "status": "ok", "run_id": tuner, "reused_from": None,
         "case": {"model": "inception", "input_size": 224, "seed": 0},
         "extra": {"tuning": {"measured": 256, "valid": 256, "seconds": 1831.0}, "artifacts": {"database": "db"}}}
    rec = {"id": "int8/model=resnet/engine=tvm_fp32_tuned", "experiment": "int8", "status": "ok", "run_id": RUN,
           "reused_from": None, "case": {"model": "resnet", "engine": "tvm_fp32_tuned", "input_size": 224, "seed": 0},
           "extra": {"tuning": {"source": "e2e_tune", "record": d["id"], "run_id": tuner, "trials": 256, "seconds": 1831.0,
                                "tensorized": {"count": 27, "tuned_tasks": 27, "tasks": []}}}}
    runs = [_Run(tuner, [d]), _Run(RUN, [rec])]
    [said] = searchfacts.problems("/nonexistent", runs)
    assert "is not group D's search of this record's network" in said and _expect("int8_borrowed_search") in said
    d["case"]["model"] = "resnet"
    [said] = searchfacts.problems("/nonexistent", runs)
    assert "extra.tuning.tensorized: a borrowed search's summary holds no tensorized" in said


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
    trials = _trials(8, 8, ["main"], 40.0)
    _write(root, "artifacts/gemm_tvm/tune-1024/ladder_trials.jsonl", trials)
    _write(root, "artifacts/gemm_tvm/tune-1024/database_tuning_record.json", [[0, [i]] for i in range(8)])
    return {"id": "gemm_tvm/impl=tvm/stage=autotuned", "experiment": "gemm_tvm", "status": "ok", "run_id": RUN,
            "reused_from": None, "extra": {"database": db, "trials_done": 8, "total_records": 8, "tuning_seconds": 40.2,
                                           "curve": [{"trial": i + 1, "elapsed_s": t["elapsed_s"], "run_secs": 0.1,
                                                      "best_so_far_s": 0.1} for i, t in enumerate(trials)]}}


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


def test_a_gemm_searchs_curve_is_its_trial_logs(tmp_path):
    rec = _gemm(tmp_path)
    rec["extra"]["curve"][5]["best_so_far_s"] = 0.001   # a 100x faster best, charted as the search's progress
    [said] = _problems(tmp_path, rec)
    assert _expect("gemm_curve_account") in said
    assert said.endswith("extra.curve[5]: not trial 6 of the search's trial log (its time 0.1, best so far 0.1, "
                         "finished at 30.0 s)"), said


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
    assert _expect("score_jump") in jump[5] and jump[4] is False
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


def test_a_bound_runs_search_and_assembly_must_be_named(tmp_path):
    rec = _int8(tmp_path)
    rec["extra"]["asm"].pop("artifact")
    assert "extra.asm.artifact: missing" in _problems(tmp_path, rec)[0]
    assert _expect("search_evidence_unnamed") in _problems(tmp_path, rec)[0]
    rec = _gemm(tmp_path)
    rec["extra"].pop("database")
    assert "extra.database: missing" in _problems(tmp_path, rec)[0]
    rec = {"id": "e2e_tune/model=net", "experiment": "e2e_tune", "status": "ok", "run_id": RUN, "reused_from": None,
           "extra": {"artifacts": {}, "tuning": {"measured": 6000, "valid": 5, "seconds": 31.0}}}
    assert "extra.artifacts.trials: missing" in _problems(tmp_path, rec)[0]


def test_a_group_d_records_campaign_history_is_what_its_runs_measured(tmp_path):
    from reportgen.data import searchfacts
    ref, other = f"runs/{RUN}/artifacts/e2e_tune/tune-net", "20261203T071734Z-standard-m"
    _write(tmp_path, "artifacts/e2e_tune/tune-net/trials.jsonl", _trials(6, 5, ["a", "b"], 30.0))
    _write(tmp_path, "artifacts/e2e_tune/tune-net/allocation.json", json.dumps([{"weight": 2, "best_s": 0.01},
                                                                               {"weight": 1, "best_s": 0.03}]))
    _write(tmp_path, "artifacts/e2e_tune/tune-net/database_tuning_record.json", [[0, [1]], [1, [2]]])
    own = {"run_id": RUN, "trials": 6, "seconds": 31.0, "cumulative_trials": 6, "estimated_kernel_s": 0.05, "records": 2}
    rec = {"id": "e2e_tune/model=net", "experiment": "e2e_tune", "status": "ok", "run_id": RUN, "reused_from": None,
           "extra": {"artifacts": {"database": ref, "trials": f"{ref}/trials.jsonl"}, "estimated_kernel_s": 0.05,
                     "tuning": {"measured": 6, "valid": 5, "seconds": 31.0},
                     "campaign": {"cumulative_trials": 6, "steps": [own]}}}
    runs = [_Run(other, []), _Run(RUN, [rec])]
    assert searchfacts.problems(tmp_path, runs) == []
    forged = {"run_id": other, "trials": 26532, "seconds": 16051.7, "cumulative_trials": 26532,
              "estimated_kernel_s": 0.0049, "records": 7600}
    rec["extra"]["campaign"] = {"cumulative_trials": 26538, "steps": [forged, dict(own, cumulative_trials=26538)]}
    [said] = searchfacts.problems(tmp_path, runs)
    assert "extra.campaign.steps[0]: run 20261203T071734Z-standard-m holds no search of this case" in said
    assert _expect("campaign_snapshot") in said
    rec["extra"]["campaign"] = {"cumulative_trials": 6, "steps": [dict(own, estimated_kernel_s=0.0005)]}
    rec["extra"]["estimated_kernel_s"] = 0.0005
    [said] = searchfacts.problems(tmp_path, runs)
    assert "estimated_kernel_s: 0.0005, but the search's allocation estimates 0.05 s" in said
    _write(tmp_path, "artifacts/e2e_tune/tune-net/allocation.json", json.dumps([{"weight": 2.0, "best_s": 0.00025}]))
    [said] = searchfacts.problems(tmp_path, runs)   # a float weight skipped the check instead of failing it
    assert "the search's allocation is not a list of rows with an integer weight" in said


def test_a_rule_engines_search_adds_up_and_keeps_what_its_test_says(tmp_path):
    tuned, default = [0.009 + 0.0001 * (i % 3) for i in range(40)], [0.009 + 0.0001 * ((i + 1) % 3) for i in range(40)]
    from study import stats
    check = dict(stats.faster_of(tuned, default), tuned_samples_s=tuned, default_samples_s=default)
    assert check["kept"] == "default"
    rec = {"id": "int8/model=net/engine=tvm_fp32_rules", "experiment": "int8", "status": "ok", "run_id": RUN,
           "reused_from": None, "case": {"model": "net", "engine": "tvm_fp32_rules"},
           "extra": {"rules": {"trials": 23, "limit": 12, "tuning": {"tasks": [{"candidates": 12}, {"candidates": 11}],
                                                                      "network_check": check}}}}
    assert _problems(tmp_path, rec) == []
    forged = copy.deepcopy(rec)
    forged["extra"]["rules"].update(trials=9000000, limit=5000)
    [said] = _problems(tmp_path, forged)
    assert "extra.rules.trials: 9000000, but its kernels' candidates add up to 23" in said
    forged = copy.deepcopy(rec)
    forged["extra"]["rules"]["tuning"]["network_check"]["kept"] = "tuned"
    [said] = _problems(tmp_path, forged)
    assert "extra.rules.network_check.kept: 'tuned'" in said and _expect("rules_choice") in said


def test_a_trial_log_is_json_as_the_records_are():
    from study import searchlog
    with pytest.raises(ValueError) as err:
        searchlog.trials('{"category": "timeout", "category": null, "elapsed_s": 1}\n', "t.jsonl")
    assert str(err.value).startswith("t.jsonl:1: ") and _expect("trial_log_duplicate_key") in str(err.value)
    with pytest.raises(ValueError, match="NaN"):
        searchlog.trials('{"category": null, "elapsed_s": NaN}\n', "t.jsonl")


def test_agreement_scores_and_errors_jump_like_timings():
    from reportgen.pages import history

    class R:
        def __init__(self, run_id, top1, err):
            self.run_id, self.machine = run_id, "m"
            self.manifest = {"git": {"commit": "a" * 40}}
            self.records = [{"id": "e2e/model=m/size=224/engine=tvm_b/batch=1/threads=2", "status": "ok",
                             "reused_from": None, "fingerprint": "f" * 64, "experiment": "e2e", "case": {},
                             "stats": {"p50": 1.0}, "check": {"max_rel_err": err},
                             "extra": {"agreement": {"top1_agree": top1}, "agreement_set": {"top1_agree": top1}}}]
    [jump] = history.all_jumps([R("r1", 1.0, 2e-6), R("r2", 1.0, 9e-4)], lambda *_: False)
    assert jump[5] == "check.max_rel_err"
    [jump] = history.all_jumps([R("r1", 0.99, 2e-6), R("r2", 0.90, 2e-6)], lambda *_: False)
    assert _expect("agreement_jump") in jump[5]


def test_an_asm_account_counts_the_familys_instructions_only(tmp_path):
    rec = _int8(tmp_path)
    rec["extra"]["asm"]["hottest"].update({f"zz{i}": 0 for i in range(1000)})
    [said] = _problems(tmp_path, rec)
    assert "extra.asm.hottest: 'zz0' is not an instruction the family counts" in said
    assert _expect("asm_names_bounded") in said


def test_a_file_many_records_cite_is_read_once(tmp_path, monkeypatch):
    from reportgen.data import plainfile
    rec = _int8(tmp_path)
    reads = []
    real = plainfile.read_text
    monkeypatch.setattr(plainfile, "read_text", lambda path, *a, **k: reads.append(str(path)) or real(path, *a, **k))
    copies = [dict(copy.deepcopy(rec), id=f"int8/model=net/engine=tvm_int8_tuned/n={i}") for i in range(50)]
    assert _problems(tmp_path, *copies) == []
    assert len(reads) == len(set(reads)) == 3   # the trial log, the workloads, the assembly: once each
    assert _expect("evidence_read_once") == "once"


def test_a_full_disk_names_the_file_that_could_not_be_written(monkeypatch, capsys):
    from reportgen import cli

    def full(**_kw):
        raise OSError(28, "No space left on device", "/venv/material/search.js.map", None, "/tmp/tiny/site.tmp/x.map")
    monkeypatch.setattr(cli, "cli", full)
    with pytest.raises(SystemExit):
        cli.main()
    said = capsys.readouterr().err.strip()
    assert said.startswith("error: /tmp/tiny/site.tmp/x.map: ") and _expect("full_disk_destination") in said


def test_an_untimed_records_numbers_jump_too():
    from reportgen.pages import history

    class R:
        def __init__(self, run_id, weights, err, accuracy):
            self.run_id, self.machine = run_id, "m"
            self.manifest = {"git": {"commit": "a" * 40}, "profile": "standard"}
            self.records = [{"id": "int8/model=m/quant=minmax-int8", "status": "ok", "reused_from": None,
                             "fingerprint": "f" * 64, "experiment": "int8", "case": {}, "stats": None,
                             "check": {"max_rel_err": err},
                             "extra": {"weights_bytes": weights, "training": {"eval_accuracy": accuracy},
                                       "compile_seconds": weights / 1000}}]
    assert history.all_jumps([R("r1", 2_000_000, 1e-3, 0.97), R("r2", 2_000_000, 1e-3, 0.97)], lambda *_: False) == []
    [jump] = history.all_jumps([R("r1", 2_000_000, 1e-3, 0.97), R("r2", 1000, 1e-3, 0.97)], lambda *_: False)
    assert jump[5] == "extra.weights_bytes" and _expect("untimed_claims") in jump[5]
    [jump] = history.all_jumps([R("r1", 2_000_000, 1.8e-6, 0.97), R("r2", 2_000_000, 0.0, 0.97)], lambda *_: False)
    assert jump[5] == "check.max_rel_err"   # an error of exactly 0 is a jump too
    [jump] = history.all_jumps([R("r1", 2_000_000, 1e-3, 0.97), R("r2", 2_000_000, 1e-3, 0.5)], lambda *_: False)
    assert jump[5] == "extra.training.eval_accuracy"


def test_a_rule_engines_level_is_the_studys_not_its_own(tmp_path):
    from study import stats
    tuned = [0.0090] * 24 + [0.0092] * 16
    default = [0.0091] * 40
    check = dict(stats.faster_of(tuned, default, alpha=0.2), tuned_samples_s=tuned, default_samples_s=default)
    rec = {"id": "int8/model=net/engine=tvm_fp32_rules", "experiment": "int8", "status": "ok", "run_id": RUN,
           "reused_from": None, "case": {}, "extra": {"rules": {"trials": 0, "tuning": {"network_check": check}}}}
    said = " ".join(_problems(tmp_path, rec))
    assert "network_check.alpha: 0.2" in said and _expect("rules_level") in said


def test_a_trial_log_holds_a_bounded_number_of_trials():
    from study import searchlog
    with pytest.raises(ValueError) as err:
        searchlog.trials('{"category": null}\n' * (searchlog.MAX_TRIALS + 1), "t.jsonl")
    assert _expect("trial_log_rows") in str(err.value)


def test_margins_the_page_prints_are_typed():
    from study import work
    rec = {"experiment": "int8", "extra": {"agreement_set": {"margins": {"flips": 0, "margin_quantiles": {"5": 0.1, "50": 0.2},
                                                                           "share_margin_below_error": 0.0}}}}
    said = work.extra_problems(rec)
    assert any(_expect("margins_typed") in p for p in said), said


def test_an_experiments_scratch_goes_with_a_killed_process(tmp_path, monkeypatch):
    import os
    import tempfile
    from study import leftovers
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    dead = tmp_path / "reportgen-experiment-999999-abc"   # a pid beyond pid_max: its process is gone
    (dead / "model.onnx").parent.mkdir()
    (dead / "model.onnx").write_bytes(b"x" * 100)
    with leftovers.temporary() as tmp:
        assert os.path.isdir(tmp) and _expect("experiment_scratch") in tmp
        assert not dead.exists()
    assert not os.path.exists(tmp)
    dead.mkdir()
    leftovers.sweep(leftovers.EXPERIMENT)   # what retest does at start
    assert not dead.exists()


def test_serve_without_a_writable_log_serves_on(capsys, monkeypatch):
    import builtins
    from reportgen.commands import serve
    real = builtins.print

    def full(*args, **kw):
        if kw.get("file") is None:
            raise OSError(28, "No space left on device")
        return real(*args, **kw)
    monkeypatch.setattr(serve, "_LOG", {"broken": False})
    monkeypatch.setattr(builtins, "print", full)
    serve._log("127.0.0.1 GET / 200")
    serve._log("127.0.0.1 GET /x 200")
    monkeypatch.setattr(builtins, "print", real)
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and _expect("serve_log_full") in err[0]


def test_a_cache_inside_a_checkout_is_no_cache(monkeypatch, tmp_path):
    from reportgen.data import load
    (tmp_path / "project" / ".git").mkdir(parents=True)
    for value in (".cache", str(tmp_path / "project" / ".cache")):
        monkeypatch.setenv("REPORTGEN_CACHE", value)
        assert load.cache_dir() is None, value
    monkeypatch.setenv("REPORTGEN_CACHE", str(tmp_path / "elsewhere"))
    assert load.cache_dir() == tmp_path / "elsewhere"
    assert _expect("cache_in_checkout") == "None"


def test_a_removed_current_folder_is_said(tmp_path):
    import subprocess
    import sys
    gone = tmp_path / "gone"
    gone.mkdir()
    code = f"import os, runpy, sys; os.chdir({str(gone)!r}); os.rmdir({str(gone)!r}); sys.argv=['reportgen', 'verify']; " \
           "runpy.run_module('reportgen.cli', run_name='__main__')"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         env={**__import__("os").environ, "PYTHONPATH": str(ROOT)})
    assert out.returncode == 1 and _expect("cwd_removed") in out.stderr and "Traceback" not in out.stderr


def test_a_training_record_passes_only_at_its_threshold():
    from study import work
    rec = {"experiment": "int8", "samples": [], "check": {"passed": True, "threshold": 0.9},
           "extra": {"training": {"eval_accuracy": 0.5}}}
    said = work.extra_problems(rec)
    assert any(_expect("training_passed") in p for p in said), said
    rec["extra"]["training"]["eval_accuracy"] = 0.97
    assert work.extra_problems(rec) == []


def test_a_records_keys_are_labels():
    from study import schema, work
    for key in ('<a href="https://evil.example/fix">x</a>', "[x](https://evil.example/)", "x\u202egnp.exe", "k" * 300000):
        rec = {"extra": {"codegen": {key: 1}}, "check": None, "stats": None}
        said = work.key_problems(rec, schema._SAFE_TEXT, schema.MAX_LABEL_CHARS)
        assert said and said[0].startswith("extra.codegen: the key ") and _expect("record_keys") in said[0], key[:20]
    assert work.key_problems({"extra": {"ort_coverage": {"kernels": {"com.microsoft::QLinearConv": 1}}}}, schema._SAFE_TEXT, 200) == []


def test_a_cache_reached_through_a_link_into_a_checkout_is_no_cache(monkeypatch, tmp_path):
    from reportgen.data import load
    (tmp_path / "project" / ".git").mkdir(parents=True)
    (tmp_path / "project" / "results").mkdir()
    (tmp_path / "leaf").symlink_to(tmp_path / "project" / "results")
    monkeypatch.setenv("REPORTGEN_CACHE", str(tmp_path / "leaf" / "c"))
    assert load.cache_dir() is None


def _paired(rec_samples=None):
    from study import stats
    ours = [0.009 + 0.0001 * (i % 5) for i in range(40)]
    theirs = [0.0091 + 0.0001 * (i % 3) for i in range(40)]
    paired = {"engine": "ort", "samples": ours, "peer_samples": theirs, "calls_per_block": 5, "blocks": 8,
              "block_ratios": stats.block_ratios(ours, theirs, 5)}
    paired.update(stats.paired_summary(paired))
    return {"id": "e2e/model=m/engine=tvm_rules", "experiment": "e2e", "status": "ok", "run_id": RUN, "reused_from": None,
            "case": {"engine": "tvm_rules"}, "samples": rec_samples or ours, "extra": {"paired_peer": paired}}


PEER = {"id": "e2e/model=m/engine=ort", "experiment": "e2e", "status": "ok", "run_id": RUN, "reused_from": None,
        "case": {"engine": "ort"}, "samples": [0.0092] * 10, "stats": {"p50": 0.0092}, "extra": {}}
"""ORT's own record of the run: a paired peer median is held to it (round 56's data set)."""


def test_a_paired_ratio_is_its_samples(tmp_path):
    rec = _paired()
    assert _problems(tmp_path, rec, PEER) == []
    forged = copy.deepcopy(rec)
    forged["extra"]["paired_peer"].update(ratio=0.60, ratio_ci=[0.57, 0.63])
    said = " ".join(_problems(tmp_path, forged, PEER))
    assert "extra.paired_peer.ratio: 0.6, but its samples give" in said and _expect("paired_ratio") in said
    forged = copy.deepcopy(rec)
    del forged["extra"]["paired_peer"]["p50_s"]   # a missing median broke the build in a KeyError
    assert "extra.paired_peer.p50_s: None, but its samples give" in _problems(tmp_path, forged, PEER)[0]
    forged = copy.deepcopy(rec)
    forged["extra"]["paired_peer"]["samples"] = forged["extra"]["paired_peer"]["samples"] * 300
    assert "at most 10000 times" in _problems(tmp_path, forged, PEER)[0]


def test_a_record_cannot_loosen_its_own_error_check():
    from reportgen.data import claims
    tflite = {"experiment": "int8", "case": {"engine": "tflite_int8"}, "extra": {"tuned": True}, "check": {"max_rel_err": 1.9e-6}}
    later = copy.deepcopy(tflite)
    later["check"]["max_rel_err"] = 1.8e-5
    assert not claims.searched(tflite)
    assert claims.jump(tflite, later, 2.0)[1] == "check.max_rel_err"
    assert _expect("searched_by_case") in str(claims.searched({"experiment": "int8", "case": {"engine": "tvm_int8_tuned"}}))


def test_a_record_saying_tuned_names_its_tuning():
    from reportgen.data import runfacts
    rec = {"id": "e2e/model=m/engine=tvm_b", "experiment": "e2e", "status": "ok", "run_id": RUN, "reused_from": None,
           "case": {"engine": "tvm_b"}, "extra": {"tuned": True}}
    [said] = runfacts.tuning_problems([_Run(RUN, [rec])])
    assert "a tuned record names the tuning it used" in said
    rec["case"]["engine"] = "tvm_rules_tuned"   # a rule engine's search is its rules_tuning
    assert runfacts.tuning_problems([_Run(RUN, [rec])]) == []


def test_a_lists_rows_and_length_are_claims():
    from reportgen.data import claims
    before = {"experiment": "int8", "case": {}, "extra": {"layers": [{"rel_err": 0.58}, {"rel_err": 0.1}],
                                                          "rewrite": {"float_ops": [{"op": "a"}] * 4}}}
    after = copy.deepcopy(before)
    after["extra"]["layers"][0]["rel_err"] = 0.0058
    assert claims.jump(before, after, 2.0)[1] == "extra.layers[0].rel_err"
    after = copy.deepcopy(before)
    after["extra"]["rewrite"]["float_ops"] = []
    assert claims.jump(before, after, 2.0)[1] == "extra.rewrite.float_ops#len" == _expect("list_claims")


def test_claims_are_paths_and_cover_flags_texts_and_names_that_go():
    from reportgen.data import claims
    before = {"experiment": "int8", "case": {}, "extra": {"score": {"top1_agree": 0.5}, "bytes": 11_800_000,
                                                          "changed": True, "rewrite": {"float_ops": [{"op": "conv2d"}]}}}
    decoy = copy.deepcopy(before)
    decoy["extra"] = {"score.top1_agree": 0.5, **decoy["extra"], "score": {"top1_agree": 0.999}}
    assert claims.jump(before, decoy, 2.0)[1] == "extra.score.top1_agree" == _expect("claim_paths")
    flipped = copy.deepcopy(before)
    flipped["extra"]["changed"] = False
    assert claims.jump(before, flipped, 2.0)[1] == "extra.changed"
    renamed = copy.deepcopy(before)
    renamed["extra"]["rewrite"]["float_ops"][0]["op"] = "reshape"
    assert claims.jump(before, renamed, 2.0)[1] == "extra.rewrite.float_ops[0].op"
    swapped = copy.deepcopy(before)
    del swapped["extra"]["bytes"]
    swapped["extra"]["weights_bytes"] = 100_000
    assert claims.jump(before, swapped, 2.0)[1] == "extra.bytes (gone)"
    logged = [dict(before, extra=dict(before["extra"], log=f"runs/{run}/logs/int8.log")) for run in ("a", "b")]
    assert claims.jump(*logged, 2.0) is None   # a text naming a run differs between runs by design


def test_fields_the_pages_read_are_required():
    from study import work
    step = {"experiment": "graph", "status": "ok", "samples": [], "case": {"step": 7, "pass": "FuseOps"},
            "extra": {"stats": {}}}
    assert any(_expect("page_fields") in p and p.startswith("extra.changed") for p in work.extra_problems(step))
    quant = {"experiment": "int8", "status": "ok", "samples": [], "case": {"quant": {}},
             "extra": {"rewrite": {"quantize": 1, "dequantize": 1}}}
    assert any(p.startswith("extra.rewrite.float_ops: missing") for p in work.extra_problems(quant))


def test_a_rule_engines_kernels_are_claims_unless_searched():
    from reportgen.data import claims
    rec = {"experiment": "e2e", "case": {"engine": "tvm_rules"},
           "extra": {"rules": {"kernels": {f"k{i}": {"rule": "conv" if i < 15 else "generic"} for i in range(21)}}}}
    fewer = copy.deepcopy(rec)
    fewer["extra"]["rules"]["kernels"] = {k: v for k, v in rec["extra"]["rules"]["kernels"].items() if v["rule"] == "conv"}
    assert claims.jump(rec, fewer, 2.0)[1].endswith("(gone)")
    tuned = copy.deepcopy(rec)
    tuned["case"]["engine"] = "tvm_rules_tuned"
    assert claims.jump(tuned, dict(copy.deepcopy(fewer), case={"engine": "tvm_rules_tuned"}), 2.0) is None


def test_a_pass_demonstrations_ir_is_its_artifacts(tmp_path):
    _write(tmp_path, "artifacts/graph/pass-FuseOps.before.relax.py", "a = relax.add(x, y)\n")
    _write(tmp_path, "artifacts/graph/pass-FuseOps.after.relax.py", "a = fused(x, y)\n")
    rec = {"id": "graph/relay_pass=FuseOps", "experiment": "graph", "status": "ok", "run_id": RUN, "reused_from": None,
           "case": {"relay_pass": "FuseOps"},
           "extra": {"artifacts": {side: f"runs/{RUN}/artifacts/graph/pass-FuseOps.{side}.relax.py" for side in ("before", "after")},
                     "before_text": "a = relax.add(x, y)\n", "after_text": "a = fused(x, y)\n", "changed": True}}
    assert _problems(tmp_path, rec) == []
    forged = copy.deepcopy(rec)
    forged["extra"]["after_text"] = forged["extra"]["before_text"]   # an emptied diff under "IR changed"
    said = _problems(tmp_path, forged)
    assert "extra.after_text: not the IR of the artifact it cites" in said[0] and _expect("pass_ir") in said[0]
    forged = copy.deepcopy(rec)
    forged["extra"]["changed"] = False
    assert "extra.changed: False, but the IR before and after are different" in _problems(tmp_path, forged)[0]
