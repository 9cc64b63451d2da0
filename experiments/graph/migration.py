"""The seed's Relay passes (§24) and APIs (§19) on today's TVM: for each historical pass its Relax
counterpart (None where 0.27 has none) with a small demonstration graph, and each old API's
replacement, resolved by name so that a rename in TVM fails a test instead of a page
(split from :mod:`experiments.graph.relax_study`, whose conv unit and IR statistics it uses).
"""
from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

import numpy as np
import tvm
import tvm_ffi
from tvm import relax
from tvm.relax import transform as rt

from experiments.graph.relax_study import ConvSpec, conv_unit, ir_stats, make_module

# ---------------------------------------------------------------------------
# 6. Historical Relay passes (§24) and their Relax counterparts
# ---------------------------------------------------------------------------


def pass_map() -> list[dict[str, Any]]:
    """Fresh list of the §24 Relay passes, in the seed's order, with their Relax equivalent (None:
    there is none in 0.27).  Their group is the seed table's (archive/tables/s24_passes.yaml); the
    note on each is said on the page (docs/words/graph.yaml, ``pass_map.note``)."""
    rows = [
        ("Legalize", "LegalizeOps"),   # same name, another job: lowers to TIR (Relay's Legalize + TE lowering)
        ("SimplifyInference", "DecomposeOpsForInference"),   # but (x-mean)/sqrt(var+eps)*gamma+beta, no scale/shift
        ("EliminateCommonSubexpr", "EliminateCommonSubexpr"),
        ("CombineParallelConv2D", None),   # only CombineParallelMatmul exists
        ("CombineParallelDense", "CombineParallelMatmul"),
        ("FoldConstant", "FoldConstant"),
        ("FoldScaleAxis", "FoldBatchnormToConv2D"),   # the conv2d -> batch_norm special case only
        ("CanonicalizeCast", None),
        ("CanonicalizeOps", None),   # Relax has no bias_add to expand
        ("AlterOpLayout", "ConvertLayout"),   # user-given layouts only; no target-chosen NCHWc
        ("FuseOps", "FuseOps"),   # then FuseTIR, after LegalizeOps and AnnotateTIROpPattern
    ]
    return [{"relay_pass": r, "relax_equivalent": e} for r, e in rows]


PASS_MAP = pass_map()


def _c(value: Any, dtype: str = "float32") -> tvm.ir.GenericConst:
    """A Relax constant from a Python/NumPy value."""
    return relax.const(np.asarray(value, dtype=dtype))


def _demo_legalize() -> tuple[tvm.IRModule, list]:
    """relu(x + y): high-level ops before, call_tir to PrimFuncs after."""
    def body(bb, x, y):
        return bb.emit(relax.op.nn.relu(bb.emit(relax.op.add(x, y))))
    return make_module([("x", (4, 4), "float32"), ("y", (4, 4), "float32")], body), [rt.LegalizeOps()]


def _demo_simplify_inference() -> tuple[tvm.IRModule, list]:
    """batch_norm(training=False) with statistics as parameters."""
    inputs = [("x", (1, 4, 8, 8), "float32")] + [(n, (4,), "float32") for n in ConvSpec().param_names[1:]]

    def body(bb, x, g, b, m, v):
        bn = bb.emit(relax.op.nn.batch_norm(x, g, b, m, v, axis=1, training=False))
        return bb.emit(relax.TupleGetItem(bn, 0))
    return make_module(inputs, body), [rt.DecomposeOpsForInference()]


def _demo_cse() -> tuple[tvm.IRModule, list]:
    """(x + y) * (x + y) written with two identical adds."""
    def body(bb, x, y):
        a = bb.emit(relax.op.add(x, y))
        b = bb.emit(relax.op.add(x, y))
        return bb.emit(relax.op.multiply(a, b))
    return make_module([("x", (4,), "float32"), ("y", (4,), "float32")], body), [rt.EliminateCommonSubexpr()]


def _demo_parallel_matmul() -> tuple[tvm.IRModule, list]:
    """Two matmuls sharing input x (the Relay CombineParallelDense situation)."""
    def body(bb, x, w1, w2):
        a = bb.emit(relax.op.matmul(x, w1))
        b = bb.emit(relax.op.matmul(x, w2))
        return bb.emit(relax.Tuple([a, b]))
    inputs = [("x", (2, 8), "float32"), ("w1", (8, 4), "float32"), ("w2", (8, 4), "float32")]
    return make_module(inputs, body), [rt.CombineParallelMatmul()]


def _demo_fold_constant() -> tuple[tvm.IRModule, list]:
    """x * (2 * 3) + (x * 2) * 3: the first chain folds, the second does not."""
    def body(bb, x):
        folded = bb.emit(relax.op.multiply(x, bb.emit(relax.op.multiply(_c(2.0), _c(3.0)))))
        kept = bb.emit(relax.op.multiply(bb.emit(relax.op.multiply(x, _c(2.0))), _c(3.0)))
        return bb.emit(relax.op.add(folded, kept))
    return make_module([("x", (4,), "float32")], body), [rt.FoldConstant()]


