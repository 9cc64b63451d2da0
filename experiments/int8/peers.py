"""Quantized peers of the INT8 study, and what TVM makes of them.

The study's own integer path (a Relax rewrite) is measured beside what a
user would pick instead.  This module builds those peers from one Keras
model and its calibration images, and reports what is inside them:

* :func:`export_onnx` / :func:`export_tflite` -- FP32 exports; these are
  :mod:`experiments.e2e.models`' exporters, which trace the model's own
  channels-last input shape (``tf2onnx.convert.from_function``, and a frozen
  concrete function into ``TFLiteConverter``).
* :func:`ort_static_qdq` -- ONNX Runtime static quantization, QDQ format:
  int8 weights (per output channel when asked), int8 or uint8 activations
  calibrated on the calibration batches by min/max or percentile.
* :func:`tflite_full_int8` -- TFLite full-integer conversion
  (``TFLITE_BUILTINS_INT8`` only), float or int8 at the model's edges; the
  op list with tensor dtypes shows the kernels really are integer.
* :func:`ort_kernel_ops` / :func:`ort_coverage` -- op types of the graph
  ONNX Runtime really runs (QDQ fused into ``QLinearConv`` / ``QGemm``
  integer kernels, or left in float), and per op type how many run in
  integer and how many in float.
* :func:`onnx_reference_logits` -- the QDQ model's specified semantics,
  computed by ONNX's reference evaluator: the yardstick that both ORT's
  integer kernels and TVM's float import are checked against.
* :func:`onnx_op_counts` -- op types of an ONNX file (QuantizeLinear /
  DequantizeLinear counts show how much of the graph QDQ covers).
* :func:`tvm_import_qdq` / :func:`relax_op_counts` -- the QDQ model through
  TVM's ONNX frontend: it imports as ``dequantize -> float op -> quantize``
  (the "QDQ in float" baseline); the counts and the conv2d / matmul input
  dtypes say so from the IR.
* :func:`file_size` -- bytes and sha256 of a file; :func:`run_each` --
  a runner fed one image at a time (static batch-1 models).

The runners of :mod:`experiments.e2e.engines` run every file made here
(``prepare_ort`` the QDQ model, ``prepare_tflite`` the ``io="float"``
TFLite model, ``tvm_compile`` the imported module).  Nothing here times
anything.

Facts of the pinned versions this module relies on (onnxruntime 1.32,
TensorFlow 2.21, TVM 0.27; checked by tests/test_int8_peers.py):

* ``quantize_static`` wants a ``CalibrationDataReader`` whose
  ``get_next()`` returns ``{input_name: batch}`` dicts and then ``None``.
* TVM 0.27's ONNX frontend converts QuantizeLinear / DequantizeLinear to
  ``relax.quantize`` / ``relax.dequantize`` (per-axis scales included), and
  keeps every other operator in float; compiled, the import reproduces
  :func:`onnx_reference_logits` exactly on the digits CNN and within one
  output quantization step on ResNet-18 (float accumulation order can move
  a value across a rounding boundary, and the next quantize keeps it).
* The same frontend cannot import a Reshape to a computed shape tensor, so
  a Flatten exported with a dynamic batch does not import
  (:func:`export_onnx` defaults to batch 1).
* ORT's integer kernels on an AVX2 CPU without VNNI drift from the QDQ
  semantics with 8-bit weights, not with 7-bit ones (see ``reduce_range``
  in :func:`ort_static_qdq`), and with int8
  activations ORT leaves part of a residual network in float (see
  :func:`ort_coverage`).
"""

from __future__ import annotations

import collections
import hashlib
import os
import time
import types
import warnings
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from experiments.e2e import models
from study import leftovers

ACTIVATION_TYPES = ("int8", "uint8")
CALIBRATION_METHODS = ("minmax", "percentile")
PERCENTILE = 99.999          # ORT's default CalibPercentile, written down
TFLITE_IO = ("float", "int8")
# Relax ops whose input dtypes tell whether the arithmetic is integer or float.
COMPUTE_OPS = ("relax.nn.conv2d", "relax.matmul", "relax.nn.dense", "relax.linear")


