"""The seed's Relay chapter (§24, §29, §30 and the old-API walk-through) redone on
TVM 0.27 with Relax, the graph-level IR that replaced Relay.

This module is a library: it builds, transforms, inspects, compiles and checks
small Relax graphs, but it records nothing and times nothing by itself.

What it provides
----------------
* :func:`hello_relax` -- the smallest Relax function (0-d int64 ``x + 1``): IR
  text, legalized TIR, VM bytecode, LLVM IR and assembly, and the VM output.
* :func:`conv_unit` -- the §29 convolution unit (conv2d 3x3/s2/p1 -> inference
  batch norm with non-trivial statistics -> ReLU, (1,3,224,224) -> (1,32,112,112))
  with its weights bound as constants, plus a pure-NumPy reference.
* ResNet-18 v1 built the same way: :mod:`experiments.graph.resnet18`.
* :data:`PIPELINE` / :data:`PIPELINE_FOLD_BN` and :func:`apply_pipeline` -- the
  pass sequence applied one step at a time, with :func:`ir_stats` per step.
* :func:`compile_step` / :func:`check` -- compile any step and compare with the
  reference.
* The §24 Relay passes and the old APIs with their 0.27 counterparts:
  :mod:`experiments.graph.migration`.

TVM 0.27 traps (verified against the installed wheel)
-----------------------------------------------------
* ``StructInfo`` is gone from the Python API: ``relax.TensorStructInfo`` does not
  exist; annotations are ``relax.TensorType(shape, dtype)``, an expression's type
  is ``expr.ty`` (not ``expr.struct_info``), tuples are ``tvm.ir.TupleType`` and
  ``TensorType.dtype`` is a ``PrimType`` (the string is ``str(t.dtype.dtype)``).
  TVMScript prints ``R.call_tir(..., out_ty=...)`` (not ``out_sinfo``).
* ``tvm.compile`` on a CPU target runs the *generic* build pipeline
  (``LegalizeOps`` + lowering): no ``FoldConstant``, no fusion.  The fusing CPU
  pipeline is ``relax.get_default_pipeline(target)``.
* ``relax.op.nn.batch_norm`` defaults to ``training=True``; the conv unit passes
  ``training=False``.  With the default, LegalizeOps computes batch statistics
  (max error ~5 against the inference reference on this unit) while
  ``DecomposeOpsForInference`` ignores the flag and uses the moving statistics,
  so two steps of the same pipeline would silently disagree.
* Without decomposition, the fusing CPU pipeline (``get_default_pipeline``'s
  LegalizeOps/AnnotateTIROpPattern/FoldConstant/FuseOps/FuseTIR) leaves this unit
  as two kernels (``conv2d`` and ``fused_batch_norm_relu``): the legalized
  batch_norm PrimFunc does not fuse into the conv.  Decomposing it (or folding
  it into the conv) gives one kernel.
* ``DecomposeOpsForInference`` writes batch norm as
  ``(x - mean) / sqrt(var + eps) * gamma + beta``; ``FoldConstant`` does not
  re-associate, so after it four full-size elementwise ops remain (only
  ``sqrt(var + eps)`` and the broadcasts are folded).  Relay's
  ``SimplifyInference`` emitted ``x * scale + shift`` instead.  Getting the
  scale/shift form needs ``FoldBatchnormToConv2D`` (a Python pass that matches
  ``conv2d -> batch_norm`` and so must run *before* any decomposition) followed
  by ``FoldConstant``: see :data:`PIPELINE_FOLD_BN`.
* ``FoldConstant`` does not re-associate ``(x * 2) * 3`` either; only
  sub-expressions whose inputs are all constants are folded.
* ``EliminateCommonSubexpr`` leaves the duplicate as a var-to-var alias
  (``lv1 = lv``); ``CanonicalizeBindings`` removes it.
* ``FuseTIR`` produces one PrimFunc per group, but without a schedule the
  intermediate stages stay materialised as full-size ``T.sblock_alloc_buffer``
  buffers inside it: graph-level intermediate bytes drop to zero while the
  kernel still writes them (see ``tir_alloc_bytes`` in :func:`ir_stats`).
* On ResNet-18 ``FuseOps`` leaves 24 kernels in ``main`` (down from 71 calls
  imported): 20 conv groups (each conv with its BN arithmetic, ReLU and, for
  the second conv of a block, the residual add), ``max_pool2d``,
  ``adaptive_avg_pool2d``, ``reshape`` and ``matmul + add``; the pools do not
  fuse into their neighbours.  Identical groups share one PrimFunc (19 TIR
  functions for 24 calls).  ``relax.op.linear`` is not an op of its own: it
  emits ``permute_dims`` + ``matmul`` + ``add``, and ``FoldConstant`` folds the
  transpose of the constant weight.
* ``tvm.ir.structural_equal`` is gone (only ``tvm.ir.assert_structural_equal``);
  the boolean test is ``tvm_ffi.structural_equal``.  ``relax.Constant`` is gone
  too: ``relax.const`` builds ``tvm.ir.GenericConst``, and without ``dtype`` it
  narrows a Python int / int64 value to int32 and float64 to float32, so the
  hello example needs ``relax.const(1, "int64")`` to add to an int64 tensor.
* ``tvm.build`` still exists but is a deprecated alias of ``tvm.tirx.build``
  (TIR only); ``tvm.tirx.get_tir_pipeline`` returns a 3-tuple
  ``(pass, host finalizer, device finalizer)`` and its passes need a
  target-annotated PrimFunc.
* Relax has no ``CombineParallelConv2D``, ``FoldScaleAxis``, ``CanonicalizeCast``
  or ``CanonicalizeOps`` (checked in ``relax.transform`` and in the names
  registered by ``libtvm_compiler.so``).
"""

