"""INT8 by rule (experiments/int8/vnni_rules.py): the tile fits the registers, and -- slow tier --
the packed conv scheduled by the rule for an explicit VNNI target has vpdpbusd in its assembly and
is exact against NumPy (run only where the host has VNNI), cases with and without padding, with
the int8-input shift and with output channels sliced."""
import numpy as np
import pytest
from helpers import conv_nhwc_reference

from experiments.int8 import vnni_rules

VNNI_TARGET = {"kind": "llvm", "mcpu": "znver4", "num-cores": 2}


@pytest.mark.parametrize("oc_blocks,ow", [(4, 56), (8, 28), (16, 14), (32, 7), (1, 13), (3, 112)])
def test_tile_fits_the_registers_and_divides_the_row(oc_blocks, ow):
    t = vnni_rules.vnni_tiles(oc_blocks, ow, registers=32)
    assert t["oc_tile"] * t["ow_tile"] + t["oc_tile"] + 1 <= 32
    assert oc_blocks % t["oc_tile"] == 0 and ow % t["ow_tile"] == 0
    assert vnni_rules.vnni_tiles(oc_blocks, ow, 32, {"oc_tile": 1, "ow_tile": 1}) == {"oc_tile": 1, "ow_tile": 1}


def test_the_rule_is_offered_only_to_vnni_targets():
    import tvm
    assert vnni_rules.CONV_BLOCK in vnni_rules.rules_for(tvm.target.Target(VNNI_TARGET))
    assert vnni_rules.rules_for(tvm.target.Target({"kind": "llvm", "mcpu": "haswell"})) == {}


_conv_ref = conv_nhwc_reference


@pytest.mark.slow  # compiles the packed INT8 conv with TVM for a VNNI target
@pytest.mark.parametrize("case", [((1, 8, 8, 16), 32, 3, 1, (1, 1, 1, 1), "uint8"),
                                  ((1, 9, 9, 8), 20, 3, 2, (1, 1, 0, 0), "uint8"),
                                  ((1, 7, 7, 16), 64, 1, 1, (0, 0, 0, 0), "uint8"),
                                  ((1, 12, 12, 3), 32, 7, 2, (3, 3, 3, 3), "int8")],
                         ids=["3x3", "stride2-oc20", "1x1-no-pad", "int8-stem"])
def test_rule_schedules_with_vpdpbusd_and_is_exact(case):
    import tvm
    from tvm import s_tir, te
    from experiments.e2e import nchwc, nchwc_rules
    from experiments.gemm import vnni
    from experiments.int8 import vnni_ops
    shape_x, oc, k, stride, pad, dtype = case
    rng = np.random.default_rng(1)
    x = (rng.integers(0, 256, shape_x).astype(np.uint8) if dtype == "uint8"
         else rng.integers(-127, 128, shape_x).astype(np.int8))
    w = rng.integers(-128, 128, (oc, k, k, shape_x[3])).astype(np.int8)
    xt = te.placeholder(x.shape, dtype, name="x")
    wt = te.placeholder(vnni_ops.pack_conv(w).shape, "int8", name="w")
    args = [xt, wt]
    correction = None
    if dtype == "int8":
        ct = te.placeholder((vnni_ops.padded(oc),), "int32", name="c")
        args.append(ct)
        correction = ct
    out = vnni_ops.conv2d_nhwc_packed(xt, wt, (stride, stride), pad, oc, correction)
    func = te.create_prim_func([*args, out])
    target = tvm.target.Target(VNNI_TARGET)
    vnni.override_shipped()
    scheduled, info = nchwc_rules.schedule_func(func, target, rules=vnni_rules.rules_for(target))
    assert info["rule"] == "vnni_conv" and info["oc_tile"] * info["ow_tile"] + info["oc_tile"] + 1 <= 32
    lib = tvm.compile(tvm.IRModule({"main": scheduled.with_attr("global_symbol", "main")}), target=target)
    assert "vpdpbusd" in lib.mod.inspect_source("asm")
    if not vnni.host_has_vnni():
        pytest.skip("compiled with vpdpbusd; this host cannot run VNNI code")
    ref = _conv_ref(x, w, stride, pad)
    got = tvm.runtime.tensor(np.zeros(ref.shape, np.int32))
    call = [tvm.runtime.tensor(x), tvm.runtime.tensor(vnni_ops.pack_conv(w))]
    if dtype == "int8":
        fix = np.zeros(vnni_ops.padded(oc), np.int32)
        fix[:oc] = vnni_ops.shift_correction(w)
        call.append(tvm.runtime.tensor(fix))
    lib["main"](*call, got)
    assert np.array_equal(got.numpy(), ref)
