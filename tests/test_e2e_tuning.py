"""Group D plumbing: budget allocation, finding another family's records, profile order checks."""
import dataclasses
import json
import types

import pytest
import yaml

from experiments import harness
from experiments.e2e import tuning
from reportgen.commands import retest

R1, R2 = "20260101T000000Z-quick-f6ab9f827cfd", "20260102T000000Z-quick-f6ab9f827cfd"   # two retests


def _tasks(*names):
    return [types.SimpleNamespace(task_name=n, weight=1) for n in names]


def test_allocation_follows_the_profile_and_keeps_the_budget():
    rows = tuning.allocate(_tasks("a", "b", "c"), {"a": 6.0, "b": 3.0, "c": 1.0}, budget=80, per_iter=8,
                           min_trials=0)
    trials = {r["task"]: r["trials"] for r in rows}
    assert trials == {"a": 48, "b": 24, "c": 8}
    assert [r["task"] for r in rows] == ["a", "b", "c"]
    assert abs(sum(r["share"] for r in rows) - 1.0) < 1e-12


def test_allocation_floor_gives_every_kernel_a_round_even_past_the_budget():
    rows = tuning.allocate(_tasks("big", "tiny", "absent"), {"big": 1.0, "tiny": 1e-6}, budget=16, per_iter=8,
                           min_trials=8)
    trials = {r["task"]: r["trials"] for r in rows}
    assert trials["big"] == 16 and trials["tiny"] == 8 and trials["absent"] == 8


def test_allocation_with_no_floor_leaves_small_kernels_untuned():
    rows = tuning.allocate(_tasks("a", "b"), {"a": 0.9, "b": 0.1}, budget=8, per_iter=8, min_trials=0)
    assert {r["task"]: r["trials"] for r in rows} == {"a": 8, "b": 0}


def test_allocation_uses_the_profile_under_the_variants_kernel_names():
    profile = tuning.profile_for({"conv": 0.9, "add": 0.1}, {"conv1": "conv", "other": "missing"})
    rows = tuning.allocate(_tasks("conv1", "add", "other"), profile, budget=80, per_iter=8, min_trials=0)
    assert {r["task"]: r["trials"] for r in rows} == {"conv1": 72, "add": 8, "other": 0}


def test_prepack_kernels_are_matched_to_the_default_ones_by_structure():
    """AttachAttrLayoutFreeBuffers renames kernels; the match is the loop nest, not the name."""
    import numpy as np
    from tvm import relax

    from experiments import targets
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType((1, 8, 16, 16), "float32"))
    rng = np.random.default_rng(0)
    with bb.function("main", [x]):
        with bb.dataflow():
            y = bb.emit(relax.op.nn.relu(relax.op.nn.conv2d(x, relax.const(rng.random((16, 8, 3, 3), "float32")),
                                                            padding=1)))
            z = bb.emit(relax.op.nn.conv2d(y, relax.const(rng.random((16, 16, 3, 3), "float32")), padding=1))
            out = bb.emit_output(relax.op.nn.conv2d(z, relax.const(rng.random((16, 16, 3, 3), "float32")),
                                                    padding=1))
        bb.emit_func_output(out)
    mod, target = bb.get(), targets.host_target(1)
    default, prepack = tuning.fuse(mod, target, "default"), tuning.fuse(mod, target, "prepack")
    names = tuning.kernel_names(default, prepack)
    tasks = [t.task_name for t in tuning.extract(prepack, target)]
    assert set(tasks) <= set(names) and not set(tasks) & set(names.values())   # every task renamed, every one found
    kernels = {g.name_hint for g in default.functions}
    assert set(names.values()) <= kernels and len(set(names.values())) == len(names)


def test_allocation_rejects_a_bad_budget():
    with pytest.raises(ValueError, match="per_iter=0"):
        tuning.allocate(_tasks("a"), {"a": 1.0}, budget=8, per_iter=0, min_trials=0)


def _harness(tmp_path, upstream):
    runs = tmp_path / "results" / "runs"
    art = runs / ".tmp-20261202T000000Z-quick-aaaaaaaaaaaa" / "artifacts" / "e2e"
    return harness.Harness({"experiment": "e2e", "params": {}, "run_id": "20261202T000000Z-quick-aaaaaaaaaaaa", "log_file": str(tmp_path / "x.log"),
                            "log_ref": "runs/20261202T000000Z-quick-aaaaaaaaaaaa/logs/e2e.log", "records_file": str(tmp_path / "p.jsonl"),
                            "fingerprint": "f", "artifacts_dir": str(art), "upstream": upstream})