def _tf():
    """Import TensorFlow with its INFO chatter turned down."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import tensorflow as tf
    return tf


def file_size(path: str | Path) -> dict[str, Any]:
    """``{"path", "bytes", "sha256"}`` of a file."""
    path = Path(path)
    data = path.read_bytes()
    return {"path": str(path), "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}


# ---------------------------------------------------------------------------
# FP32 exporters (any channels-last input shape)
# ---------------------------------------------------------------------------


# The e2e study's exporters take any channels-last input shape; the INT8 study uses them as they are.
# Export at batch 1 for TVM: with batch=None tf2onnx writes a Flatten as Shape -> ... -> Reshape to a
# computed shape, which TVM 0.27's ONNX frontend refuses ("Reshape requires the input new shape to be
# Shape") even with a static shape_dict; ORT runs either.
serving_function = models.serving_function
export_onnx = models.export_onnx
export_tflite = models.export_tflite
_tflite_converter = models.tflite_converter


# ---------------------------------------------------------------------------
# ONNX Runtime static quantization (QDQ)
# ---------------------------------------------------------------------------


def _onnx_input(path: str | Path) -> tuple[str, int | None]:
    """Name of the graph's first non-initializer input, and its batch size if fixed (else None)."""
    import onnx
    model = onnx.load(str(path), load_external_data=False)
    inits = {i.name for i in model.graph.initializer}
    inp = next(i for i in model.graph.input if i.name not in inits)
    dims = inp.type.tensor_type.shape.dim
    batch = int(dims[0].dim_value) if dims and dims[0].HasField("dim_value") else None
    return inp.name, batch


def _data_reader(batches: Sequence[np.ndarray], input_name: str):
    """An ORT ``CalibrationDataReader`` that feeds ``batches`` once, then ``None``."""
    from onnxruntime.quantization import CalibrationDataReader

    class _Reader(CalibrationDataReader):
        def __init__(self):
            self._it = iter(batches)

        def get_next(self):
            batch = next(self._it, None)
            return None if batch is None else {input_name: np.ascontiguousarray(batch, np.float32)}

        def rewind(self):
            self._it = iter(batches)

    return _Reader()


def _uniform_batches(calib_batches: Iterable[np.ndarray], fixed: int | None = None) -> list[np.ndarray]:
    """The calibration images re-cut into batches of one size.

    The size is ``fixed`` (the model's static batch; a remainder that does
    not fill a batch is dropped) or else the gcd of the given batch sizes
    (every image kept).  ORT's histogram calibrators (percentile, entropy)
    stack each tensor's outputs over batches with ``np.asarray`` and fail
    on a short last batch ("inhomogeneous shape"); a static-batch model
    takes no other size at all.
    """
    batches = [np.ascontiguousarray(b, dtype=np.float32) for b in calib_batches]
    if not batches or not sum(len(b) for b in batches):
        raise ValueError("no calibration batches")
    size = int(fixed) if fixed else int(np.gcd.reduce([len(b) for b in batches if len(b)]))
    images = np.concatenate(batches)
    usable = len(images) - len(images) % size
    if not usable:
        raise ValueError(f"fewer calibration images ({len(images)}) than one batch ({size})")
    return [np.ascontiguousarray(images[i:i + size]) for i in range(0, usable, size)]


