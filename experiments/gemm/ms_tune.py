"""MetaSchedule tuning of the GEMM ladder's kernels (split from :mod:`experiments.gemm.tvm_ladder`,
which builds, inspects, checks and times the stages): ``tune`` -> ``TuneResult``, the trial log
MetaSchedule's JSON database does not keep, failure classes, the local builder and cost model.

Like the ladder, a library: it records nothing and runs no benchmark by itself.

TVM 0.27 traps handled here: MetaSchedule needs ``cloudpickle`` (not a dependency of apache-tvm)
for its worker pools; its JSON database keeps no failed trials and no timestamps (hence
``ladder_trials.jsonl``); its default build function re-imports ``tvm.s_tir.tensor_intrin`` (~30 s)
in fresh workers every batch (hence ``_local_builder``); ``TuneContext`` pays that import once per
process.
"""
from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import re
import time
from collections import Counter
from pathlib import Path
from typing import Any

import tvm
import tvm_ffi
from tvm import s_tir

from experiments.gemm.check import error_report
from experiments.gemm.tvm_ladder import (MICROKERNEL_POPULATION, _assembly, gemm_prim_func,
                                         microkernel_space, random_operands, run_gemm, with_num_cores)
from study import searchlog

# --------------------------------------------------------------------------- MetaSchedule tuning


@dataclasses.dataclass
class TuneResult:
    """Result of :func:`tune`. ``func(a, b, c)`` runs the best schedule found.

    ``mod``/``rt_mod``/``func``/``best_*`` are None when no trial succeeded.
    """

    shape: tuple[int, int, int]
    dtype: str
    target: str
    work_dir: str
    reused: bool  # True: the database already had records, no tuning ran
    trials_done: int  # trials measured by this call (0 when reused)
    total_records: int  # valid records of this workload+target in the database
    wall_seconds: float  # whole call, including the final compile and checks
    tuning_seconds: float  # inside tune_tir only
    curve: list[dict[str, Any]]  # per trial: trial, elapsed_s, run_secs, best_so_far_s
    failures: dict[str, int | None]  # build_failed, run_failed, timeout, numeric_check_failed
    cost_model: str
    notes: list[str]
    best_run_secs: float | None = None
    best_trace: str | None = None
    best_check: dict[str, Any] | None = None
    mod: tvm.IRModule | None = None
    rt_mod: Any = None
    func: Any = None
    asm: str = ""
    executable: Any = None  # tvm.runtime.Executable of the best record (uploadable through RPC)
    runner: str = "LocalRunner"  # what measured the candidates: LocalRunner or RPCRunner


def classify_failure(build_error: str | None, run_error: str | None) -> str | None:
    """Failure category of one trial: build_failed, timeout, run_failed, or None if it ran.

    Matches MetaSchedule's messages "LocalBuilder: Timeout, killed after ..." and
    "LocalRunner: Timeout, killed after ...".
    """
    if build_error:
        return "timeout" if "Timeout" in build_error else "build_failed"
    if run_error:
        return "timeout" if "Timeout" in run_error else "run_failed"
    return None


def error_summary(message: str | None, limit: int = 300) -> str | None:
    """The line of a MetaSchedule build/run error that says what went wrong (not the traceback).

    TVM's errors end with ``<Kind>Error: <what>`` after the stack frames; that line, cut to
    ``limit`` characters, is what a reader needs to group failures.  None for no error.
    """
    if not message:
        return None
    lines = [line.strip() for line in message.splitlines() if line.strip()]
    said = [line for line in lines if re.match(r"^[A-Za-z_.]*(Error|Exception|Timeout)\b", line)
            or "Error:" in line or "Timeout" in line]
    return (said[-1] if said else lines[-1])[:limit]


def _trial_log_callback(start: float, sink: list[dict[str, Any]]):
    """A MeasureCallback appending one dict per measured trial to ``sink``."""
    from tvm.ir.utils import derived_object
    from tvm.s_tir.meta_schedule.measure_callback import PyMeasureCallback

    @derived_object
    class TrialLog(PyMeasureCallback):
        def apply(self, task_scheduler, task_id, candidates, builder_results, runner_results):
            now = time.perf_counter() - start  # callbacks fire once per measured batch
            for built, ran in zip(builder_results, runner_results):
                secs = [float(x) for x in ran.run_secs] if ran.run_secs else None
                category = classify_failure(built.error_msg, ran.error_msg)
                trial = {"elapsed_s": now, "run_secs": secs, "category": category}
                if category:
                    trial["error"] = error_summary(built.error_msg or ran.error_msg)
                sink.append(trial)

    return TrialLog()


