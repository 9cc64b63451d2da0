"""Which TVM schedule step makes a GEMM fast on this CPU, and how close does tuning get?

Seed §23 re-measured with today's API: the stage ladder (baseline, blocking,
vectorization, loop permutation, packing, write cache, parallel) written with
tvm.s_tir.Schedule, then MetaSchedule (which replaces AutoTVM). Beyond the seed: a
BLIS-style micro-kernel stage with a small recorded grid over MR/NR/KC, MetaSchedule
over the micro-kernel's decisions beside its default space, and a u8 x s8 -> s32 GEMM
tensorized with VNNI (vpdpbusd) next to the FP32 kernel of the same shape. As in the
historical table, NumPy is timed in the same run on every shape, twice: with the BLAS
environment as configured and with the OpenBLAS pinning variables unset (the
machine's own kernel choice); the peer a page compares with is the faster of the
two. Every kernel is checked against float64 before it is timed; the generated
assembly is searched for vector FMAs.

Each thread count runs in child processes of its own: TVM's thread pool is sized
once per process, and NumPy is timed in a process that never imports TVM (the
NumPy peers timed inside the TVM process were 12.4-13.1 ms on Zen 4 where a clean
process measured 10.6-11.0 ms at 2 threads).
"""
import json
import math
import os
import sys
from types import SimpleNamespace

import numpy as np

from experiments import harness, targets
from study import asm, cases
from study.family import Family
from study.identity import BLAS_ISA  # ISA of OpenBLAS's kernel, for ISA-matched peaks

FAMILY = Family(name="gemm_tvm", rpc=True,   # standard and full tune two search spaces
                timeout_s={"quick": 900, "standard": 7200, "full": 21600},
                params=("artifact_shape", "budget_s", "int8", "microkernel", "min_repeat", "min_sample_s",
                        "repeat", "seed", "shapes", "stages", "threads", "tune", "warmup"),
                # timing; which cases (shapes, threads, the INT8 shapes); a search's budget (searched, not compared)
                claims_of={"warmup": [], "repeat": [], "min_repeat": [], "min_sample_s": [], "budget_s": [], "shapes": [], "threads": [], "int8": [], "tune": ["trials"]})

PINNING_VARS = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")


def _finite_check(report, reference):
    """Schema wants finite numbers: a non-finite error means a failed check, stated as such."""
    out = {"reference": reference, "threshold": report["threshold"], "passed": bool(report["passed"])}
    for key in ("max_abs_err", "max_rel_err"):
        value = report[key]
        out[key] = value if isinstance(value, float) and math.isfinite(value) else None
    return out


def _target_dict(target):
    """The target as plain JSON data (TVM containers become lists/strings)."""
    def plain(value):
        if isinstance(value, (str, int, float, bool)) or value is None:
            return value
        if hasattr(value, "items"):
            return {str(k): plain(v) for k, v in value.items()}
        if hasattr(value, "__iter__"):
            return [plain(v) for v in value]
        return str(value)
    return plain(dict(target.export()))


def _case_id(impl, stage, shape, **more):
    """A gemm_tvm record id (study/cases.py declares its fields and their order)."""
    m, n, k = shape
    return cases.case_id("gemm_tvm", impl=impl, stage=stage, m=m, n=n, k=k, **more)


def _time_module(kernel, args, p):
    """Samples of per-call seconds of a compiled kernel (TVM's time_evaluator); number chosen so
    one sample lasts min_sample_s, repeat cut to the budget."""
    from experiments.gemm import tvm_ladder
    once = tvm_ladder.time_module(kernel, args, number=1, repeat=1, warmup=1)[0]
    number = max(1, math.ceil(p["min_sample_s"] / max(once, 1e-9)))
    repeat = harness.repeats_within(once, number, p["repeat"], p["budget_s"], p["min_repeat"])
    return tvm_ladder.time_module(kernel, args, number=number, repeat=repeat, warmup=p["warmup"]), number


def _matmul_call(a, b, c):
    return lambda: np.matmul(a, b, out=c)