def ort_static_qdq(onnx_path: str | Path, calib_batches: Iterable[np.ndarray], out_path: str | Path,
                   input_name: str | None = None, per_channel: bool = True,
                   activation_type: str = "int8", method: str = "minmax",
                   preprocess: bool = True, reduce_range: bool = False) -> dict[str, Any]:
    """Quantize an FP32 ONNX model with ``onnxruntime.quantization.quantize_static`` (QDQ).

    Weights int8 (symmetric, ORT's default), per output channel when
    ``per_channel``; activations ``activation_type`` (``"int8"`` or
    ``"uint8"``, asymmetric, per tensor) with ranges from
    ``calib_batches`` by ``method`` (``"minmax"``, or ``"percentile"`` at
    :data:`PERCENTILE`).  With ``preprocess`` (default) the model first goes
    through ``quant_pre_process`` (ONNX shape inference + ORT's basic graph
    optimisation, which folds constants and fuses MatMul + Add into Gemm)
    -- ORT recommends it; set False to quantize the export as is.  Its
    symbolic shape inference is skipped (``skip_symbolic_shape=True``): it
    needs sympy, which the project does not pin, and the only symbolic
    dimension here is the batch.

    ``activation_type="int8"`` is ORT's default; on this x86 CPU ORT fuses
    far more of a residual network into integer kernels with ``"uint8"``
    (see :func:`ort_coverage`), so record coverage beside any timing.

    ``reduce_range`` (ORT's option, default False) quantizes weights to 7
    bits; ORT's own docstring says it "may improve the accuracy for some
    models running on non-VNNI machine, especially for per-channel mode".
    Measured here (AVX2, no VNNI): with 8-bit weights ORT's fused integer
    kernels (QLinearConv / QGemm, see :func:`ort_kernel_ops`) gave digits
    CNN logits up to ~20 output steps away from the QDQ model's own
    semantics (:func:`onnx_reference_logits`); with 7-bit weights they
    matched it exactly.  The likely mechanism (not proven here) is the
    int16 saturation of u8 x s8 pair sums in AVX2's ``vpmaddubsw``.  Which
    one to publish is the caller's call; ``settings`` records it.

    The calibration images are fed in batches of one size: the model's
    static batch if its input has one, else the gcd of the given sizes
    (see :func:`_uniform_batches`).

    Returns ``path, bytes, sha256`` of the QDQ model, ``ops`` (its
    :func:`onnx_op_counts` as a dict), ``calibration_batches`` (how many
    were fed), ``calibration_batch`` (their size), ``calibration_images``,
    ``seconds`` (calibration + rewrite wall time, not a published figure)
    and ``settings`` (everything passed to ORT, the preprocessing, and the
    onnxruntime version).
    """
    import onnxruntime
    from onnxruntime.quantization import (CalibrationMethod, QuantFormat, QuantType,
                                          quantize_static)
    if activation_type not in ACTIVATION_TYPES:
        raise ValueError(f"activation_type {activation_type!r}; expected one of {ACTIVATION_TYPES}")
    if method not in CALIBRATION_METHODS:
        raise ValueError(f"method {method!r}; expected one of {CALIBRATION_METHODS}")
    graph_input, fixed_batch = _onnx_input(onnx_path)
    name = input_name or graph_input
    batches = _uniform_batches(calib_batches, fixed_batch)
    out_path = Path(out_path)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    extra = {"ActivationSymmetric": False, "WeightSymmetric": True}
    if method == "percentile":
        extra["CalibPercentile"] = PERCENTILE
    settings = {
        "quant_format": "QDQ",
        "weight_type": "int8",
        "activation_type": activation_type,
        "per_channel": bool(per_channel),
        "reduce_range": bool(reduce_range),
        "calibrate_method": method,
        "extra_options": dict(extra),
        "preprocessed": bool(preprocess),
        "preprocess": ("quant_pre_process(skip_symbolic_shape=True)" if preprocess else None),
        "onnxruntime": onnxruntime.__version__,
    }
    t0 = time.perf_counter()
    with leftovers.temporary() as tmp:
        source = Path(onnx_path)
        if preprocess:
            from onnxruntime.quantization.shape_inference import quant_pre_process
            source = Path(tmp) / "preprocessed.onnx"
            quant_pre_process(str(onnx_path), str(source), skip_symbolic_shape=True)
        quantize_static(
            str(source), str(out_path), _data_reader(batches, name),
            quant_format=QuantFormat.QDQ,
            per_channel=bool(per_channel),
            reduce_range=bool(reduce_range),
            activation_type=QuantType.QInt8 if activation_type == "int8" else QuantType.QUInt8,
            weight_type=QuantType.QInt8,
            calibrate_method=(CalibrationMethod.MinMax if method == "minmax"
                              else CalibrationMethod.Percentile),
            extra_options=extra,
        )
    seconds = time.perf_counter() - t0
    return {**file_size(out_path), "ops": dict(onnx_op_counts(out_path)),
            "calibration_batches": len(batches), "calibration_batch": len(batches[0]),
            "calibration_images": int(sum(len(b) for b in batches)),
            "seconds": seconds, "settings": settings}


