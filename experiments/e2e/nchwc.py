"""Group D by rule: the GEMM micro-kernel's register tile in every convolution (NCHWc).

The GEMM study's lesson is a register tile fed from packed operands: a few output vectors held
in registers across the whole reduction, each loaded weight vector used by several broadcast
inputs. For a convolution the same tile lives in the blocked layout ``NCHW{c}c`` (channels in
blocks of ``c`` = the target's fp32 lanes, 16 on AVX-512, 8 on AVX2) with weights packed
``OIHW{c}i{c}o``: one output-channel block is one vector register, and a tile of ``oc_tile``
blocks x ``ow_tile`` output pixels is ``oc_tile * ow_tile`` accumulators.

The steps, each a function:

1. :func:`convert` -- ``relax.transform.ConvertLayout`` to ``NCHW{c}c`` for conv2d (and the
   pools), the network's input and output left as they are; weights become
   ``layout_transform(const)`` that ``FoldConstant`` packs at compile time (outside the timed
   call).
2. :func:`legalize_passes` -- the CPU pipeline's legalization, with a conv2d legalizer of ours
   for the packed layouts (stock 0.27 leaves a packed conv unlowered): :func:`conv2d_nchwc`, a
   TE compute whose reduction keeps the input-channel block as its own axis, so the rule can
   place it.
3. :func:`experiments.e2e.nchwc_rules.schedule_module` -- every fused kernel gets a schedule by
   rule, no search (the rules, their tiles and the knob-grid tuning live in that module).

:func:`fuse_rules` runs steps 1-2 on a whole network.

Nothing here times anything; ``experiments/e2e_models.py`` times the compiled network.
"""

from __future__ import annotations

CONV_BLOCK = "conv2d_nchwc"   # the TE compute's name: the block the conv rule looks for
PAD_BLOCK = "conv2d_nchwc_pad"
DW_BLOCK = "depthwise_nchwc"   # the depthwise compute's block (its padding: DW_PAD_BLOCK)
DW_PAD_BLOCK = "depthwise_nchwc_pad"


def lanes_of(target) -> int:
    """fp32 lanes of the target's widest vector register (16 AVX-512, 8 AVX2, 4 otherwise)."""
    from experiments.gemm import tvm_ladder
    return tvm_ladder.simd_lanes(target)


def vector_registers(target) -> int:
    """Architectural vector registers of the target (32 zmm with AVX-512, 16 ymm/xmm below)."""
    from experiments.gemm import tvm_ladder
    return 32 if tvm_ladder.target_isa(target) == "avx512" else 16


# --------------------------------------------------------------------------- layout


def convert(mod, block: int):
    """``mod`` with conv2d in ``NCHW{block}c``, weights packed ``OIHW{block}i{block}o``; the
    ops between convolutions (pools, add, ReLU, concat) follow their input's layout (0.27's pool
    layout inference takes no desired layout of its own).  Convolutions whose channels do not
    divide ``block`` keep NCHW (ConvertLayout leaves them)."""
    from tvm import relax
    desired = {"relax.nn.conv2d": [f"NCHW{block}c", f"OIHW{block}i{block}o"]}
    return relax.transform.ConvertLayout(desired)(mod)


def _window(data, kh, kw, strides, padding, dilation, pad_name):
    """The sliding window of a direct convolution over ``data`` (H, W at axes 2, 3):
    (padded data, OH, OW, (sh, sw), (dh, dw)); the padding is a block of its own, ``pad_name``."""
    from tvm import topi
    ih, iw = int(data.shape[2]), int(data.shape[3])
    sh, sw = (int(s) for s in strides)
    dh, dw = (int(d) for d in dilation)
    pt, pl, pb, pr = (int(p) for p in padding)
    oh = (ih + pt + pb - (kh - 1) * dh - 1) // sh + 1
    ow = (iw + pl + pr - (kw - 1) * dw - 1) // sw + 1
    if pt or pl or pb or pr:
        rest = [0] * (len(data.shape) - 4)
        data = topi.nn.pad(data, [0, 0, pt, pl, *rest], [0, 0, pb, pr, *rest], name=pad_name)
    return data, oh, ow, (sh, sw), (dh, dw)


