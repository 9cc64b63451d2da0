"""Group D, tuning half: MetaSchedule on whole networks, guided by the op profile.

For each model and batch: export ONNX, import into Relax, compile variant C
(the graph-level pipeline), profile one run per kernel, spend the trial budget
in proportion to each kernel's share of that time, tune into a JSON database
kept as this run's artifact, compile with MetaScheduleApplyDatabase and check
the tuned network's logits against variant C's on the same inputs.

The record is evidence (no timing samples): what was tuned, how long tuning
took, which kernels the database scheduled.  The ``e2e`` family times the
tuned network (engine ``tvm_d``) from this database, on a quiet machine, so a
tuning job can run while other work goes on without touching any published
latency.
"""
import time
from pathlib import Path

import numpy as np

from experiments import harness, targets
from study import cases, leftovers
from study.family import Family

FAMILY = Family(name="e2e_tune", timeout_s={"quick": 1800, "standard": 14400, "full": 43200},
                params=("campaign", "cost_model", "input_size", "jobs", "keep_records", "min_trials",
                        "n_check", "per_iter", "seed", "tolerance", "workers"),
                # the jobs (which networks, their budgets) and the search's own knobs; the images checked
                claims_of={"jobs": ["budget"], "min_trials": ["min_trials"], "per_iter": ["per_iter"], "keep_records": [], "workers": [],
                           "n_check": ["inputs", "agreement", "check"]})


def case_id(model, batch, threads, size, variant="default"):
    """Record id of one tuning job (the e2e family looks tuning up by it); the input size and the
    search-space variant are part of it (another size is another workload, another variant another
    search space)."""
    return cases.case_id("e2e_tune", model=model, size=size, variant=variant, batch=batch, threads=threads)


def _op_seconds(runner, x):
    """Kernel symbol -> seconds of one profiled variant-C run (after a warm run)."""
    from experiments.e2e import engines
    runner(x)
    return {op["op"]: float(op["seconds"]) for op in engines.tvm_op_profile(runner.handle, [x])
            if op["kind"] == "kernel"}


def tune_model(h, name, batch, budget, p, threads, variant="default"):
    """Tune one (model, batch, variant) for ``budget`` more trials and emit its evidence record.

    With ``p["campaign"]`` the database continues the campaign of the same workload, variant,
    target and TVM version (results/campaigns/), and the record gives the cumulative trials;
    without it each run tunes from scratch and an unchanged case is reused.
    """
    import tvm

    from experiments.e2e import tuning
    size = p["input_size"]
    case = {"model": name, "batch": batch, "threads": threads, "input_size": size, "seed": p["seed"],
            "budget": budget, "per_iter": p["per_iter"], "min_trials": p["min_trials"], "variant": variant,
            "cost_model": p["cost_model"], "allocation": "op-profile share of variant C"}
    cid = case_id(name, batch, threads, size, variant)
    target = targets.host_target(threads)
    campaign = None
    if p.get("campaign"):
        campaign = tuning.Campaign(h.results_root, {"model": name, "batch": batch, "input_size": size, "seed": p["seed"],
                                                    "variant": variant, "target": str(target),
                                                    "tvm_version": tvm.__version__})
    h.evidence(cid, case, lambda: _tune(h, cid, name, batch, budget, p, threads, variant, target, campaign),
               mismatch="tuned network disagrees with the untuned one", reuse=campaign is None)