def ort_kernel_ops(onnx_path: str | Path) -> collections.Counter:
    """Op types of the graph ONNX Runtime actually runs (``ORT_ENABLE_ALL``, CPU provider).

    ORT writes its optimised graph to a temporary file
    (``SessionOptions.optimized_model_filepath``); the counts show whether
    the QDQ pairs were fused into integer kernels
    (``com.microsoft::QLinearConv``, ``com.microsoft::QGemm``, ...) or left
    as DequantizeLinear -> float op -> QuantizeLinear.  Same optimisation
    level as ``experiments.e2e.engines.prepare_ort``; the NCHWc / NHWC
    layout rewrites in it are specific to this CPU.
    """
    import onnxruntime as ort
    with leftovers.temporary() as tmp:
        opts = ort.SessionOptions()
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        opts.optimized_model_filepath = str(Path(tmp) / "optimized.onnx")
        opts.log_severity_level = 3   # the "hardware specific optimizations" warning
        ort.InferenceSession(str(onnx_path), opts, providers=["CPUExecutionProvider"])
        return onnx_op_counts(opts.optimized_model_filepath)


# ORT's integer kernels and the float op each one replaces.
ORT_INTEGER_KERNELS = types.MappingProxyType({
    "QLinearConv": "Conv", "QGemm": "Gemm", "QLinearMatMul": "MatMul", "MatMulInteger": "MatMul",
    "ConvInteger": "Conv", "QLinearAdd": "Add", "QLinearMul": "Mul",
    "QLinearGlobalAveragePool": "GlobalAveragePool", "QLinearAveragePool": "AveragePool",
    "QLinearConcat": "Concat", "QLinearSigmoid": "Sigmoid", "QLinearLeakyRelu": "LeakyRelu",
    "QLinearSoftmax": "Softmax",
})


def ort_coverage(onnx_path: str | Path) -> dict[str, Any]:
    """How much of a QDQ model ONNX Runtime runs in integer kernels on this CPU.

    Returns ``kernels`` (:func:`ort_kernel_ops` as a dict) and ``by_op``:
    for every op type that has an integer kernel in
    :data:`ORT_INTEGER_KERNELS` and occurs in either form, ``{"integer": n,
    "float": m}`` -- e.g. ``{"Conv": {"integer": 9, "float": 11}}``.  The
    domain prefix (``com.microsoft::``) is ignored.

    Seen on this AVX2 CPU with ResNet-18 (64x64): int8 activations left 11
    of 20 convolutions and all 8 residual Adds as DequantizeLinear -> float
    op -> QuantizeLinear (it fused the stem and the second convolution of
    each block; those reading a block's input, which comes from a float
    Add or MaxPool, stayed float); uint8 activations fused all 20 into
    QLinearConv and all 8 Adds into QLinearAdd.
    """
    kernels = ort_kernel_ops(onnx_path)
    plain = collections.Counter()
    for op, n in kernels.items():
        plain[op.split("::")[-1]] += n
    by_op: dict[str, dict[str, int]] = {}
    for kernel, float_op in ORT_INTEGER_KERNELS.items():
        if plain[kernel] or plain[float_op]:
            entry = by_op.setdefault(float_op, {"integer": 0, "float": 0})
            entry["integer"] += plain[kernel]
            entry["float"] = plain[float_op]
    return {"kernels": dict(kernels), "by_op": by_op}