from __future__ import annotations

import dataclasses
import functools
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import tvm
import tvm_ffi
from tvm import relax
from tvm.relax import transform as rt

from experiments import targets

# ---------------------------------------------------------------------------
# Small shared helpers
# ---------------------------------------------------------------------------


def host_target() -> tvm.target.Target:
    """The LLVM target for this machine's CPU (:mod:`experiments.targets`), without num-cores."""
    return targets.host_target()


def make_module(
    inputs: Sequence[tuple[str, tuple[int, ...], str]],
    body: Callable[..., relax.Expr],
    name: str = "main",
) -> tvm.IRModule:
    """Build an IRModule with one Relax function through ``relax.BlockBuilder``.

    ``inputs`` lists ``(name, shape, dtype)`` parameters; ``body(bb, *params)``
    emits bindings inside a dataflow block and returns the value to output.
    """
    bb = relax.BlockBuilder()
    params = [relax.Var(n, relax.TensorType(shape, dtype)) for n, shape, dtype in inputs]
    with bb.function(name, params):
        with bb.dataflow():
            out = bb.emit_output(body(bb, *params))
        bb.emit_func_output(out)
    return bb.get()


def _dtype_bytes(dtype: Any) -> int:
    """Bytes per element of a dtype given as string, ``PrimType`` or ffi dtype."""
    if isinstance(dtype, tvm.ir.PrimType):
        dtype = dtype.dtype
    dt = tvm.DataType(str(dtype))
    return (dt.bits * dt.lanes + 7) // 8


def _static_dims(dims: Sequence[Any]) -> list[int] | None:
    """Integer dimensions, or None when any dimension is symbolic."""
    out = []
    for d in dims:
        if not isinstance(d, tvm.tirx.IntImm | int):
            return None
        out.append(int(d))
    return out


def type_bytes(ty: Any) -> int:
    """Bytes of a Relax value of type ``ty`` (tensor or tuple of tensors).

    Symbolic or unknown shapes count as 0; non-tensor values count as 0.
    """
    if isinstance(ty, tvm.ir.TupleType):
        return sum(type_bytes(f) for f in ty.fields)
    if not isinstance(ty, relax.TensorType) or ty.shape is None:
        return 0
    dims = _static_dims(getattr(ty.shape, "values", None) or [])
    if dims is None or (ty.ndim != 0 and not dims):
        return 0
    return int(np.prod(dims, dtype=np.int64)) * _dtype_bytes(ty.dtype)


def _llvm_modules(ex: Any) -> list[tvm.runtime.Module]:
    """The LLVM runtime modules imported (transitively) by an executable."""
    found, stack = [], list(getattr(ex, "mod", ex).imports)
    while stack:
        m = stack.pop()
        if m.kind == "llvm":
            found.append(m)
        stack.extend(m.imports)
    return found