def _demo_fold_scale_axis() -> tuple[tvm.IRModule, list]:
    """conv2d -> batch_norm with constant weights: BN scale ends up in the weight."""
    mod, _, _ = conv_unit(0, ConvSpec(data_shape=(1, 3, 8, 8), weight_shape=(4, 3, 3, 3),
                                      strides=(1, 1), out_shape=(1, 4, 8, 8)))
    return mod, [rt.FoldBatchnormToConv2D(), rt.FoldConstant()]


def _demo_alter_layout() -> tuple[tvm.IRModule, list]:
    """relu(conv2d) in NCHW converted to NHWC/OHWI."""
    def body(bb, x, w):
        return bb.emit(relax.op.nn.relu(bb.emit(relax.op.nn.conv2d(x, w, padding=(1, 1)))))
    inputs = [("x", (1, 4, 8, 8), "float32"), ("w", (8, 4, 3, 3), "float32")]
    return make_module(inputs, body), [rt.ConvertLayout({"relax.nn.conv2d": ["NHWC", "OHWI"]})]


def _demo_fuse_ops() -> tuple[tvm.IRModule, list]:
    """relu(conv2d(x, w) + b), legalized and annotated; FuseOps then FuseTIR."""
    def body(bb, x, w, b):
        conv = bb.emit(relax.op.nn.conv2d(x, w, padding=(1, 1)))
        return bb.emit(relax.op.nn.relu(bb.emit(relax.op.add(conv, b))))
    inputs = [("x", (1, 4, 8, 8), "float32"), ("w", (8, 4, 3, 3), "float32"), ("b", (1, 8, 1, 1), "float32")]
    prepared = tvm.transform.Sequential([rt.LegalizeOps(), rt.AnnotateTIROpPattern()])(make_module(inputs, body))
    return prepared, [rt.FuseOps(), rt.FuseTIR()]


def _demo_builders() -> dict[str, Callable[[], tuple[tvm.IRModule, list]]]:
    """Relay pass name -> builder of (module before, Relax passes to apply)."""
    return {
        "Legalize": _demo_legalize,
        "SimplifyInference": _demo_simplify_inference,
        "EliminateCommonSubexpr": _demo_cse,
        "CombineParallelDense": _demo_parallel_matmul,
        "FoldConstant": _demo_fold_constant,
        "FoldScaleAxis": _demo_fold_scale_axis,
        "AlterOpLayout": _demo_alter_layout,
        "FuseOps": _demo_fuse_ops,
    }


def demonstrate(relay_pass: str) -> dict[str, Any]:
    """Run the Relax counterpart of ``relay_pass`` on a small graph built for it.

    ``changed`` is computed (``not tvm_ffi.structural_equal(before, after)``);
    ``passes`` names what was applied.  Raises ``ValueError`` for a Relay pass
    without a Relax equivalent.
    """
    builders = _demo_builders()
    if relay_pass not in builders:
        raise ValueError(f"no Relax equivalent to demonstrate for Relay pass {relay_pass!r}")
    before, passes = builders[relay_pass]()
    after = tvm.transform.Sequential(passes)(before)
    return {
        "relay_pass": relay_pass,
        "passes": [p.info.name for p in passes],
        "before_text": before.script(),
        "after_text": after.script(),
        "before_stats": ir_stats(before),
        "after_stats": ir_stats(after),
        "changed": not tvm_ffi.structural_equal(before, after),
    }


# ---------------------------------------------------------------------------
# 7. Old API -> TVM 0.27 API
# ---------------------------------------------------------------------------


def migration() -> list[dict[str, str]]:
    """Fresh list of the seed's old APIs with their verified 0.27 replacement.

    ``new_api`` is a dotted path that :func:`resolve_api` imports; the note on each
    is said on the page (docs/words/graph.yaml, ``migration.note``, by old API).
    """
    rows = [
        ("tvm.build", "tvm.compile"),
        ("tvm.relay.build", "tvm.compile"),
        ("relay.Module.from_expr", "tvm.IRModule.from_expr"),
        ("relay.expr.var / relay.var", "tvm.relax.Var"),
        ("relay.expr.const", "tvm.relax.const"),
        ("relay.op.tensor.add", "tvm.relax.op.add"),
        ("relay.expr.Function", "tvm.relax.Function"),
        ("relay.scalar_type", "tvm.relax.TensorType"),
        ("relay.transform.*", "tvm.relax.transform"),
        ("tvm.transform.PassContext(opt_level=3)", "tvm.transform.PassContext"),
        ("te.create_schedule", "tvm.s_tir.Schedule"),
        ("tvm.lower", "tvm.tirx.get_tir_pipeline"),
        ("graph runtime (graph_runtime / graph_executor)", "tvm.relax.VirtualMachine"),
        ("mod.astext", "tvm.IRModule.script"),
        ("lib.get_source", "tvm.runtime.Module.inspect_source"),
        ("AutoTVM", "tvm.s_tir.meta_schedule"),
    ]
    return [{"old_api": o, "era": "TVM 0.6/0.7", "new_api": n} for o, n in rows]


MIGRATION = migration()


def resolve_api(path: str) -> Any:
    """Import a dotted path such as ``tvm.relax.transform.FoldConstant``.

    Modules are imported as needed, other components are attributes; raises
    ``ImportError``/``AttributeError`` when the path does not exist.
    """
    parts = path.split(".")
    obj = importlib.import_module(parts[0])
    for i, part in enumerate(parts[1:], start=1):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            obj = importlib.import_module(".".join(parts[: i + 1]))
    return obj