def _numpy_case(h, shape, threads, blas, stage, p):
    """Time NumPy on the same shape (the historical table's right-hand column)."""
    from threadpoolctl import threadpool_info, threadpool_limits

    from experiments.gemm.check import error_report
    m, n, k = shape
    case = {"impl": "numpy", "stage": stage, "m": m, "n": n, "k": k, "dtype": "float32",
            "threads": threads, "blas_env": blas}
    case_id = _case_id("numpy", stage, shape, threads=threads, blas=blas)

    def operands():
        rng = np.random.default_rng(p["seed"])
        a = rng.uniform(-1, 1, (m, k)).astype("float32")
        b = rng.uniform(-1, 1, (k, n)).astype("float32")
        return a, b, np.empty((m, n), dtype="float32")

    def check(ops):
        a, b, c = ops
        np.matmul(a, b, out=c)
        return _finite_check(error_report(c, a, b), "float64 matmul")

    def extra(_):
        kernel = next(({k2: i.get(k2) for k2 in ("internal_api", "version", "architecture")}
                       for i in threadpool_info() if i.get("user_api") == "blas"), {})
        return {"flops_per_call": 2 * m * n * k, "blas_kernel": kernel,
                "isa": BLAS_ISA.get(str(kernel.get("architecture", "")).lower(), "unknown"),
                "process": "own child process; TVM not imported" if "tvm" not in sys.modules else "TVM process",
                "blas_env_vars": {v: os.environ.get(v, "unset") for v in PINNING_VARS}}

    with threadpool_limits(limits=threads, user_api="blas"):
        return h.measure(case_id, case, build=operands, check=check, call=lambda ops: _matmul_call(*ops),
                         extra=extra, mismatch="NumPy result differs from float64",
                         note=lambda o: {"gflops": 2 * m * n * k / o.p50() / 1e9})


def _stage_case(h, stage, shape, threads, p, target, save_artifacts, device=None, tiles=None,
                impl="tvm", more=None):
    """One ladder stage: build here; check and time here, or on `device` through RPC.

    `tiles` (micro-kernel MR/NR/KC...) become part of the case; impl "tvm_grid" marks a
    grid-search candidate (kept out of the stage tables); `more` is added to extra."""
    from experiments.gemm import tvm_ladder
    m, n, k = shape
    case = {"impl": impl, "stage": stage, "m": m, "n": n, "k": k, "dtype": "float32",
            "threads": threads, "target": _target_dict(target)}
    if tiles:
        case["tiles"] = dict(tiles)
    if device is not None:
        case["via"] = f"rpc:{device.key}"
    case_id = _case_id(impl, stage, shape, threads=threads,
                       **({key: tiles[key] for key in tvm_ladder.GRID_KEYS} if impl == "tvm_grid" else {}))
    summary = {}

    def extra(built):
        evidence = tvm_ladder.codegen_evidence(built.asm)
        summary.update({f"fma_{width}": int(count) for width, count in sorted(evidence.get("fma_packed", {}).items())})
        out = {"flops_per_call": 2 * m * n * k, "compile_seconds": built.compile_seconds,
               "schedule_params": built.params, "codegen": _evidence_summary(evidence), "tuned": False,
               "isa": tvm_ladder.isa_from_evidence(evidence), **(more or {})}
        if save_artifacts:
            base = asm.listing_base({"stage": stage, "m": m, "n": n, "k": k, "threads": threads})
            out["artifacts"] = {
                "tensorir": h.artifact(f"{base}.tir.py", built.lowered_text)[1],
                "trace": h.artifact(f"{base}.trace.py", built.trace_text)[1],
                "asm": h.artifact(f"{base}.s", built.asm)[1],
            }
            if stage == "baseline":
                out["artifacts"]["c_source"] = h.artifact(f"{base}.c", tvm_ladder.c_source(m, n, k, "baseline"))[1]
        return out

    name = f"{stage}_{m}x{n}x{k}_t{threads}"  # of the uploaded module when measured through RPC
    if impl == "tvm_grid":
        name += "".join(f"_{key}{tiles[key]}" for key in tvm_ladder.GRID_KEYS)
    return _gemm_case(h, case_id, case, lambda: tvm_ladder.build_stage(stage, m, n, k, target, tiles=tiles),
                      shape, p, extra, lambda: summary, device=device, name=name, failed_extra=dict)