def conv2d_nchwc(data, kernel, strides, padding, dilation, out_dtype="float32"):
    """Direct convolution in ``NCHW{c}c`` with an ``OIHW{c}i{c}o`` kernel (TE).

    ``data`` [N, C/c, H, W, c], ``kernel`` [O/c, C/c, KH, KW, c(in), c(out)] ->
    [N, O/c, OH, OW, c].  Reduction axes: input block ``ric``, kernel rows/cols, lane ``rib`` --
    kept apart so the rule orders them.  Padding is a separate block (``PAD_BLOCK``) that the
    rule materialises (a guard in the hot loop would cost a select per broadcast)."""
    from tvm import te
    n, cic, _ih, _iw, ib = (int(v) for v in data.shape)
    coc, kic, kh, kw, kib, ob = (int(v) for v in kernel.shape)
    if kic != cic or kib != ib:
        raise ValueError(f"grouped or mismatched packed conv: data {data.shape}, kernel {kernel.shape}")
    data, oh, ow, (sh, sw), (dh, dw) = _window(data, kh, kw, strides, padding, dilation, PAD_BLOCK)
    ric = te.reduce_axis((0, cic), name="ric")
    rkh = te.reduce_axis((0, kh), name="rkh")
    rkw = te.reduce_axis((0, kw), name="rkw")
    rib = te.reduce_axis((0, ib), name="rib")
    return te.compute(
        (n, coc, oh, ow, ob),
        lambda b, o, y, x, v: te.sum(
            data[b, ric, y * sh + rkh * dh, x * sw + rkw * dw, rib].astype(out_dtype)
            * kernel[o, ric, rkh, rkw, rib, v].astype(out_dtype),
            axis=[ric, rkh, rkw, rib]),
        name=CONV_BLOCK)


def conv2d_nchw_to_nchwc(data, kernel, strides, padding, dilation, out_dtype="float32"):
    """A convolution with few input channels (the stem: 3): NCHW input, kernel ``OIHW{c}o``
    [O/c, C, KH, KW, c], output ``NCHW{c}c``.  The same register tile as
    :func:`conv2d_nchwc`; its reduction is (input channel, kernel row, kernel column)."""
    from tvm import te
    n, ic, _ih, _iw = (int(v) for v in data.shape)
    coc, kic, kh, kw, ob = (int(v) for v in kernel.shape)
    data, oh, ow, (sh, sw), (dh, dw) = _window(data, kh, kw, strides, padding, dilation, PAD_BLOCK)
    ric = te.reduce_axis((0, ic), name="ric")
    rkh = te.reduce_axis((0, kh), name="rkh")
    rkw = te.reduce_axis((0, kw), name="rkw")
    return te.compute(
        (n, coc, oh, ow, ob),
        lambda b, o, y, x, v: te.sum(
            data[b, ric, y * sh + rkh * dh, x * sw + rkw * dw].astype(out_dtype)
            * kernel[o, ric, rkh, rkw, v].astype(out_dtype), axis=[ric, rkh, rkw]),
        name=CONV_BLOCK)