def _local_builder(workers: int, timeout_s: float):
    """LocalBuilder whose workers skip ``import tvm.s_tir.tensor_intrin``.

    MetaSchedule's default build function imports that package, which takes ~30 s in
    0.27 (hundreds of TVMScript parses, each calling ``inspect.stack()``), and the
    builder starts fresh worker processes for every batch, so each batch paid it again.
    Candidates arrive fully scheduled, so the build needs no registered intrinsics.
    The function is a closure so that cloudpickle ships it by value to the workers.
    """
    from tvm.s_tir.meta_schedule.builder import LocalBuilder

    def build_without_tensor_intrin(mod, target, _params):
        import tvm as tvm_worker
        from tvm.s_tir.transform import RemoveWeightLayoutRewriteBlock

        mod = RemoveWeightLayoutRewriteBlock(skip_tensor_rewrite=True)(mod)
        return tvm_worker.tirx.build(mod, target=target)

    return LocalBuilder(max_workers=workers, timeout_sec=timeout_s, f_build=build_without_tensor_intrin)


def _cost_model(requested: str, notes: list[str]) -> str:
    if requested != "xgb":
        return requested
    try:
        import xgboost  # noqa: F401
    except ImportError as err:
        notes.append(f"xgb cost model unavailable ({err}); used 'random'")
        return "random"
    return "xgb"