def _gemm_case(h, case_id, case, build, shape, p, extra, summary, *, device=None, name=None, failed_extra=dict,
               dev=None, exact=False):
    """A compiled GEMM: ``build()`` here, then checked against float64 and timed here (on ``dev``,
    default the CPU), or uploaded to the RPC ``device`` as ``name`` and checked and timed there.
    ``extra(built)``; ``summary()`` ends the log line; ``failed_extra()`` is the extra of a case
    whose device was lost. ``exact``: the u8 x s8 -> s32 kernel,
    checked exactly against NumPy's int32 product."""
    import tvm

    from experiments.gemm import tvm_ladder, vnni
    m, n, k = shape
    on_device = _device_step(device, failed_extra)
    operands = vnni.int8_operands if exact else tvm_ladder.random_operands

    def make():
        built = build()
        if device is None:
            return built, built, dev or tvm.cpu(0)
        kernel = on_device(device.load, built.executable, name)
        return built, kernel, kernel.device

    def check(kernel, where):
        a, b = operands(m, n, k, p["seed"])
        if exact:
            return dict(vnni.exact_check(vnni.run_int8(kernel.func, a, b), a, b), reference="numpy int32 matmul, exact")
        return _finite_check(tvm_ladder.error_report(tvm_ladder.run_gemm(kernel.func, a, b, device=where), a, b),
                             "float64 matmul, |C-ref| <= K*eps32*(|A||B|)")

    def time(made):
        _, kernel, where = made

        def timed():   # the operands' upload is on the device too: a loss there fails this case only
            a, b = operands(m, n, k, p["seed"])
            args = [tvm.runtime.tensor(x, where) for x in (a, b, np.zeros((m, n), "int32" if exact else "float32"))]
            return _time_module(kernel, args, p)
        return on_device(timed)

    rpc = {"device": device.key} if device is not None else {}
    return h.measure(case_id, case, build=make, check=lambda made: on_device(check, *made[1:]), call=None,
                     time=time, extra=lambda made: extra(made[0]),
                     mismatch="INT8 result differs from NumPy's int32 product" if exact
                     else "TVM result differs from float64 reference",
                     note=lambda o: ({**summary(), **rpc} if o.check["passed"] else {"check": "failed", **{
                         key[4:]: o.check[key] for key in ("max_abs_err", "max_rel_err") if key in o.check}}))


def _device_step(device, failed_extra):
    """Runs a step of a case; on an RPC device a failure is the device lost: that case fails
    (run_failed, with extra ``failed_extra()``), the run goes on."""
    def step(fn, *args, **kwargs):
        if device is None:
            return fn(*args, **kwargs)
        try:
            return fn(*args, **kwargs)
        except Exception as exc:  # noqa: BLE001 - a lost device fails this case; the run goes on
            device.drop()
            raise harness.CaseFailed("run_failed", f"device {device.key!r} lost: {type(exc).__name__}: {exc}",
                                     extra=failed_extra()) from exc
    return step


def _evidence_summary(evidence):
    """Keep the JSON-able, comparable part of the codegen evidence."""
    keep = {}
    for key, value in evidence.items():
        try:
            json.dumps(value)
        except TypeError:
            continue
        keep[key] = value
    return keep


def _all_failed_status(failures):
    """A tuning where no trial ran: timeout when every failure timed out, else run_failed."""
    counts = {k: v or 0 for k, v in failures.items() if k != "numeric_check_failed"}
    return "timeout" if counts.get("timeout") and not (counts.get("run_failed") or counts.get("build_failed")) \
        else "run_failed"


TUNE_STAGE = {"default": "autotuned", "microkernel": "autotuned_microkernel"}