def generated_source(ex: Any, fmt: str = "ll") -> str | None:
    """Generated code of a compiled executable: ``"ll"`` (LLVM IR) or ``"asm"``.

    In 0.27 ``tvm.compile`` returns a ``VMExecutable``; the kernels live in an
    LLVM module among ``ex.mod.imports`` and ``Module.inspect_source(fmt)``
    replaces the old ``lib.get_source()``.  None when no LLVM module exists.
    """
    mods = _llvm_modules(ex)
    return "\n".join(m.inspect_source(fmt) for m in mods) if mods else None


# ---------------------------------------------------------------------------
# 1. Hello Relax
# ---------------------------------------------------------------------------


def hello_module() -> tvm.IRModule:
    """The smallest Relax program: ``main(x: int64[]) = x + 1`` (BlockBuilder)."""
    return make_module(
        [("x", (), "int64")],
        lambda bb, x: bb.emit(relax.op.add(x, relax.const(1, "int64"))),
    )


def hello_relax(value: int = 41, target: tvm.target.Target | None = None) -> dict[str, Any]:
    """Build, print, compile and run the smallest Relax function.

    Returns the module, its TVMScript text (and whether it parses back to the
    same IR), the legalized TIR, the VM bytecode, the LLVM IR and assembly of
    the compiled kernel, the input and the VM output.
    """
    target = target or host_target()
    mod = hello_module()
    text = mod.script()
    roundtrip = tvm_ffi.structural_equal(tvm.script.from_source(text), mod)
    ex = tvm.compile(mod, target)
    vm = relax.VirtualMachine(ex, tvm.cpu())
    out = vm["main"](tvm.runtime.tensor(np.array(value, dtype="int64"))).numpy()
    return {
        "mod": mod,
        "ir_text": text,
        "script_roundtrip": bool(roundtrip),
        "tir_text": rt.LegalizeOps()(mod).script(),
        "vm_text": ex.as_text(),
        "llvm_ir": generated_source(ex, "ll"),
        "asm": generated_source(ex, "asm"),
        "target": str(target),
        "input": value,
        "output": out.item(),
        "output_dtype": str(out.dtype),
        "expected": value + 1,
    }


# ---------------------------------------------------------------------------
# 2. The §29 convolution unit
# ---------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class ConvSpec:
    """Shapes and attributes of the seed §29 convolution unit (NCHW / OIHW)."""

    data_shape: tuple[int, int, int, int] = (1, 3, 224, 224)
    weight_shape: tuple[int, int, int, int] = (32, 3, 3, 3)
    strides: tuple[int, int] = (2, 2)
    padding: tuple[int, int] = (1, 1)
    out_shape: tuple[int, int, int, int] = (1, 32, 112, 112)
    epsilon: float = 1e-5
    dtype: str = "float32"
    param_names: tuple[str, ...] = ("weight", "gamma", "beta", "moving_mean", "moving_var")


PARAM_NAMES = ConvSpec().param_names


def conv_params(seed: int = 0, spec: ConvSpec | None = None) -> dict[str, np.ndarray]:
    """Deterministic conv weight and batch-norm statistics from ``seed``.

    The statistics are deliberately non-trivial (mean != 0, var != 1, var > 0,
    gamma != 1, beta != 0) so that folding them is visible and testable.
    """
    spec = spec or ConvSpec()
    values = conv_bn_values(np.random.default_rng([seed, 0]), spec.weight_shape)
    return {k: v.astype(spec.dtype) for k, v in values.items()}


def conv_bn_values(rng: np.random.Generator, weight_shape: Sequence[int]) -> dict[str, np.ndarray]:
    """He-normal conv weight (OIHW) and non-trivial batch-norm statistics, float64.

    Keys are :data:`PARAM_NAMES` in that order, drawn from ``rng`` in that order:
    gamma in [0.5, 1.5), beta ~ N(0, 0.2), mean ~ N(0, 0.3), var in [0.5, 2).
    """
    c, fan_in = weight_shape[0], int(np.prod(weight_shape[1:]))
    return {
        "weight": rng.standard_normal(tuple(weight_shape)) * np.sqrt(2.0 / fan_in),
        "gamma": rng.uniform(0.5, 1.5, c),
        "beta": rng.normal(0.0, 0.2, c),
        "moving_mean": rng.normal(0.0, 0.3, c),
        "moving_var": rng.uniform(0.5, 2.0, c),
    }


