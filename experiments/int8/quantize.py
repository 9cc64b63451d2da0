"""Our own INT8 path in Relax (TVM 0.27): calibrate, rewrite to integer operators, compare per layer.

TVM 0.27 has no Relax quantization pass, and a QDQ model imported from ONNX
keeps its arithmetic in float (dequantize → float conv → quantize).  This
module rewrites an imported FP32 Relax module so that convolutions and dense
layers run on integers and tensors stay integer between consecutive quantized
operators:

* **weights** -- per-output-channel symmetric int8: ``s_w[c] = max|W[c]| / 127`` (``/ 63``, 7 bits,
  for a target without VNNI, whose ``vpmaddubsw`` would saturate on 8-bit weights).
* **activations** -- per-tensor, threshold ``t`` from calibration
  (:data:`METHODS`: ``minmax``, ``percentile`` = 99.99th percentile of ``|x|``,
  ``mse`` = the candidate threshold with the least quantization error on the
  calibration set).  Scheme ``int8``: every activation int8 symmetric,
  ``s = t / 127``; scheme ``uint8``: a tensor whose calibrated minimum is ≥ 0
  (after ReLU) is uint8 with zero point 0, ``s = t / 255`` -- one more bit for
  the half of the range a ReLU output uses; others stay int8 symmetric.
* **conv2d / matmul (+ bias) (+ ReLU)** -- ``conv2d(x_q, W_q, out_dtype=int32)``,
  ``+ round(b / (s_x s_w))`` in int32, then *requantize* in fixed point:
  ``(acc · m_c + 2^(n-1)) >> n`` in int64 with ``m_c / 2^n ≈ s_x s_w[c] / s_y``,
  ReLU as the lower clip bound, cast to int8/uint8.  When the result feeds only
  float operators (or is the network's output) the int32 accumulator is
  dequantized directly instead (one conversion, no int8 rounding of logits).
* **residual add (+ ReLU)** -- both inputs integer: ``(a·m_a + b·m_b + 2^(n-1)) >> n``.
* **ReLU, max-pool, reshape/permute/squeeze** on an integer tensor stay integer
  (same scale).
* **concat** -- its inputs are quantized at the concat's own scale (:func:`shared_scales`), so
  the producers' requantization writes the concatenated integers directly and the concat moves
  bytes (Inception's modules: no branch is dequantized, concatenated and pooled in float).
* **VNNI** (``rewrite(..., vnni=True)``, for a target with avx512vnni): on a channels-last
  module (:func:`channels_last`) a conv2d (uint8 input, or int8 read
  as ``x + 128`` with the shift undone per output channel) / 2-D matmul (uint8 input) becomes a
  kernel with weights packed to ``vpdpbusd``'s 16x4 blocks, which
  MetaSchedule's "vnni" rules tensorize; the arithmetic (int32 accumulator, requantization) is
  the same, so the integers equal those of the legalized operators.
* Everything else (``mean``, padding emitted as a float ``call_tir``, ...) runs
  in float on dequantized inputs; :func:`rewrite` lists each such operator with
  a reason code and counts every quantize/dequantize conversion left.

Nothing here is tuned or timed; the ``int8`` family does that.
"""

from __future__ import annotations

import dataclasses
import math
from collections import Counter
from typing import Any

import numpy as np

from experiments.int8 import bias_correction, vnni_ops
from experiments.int8.pool_pad import fold_pool_pad  # noqa: F401 - part of this module's interface
# calibration lives in its own module; these names stay importable from here
from experiments.int8.calibration import (  # noqa: F401
    METHODS, MSE_CANDIDATES, PERCENTILE, SCHEMES, ActQuant, calibrate, layer_report, threshold)

SHAPE_OPS = {"relax.reshape", "relax.permute_dims", "relax.squeeze", "relax.flatten"}
# Why an operator stays in float, as a code the report records (the words for each code are the
# page's: docs/words/int8.yaml, float_ops.reason).  A shape operator follows its input: it is listed
# only when that input is float; an operator with none of these reasons has no integer implementation.
SHAPE_REASON = "shape_only"
FLOAT_REASONS = {
    "relax.nn.max_pool2d": "after_float_pad",   # its input comes from the float Pad (call_tir)
    "relax.mean": "mean_truncates",             # global average pooling: integer division would truncate
    "relax.call_tir": "pad_as_float_tir",       # ONNX Pad imports as a TIR function written in float32
}
NO_INTEGER_OP = "no_integer_op"
# an operator of a kind the caller asked to keep in float (``rewrite(..., float_kinds=...)``), e.g. the
# classifier: its input is the float global-average-pool output, and its int8 rounding moves logits
KEPT_FLOAT = "kept_float"
LINEAR_KINDS = {"relax.nn.conv2d": "conv2d", "relax.matmul": "matmul"}


