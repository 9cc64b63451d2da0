"""TVM GEMM optimisation ladder (the classic "How to optimize GEMM on CPU" stages),
re-implemented for TVM 0.27 (TensorIR + ``tvm.s_tir.Schedule`` + MetaSchedule).

Computes ``C[M, N] = A[M, K] @ B[K, N]`` (row-major, float32 by default).

This module is a library: it builds, inspects, checks and tunes kernels, but it
records nothing and runs no benchmark by itself.

Stage ladder (each stage adds one idea to the previous one, as in the tutorial):

    baseline -> blocking -> vectorization -> loop_permutation -> packing
             -> write_cache -> parallel

Non-divisible shapes
--------------------
* M and N that are not multiples of the tile (bm, bn) are handled by **padding**
  (``Schedule.pad_einsum``), not by guarded splits.  Reason (verified on 0.27):
  a guarded split puts ``j < N`` into the block predicate, the predicate depends
  on the vectorised loop, ``VectorizeLoop`` then scalarises the whole loop and
  the ``LoopPartition`` pass does not peel it (the predicate is not marked
  ``likely``) -- at 1000^3 the guarded ladder emitted zero FMA instructions.
  Padding details:
    - A's zero rows are inlined as a guard ``i < M`` on the A load (invariant in
      the vectorised j loop, so vectorisation survives);
    - B's zero columns are a padded copy (stages before ``packing``) or are
      folded into the packed copy (``packing`` and later);
    - C is computed into a padded buffer and copied back (stages before
      ``write_cache``) or written back from the local tile with a guard
      (``write_cache`` and later).
  When M and N divide the tiles no padding code is generated at all.
* K that is not a multiple of ``bk`` uses a guarded split (``k < K``); that guard
  does not involve the vectorised loop, so it costs little.
* ``baseline`` is the unscheduled function and needs neither.
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

import numpy as np
import tvm
import tvm_ffi
from tvm import s_tir, te

STAGES: list[dict[str, str]] = [
    {
        "name": "baseline",
        "historical_name": "baseline",
        "description_zh": "默认三重循环 i, j, k，不做任何调度（TensorIR 默认循环，初始化在 k 循环内）。",
    },
    {
        "name": "blocking",
        "historical_name": "blocking",
        "description_zh": "分块：i、j 按 bm x bn（默认 32x32）切分，k 按 bk（默认 4）切分，"
        "循环顺序 io, jo, ko, ki, ii, ji，使块内数据驻留缓存。",
    },
    {
        "name": "vectorization",
        "historical_name": "vectorization",
        "description_zh": "在分块基础上把最内层 ji 循环向量化（AVX2 下为 ymm 的 FMA）。",
    },
    {
        "name": "loop_permutation",
        "historical_name": "loop permutation",
        "description_zh": "循环重排为 io, jo, ko, ii, ki, ji，使最内层对 B 和 C 的访问连续。",
    },
    {
        "name": "packing",
        "historical_name": "packing",
        "description_zh": "数组重排：把 B 打包成 [N/bn, K, bn] 的连续布局（cache_read + transform_layout），"
        "打包循环按原教程向量化并在外层并行。",
    },
    {
        "name": "write_cache",
        "historical_name": "write cache",
        "description_zh": "写缓存：在 local 块中累加 bm x bn 的 C 子块（cache_write），"
        "k 循环结束后写回 C；内层 ki 展开。",
    },
    {
        "name": "parallel",
        "historical_name": "parallel",
        "description_zh": "在写缓存基础上把最外层 io 循环并行化（线程数由 TVM_NUM_THREADS 决定）。",
    },
]

_STAGE_RANK = {stage["name"]: rank for rank, stage in enumerate(STAGES)}
_BLOCKING, _VECTORIZE, _PERMUTE, _PACK, _WRITE_CACHE, _PARALLEL = range(1, 7)

FAILED_RUN_SECS = 1e8  # MetaSchedule stores 1e9 s for failed trials; anything this large is a failure


# --------------------------------------------------------------------------- targets / workload


def host_target(num_threads: int | None = None) -> tvm.target.Target:
    """LLVM target for this CPU (``mcpu`` from LLVM's host detection).

    ``num_threads`` sets ``num-cores``, which MetaSchedule uses to size parallel loops.
    """
    config: dict[str, Any] = {"kind": "llvm", "mcpu": tvm.target.codegen.llvm_get_system_cpu()}
    if num_threads is not None:
        config["num-cores"] = int(num_threads)
    return tvm.target.Target(config)


def with_num_cores(target: tvm.target.Target, num_threads: int) -> tvm.target.Target:
    """Copy of ``target`` with ``num-cores`` set (needed by MetaSchedule on CPU)."""
    config = dict(target.export())
    config["num-cores"] = int(num_threads)
    return tvm.target.Target(config)


def gemm_prim_func(m: int, n: int, k: int, dtype: str = "float32") -> tvm.tirx.PrimFunc:
    """The unscheduled GEMM as a TensorIR PrimFunc with params (A, B, C) and block "C"."""
    a = te.placeholder((m, k), dtype=dtype, name="A")
    b = te.placeholder((k, n), dtype=dtype, name="B")
    r = te.reduce_axis((0, k), name="k")
    c = te.compute((m, n), lambda i, j: te.sum(a[i, r] * b[r, j], axis=r), name="C")
    return te.create_prim_func([a, b, c])


def default_tiles() -> dict[str, int]:
    """Tile sizes of the classic tutorial: 32x32 output tiles, k split by 4."""
    return {"bm": 32, "bn": 32, "bk": 4}


def configure_threads(num_threads: int) -> int:
    """Set TVM's CPU thread count for this process and its children; return the count in use.

    TVM's default on x86 is ``hardware_concurrency() / 2`` (it assumes SMT), i.e. 1 on a
    2-core machine without SMT, so always set it.  The thread pool is sized when first used:
    call this before anything runs in parallel, or set ``TVM_NUM_THREADS`` before starting
    Python.  The returned value tells whether the request took effect.
    """
    os.environ["TVM_NUM_THREADS"] = str(int(num_threads))
    big_cores_mode = 1
    tvm_ffi.get_global_func("runtime.config_threadpool")(big_cores_mode, int(num_threads))
    return int(tvm.runtime.num_threads())


# --------------------------------------------------------------------------- the ladder schedules


def _stage_rank(stage: str) -> int:
    if stage not in _STAGE_RANK:
        raise ValueError(f"unknown stage {stage!r}; expected one of {list(_STAGE_RANK)}")
    return _STAGE_RANK[stage]


def _named_blocks(sch: s_tir.Schedule, blocks: list) -> dict[str, Any]:
    return {sch.get(block).name_hint: block for block in blocks}


def _read_index(sch: s_tir.Schedule, block, buffer_prefix: str) -> int:
    """Index of the read buffer of ``block`` whose name starts with ``buffer_prefix``."""
    names = [region.buffer.name for region in sch.get(block).reads]
    for index, name in enumerate(names):
        if name.startswith(buffer_prefix):
            return index
    raise ValueError(f"no read buffer starting with {buffer_prefix!r} in {names}")


def _pad_spatial(sch: s_tir.Schedule, block, m: int, n: int, tiles: dict[str, int]) -> bool:
    """Pad M, N up to tile multiples; inline A's padding as a row guard. Returns True if padded."""
    if m % tiles["bm"] == 0 and n % tiles["bn"] == 0:
        return False
    sch.pad_einsum(block, [tiles["bm"], tiles["bn"], 1])
    producers = _named_blocks(sch, sch.get_producers(block))
    if "A_pad" in producers:
        sch.compute_inline(producers["A_pad"])
    return True


def _pack_b(sch: s_tir.Schedule, block, bn: int) -> None:
    """Packing: copy B (or its zero-padded view) into layout [N/bn, K, bn]."""
    packed = sch.cache_read(block, _read_index(sch, block, "B"), "global")
    producers = _named_blocks(sch, sch.get_producers(packed))
    if "B_pad" in producers:
        sch.compute_inline(producers["B_pad"])
    sch.transform_layout(packed, ("write", 0), lambda kk, j: (j // bn, kk, j % bn))
    kk, j = sch.get_loops(packed)
    j_outer, j_inner = sch.split(j, [None, bn])
    sch.reorder(j_outer, kk, j_inner)
    sch.vectorize(j_inner)
    sch.parallel(j_outer)  # as in the tutorial's packing stage


def _tile(sch: s_tir.Schedule, block, tiles: dict[str, int], permuted: bool) -> dict[str, Any]:
    """Blocking: split i, j, k and reorder; ``permuted`` moves ki inside ii."""
    i, j, k = sch.get_loops(block)
    io, ii = sch.split(i, [None, tiles["bm"]])
    jo, ji = sch.split(j, [None, tiles["bn"]])
    ko, ki = sch.split(k, [None, tiles["bk"]])
    if permuted:
        sch.reorder(io, jo, ko, ii, ki, ji)
    else:
        sch.reorder(io, jo, ko, ki, ii, ji)
    return {"io": io, "jo": jo, "ko": ko, "ii": ii, "ki": ki, "ji": ji}


def _attach_write_back(sch: s_tir.Schedule, write_back, jo, padded: bool) -> None:
    """Write the local C tile back after the k loop; with padding, store only the valid part."""
    sch.reverse_compute_at(write_back, jo)
    if padded:
        consumers = _named_blocks(sch, sch.get_consumers(write_back))
        sch.reverse_compute_inline(consumers["C_pad"])


def _apply_ladder(sch: s_tir.Schedule, rank: int, m: int, n: int, tiles: dict[str, int]) -> bool:
    """Apply stages 1..rank to the GEMM block. Returns whether M/N padding was used."""
    block = sch.get_sblock("C")
    padded = _pad_spatial(sch, block, m, n, tiles)
    if rank >= _PACK:
        _pack_b(sch, block, tiles["bn"])
    write_back = sch.cache_write(block, 0, "local") if rank >= _WRITE_CACHE else None
    loops = _tile(sch, block, tiles, permuted=rank >= _PERMUTE)
    if write_back is not None:
        _attach_write_back(sch, write_back, loops["jo"], padded)
        sch.unroll(loops["ki"])
    if rank >= _VECTORIZE:
        sch.vectorize(loops["ji"])
    if rank >= _PARALLEL:
        sch.parallel(loops["io"])
    # Must come last: vectorize/parallel/unroll on the decomposed loops raise ScheduleError.
    sch.decompose_reduction(block, loops["ko"])
    return padded


def schedule_stage(
    stage: str, m: int, n: int, k: int, dtype: str = "float32", tiles: dict[str, int] | None = None
) -> tuple[s_tir.Schedule, dict[str, Any]]:
    """Schedule the GEMM up to ``stage``. Returns the schedule and the parameters used."""
    rank = _stage_rank(stage)
    tiles = {**default_tiles(), **(tiles or {})}
    sch = s_tir.Schedule(gemm_prim_func(m, n, k, dtype))
    padded = _apply_ladder(sch, rank, m, n, tiles) if rank >= _BLOCKING else False
    params: dict[str, Any] = dict(tiles) if rank >= _BLOCKING else {}
    params["tail_handling"] = _tail_handling(rank, padded, k, tiles)
    return sch, params


def _tail_handling(rank: int, padded: bool, k: int, tiles: dict[str, int]) -> str:
    if rank < _BLOCKING:
        return "none (default loops)"
    parts = ["pad M/N to tile multiples" if padded else "M/N divisible"]
    parts.append("guarded k split" if k % tiles["bk"] else "K divisible")
    return ", ".join(parts)


# --------------------------------------------------------------------------- building


@dataclasses.dataclass
class StageBuild:
    """A compiled ladder stage. ``func(a, b, c)`` runs it on ``tvm.runtime.Tensor`` arguments."""

    stage: str
    shape: tuple[int, int, int]  # (m, n, k)
    dtype: str
    target: str
    params: dict[str, Any]
    mod: tvm.IRModule  # scheduled TensorIR module
    lowered_text: str  # TVMScript of the scheduled function
    trace_text: str  # schedule trace that reproduces ``mod``
    executable: Any  # tvm.runtime.Executable
    rt_mod: Any  # runtime module (has time_evaluator)
    func: Any  # callable f(a, b, c)
    asm: str  # assembly of the host module ("" for non-LLVM targets)
    compile_seconds: float

    @property
    def prim_func(self) -> tvm.tirx.PrimFunc:
        return self.mod["main"]


def _assembly(rt_mod, target: tvm.target.Target) -> str:
    return rt_mod.inspect_source("asm") if target.kind.name == "llvm" else ""


def build_stage(
    stage: str,
    m: int,
    n: int,
    k: int,
    target: tvm.target.Target,
    dtype: str = "float32",
    tiles: dict[str, int] | None = None,
) -> StageBuild:
    """Schedule and compile one ladder stage for ``target`` (a dict-built Target)."""
    sch, params = schedule_stage(stage, m, n, k, dtype, tiles)
    start = time.perf_counter()
    executable = tvm.compile(sch.mod, target)
    rt_mod = executable.jit()
    compile_seconds = time.perf_counter() - start
    return StageBuild(
        stage=stage,
        shape=(m, n, k),
        dtype=dtype,
        target=str(target),
        params=params,
        mod=sch.mod,
        lowered_text=sch.mod.script(),
        trace_text=str(sch.trace),
        executable=executable,
        rt_mod=rt_mod,
        func=rt_mod["main"],
        asm=_assembly(rt_mod, target),
        compile_seconds=compile_seconds,
    )


def c_source(
    m: int, n: int, k: int, stage: str = "baseline", dtype: str = "float32", tiles=None
) -> str:
    """C source of one stage from TVM's "c" target.

    The C host code generator cannot print vector types (``float32x32``), so vectorised
    loops are emitted as serial loops (``tirx.disable_vectorize``); everything else
    (tiling, packing, local cache, parallel lambdas) is as scheduled.
    """
    sch, _ = schedule_stage(stage, m, n, k, dtype, tiles)
    with tvm.transform.PassContext(config={"tirx.disable_vectorize": True}):
        executable = tvm.compile(sch.mod, tvm.target.Target({"kind": "c"}))
    return executable.mod.inspect_source()


# --------------------------------------------------------------------------- codegen evidence

_FMA_RE = re.compile(r"^vf(?:n)?m(?:add|sub|addsub|subadd)(?:132|213|231)?(ps|pd|ss|sd)$")
_REGISTER_RE = re.compile(r"%([xyz]mm)\d+")
_WIDTH_ORDER = ("xmm", "ymm", "zmm")


def _instructions(asm: str):
    """Yield (mnemonic, widest SIMD register or None) for every instruction line."""
    for line in asm.splitlines():
        text = line.split("#", 1)[0].strip()
        if not text or text.startswith(".") or text.endswith(":"):
            continue
        mnemonic, _, operands = text.partition(" ") if " " in text else text.partition("\t")
        registers = _REGISTER_RE.findall(operands)
        widest = max(registers, key=_WIDTH_ORDER.index) if registers else None
        yield mnemonic.strip(), widest


def codegen_evidence(asm: str) -> dict[str, Any]:
    """Static instruction counts from an x86 AT&T assembly listing.

    * ``fma_packed``: packed FMAs (``vfmadd*ps/pd``...) by widest register (xmm/ymm/zmm);
    * ``fma_scalar``: scalar FMAs (``*ss/sd``, they use xmm but do one lane);
    * ``vector_ops``: other instructions touching SIMD registers, by widest register;
    * ``top_vector_mnemonics``: the most frequent of those;
    * ``widest_register``: widest SIMD register in the listing (None if none).
    Counts are of instructions in the code (static), not executions.
    """
    fma_packed = Counter({width: 0 for width in _WIDTH_ORDER})
    vector_ops = Counter({width: 0 for width in _WIDTH_ORDER})
    fma_scalar = 0
    mnemonics: Counter = Counter()
    widths_seen: set[str] = set()
    for mnemonic, widest in _instructions(asm):
        if widest is None:
            continue
        widths_seen.add(widest)
        fma = _FMA_RE.match(mnemonic)
        if fma and fma.group(1) in ("ss", "sd"):
            fma_scalar += 1
        elif fma:
            fma_packed[widest] += 1
        else:
            vector_ops[widest] += 1
            mnemonics[f"{mnemonic}:{widest}"] += 1
    widest_register = max(widths_seen, key=_WIDTH_ORDER.index) if widths_seen else None
    return {
        "fma_packed": dict(fma_packed),
        "fma_scalar": fma_scalar,
        "vector_ops": dict(vector_ops),
        "top_vector_mnemonics": dict(mnemonics.most_common(10)),
        "widest_register": widest_register,
        "has_ymm_fma": fma_packed["ymm"] > 0,
        "has_zmm": "zmm" in widths_seen,
    }


# --------------------------------------------------------------------------- numerics


def random_operands(m: int, n: int, k: int, seed: int, dtype: str = "float32"):
    """A ~ U(-1, 1) [m, k], B ~ U(-1, 1) [k, n] as numpy arrays of ``dtype``."""
    rng = np.random.default_rng(seed)
    a = rng.uniform(-1.0, 1.0, size=(m, k)).astype(dtype)
    b = rng.uniform(-1.0, 1.0, size=(k, n)).astype(dtype)
    return a, b


def run_gemm(func, a: np.ndarray, b: np.ndarray, device=None) -> np.ndarray:
    """Run ``func(a, b, c)`` once; ``c`` starts as NaN so unwritten elements are visible."""
    device = device or tvm.cpu(0)
    c = np.full((a.shape[0], b.shape[1]), np.nan, dtype=a.dtype)
    args = [tvm.runtime.tensor(x, device) for x in (a, b, c)]
    func(*args)
    return args[2].numpy()


def error_report(c: np.ndarray, a: np.ndarray, b: np.ndarray) -> dict[str, Any]:
    """Compare ``c`` with float64 ``a @ b`` using the bound |C - ref| <= K * eps32 * (|A| @ |B|).

    ``max_rel_err`` is max |C - ref| / (|A| @ |B|) (error relative to the magnitude bound,
    elementwise; where the bound is 0 the error must be 0), ``threshold`` is K * eps(float32).
    """
    k = a.shape[1]
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    reference = a64 @ b64
    bound = np.abs(a64) @ np.abs(b64)
    error = np.abs(c.astype(np.float64) - reference)
    threshold = k * float(np.finfo(np.float32).eps)
    finite = bool(np.all(np.isfinite(c)))
    scaled = np.divide(error, bound, out=np.where(error > 0, np.inf, 0.0), where=bound > 0)
    max_rel = float(np.max(scaled)) if finite else float("inf")
    return {
        "max_abs_err": float(np.max(error)) if finite else float("inf"),
        "max_rel_err": max_rel,
        "threshold": threshold,
        "passed": finite and max_rel <= threshold,
    }


def check(built, m: int, n: int, k: int, seed: int) -> dict[str, Any]:
    """Numerically check a StageBuild/TuneResult (anything with ``.func``) on random data."""
    if getattr(built, "shape", (m, n, k)) != (m, n, k):
        raise ValueError(f"built for {built.shape}, asked to check {(m, n, k)}")
    a, b = random_operands(m, n, k, seed, getattr(built, "dtype", "float32"))
    return error_report(run_gemm(built.func, a, b), a, b)


# --------------------------------------------------------------------------- timing


def time_module(
    f, args, number: int = 10, repeat: int = 3, warmup: int = 1, min_repeat_ms: int = 0
) -> list[float]:
    """Per-call seconds of ``main``, one value per repeat (each the mean of ``number`` calls).

    ``f`` is a runtime module or anything with ``.rt_mod`` (StageBuild, TuneResult);
    ``args`` are ``tvm.runtime.Tensor``s.  ``warmup`` extra calls run first, untimed.
    """
    rt_mod = getattr(f, "rt_mod", f)
    for _ in range(warmup):
        rt_mod["main"](*args)
    evaluator = rt_mod.time_evaluator(
        "main", args[0].device, number=number, repeat=repeat, min_repeat_ms=min_repeat_ms
    )
    return [float(x) for x in evaluator(*args).results]


# --------------------------------------------------------------------------- MetaSchedule tuning


@dataclasses.dataclass
class TuneResult:
    """Result of :func:`tune`. ``func(a, b, c)`` runs the best schedule found."""

    shape: tuple[int, int, int]
    dtype: str
    target: str
    work_dir: str
    reused: bool  # True: database already had records, no tuning ran
    trials_done: int  # trials measured by this call (0 when reused)
    total_records: int  # records of this workload+target in the database
    wall_seconds: float  # whole call, including the final compile
    tuning_seconds: float  # inside tune_tir only
    best_run_secs: float
    best_trace: str
    mod: tvm.IRModule
    rt_mod: Any
    func: Any
    asm: str
    curve: list[dict[str, Any]]  # per trial: trial, elapsed_s, run_secs, best_so_far_s
    failures: dict[str, int]
    best_check: dict[str, Any]
    cost_model: str
    notes: list[str]


def classify_failure(build_error: str | None, run_error: str | None) -> str | None:
    """Failure category of one trial: build_failed, timeout, run_failed, or None if it ran."""
    if build_error:
        return "timeout" if "Timeout" in build_error else "build_failed"
    if run_error:
        return "timeout" if "Timeout" in run_error else "run_failed"
    return None


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
                sink.append({"elapsed_s": now, "run_secs": secs, "category": category})

    return TrialLog()


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


def _workload(m: int, n: int, k: int, dtype: str) -> tvm.IRModule:
    """The GEMM normalised exactly as MetaSchedule stores workloads."""
    from tvm.s_tir.meta_schedule.tune_context import _normalize_mod

    return _normalize_mod(gemm_prim_func(m, n, k, dtype))


def _records_for(database, workload, target) -> list:
    """Valid records (best first) of ``workload`` measured on ``target``."""
    if not database.has_workload(workload):
        return []
    records = database.get_top_k(database.commit_workload(workload), 10**9)
    return [r for r in records if str(r.target) == str(target) and _mean(r.run_secs) is not None]


def _mean(run_secs) -> float | None:
    if not run_secs:
        return None
    value = float(np.mean([float(x) for x in run_secs]))
    return None if value >= FAILED_RUN_SECS else value


def _run_tune_tir(workload, target, work_dir, database, max_trials, num_threads, seed, options):
    """Run MetaSchedule once; returns (per-trial log, seconds spent)."""
    from tvm.s_tir import meta_schedule as ms

    trials: list[dict[str, Any]] = []
    start = time.perf_counter()
    workers = options["tuning_workers"]
    with _environment(TVM_NUM_THREADS=str(num_threads)):
        ms.tune_tir(
            workload,
            target,
            str(work_dir),
            max_trials_global=max_trials,
            num_trials_per_iter=options["trials_per_iter"] or min(max_trials, 8),
            builder=ms.builder.LocalBuilder(max_workers=workers, timeout_sec=options["build_timeout_s"]),
            runner=ms.runner.LocalRunner(
                timeout_sec=options["run_timeout_s"], evaluator_config=options["evaluator"]
            ),
            database=database,
            cost_model=options["cost_model"],
            measure_callbacks=[*ms.measure_callback.MeasureCallback.create("default"),
                               _trial_log_callback(start, trials)],
            num_tuning_cores=workers,
            seed=seed,
        )
    return trials, time.perf_counter() - start


def tuning_curve(trials: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Best-so-far curve from a per-trial log (order = measurement order)."""
    curve, best = [], float("inf")
    for index, trial in enumerate(trials, start=1):
        run = _mean(trial.get("run_secs"))
        if run is not None:
            best = min(best, run)
        curve.append({
            "trial": index,
            "elapsed_s": trial.get("elapsed_s"),
            "run_secs": run,
            "best_so_far_s": best if best < float("inf") else None,
        })
    return curve


def _workload_hashes(workload) -> set[str]:
    value = int(tvm_ffi.structural_hash(workload))
    return {str(value), str(value % 2**64), str(value - 2**64 if value >= 2**63 else value)}


def trials_from_database_file(work_dir, workload, target) -> list[dict[str, Any]]:
    """Per-trial log recovered from the JSON database files in commit order (no timestamps)."""
    work_dir = Path(work_dir)
    hashes = _workload_hashes(workload)
    with open(work_dir / "database_workload.json") as handle:
        indices = {i for i, line in enumerate(handle) if str(json.loads(line)[0]) in hashes}
    wanted = json.loads(str(target))
    trials = []
    with open(work_dir / "database_tuning_record.json") as handle:
        for line in handle:
            index, record = json.loads(line)
            if index in indices and (len(record) < 3 or record[2] == wanted):
                secs = [float(x) for x in record[1]] if record[1] else None
                failed = _mean(secs) is None
                trials.append({"elapsed_s": None, "run_secs": secs,
                               "category": "failed (category not stored)" if failed else None})
    return trials


def _failure_counts(trials: list[dict[str, Any]]) -> dict[str, int]:
    counts = Counter(t["category"] for t in trials if t["category"])
    base = {"build_failed": 0, "run_failed": 0, "timeout": 0, "numeric_check_failed": 0}
    return {**base, **counts}


def _build_record(workload, record, target):
    sch = s_tir.Schedule(workload)
    record.trace.apply_to_schedule(sch, remove_postproc=False)
    rt_mod = tvm.compile(sch.mod, target).jit()
    return sch, rt_mod


def _numeric_failures(workload, records, target, shape, seed) -> int:
    """Rebuild each record and count those failing :func:`error_report`."""
    a, b = random_operands(*_mnk_to_mk_kn(shape), seed)
    failures = 0
    for record in records:
        _, rt_mod = _build_record(workload, record, target)
        failures += not error_report(run_gemm(rt_mod["main"], a, b), a, b)["passed"]
    return failures


def _mnk_to_mk_kn(shape):
    m, n, k = shape
    return m, n, k


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
) -> TuneResult:
    """MetaSchedule-tune the GEMM with a JSON database in ``work_dir``.

    * ``reuse=True``: if the database already holds valid records of this workload for
      this target (including ``num-cores``), no tuning runs and the best record is used.
    * ``num_threads`` becomes the target's ``num-cores`` and ``TVM_NUM_THREADS`` of the
      measuring workers; threads of *this* process are set with :func:`configure_threads`.
    * ``trials_per_iter`` defaults to ``min(max_trials, 8)`` (MetaSchedule's 64 is too
      large for small budgets); build timeout defaults to 120 s (MetaSchedule: 30 s).
    * ``verify``: "best" checks only the best record numerically; "all" rebuilds every
      valid record of this call and counts numeric failures.
    * The curve is per trial in measurement order; ``elapsed_s`` is the time since the
      call started at which the trial's batch finished (None for reused databases).
    """
    from tvm.s_tir import meta_schedule as ms

    call_start = time.perf_counter()
    notes: list[str] = []
    target = with_num_cores(target, num_threads)
    workload = _workload(m, n, k, dtype)
    Path(work_dir).mkdir(parents=True, exist_ok=True)
    database = ms.database.JSONDatabase(work_dir=str(work_dir))
    reused = reuse and bool(_records_for(database, workload, target))
    trials, tuning_seconds = [], 0.0
    model = "none (reused database)"
    if not reused:
        model = _cost_model(cost_model, notes)
        options = {
            "trials_per_iter": trials_per_iter,
            "tuning_workers": tuning_workers,
            "build_timeout_s": build_timeout_s,
            "run_timeout_s": run_timeout_s,
            "evaluator": evaluator or ms.runner.EvaluatorConfig(),
            "cost_model": model,
        }
        trials, tuning_seconds = _run_tune_tir(
            workload, target, work_dir, database, max_trials, num_threads, seed, options
        )
    else:
        trials = trials_from_database_file(work_dir, workload, target)
        notes.append("reused existing database records; no tuning ran")
    records = _records_for(database, workload, target)
    if not records:
        raise RuntimeError(f"no valid tuning record in {work_dir}; failures: {_failure_counts(trials)}")
    best = records[0]
    sch, rt_mod = _build_record(workload, best, target)
    failures = _failure_counts(trials)
    if verify == "all" and not reused:
        valid_now = records[: sum(1 for t in trials if _mean(t["run_secs"]) is not None)]
        failures["numeric_check_failed"] = _numeric_failures(workload, valid_now, target, (m, n, k), seed)
    best_check = error_report(run_gemm(rt_mod["main"], *random_operands(m, n, k, seed, dtype)),
                              *random_operands(m, n, k, seed, dtype))
    if verify == "best":
        failures["numeric_check_failed"] = int(not best_check["passed"])
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
        best_run_secs=_mean(best.run_secs),
        best_trace=str(best.trace),
        mod=sch.mod,
        rt_mod=rt_mod,
        func=rt_mod["main"],
        asm=_assembly(rt_mod, target),
        curve=tuning_curve(trials),
        failures=failures,
        best_check=best_check,
        cost_model=model,
        notes=notes,
    )