def _tune_case(h, shape, threads, p, target, device=None, space="default"):
    """MetaSchedule on one shape; with `device`, candidates are measured on it by the RPC runner
    and the best kernel is checked and timed there like the ladder stages.

    space "default" is MetaSchedule's own space (stage "autotuned"); "microkernel" searches the
    micro-kernel stage's decisions (stage "autotuned_microkernel", its own database)."""
    from experiments.gemm import ms_tune, tvm_ladder
    import tvm
    m, n, k = shape
    trials = p["tune"]["trials"]
    stage = TUNE_STAGE[space]
    case = {"impl": "tvm", "stage": stage, "m": m, "n": n, "k": k, "dtype": "float32",
            "threads": threads, "trials": trials, "tuner": "MetaSchedule",
            "target": _target_dict(target)}
    if space != "default":
        case["space"] = space
    if device is not None:
        case["via"] = f"rpc:{device.key}"
    case_id = _case_id("tvm", stage, shape, threads=threads)
    done = {}
    start, start_from = None, None
    if space == "microkernel":   # the search starts from the grid's choice at this thread count
        start, _, start_from = _microkernel_tiles(h, threads, p, target, device)

    def tune():
        runner = None
        if device is not None:   # its worker process starts now, so only when it will tune
            from experiments import remote
            try:
                runner = remote.tuning_runner(device.tracker, device.key, threads, p["tune"].get("rpc_timeout_s", 60))
            except Exception as exc:  # noqa: BLE001
                raise harness.CaseFailed("run_failed", f"the RPC runner for {device.key!r} did not start: "
                                                       f"{type(exc).__name__}: {exc}") from exc
        work_dir, work_ref = h.artifact(f"tune-{m}x{n}x{k}-t{threads}" + ("" if space == "default" else f"-{space}"))
        work_dir.mkdir(parents=True, exist_ok=True)
        h.note(case_id, tuner="MetaSchedule", trials=int(trials), **({"device": device.key} if device else {}))
        if device is not None:
            device.drop()   # hand the device back: the RPC runner requests it from the tracker per trial
        try:
            result = ms_tune.tune(m, n, k, target, work_dir, max_trials=trials, num_threads=threads,
                                     seed=p["seed"], reuse=False, runner=runner, space=space, start=start)
        except Exception as exc:  # noqa: BLE001
            if device is not None:   # the tracker or the device went away in the middle of tuning
                raise harness.CaseFailed(
                    "run_failed", f"tuning through RPC on {device.key!r} failed: {type(exc).__name__}: {exc}",
                    extra={"tuned": True, "runner": "RPCRunner", "database": work_ref}) from exc
            raise harness.CaseFailed("compile_failed", f"tuning failed: {type(exc).__name__}: {exc}") from exc
        extra = {"flops_per_call": 2 * m * n * k, "tuned": True, "tuner": "MetaSchedule (replaces AutoTVM)",
                 "tvm_version": tvm.__version__, "trials_done": result.trials_done,
                 "total_records": result.total_records, "tuning_seconds": result.tuning_seconds,
                 "wall_seconds": result.wall_seconds, "cost_model": result.cost_model,
                 "failures": result.failures, "curve": _with_gflops(result.curve, 2 * m * n * k),
                 "notes": result.notes, "database": work_ref, "runner": result.runner, "space": space}
        if space == "microkernel":
            extra["start_tiles"], extra["start_from"] = start, start_from or "defaults (no grid)"
        if result.mod is None:
            raise harness.CaseFailed(_all_failed_status(result.failures), "no tuning trial succeeded"
                                     + (f" on device {device.key!r} (lost or unreachable?)" if device else "")
                                     + f"; failures {json.dumps(result.failures, sort_keys=True)}", extra=extra)
        evidence = tvm_ladder.codegen_evidence(result.asm)
        extra["codegen"] = _evidence_summary(evidence)
        extra["isa"] = tvm_ladder.isa_from_evidence(evidence)
        base = asm.listing_base({"stage": stage, "m": m, "n": n, "k": k, "threads": threads})
        # the assembly too: the report counts the FMAs again from it (a searched program has no earlier run
        # to be held to, and without it the page does not print its counts)
        extra["artifacts"] = {"trace": h.artifact(f"{base}.trace.py", result.best_trace or "")[1],
                              "asm": h.artifact(f"{base}.s", result.asm)[1]}
        done.update(extra=extra, summary={"trials": int(result.trials_done), "tune_s": float(result.tuning_seconds)})
        return result

    return _gemm_case(h, case_id, case, tune, shape, p, lambda _: done["extra"], lambda: done["summary"],
                      device=device, name=f"{stage}_{m}x{n}x{k}_t{threads}", failed_extra=lambda: done["extra"])