def test_artifact_path_resolves_this_run_and_earlier_runs(tmp_path):
    h = _harness(tmp_path, {})
    assert h.artifact_path("runs/20261202T000000Z-quick-aaaaaaaaaaaa/artifacts/e2e_tune/db") == \
        tmp_path / "results" / "runs" / ".tmp-20261202T000000Z-quick-aaaaaaaaaaaa" / "artifacts" / "e2e_tune" / "db"
    assert h.artifact_path("runs/20261201T000000Z-quick-aaaaaaaaaaaa/artifacts/e2e_tune/db") == tmp_path / "results" / "runs" / "20261201T000000Z-quick-aaaaaaaaaaaa" / "artifacts" / "e2e_tune" / "db"
    with pytest.raises(ValueError, match="not an artifact reference"):
        h.artifact_path("logs/x.log")


def test_upstream_record_takes_the_first_matching_ok_record(tmp_path):
    def rec(run, size, status="ok"):
        return {"id": "e2e_tune/model=m/batch=1/threads=2", "run_id": run, "status": status,
                "case": {"input_size": size}}
    newest, older = tmp_path / "new.jsonl", tmp_path / "old.jsonl"
    newest.write_text("\n".join(json.dumps(r) for r in [rec("R3", 64), rec("R3b", 224, "check_failed")]))
    older.write_text(json.dumps(rec("R1", 224)))
    h = _harness(tmp_path, {"e2e_tune": [str(tmp_path / "missing.jsonl"), str(newest), str(older)]})
    found = h.upstream_record("e2e_tune", "e2e_tune/model=m/batch=1/threads=2",
                              accept=lambda r: r["case"]["input_size"] == 224)
    assert found["run_id"] == "R1"
    assert h.upstream_record("other", "x") is None


def test_group_d_skip_says_whether_the_profile_tunes_that_batch(tmp_path):
    from experiments import e2e_models
    h = _harness(tmp_path, {})
    h.spec = dataclasses.replace(h.spec, upstream_params={"e2e_tune": {"jobs": [{"model": "resnet18_v1", "batch": 1,
                                                                                 "budget": 320}]}})
    assert "do not tune resnet50 at batch 1" in e2e_models._no_tuning_reason(h, "resnet50", 1)
    assert "do not tune resnet18_v1 at batch 8" in e2e_models._no_tuning_reason(h, "resnet18_v1", 8)
    listed = e2e_models._no_tuning_reason(h, "resnet18_v1", 1)
    assert "the profile lists the job" in listed and "do not tune" not in listed
    h.spec = dataclasses.replace(h.spec, upstream_params={})   # a spec without it: no claim about the profile
    assert "run the e2e_tune family first" in e2e_models._no_tuning_reason(h, "resnet50", 1)


def _db(work, records):
    """A JSON database with one workload and the given (run seconds) records."""
    work.mkdir(parents=True, exist_ok=True)
    (work / "database_workload.json").write_text('["hash", "mod"]\n')
    (work / "database_tuning_record.json").write_text(
        "".join(json.dumps([0, [[], secs, {"kind": "llvm"}, []]]) + "\n" for secs in records))


def test_prune_keeps_the_fastest_valid_records_of_each_workload(tmp_path):
    _db(tmp_path, [[3e-3], [1e10], [1e-3], [2e-3], [4e-3]])
    assert tuning.prune(tmp_path, keep=2) == {"before": 5, "after": 2}
    kept = [json.loads(line)[1][1] for line in (tmp_path / "database_tuning_record.json").read_text().splitlines()]
    assert kept == [[1e-3], [2e-3]]


def test_campaign_accumulates_and_commits_atomically(tmp_path):
    parts = {"model": "m", "batch": 1, "input_size": 32, "seed": 0, "variant": "prepack", "target": "t",
             "tvm_version": "0.27"}
    first = tuning.Campaign(tmp_path, parts)
    assert first.trials == 0 and not first.seed(tmp_path / "w1")
    _db(tmp_path / "w1", [[2e-3], [1e-3]])
    first.commit(tmp_path / "w1", run_id=R1, trials=16, seconds=5.0, estimate_s=1e-3)
    again = tuning.Campaign(tmp_path, parts)           # the next retest
    assert again.trials == 16 and again.seed(tmp_path / "w2")
    assert (tmp_path / "w2" / "database_tuning_record.json").read_text().count("\n") == 2
    state = again.commit(tmp_path / "w2", run_id=R2, trials=8, seconds=2.0, estimate_s=9e-4)
    assert state["cumulative_trials"] == 24 and [s["run_id"] for s in state["steps"]] == [R1, R2]
    assert [s["cumulative_trials"] for s in state["steps"]] == [16, 24]
    assert not list((tmp_path / "campaigns").glob(".*"))   # no temporary folder left behind
    other = tuning.Campaign(tmp_path, dict(parts, target="other"))   # another target: its own campaign
    assert other.key != again.key and other.trials == 0