def conv_input(seed: int = 0, spec: ConvSpec | None = None) -> np.ndarray:
    """A deterministic input tensor for the conv unit (standard normal)."""
    spec = spec or ConvSpec()
    return np.random.default_rng([seed, 1]).standard_normal(spec.data_shape).astype(spec.dtype)


def conv_unit_unbound(spec: ConvSpec | None = None) -> tvm.IRModule:
    """conv2d -> batch_norm(training=False)[0] -> relu, weights as parameters."""
    spec = spec or ConvSpec()
    c = spec.weight_shape[0]
    inputs = [("data", spec.data_shape, spec.dtype), ("weight", spec.weight_shape, spec.dtype)]
    inputs += [(n, (c,), spec.dtype) for n in spec.param_names[1:]]

    def body(bb, data, weight, gamma, beta, mean, var):
        conv = bb.emit(relax.op.nn.conv2d(data, weight, strides=spec.strides, padding=spec.padding))
        bn = bb.emit(
            relax.op.nn.batch_norm(conv, gamma, beta, mean, var, axis=1,
                                   epsilon=spec.epsilon, training=False)
        )
        return bb.emit(relax.op.nn.relu(bb.emit(relax.TupleGetItem(bn, 0))))

    return make_module(inputs, body)


def conv_reference(data: np.ndarray, params: dict[str, np.ndarray],
                   spec: ConvSpec | None = None) -> np.ndarray:
    """Pure-NumPy conv unit: im2col + matmul, inference batch norm, ReLU (float64 math)."""
    spec = spec or ConvSpec()
    conv = np_conv2d(data.astype(np.float64), params["weight"], spec.strides, spec.padding)
    return np.maximum(np_batch_norm(conv, params, spec.epsilon), 0.0).astype(spec.dtype)


def np_conv2d(x: np.ndarray, weight: np.ndarray, strides: Sequence[int],
              padding: Sequence[int]) -> np.ndarray:
    """NCHW / OIHW convolution in float64 through :func:`im2col` + matmul."""
    w = weight.astype(np.float64)
    cols, (oh, ow) = im2col(x.astype(np.float64), w.shape[2:], strides, padding)
    return (w.reshape(w.shape[0], -1) @ cols).reshape(x.shape[0], w.shape[0], oh, ow)


def np_batch_norm(x: np.ndarray, params: dict[str, np.ndarray], epsilon: float,
                  prefix: str = "") -> np.ndarray:
    """Inference batch norm over axis 1 with ``{prefix}gamma``/``beta``/``moving_mean``/``moving_var``."""
    c = {k: params[prefix + k].astype(np.float64)[None, :, None, None] for k in PARAM_NAMES[1:]}
    return (x - c["moving_mean"]) / np.sqrt(c["moving_var"] + epsilon) * c["gamma"] + c["beta"]


def im2col(x: np.ndarray, kernel: Sequence[int], strides: Sequence[int],
           padding: Sequence[int]) -> tuple[np.ndarray, tuple[int, int]]:
    """NCHW im2col: returns ``cols[n, c*kh*kw, oh*ow]`` and ``(oh, ow)``."""
    n, c, h, w = x.shape
    (kh, kw), (sh, sw), (ph, pw) = kernel, strides, padding
    xp = np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)))
    oh, ow = (h + 2 * ph - kh) // sh + 1, (w + 2 * pw - kw) // sw + 1
    cols = np.empty((n, c, kh, kw, oh, ow), dtype=x.dtype)
    for i in range(kh):
        for j in range(kw):
            cols[:, :, i, j] = xp[:, :, i:i + sh * oh:sh, j:j + sw * ow:sw]
    return cols.reshape(n, c * kh * kw, oh * ow), (oh, ow)