@contextlib.contextmanager
def _environment(**values: str):
    """Temporarily set environment variables (inherited by MetaSchedule's worker processes)."""
    saved = {key: os.environ.get(key) for key in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def tuning_workload(m: int, n: int, k: int, dtype: str = "float32") -> tvm.IRModule:
    """The GEMM normalised exactly as MetaSchedule stores workloads."""
    from tvm.s_tir.meta_schedule.tune_context import _normalize_mod

    return _normalize_mod(gemm_prim_func(m, n, k, dtype))


def _mean(run_secs) -> float | None:
    """Mean run time, or None for a missing or failed (1e9 s) measurement (study.searchlog.mean_secs)."""
    return searchlog.mean_secs([float(x) for x in run_secs] if run_secs else None)


def _records_for(database, workload, target) -> list:
    """Valid records (best first) of ``workload`` measured on ``target``."""
    if not database.has_workload(workload):
        return []
    records = database.get_top_k(database.commit_workload(workload), 10**9)
    return [r for r in records if str(r.target) == str(target) and _mean(r.run_secs) is not None]


def _run_tune_tir(workload, target, database, settings: dict[str, Any], runner=None):
    """Run MetaSchedule once; returns (per-trial log, seconds spent).

    ``runner`` measures the candidates (e.g. ``ms.runner.RPCRunner`` for a device behind a
    tracker); default a LocalRunner on this machine.  Candidates are always built here.
    """
    from tvm.s_tir import meta_schedule as ms

    trials: list[dict[str, Any]] = []
    start = time.perf_counter()
    workers = settings["tuning_workers"]
    if runner is None:
        runner = ms.runner.LocalRunner(
            timeout_sec=settings["run_timeout_s"],
            evaluator_config=settings["evaluator"] or ms.runner.EvaluatorConfig(),
        )
    with _environment(TVM_NUM_THREADS=str(settings["num_threads"])):
        ms.tune_tir(
            workload,
            target,
            settings["work_dir"],
            max_trials_global=settings["max_trials"],
            num_trials_per_iter=settings["trials_per_iter"],
            builder=_local_builder(workers, settings["build_timeout_s"]),
            runner=runner,
            database=database,
            cost_model=settings["cost_model"],
            measure_callbacks=[
                *ms.measure_callback.MeasureCallback.create("default"),
                _trial_log_callback(start, trials),
            ],
            num_tuning_cores=workers,
            seed=settings["seed"],
            space=settings.get("space_generator", "post-order-apply"),
            strategy=settings.get("strategy", "evolutionary"),
        )
    return trials, time.perf_counter() - start


def tuning_curve(trials: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Best-so-far curve from a per-trial log (order = measurement order; study.searchlog.curve, which
    the report rebuilds from the saved trial log to check the record's curve)."""
    return searchlog.curve(trials)


def _workload_key(workload) -> str:
    """The workload's structural hash as an unsigned decimal string."""
    return str(int(tvm_ffi.structural_hash(workload)) % 2**64)


def _workload_hashes(workload) -> set[str]:
    """The workload's structural hash as MetaSchedule may print it (signed or unsigned)."""
    unsigned = int(_workload_key(workload))
    return {str(unsigned), str(unsigned - 2**64 if unsigned >= 2**63 else unsigned)}


def trials_from_database_file(work_dir, workload, target) -> list[dict[str, Any]]:
    """Per-trial log recovered from the JSON database files in commit order.

    The files keep order and run_secs but no timestamps, and 0.27 commits no record for
    a failed trial, so ``elapsed_s`` is None and failures are invisible here (a record
    with the 1e9 s failure value, if any, is counted as "failed (category not stored)").
    """
    work_dir = Path(work_dir)
    hashes = _workload_hashes(workload)
    with open(work_dir / "database_workload.json") as handle:
        indices = {i for i, line in enumerate(handle) if str(json.loads(line)[0]) in hashes}
    wanted = json.loads(str(target))
    trials = []
    with open(work_dir / "database_tuning_record.json") as handle:
        for line in handle:
            index, record = json.loads(line)  # record = [trace, run_secs, target, args_info]
            if index not in indices or (len(record) > 2 and record[2] != wanted):
                continue
            secs = [float(x) for x in record[1]] if record[1] else None
            category = None if _mean(secs) is not None else "failed (category not stored)"
            trials.append({"elapsed_s": None, "run_secs": secs, "category": category})
    return trials


TRIAL_LOG_NAME = searchlog.LADDER_LOG


def save_trial_log(work_dir, workload, target, trials: list[dict[str, Any]]) -> None:
    """Append this call's per-trial log to ``work_dir/ladder_trials.jsonl``.

    MetaSchedule's JSON database keeps only successful trials and no timestamps, so
    this file is what lets a reused database still report the curve's elapsed times and
    the failure categories.
    """
    key = {"workload": _workload_key(workload), "target": str(target)}
    with open(Path(work_dir) / TRIAL_LOG_NAME, "a") as handle:
        for trial in trials:
            handle.write(json.dumps({**key, **trial}) + "\n")


def load_trial_log(work_dir, workload, target) -> list[dict[str, Any]]:
    """Trials saved by :func:`save_trial_log` for this workload and target ([] if none)."""
    path = Path(work_dir) / TRIAL_LOG_NAME
    if not path.exists():
        return []
    key = {"workload": _workload_key(workload), "target": str(target)}
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    fields = ("elapsed_s", "run_secs", "category")
    return [{f: row[f] for f in fields} for row in rows
            if all(row.get(name) == value for name, value in key.items())]


def _reused_history(work_dir, workload, target, notes: list[str]):
    """(trials, failure categories known, cost model, tuning seconds) of a reused database."""
    notes.append("reused existing database records; no tuning ran")
    trials = load_trial_log(work_dir, workload, target)
    if trials:
        return trials, True, "none (reused database)", 0.0
    notes.append(f"no {TRIAL_LOG_NAME}: curve from database order, no times, failures unknown")
    trials = trials_from_database_file(work_dir, workload, target)
    return trials, False, "none (reused database)", 0.0


def _runner_name(runner) -> str:
    return "LocalRunner" if runner is None else ("RPCRunner" if hasattr(runner, "rpc_config")
                                                 else type(runner).__name__)


def _tuned_history(workload, target, database, settings: dict[str, Any], notes: list[str], runner=None):
    """Tune now; (trials, failure categories known, cost model, tuning seconds)."""
    settings = {**settings, "cost_model": _cost_model(settings["cost_model"], notes)}
    trials, tuning_seconds = _run_tune_tir(workload, target, database, settings, runner=runner)
    for trial in trials:  # saved with the log: which runner measured each trial
        trial["runner"] = _runner_name(runner)
    save_trial_log(settings["work_dir"], workload, target, trials)
    return trials, True, settings["cost_model"], tuning_seconds


def _failure_counts(trials: list[dict[str, Any]], known: bool = True) -> dict[str, int | None]:
    """Failures by category; build/run/timeout are None when the history cannot tell."""
    counts = Counter(t["category"] for t in trials if t["category"])
    if not known:
        return {"build_failed": None, "run_failed": None, "timeout": None, "numeric_check_failed": 0}
    return {"build_failed": 0, "run_failed": 0, "timeout": 0, "numeric_check_failed": 0, **counts}


def _build_record(workload, record, target):
    """Apply a record's trace to the workload and compile it: (Schedule, runtime module)."""
    sch, executable = _compile_record(workload, record, target)
    return sch, executable.jit()


def _compile_record(workload, record, target):
    """Apply a record's trace to the workload and compile it: (Schedule, Executable)."""
    sch = s_tir.Schedule(workload)
    record.trace.apply_to_schedule(sch, remove_postproc=False)
    return sch, tvm.compile(sch.mod, target)


def _count_numeric_failures(workload, records, target, operands) -> int:
    """Rebuild each record and count those failing :func:`error_report`."""
    a, b = operands
    failures = 0
    for record in records:
        _, rt_mod = _build_record(workload, record, target)
        failures += not error_report(run_gemm(rt_mod["main"], a, b), a, b)["passed"]
    return failures


def _best_remote(workload, records, target) -> dict[str, Any]:
    """Compile the best record without running it here: it runs on the device (RPC)."""
    best = records[0]
    sch, executable = _compile_record(workload, best, target)
    asm = executable.mod.inspect_source("asm") if target.kind.name == "llvm" else ""
    return {"best_run_secs": _mean(best.run_secs), "best_trace": str(best.trace), "best_check": None,
            "mod": sch.mod, "executable": executable, "asm": asm}


def _best_of(workload, records, target, operands, verify: str) -> tuple[dict[str, Any], int]:
    """Compile and check the best record. Returns (TuneResult fields, numeric failures)."""
    best = records[0]
    sch, executable = _compile_record(workload, best, target)
    rt_mod = executable.jit()
    a, b = operands
    best_check = error_report(run_gemm(rt_mod["main"], a, b), a, b)
    if verify == "all":
        numeric_failures = _count_numeric_failures(workload, records, target, operands)
    else:
        numeric_failures = int(verify == "best" and not best_check["passed"])
    fields = {
        "best_run_secs": _mean(best.run_secs),
        "best_trace": str(best.trace),
        "best_check": best_check,
        "mod": sch.mod,
        "rt_mod": rt_mod,
        "func": rt_mod["main"],
        "asm": _assembly(rt_mod, target),
        "executable": executable,
    }
    return fields, numeric_failures


def tune(
    m: int,
    n: int,
    k: int,
    target: tvm.target.Target,
    work_dir,
    max_trials: int,
    num_threads: int,
    seed: int,
    *,
    reuse: bool = True,
    dtype: str = "float32",
    trials_per_iter: int | None = None,
    cost_model: str = "xgb",
    tuning_workers: int = 1,
    build_timeout_s: float = 120.0,
    run_timeout_s: float = 60.0,
    evaluator=None,
    verify: str = "best",
    runner=None,
    space: str = "default",
    start: dict[str, int] | None = None,
) -> TuneResult:
    """MetaSchedule-tune the GEMM (``tune_tir``) with a JSON database in ``work_dir``.

    * ``reuse=True``: if the database already holds valid records of this workload for
      this target (``num-cores`` included), no tuning runs and the best record is used;
      ``reuse=False`` always tunes ``max_trials`` more trials (appending to the database).
    * ``num_threads`` becomes the target's ``num-cores`` and the measuring workers'
      ``TVM_NUM_THREADS``; threads of *this* process are set with :func:`configure_threads`.
    * ``trials_per_iter`` defaults to ``min(max_trials, 8)`` (MetaSchedule's 64 is too large
      for small budgets); the build timeout defaults to 120 s (MetaSchedule: 30 s);
      ``tuning_workers`` is the number of build/run worker processes (default 1: shared box);
      ``evaluator`` is a ``meta_schedule.runner.EvaluatorConfig`` (default: MetaSchedule's).
    * ``verify``: "best" counts a numeric failure if the best record fails :func:`error_report`;
      "all" rebuilds and checks every valid record; "none" skips the count.  The best record
      is always checked into ``best_check``.
    * ``curve``: one point per trial in measurement order; ``elapsed_s`` is seconds since the
      tuning call started when the trial's batch finished.  Each call appends its trials to
      ``work_dir/ladder_trials.jsonl``; a reused result reads its curve and failure counts
      from there (all earlier calls, each with its own time origin).
    * ``runner``: a MetaSchedule runner measuring the candidates elsewhere, e.g.
      ``ms.runner.RPCRunner`` for a device behind a tracker (candidates are still built
      here, for ``target``).  The best record is then compiled but not run here: ``func``
      and ``rt_mod`` are None, ``executable`` is uploaded by the caller, ``best_check`` is
      None and ``numeric_check_failed`` stays 0 (the caller checks on the device).
    * ``space``: "default" is MetaSchedule's own space (post-order-apply with the target's
      schedule rules); "microkernel" is :func:`microkernel_space` (the micro-kernel stage with
      sampled MR, NR, KC, k unroll), its first decisions from ``start`` (the micro-kernel grid's
      choice).  The workload is the same GEMM either way, so give each space its own
      ``work_dir`` (the database would otherwise mix their records).
    """
    from tvm.s_tir import meta_schedule as ms

    call_start = time.perf_counter()
    notes: list[str] = []
    target = with_num_cores(target, num_threads)
    workload = tuning_workload(m, n, k, dtype)
    Path(work_dir).mkdir(parents=True, exist_ok=True)
    database = ms.database.JSONDatabase(work_dir=str(work_dir))
    settings = {
        "work_dir": str(work_dir), "max_trials": max_trials, "num_threads": num_threads,
        "seed": seed, "trials_per_iter": trials_per_iter or min(max_trials, 8),
        "tuning_workers": tuning_workers, "build_timeout_s": build_timeout_s,
        "run_timeout_s": run_timeout_s, "evaluator": evaluator, "cost_model": cost_model,
    }
    if space == "microkernel":
        settings["space_generator"] = ms.space_generator.ScheduleFn(microkernel_space(target, m, n, k, start=start))
        # A handful of tile decisions: MetaSchedule's 512-candidate population replayed
        # (rfactor, layout transform) every round cost minutes per batch for nothing.
        settings["strategy"] = ms.search_strategy.EvolutionarySearch(population_size=MICROKERNEL_POPULATION)
        notes.append("search space: micro-kernel schedule with sampled MR, NR, KC, k unroll; "
                     f"evolutionary search population {MICROKERNEL_POPULATION}; first decisions from "
                     + (json.dumps(start, sort_keys=True) if start else "the stage's default tiles"))
    elif space != "default":
        raise ValueError(f"unknown tuning space {space!r}; expected 'default' or 'microkernel'")
    reused = reuse and bool(_records_for(database, workload, target))
    if reused:
        history = _reused_history(work_dir, workload, target, notes)
    else:
        history = _tuned_history(workload, target, database, settings, notes, runner=runner)
    trials, failures_known, model, tuning_seconds = history
    records = _records_for(database, workload, target)
    failures = _failure_counts(trials, failures_known)
    best_fields: dict[str, Any] = {}
    if records and runner is not None:
        best_fields = _best_remote(workload, records, target)
        notes.append(f"candidates measured by {_runner_name(runner)}; best record checked by the caller")
    elif records:
        operands = random_operands(m, n, k, seed, dtype)
        best_fields, failures["numeric_check_failed"] = _best_of(
            workload, records, target, operands, verify
        )
    else:
        notes.append("no valid tuning record: every trial failed")
    return TuneResult(
        shape=(m, n, k),
        dtype=dtype,
        target=str(target),
        work_dir=str(work_dir),
        reused=reused,
        trials_done=0 if reused else len(trials),
        total_records=len(records),
        wall_seconds=time.perf_counter() - call_start,
        tuning_seconds=tuning_seconds,
        curve=tuning_curve(trials),
        failures=failures,
        cost_model=model,
        notes=notes,
        runner=_runner_name(runner),
        **best_fields,
    )
