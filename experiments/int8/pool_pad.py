"""Folding a zero pad into the max pool that reads it, so the pool stays integer (the int8 rewrite)."""

from __future__ import annotations


def fold_pool_pad(mod):
    """``max_pool2d(pad(relu(x), 0))`` -> ``max_pool2d(relu(x), padding=...)``: the same values.

    The ONNX frontend imports Keras' ZeroPadding2D as a float ``call_tir`` (read here by running it
    once, :func:`experiments.e2e.nchwc._probe_pad`), which no layout pass moves and no integer
    rewrite reads: ResNet-18's stem then dequantized, transposed to NCHW, padded and pooled in
    float and quantized again.  The pool pads with -inf; over values >= 0 (a ReLU's output) a
    window that holds at least one real value has the same maximum with zeros or -inf beside it,
    which a pad narrower than the pool window guarantees.  Anything else is left as it is."""
    import tvm
    from tvm import relax
    from experiments.e2e.nchwc import _probe_pad
    op = tvm.ir.Op.get

    @relax.expr_functor.mutator
    class Fold(relax.PyExprMutator):
        def __init__(self, mod):
            super().__init__(mod)
            self.mod_ = mod

        def _bound(self, var, name):
            value = self.lookup_binding(var) if isinstance(var, relax.Var) else None
            return value if isinstance(value, relax.Call) and value.op.same_as(op(name)) else None

        def visit_call_(self, call):  # noqa: N802 - the functor's name
            call = super().visit_call_(call)
            a = call.attrs
            if not (isinstance(call.op, tvm.ir.Op) and call.op.name == "relax.nn.max_pool2d"
                    and str(a.layout) == "NCHW" and str(a.out_layout) == "NCHW" and not a.ceil_mode):
                return call
            pad = self._bound(call.args[0], "relax.call_tir")
            if pad is None or len(pad.args[1].fields) != 1:
                return call
            src = pad.args[1].fields[0]
            if self._bound(src, "relax.nn.relu") is None:
                return call
            probed = _probe_pad(self.mod_[pad.args[0]], [int(d) for d in src.ty.shape],
                                [int(d) for d in pad.ty.shape])
            if probed is None or probed[2] != 0.0 or probed[0][:2] != [0, 0] or probed[1][:2] != [0, 0]:
                return call
            (_, _, top, left), (_, _, bottom, right) = probed[0], probed[1]
            if max(top, bottom) >= int(a.pool_size[0]) or max(left, right) >= int(a.pool_size[1]):
                return call
            padding = [int(v) for v in a.padding]
            padding = [padding[0] + top, padding[1] + left, padding[2] + bottom, padding[3] + right]
            return relax.op.nn.max_pool2d(src, a.pool_size, a.strides, padding, a.dilation, a.ceil_mode,
                                          a.count_include_pad, layout="NCHW", out_layout="NCHW")

    for gv, func in list(mod.functions.items()):
        if isinstance(func, relax.Function):
            mod[gv] = Fold(mod).visit_expr(func)
    return relax.transform.DeadCodeElimination()(mod)
