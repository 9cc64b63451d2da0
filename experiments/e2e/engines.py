"""Inference runners behind one interface, TVM compile variants, op profile, agreement.

Every ``prepare_*`` returns a :class:`Runner`: call it with one float32 NHWC
batch, get NumPy logits back; ``runner.metadata()`` says which engine,
version and thread count produced them.

* :func:`prepare_tf` -- Keras model under ``tf.function(jit_compile=False)``
  (no XLA); intra-/inter-op pools from :func:`configure_tf_threads`.
* :func:`prepare_ort` -- ONNX Runtime, CPU execution provider, all graph
  optimisations, ``intra_op_num_threads``.
* :func:`prepare_tflite` -- ``tf.lite.Interpreter`` with ``num_threads``; its
  default op resolver applies the XNNPACK delegate (float32).
* :func:`tvm_import_onnx` / :func:`tvm_compile` / :func:`prepare_tvm` -- the
  ONNX file through ``tvm.relax.frontend.onnx.from_onnx`` (weights bound as
  constants), compiled as variant ``"B"`` or ``"C"`` (see
  :func:`tvm_compile`) and run on ``relax.VirtualMachine``.
* :func:`tvm_op_profile` -- per-callee wall time of one VM run via
  ``vm.set_instrument``.
* :func:`agreement` -- logits against a reference.

Nothing here records or loops for timing; callers time the runners.

TVM 0.27 facts this module relies on (read from the installed wheel):

* ``tvm.compile(mod, target)`` runs ``relax.get_pipeline("default")`` =
  ``default_build_pipeline``: DispatchSampling, DispatchSortScan,
  LegalizeOps, RewriteDataflowReshape, ToNonDataflow, RemovePurityChecking,
  CallTIRRewrite, StaticPlanBlockMemory, RewriteCUDAGraph, LowerAllocTensor,
  KillAfterLastUse, LowerRuntimeBuiltin, ComputePrimValue, VMShapeLower,
  AttachGlobalSymbol -- no FoldConstant, no fusion, one kernel per op.  Only
  GPU targets switch to the target's own pipeline (vm_build.py).
* ``relax.get_default_pipeline(llvm target)`` is
  ``relax.backend.cpu_generic.get_default_pipeline``: the same dispatch
  passes, then LegalizeOps, AnnotateTIROpPattern, FoldConstant, FuseOps,
  FuseTIR, then the same lowering/finalisation passes (without
  RewriteCUDAGraph), all inside ``with target``.
* Neither applies a TensorIR schedule (no DLight on CPU, no MetaSchedule):
  kernels are plain loop nests, single-threaded, vectorised only by LLVM.
  ``num-cores`` in the target is read only by MetaSchedule; the runtime pool
  size is set by :func:`configure_tvm_threads`.
"""

from __future__ import annotations

import dataclasses
import os
import time
import types
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from experiments import targets
from study import leftovers

TVM_VARIANTS = types.MappingProxyType({
    "B": "tvm.compile default (generic build pipeline: legalize + lower, no folding, no fusion)",
    "C": "relax.get_default_pipeline(target) (legalize, FoldConstant, FuseOps, FuseTIR, lower)",
})


@dataclasses.dataclass(frozen=True)
class Runner:
    """A prepared engine: ``runner(batch) -> logits`` plus what produced them."""

    fn: Callable[[np.ndarray], np.ndarray]
    engine: str
    version: str
    threads: int
    details: dict[str, Any] = dataclasses.field(default_factory=dict)
    handle: Any = None  # the session / interpreter / VM, for callers that need it
    executable: Any = None  # TVM: what :func:`export` writes for timing in a process of its own

    def __call__(self, batch: np.ndarray) -> np.ndarray:
        """Run one NHWC float32 batch; return float32 logits ``(N, classes)``."""
        return self.fn(np.ascontiguousarray(batch, dtype=np.float32))

    def metadata(self) -> dict[str, Any]:
        """Engine, version, threads and engine-specific details (JSON-friendly; no handle)."""
        return {"engine": self.engine, "version": self.version, "threads": self.threads,
                **self.details}


# ---------------------------------------------------------------------------
# TensorFlow
# ---------------------------------------------------------------------------