# ---------------------------------------------------------------------------
# Graph access
# ---------------------------------------------------------------------------


def prepare(mod):
    """FoldConstant on the imported module, so bias reshapes become constants."""
    from tvm import relax
    return relax.transform.FoldConstant()(mod)


def _op_name(value) -> str | None:
    from tvm import relax
    if isinstance(value, relax.Call) and hasattr(value.op, "name"):
        return str(value.op.name)
    return None


def _is_residual_add(value) -> bool:
    """An add of two computed tensors (neither a constant): a residual connection."""
    return _op_name(value) == "relax.add" and not any(_is_const(a) for a in value.args)


def bindings(mod) -> list:
    """``(var, value)`` pairs of ``main``'s single dataflow block, in order."""
    func = mod["main"]
    blocks = func.body.blocks
    if len(blocks) != 1:
        raise ValueError(f"main has {len(blocks)} binding blocks; the rewrite expects one dataflow block")
    return [(b.var, b.value) for b in blocks[0].bindings]


def _users(pairs) -> dict:
    """var -> list of binding indices that use it."""
    from tvm import relax
    out: dict = {}
    for index, (_, value) in enumerate(pairs):
        args = list(value.args) if isinstance(value, relax.Call) else []
        for arg in args:
            for item in (arg.fields if isinstance(arg, relax.Tuple) else [arg]):
                if isinstance(item, relax.Var):
                    out.setdefault(item, []).append(index)
    return out


def _is_const(expr) -> bool:
    """A constant operand (TVM 0.27 spells Relax constants ``tvm.ir.expr.GenericConst``)."""
    from tvm.ir.expr import GenericConst
    return isinstance(expr, GenericConst)


def _const_array(expr) -> np.ndarray:
    return expr.value.numpy()


# ---------------------------------------------------------------------------
# Calibration
# ---------------------------------------------------------------------------


def tap_module(mod):
    """``mod`` whose main returns ``(output, its inputs, every intermediate tensor)``; and their names."""
    from tvm import relax
    pairs = bindings(mod)
    func = mod["main"]
    tensors = [var for var, _ in pairs if isinstance(var.ty, relax.TensorType)]
    bb = relax.BlockBuilder(_without_main(mod))
    params = [relax.Var(p.name, p.ty) for p in func.params]
    remap = dict(zip(func.params, params))
    with bb.function("main", params, attrs=_attrs(func)):
        with bb.dataflow():
            for var, value in pairs:
                remap[var] = bb.emit(_substitute(value, remap), name_hint=var.name)
            out = bb.emit_output(relax.Tuple([remap[func.body.body]] + params + [remap[v] for v in tensors]))
        bb.emit_func_output(out)
    return bb.get(), [p.name for p in params] + [v.name for v in tensors]


def channels_last(mod):
    """The float module with every conv2d in NHWC / OHWI (layout changes propagated and folded): the
    layout the packed VNNI kernels (:mod:`experiments.int8.vnni_ops`) read.  A zero pad in front of
    a max pool over a ReLU's output becomes the pool's own padding first (:func:`fold_pool_pad`),
    so the pool follows the layout and stays integer."""
    from tvm import relax
    mod = relax.transform.ConvertLayout({"relax.nn.conv2d": ["NHWC", "OHWI"]})(fold_pool_pad(mod))
    return unique_names(relax.transform.FoldConstant()(mod))