def _tune(h, cid, name, batch, budget, p, threads, variant, target, campaign):
    """Tune, compile with the database, check against variant C: (check, extra) of the record."""
    from experiments.e2e import engines, models, tuning
    size = p["input_size"]
    model = models.build(name, seed=p["seed"], input_size=size)
    inputs = models.sample_inputs(max(p["n_check"], batch), seed=p["seed"], input_size=size)
    batches = [inputs[i:i + batch] for i in range(0, len(inputs) - batch + 1, batch)]
    work_dir, work_ref = h.artifact(f"tune-{name}-b{batch}-t{threads}-{variant}")
    continued = campaign.seed(work_dir) if campaign else False
    if campaign:
        h.note(cid, campaign=campaign.key, continued=bool(continued), trials=int(campaign.trials if continued else 0))
    with leftovers.temporary() as tmp:
        onnx_path = models.export_onnx(model, Path(tmp) / f"{name}.onnx", batch=batch)
        mod = engines.tvm_import_onnx(onnx_path, (batch, size, size, 3))
    untuned = engines.prepare_tvm(engines.tvm_compile(mod, target, "C"), threads, "C")
    op_seconds = _op_seconds(untuned, batches[0])
    tuned_run = tuning.tune_module(mod, target, work_dir, op_seconds, budget=budget, per_iter=p["per_iter"],
                                   min_trials=p["min_trials"], threads=threads, seed=p["seed"] + (campaign.trials if campaign else 0),
                                   workers=p["workers"], cost_model=p["cost_model"], progress=h.say,
                                   variant=variant,
                                   step=lambda done, total: h.progress(done, total, "trials", what=f"{name}/{variant}"))
    t0 = time.perf_counter()
    executable, coverage = tuning.compile_tuned(mod, target, work_dir, variant)
    compile_seconds = time.perf_counter() - t0
    tuned = engines.prepare_tvm(executable, threads, "D")
    reference = np.concatenate([untuned(b) for b in batches])
    logits = np.concatenate([tuned(b) for b in batches])
    agree = engines.agreement(logits, reference)
    passed = agree["max_rel_err"] <= p["tolerance"] and agree["top1_agree"] == 1.0
    summary = {"seconds": round(tuned_run["seconds"], 3), "trials_allocated": tuned_run["trials_allocated"],
               **tuned_run["trials"]}
    estimate = tuning.estimated_seconds(tuned_run["allocation"])
    extra_campaign = None
    if campaign is not None and passed:
        state = campaign.commit(work_dir, run_id=h.run_id, trials=summary["measured"], seconds=summary["seconds"],
                                estimate_s=estimate, keep=p.get("keep_records", 4))
        extra_campaign = {"key": campaign.key, "parts": campaign.parts, "cumulative_trials": state["cumulative_trials"],
                          "continued": continued, "steps": state["steps"]}
        h.note(cid, campaign=campaign.key, cumulative_trials=int(state["cumulative_trials"]))
    h.note(cid, tune_s=float(summary["seconds"]), scheduled=len(coverage["scheduled"]),
           unscheduled=len(coverage["unscheduled"]), rel_err=float(agree["max_rel_err"]))   # rel_err: against variant C
    check = {"reference": "variant C (untuned) logits on the same inputs", "max_abs_err": agree["max_abs_err"],
             "max_rel_err": agree["max_rel_err"], "threshold": p["tolerance"], "passed": bool(passed)}
    return check, {"target": str(target), "tuner": "MetaSchedule (tune_tasks per task, JSON database)",
                   "variant": variant, "tasks": len(tuned_run["tasks"]), "allocation": tuned_run["allocation"],
                   "tuning": summary, "estimated_kernel_s": estimate, "campaign": extra_campaign,
                   "per_task_seconds": tuned_run["per_task"], "coverage": coverage,
                   "compile_seconds": compile_seconds, "agreement": agree,
                   "untuned_kernel_seconds": sum(op_seconds.values()),
                   "artifacts": {"database": work_ref, "trials": f"{work_ref}/{tuning.TRIAL_LOG}",
                                 "allocation": f"{work_ref}/allocation.json"}}


def run(h):
    from experiments.e2e import engines
    threads = targets.threads(h.params)
    engines.configure_tf_threads(threads)
    for job in h.params["jobs"]:   # {model, batch, budget}: the biggest budget where the goal is
        tune_model(h, job["model"], int(job["batch"]), int(job["budget"]), h.params, threads,
                   job.get("variant", "default"))


if __name__ == "__main__":
    harness.main(run)