def configure_tf_threads(threads: int, inter_op: int = 1) -> dict[str, int]:
    """Set TensorFlow's intra-/inter-op pool sizes; return the sizes in force.

    TF fixes both pools when its eager context starts (any tensor or Keras
    layer creation does that), after which a *different* value raises
    ``RuntimeError``.  Call this before building the model; calling it again
    with the same values is harmless.
    """
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import tensorflow as tf
    try:
        tf.config.threading.set_intra_op_parallelism_threads(int(threads))
        tf.config.threading.set_inter_op_parallelism_threads(int(inter_op))
    except RuntimeError as exc:
        raise RuntimeError(
            f"TensorFlow's thread pools are already fixed at intra="
            f"{tf.config.threading.get_intra_op_parallelism_threads()}, inter="
            f"{tf.config.threading.get_inter_op_parallelism_threads()}: call "
            f"configure_tf_threads({threads}) before building the model") from exc
    return {"intra_op": tf.config.threading.get_intra_op_parallelism_threads(),
            "inter_op": tf.config.threading.get_inter_op_parallelism_threads()}


def prepare_tf(model, threads: int, inter_op: int = 1) -> Runner:
    """Keras model under ``tf.function`` with XLA off; pools per :func:`configure_tf_threads`."""
    import tensorflow as tf
    pools = configure_tf_threads(threads, inter_op)
    infer = tf.function(lambda x: model(x, training=False), jit_compile=False,
                        reduce_retracing=True)

    def run(batch: np.ndarray) -> np.ndarray:
        return infer(tf.constant(batch)).numpy()

    return Runner(run, "tensorflow", tf.__version__, pools["intra_op"],
                  {"inter_op_threads": pools["inter_op"], "jit_compile": False,
                   "keras": _keras_version()}, infer)


def _keras_version() -> str:
    """Installed Keras version."""
    import keras
    return keras.__version__


# ---------------------------------------------------------------------------
# ONNX Runtime
# ---------------------------------------------------------------------------


def prepare_ort(onnx_path: str | Path, threads: int) -> Runner:
    """ONNX Runtime CPU session: ``intra_op_num_threads=threads``, sequential, ORT_ENABLE_ALL."""
    import onnxruntime as ort
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = int(threads)
    opts.inter_op_num_threads = 1
    opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    session = ort.InferenceSession(str(onnx_path), opts, providers=["CPUExecutionProvider"])
    input_name = session.get_inputs()[0].name

    def run(batch: np.ndarray) -> np.ndarray:
        return session.run(None, {input_name: batch})[0]

    return Runner(run, "onnxruntime", ort.__version__, int(threads),
                  {"providers": session.get_providers(), "graph_optimization": "ORT_ENABLE_ALL"},
                  session)


# ---------------------------------------------------------------------------
# TFLite
# ---------------------------------------------------------------------------


def tflite_interpreter(tflite_path: str | Path, threads: int):
    """``tf.lite.Interpreter`` with ``num_threads`` (XNNPACK applied by the default resolver).

    TF 2.21 still ships it but warns that it moves to ``ai_edge_litert``;
    the warning is silenced here (the interpreter is the same code).
    """
    import tensorflow as tf
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return tf.lite.Interpreter(model_path=str(tflite_path), num_threads=int(threads))


def prepare_tflite(tflite_path: str | Path, threads: int) -> Runner:
    """TFLite runner; resizes the input (and re-allocates) when the batch shape changes."""
    import tensorflow as tf
    interp = tflite_interpreter(tflite_path, threads)
    interp.allocate_tensors()
    in_index = interp.get_input_details()[0]["index"]
    out_index = interp.get_output_details()[0]["index"]
    shape = [tuple(interp.get_input_details()[0]["shape"])]

    def run(batch: np.ndarray) -> np.ndarray:
        if shape[0] != batch.shape:
            interp.resize_tensor_input(in_index, batch.shape, strict=False)
            interp.allocate_tensors()
            shape[0] = batch.shape
        interp.set_tensor(in_index, batch)
        interp.invoke()
        return interp.get_tensor(out_index).copy()

    return Runner(run, "tflite", tf.__version__, int(threads),
                  {"interpreter": "tf.lite.Interpreter", "delegate": "XNNPACK (default)"}, interp)


# ---------------------------------------------------------------------------
# TVM (Relax)
# ---------------------------------------------------------------------------