def unique_names(mod):
    """``mod`` with every binding of main named uniquely (calibration and the rewrite key tensors by name).

    ConvertLayout names the transposes it inserts after the tensor they transpose (two ``lv``);
    a duplicate gets ``_2``, ``_3``, ... appended.
    """
    from tvm import relax
    pairs = bindings(mod)
    taken = {p.name for p in mod["main"].params} | {var.name for var, _ in pairs}
    if len({var.name for var, _ in pairs}) == len(pairs):
        return mod
    func = mod["main"]
    bb = relax.BlockBuilder(_without_main(mod))
    params = [relax.Var(p.name, p.ty) for p in func.params]
    remap, seen = dict(zip(func.params, params)), set()
    with bb.function("main", params, attrs=_attrs(func)):
        with bb.dataflow():
            for var, value in pairs:
                name, k = var.name, 2
                while name in seen or (name != var.name and name in taken):
                    name, k = f"{var.name}_{k}", k + 1
                seen.add(name)
                emit = bb.emit_output if var.same_as(func.body.body) else bb.emit
                remap[var] = emit(_substitute(value, remap), name_hint=name)
        bb.emit_func_output(remap[func.body.body])
    return bb.get()


def _attrs(func) -> dict:
    """The function's attributes as a plain dict (BlockBuilder adds global_symbol to it)."""
    return {str(k): v for k, v in func.attrs.items()} if func.attrs is not None else {}


def _without_main(mod):
    import tvm
    return tvm.IRModule({gv: f for gv, f in mod.functions.items() if gv.name_hint != "main"})


def _substitute(value, remap):
    """The binding's value with its variables replaced (Calls, Tuples, Vars, Constants)."""
    from tvm import relax
    if isinstance(value, relax.Var):
        return remap.get(value, value)
    if isinstance(value, relax.Tuple):
        return relax.Tuple([_substitute(f, remap) for f in value.fields])
    if isinstance(value, relax.Call):
        return relax.Call(value.op, [_substitute(a, remap) for a in value.args], value.attrs, value.ty_args)
    return value


def run_taps(executable, inputs: list[np.ndarray], names: list[str]) -> dict[str, np.ndarray]:
    """Run the tap module on each input batch; name -> values concatenated along axis 0."""
    import tvm
    from tvm import relax
    vm = relax.VirtualMachine(executable, tvm.cpu())
    out: dict[str, list] = {n: [] for n in ["__output__"] + names}
    for x in inputs:
        result = vm["main"](tvm.runtime.tensor(np.ascontiguousarray(x, dtype=np.float32)))
        for name, value in zip(out, result):
            out[name].append(value.numpy())
    return {k: np.concatenate(v) for k, v in out.items()}


# ---------------------------------------------------------------------------
# Rewrite
# ---------------------------------------------------------------------------


WIDE_BITS = 8   # a wide residual operand holds 2^WIDE_BITS steps per step of its 8-bit scale


def _fixed_point(multipliers: np.ndarray) -> tuple[np.ndarray, int]:
    """Integers m and shift n with m / 2^n ≈ multipliers, m < 2^30 (int64 products cannot overflow)."""
    top = float(np.max(multipliers))
    shift = int(math.floor(30 - math.log2(top))) if top > 0 else 30
    shift = max(1, min(shift, 62))
    return np.round(multipliers * (2.0 ** shift)).astype(np.int64), shift


def weight_scales(w: np.ndarray, reduce_axes, top: int) -> np.ndarray:
    """Per-output-channel scales of symmetric weights: ``max|w| / top`` over ``reduce_axes``."""
    return np.maximum(np.abs(w).max(axis=reduce_axes), 1e-12) / float(top)


def _concat_fields(value):
    """The tensors a ``concat`` binding joins, or None for anything else."""
    if _op_name(value) != "relax.concat" or not hasattr(value.args[0], "fields"):
        return None
    return list(value.args[0].fields)


def shared_scales(mod, acts: dict[str, ActQuant]) -> dict[str, ActQuant]:
    """``acts`` with every input of a concat quantized as the concat's output is (each keeps its
    own mean, which bias correction reads): the concat of the integers is then the integers of the
    concat.  A concat whose inputs differ in signedness from its output is left as it is; a
    coarser scale costs an input with a narrower range some resolution (the agreement set measures it)."""
    from tvm import relax
    out = dict(acts)
    for var, value in bindings(mod):
        fields = _concat_fields(value)
        q = acts.get(var.name)
        if fields is None or q is None or not all(isinstance(f, relax.Var) and f.name in acts
                                                  and acts[f.name].dtype == q.dtype for f in fields):
            continue
        for f in fields:
            out[f.name] = dataclasses.replace(q, mean=acts[f.name].mean)
    return out