def conv_unit(seed: int = 0, spec: ConvSpec | None = None
              ) -> tuple[tvm.IRModule, dict[str, np.ndarray], Callable[[np.ndarray], np.ndarray]]:
    """The §29 conv unit with its weights bound as constants (``BindParams``).

    Returns ``(mod, params, reference)``: ``mod.main`` takes only ``data``;
    ``params`` are the NumPy values that were bound; ``reference(data)`` is the
    NumPy implementation of the same computation.  Binding makes the weights
    and statistics constant nodes (``tvm.ir.GenericConst``), so ``FoldConstant`` has real work.
    """
    spec = spec or ConvSpec()
    params = conv_params(seed, spec)
    bound = {k: tvm.runtime.tensor(v) for k, v in params.items()}
    mod = rt.BindParams("main", bound)(conv_unit_unbound(spec))
    return mod, params, functools.partial(conv_reference, params=params, spec=spec)


# ---------------------------------------------------------------------------
# 3./4. Pass pipeline and per-step statistics
# ---------------------------------------------------------------------------


def pipeline_steps(variant: str = "decompose") -> list[tuple[str, Any]]:
    """Fresh ``(step name, pass or None)`` list (written for the conv unit; the same
    passes are applied to ResNet-18).  What each step does is said on the page
    (docs/words/graph.yaml, ``step_diffs.step``, by variant and step name).

    ``"decompose"`` is Relax's own inference path (DecomposeOpsForInference ->
    ... -> FuseTIR).  ``"fold_bn"`` replaces the decomposition by
    FoldBatchnormToConv2D, which yields Relay's scale/shift result (BN scale
    folded into the conv weight, shift as one bias add) after FoldConstant.
    """
    head = {
        "decompose": [
            ("DecomposeOpsForInference", rt.DecomposeOpsForInference()),   # Relay's SimplifyInference
            # drops TupleGetItem and var-to-var aliases; the dead tuple binding goes only at FoldConstant
            ("CanonicalizeBindings", rt.CanonicalizeBindings()),
            ("FoldConstant", rt.FoldConstant()),   # no re-association: four elementwise ops remain
        ],
        "fold_bn": [
            ("FoldBatchnormToConv2D", rt.FoldBatchnormToConv2D()),   # constant sub-expressions not yet evaluated
            ("FoldConstant", rt.FoldConstant()),   # new conv weight and shift: BN is one per-channel add
        ],
    }[variant]
    tail = [
        ("LegalizeOps", rt.LegalizeOps()),
        ("AnnotateTIROpPattern", rt.AnnotateTIROpPattern()),   # only attributes change in the IR text
        ("FuseOps", rt.FuseOps()),
        ("FuseTIR", rt.FuseTIR()),
        ("DeadCodeElimination", rt.DeadCodeElimination()),   # FuseTIR already removed the merged PrimFuncs
    ]
    return [("imported", None)] + head + tail   # imported: BindParams done, no pass run


PIPELINE = pipeline_steps("decompose")
PIPELINE_FOLD_BN = pipeline_steps("fold_bn")


@dataclasses.dataclass
class StepResult:
    """One pipeline step: its name, the IR after it, :func:`ir_stats` of that IR,
    and whether the step changed the IR (structural comparison with the
    previous step; False for the no-pass step 0)."""

    index: int
    name: str
    text: str
    stats: dict[str, Any]
    changed: bool
    mod: tvm.IRModule = dataclasses.field(repr=False)


def apply_pipeline(mod: tvm.IRModule, steps: Sequence[tuple[str, Any]] | None = None
                   ) -> list[StepResult]:
    """Apply ``steps`` (default: ``pipeline_steps("decompose")``) one at a time.

    Each step's pass gets the previous step's module; a ``None`` pass records
    the module unchanged.
    """
    steps = pipeline_steps() if steps is None else steps
    results = []
    for i, (name, p) in enumerate(steps):
        before, mod = mod, (mod if p is None else p(mod))
        changed = p is not None and not tvm_ffi.structural_equal(before, mod)
        results.append(StepResult(i, name, mod.script(), ir_stats(mod), changed, mod))
    return results