def configure_tvm_threads(threads: int) -> int:
    """Size TVM's runtime thread pool for this process; return the size in force.

    TVM's x86 default is ``hardware_concurrency() / 2`` (it assumes SMT), so
    this is always set.  Unscheduled Relax kernels are single-threaded loop
    nests anyway; only parallelised kernels use the pool.
    """
    return targets.configure(threads)


def tvm_import_onnx(onnx_path: str | Path, shape: Sequence[int], input_name: str | None = None):
    """ONNX file -> Relax ``IRModule`` with a static input ``shape`` and weights bound as constants.

    ``input_name`` defaults to the graph's first input.  The frontend's
    ``keep_params_in_input=False`` (its default) is passed explicitly so the
    weights stay constants and FoldConstant can see them in variant ``C``.
    """
    import onnx
    from tvm.relax.frontend.onnx import from_onnx
    model = onnx.load(str(onnx_path))
    name = input_name or model.graph.input[0].name
    return from_onnx(model, shape_dict={name: [int(d) for d in shape]}, keep_params_in_input=False)


def tvm_compile(mod, target, variant: str):
    """Compile a Relax module for ``target``; returns the VM executable.

    * ``"B"`` -- ``tvm.compile(mod, target)``: the generic default build
      pipeline (LegalizeOps + lowering; no FoldConstant, no fusion).
    * ``"C"`` -- ``tvm.compile(mod, target, relax_pipeline=
      relax.get_default_pipeline(target))``: the CPU graph-level pipeline
      (LegalizeOps, AnnotateTIROpPattern, FoldConstant, FuseOps, FuseTIR,
      then the same lowering).
    """
    import tvm
    from tvm import relax
    if variant == "B":
        return tvm.compile(mod, target)
    if variant == "C":
        return tvm.compile(mod, target, relax_pipeline=relax.get_default_pipeline(target))
    raise ValueError(f"unknown TVM variant {variant!r}; expected one of {sorted(TVM_VARIANTS)}")


def tvm_vm(executable):
    """A ``relax.VirtualMachine`` for the executable on ``tvm.cpu()``."""
    import tvm
    from tvm import relax
    return relax.VirtualMachine(executable, tvm.cpu())


def tvm_kernel_calls(executable, func_name: str = "main") -> dict[str, int]:
    """Kernel launches per compiled TIR kernel in ``func_name``'s VM bytecode.

    Read from ``executable.as_text()``: every ``call NAME`` instruction whose
    callee is not a ``vm.builtin.*`` is a kernel launch.  ``len(result)`` is
    the number of distinct kernels, ``sum(result.values())`` the launches
    per run (variant C's fusion shows as fewer launches than B).
    """
    counts: dict[str, int] = {}
    in_func = False
    for line in executable.as_text().splitlines():
        if line.startswith("@"):
            in_func = line.rstrip(":") == f"@{func_name}"
            continue
        parts = line.split()
        if in_func and len(parts) > 1 and parts[0] == "call" and not parts[1].startswith("vm.builtin"):
            counts[parts[1]] = counts.get(parts[1], 0) + 1
    return counts


def prepare_tvm(executable, threads: int, variant: str = "") -> Runner:
    """TVM runner on a fresh VM; thread pool per :func:`configure_tvm_threads`."""
    import tvm
    pool = configure_tvm_threads(threads)
    vm = tvm_vm(executable)
    main = vm["main"]

    def run(batch: np.ndarray) -> np.ndarray:
        out = main(tvm.runtime.tensor(batch))
        return _first_tensor(out).numpy()

    return Runner(run, "tvm", tvm.__version__, pool,
                  {"variant": variant, "pipeline": TVM_VARIANTS.get(variant, "")}, vm, executable)


def export(runner: Runner, folder) -> Path:
    """The TVM runner's executable as a shared library in ``folder`` (for
    :mod:`experiments.e2e.peer`, which loads it in a fresh process)."""
    if runner.executable is None:
        raise ValueError(f"export: the {runner.engine} runner has no TVM executable")
    path = Path(folder) / "tvm-engine.so"
    runner.executable.export_library(str(path))
    return path


def _first_tensor(value):
    """The VM's result, or its first element when the function returns a tuple."""
    return value if hasattr(value, "numpy") else value[0]


