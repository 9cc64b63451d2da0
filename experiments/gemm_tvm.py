"""Which TVM schedule step makes a GEMM fast on this CPU, and how close does tuning get?

Seed §23 re-measured with today's API: the stage ladder (baseline, blocking,
vectorization, loop permutation, packing, write cache, parallel) written with
tvm.s_tir.Schedule, then MetaSchedule (which replaces AutoTVM). Beyond the seed: a
BLIS-style micro-kernel stage with a small recorded grid over MR/NR/KC, MetaSchedule
over the micro-kernel's decisions beside its default space, and a u8 x s8 -> s32 GEMM
tensorized with VNNI (vpdpbusd) next to the FP32 kernel of the same shape. As in the
historical table, NumPy is timed in the same run beside every stage; the
machine's best BLAS kernel is timed too, in a child process with the
OpenBLAS pinning variables unset. Every kernel is checked against float64
before it is timed; the generated assembly is searched for vector FMAs.

TVM's thread pool is sized once per process, so each thread count runs in its
own child process with TVM_NUM_THREADS set.
"""
import json
import math
import os
import subprocess
import sys

import numpy as np

from experiments import harness, targets
from study.identity import BLAS_ISA  # ISA of OpenBLAS's kernel, for ISA-matched peaks

PINNING_VARS = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
ROLE = "GEMM_TVM_ROLE"


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


def _shape_key(shape):
    m, n, k = shape
    return f"m={m}/n={n}/k={k}"


def _timed(h, fn, args_or_call, p, tvm_module=None):
    """Samples of per-call seconds; number chosen so one sample lasts min_sample_s."""
    from experiments.gemm import tvm_ladder
    if tvm_module is not None:
        once = tvm_ladder.time_module(tvm_module, args_or_call, number=1, repeat=1, warmup=1)[0]
        number = max(1, math.ceil(p["min_sample_s"] / max(once, 1e-9)))
        repeat = harness.repeats_within(once, number, p["repeat"], p["budget_s"], p["min_repeat"])
        return tvm_ladder.time_module(tvm_module, args_or_call, number=number, repeat=repeat,
                                      warmup=p["warmup"]), number
    return harness.sample(fn, p)


def _numpy_case(h, shape, threads, blas, stage, p):
    """Time NumPy on the same shape (the historical table's right-hand column)."""
    from threadpoolctl import threadpool_info, threadpool_limits
    m, n, k = shape
    case = {"impl": "numpy", "stage": stage, "m": m, "n": n, "k": k, "dtype": "float32",
            "threads": threads, "blas_env": blas}
    case_id = f"gemm_tvm/impl=numpy/stage={stage}/{_shape_key(shape)}/threads={threads}/blas={blas}"
    old = h.reusable(case_id, case)
    if old:
        return h.emit_reused(old)
    first = h.line() + 1
    rng = np.random.default_rng(p["seed"])
    a = rng.uniform(-1, 1, (m, k)).astype("float32")
    b = rng.uniform(-1, 1, (k, n)).astype("float32")
    c = np.empty((m, n), dtype="float32")
    with threadpool_limits(limits=threads, user_api="blas"):
        np.matmul(a, b, out=c)
        from experiments.gemm import tvm_ladder
        check = _finite_check(tvm_ladder.error_report(c, a, b), "float64 matmul")
        samples, number = _timed(h, lambda: np.matmul(a, b, out=c), None, p)
    kernel = next(({k2: i.get(k2) for k2 in ("internal_api", "version", "architecture")}
                   for i in threadpool_info() if i.get("user_api") == "blas"), {})
    return h.emit(case_id=case_id, case=case, metric="time_per_call", unit="s", samples=samples,
                  warmup=p["warmup"], number=number, check=check, first_line=first,
                  status="ok" if check["passed"] else "check_failed",
                  error=None if check["passed"] else "NumPy result differs from float64",
                  extra={"flops_per_call": 2 * m * n * k, "blas_kernel": kernel,
                         "isa": BLAS_ISA.get(str(kernel.get("architecture", "")).lower(), "unknown")})


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
    case_id = f"gemm_tvm/impl={impl}/stage={stage}/{_shape_key(shape)}/threads={threads}"
    if impl == "tvm_grid":
        case_id += "".join(f"/{key}={tiles[key]}" for key in ("mr", "nr", "kc"))
    old = h.reusable(case_id, case)
    if old:
        return h.emit_reused(old)
    first = h.line() + 1
    try:
        built = tvm_ladder.build_stage(stage, m, n, k, target, tiles=tiles)
    except Exception as exc:  # noqa: BLE001 - a failed build is a result, recorded as such
        h.say(f"{case_id}: compile failed: {exc}")
        return _failed(h, case_id, case, first, "compile_failed", f"{type(exc).__name__}: {exc}")
    evidence = tvm_ladder.codegen_evidence(built.asm)
    extra = {"flops_per_call": 2 * m * n * k, "compile_seconds": built.compile_seconds,
             "schedule_params": built.params, "codegen": _evidence_summary(evidence), "tuned": False,
             "isa": tvm_ladder.isa_from_evidence(evidence), **(more or {})}
    if save_artifacts:
        base = f"{stage}-{m}x{n}x{k}-t{threads}"
        extra["artifacts"] = {
            "tensorir": h.artifact(f"{base}.tir.py", built.lowered_text)[1],
            "trace": h.artifact(f"{base}.trace.py", built.trace_text)[1],
            "asm": h.artifact(f"{base}.s", built.asm)[1],
        }
        if stage == "baseline":
            extra["artifacts"]["c_source"] = h.artifact(f"{base}.c", tvm_ladder.c_source(m, n, k, "baseline"))[1]
    summary = f"vector FMA {evidence.get('fma_packed', {})}"
    name = f"{stage}_{m}x{n}x{k}_t{threads}"  # of the uploaded module when measured through RPC
    if impl == "tvm_grid":
        name += "".join(f"_{key}{tiles[key]}" for key in ("mr", "nr", "kc"))
    return _measure(h, case_id, case, first, built, shape, p, extra, summary, device, name, failed_extra={})


