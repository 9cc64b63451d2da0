"""Where does end-to-end time go, and what does each group of seed §2 buy on real networks?

Groups measured here: A — TensorFlow (the business baseline), with ONNX Runtime
and TFLite (XNNPACK) as the peers a user would pick instead; B — TVM importing
the ONNX export and compiling with the default build (no fusion); C — B plus
the graph-level pipeline (fold + fuse). D (MetaSchedule) and E/F (INT8) are not
measured yet. Every engine is first checked against TensorFlow on natural
images and seeded noise; import, compile, cold and warm times are kept apart;
TVM's time is broken down per operator with the VM instrument hook.
"""
import hashlib
import tempfile
import time
from pathlib import Path

import numpy as np

from experiments import harness

ENGINES = ("tf", "ort", "tflite", "tvm_b", "tvm_c")
GROUP = {"tf": "A", "ort": "A-peer", "tflite": "A-peer", "tvm_b": "B", "tvm_c": "C"}


def _sha256(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _prepare(engine, model, paths, threads, size):
    """A runner and what preparing it cost (import/compile seconds, kernel counts)."""
    from experiments.e2e import engines
    info = {}
    if engine == "tf":
        return engines.prepare_tf(model, threads), info
    if engine == "ort":
        return engines.prepare_ort(paths["onnx"], threads), info
    if engine == "tflite":
        return engines.prepare_tflite(paths["tflite"], threads), info
    variant = engine[-1].upper()
    t0 = time.perf_counter()
    mod = engines.tvm_import_onnx(paths["onnx"], (1, size, size, 3))
    info["import_seconds"] = time.perf_counter() - t0
    target = engines.tvm_target(threads)
    t0 = time.perf_counter()
    executable = engines.tvm_compile(mod, target, variant)
    info["compile_seconds"] = time.perf_counter() - t0
    info["kernel_calls"] = engines.tvm_kernel_calls(executable)
    info["tuned"] = False
    info["target"] = str(target)
    return engines.prepare_tvm(executable, threads, variant), info


def _check(runner, inputs, reference, tolerance):
    from experiments.e2e import engines
    logits = np.concatenate([runner(x[None]) for x in inputs])
    agree = engines.agreement(logits, reference)
    passed = agree["top1_agree"] == 1.0 and agree["max_rel_err"] <= tolerance
    return {"reference": "TensorFlow logits on the same inputs (max_rel_err = max|Δ| / max|ref|)",
            "max_abs_err": agree["max_abs_err"], "max_rel_err": agree["max_rel_err"],
            "threshold": tolerance, "passed": bool(passed)}, agree


def measure_model(h, name, p, threads):
    from experiments.e2e import engines, models
    size = p["input_size"]
    model = models.build(name, seed=p["seed"], input_size=size)
    inputs = models.sample_inputs(p["n_check"], seed=p["seed"], input_size=size)
    reference = np.concatenate([model(x[None], training=False).numpy() for x in inputs])
    with tempfile.TemporaryDirectory() as tmp:
        paths = {"onnx": models.export_onnx(model, Path(tmp) / f"{name}.onnx", batch=1),
                 "tflite": models.export_tflite(model, Path(tmp) / f"{name}.tflite", batch=1)}
        model_files = {k: {"sha256": _sha256(v), "bytes": Path(v).stat().st_size} for k, v in paths.items()}
        for engine in p["engines"]:
            case = {"model": name, "engine": engine, "group": GROUP[engine], "batch": 1, "threads": threads,
                    "input_size": size, "seed": p["seed"]}
            case_id = f"e2e/model={name}/engine={engine}/batch=1/threads={threads}"
            old = h.reusable(case_id, case)
            if old:
                h.emit_reused(old)
                continue
            first = h.line() + 1
            try:
                runner, info = _prepare(engine, model, paths, threads, size)
            except Exception as exc:  # noqa: BLE001 - an import/compile failure is a finding
                h.say(f"{case_id}: compile failed: {exc}")
                h.emit(case_id=case_id, case=case, metric="time_per_call", unit="s", samples=[], warmup=0,
                       number=0, first_line=first, status="compile_failed", error=f"{type(exc).__name__}: {exc}",
                       check={"reference": "none", "max_abs_err": None, "max_rel_err": None, "threshold": None,
                              "passed": None}, extra={})
                continue
            t0 = time.perf_counter()
            runner(inputs[:1])
            info["cold_seconds"] = time.perf_counter() - t0
            check, agree = _check(runner, inputs, reference, p["tolerance"])
            extra = {"engine": runner.metadata(), "agreement": agree, "model_files": model_files,
                     "inputs": models.sample_names(p["n_check"]), **info}
            samples, number = [], 0
            if check["passed"]:
                call = lambda: runner(inputs[:1])  # noqa: E731
                samples, number = harness.sample(call, p)
                if engine.startswith("tvm"):
                    profile = engines.tvm_op_profile(runner.handle, [inputs[:1]])
                    extra["op_profile"] = [dict(op, seconds=float(op["seconds"])) for op in profile[:12]]
                    extra["op_profile_total_s"] = float(sum(op["seconds"] for op in profile))
            p50 = sorted(samples)[len(samples) // 2] * 1e3 if samples else float("nan")
            h.say(f"{case_id}: p50 {p50:.2f} ms, top1 {agree['top1_agree']:.2f}, rel err {agree['max_rel_err']:.1e}")
            h.emit(case_id=case_id, case=case, metric="time_per_call", unit="s", samples=samples,
                   warmup=p["warmup"] if samples else 0, number=number, check=check, first_line=first,
                   status="ok" if check["passed"] else "check_failed",
                   error=None if check["passed"] else "logits disagree with TensorFlow", extra=extra)


def run(h):
    import os
    from experiments.e2e import engines
    threads = os.cpu_count()
    engines.configure_tf_threads(threads)   # TF's pools are fixed once any layer is built
    for name in h.params["models"]:
        measure_model(h, name, h.params, threads)


if __name__ == "__main__":
    harness.main(run)
