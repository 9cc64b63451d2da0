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
4. :func:`tune` (:func:`tune_module` runs steps 1-4) -- one ``tune_tasks`` call per task, sharing one JSON database
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

Search-space variants (``VARIANTS``): ``default`` tunes the fused kernels as they are;
``prepack`` marks weights as layout-free buffers (``AttachAttrLayoutFreeBuffers``) so
MetaSchedule's layout-rewrite postprocessor may choose a packed weight layout, and after the
database is applied splits the relayout out (``SplitLayoutRewritePreproc``), lifts it
(``LiftTransformParams``) and folds it into the constants (``FoldConstant``): the weights are
re-laid once at compile time, outside the timed call, and ``vm["main"](x)`` is called as before.

Campaigns (:class:`Campaign`): a tuning database kept under ``results/campaigns/<key>/``,
keyed by workload, variant, target and TVM version, that each retest continues with a further
budget (MetaSchedule warm-starts its search from the records already there) instead of
starting over; it is pruned to the best records per workload and replaced atomically.
"""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import time
from pathlib import Path
from typing import Any

from study import citation, leftovers, searchlog

TRIAL_LOG = searchlog.TRIAL_LOG
RETRY_ROUNDS = 3   # extra rounds for a kernel none of whose trials built and ran (one rule for every variant)


def front_passes(target):
    """The fusion half of ``relax.backend.cpu_generic.get_default_pipeline``."""
    from tvm.relax.backend.cpu_generic import pipeline
    return pipeline.library_dispatch_passes(target) + pipeline.legalize_passes(target)


def back_passes(target):
    """The lowering half of the CPU default pipeline (after fusion)."""
    from tvm.relax.backend.cpu_generic import pipeline
    return pipeline.dataflow_lower_passes(target) + pipeline.finalize_passes(target)


VARIANTS = ("default", "prepack")


def _check_variant(variant):
    if variant not in VARIANTS:
        raise ValueError(f"unknown tuning variant {variant!r}; known: {', '.join(VARIANTS)}")


def layout_passes(variant):
    """(before tuning, after applying the database) passes of a search-space variant."""
    from tvm import relax
    _check_variant(variant)
    if variant == "prepack":
        return ([relax.transform.AttachAttrLayoutFreeBuffers()],
                [relax.transform.SplitLayoutRewritePreproc(), relax.transform.LiftTransformParams(),
                 relax.transform.FoldConstant()])
    return [], []


def fuse(mod, target, variant="default"):
    """``mod`` after the CPU pipeline's dispatch + legalize + fold + fuse passes (and, for the
    prepack variant, with its weights marked as layout-free buffers)."""
    import tvm
    before, _after = layout_passes(variant)
    with target:
        return tvm.transform.Sequential(front_passes(target) + before)(mod)


def extract(fused, target) -> list:
    """MetaSchedule tasks of a fused module (``ExtractedTask`` list, module order)."""
    from tvm.s_tir import meta_schedule as ms
    return list(ms.relax_integration.extract_tasks(fused, target))


def search_space(task, target, vectorize: bool = True):
    """The search space of one task: MetaSchedule's default for the target, or, with
    ``vectorize=False``, the same rules and postprocessors with ParallelizeVectorizeUnroll sampling
    no vectorize annotation (its parallel and unroll choices kept, its other settings copied).

    On the VNNI integer kernels (a tensorized conv fused with its requantization) the vectorize
    annotation around the tensorized block makes candidates fail to build ("Cannot broadcast
    lanes=16 to 64", "VectorizeLoop before LiftStorageAlloc"): 63 of 117 ResNet-18 INT8 trials in
    run 20261201T181204Z. A probe on Zen 4 (one 28x28x64 3x3 conv + requantize, 16 trials each,
    random cost model) built 9 of 16 candidates with the default space and 16 of 16 without the
    annotation, the outputs equal to the unscheduled build's."""
    if vectorize:
        return "post-order-apply"
    from tvm.s_tir import meta_schedule as ms
    default = ms.TuneContext(mod=task.dispatched[0], target=target, space_generator="post-order-apply",
                             task_name=task.task_name).space_generator
    rules = []
    for rule in default.sch_rules:
        if type(rule).__name__ == "ParallelizeVectorizeUnroll":
            rule = ms.schedule_rule.ParallelizeVectorizeUnroll(
                max_jobs_per_core=int(rule.max_jobs_per_core), max_vectorize_extent=-1,
                unroll_max_steps=[int(n) for n in rule.unroll_max_steps], unroll_explicit=bool(rule.unroll_explicit))
        rules.append(rule)
    return ms.space_generator.PostOrderApply(sch_rules=rules, postprocs=list(default.postprocs),
                                             mutator_probs=dict(default.mutator_probs))


def profiled_seconds(task_name: str, op_seconds: dict[str, float]) -> float:
    """Variant C's measured seconds of the kernel a task tunes (0 when the profile lacks it)."""
    return float(op_seconds.get(task_name, 0.0))


def _body_key(func) -> int:
    """A PrimFunc's structural hash without its attributes (name, layout-free buffers, pattern)."""
    import tvm_ffi
    for name in list(func.attrs.keys()) if func.attrs else []:
        func = func.without_attr(name)
    return tvm_ffi.structural_hash(func)


def kernel_names(default_fused, variant_fused) -> dict[str, str]:
    """Variant kernel name -> the name of the same kernel in the default fused module.

    A search-space variant may rename kernels (the prepack variant's AttachAttrLayoutFreeBuffers
    copies each one under a new name and marks its weights layout-free), so its tasks do not
    carry the names variant C's op profile knows.  Kernels are matched by structure: the same
    loop nest once the attributes are set aside; equal structures pair up in module order.
    """
    import tvm

    def prim_funcs(mod):
        return [(g.name_hint, f) for g, f in mod.functions.items() if isinstance(f, tvm.tirx.PrimFunc)]

    pool: dict[int, list[str]] = {}
    for name, func in prim_funcs(default_fused):
        pool.setdefault(_body_key(func), []).append(name)
    out = {}
    for name, func in prim_funcs(variant_fused):
        names = pool.get(_body_key(func))
        if names:
            out[name] = names.pop(0)
    return out


def profile_for(op_seconds: dict[str, float], names: dict[str, str]) -> dict[str, float]:
    """``op_seconds`` keyed by the variant's kernel names as well (see :func:`kernel_names`)."""
    return {**op_seconds, **{new: op_seconds[old] for new, old in names.items() if old in op_seconds}}


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
    total = sum(profiled_seconds(t.task_name, op_seconds) for t in tasks) or 1.0
    rows = [{"task": t.task_name, "weight": int(t.weight), "seconds": profiled_seconds(t.task_name, op_seconds)}
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


class _TrialLines:
    """A sink for ``ms_tune._trial_log_callback`` that writes each trial, with its task, as a JSON line."""

    def __init__(self, handle, task: str):
        self.handle, self.task, self.measured, self.valid = handle, task, 0, 0

    def append(self, trial: dict[str, Any]) -> None:
        self.measured += 1
        self.valid += trial["category"] is None
        self.handle.write(json.dumps({"task": self.task, **trial, "elapsed_s": round(trial["elapsed_s"], 3)}) + "\n")
        self.handle.flush()


def tune(tasks, allocation: list[dict[str, Any]], target, work_dir, *, threads: int, seed: int,
         workers: int = 1, cost_model: str = "xgb", build_timeout_s: float = 120.0,
         run_timeout_s: float = 60.0, per_iter: int = 8, retry_rounds: int = RETRY_ROUNDS, progress=print,
         step=None, vectorize: bool = True) -> dict[str, Any]:
    """Tune every task for its allocated trials into ``work_dir``'s JSON database.

    A task whose trials produced no candidate that built and ran would stay an unscheduled loop
    nest in the compiled network (on the VNNI integer kernels about half the candidates fail to
    build, so 4 trials can all fail); such a task gets another round of ``per_iter`` trials, at
    most ``retry_rounds`` times.  Every retried trial is measured and counted like any other.

    Returns ``{"seconds", "trials", "per_task": {task: {"trials", "seconds", "valid",
    "retry_rounds"}}}`` (``trials`` = measured, retries included).
    """
    if retry_rounds < 0:
        raise ValueError(f"bad tuning budget: retry_rounds={retry_rounds}")
    from tvm.s_tir import meta_schedule as ms

    from experiments.gemm.ms_tune import _environment, _local_builder, _trial_log_callback

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
            lines = _TrialLines(sink, row["task"])
            t0 = time.perf_counter()
            retries = 0
            space = search_space(task, target, vectorize)   # once per task, not once per round
            for attempt in range(retry_rounds + 1):
                contexts, weights = ms.relax_integration.extracted_tasks_to_tune_contexts(
                    [task], str(work_dir / "logs"), space=space, seed=seed + index + 7919 * attempt)
                if not contexts:   # already scheduled: nothing to tune
                    break
                trials = row["trials"] if attempt == 0 else min(per_iter, row["trials"])
                ms.tune_tasks(
                    tasks=contexts, task_weights=weights, work_dir=str(work_dir / "logs"),
                    max_trials_global=trials, num_trials_per_iter=min(per_iter, trials),
                    builder=_local_builder(workers, build_timeout_s),
                    runner=ms.runner.LocalRunner(timeout_sec=run_timeout_s),
                    database=database, cost_model=cost_model,
                    measure_callbacks=[*ms.measure_callback.MeasureCallback.create("default"),
                                       _trial_log_callback(start, lines)])
                if lines.valid or not lines.measured:
                    break
                if attempt < retry_rounds:
                    retries += 1
                    progress(f"{row['task']}: no candidate built and ran in {lines.measured} trials; "
                             f"another round ({retries}/{retry_rounds})")
                else:
                    progress(f"{row['task']}: no candidate built and ran in {lines.measured} trials "
                             f"({retry_rounds} extra rounds); it stays unscheduled")
            if not lines.measured:
                continue
            measured = lines.measured
            per_task[row["task"]] = {"trials": measured, "seconds": round(time.perf_counter() - t0, 3),
                                     "valid": lines.valid, "retry_rounds": retries}
            found = tensorized(work_dir / "logs", row["task"])
            if found:
                per_task[row["task"]]["tensorized"] = found
            progress(f"tuned {row['task']} ({index}/{len(allocation)}, {measured} trials, "
                     f"{per_task[row['task']]['seconds']:.0f} s)")
            if step is not None:   # trials done of the whole allocation, for retest's progress bar
                step(sum(r["trials"] for r in allocation[:index]), sum(r["trials"] for r in allocation))
    return {"seconds": time.perf_counter() - start,
            "trials": sum(row["trials"] for row in per_task.values()),
            "per_task": per_task}


TENSORIZING = re.compile(r"Tensorizing with (\S+)")


def tensorized(log_dir, task: str) -> dict[str, int]:
    """Intrinsic -> lines "Tensorizing with <intrinsic>" in MetaSchedule's log of one task.

    MetaSchedule's MultiLevelTilingWithIntrin writes the line when it tiles the task's block onto a
    tensor intrinsic (e.g. ``dot_16x4_vnni`` under the "vnni" rule set); none for a task it could not.
    """
    counts: dict[str, int] = {}
    name = re.compile(rf".*\.task_\d+_{re.escape(task)}\.log")
    for path in sorted(p for p in Path(log_dir).rglob("*.log") if name.fullmatch(p.name)):   # tune_tasks adds logs/
        for match in TENSORIZING.finditer(path.read_text(encoding="utf-8", errors="replace")):
            counts[match.group(1)] = counts.get(match.group(1), 0) + 1
    return counts


def tune_module(mod, target, work_dir, op_seconds: dict[str, float], *, budget: int, per_iter: int,
                min_trials: int, threads: int, seed: int, workers: int = 1, cost_model: str = "xgb",
                progress=print, variant: str = "default", step=None,
                retry_rounds: int = RETRY_ROUNDS, vectorize: bool = True) -> dict[str, Any]:
    """Steps 1-4 for one module: fuse, extract, allocate from ``op_seconds``, tune into ``work_dir``.

    Leaves in ``work_dir`` the JSON database, the trial log and ``allocation.json`` (each row with
    ``best_s``, the database's best latency of that task); MetaSchedule's per-task log folder is
    removed (the family log holds the same lines).  Returns ``tasks``, ``allocation``,
    ``seconds``, ``trials_allocated``, ``per_task`` and ``trials`` (:func:`trial_summary`).
    """
    fused = fuse(mod, target, variant)
    tasks = extract(fused, target)
    if variant != "default":   # the profile knows the default module's kernel names
        op_seconds = profile_for(op_seconds, kernel_names(fuse(mod, target, "default"), fused))
    allocation = allocate(tasks, op_seconds, budget, per_iter, min_trials)
    progress(citation.context(tasks=len(tasks), trials=sum(r["trials"] for r in allocation), budget=int(budget),
                              untuned_ms=sum(op_seconds.values()) * 1e3))
    result = tune(tasks, allocation, target, work_dir, threads=threads, seed=seed, workers=workers,
                  cost_model=cost_model, per_iter=per_iter, retry_rounds=retry_rounds, progress=progress,
                  step=step, vectorize=vectorize)
    shutil.rmtree(Path(work_dir) / "logs", ignore_errors=True)
    best = best_latencies(work_dir, tasks)
    for row in allocation:
        row["best_s"] = best.get(row["task"])
    (Path(work_dir) / "allocation.json").write_text(json.dumps(allocation, indent=1), encoding="utf-8")
    return {"tasks": tasks, "allocation": allocation, "seconds": result["seconds"],
            "trials_allocated": result["trials"], "per_task": result["per_task"],
            "trials": trial_summary(read_trials(work_dir))}


def best_latencies(work_dir, tasks) -> dict[str, float | None]:
    """Best measured latency (s) per task from the database, None when no valid record."""
    from tvm.s_tir import meta_schedule as ms
    from tvm.s_tir.meta_schedule.tune_context import _normalize_mod

    from experiments.gemm.ms_tune import _mean
    database = ms.database.JSONDatabase(work_dir=str(work_dir))
    out = {}
    for task in tasks:
        mod = _normalize_mod(task.dispatched[0])
        top = database.get_top_k(database.commit_workload(mod), 1) if database.has_workload(mod) else []
        out[task.task_name] = _mean(top[0].run_secs) if top else None
    return out


def read_trials(work_dir) -> list[dict[str, Any]]:
    """The per-trial log written by :func:`tune` (empty when absent), read as the report reads it."""
    path = Path(work_dir) / TRIAL_LOG
    if not path.exists():
        return []
    return searchlog.trials(path.read_text(encoding="utf-8"), path)


def _json_lines(path):
    """(line number, value) of each JSON line of ``path`` (study.searchlog.json_lines)."""
    return searchlog.json_lines(path.read_text(encoding="utf-8"), path)


trial_summary = searchlog.summary
"""Counts of measured, valid and failed trials (by category) from the trial log."""


def compile_tuned(mod, target, work_dir, variant="default"):
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
    before, after = layout_passes(variant)

    @tvm.transform.module_pass(opt_level=0)
    def pipeline(module, _ctx):
        with target:
            module = tvm.transform.Sequential(front_passes(target) + before)(module)
            with database:
                module = relax.transform.MetaScheduleApplyDatabase()(module)
            seen.update(scheduled_kernels(module))
            module = tvm.transform.Sequential(after)(module)
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


DATABASE_FILES = ("database_workload.json", "database_tuning_record.json")


def prune(work_dir, keep: int = 4) -> dict[str, int]:
    """Keep the ``keep`` fastest valid records of each workload in ``work_dir``'s JSON database
    (what continuing a search and applying it need); returns the record counts before and after."""
    path = Path(work_dir) / "database_tuning_record.json"
    if not path.exists():
        return {"before": 0, "after": 0}
    lines = [line for line in path.read_text(encoding="utf-8").split("\n") if line.strip()]
    by_workload: dict[int, list[tuple[float, str]]] = {}
    for line, (number, value) in zip(lines, _json_lines(path)):
        if not (isinstance(value, list) and len(value) == 2 and isinstance(value[0], int) and isinstance(value[1], list)):
            raise ValueError(f"{path}:{number}: not a [workload, record] line of a MetaSchedule database")
        workload, record = value
        secs = record[1] if len(record) > 1 else None
        valid = [float(x) for x in (secs or []) if float(x) < 1e9]
        by_workload.setdefault(workload, []).append((sum(valid) / len(valid) if valid else math.inf, line))
    kept = []
    for workload in sorted(by_workload):
        kept += [line for _secs, line in sorted(by_workload[workload], key=lambda r: r[0])[:keep]]
    path.write_text("".join(line + "\n" for line in kept), encoding="utf-8")
    return {"before": len(lines), "after": len(kept)}


def estimated_seconds(allocation: list[dict[str, Any]]) -> float | None:
    """Sum over tasks of calls per run x best measured latency: the database's estimate of one run's
    kernel time (None while a task has no valid record)."""
    if not allocation or any(row.get("best_s") is None for row in allocation):
        return None
    return sum(row["weight"] * row["best_s"] for row in allocation)


class Campaign:
    """A tuning database that accumulates across retests (``results/campaigns/<key>/``).

    ``state`` (campaign.json): the key's parts, ``cumulative_trials`` and ``steps`` (one per
    retest that continued it: run id, new trials, seconds, cumulative trials, estimated kernel
    time).  :meth:`seed` copies the database into a run's work dir; :meth:`commit` prunes the work
    dir's database and replaces the campaign folder atomically (a failed retest leaves the
    previous state whole).
    """

    def __init__(self, root, parts: dict[str, Any]):
        from study import schema
        self.parts = parts
        self.key = schema.campaign_key(parts)
        self.dir = Path(root) / "campaigns" / self.key
        self._restore()
        self.state = self._read_state() if os.path.lexists(self.dir) else \
            {"key": self.key, "parts": parts, "cumulative_trials": 0, "steps": []}

    def _restore(self) -> None:
        """A retest stopped between commit's two renames left the campaign only as .old-<key> (and a
        .tmp-<key> for a run never published): put the last committed state back, which was otherwise
        taken for no campaign, started anew at 0 trials, and its database removed by the next commit."""
        old = self.dir.with_name(f".old-{self.key}")
        if leftovers.restore(self.dir, old):
            print(f"campaign {self.key}: restored from {old.name}, left by a retest stopped while committing",
                  flush=True)

    def _read_state(self) -> dict[str, Any]:
        """campaign.json, checked before anything is seeded from the folder (a symlink planted in
        it, a forged trial count or a broken database stops the job, naming the file)."""
        from study import schema
        problems = schema.campaign_folder_problems(self.dir)
        if problems:
            raise ValueError(problems[0])
        path = self.dir / "campaign.json"
        try:   # a key twice, 10^5 "[" or bytes that are not UTF-8 name the file, as the build says them
            state = schema.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError, RecursionError) as exc:
            raise ValueError(f"{path}: {str(exc)[:200]}") from None
        problems = schema.campaign_problems(state, self.key)
        if problems:
            raise ValueError(f"{path}: {problems[0]}")
        return state

    @property
    def trials(self) -> int:
        return int(self.state["cumulative_trials"])

    def seed(self, work_dir) -> bool:
        """Copy the campaign's database into ``work_dir``; False for a new campaign."""
        work_dir = Path(work_dir)
        work_dir.mkdir(parents=True, exist_ok=True)
        found = False
        for name in DATABASE_FILES:
            if (self.dir / name).exists():
                shutil.copy2(self.dir / name, work_dir / name)
                found = True
        return found

    def commit(self, work_dir, *, run_id: str, trials: int, seconds: float, estimate_s: float | None,
               keep: int = 4) -> dict[str, Any]:
        pruned = prune(work_dir, keep)
        state = dict(self.state, cumulative_trials=self.trials + int(trials))
        state["steps"] = list(self.state["steps"]) + [{
            "run_id": run_id, "trials": int(trials), "seconds": round(float(seconds), 3),
            "cumulative_trials": state["cumulative_trials"], "estimated_kernel_s": estimate_s,
            "records": pruned["after"]}]
        tmp = self.dir.with_name(f".tmp-{self.key}")
        leftovers.remove(tmp)
        tmp.mkdir(parents=True)
        for name in DATABASE_FILES:
            if (Path(work_dir) / name).exists():
                shutil.copy2(Path(work_dir) / name, tmp / name)
        (tmp / "campaign.json").write_text(json.dumps(state, indent=1) + "\n", encoding="utf-8")
        old = self.dir.with_name(f".old-{self.key}")
        leftovers.remove(old)
        if self.dir.exists():
            self.dir.rename(old)
        tmp.rename(self.dir)
        shutil.rmtree(old, ignore_errors=True)
        self.state = state
        return state