def onnx_reference_logits(onnx_path: str | Path, images: np.ndarray) -> np.ndarray:
    """The model's logits by ``onnx.reference.ReferenceEvaluator``, one image at a time.

    The ONNX specification's own semantics in NumPy (QDQ pairs as exact
    float dequantize / round-half-to-even quantize) -- slow, for small
    models only.  ONNX 1.23's evaluator implements QuantizeLinear /
    DequantizeLinear from opset 19 only, so a copy of the model with its
    default-domain opset raised to 19 is evaluated when it is lower (for
    int8/uint8 both ops are unchanged from 13 to 19; so are the ops of the
    digits CNN).
    """
    import onnx
    from onnx.reference import ReferenceEvaluator
    model = onnx.load(str(onnx_path))
    for opset in model.opset_import:
        if opset.domain in ("", "ai.onnx") and opset.version < 19:
            opset.version = 19
    name, _ = _onnx_input(onnx_path)
    ref = ReferenceEvaluator(model)
    images = np.asarray(images, dtype=np.float32)
    return np.concatenate([ref.run(None, {name: images[i:i + 1]})[0] for i in range(len(images))])


def run_each(runner, images: np.ndarray) -> np.ndarray:
    """Logits of ``runner`` (any ``engines.Runner``) fed one image at a time, concatenated.

    For models exported with a static batch of 1 (what TVM's ONNX import
    and single-partition XNNPACK need, see :func:`export_onnx`).
    """
    images = np.asarray(images, dtype=np.float32)
    return np.concatenate([runner(images[i:i + 1]) for i in range(len(images))])


def onnx_op_counts(path: str | Path) -> collections.Counter:
    """``Counter`` of node op types in the ONNX file's main graph (``domain::`` prefix if not ONNX's)."""
    import onnx
    model = onnx.load(str(path), load_external_data=False)
    return collections.Counter(
        (f"{n.domain}::{n.op_type}" if n.domain not in ("", "ai.onnx") else n.op_type)
        for n in model.graph.node)


# ---------------------------------------------------------------------------
# TFLite full integer
# ---------------------------------------------------------------------------