def _with_gflops(curve, flops):
    """Per-trial GFLOPS beside the seconds (None for a failed trial), for GFLOPS-vs-trials plots."""
    return [dict(point, gflops=flops / point["run_secs"] / 1e9 if point.get("run_secs") else None,
                 best_gflops=flops / point["best_so_far_s"] / 1e9 if point.get("best_so_far_s") else None)
            for point in curve]


_GRID_CHOICE = {}


def _microkernel_tiles(h, threads, p, target, device=None):
    """(tiles, grid record ids, chosen id) for the micro-kernel stage at this thread count.

    The grid (profile `microkernel.grid`: small or large candidate lists for the target's
    ISA) runs once per thread count on `microkernel.grid_shape`; each candidate is its own
    record (impl tvm_grid), checked before it is timed; the fastest passing one (minimum
    sample: the grid chooses between designs) is used for every shape at that thread count."""
    from experiments.gemm import tvm_ladder
    if threads in _GRID_CHOICE:
        return _GRID_CHOICE[threads]
    cfg = p.get("microkernel") or {}
    shape = cfg.get("grid_shape")
    choice = (None, [], None)
    if shape:
        rows = [(_stage_case(h, "microkernel", tuple(shape), threads, p, target, False, device=device,
                             tiles=tiles, impl="tvm_grid"), tiles)
                for tiles in tvm_ladder.microkernel_grid(target, cfg.get("grid", "small"))]
        ok = [(rec, tiles) for rec, tiles in rows if rec["status"] == "ok"]
        best = min(ok, key=lambda row: row[0]["stats"]["min"]) if ok else None
        choice = (best[1] if best else None, [rec["id"] for rec, _ in rows], best[0]["id"] if best else None)
        h.say(f"micro-kernel grid, threads={threads}: chose {choice[0]} ({choice[2]})")
    _GRID_CHOICE[threads] = choice
    return choice


def _microkernel_case(h, shape, threads, p, target, save_artifacts, device=None):
    tiles, grid_ids, chosen = _microkernel_tiles(h, threads, p, target, device)
    more = {"grid": grid_ids, "tiles_chosen_by": chosen or "defaults (no grid)"}
    return _stage_case(h, "microkernel", shape, threads, p, target, save_artifacts, device=device,
                       tiles=tiles, more=more)


def _int8_case(h, shape, threads, p, target):
    """u8 x s8 -> s32 GEMM tensorized with VNNI vpdpbusd, exact against NumPy's int32 product.

    Timed where both the target and this host have AVX-512 VNNI; otherwise compiled for an
    explicit VNNI target and recorded as skipped, with its instruction counts as evidence."""
    from experiments.gemm import tvm_ladder, vnni
    import tvm
    m, n, k = shape
    build_target = target if vnni.target_has_vnni(target) else targets.with_num_cores(
        tvm.target.Target(vnni.VNNI_FALLBACK_TARGET), threads)
    runs_here = build_target is target and vnni.host_has_vnni()
    case = {"impl": "tvm_int8", "stage": "vnni", "m": m, "n": n, "k": k, "dtype": "uint8", "b_dtype": "int8", "acc_dtype": "int32",
            "threads": threads, "target": _target_dict(build_target), "tiles": vnni.default_tiles()}
    case_id = _case_id("tvm_int8", "vnni", shape, threads=threads)
    done = {}

    def build():
        sch, _, rt_mod, asm_text, seconds = vnni.build_int8(m, n, k, build_target, load=runs_here)
        evidence = tvm_ladder.codegen_evidence(asm_text)
        extra = {"flops_per_call": 2 * m * n * k, "ops": "integer multiply-adds x 2", "compile_seconds": seconds,
                 "intrinsic": vnni.INTRIN, "dot_instructions": vnni.dot_counts(asm_text),
                 "codegen": _evidence_summary(evidence), "isa": "avx512_vnni",
                 "fp32_peer": _case_id("tvm", "microkernel", shape, threads=threads)}
        base = asm.listing_base(case)
        extra["artifacts"] = {"tensorir": h.artifact(f"{base}.tir.py", sch.mod.script())[1],
                              "asm": h.artifact(f"{base}.s", asm_text)[1]}
        done["extra"] = extra
        if not runs_here:
            lacking = "this host lacks" if build_target is target else "the target lacks"
            reason = (f"{lacking} AVX-512 VNNI (target {json.dumps(_target_dict(target), sort_keys=True)}, "
                      f"/proc/cpuinfo avx512_vnni: {vnni.host_has_vnni()}); compiled for "
                      f"{json.dumps(_target_dict(build_target), sort_keys=True)} as evidence, not run")
            raise harness.CaseFailed("skipped", reason, extra=extra)
        return SimpleNamespace(rt_mod=rt_mod, func=rt_mod["main"])

    return _gemm_case(h, case_id, case, build, shape, p, lambda _: done["extra"],
                      lambda: {"vpdpbusd": int(done["extra"]["dot_instructions"]["vpdpbusd"])}, exact=True)