def depthwise_nchwc(data, kernel, strides, padding, dilation, out_dtype="float32"):
    """Depthwise convolution in ``NCHW{c}c`` (TE): ``data`` [N, C/c, H, W, c], ``kernel``
    [C/c, 1, KH, KW, c] (``OIHW{c}o`` of the [C, 1, KH, KW] weights) -> [N, C/c, OH, OW, c].
    One lane per channel: a vector of ``c`` channels is one multiply-add per kernel tap, no
    reduction across lanes -- MLAS's depthwise kernel in the same layout.  The padding is its own
    block (``DW_PAD_BLOCK``), which the rule computes row by row next to its consumer."""
    from tvm import te
    n, cb, _ih, _iw, lanes = (int(v) for v in data.shape)
    kcb, one, kh, kw, klanes = (int(v) for v in kernel.shape)
    if kcb != cb or klanes != lanes or one != 1:
        raise ValueError(f"not a depthwise packed conv: data {data.shape}, kernel {kernel.shape}")
    data, oh, ow, (sh, sw), (dh, dw) = _window(data, kh, kw, strides, padding, dilation, DW_PAD_BLOCK)
    rkh = te.reduce_axis((0, kh), name="rkh")
    rkw = te.reduce_axis((0, kw), name="rkw")
    return te.compute(
        (n, cb, oh, ow, lanes),
        lambda b, c, y, x, v: te.sum(
            data[b, c, y * sh + rkh * dh, x * sw + rkw * dw, v].astype(out_dtype)
            * kernel[c, 0, rkh, rkw, v].astype(out_dtype), axis=[rkh, rkw]),
        name=DW_BLOCK)


def _probe_pad(func, in_shape, out_shape):
    """(pad_before, pad_after, value) of a constant-pad PrimFunc (the ONNX frontend emits Pad as
    ``call_tir(topi.nn.pad)``), read by running it once on distinct positive values; None when
    it is not a constant pad."""
    import numpy as np
    import tvm
    if len(in_shape) != len(out_shape) or func.attrs is None:
        return None
    x = np.arange(1, int(np.prod(in_shape)) + 1, dtype="float32").reshape(in_shape)
    try:
        lib = tvm.compile(tvm.IRModule({"main": func.with_attr("global_symbol", "main")}), target="llvm")
        out = tvm.runtime.empty(out_shape, "float32")
        lib["main"](tvm.runtime.tensor(x), out)
    except Exception:   # noqa: BLE001 - not a function of this shape: not a pad we can read
        return None
    out = out.numpy()
    before = [int(i) for i in np.argwhere(out == 1.0)[0]] if (out == 1.0).any() else None
    if before is None:
        return None
    after = [o - i - b for o, i, b in zip(out_shape, in_shape, before)]
    if min(after) < 0:
        return None
    inner = out[tuple(slice(b, b + i) for b, i in zip(before, in_shape))]
    if not np.array_equal(inner, x):
        return None
    mask = np.ones(out.shape, bool)
    mask[tuple(slice(b, b + i) for b, i in zip(before, in_shape))] = False
    values = np.unique(out[mask])
    if len(values) > 1:
        return None
    return before, after, float(values[0]) if len(values) else 0.0


