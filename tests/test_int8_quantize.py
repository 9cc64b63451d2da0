"""Our INT8 rewrite on a small hand-built Relax network: integer ops, conversions, accuracy, per-layer rows."""
import numpy as np
import pytest

tvm = pytest.importorskip("tvm")
from tvm import relax  # noqa: E402

from experiments.int8 import quantize as Q  # noqa: E402
from reportgen.data.words import W_for  # noqa: E402


def _net(seed=0):
    """conv+bias+relu -> conv+bias -> residual add + relu -> mean -> dense + bias (NCHW, 8x8)."""
    rng = np.random.default_rng(seed)
    c = lambda a: relax.const(a.astype("float32"))  # noqa: E731
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType((1, 4, 8, 8), "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            a = bb.emit(relax.op.nn.conv2d(x, c(rng.normal(0, 0.3, (8, 4, 3, 3))), padding=1))
            a = bb.emit(relax.op.add(a, c(rng.normal(0, 0.1, (1, 8, 1, 1)))))
            a = bb.emit(relax.op.nn.relu(a))
            b = bb.emit(relax.op.nn.conv2d(a, c(rng.normal(0, 0.2, (8, 8, 3, 3))), padding=1))
            b = bb.emit(relax.op.add(b, c(rng.normal(0, 0.1, (1, 8, 1, 1)))))
            s = bb.emit(relax.op.nn.relu(relax.op.add(a, b)))
            m = bb.emit(relax.op.mean(s, axis=[2, 3]))
            y = bb.emit(relax.op.add(relax.op.matmul(m, c(rng.normal(0, 0.5, (8, 5)))), c(rng.normal(0, 0.1, (5,)))))
            out = bb.emit_output(y)
        bb.emit_func_output(out)
    return Q.prepare(relax.transform.Normalize()(bb.get()))


def _run(mod, xs):
    vm = relax.VirtualMachine(tvm.compile(mod, "llvm"), tvm.cpu())
    return np.concatenate([vm["main"](tvm.runtime.tensor(x[None])).numpy() for x in xs])


def test_every_reason_code_has_its_words():
    """The report says why an operator stays in float by a code; the page's words are filed under it."""
    for code in {Q.SHAPE_REASON, Q.NO_INTEGER_OP, Q.KEPT_FLOAT, *Q.FLOAT_REASONS.values()}:
        assert W_for("int8.float_ops.reason", code)


@pytest.fixture(scope="module")
def calibrated():
    mod = _net()
    rng = np.random.default_rng(1)
    calib = [rng.normal(0, 1, (1, 4, 8, 8)).astype("float32") for _ in range(16)]
    tap, names = Q.tap_module(mod)
    taps = Q.run_taps(tvm.compile(tap, "llvm"), calib, names)
    return mod, taps, rng.normal(0, 1, (6, 4, 8, 8)).astype("float32")


@pytest.mark.slow  # compiles the tap module (the calibrated fixture)
def test_taps_return_every_intermediate(calibrated):
    mod, taps, _ = calibrated
    assert len(taps) == len(Q.bindings(mod)) + 2   # output, input, every binding
    assert all(v.shape[0] == 16 for v in taps.values())


@pytest.mark.slow  # compiles the FP32 and INT8 Relax modules per method and scheme
@pytest.mark.parametrize("method", Q.METHODS)
@pytest.mark.parametrize("scheme", Q.SCHEMES)
def test_rewrite_is_integer_and_close_to_fp32(calibrated, method, scheme):
    mod, taps, xs = calibrated
    acts = Q.calibrate(taps, method, scheme)
    qmod, report = Q.rewrite(mod, acts)
    # the second conv takes the residual add and its ReLU into its requantization (one rounding)
    assert report["quantized_ops"] == {"conv2d": 2, "matmul": 1} and report["residual_fused"] == 1
    assert [g["ops"] for g in report["groups"] if g.get("residual_fused")] == [["nn.conv2d", "add", "add", "nn.relu"]]
    assert report["bias_corrected"] == 3
    # the input is quantized once; the mean needs a float input, the dense a quantized one; the output is float
    assert report["quantize"] == 2 and report["dequantize"] == 2
    assert [(f["op"], f["reason_code"]) for f in report["float_ops"]] == [("mean", "mean_truncates")]
    text = qmod.script()
    assert 'out_dtype="int32"' in text and "R.right_shift" in text
    ref, got = _run(mod, xs), _run(qmod, xs)
    assert np.max(np.abs(got - ref)) / np.max(np.abs(ref)) < 0.1
    if scheme == "uint8":
        assert any(g["out_dtype"] == "uint8" for g in report["groups"])
    else:
        assert all(g["out_dtype"] in ("int8", "float32") for g in report["groups"])


@pytest.mark.slow  # compiles the debug and tap modules
def test_debug_rewrite_reports_each_group(calibrated):
    mod, taps, xs = calibrated
    acts = Q.calibrate(taps, "percentile", "uint8")
    dmod, report, order = Q.rewrite(mod, acts, debug=True)
    assert len(order) == len(report["groups"])
    tap, names = Q.tap_module(mod)
    fp32 = Q.run_taps(tvm.compile(tap, "llvm"), [x[None] for x in xs], names)
    vm = relax.VirtualMachine(tvm.compile(dmod, "llvm"), tvm.cpu())
    outs = [vm["main"](tvm.runtime.tensor(x[None])) for x in xs]
    int8 = {n: np.concatenate([o[i + 1].numpy() for o in outs]) for i, n in enumerate(order)}
    rows = Q.layer_report(fp32, int8, acts, order)
    assert [r["layer"] for r in rows] == order
    assert all(0 <= r["saturation"] <= 1 and r["rel_err"] < 0.2 for r in rows)


def test_fixed_point_keeps_products_in_int64():
    m, shift = Q._fixed_point(np.array([0.0123, 3.5, 1e-4]))
    assert m.max() < 2 ** 30 and 1 <= shift <= 62
    assert np.allclose(m / 2.0 ** shift, [0.0123, 3.5, 1e-4], rtol=1e-6, atol=2.0 ** -shift)


def test_unknown_method_and_scheme_are_refused():
    with pytest.raises(ValueError, match="unknown calibration method 'kl'"):
        Q.threshold(np.ones(4), "kl", False)
    with pytest.raises(ValueError, match="unknown scheme 'int4'"):
        Q.calibrate({}, "minmax", "int4")


@pytest.mark.slow  # compiles the tap module (the calibrated fixture)
def test_seven_bit_weights_for_the_avx2_sequence(calibrated):
    """weight_max=63 (a target without VNNI): every integer weight constant lies in -63..63 and the
    report says so; the default keeps the full -127..127; anything outside 1..127 is refused."""
    mod, taps, _ = calibrated
    acts = Q.calibrate(taps, "percentile", "uint8")

    def weights(qmod):
        out = []
        for func in qmod.functions.values():
            if isinstance(func, relax.Function):
                relax.analysis.post_order_visit(func, lambda e: out.append(Q._const_array(e))
                                                if Q._is_const(e) and Q._const_array(e).dtype == np.int8 else None)
        return out

    narrow, report = Q.rewrite(mod, acts, weight_max=63)
    wide, wide_report = Q.rewrite(mod, acts)
    assert report["weight_max"] == 63 and wide_report["weight_max"] == 127
    assert max(int(np.abs(w.astype(np.int32)).max()) for w in weights(narrow)) == 63
    assert max(int(np.abs(w.astype(np.int32)).max()) for w in weights(wide)) == 127
    for bad in (0, 128):
        with pytest.raises(ValueError, match="weight_max"):
            Q.rewrite(mod, acts, weight_max=bad)


@pytest.mark.slow  # compiles the tap module (the calibrated fixture) and two programs
def test_float_kinds_keep_the_classifier_in_float(calibrated):
    """float_kinds=("matmul",): the dense layer is not quantized (no group for it, listed as
    kept_float), the convolutions still are, the program still runs close to FP32; an unknown kind is
    refused naming the kinds it may be."""
    mod, taps, xs = calibrated
    acts = Q.calibrate(taps, "minmax", "uint8")
    full, full_report = Q.rewrite(mod, acts)
    kept, report = Q.rewrite(mod, acts, float_kinds=("matmul",))
    assert report["float_kinds"] == ["matmul"] and full_report["float_kinds"] == []
    assert [f["op"] for f in report["float_ops"] if f["reason_code"] == Q.KEPT_FLOAT] == ["matmul"]
    assert not [f for f in full_report["float_ops"] if f["reason_code"] == Q.KEPT_FLOAT]
    assert len(report["groups"]) == len(full_report["groups"]) - 1
    ref = _run(mod, xs)
    err = np.abs(_run(kept, xs) - ref).max() / np.abs(ref).max()
    assert err < 0.1, err
    with pytest.raises(ValueError, match="float_kinds may name"):
        Q.rewrite(mod, acts, float_kinds=("dense",))


def test_margins_place_each_flip_on_a_small_fp32_margin():
    """margins(): FP32 margins and the engine's error in units of each input's logit spread; a flip
    is counted with the margin it happened on, and an agreeing engine has none."""
    from experiments.e2e.engines import margins
    ref = np.array([[0.0, 1.0, 5.0], [0.0, 2.9, 3.0], [4.0, 0.0, 1.0], [0.0, 3.0, 0.0]])
    out = ref.copy()
    out[1] = [0.0, 3.1, 2.9]                       # the close row flips
    m = margins(out, ref)
    std = ref.std(axis=1)
    assert m["flips"] == 1
    assert m["flip_margin_max"] == pytest.approx(0.1 / std[1])
    assert 0.1 / std[1] <= m["margin_quantiles"]["1"] < m["margin_quantiles"]["50"]
    assert m["error_median"] == 0.0 and m["share_margin_below_error"] == 0.0   # three rows exact
    noisy = margins(ref + np.array([0.0, 0.0, 0.5]), ref)   # every row off by 0.5: only the close row's margin is below
    assert noisy["share_margin_below_error"] == pytest.approx(0.25)
    same = margins(ref, ref)
    assert same["flips"] == 0 and same["flip_margin_max"] is None and same["error_median"] == 0.0


def _pooled(relu=True, pad=1, pool=3):
    """conv -> (ReLU) -> zero pad as the ONNX frontend emits it (call_tir of topi.nn.pad) -> max pool."""
    from tvm import topi
    rng = np.random.default_rng(2)
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType((1, 4, 9, 9), "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            a = bb.emit(relax.op.nn.conv2d(x, relax.const(rng.normal(0, 0.3, (8, 4, 3, 3)).astype("float32")), padding=1))
            if relu:
                a = bb.emit(relax.op.nn.relu(a))
            p = bb.emit_te(topi.nn.pad, a, [0, 0, pad, pad], [0, 0, pad, pad], 0.0)
            out = bb.emit_output(bb.emit(relax.op.nn.max_pool2d(p, pool, 2)))
        bb.emit_func_output(out)
    return Q.prepare(relax.transform.Normalize()(bb.get()))


def _ops(mod):
    return [Q._op_name(v) for _, v in Q.bindings(mod)]


@pytest.mark.slow  # compiles both modules and the probed pad
def test_a_zero_pad_before_a_pool_over_relu_becomes_the_pools_padding():
    """ResNet's stem: the float pad (a call_tir the integer rewrite cannot read) goes into the
    pool's padding, with the same values; without the ReLU, or with a pad as wide as the window,
    the module is left alone (there the pool's -inf padding would give other maxima)."""
    mod = _pooled()
    folded = Q.fold_pool_pad(mod)
    assert "relax.call_tir" in _ops(mod) and "relax.call_tir" not in _ops(folded)
    pool = [v for _, v in Q.bindings(folded) if Q._op_name(v) == "relax.nn.max_pool2d"][0]
    assert [int(v) for v in pool.attrs.padding] == [1, 1, 1, 1]
    xs = np.random.default_rng(3).normal(0, 1, (3, 4, 9, 9)).astype("float32")
    np.testing.assert_array_equal(_run(folded, xs), _run(mod, xs))
    for kept in (_pooled(relu=False), _pooled(pad=3, pool=3)):
        assert "relax.call_tir" in _ops(Q.fold_pool_pad(kept))


def _conv_direct(x, w, strides, padding):
    """conv2d of one NCHW image with an OIHW weight, written out (the reference for the shift)."""
    top, left, bottom, right = padding
    xp = np.pad(x[0], ((0, 0), (top, bottom), (left, right)))
    o, _, kh, kw = w.shape
    oh = (xp.shape[1] - kh) // strides[0] + 1
    ow = (xp.shape[2] - kw) // strides[1] + 1
    out = np.zeros((o, oh, ow))
    for i in range(oh):
        for j in range(ow):
            win = xp[:, i * strides[0]:i * strides[0] + kh, j * strides[1]:j * strides[1] + kw]
            out[:, i, j] = np.einsum("ockl,ckl->o", w, win)
    return out


@pytest.mark.parametrize("layouts", [("NCHW", "OIHW"), ("NHWC", "OHWI")])
def test_bias_correction_shift_is_the_mean_of_the_convolved_mean(layouts):
    """conv_shift = per channel, the mean over output positions of conv2d(E[x], W - W_q), with the
    operator's layouts, strides and asymmetric padding (border windows see zeros)."""
    from types import SimpleNamespace

    from experiments.int8 import bias_correction
    data, kernel = layouts
    rng = np.random.default_rng(3)
    x = rng.uniform(0, 2, (1, 3, 7, 6))
    dw = rng.normal(0, 0.01, (5, 3, 3, 3))
    attrs = SimpleNamespace(groups=1, dilation=(1, 1), data_layout=data, kernel_layout=kernel,
                            padding=(1, 0, 2, 1), strides=(2, 1))
    want = _conv_direct(x, dw, (2, 1), (1, 0, 2, 1)).mean(axis=(1, 2))
    got = bias_correction.conv_shift(np.transpose(x, ["NCHW".index(c) for c in data]),
                                     np.transpose(dw, ["OIHW".index(c) for c in kernel]), attrs)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    assert bias_correction.conv_shift(x, dw, SimpleNamespace(**dict(vars(attrs), groups=3))) is None
    rows = rng.normal(size=(1, 4, 3))
    np.testing.assert_allclose(bias_correction.matmul_shift(rows, dw[:3, :, 0, 0]), (rows[0] @ dw[:3, :, 0, 0]).mean(0))


@pytest.mark.slow  # compiles the tap module (the calibrated fixture) and two programs
def test_bias_correction_removes_the_mean_shift_of_coarse_weights(calibrated):
    """With 3-bit weights (weight_max=3) the rounding moves each output's mean; the corrected
    program's mean error over the calibration inputs is a fraction of the uncorrected one's."""
    mod, taps, _ = calibrated
    acts = Q.calibrate(taps, "minmax", "int8")
    xs = taps["x"]      # the calibration inputs (the tap of the parameter)
    ref = _run(mod, xs)
    (on, r_on), (off, r_off) = (Q.rewrite(mod, acts, weight_max=3, bias_correction=b) for b in (True, False))
    assert r_on["bias_corrected"] == 3 and r_off["bias_corrected"] == 0
    bias_on = np.abs((_run(on, xs) - ref).mean(axis=0)).mean()
    bias_off = np.abs((_run(off, xs) - ref).mean(axis=0)).mean()
    assert bias_on < 0.5 * bias_off, (bias_on, bias_off)


def _module(build, seed):
    """A prepared module whose main(x: 1x4x8x8) returns ``build(bb, x, conv)``; conv(t, o, i, k, scale)
    emits a seeded conv + bias (+ ReLU with ``relu=True``) and ``conv.dense(t, i, o)`` a seeded matmul."""
    rng = np.random.default_rng(seed)
    c = lambda a: relax.const(a.astype("float32"))  # noqa: E731
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType((1, 4, 8, 8), "float32"))

    def conv(t, o, i, k=3, bias=True, scale=0.25, relu=False):
        y = bb.emit(relax.op.nn.conv2d(t, c(rng.normal(0, scale, (o, i, k, k))), padding=k // 2))
        y = bb.emit(relax.op.add(y, c(rng.normal(0, 0.1, (1, o, 1, 1))))) if bias else y
        return bb.emit(relax.op.nn.relu(y)) if relu else y

    conv.dense = lambda t, i, o: bb.emit(relax.op.matmul(t, c(rng.normal(0, 0.5, (i, o)))))
    with bb.function("main", [x]):
        with bb.dataflow():
            out = bb.emit_output(build(bb, x, conv))
        bb.emit_func_output(out)
    return Q.prepare(relax.transform.Normalize()(bb.get()))


def _residual_net(seed=3):
    """stem -> identity block -> identity block -> downsampling block (1x1 shortcut first) -> mean -> dense."""
    def build(bb, x, conv):
        t = bb.emit(relax.op.nn.relu(conv(x, 8, 4)))
        for _ in range(2):
            t = bb.emit(relax.op.nn.relu(relax.op.add(t, conv(bb.emit(relax.op.nn.relu(conv(t, 8, 8))), 8, 8))))
        short = conv(t, 8, 8, k=1)
        t = bb.emit(relax.op.nn.relu(relax.op.add(short, conv(bb.emit(relax.op.nn.relu(conv(t, 8, 8))), 8, 8))))
        return conv.dense(bb.emit(relax.op.mean(t, axis=[2, 3])), 8, 5)
    return _module(build, seed)


@pytest.mark.slow  # compiles the tap module and three programs
def test_wide_residual_operands_round_once():
    """The first block's output reaches the second block's add as int32 at 2^-8 of its uint8 scale, the
    1x1 shortcut's accumulator reaches the last add unrounded; both programs stay within 1 % of FP32 and
    of each other's error (a wrong wide scale is off by 2^8; on ResNet-18 the wide one is the closer)."""
    mod = _residual_net()
    rng = np.random.default_rng(4)
    tap, names = Q.tap_module(mod)
    taps = Q.run_taps(tvm.compile(tap, "llvm"), [rng.normal(0, 1, (1, 4, 8, 8)).astype("float32") for _ in range(16)],
                      names)
    acts = Q.calibrate(taps, "percentile", "uint8")
    wide, report = Q.rewrite(mod, acts)
    narrow, narrow_report = Q.rewrite(mod, acts, wide_residual=False)
    assert report["residual_fused"] == narrow_report["residual_fused"] == 3
    assert report["residual_wide"] == 2 and narrow_report["residual_wide"] == 0
    groups = [g for g in report["groups"] if g.get("wide")]
    assert [(g["ops"], g["out_dtype"]) for g in groups] == [(["nn.conv2d", "add"], "int32")]
    assert sum(1 for g in report["groups"] if g.get("shortcut_wide")) == 1
    xs = rng.normal(0, 1, (32, 4, 8, 8)).astype("float32")
    ref = _run(mod, xs)
    err_wide, err_narrow = (np.mean(np.abs(_run(m, xs) - ref)) for m in (wide, narrow))
    assert max(err_wide, err_narrow) < 0.01 * np.max(np.abs(ref)) and abs(err_wide - err_narrow) < 0.2 * err_narrow


def _inception_net(seed=5):
    """stem -> one inception module (1x1 | 1x1->3x3 | pool->1x1, concatenated) -> max pool -> conv -> mean -> dense."""
    def build(bb, x, conv):
        t = conv(x, 8, 4, relu=True)
        pooled = bb.emit(relax.op.nn.max_pool2d(t, 3, 1, 1))
        # the branches' ranges differ by about 4x: the shared scale is the widest one's
        joined = bb.emit(relax.op.concat([conv(t, 4, 8, k=1, relu=True),
                                          conv(conv(t, 4, 8, k=1, relu=True), 4, 4, scale=1.0, relu=True),
                                          conv(pooled, 4, 8, k=1, scale=0.1, relu=True)], axis=1))
        t = conv(bb.emit(relax.op.nn.max_pool2d(joined, 3, 2, 1)), 8, 12, k=1, relu=True)
        return conv.dense(bb.emit(relax.op.mean(t, axis=[2, 3])), 8, 5)
    return _module(build, seed)


@pytest.mark.slow  # compiles the tap module and two programs
def test_concat_inputs_share_its_scale_and_stay_integer():
    """Every branch of the module is requantized at the concat's scale, so the concat and the pool
    after it stay integer (the program dequantizes nothing before the global pool); the integer
    program stays within 2 % of FP32, and the taps' scales are the ones the report names."""
    mod = _inception_net()
    rng = np.random.default_rng(6)
    tap, names = Q.tap_module(mod)
    taps = Q.run_taps(tvm.compile(tap, "llvm"), [rng.normal(0, 1, (1, 4, 8, 8)).astype("float32") for _ in range(16)],
                      names)
    acts = Q.calibrate(taps, "percentile", "uint8")
    qmod, report = Q.rewrite(mod, acts)
    # dequantized: the accumulators of the conv before the mean and of the dense, nothing in between
    assert report["concat_integer"] == 1 and report["dequantize"] == 2
    assert not [f for f in report["float_ops"] if f["op"] in ("concat", "nn.max_pool2d")]
    concat = next(v for v, value in Q.bindings(mod) if Q._op_name(value) == "relax.concat")
    fields = [f.name for f in next(value for v, value in Q.bindings(mod) if v.same_as(concat)).args[0].fields]
    shared = Q.shared_scales(mod, acts)
    assert len({acts[f].scale for f in fields}) == 3 and {shared[f].scale for f in fields} == {acts[concat.name].scale}
    branch_scales = {g["output"]: g["out_scale"] for g in report["groups"] if g["output"] in fields}
    assert branch_scales == {f: acts[concat.name].scale for f in fields}
    xs = rng.normal(0, 1, (32, 4, 8, 8)).astype("float32")
    ref = _run(mod, xs)
    assert np.mean(np.abs(_run(qmod, xs) - ref)) < 0.02 * np.max(np.abs(ref))