def tflite_full_int8(keras_model, calib_batches: Iterable[np.ndarray], out_path: str | Path,
                     io: str = "float", batch: int | None = 1) -> dict[str, Any]:
    """Convert ``keras_model`` to a full-integer TFLite model calibrated on ``calib_batches``.

    ``Optimize.DEFAULT`` + ``representative_dataset`` (each calibration
    image fed as a batch of one) + ``supported_ops = [TFLITE_BUILTINS_INT8]``
    only, so the conversion fails rather than fall back to a float kernel.

    ``batch=1`` (default) bakes the shapes in: XNNPACK takes the whole graph
    as one partition, but then refuses to resize the Flatten's RESHAPE
    ("failed to prepare"), so such a model runs one image per call
    (:func:`run_each`).  ``batch=None`` converts with a dynamic batch, so
    ``prepare_tflite`` can resize to any batch; the Flatten then computes
    its target shape at run time (SHAPE, STRIDED_SLICE, PACK on int32),
    which XNNPACK does not take, and the graph splits into two XNNPACK
    partitions with TFLite's own kernels between them.  ``io="float"``
    keeps float32 input and output (a QUANTIZE op at the input, DEQUANTIZE
    at the output), which ``experiments.e2e.engines.prepare_tflite`` runs
    as is; ``io="int8"`` makes them int8 (the caller quantizes with the
    input's scale / zero point, see ``io_quantization``).

    Returns ``path, bytes, sha256``, ``io``, ``io_quantization`` (input and
    output ``{"dtype", "scale", "zero_point"}``), ``ops`` (:func:`tflite_ops`
    of the file: every op with its input / output tensor dtypes),
    ``op_counts``, ``xnnpack_partitions`` (DELEGATE nodes when the
    interpreter applies its default XNNPACK delegate: 1 means the whole
    graph runs in XNNPACK), ``int8_compute_ops`` (how many CONV_2D /
    FULLY_CONNECTED / DEPTHWISE_CONV_2D ops take an int8 activation),
    ``float_compute_ops`` (how many take a float32 one; 0 for a real
    full-integer model), ``calibration_images``, ``seconds`` and
    ``settings``.
    """
    tf = _tf()
    if io not in TFLITE_IO:
        raise ValueError(f"io {io!r}; expected one of {TFLITE_IO}")
    images = [np.ascontiguousarray(img[None], dtype=np.float32)
              for b in calib_batches for img in np.asarray(b, dtype=np.float32)]
    if not images:
        raise ValueError("no calibration images")
    out_path = Path(out_path)
    out_path.parent.mkdir(parents=True, exist_ok=True)

    def representative():
        for img in images:
            yield [img]

    t0 = time.perf_counter()
    converter = _tflite_converter(keras_model, batch)
    converter.optimizations = [tf.lite.Optimize.DEFAULT]
    converter.representative_dataset = representative
    converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
    if io == "int8":
        converter.inference_input_type = tf.int8
        converter.inference_output_type = tf.int8
    out_path.write_bytes(converter.convert())
    seconds = time.perf_counter() - t0
    ops = tflite_ops(out_path)
    compute = [o for o in ops if o["op"] in ("CONV_2D", "FULLY_CONNECTED", "DEPTHWISE_CONV_2D")]
    interp = _interpreter(out_path)
    interp.allocate_tensors()
    return {
        **file_size(out_path), "io": io,
        "io_quantization": {"input": _io_quant(interp.get_input_details()[0]),
                            "output": _io_quant(interp.get_output_details()[0])},
        "ops": ops,
        "op_counts": dict(collections.Counter(o["op"] for o in ops)),
        "int8_compute_ops": sum(1 for o in compute if o["inputs"][:1] == ["int8"]),
        "float_compute_ops": sum(1 for o in compute if o["inputs"][:1] == ["float32"]),
        "calibration_images": len(images),
        "seconds": seconds,
        "xnnpack_partitions": xnnpack_partitions(out_path),
        "settings": {"optimizations": ["DEFAULT"], "supported_ops": ["TFLITE_BUILTINS_INT8"],
                     "inference_io_type": io, "batch": batch, "representative_batch": 1,
                     "tensorflow": tf.__version__},
    }


def _interpreter(path: str | Path):
    """A plain ``tf.lite.Interpreter`` without the default XNNPACK delegate.

    Without the delegate every op stays a node of its own, so the op list
    is the model's; with it, the delegated ops collapse into one DELEGATE
    node.  (Runners use ``engines.prepare_tflite``, which keeps XNNPACK.)
    """
    tf = _tf()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return tf.lite.Interpreter(
            model_path=str(path),
            experimental_op_resolver_type=tf.lite.experimental.OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)


def _io_quant(detail: dict) -> dict[str, Any]:
    """dtype, scale and zero point of an input/output detail of the interpreter."""
    scale, zero = detail.get("quantization", (0.0, 0))
    return {"dtype": np.dtype(detail["dtype"]).name, "scale": float(scale), "zero_point": int(zero)}


def xnnpack_partitions(path: str | Path) -> int:
    """How many DELEGATE nodes the default XNNPACK delegate makes of the model.

    Uses ``experiments.e2e.engines.tflite_interpreter`` (the runner's own
    interpreter): its op listing keeps the original nodes and adds one
    DELEGATE node per partition XNNPACK took.  0 means XNNPACK took nothing.
    """
    from experiments.e2e import engines
    interp = engines.tflite_interpreter(path, 1)
    interp.allocate_tensors()
    return sum(1 for op in interp._get_ops_details() if op["op_name"] == "DELEGATE")  # noqa: SLF001