def run_tvm(h, threads):
    """Child role: every stage (and tuning) at one thread count (NumPy runs in children of its own)."""
    p = h.params
    in_use = targets.configure(threads)
    target = targets.host_target(threads)
    h.say(f"threads={threads} (TVM pool: {in_use}); target {json.dumps(_target_dict(target), sort_keys=True)}")
    for shape in p["shapes"]:
        save = list(shape) == list(p["artifact_shape"]) and threads == max(targets.thread_counts(p["threads"]))
        for stage in p["stages"]:
            if stage == "microkernel":
                _microkernel_case(h, tuple(shape), threads, p, target, save)
            else:
                _stage_case(h, stage, tuple(shape), threads, p, target, save)
        if _tunes(p, shape, threads):
            for space in p["tune"].get("spaces", ["default"]):
                _tune_case(h, tuple(shape), threads, p, target, space=space)
        int8 = p.get("int8") or {}
        if list(shape) in [list(s) for s in int8.get("shapes", [])] and threads in targets.thread_counts(int8.get("threads", [])):
            _int8_case(h, tuple(shape), threads, p, target)


def run_rpc(h):
    """Every stage, and MetaSchedule where the profile tunes, on a device through the tracker.

    Kernels and tuning candidates are built here for the device's target; NumPy peers are not
    run (they would time this host)."""
    from experiments import remote
    p, rpc = h.params, h.rpc
    device = remote.Device(rpc["tracker"], rpc["key"])
    h.say(f"RPC: tracker {rpc['tracker']}, key {rpc['key']}, target {json.dumps(rpc['target'], sort_keys=True)}; "
          "NumPy peers are not run through RPC; MetaSchedule measures on the device (RPCRunner)")
    for threads in targets.thread_counts(p["threads"]):
        target = targets.with_num_cores(rpc["target"], threads)
        device.drop()
        try:
            device.set_threads(threads)
        except Exception as exc:  # noqa: BLE001 - recorded by the cases below as a lost device
            h.say(f"threads={threads}: could not configure the device: {exc}")
            device.drop()
        for shape in p["shapes"]:
            for stage in p["stages"]:
                if stage == "microkernel":
                    _microkernel_case(h, tuple(shape), threads, p, target, False, device=device)
                else:
                    _stage_case(h, stage, tuple(shape), threads, p, target, False, device=device)
            if _tunes(p, shape, threads):
                for space in p["tune"].get("spaces", ["default"]):
                    _tune_case(h, tuple(shape), threads, p, target, device=device, space=space)


def _tunes(p, shape, threads):
    """The profile tunes this shape at this thread count."""
    return bool(p["tune"]["trials"]) and list(shape) in [list(s) for s in p["tune"]["shapes"]] \
        and threads in targets.thread_counts(p["tune"]["threads"])