@dataclasses.dataclass
class Report:
    """What the rewrite did: groups quantized, float operators left, conversions."""

    groups: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    float_ops: list[dict[str, str]] = dataclasses.field(default_factory=list)
    conversions: Counter = dataclasses.field(default_factory=Counter)
    groups_corrected: int = 0
    groups_rounded: int = 0

    def as_dict(self) -> dict[str, Any]:
        kinds = Counter(g["kind"] for g in self.groups)
        packed = Counter(g["kind"] for g in self.groups if g.get("kernel") == "vnni_packed")
        return {"groups": self.groups, "quantized_ops": dict(kinds), "float_ops": self.float_ops,
                "quantize": self.conversions["quantize"], "dequantize": self.conversions["dequantize"],
                "vnni_packed": dict(packed), "bias_corrected": self.groups_corrected,
                "weights_rounded": self.groups_rounded,
                "concat_integer": self.conversions["concat_integer"],
                "residual_fused": sum(1 for g in self.groups if g.get("residual_fused")),
                "residual_wide": sum(1 for g in self.groups if g.get("wide") or g.get("shortcut_wide"))}


class _Rewriter:
    """Walks main's bindings once and emits the integer program with a BlockBuilder."""

    def __init__(self, mod, acts: dict[str, ActQuant], debug: bool, vnni: bool = False, weight_max: int = 127,
                 float_kinds: frozenset = frozenset(), bias_correction: bool = True, rounded=None,
                 wide_residual: bool = True):
        from tvm import relax
        self.wide_residual = wide_residual
        self.wide: dict = {}         # old var -> (int32 expr, scales, broadcast shape) for a residual add
        self.rounded = dict(rounded or {})
        self.relax = relax
        self.bias_correction = bias_correction
        self.float_kinds = frozenset(float_kinds)
        self.mod, self.acts, self.debug, self.vnni = mod, shared_scales(mod, acts), debug, vnni
        self.weight_max = int(weight_max)
        self.pairs = bindings(mod)
        self.users = _users(self.pairs)
        self.index = {var: i for i, (var, _) in enumerate(self.pairs)}
        self.output = mod["main"].body.body
        self.report = Report()
        self.env: dict = {}          # old var -> (new expr, ActQuant | None)
        self.done: set[int] = set()
        self.quantized: dict = {}    # float var -> its quantized copy
        self.taps: list[tuple[str, Any]] = []

    # -- helpers -------------------------------------------------------
    def _const(self, array, dtype):
        import tvm
        return self.relax.const(tvm.runtime.tensor(np.ascontiguousarray(array, dtype=dtype)), dtype)

    def _float(self, var):
        """The float version of an old var (dequantizing when it is integer now)."""
        expr, q = self.env[var]
        if q is None:
            return expr
        self.report.conversions["dequantize"] += 1
        op = self.relax.op
        return self.bb.emit(op.multiply(op.astype(expr, "float32"), self.relax.const(q.scale, "float32")))

    def _int(self, var):
        """The integer version of an old var (quantizing with its calibration when float now)."""
        expr, q = self.env[var]
        if q is not None:
            return expr, q
        if var in self.quantized:      # a float tensor feeding several integer operators
            return self.quantized[var]
        q = self.acts[var.name]
        op = self.relax.op
        self.report.conversions["quantize"] += 1
        scaled = op.round(op.multiply(expr, self.relax.const(1.0 / q.scale, "float32")))
        self.quantized[var] = (self.bb.emit(op.astype(op.clip(scaled, q.lo, q.hi), q.dtype)), q)
        return self.quantized[var]

    def _term(self, var):
        """``(integer tensor, scales, broadcast shape)`` of an operand of a residual sum: its wide int32
        version when it has one, else its 8-bit version."""
        if var in self.wide:
            return self.wide[var]
        x, q = self._int(var)
        return x, np.array([q.scale]), (1,)

    def _known(self, var) -> bool:
        return var in self.env or var in self.wide

    def _feeds_residual(self, var) -> bool:
        """True when a residual add (two computed tensors) reads var."""
        return any(_is_residual_add(self.pairs[i][1]) for i in self.users.get(var, []))

    def _single_user(self, var, opname, const_other=None):
        """The index of var's only user if it is ``opname`` (optionally with a constant operand)."""
        users = self.users.get(var, [])
        if len(users) != 1 or var.same_as(self.output):
            return None
        index = users[0]
        value = self.pairs[index][1]
        if _op_name(value) != opname:
            return None
        if const_other is not None:
            other = [a for a in value.args if not a.same_as(var)]
            if len(other) != 1 or _is_const(other[0]) != const_other:
                return None
        return index

    def _feeds_integer(self, var) -> bool:
        """True when some user of var can consume an integer tensor."""
        if var.same_as(self.output):
            return False
        for index in self.users.get(var, []):
            name = _op_name(self.pairs[index][1])
            value = self.pairs[index][1]
            if name in ("relax.nn.conv2d", "relax.matmul") and _is_const(value.args[1]):
                return True
            if name in SHAPE_OPS | {"relax.nn.relu", "relax.nn.max_pool2d"}:
                return True
            if _is_residual_add(value) or self._integer_concat(index):
                return True
        return False

    def _integer_concat(self, index) -> bool:
        """True when binding ``index`` is a concat whose inputs all share its scale (:func:`shared_scales`)."""
        var, value = self.pairs[index]
        fields, q = _concat_fields(value), self.acts.get(var.name)
        return fields is not None and q is not None and all(self.acts.get(f.name) == q for f in fields)

    # -- groups --------------------------------------------------------
    def _requant(self, acc, multipliers: np.ndarray, shape, out: ActQuant, relu: bool):
        op, relax = self.relax.op, self.relax
        m, shift = _fixed_point(multipliers)
        prod = op.multiply(op.astype(acc, "int64"), self._const(m.reshape(shape), "int64"))
        rounded = op.right_shift(op.add(prod, relax.const(1 << (shift - 1), "int64")), relax.const(shift, "int64"))
        return self.bb.emit(op.astype(op.clip(rounded, 0 if relu else out.lo, out.hi), out.dtype))

    def _dequant_acc(self, acc, scales: np.ndarray, shape, relu: bool):
        op = self.relax.op
        if relu:
            acc = op.maximum(acc, self.relax.const(0, "int32"))
        self.report.conversions["dequantize"] += 1
        return self.bb.emit(op.multiply(op.astype(acc, "float32"), self._const(scales.reshape(shape), "float32")))

    def _linear(self, index):
        """conv2d / matmul with a constant weight, then bias add and ReLU when they follow alone."""
        op = self.relax.op
        var, value = self.pairs[index]
        kind = "conv2d" if _op_name(value) == "relax.nn.conv2d" else "matmul"
        x_old, w_const = value.args
        w = _const_array(w_const)
        axis = 0 if kind == "conv2d" else w.ndim - 1
        reduce_axes = tuple(a for a in range(w.ndim) if a != axis)
        if var.name in self.rounded:    # rounded with error feedback (experiments.int8.rounding)
            w_q, s_w = self.rounded[var.name]
            self.report.groups_rounded += 1
        else:
            top = self.weight_max
            s_w = weight_scales(w, reduce_axes, top)
            w_q = np.clip(np.round(w / np.expand_dims(s_w, reduce_axes)), -top, top).astype(np.int8)
        x_q, q_x = self._int(x_old)
        kernel = "legalized"
        if kind == "conv2d":
            a = value.attrs
            if self.vnni and vnni_ops.conv_fits(q_x.dtype, a, w_q.shape):
                kernel = "vnni_packed"
                correction = None
                if q_x.dtype == "int8":   # read as x + 128; the kernel adds back -128 * sum(w)
                    fix = np.zeros(vnni_ops.padded(w_q.shape[0]), np.int32)
                    fix[:w_q.shape[0]] = vnni_ops.shift_correction(w_q)
                    correction = self._const(fix, "int32")
                acc = self.bb.emit_te(vnni_ops.conv2d_nhwc_packed, x_q, self._const(vnni_ops.pack_conv(w_q), "int8"),
                                      [int(s) for s in a.strides], [int(p) for p in a.padding], int(w_q.shape[0]),
                                      correction, primfunc_name_hint="conv2d_vnni")
            else:
                acc = self.bb.emit(op.nn.conv2d(x_q, self._const(w_q, "int8"), a.strides, a.padding, a.dilation,
                                                a.groups, a.data_layout, a.kernel_layout, a.out_layout, "int32"))
            shape = [1, 1, 1, 1]
            shape[str(a.out_layout).index("C")] = -1
        else:
            if self.vnni and vnni_ops.dense_fits(q_x.dtype, len(x_old.ty.shape), w_q.shape):
                kernel = "vnni_packed"
                acc = self.bb.emit_te(vnni_ops.dense_packed, x_q, self._const(vnni_ops.pack_dense(w_q), "int8"),
                                      int(w_q.shape[1]), primfunc_name_hint="dense_vnni")
            else:
                acc = self.bb.emit(op.matmul(x_q, self._const(w_q, "int8"), out_dtype="int32"))
            shape = (-1,)
        acc_scale = q_x.scale * s_w
        last, members = var, [index]
        bias_at = self._single_user(last, "relax.add", const_other=True)
        if bias_at is not None:
            b_const = _const_array([a for a in self.pairs[bias_at][1].args if _is_const(a)][0])
            b = b_const.reshape(-1)
            mean = getattr(self.acts.get(x_old.name), "mean", None) if self.bias_correction else None
            delta = w - w_q * np.expand_dims(s_w, reduce_axes)
            shift = None if mean is None else (bias_correction.conv_shift(mean, delta, value.attrs)
                                               if kind == "conv2d" else bias_correction.matmul_shift(mean, delta))
            if shift is not None and shift.size == b.size:
                b = b + shift
                self.report.groups_corrected += 1
            if b.size == acc_scale.size:
                b_q = np.round(b / acc_scale).astype(np.int32)
                acc = self.bb.emit(op.add(acc, self._const(b_q.reshape(b_const.shape), "int32")))
                last = self.pairs[bias_at][0]
                members.append(bias_at)
        last, relu_at = self._absorb_relu(last, members)
        if relu_at is None and (self._fused_residual(acc, acc_scale, shape, last, members, kind)
                                or self._wide_accumulator(acc, acc_scale, shape, last, members, kind)):
            self.report.groups[-1]["kernel"] = kernel
            return
        if self._feeds_integer(last):
            q_out = self.acts[last.name]
            out = self._requant(acc, acc_scale / q_out.scale, shape, q_out, relu_at is not None)
        else:
            q_out, out = None, self._dequant_acc(acc, acc_scale, shape, relu_at is not None)
        self._finish(members, last, out, q_out, kind, relu_at is not None)
        self.report.groups[-1]["kernel"] = kernel

    def _absorb_relu(self, last, members):
        """(new last var, relu binding index or None): a ReLU that alone follows ``last`` joins the group."""
        relu_at = self._single_user(last, "relax.nn.relu")
        if relu_at is None:
            return last, None
        members.append(relu_at)
        return self.pairs[relu_at][0], relu_at

    def _fused_residual(self, acc, acc_scale, shape, last, members, kind) -> bool:
        """A linear group whose result only feeds a residual add with an operand computed already
        takes the add (and a ReLU after it) into its requantization: the int32 accumulator and the
        other operand are scaled to the sum's scale together, one rounding where the separate add
        rounds the linear output to 8 bits first.  False (nothing emitted) when the pattern differs."""
        add_at = self._single_user(last, "relax.add", const_other=False)
        if add_at is None:
            return False
        other = [a for a in self.pairs[add_at][1].args if not a.same_as(last)]
        if len(other) != 1 or not self._known(other[0]):
            return False
        members.append(add_at)
        self._sum(members, self.pairs[add_at][0], [(acc, acc_scale, shape), self._term(other[0])], kind)
        self.report.groups[-1]["residual_fused"] = True
        return True

    def _wide_accumulator(self, acc, acc_scale, shape, last, members, kind) -> bool:
        """A linear group whose result only feeds a residual add whose other operand comes later (a
        downsampling block, whichever of the main path's last conv and the 1x1 shortcut comes first in the
        program) keeps its int32 accumulator for that add: the later group
        sums both accumulators in one requantization instead of reading this one rounded to 8 bits."""
        add_at = self._single_user(last, "relax.add", const_other=False)
        if not self.wide_residual or add_at is None:
            return False
        self.wide[last] = (acc, acc_scale, shape)
        self._group(members, last, kind, relu=False, out_dtype="int32", out_scale=None, wide=True)
        if self.debug:
            op = self.relax.op
            self.taps.append((last.name, self.bb.emit(op.multiply(
                op.astype(acc, "float32"), self._const(acc_scale.reshape(shape), "float32")))))
        return True

    def _residual(self, index):
        """add(a, b) of two tensors, both made integer, then ReLU when it follows alone."""
        var, value = self.pairs[index]
        self._sum([index], var, [self._term(value.args[0]), self._term(value.args[1])], "add")

    def _sum(self, members, var, terms, kind):
        """Integer terms (tensor, scales, broadcast shape) summed at the output's scale in fixed point
        (``(sum t_i * m_i + 2^(n-1)) >> n``), then ReLU when it follows alone; integer or float out.
        A sum that a later residual add reads (the identity shortcut) is also kept wide: int32 at
        2^-WIDE_BITS of its 8-bit scale, unclipped above, and the 8-bit copy is rounded from it."""
        op, relax = self.relax.op, self.relax
        last, relu_at = self._absorb_relu(var, members)
        if self._feeds_integer(last):
            q_out = self.acts[last.name]
            target = q_out.scale
        else:
            q_out, target = None, min(float(np.min(s)) for _, s, _ in terms)
        wide = q_out is not None and self.wide_residual and self._feeds_residual(last)
        if wide:
            target = target / (1 << WIDE_BITS)
        m, shift = _fixed_point(np.concatenate([s / target for _, s, _ in terms]))
        total, at = None, 0
        for t, s, shape in terms:
            term = op.multiply(op.astype(t, "int64"), self._const(m[at:at + s.size].reshape(shape), "int64"))
            total, at = term if total is None else op.add(total, term), at + s.size
        rounded = op.right_shift(op.add(total, relax.const(1 << (shift - 1), "int64")), relax.const(shift, "int64"))
        if wide:
            lo = 0 if relu_at is not None else -(1 << 31)
            held = self.bb.emit(op.astype(op.clip(rounded, lo, (1 << 31) - 1), "int32"))
            self.wide[last] = (held, np.array([target]), (1,))
            rounded = op.right_shift(op.add(held, relax.const(1 << (WIDE_BITS - 1), "int32")),
                                     relax.const(WIDE_BITS, "int32"))
        if q_out is not None:
            lo = 0 if relu_at is not None else q_out.lo
            out = self.bb.emit(op.astype(op.clip(rounded, lo, q_out.hi), q_out.dtype))
        else:
            acc = self.bb.emit(op.astype(rounded, "int32"))
            out = self._dequant_acc(acc, np.array([target]), (1,), relu_at is not None)
        self._finish(members, last, out, q_out, kind, relu_at is not None)
        if wide:
            self.report.groups[-1]["shortcut_wide"] = True

    def _group(self, members, last, kind, **fields):
        """Mark members rewritten and report them as one group whose result is ``last``."""
        self.done.update(members)
        self.report.groups.append({"kind": kind, "output": last.name, **fields,
                                   "ops": [_op_name(self.pairs[i][1]).replace("relax.", "") for i in members]})

    def _finish(self, members, last, out, q_out, kind, relu):
        self.env[last] = (out, q_out)
        self._group(members, last, kind, relu=relu, out_dtype=q_out.dtype if q_out else "float32",
                    out_scale=q_out.scale if q_out else None)
        if self.debug:
            self.taps.append((last.name, out if q_out is None else self.bb.emit(
                self.relax.op.multiply(self.relax.op.astype(out, "float32"),
                                       self.relax.const(q_out.scale, "float32")))))

    # -- walk ----------------------------------------------------------
    def _other(self, index):
        var, value = self.pairs[index]
        if isinstance(value, self.relax.Var):   # an alias (e.g. the dataflow block's output)
            self.env[var] = self.env[value]
            return
        name = _op_name(value)
        if self._integer_concat(index):   # the inputs' integers at one scale: join them as they are
            fields = [self._int(f)[0] for f in _concat_fields(value)]
            self.env[var] = (self.bb.emit(self.relax.Call(value.op, [self.relax.Tuple(fields)], value.attrs)),
                             self.acts[var.name])
            self.report.conversions["concat_integer"] += 1
            return
        args = list(value.args) if hasattr(value, "args") else []
        ints = [a for a in args if isinstance(a, self.relax.Var) and self.env.get(a, (None, None))[1] is not None]
        if name in SHAPE_OPS | {"relax.nn.relu", "relax.nn.max_pool2d"} and len(ints) == 1 and len(args) >= 1 \
                and args[0].same_as(ints[0]):
            expr, q = self.env[args[0]]
            if name == "relax.nn.relu":   # zero point 0: ReLU on the integer tensor is a max with 0
                new = self.relax.op.maximum(expr, self.relax.const(0, q.dtype))
            else:
                new = self.relax.Call(value.op, [expr, *args[1:]], value.attrs, value.ty_args)
            self.env[var] = (self.bb.emit(new), q)
            return
        kept = LINEAR_KINDS.get(name) in self.float_kinds
        self.report.float_ops.append({"op": (name or "?").replace("relax.", ""), "var": var.name,
                                      "input": "integer, dequantized first" if ints else "float",
                                      "reason_code": KEPT_FLOAT if kept else
                                      FLOAT_REASONS.get(name, SHAPE_REASON if name in SHAPE_OPS else NO_INTEGER_OP)})
        remap = {a: self._float(a) for a in args if isinstance(a, self.relax.Var) and a in self.env}
        for a in args:
            if isinstance(a, self.relax.Tuple):
                remap.update({f: self._float(f) for f in a.fields if isinstance(f, self.relax.Var)})
        self.env[var] = (self.bb.emit(_substitute(value, remap)), None)

    def run(self):
        relax = self.relax
        func = self.mod["main"]
        self.bb = relax.BlockBuilder(_without_main(self.mod))
        params = [relax.Var(p.name, p.ty) for p in func.params]
        for old, new in zip(func.params, params):
            self.env[old] = (new, None)
        with self.bb.function("main", params, attrs=_attrs(func)):
            with self.bb.dataflow():
                for index, (var, value) in enumerate(self.pairs):
                    if index in self.done:
                        continue
                    name = _op_name(value)
                    if name in LINEAR_KINDS and LINEAR_KINDS[name] not in self.float_kinds \
                            and _is_const(value.args[1]) and value.args[0] in self.env:
                        self._linear(index)
                    elif _is_residual_add(value):
                        self._residual(index)
                    else:
                        self._other(index)
                result = self._float(self.output)
                if self.debug:
                    result = relax.Tuple([result] + [t for _, t in self.taps])
                out = self.bb.emit_output(result)
            self.bb.emit_func_output(out)
        return self.bb.get()