def record_op_profile(runner, x, extra):
    """Add TVM's per-operator breakdown of one call on ``x`` to a record's ``extra`` (the 12
    largest entries and the total); return the whole profile."""
    profile = tvm_op_profile(runner.handle, [x])
    extra["op_profile"] = [dict(op, seconds=float(op["seconds"])) for op in profile[:12]]
    extra["op_profile_total_s"] = float(sum(op["seconds"] for op in profile))
    return profile


def tvm_op_profile(vm, inputs: Sequence[np.ndarray], func_name: str = "main") -> list[dict[str, Any]]:
    """Wall time per VM callee for one run of ``func_name``; slowest first.

    Installs an instrument (``vm.set_instrument``) that the VM calls before
    and after every Call instruction, stamps ``time.perf_counter`` at both,
    runs once, and removes it.  Each entry is ``{"op", "kind", "calls",
    "seconds"}``: ``op`` is the callee's symbol (a compiled TIR kernel such
    as ``fused_conv2d_add_relu`` or a VM builtin such as
    ``vm.builtin.alloc_storage``); ``kind`` is ``"builtin"`` for
    ``vm.builtin.*`` and ``"kernel"`` otherwise.  The times include the
    instrument's own Python overhead (a few microseconds per call).
    """
    import tvm
    stats: dict[str, list] = {}
    started: list[tuple[str, float]] = []

    def instrument(func, func_symbol, before_run, ret_value, *args):
        now = time.perf_counter()
        if before_run:
            started.append((str(func_symbol), now))
        else:
            symbol, t0 = started.pop()
            entry = stats.setdefault(symbol, [0, 0.0])
            entry[0] += 1
            entry[1] += now - t0
        return 0  # VMInstrumentReturnKind.NO_OP

    args = [tvm.runtime.tensor(np.ascontiguousarray(a)) for a in inputs]
    vm.set_instrument(instrument)
    try:
        vm[func_name](*args)
    finally:
        vm.set_instrument(None)
    rows = [{"op": op, "kind": "builtin" if op.startswith("vm.builtin") else "kernel",
             "calls": calls, "seconds": secs} for op, (calls, secs) in stats.items()]
    return sorted(rows, key=lambda r: r["seconds"], reverse=True)


def tvm_kernel_profile(vm, x: np.ndarray, runs: int = 10) -> list[dict[str, Any]]:
    """Every kernel's median seconds per run over ``runs`` profiled runs (calls summed within a
    run), slowest first -- the whole list, for per-kernel tables (the record's ``op_profile``
    keeps the 12 largest of one run)."""
    per: dict[str, list] = {}
    for _ in range(runs):
        for row in tvm_op_profile(vm, [x]):
            per.setdefault(row["op"], []).append((row["seconds"], row["calls"], row["kind"]))
    rows = [{"op": op, "kind": v[0][2], "calls": v[0][1], "seconds": float(np.median([s for s, _c, _k in v])),
             "runs": len(v)} for op, v in per.items()]
    return sorted(rows, key=lambda r: r["seconds"], reverse=True)


def ort_node_profile(onnx_path: str | Path, threads: int, x: np.ndarray, runs: int = 20) -> list[dict[str, Any]]:
    """ONNX Runtime's own per-node kernel time (its profiler), median over ``runs`` runs after
    5 warm-up runs, in a session configured as :func:`prepare_ort`'s; each node with its op type,
    the input shapes (data, weight, ...) and the output shape the profiler reports."""
    import json
    import onnxruntime as ort
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = int(threads)
    opts.inter_op_num_threads = 1
    opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    with leftovers.temporary() as tmp:
        opts.enable_profiling = True
        opts.profile_file_prefix = str(Path(tmp) / "ort")
        session = ort.InferenceSession(str(onnx_path), opts, providers=["CPUExecutionProvider"])
        feed = {session.get_inputs()[0].name: np.ascontiguousarray(x, dtype=np.float32)}
        for _ in range(5 + runs):
            session.run(None, feed)
        events = json.loads(Path(session.end_profiling()).read_text())
    per: dict[str, dict[str, Any]] = {}
    for e in events:
        if e.get("cat") != "Node" or not str(e.get("name", "")).endswith("_kernel_time"):
            continue
        args = e.get("args") or {}
        node = per.setdefault(e["name"][:-len("_kernel_time")], {
            "op": args.get("op_name", ""),
            "inputs": [next(iter(d.values())) for d in args.get("input_type_shape", []) if d],
            "outputs": [next(iter(d.values())) for d in args.get("output_type_shape", []) if d],
            "durations_us": []})
        node["durations_us"].append(float(e.get("dur", 0)))
    rows = []
    for name, node in per.items():
        durations = node.pop("durations_us")[-runs:]   # the warm-up runs are dropped
        rows.append({"node": name, **node, "seconds": float(np.median(durations)) / 1e6, "runs": len(durations)})
    return sorted(rows, key=lambda r: r["seconds"], reverse=True)