def to_nchwc(mod, block: int):
    """Put the stem into the blocked layout and keep the layers after it there.

    ConvertLayout leaves in NCHW a convolution whose input channels do not divide ``block``
    (the stem: 3), and with it everything up to the next blocked convolution (bias, ReLU, the
    pool's pad, max pool), transposed back to ``NCHW{block}c`` after.  This pass rewrites that
    convolution as conv2d(NCHW -> NCHW{block}c) with weights ``OIHW{block}o`` (the register
    tile of :func:`conv2d_nchw_to_nchwc`), then carries the blocked value through the ops that
    follow -- add of a per-channel constant, ReLU, a constant pad of H/W, max/avg pooling, a
    channel concat of blocked values -- and hands it straight to the ``layout_transform`` to ``NCHW{block}c`` that ConvertLayout
    placed; every op keeps an NCHW copy (``layout_transform`` back) that dead-code elimination
    drops when nothing reads it.  Run after :func:`convert`."""
    import tvm
    from tvm import relax
    op = tvm.ir.Op.get
    back = lambda n, c, h, w, v: (n, c * block + v, h, w)   # noqa: E731
    fwd = lambda n, c, h, w: (n, c // block, h, w, c % block)   # noqa: E731

    @relax.expr_functor.mutator
    class Blocked(relax.PyExprMutator):
        def __init__(self, mod):
            super().__init__(mod)
            self.mod_ = mod
            self.blocked = set()
            self.scalar_ops = {}

        def _packed(self, value):
            """The blocked value behind an NCHW value this pass produced, or None."""
            if not isinstance(value, relax.Var):
                return None
            bound = self.lookup_binding(value)
            if not (isinstance(bound, relax.Call) and bound.op.same_as(op("relax.layout_transform"))
                    and isinstance(bound.args[0], relax.Var)):
                return None
            src = bound.args[0]
            if src in self.blocked or (src.ty.ndim == 5 and int(src.ty.shape[4]) == block
                                       and _is_back(bound.attrs.index_map, block)):
                return src   # ours, or ConvertLayout's own NCHW{block}c -> NCHW
            return None

        def _emit_blocked(self, expr):
            var = self.builder_.emit(expr)
            self.blocked.add(var)
            return relax.op.layout_transform(var, back)

        def visit_call_(self, call):  # noqa: N802 - the functor's name
            call = super().visit_call_(call)
            name = call.op.name if isinstance(call.op, tvm.ir.Op) else None
            args = list(call.args)
            if name == "relax.nn.conv2d":
                for rewrite in (self._pad_out, self._depthwise):
                    out = rewrite(call)
                    if out is not None:
                        return out
                return self._stem(call)
            if name in ("relax.add", "relax.multiply") and len(args) == 2:
                for i in (0, 1):
                    p, c = self._packed(args[i]), args[1 - i]
                    if p is not None and _per_channel(c, int(p.ty.shape[1]) * block):
                        c4 = self.builder_.emit(relax.op.reshape(c, [1, int(p.ty.shape[1]) * block, 1, 1]))
                        cp = self.builder_.emit(relax.op.layout_transform(c4, fwd))
                        f = relax.op.add if name == "relax.add" else relax.op.multiply
                        return self._emit_blocked(f(p, cp))
                return call
            if name == "relax.concat" and int(call.attrs.axis) == 1 and isinstance(args[0], relax.Tuple):
                parts = [self._packed(v) for v in args[0].fields]
                if all(part is not None for part in parts):
                    return self._emit_blocked(relax.op.concat(parts, axis=1))
                return call
            if name == "relax.nn.relu" and (p := self._packed(args[0])) is not None:
                return self._emit_blocked(relax.op.nn.relu(p))
            if name in ("relax.nn.max_pool2d", "relax.nn.avg_pool2d") and call.attrs.layout == "NCHW" \
                    and (p := self._packed(args[0])) is not None:
                a = call.attrs
                f = relax.op.nn.max_pool2d if name == "relax.nn.max_pool2d" else relax.op.nn.avg_pool2d
                padding = [int(v) for v in a.padding]
                if name == "relax.nn.max_pool2d":
                    p, padding = self._pool_pad(p, padding)
                return self._emit_blocked(f(p, a.pool_size, a.strides, padding, a.dilation, a.ceil_mode,
                                            a.count_include_pad, layout=f"NCHW{block}c",
                                            out_layout=f"NCHW{block}c"))
            if name == "relax.call_tir" and len(args[1].fields) == 2 \
                    and (p := self._packed(args[1].fields[0])) is not None:
                f = self._scalar_op(args[0], args[1].fields, call.ty)
                return self._emit_blocked(f(p, args[1].fields[1])) if f is not None else call
            if name == "relax.call_tir" and (p := self._packed(args[1].fields[0] if len(args[1].fields) == 1
                                                                 else None)) is not None:
                func = self.mod_[args[0]]
                pad = _probe_pad(func, [int(d) for d in args[1].fields[0].ty.shape],
                                 [int(d) for d in call.ty.shape])
                if pad is not None and pad[0][:2] == [0, 0] and pad[1][:2] == [0, 0]:
                    before, after, value = pad
                    width = [0, 0, before[2], after[2], before[3], after[3], 0, 0]
                    widths = []
                    for b, a in zip(before + [0], after + [0]):
                        widths += [b, a]
                    del width
                    return self._emit_blocked(relax.op.nn.pad(p, widths, "constant", value))
                return call
            if name == "relax.layout_transform" and (p := self._packed(args[0])) is not None:
                if [int(d) for d in p.ty.shape] == [int(d) for d in call.ty.shape] and \
                        _is_fwd(call.attrs.index_map, block):
                    return p
            return call

        def _pool_pad(self, p, padding):
            """A zero pad of H/W in front of a max pool whose input is a ReLU's output becomes the
            pool's own padding (one pass over the tensor less): the pool pads with -inf, and over
            values >= 0 a window's maximum is the same with zeros or -inf beside it."""
            bound = self.lookup_binding(p)
            if not (isinstance(bound, relax.Call) and bound.op.same_as(op("relax.nn.pad"))
                    and str(bound.attrs.pad_mode) == "constant" and float(bound.attrs.pad_value) == 0.0):
                return p, padding
            widths = [int(v) for v in bound.attrs.pad_width]
            src = bound.args[0]
            relu = self.lookup_binding(src) if isinstance(src, relax.Var) else None
            if widths[:4] != [0, 0, 0, 0] or widths[8:] != [0, 0] or not (
                    isinstance(relu, relax.Call) and relu.op.same_as(op("relax.nn.relu"))):
                return p, padding
            return src, [padding[0] + widths[4], padding[1] + widths[6], padding[2] + widths[5], padding[3] + widths[7]]

        def _scalar_op(self, gv, fields, out_ty):
            """relax.op.maximum / minimum when ``gv`` (a call_tir kernel of the ONNX frontend: Clip
            becomes maximum then minimum with a 0-d bound) is that op of a tensor and a scalar --
            checked by running it on random values, never by its name alone."""
            if fields[1].ty.ndim != 0 or [int(d) for d in fields[0].ty.shape] != [int(d) for d in out_ty.shape]:
                return None
            if gv not in self.scalar_ops:
                self.scalar_ops[gv] = _probe_scalar_op(self.mod_[gv], [int(d) for d in out_ty.shape])
            return {"maximum": relax.op.maximum, "minimum": relax.op.minimum}.get(self.scalar_ops[gv])

        def _depthwise(self, call):
            """A depthwise convolution (groups = channels) of a blocked input: computed blocked with
            weights ``OIHW{block}o`` ([C/block, 1, KH, KW, block]); a zero pad of H/W just before it
            (the ONNX frontend's explicit Pad of a stride-2 layer) becomes its own padding."""
            a = call.attrs
            x, w = call.args
            if a.data_layout != "NCHW" or a.kernel_layout != "OIHW" or a.out_layout != "NCHW" or x.ty.ndim != 4:
                return None
            c, groups = int(x.ty.shape[1]), int(a.groups)
            if groups == 1 or groups != c or int(w.ty.shape[0]) != c or int(w.ty.shape[1]) != 1 or c % block:
                return None
            p = self._packed(x)
            if p is None:
                return None
            padding = [int(v) for v in a.padding]   # top, left, bottom, right
            bound = self.lookup_binding(p)
            if isinstance(bound, relax.Call) and bound.op.same_as(op("relax.nn.pad")) \
                    and str(bound.attrs.pad_mode) == "constant" and float(bound.attrs.pad_value) == 0.0:
                widths = [int(v) for v in bound.attrs.pad_width]   # (before, after) per axis
                if widths[:4] == [0, 0, 0, 0] and widths[8:] == [0, 0]:
                    p = bound.args[0]
                    padding = [padding[0] + widths[4], padding[1] + widths[6],
                               padding[2] + widths[5], padding[3] + widths[7]]
            wp = self.builder_.emit(relax.op.layout_transform(
                w, lambda o, i, h, k: (o // block, i, h, k, o % block)))
            return self._emit_blocked(relax.op.nn.conv2d(
                p, wp, strides=a.strides, padding=padding, dilation=a.dilation, groups=c,
                data_layout=f"NCHW{block}c", kernel_layout=f"OIHW{block}o", out_layout=f"NCHW{block}c"))

        def _pad_out(self, call):
            """A convolution with blocked-divisible input channels but not output channels
            (Inception's 24-channel 5x5 reduce): weights zero-padded to whole blocks (folded at
            compile time), computed blocked, the padding channels sliced off after."""
            a = call.attrs
            x, w = call.args
            if (a.data_layout != "NCHW" or a.kernel_layout != "OIHW" or a.out_layout != "NCHW"
                    or int(a.groups) != 1 or x.ty.ndim != 4):
                return None
            cin, cout = int(x.ty.shape[1]), int(w.ty.shape[0])
            p = self._packed(x)
            if cin % block or not cout % block or p is None:
                return None
            extra = -cout % block
            wpad = self.builder_.emit(relax.op.nn.pad(w, [0, extra, 0, 0, 0, 0, 0, 0]))
            wp = self.builder_.emit(relax.op.layout_transform(
                wpad, lambda o, i, h, k: (o // block, i // block, h, k, i % block, o % block)))
            y = self.builder_.emit(relax.op.nn.conv2d(
                p, wp, strides=a.strides, padding=a.padding, dilation=a.dilation, groups=1,
                data_layout=f"NCHW{block}c", kernel_layout=f"OIHW{block}i{block}o",
                out_layout=f"NCHW{block}c"))
            full = self.builder_.emit(relax.op.layout_transform(y, back))
            return relax.op.strided_slice(full, axes=[1], begin=[0], end=[cout])

        def _stem(self, call):
            a = call.attrs
            x, w = call.args
            if (a.data_layout != "NCHW" or a.kernel_layout != "OIHW" or a.out_layout != "NCHW"
                    or int(a.groups) != 1 or x.ty.ndim != 4):
                return call
            cin, cout = int(x.ty.shape[1]), int(w.ty.shape[0])
            if cin % block == 0 or cout % block:
                return call
            x, padding = self._stem_pad(x, [int(v) for v in a.padding])
            wp = self.builder_.emit(relax.op.layout_transform(
                w, lambda o, i, h, k: (o // block, i, h, k, o % block)))
            return self._emit_blocked(relax.op.nn.conv2d(
                x, wp, strides=a.strides, padding=padding, dilation=a.dilation, groups=1,
                data_layout="NCHW", kernel_layout=f"OIHW{block}o", out_layout=f"NCHW{block}c"))

        def _stem_pad(self, x, padding):
            """A zero pad of H/W in front of the stem (the ONNX frontend's explicit Pad of a
            Keras ZeroPadding2D, a kernel of its own: 0.07 ms on Zen 5) becomes the stem's own
            padding, which its kernel fills in parallel beside the convolution."""
            bound = self.lookup_binding(x) if isinstance(x, relax.Var) else None
            if not (isinstance(bound, relax.Call) and bound.op.same_as(op("relax.call_tir"))
                    and len(bound.args[1].fields) == 1 and bound.args[1].fields[0].ty.ndim == 4):
                return x, padding
            inner = bound.args[1].fields[0]
            pad = _probe_pad(self.mod_[bound.args[0]], [int(d) for d in inner.ty.shape],
                             [int(d) for d in x.ty.shape])
            if pad is None or pad[2] != 0.0 or pad[0][:2] != [0, 0] or pad[1][:2] != [0, 0]:
                return x, padding
            before, after, _ = pad
            return inner, [padding[0] + before[2], padding[1] + before[3], padding[2] + after[2], padding[3] + after[3]]

    for gv, func in list(mod.functions.items()):
        if isinstance(func, relax.Function):
            mod[gv] = Blocked(mod).visit_expr(func)
    return relax.transform.DeadCodeElimination()(mod)


def _probe_scalar_op(func, shape):
    """"maximum" or "minimum" when ``func`` (tensor of ``shape``, 0-d scalar -> tensor) computes
    that elementwise op, else None: run once on random values."""
    import numpy as np
    import tvm
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape).astype("float32")
    try:
        lib = tvm.compile(tvm.IRModule({"main": func.with_attr("global_symbol", "main")}), target="llvm")
        out = tvm.runtime.empty(shape, "float32")
        lib["main"](tvm.runtime.tensor(x), tvm.runtime.tensor(np.array(0.25, "float32")), out)
    except Exception:   # noqa: BLE001 - not a function of this signature
        return None
    got = out.numpy()
    for name, f in (("maximum", np.maximum), ("minimum", np.minimum)):
        if np.array_equal(got, f(x, np.float32(0.25))):
            return name
    return None


def _per_channel(expr, channels: int) -> bool:
    """Whether ``expr`` is a [1, C, 1, 1] (or [C, 1, 1]) tensor: one value per channel."""
    shape = getattr(expr.ty, "shape", None)
    if shape is None:
        return False
    dims = [int(d) for d in shape]
    return dims in ([1, channels, 1, 1], [channels, 1, 1])


def _is_back(index_map, block: int) -> bool:
    """Whether a layout_transform's map is NCHW{block}c -> NCHW."""
    try:
        got = [int(v) for v in index_map.map_indices([0, 1, 5, 7, 3])]
    except Exception:   # noqa: BLE001 - a map of another rank
        return False
    return got == [0, block + 3, 5, 7]


def _is_fwd(index_map, block: int) -> bool:
    """Whether a layout_transform's map is NCHW -> NCHW{block}c."""
    try:
        got = [int(v) for v in index_map.map_indices([0, block + 3, 5, 7])]
    except Exception:   # noqa: BLE001 - a map of another rank
        return False
    return got == [0, 1, 5, 7, 3]


def _conv_op():
    import tvm
    return tvm.ir.Op.get("relax.nn.conv2d")


def _legalize_conv2d(bb, call):
    """conv2d legalizer: packed layouts go to :func:`conv2d_nchwc`, the rest to TVM's own."""
    from tvm.relax.transform.legalize_ops import nn as stock
    attrs = call.attrs
    if call.args[0].ty.ndim == 4 and call.args[1].ty.ndim == 5 and int(attrs.groups) == 1:
        return bb.call_te(conv2d_nchw_to_nchwc, call.args[0], call.args[1], [int(s) for s in attrs.strides],
                          [int(p) for p in attrs.padding], [int(d) for d in attrs.dilation],
                          primfunc_name_hint="conv2d_stem_nchwc")
    if call.args[0].ty.ndim == 5 and call.args[1].ty.ndim == 5 and int(attrs.groups) > 1:
        return bb.call_te(depthwise_nchwc, call.args[0], call.args[1], [int(s) for s in attrs.strides],
                          [int(p) for p in attrs.padding], [int(d) for d in attrs.dilation],
                          primfunc_name_hint="depthwise_nchwc")
    packed = call.args[0].ty.ndim == 5 and call.args[1].ty.ndim == 6
    if not packed or int(attrs.groups) != 1 or attrs.out_layout != attrs.data_layout:
        return stock._nn_conv2d(bb, call)
    return bb.call_te(conv2d_nchwc, call.args[0], call.args[1], [int(s) for s in attrs.strides],
                      [int(p) for p in attrs.padding], [int(d) for d in attrs.dilation],
                      primfunc_name_hint="conv2d_nchwc")


def legalize_passes(target):
    """The CPU pipeline's dispatch + legalize + fold + fuse passes, with our conv2d legalizer."""
    import tvm
    from tvm import relax
    from tvm.relax.backend.cpu_generic import pipeline
    passes = []
    for p in pipeline.library_dispatch_passes(target) + pipeline.legalize_passes(target):
        if p.info.name == "LegalizeOps":
            p = relax.transform.LegalizeOps({"relax.nn.conv2d": _legalize_conv2d})
        passes.append(p)
    return passes


# --------------------------------------------------------------------------- the whole network

def fuse_rules(mod, target):
    """The network blocked and fused: :func:`convert`, :func:`to_nchwc`, then the CPU pipeline's
    dispatch/legalize/fold/fuse with our packed-conv legalizer (weights packed by FoldConstant)."""
    import tvm
    lanes = lanes_of(target)
    with target:
        mod = to_nchwc(convert(mod, lanes), lanes)
        return tvm.transform.Sequential(legalize_passes(target))(mod)