def _measure(h, case_id, case, first, built, shape, p, extra, summary, device, name, failed_extra):
    """Check and time `built` here, or upload its executable as `name` and do both on `device`."""
    if device is None:
        return _check_then_time(h, case_id, case, first, built, shape, p, extra, summary)
    try:
        kernel = device.load(built.executable, name)
        return _check_then_time(h, case_id, case, first, kernel, shape, p, extra, summary + " (RPC)",
                                dev=kernel.device)
    except Exception as exc:  # noqa: BLE001 - a lost device fails this case; the run goes on
        device.drop()
        h.say(f"{case_id}: device lost: {exc}")
        return _failed(h, case_id, case, first, "run_failed",
                       f"device {device.key!r} lost: {type(exc).__name__}: {exc}", extra=failed_extra)


def _check_then_time(h, case_id, case, first, compiled, shape, p, extra, summary, dev=None):
    """Check a compiled GEMM against float64; time it only when the check passes.

    dev is the device holding compiled (a remote device through RPC), default the local CPU.
    """
    from experiments.gemm import tvm_ladder
    import tvm
    dev = dev or tvm.cpu(0)
    m, n, k = shape
    a, b = tvm_ladder.random_operands(m, n, k, p["seed"])
    check = _finite_check(tvm_ladder.error_report(tvm_ladder.run_gemm(compiled.func, a, b, device=dev), a, b),
                          "float64 matmul, |C-ref| <= K*eps32*(|A||B|)")
    if not check["passed"]:
        h.say(f"{case_id}: CHECK FAILED {check}")
        return h.emit(case_id=case_id, case=case, metric="time_per_call", unit="s", samples=[],
                      warmup=0, number=0, check=check, first_line=first, status="check_failed",
                      error="TVM result differs from float64 reference", extra=extra)
    args = [tvm.runtime.tensor(x, dev) for x in (a, b, np.zeros((m, n), "float32"))]
    samples, number = _timed(h, None, args, p, tvm_module=compiled)
    h.say(f"{case_id}: p50 {sorted(samples)[len(samples) // 2] * 1e3:.3f} ms, {summary}")
    return h.emit(case_id=case_id, case=case, metric="time_per_call", unit="s", samples=samples,
                  warmup=p["warmup"], number=number, check=check, first_line=first, extra=extra)


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