@pytest.mark.slow
def test_a_second_retest_continues_the_campaign(project):
    """Two retests of e2e_tune on a tiny budget: the second starts from the first's database."""
    path = project / "experiments" / "configs" / "quick.yaml"
    config = yaml.safe_load(path.read_text(encoding="utf-8"))
    config["families"]["e2e_tune"].update(
        jobs=[{"model": "resnet18_v1", "batch": 1, "budget": 8, "variant": "prepack"}], input_size=32, n_check=1,
        min_trials=0, campaign=True)
    path.write_text(yaml.dump(config, sort_keys=False), encoding="utf-8")
    from reportgen.data import load
    steps = []
    for _ in range(2):
        run = retest.retest(project, "quick", only=("e2e_tune",))
        rec = next(r for r in load.read_jsonl(run / "records.jsonl") if r["experiment"] == "e2e_tune")
        assert rec["status"] == "ok", rec["error"]
        steps.append(rec["extra"]["campaign"])
        log = (run / "logs" / "e2e_tune.log").read_text()
    assert not steps[0]["continued"] and steps[1]["continued"]
    assert steps[1]["cumulative_trials"] == steps[0]["cumulative_trials"] + rec["extra"]["tuning"]["measured"] > 0
    assert "continued=true" in log and len(steps[1]["steps"]) == 2
    assert rec["extra"]["coverage"]["scheduled"]


def _fake_meta_schedule(monkeypatch, outcomes):
    """MetaSchedule's tuning entry points replaced: each ``tune_tasks`` call reports the next list of
    trial categories from ``outcomes`` (None = built and ran) to the trial callback tune() passes."""
    from tvm.s_tir import meta_schedule as ms

    from experiments.gemm import ms_tune
    calls = []
    monkeypatch.setattr(ms_tune, "_trial_log_callback", lambda start, sink: sink)
    monkeypatch.setattr(ms_tune, "_local_builder", lambda *a: None)
    monkeypatch.setattr(ms.runner, "LocalRunner", lambda **k: None)
    monkeypatch.setattr(ms.database, "JSONDatabase", lambda **k: None)
    monkeypatch.setattr(ms.measure_callback.MeasureCallback, "create", staticmethod(lambda kind: []))
    monkeypatch.setattr(ms.relax_integration, "extracted_tasks_to_tune_contexts",
                        lambda tasks, work_dir, space, seed: (["ctx"], [1.0]))
    monkeypatch.setattr(tuning, "search_space", lambda task, target, vectorize: "post-order-apply")

    def tune_tasks(**kw):
        calls.append(kw["max_trials_global"])
        for category in outcomes.pop(0):
            kw["measure_callbacks"][-1].append({"elapsed_s": 0.0, "run_secs": None if category else [1e-3],
                                                "category": category})
    monkeypatch.setattr(ms, "tune_tasks", tune_tasks)
    return calls


def test_a_kernel_whose_trials_all_failed_gets_bounded_extra_rounds(monkeypatch, tmp_path):
    bad = ["build_failed"] * 4
    calls = _fake_meta_schedule(monkeypatch, [bad, bad, [None, "build_failed", None, None],
                                              [None] + ["build_failed"] * 7])
    said = []
    out = tuning.tune(_tasks("k1", "k2"), [{"task": "k1", "trials": 4}, {"task": "k2", "trials": 8}], "llvm",
                      tmp_path, threads=1, seed=0, per_iter=4, retry_rounds=3, progress=said.append)
    # k1: two rounds where nothing built, then a round with valid candidates; k2: one valid of 8 -> no retry
    assert out["per_task"]["k1"] == {"trials": 12, "seconds": out["per_task"]["k1"]["seconds"], "valid": 3,
                                     "retry_rounds": 2}
    assert calls == [4, 4, 4, 8] and out["per_task"]["k2"]["retry_rounds"] == 0 and out["trials"] == 20
    lines = [json.loads(line) for line in (tmp_path / tuning.TRIAL_LOG).read_text().splitlines()]
    assert sum(1 for t in lines if t["task"] == "k1") == 12
    assert any("another round (1/3)" in s for s in said)


def test_extra_rounds_stop_at_the_bound(monkeypatch, tmp_path):
    bad = ["build_failed"] * 4
    calls = _fake_meta_schedule(monkeypatch, [bad, bad, bad])
    said = []
    out = tuning.tune(_tasks("k"), [{"task": "k", "trials": 4}], "llvm", tmp_path, threads=1, seed=0, per_iter=4,
                      retry_rounds=2, progress=said.append)
    assert calls == [4, 4, 4] and out["per_task"]["k"]["valid"] == 0 and out["per_task"]["k"]["retry_rounds"] == 2
    assert out["trials"] == 12 and any("stays unscheduled" in s for s in said)
    with pytest.raises(ValueError, match="retry_rounds"):
        tuning.tune(_tasks("k"), [], "llvm", tmp_path, threads=1, seed=0, retry_rounds=-1)