def tflite_ops(path: str | Path) -> list[dict[str, Any]]:
    """Every op of a TFLite model in execution order, with its tensors' dtypes.

    Read from ``Interpreter._get_ops_details()`` (op name and tensor
    indices) and ``get_tensor_details()`` (dtype per index) of an
    interpreter without delegates.  Each entry is ``{"index", "op",
    "inputs", "outputs"}`` with dtype names (``"int8"``, ``"int32"``,
    ``"float32"``); an omitted optional input (index -1) is left out.
    """
    interp = _interpreter(path)
    interp.allocate_tensors()
    dtypes = {t["index"]: np.dtype(t["dtype"]).name for t in interp.get_tensor_details()}
    rows = []
    for op in interp._get_ops_details():  # noqa: SLF001 -- the only per-op listing the API has
        rows.append({"index": int(op["index"]), "op": str(op["op_name"]),
                     "inputs": [dtypes[i] for i in op["inputs"] if i >= 0],
                     "outputs": [dtypes[i] for i in op["outputs"] if i >= 0]})
    return rows


# ---------------------------------------------------------------------------
# TVM's import of the QDQ model
# ---------------------------------------------------------------------------


def tvm_import_qdq(onnx_qdq_path: str | Path, shape: Sequence[int],
                   input_name: str | None = None) -> dict[str, Any]:
    """Import a QDQ ONNX model through ``experiments.e2e.engines.tvm_import_onnx``.

    Returns ``{"ok", "mod", "error", "seconds"}``: on success ``mod`` is
    the Relax ``IRModule`` and ``error`` is ``None``; if TVM's frontend
    refuses the model, ``ok`` is False, ``mod`` ``None`` and ``error`` the
    exception's type and message (a finding to report, not a crash).
    """
    from experiments.e2e import engines
    t0 = time.perf_counter()
    try:
        mod = engines.tvm_import_onnx(onnx_qdq_path, shape, input_name=input_name)
    except Exception as exc:  # noqa: BLE001 -- any frontend failure is the finding
        return {"ok": False, "mod": None, "error": f"{type(exc).__name__}: {exc}",
                "seconds": time.perf_counter() - t0}
    return {"ok": True, "mod": mod, "error": None, "seconds": time.perf_counter() - t0}


def relax_op_counts(mod, func_name: str = "main") -> dict[str, Any]:
    """Relax operators called in ``mod[func_name]``, and the dtypes the compute ops see.

    Returns ``{"ops": Counter, "compute_inputs": {op: Counter}}``: ``ops``
    counts every call of a ``tvm.ir.Op`` by name (``relax.quantize``,
    ``relax.dequantize``, ``relax.nn.conv2d``, ...); ``compute_inputs``
    maps each op of :data:`COMPUTE_OPS` that occurs to a ``Counter`` of
    its first two inputs' dtypes joined by ``","`` -- ``"float32,float32"``
    for QDQ imported in float, ``"int8,int8"`` for an integer conv.
    Calls of PrimFuncs or other functions (``call_tir`` after legalization)
    count under ``relax.call_tir`` and are not looked into.
    """
    import tvm
    from tvm import relax
    ops: collections.Counter = collections.Counter()
    compute: dict[str, collections.Counter] = {}

    def visit(node):
        if isinstance(node, relax.Call) and isinstance(node.op, tvm.ir.Op):
            name = str(node.op.name)
            ops[name] += 1
            if name in COMPUTE_OPS:
                dts = ",".join(_dtype(a) for a in list(node.args)[:2])
                compute.setdefault(name, collections.Counter())[dts] += 1

    relax.analysis.post_order_visit(mod[func_name], visit)
    return {"ops": ops, "compute_inputs": compute}


def _dtype(expr) -> str:
    """Element dtype of a Relax expression (``"?"`` when it is not a tensor of known dtype).

    TVM 0.27 spells a Relax expression's type ``expr.ty`` (a ``TensorType``
    whose ``dtype`` is a ``PrimType`` holding the dtype); the older
    ``struct_info`` spelling is tried as a fallback.
    """
    ty = getattr(expr, "ty", None)
    prim = getattr(ty, "dtype", None)
    dtype = getattr(prim, "dtype", prim)
    if dtype is None:
        dtype = getattr(getattr(expr, "struct_info", None), "dtype", None)
    return str(dtype) if dtype is not None and str(dtype) else "?"