def _failed(h, case_id, case, first, status, error, extra=None):
    return h.emit_unmeasured(case_id=case_id, case=case, status=status, error=error, first_line=first,
                             extra=extra)


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
    from experiments.gemm import tvm_ladder
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
    case_id = f"gemm_tvm/impl=tvm/stage={stage}/{_shape_key(shape)}/threads={threads}"
    old = h.reusable(case_id, case)
    if old:
        return h.emit_reused(old)
    runner = None
    if device is not None:   # its worker process starts now, so only when it will tune
        from experiments import remote
        runner = remote.tuning_runner(device.tracker, device.key, threads, p["tune"].get("rpc_timeout_s", 60))
    first = h.line() + 1
    work_dir, work_ref = h.artifact(f"tune-{m}x{n}x{k}-t{threads}" + ("" if space == "default" else f"-{space}"))
    work_dir.mkdir(parents=True, exist_ok=True)
    h.say(f"{case_id}: MetaSchedule, {trials} trials" + (f", measured through RPC ({device.key})" if device else ""))
    if device is not None:
        device.drop()   # hand the device back: the RPC runner requests it from the tracker per trial
    try:
        result = tvm_ladder.tune(m, n, k, target, work_dir, max_trials=trials, num_threads=threads,
                                 seed=p["seed"], reuse=False, runner=runner, space=space)
    except Exception as exc:  # noqa: BLE001
        if device is not None:   # the tracker or the device went away in the middle of tuning
            h.say(f"{case_id}: tuning through RPC failed: {exc}")
            return _failed(h, case_id, case, first, "run_failed",
                           f"tuning through RPC on {device.key!r} failed: {type(exc).__name__}: {exc}",
                           extra={"tuned": True, "runner": "RPCRunner", "database": work_ref})
        return _failed(h, case_id, case, first, "compile_failed", f"tuning failed: {type(exc).__name__}: {exc}")
    extra = {"flops_per_call": 2 * m * n * k, "tuned": True, "tuner": "MetaSchedule (replaces AutoTVM)",
             "tvm_version": tvm.__version__, "trials_done": result.trials_done,
             "total_records": result.total_records, "tuning_seconds": result.tuning_seconds,
             "wall_seconds": result.wall_seconds, "cost_model": result.cost_model,
             "failures": result.failures, "curve": _with_gflops(result.curve, 2 * m * n * k),
             "notes": result.notes, "database": work_ref, "runner": result.runner, "space": space}
    if result.mod is None:
        status = _all_failed_status(result.failures)
        h.say(f"{case_id}: no tuning trial succeeded: {result.failures}")
        return _failed(h, case_id, case, first, status, "no tuning trial succeeded"
                       + (f" on device {device.key!r} (lost or unreachable?)" if device else "")
                       + f"; failures {json.dumps(result.failures, sort_keys=True)}", extra=extra)
    evidence = tvm_ladder.codegen_evidence(result.asm)
    extra["codegen"] = _evidence_summary(evidence)
    extra["isa"] = tvm_ladder.isa_from_evidence(evidence)
    extra["artifacts"] = {"trace": h.artifact(f"{stage}-{m}x{n}x{k}-t{threads}.trace.py",
                                              result.best_trace or "")[1]}
    summary = f"tuned after {result.trials_done} trials in {result.tuning_seconds:.0f} s"
    return _measure(h, case_id, case, first, result, shape, p, extra, summary, device,
                    f"{stage}_{m}x{n}x{k}_t{threads}", failed_extra=extra)


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
    case_id = f"gemm_tvm/impl=tvm_int8/stage=vnni/{_shape_key(shape)}/threads={threads}"
    old = h.reusable(case_id, case)
    if old:
        return h.emit_reused(old)
    first = h.line() + 1
    try:
        sch, _, rt_mod, asm, seconds = vnni.build_int8(m, n, k, build_target, load=runs_here)
    except Exception as exc:  # noqa: BLE001 - a failed build is a result, recorded as such
        h.say(f"{case_id}: compile failed: {exc}")
        return _failed(h, case_id, case, first, "compile_failed", f"{type(exc).__name__}: {exc}")
    evidence = tvm_ladder.codegen_evidence(asm)
    extra = {"flops_per_call": 2 * m * n * k, "ops": "integer multiply-adds x 2", "compile_seconds": seconds,
             "intrinsic": vnni.INTRIN, "dot_instructions": vnni.dot_counts(asm),
             "codegen": _evidence_summary(evidence), "isa": "avx512_vnni",
             "fp32_peer": f"gemm_tvm/impl=tvm/stage=microkernel/{_shape_key(shape)}/threads={threads}"}
    extra["artifacts"] = {"tensorir": h.artifact(f"vnni-{m}x{n}x{k}-t{threads}.tir.py", sch.mod.script())[1],
                          "asm": h.artifact(f"vnni-{m}x{n}x{k}-t{threads}.s", asm)[1]}
    if not runs_here:
        lacking = "this host lacks" if build_target is target else "the target lacks"
        reason = (f"{lacking} AVX-512 VNNI (target {json.dumps(_target_dict(target), sort_keys=True)}, "
                  f"/proc/cpuinfo avx512_vnni: {vnni.host_has_vnni()}); compiled for "
                  f"{json.dumps(_target_dict(build_target), sort_keys=True)} as evidence, not run")
        h.say(f"{case_id}: skipped: {reason}; vpdpbusd {extra['dot_instructions']['vpdpbusd']}")
        return _failed(h, case_id, case, first, "skipped", reason, extra=extra)
    a, b = vnni.int8_operands(m, n, k, p["seed"])
    check = dict(vnni.exact_check(vnni.run_int8(rt_mod["main"], a, b), a, b), reference="numpy int32 matmul, exact")
    if not check["passed"]:
        h.say(f"{case_id}: CHECK FAILED {check}")
        return h.emit(case_id=case_id, case=case, metric="time_per_call", unit="s", samples=[], warmup=0,
                      number=0, check=check, first_line=first, status="check_failed",
                      error="INT8 result differs from NumPy's int32 product", extra=extra)
    args = [tvm.runtime.tensor(x) for x in (a, b, np.zeros((m, n), "int32"))]
    samples, number = _timed(h, None, args, p, tvm_module=rt_mod)
    h.say(f"{case_id}: p50 {sorted(samples)[len(samples) // 2] * 1e3:.3f} ms, vpdpbusd {extra['dot_instructions']['vpdpbusd']}")
    return h.emit(case_id=case_id, case=case, metric="time_per_call", unit="s", samples=samples,
                  warmup=p["warmup"], number=number, check=check, first_line=first, extra=extra)