def _cuda_build(m, n, k, target):
    """The GEMM scheduled for the GPU by dlight's Matmul rule (the CPU ladder binds no GPU threads)."""
    import time

    import tvm
    from tvm.s_tir import dlight as dl
    from experiments.gemm import tvm_ladder
    mod = tvm.IRModule({"main": tvm_ladder.gemm_prim_func(m, n, k)})
    with target:
        mod = dl.ApplyDefaultSchedule(dl.gpu.Matmul(), dl.gpu.Fallback())(mod)
    start = time.perf_counter()
    executable = tvm.compile(mod, target)
    rt_mod = executable.jit()
    return rt_mod, time.perf_counter() - start, mod.script()


def run_cuda(h, config):
    """GEMM on the local GPU for a CUDA target (profile param `target`, or retest --target).

    Every record says target kind cuda (impl tvm_cuda, so CPU tables never mix it in). Without a
    GPU each case is recorded as skipped with the reason; nothing is timed.
    """
    import tvm
    p = h.params
    exists = bool(tvm.cuda(0).exist)
    target = tvm.target.Target(config) if exists else None
    h.say(f"CUDA target {json.dumps(config, sort_keys=True)}; GPU present: {exists}")
    for shape in p["shapes"]:
        m, n, k = shape
        case = {"impl": "tvm_cuda", "stage": "dlight_matmul", "m": m, "n": n, "k": k, "dtype": "float32",
                "threads": None,   # no CPU thread count: the CPU tables never pick it up
                "target_kind": "cuda", "target": _target_dict(target) if target is not None else config}
        case_id = _case_id("tvm_cuda", "dlight_matmul", shape, target="cuda")
        if not exists:
            h.skip(case_id, case, "no CUDA device on this machine (tvm.cuda(0).exist is False); "
                                  "nothing compiled or timed")
            continue

        def build(m=m, n=n, k=k):
            rt_mod, seconds, script = _cuda_build(m, n, k, target)
            return SimpleNamespace(func=rt_mod["main"], rt_mod=rt_mod, seconds=seconds, script=script)

        def extra(built, m=m, n=n, k=k):
            return {"flops_per_call": 2 * m * n * k, "compile_seconds": built.seconds, "tuned": False,
                    "schedule": "dlight gpu.Matmul", "device_name": str(tvm.cuda(0).device_name),
                    "artifacts": {"tensorir": h.artifact(f"cuda-{m}x{n}x{k}.tir.py", built.script)[1]}}

        _gemm_case(h, case_id, case, build, tuple(shape), p, extra, lambda: {"device": "cuda", "schedule": "dlight"}, dev=tvm.cuda(0))


def _cuda_config(p):
    """The profile's target when it is a CUDA target (dict or JSON text), else None (host CPU)."""
    config = p.get("target")
    if isinstance(config, str):
        config = json.loads(config)
    return config if isinstance(config, dict) and config.get("kind") == "cuda" else None


def run_numpy(h, threads, blas):
    """Child role: NumPy on every shape at one thread count, in a process without TVM; `blas` is
    "configured" (the environment as set) or "best" (OpenBLAS pinning variables unset)."""
    if "tvm" in sys.modules:
        raise RuntimeError("the NumPy peer must be timed in a process that has not imported TVM")
    for shape in h.params["shapes"]:
        _numpy_case(h, tuple(shape), threads, blas, "any", h.params)


def run(h):
    if h.rpc:
        return run_rpc(h)
    if _cuda_config(h.params):
        return run_cuda(h, _cuda_config(h.params))
    if h.role:   # TVM's thread pool is sized once per process: one child per thread count
        kind, threads, *blas = h.role.split(":")
        if kind == "tvm":
            run_tvm(h, int(threads))
        else:
            run_numpy(h, int(threads), blas[0] if blas else "best")
        return
    for threads in targets.thread_counts(h.params["threads"]):
        h.child(f"tvm:{threads}", env={"TVM_NUM_THREADS": str(threads)})
        h.child(f"numpy:{threads}:configured")
        h.child(f"numpy:{threads}:best", unset=PINNING_VARS)


if __name__ == "__main__":
    harness.main(run)