def _call_key(call: tvm.ir.Call) -> str:
    """Name a call: the op name, ``call_tir:<PrimFunc>`` or ``call:<function>``."""
    op = call.op
    if isinstance(op, tvm.ir.Op):
        if op.name in ("relax.call_tir", "relax.call_tir_inplace", "relax.call_tir_with_grad"):
            return f"call_tir:{call.args[0].name_hint}"
        return op.name
    if isinstance(op, tvm.ir.GlobalVar):
        return f"call:{op.name_hint}"
    if isinstance(op, relax.ExternFunc):
        return f"extern:{op.global_symbol}"
    return f"call:{type(op).__name__}"


def count_calls(func: relax.Function) -> Counter:
    """Calls inside a Relax function, keyed by :func:`_call_key`."""
    counts: Counter = Counter()

    def visit(node):
        if isinstance(node, tvm.ir.Call):
            counts[_call_key(node)] += 1

    relax.analysis.post_order_visit(func.body, visit)
    return counts


def count_constants(func: relax.Function) -> tuple[int, int]:
    """Number and total bytes of distinct tensor constants in a function.

    In 0.27 ``relax.Constant`` is gone: ``relax.const`` makes ``tvm.ir.GenericConst``
    nodes (printed as ``metadata["ir.GenericConst"][i]``).
    """
    seen: dict[Any, int] = {}

    def visit(node):
        if isinstance(node, tvm.ir.GenericConst) and isinstance(node.ty, relax.TensorType):
            seen[node] = type_bytes(node.ty)

    relax.analysis.post_order_visit(func.body, visit)
    return len(seen), sum(seen.values())


def intermediate_tensors(func: relax.Function) -> list[tuple[str, int]]:
    """``(name, bytes)`` of tensors computed inside the function's dataflow blocks
    that are neither inputs nor outputs.

    Only bindings whose value is a call allocate a tensor (var, tuple and
    tuple-item bindings are aliases).  Outputs are the non-dataflow vars emitted
    by ``R.output`` plus the vars they alias.  Tuple-valued calls count all their
    tensor fields; symbolic shapes count 0.
    """
    bindings = [b for blk in func.body.blocks if isinstance(blk, relax.DataflowBlock)
                for b in blk.bindings]
    outputs = {b.var for b in bindings if not isinstance(b.var, relax.DataflowVar)}
    for b in reversed(bindings):
        if b.var in outputs and isinstance(b.value, relax.Var):
            outputs.add(b.value)
        if b.var in outputs and isinstance(b.value, relax.Tuple):
            outputs.update(f for f in b.value.fields if isinstance(f, relax.Var))
    return [(b.var.name, type_bytes(b.var.ty)) for b in bindings
            if isinstance(b.value, tvm.ir.Call) and b.var not in outputs]


def tir_alloc_bytes(func: tvm.tirx.PrimFunc) -> int:
    """Bytes of buffers a PrimFunc allocates itself (``sblock_alloc_buffer`` / ``AllocBuffer``)."""
    total, stack = 0, [func.body]
    while stack:
        node = stack.pop()
        bufs = list(getattr(node, "alloc_buffers", None) or [])
        if isinstance(node, tvm.tirx.AllocBuffer):
            bufs.append(node.buffer)
        for buf in bufs:
            dims = _static_dims(buf.shape)
            total += int(np.prod(dims, dtype=np.int64)) * _dtype_bytes(buf.dtype) if dims is not None else 0
        for attr in ("body", "block", "init", "then_case", "else_case"):
            child = getattr(node, attr, None)
            if isinstance(child, tvm.tirx.Stmt):
                stack.append(child)
        stack.extend(getattr(node, "seq", None) or [])
    return total