def rewrite(mod, acts: dict[str, ActQuant], debug: bool = False, vnni: bool = False, weight_max: int = 127,
            float_kinds=(), bias_correction: bool = True, rounded=None, wide_residual: bool = True):
    """The integer program for a prepared FP32 module; returns ``(module, report dict[, tap names])``.

    ``debug=True``: main returns ``(logits, dequantized output of every quantized group)``
    and the third element names those groups (for :func:`layer_report`).
    ``vnni=True``: a conv2d (NHWC, see :func:`channels_last`) or 2-D
    matmul with a uint8 input runs as a packed-weight kernel that MetaSchedule can tensorize with
    ``vpdpbusd`` (or, without VNNI, ``vpmaddubsw``/``vpmaddwd``); its group says
    ``kernel: vnni_packed`` (others ``legalized``).
    ``weight_max``: weights quantized to +-``weight_max`` (127; 63 for the AVX2 sequence, which
    saturates on 8-bit weights: :mod:`experiments.int8.avx2_dot`).
    ``float_kinds``: linear kinds (``"matmul"``, ``"conv2d"``) left in float, listed with reason
    ``kept_float`` (the classifier of an ImageNet network, whose float input is re-quantized per tensor).
    ``bias_correction``: each linear group's bias absorbs the mean shift its weight rounding causes
    (:mod:`experiments.int8.bias_correction`, from the means ``calibrate`` keeps).
    ``rounded``: conv name -> ``(int8 weights, per-output-channel scales)`` chosen elsewhere
    (:func:`experiments.int8.rounding.round_weights`) in place of rounding to nearest.
    ``wide_residual``: the operands of a residual add stay int32 (a shortcut at 2^-8 of its 8-bit
    scale, the first of a downsampling block's two summed accumulators), so the add rounds once; False reads them as 8 bits.
    """
    if not 1 <= int(weight_max) <= 127:
        raise ValueError(f"weight_max must lie in 1..127, got {weight_max}")
    unknown = set(float_kinds) - set(LINEAR_KINDS.values())
    if unknown:
        raise ValueError(f"float_kinds may name {sorted(LINEAR_KINDS.values())}, got {sorted(unknown)}")
    rewriter = _Rewriter(mod, acts, debug, vnni, weight_max, frozenset(float_kinds), bias_correction, rounded,
                         wide_residual)
    new = rewriter.run()
    report = dict(rewriter.report.as_dict(), weight_max=int(weight_max), float_kinds=sorted(float_kinds))
    if debug:
        return new, report, [name for name, _ in rewriter.taps]
    return new, report
