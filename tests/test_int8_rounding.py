"""Error-feedback (GPTQ) weight rounding for the INT8 rewrite."""
import numpy as np
import pytest

tvm = pytest.importorskip("tvm")
from tvm import relax  # noqa: E402

from experiments.int8 import quantize as Q  # noqa: E402
from experiments.int8 import rounding as RD  # noqa: E402


def _nhwc(seed=0):
    """conv+bias+relu (channels of very different ranges) -> conv+bias -> add + relu -> mean ->
    squeeze -> dense, NHWC/OHWI."""
    rng = np.random.default_rng(seed)
    c = lambda a: relax.const(a.astype("float32"))  # noqa: E731
    spread = np.geomspace(0.02, 2.0, 8)        # output channel c of the first conv scaled by spread[c]
    w1 = rng.normal(0, 0.3, (8, 3, 3, 4)) * spread[:, None, None, None]
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType((1, 8, 8, 4), "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            conv = dict(padding=1, data_layout="NHWC", kernel_layout="OHWI")
            a = bb.emit(relax.op.nn.conv2d(x, c(w1), **conv))
            a = bb.emit(relax.op.add(a, c(rng.normal(0, 0.05, (1, 1, 1, 8)) * spread)))
            a = bb.emit(relax.op.nn.relu(a))
            b = bb.emit(relax.op.nn.conv2d(a, c(rng.normal(0, 0.2, (8, 3, 3, 8))), **conv))
            b = bb.emit(relax.op.add(b, c(rng.normal(0, 0.1, (1, 1, 1, 8)))))
            s = bb.emit(relax.op.nn.relu(relax.op.add(a, b)))
            m = bb.emit(relax.op.squeeze(relax.op.mean(s, axis=[1, 2], keepdims=True), axis=[1, 2]))
            y = bb.emit(relax.op.matmul(m, c(rng.normal(0, 0.5, (8, 5)))))
            out = bb.emit_output(y)
        bb.emit_func_output(out)
    return Q.prepare(relax.transform.Normalize()(bb.get()))


def _compile(mod):
    return tvm.compile(mod, tvm.target.Target({"kind": "llvm"}))


def _taps(mod, xs):
    tap, names = Q.tap_module(mod)
    return Q.run_taps(_compile(tap), xs, names)


@pytest.fixture(scope="module")
def calibrated():
    mod = _nhwc()
    rng = np.random.default_rng(1)
    calib = [rng.normal(0, 1, (1, 8, 8, 4)).astype("float32") for _ in range(12)]
    return mod, _taps(mod, calib), calib


def test_gptq_lowers_the_layer_output_error_below_nearest_rounding():
    rng = np.random.default_rng(3)
    mix = rng.normal(0, 1, (24, 24))
    x = rng.normal(0, 1, (400, 24)) @ mix           # correlated inputs: where error feedback pays
    w = rng.normal(0, 1, (6, 24))
    h = RD.hessian(iter([x]))
    s = np.abs(w).max(axis=1) / 7.0                 # a coarse grid makes the difference plain
    levels = RD.gptq(w, h, s, 7)
    nearest = np.clip(np.round(w / s[:, None]), -7, 7)
    assert np.abs(levels).max() <= 7 and np.all(levels == np.round(levels))
    assert RD._output_error(w, levels, s, h) < 0.8 * RD._output_error(w, nearest, s, h)


@pytest.mark.slow  # compiles the integer program
def test_rewrite_takes_the_rounded_weights(calibrated):
    new, taps, calib = calibrated
    rounded, info = RD.round_weights(new, taps, weight_max=127)
    assert info.layers == 3 and info.error_ratio_median < 1.0
    acts = Q.calibrate(taps, "percentile", "uint8")
    qmod, report = Q.rewrite(new, acts, rounded=rounded)
    assert report["weights_rounded"] == 3
    consts = _int8_consts(qmod)
    assert any(np.array_equal(c, rounded[name][0]) for name in rounded for c in consts)
    vm_f, vm_q = (relax.VirtualMachine(_compile(m), tvm.cpu()) for m in (new, qmod))
    for x in calib[:4]:
        ref = vm_f["main"](tvm.runtime.tensor(x)).numpy()
        got = vm_q["main"](tvm.runtime.tensor(x)).numpy()
        assert np.abs(got - ref).max() <= 0.05 * np.abs(ref).max()


def _int8_consts(mod):
    found = []

    def visit(node):
        if Q._is_const(node) and Q._const_array(node).dtype == np.int8:
            found.append(Q._const_array(node))
    relax.analysis.post_order_visit(mod["main"], visit)
    return found
