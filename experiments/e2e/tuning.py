"""Group D: MetaSchedule on a whole network, budget spent where the op profile says.

The steps, each a function so tests and the page can name them:

1. :func:`fuse` -- the CPU pipeline's front half (library dispatch, LegalizeOps,
   AnnotateTIROpPattern, FoldConstant, FuseOps, FuseTIR) inside ``with target``:
   the fused TIR kernels that variant C runs, and that tuning and applying must
   both see, so database keys match.
2. :func:`extract` -- ``meta_schedule.relax_integration.extract_tasks`` on the
   fused module: one task per distinct kernel, ``weight`` = calls per run.
3. :func:`allocate` -- trials per task in proportion to that kernel's share of
   variant C's measured time (the VM op profile), rounded up to whole rounds of
   ``per_iter``, never below ``min_trials``: tasks that take no time still get
   one round, because an untuned kernel is a single-threaded loop nest and
   becomes the bottleneck once the big ones are fast.
4. :func:`tune` -- one ``tune_tasks`` call per task, sharing one JSON database
   in ``work_dir``, with a per-trial log (``trials.jsonl``: task, seconds since
   start, run time, failure category).
5. :func:`compile_tuned` -- the same front half, then
   ``relax.transform.MetaScheduleApplyDatabase`` under the database and target,
   then the CPU pipeline's lowering and finalisation passes.  It reports which
   kernels the database scheduled and which stayed unscheduled (a kernel
   without a record is compiled as the plain loop nest; nothing fails
   silently).

MetaSchedule's ``compile_relax`` is not used: the pipeline is spelled out so the
record can say exactly which passes ran and count the kernels it scheduled.
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path
from typing import Any

TRIAL_LOG = "trials.jsonl"


def front_passes(target):
    """The fusion half of ``relax.backend.cpu_generic.get_default_pipeline``."""
    from tvm.relax.backend.cpu_generic import pipeline
    return pipeline.library_dispatch_passes(target) + pipeline.legalize_passes(target)


def back_passes(target):
    """The lowering half of the CPU default pipeline (after fusion)."""
    from tvm.relax.backend.cpu_generic import pipeline
    return pipeline.dataflow_lower_passes(target) + pipeline.finalize_passes(target)


def fuse(mod, target):
    """``mod`` after the CPU pipeline's dispatch + legalize + fold + fuse passes."""
    import tvm
    with target:
        return tvm.transform.Sequential(front_passes(target))(mod)


def extract(fused, target) -> list:
    """MetaSchedule tasks of a fused module (``ExtractedTask`` list, module order)."""
    from tvm.s_tir import meta_schedule as ms
    return list(ms.relax_integration.extract_tasks(fused, target))


def allocate(tasks, op_seconds: dict[str, float], budget: int, per_iter: int,
             min_trials: int) -> list[dict[str, Any]]:
    """Trials per task from the op profile; rows sorted by measured share, largest first.

    ``op_seconds`` maps kernel symbol -> seconds in one variant-C run (kernels
    missing from it count as 0 s).  The budget is cut into ``budget //
    per_iter`` rounds, shared out by the largest-remainder method in proportion
    to each kernel's share of the total; then every task is raised to at least
    ``min_trials`` (rounded up to whole rounds), which may exceed the budget on
    networks with many distinct kernels.  ``min_trials=0`` leaves kernels
    without a round untuned.  Each row: ``task``, ``weight`` (calls per run),
    ``seconds``, ``share`` of the total kernel time, ``trials``.
    """
    if per_iter < 1 or min_trials < 0 or budget < 0:
        raise ValueError(f"bad tuning budget: budget={budget}, per_iter={per_iter}, min_trials={min_trials}")
    total = sum(op_seconds.get(t.task_name, 0.0) for t in tasks) or 1.0
    rows = [{"task": t.task_name, "weight": int(t.weight), "seconds": float(op_seconds.get(t.task_name, 0.0))}
            for t in tasks]
    rounds = budget // per_iter
    for row in rows:
        row["share"] = row["seconds"] / total
        row["rounds"] = int(math.floor(rounds * row["share"]))
    left = rounds - sum(r["rounds"] for r in rows)
    for row in sorted(rows, key=lambda r: (-(rounds * r["share"] - r["rounds"]), r["task"]))[:max(left, 0)]:
        row["rounds"] += 1
    floor_rounds = int(math.ceil(min_trials / per_iter))
    for row in rows:
        row["trials"] = max(row.pop("rounds"), floor_rounds) * per_iter
    return sorted(rows, key=lambda r: (-r["share"], r["task"]))


def _log_callback(start: float, task_name: str, sink):
    """A MeasureCallback appending one JSON line per measured trial to ``sink``."""
    from tvm.ir.utils import derived_object
    from tvm.s_tir.meta_schedule.measure_callback import PyMeasureCallback

    from experiments.gemm.tvm_ladder import classify_failure

    @derived_object
    class TrialLog(PyMeasureCallback):
        def apply(self, task_scheduler, task_id, candidates, builder_results, runner_results):
            now = time.perf_counter() - start
            for built, ran in zip(builder_results, runner_results):
                secs = [float(x) for x in ran.run_secs] if ran.run_secs else None
                sink.write(json.dumps({"task": task_name, "elapsed_s": round(now, 3), "run_secs": secs,
                                       "category": classify_failure(built.error_msg, ran.error_msg)}) + "\n")
            sink.flush()

    return TrialLog()