def run_tvm(h, threads):
    """Child role: every stage (and tuning) at one thread count, NumPy beside each stage."""
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
            _numpy_case(h, tuple(shape), threads, "configured", stage, p)
        if _tunes(p, shape, threads):
            for space in p["tune"].get("spaces", ["default"]):
                _tune_case(h, tuple(shape), threads, p, target, space=space)
                _numpy_case(h, tuple(shape), threads, "configured", TUNE_STAGE[space], p)
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
    from types import SimpleNamespace
    p = h.params
    exists = bool(tvm.cuda(0).exist)
    target = tvm.target.Target(config) if exists else None
    h.say(f"CUDA target {json.dumps(config, sort_keys=True)}; GPU present: {exists}")
    for shape in p["shapes"]:
        m, n, k = shape
        case = {"impl": "tvm_cuda", "stage": "dlight_matmul", "m": m, "n": n, "k": k, "dtype": "float32",
                "threads": None,   # no CPU thread count: the CPU tables never pick it up
                "target_kind": "cuda", "target": _target_dict(target) if target is not None else config}
        case_id = f"gemm_tvm/impl=tvm_cuda/stage=dlight_matmul/{_shape_key(shape)}/target=cuda"
        first = h.line() + 1
        if not exists:
            reason = "no CUDA device on this machine (tvm.cuda(0).exist is False); nothing compiled or timed"
            h.say(f"{case_id}: skipped: {reason}")
            _failed(h, case_id, case, first, "skipped", reason)
            continue
        old = h.reusable(case_id, case)
        if old:
            h.emit_reused(old)
            continue
        try:
            rt_mod, seconds, script = _cuda_build(m, n, k, target)
        except Exception as exc:  # noqa: BLE001 - a failed build is a result, recorded as such
            h.say(f"{case_id}: compile failed: {exc}")
            _failed(h, case_id, case, first, "compile_failed", f"{type(exc).__name__}: {exc}")
            continue
        extra = {"flops_per_call": 2 * m * n * k, "compile_seconds": seconds, "tuned": False,
                 "schedule": "dlight gpu.Matmul", "device_name": str(tvm.cuda(0).device_name),
                 "artifacts": {"tensorir": h.artifact(f"cuda-{m}x{n}x{k}.tir.py", script)[1]}}
        compiled = SimpleNamespace(func=rt_mod["main"], rt_mod=rt_mod)
        _check_then_time(h, case_id, case, first, compiled, tuple(shape), p, extra, "CUDA (dlight)",
                         dev=tvm.cuda(0))


def _cuda_config(p):
    """The profile's target when it is a CUDA target (dict or JSON text), else None (host CPU)."""
    config = p.get("target")
    if isinstance(config, str):
        config = json.loads(config)
    return config if isinstance(config, dict) and config.get("kind") == "cuda" else None


def run_numpy_best(h, threads):
    for shape in h.params["shapes"]:
        _numpy_case(h, tuple(shape), threads, "best", "any", h.params)


def run(h):
    if h.rpc:
        return run_rpc(h)
    if _cuda_config(h.params):
        return run_cuda(h, _cuda_config(h.params))
    role = os.environ.get(ROLE)
    if role:
        kind, threads = role.split(":")
        (run_tvm if kind == "tvm" else run_numpy_best)(h, int(threads))
        return
    for threads in targets.thread_counts(h.params["threads"]):
        env = dict(os.environ, TVM_NUM_THREADS=str(threads))
        subprocess.run([sys.executable, "-m", "experiments.gemm_tvm", *sys.argv[1:]],
                       env=dict(env, **{ROLE: f"tvm:{threads}"}), check=True)
        best_env = {k: v for k, v in env.items() if k not in PINNING_VARS}
        subprocess.run([sys.executable, "-m", "experiments.gemm_tvm", *sys.argv[1:]],
                       env=dict(best_env, **{ROLE: f"numpy:{threads}"}), check=True)


if __name__ == "__main__":
    harness.main(run)