def ir_stats(mod: tvm.IRModule, func_name: str = "main") -> dict[str, Any]:
    """Structure counts of a module.

    * ``calls`` / ``n_calls``: calls in ``func_name`` by name (relax ops such as
      ``relax.nn.conv2d``, ``call_tir:<PrimFunc>``, ``call:<Relax function>``);
      after legalization each call is one kernel launch.
    * ``calls_all``: the same over every Relax function (fused subfunctions too).
    * ``n_relax_funcs`` / ``n_tir_funcs``: functions of each kind in the module.
    * ``intermediate_bytes`` / ``n_intermediates``: see :func:`intermediate_tensors`.
    * ``n_constants`` / ``constant_bytes``: constants referenced by ``func_name``.
    * ``tir_alloc_bytes``: buffers allocated inside all PrimFuncs (after FuseTIR
      the fused kernel's unscheduled intermediate stages show up here).
    """
    relax_funcs = {gv.name_hint: f for gv, f in mod.functions_items() if isinstance(f, relax.Function)}
    tir_funcs = [f for _, f in mod.functions_items() if isinstance(f, tvm.tirx.PrimFunc)]
    main = relax_funcs[func_name]
    calls = count_calls(main)
    calls_all: Counter = Counter()
    for f in relax_funcs.values():
        calls_all.update(count_calls(f))
    inter = intermediate_tensors(main)
    n_const, const_bytes = count_constants(main)
    return {
        "calls": dict(sorted(calls.items())),
        "n_calls": sum(calls.values()),
        "calls_all": dict(sorted(calls_all.items())),
        "n_relax_funcs": len(relax_funcs),
        "n_tir_funcs": len(tir_funcs),
        "n_intermediates": len(inter),
        "intermediate_bytes": sum(b for _, b in inter),
        "n_constants": n_const,
        "constant_bytes": const_bytes,
        "tir_alloc_bytes": sum(tir_alloc_bytes(f) for f in tir_funcs),
    }


# ---------------------------------------------------------------------------
# 5. Compile any step, check against the reference
# ---------------------------------------------------------------------------


def compile_step(mod: tvm.IRModule, target: tvm.target.Target | None = None
                 ) -> Callable[..., Any]:
    """Compile the module of any pipeline step; return ``run(*numpy_inputs)``.

    What is done, identically for every step, so per-step latencies compare
    graph structure only: ``LegalizeOps`` (a no-op on steps already past it),
    then ``tvm.compile(..., relax_pipeline="default")``, which on CPU is the
    generic build pipeline -- it does *not* run FoldConstant or any fusion, so
    a step keeps exactly the ops and kernels it has (an unfused step runs one
    kernel per op; an unfolded step computes the BN arithmetic at run time).
    The ``"zero"`` or ``get_default_pipeline`` pipelines are deliberately not
    used: they fold and fuse, which would make every step the same program.
    No TensorIR schedule is applied to any step: kernels are single-threaded
    loop nests, and any SIMD comes only from LLVM's own auto-vectorizer.

    ``run`` returns a NumPy array (a list for tuple outputs); the executable
    is available as ``run.executable``.
    """
    target = target or host_target()
    ex = tvm.compile(rt.LegalizeOps()(mod), target, relax_pipeline="default")
    vm = relax.VirtualMachine(ex, tvm.cpu())

    def run(*inputs: np.ndarray) -> Any:
        out = vm["main"](*[tvm.runtime.tensor(np.ascontiguousarray(a)) for a in inputs])
        return _to_numpy(out)

    run.executable = ex
    return run


def _to_numpy(value: Any) -> Any:
    """A VM result as NumPy: tensors to arrays, tuples to lists."""
    if hasattr(value, "numpy"):
        return value.numpy()
    if isinstance(value, list | tuple) or type(value).__name__ == "Array":
        return [_to_numpy(v) for v in value]
    return np.asarray(value)


def check(outputs: Any, reference: Any, rtol: float = 1e-4) -> dict[str, Any]:
    """Compare outputs with the reference.

    ``max_abs_err`` is the largest absolute difference; ``max_rel_err`` is that
    difference relative to the reference's largest magnitude (element-wise
    relative error is meaningless on the ReLU zeros); ``threshold`` is
    ``rtol * max(1, max|reference|)``; ``passed`` means shapes agree and
    ``max_abs_err <= threshold``.
    """
    out = np.asarray(_to_numpy(outputs), dtype=np.float64)
    ref = np.asarray(_to_numpy(reference), dtype=np.float64)
    if out.shape != ref.shape:
        return {"max_abs_err": float("inf"), "max_rel_err": float("inf"),
                "threshold": 0.0, "passed": False}
    scale = float(np.max(np.abs(ref))) if ref.size else 0.0
    err = float(np.max(np.abs(out - ref))) if ref.size else 0.0
    threshold = rtol * max(1.0, scale)
    return {"max_abs_err": err, "max_rel_err": err / scale if scale > 0 else err,
            "threshold": threshold, "passed": bool(err <= threshold)}