def tune(tasks, allocation: list[dict[str, Any]], target, work_dir, *, threads: int, seed: int,
         workers: int = 1, cost_model: str = "xgb", build_timeout_s: float = 120.0,
         run_timeout_s: float = 60.0, per_iter: int = 8, progress=print) -> dict[str, Any]:
    """Tune every task for its allocated trials into ``work_dir``'s JSON database.

    Returns ``{"seconds", "trials", "per_task": {task: {"trials", "seconds"}}}``.
    """
    from tvm.s_tir import meta_schedule as ms

    from experiments.gemm.tvm_ladder import _environment, _local_builder

    work_dir = Path(work_dir)
    work_dir.mkdir(parents=True, exist_ok=True)
    database = ms.database.JSONDatabase(work_dir=str(work_dir))
    by_name = {t.task_name: t for t in tasks}
    start = time.perf_counter()
    per_task = {}
    with open(work_dir / TRIAL_LOG, "a", encoding="utf-8") as sink, \
            _environment(TVM_NUM_THREADS=str(threads)):
        for index, row in enumerate(allocation, 1):
            task = by_name[row["task"]]
            if row["trials"] < 1:
                continue
            contexts, weights = ms.relax_integration.extracted_tasks_to_tune_contexts(
                [task], str(work_dir / "logs"), seed=seed + index)
            if not contexts:   # already scheduled: nothing to tune
                continue
            t0 = time.perf_counter()
            ms.tune_tasks(
                tasks=contexts, task_weights=weights, work_dir=str(work_dir / "logs"),
                max_trials_global=row["trials"], num_trials_per_iter=min(per_iter, row["trials"]),
                builder=_local_builder(workers, build_timeout_s),
                runner=ms.runner.LocalRunner(timeout_sec=run_timeout_s),
                database=database, cost_model=cost_model,
                measure_callbacks=[*ms.measure_callback.MeasureCallback.create("default"),
                                   _log_callback(start, row["task"], sink)])
            per_task[row["task"]] = {"trials": row["trials"], "seconds": round(time.perf_counter() - t0, 3)}
            progress(f"tuned {row['task']} ({index}/{len(allocation)}, {row['trials']} trials, "
                     f"{per_task[row['task']]['seconds']:.0f} s)")
    return {"seconds": time.perf_counter() - start,
            "trials": sum(r["trials"] for r in allocation if r["task"] in per_task),
            "per_task": per_task}


def read_trials(work_dir) -> list[dict[str, Any]]:
    """The per-trial log written by :func:`tune` (empty when absent)."""
    path = Path(work_dir) / TRIAL_LOG
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def trial_summary(trials: list[dict[str, Any]]) -> dict[str, Any]:
    """Counts of measured, valid and failed trials (by category) from the trial log."""
    failures: dict[str, int] = {}
    for trial in trials:
        if trial["category"]:
            failures[trial["category"]] = failures.get(trial["category"], 0) + 1
    return {"measured": len(trials), "valid": len(trials) - sum(failures.values()), "failures": failures}


def compile_tuned(mod, target, work_dir):
    """Compile with the database applied; returns ``(executable, coverage)``.

    ``coverage``: ``scheduled`` / ``unscheduled`` kernel names after
    MetaScheduleApplyDatabase (a kernel counts as scheduled when the pass gave
    it the ``tirx.is_scheduled`` attribute).
    """
    import tvm
    from tvm import relax
    from tvm.s_tir import meta_schedule as ms

    database = ms.database.JSONDatabase(work_dir=str(work_dir))
    seen: dict[str, list[str]] = {}

    @tvm.transform.module_pass(opt_level=0)
    def pipeline(module, _ctx):
        with target:
            module = tvm.transform.Sequential(front_passes(target))(module)
            with database:
                module = relax.transform.MetaScheduleApplyDatabase()(module)
            seen.update(scheduled_kernels(module))
            return tvm.transform.Sequential(back_passes(target))(module)

    executable = tvm.compile(mod, target, relax_pipeline=pipeline)
    return executable, seen


def scheduled_kernels(module) -> dict[str, list[str]]:
    """TIR functions of ``module`` split by the ``tirx.is_scheduled`` attribute."""
    import tvm
    out = {"scheduled": [], "unscheduled": []}
    for gvar, func in module.functions.items():
        if isinstance(func, tvm.tirx.PrimFunc):
            attrs = func.attrs or {}
            done = bool(attrs.get("tirx.is_scheduled", False)) if hasattr(attrs, "get") else False
            out["scheduled" if done else "unscheduled"].append(gvar.name_hint)
    return {k: sorted(v) for k, v in out.items()}