# ---------------------------------------------------------------------------
# Agreement
# ---------------------------------------------------------------------------


def _top_k(logits: np.ndarray, k: int) -> np.ndarray:
    """Indices of the ``k`` largest logits per row (unordered)."""
    return np.argpartition(-logits, k - 1, axis=1)[:, :k]


def agreement(logits: np.ndarray, reference: np.ndarray) -> dict[str, float]:
    """Compare ``(N, classes)`` logits with a reference run of the same inputs.

    * ``max_abs_err`` -- largest absolute logit difference.
    * ``max_rel_err`` -- ``max_abs_err / max|reference|`` (logit scale differs
      a lot between random-weight models, so tolerances use this).
    * ``top1_agree`` -- fraction of rows with the same arg-max.
    * ``top5_agree`` -- mean over rows of ``|top5(logits) & top5(reference)| / 5``
      (set overlap, order ignored).
    * ``top5_exact`` -- fraction of rows whose top-5 *sets* are equal.
    * ``ref_min_top1_margin`` -- smallest gap between the reference's first
      and second logit: a top-1 disagreement on a row whose margin is below
      ``max_abs_err`` is a tie, not an error.
    """
    out = np.asarray(logits, dtype=np.float64)
    ref = np.asarray(reference, dtype=np.float64)
    if out.shape != ref.shape or ref.ndim != 2:
        raise ValueError(f"shape mismatch: {out.shape} vs reference {ref.shape}")
    k = min(5, ref.shape[1])
    err = float(np.max(np.abs(out - ref)))
    scale = float(np.max(np.abs(ref)))
    top_out, top_ref = _top_k(out, k), _top_k(ref, k)
    overlap = [len(set(a) & set(b)) / k for a, b in zip(top_out, top_ref)]
    top2 = np.sort(ref, axis=1)[:, -2:]
    return {
        "max_abs_err": err,
        "max_rel_err": err / scale if scale > 0 else err,
        "top1_agree": float(np.mean(out.argmax(1) == ref.argmax(1))),
        "top5_agree": float(np.mean(overlap)),
        "top5_exact": float(np.mean([o == 1.0 for o in overlap])),
        "ref_min_top1_margin": float(np.min(top2[:, 1] - top2[:, 0])),
    }


def margins(logits, reference):
    """Where top-1 disagreements fall: each input's FP32 margin (first minus second logit) and the
    engine's error on it (largest absolute logit difference), both in units of that input's FP32
    logit standard deviation.  A flip can only happen where the error reaches the margin, so the
    share of inputs whose margin is below the typical error bounds the agreement any engine with
    that error can reach."""
    out = np.asarray(logits, dtype=np.float64)
    ref = np.asarray(reference, dtype=np.float64)
    std = ref.std(axis=1)
    std = np.where(std > 0, std, 1.0)
    top2 = np.sort(ref, axis=1)[:, -2:]
    margin = (top2[:, 1] - top2[:, 0]) / std
    err = np.abs(out - ref).max(axis=1) / std
    flips = out.argmax(1) != ref.argmax(1)
    typical = float(np.median(err))
    return {"unit": "FP32 logit standard deviation of the input",
            "margin_quantiles": {str(q): float(np.quantile(margin, q / 100)) for q in (1, 5, 10, 50)},
            "error_median": typical, "error_p90": float(np.quantile(err, 0.9)),
            "flips": int(flips.sum()), "flip_margin_max": float(margin[flips].max()) if flips.any() else None,
            "share_margin_below_error": float(np.mean(margin < typical))}
