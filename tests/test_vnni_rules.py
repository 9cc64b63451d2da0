"""INT8 by rule (experiments/int8/vnni_rules.py): the tile fits the registers, and -- slow tier --
the packed conv scheduled by the rule for an explicit VNNI target has vpdpbusd in its assembly and
is exact against NumPy (run only where the host has VNNI), cases with and without padding, with
the int8-input shift and with output channels sliced; for an explicit AVX2 target the same conv
has vpmaddubsw/vpmaddwd and no VNNI or zmm instruction, is exact with 7-bit weights at the
extremes, and (the reason for 7 bits) is wrong with 8-bit ones."""
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


@pytest.mark.parametrize("oc_blocks,ow,registers", [(4, 56, 32), (32, 7, 32), (3, 112, 32), (8, 28, 7)])
def test_the_knob_grid_starts_at_the_default_and_every_candidate_fits(oc_blocks, ow, registers):
    grid = vnni_rules.knob_grid(oc_blocks, ow, registers, limit=12)
    assert grid[0] == vnni_rules.vnni_tiles(oc_blocks, ow, registers)
    assert 1 < len(grid) <= 12 and len({tuple(sorted(c.items())) for c in grid}) == len(grid)
    for cand in grid:
        assert cand["oc_tile"] * cand["ow_tile"] + cand["oc_tile"] + 1 <= registers
        assert oc_blocks % cand["oc_tile"] == 0 and ow % cand["ow_tile"] == 0
    assert len(vnni_rules.knob_grid(oc_blocks, ow, registers, limit=2)) == 2


def test_each_target_gets_the_multiply_add_it_has():
    import tvm
    rule = lambda mcpu: vnni_rules.rules_for(tvm.target.Target({"kind": "llvm", "mcpu": mcpu}))  # noqa: E731
    assert rule("znver4")[vnni_rules.CONV_BLOCK][0] == "vnni_conv"
    assert rule("haswell")[vnni_rules.CONV_BLOCK][0] == "avx2_conv"
    assert rule("skylake-avx512")[vnni_rules.CONV_BLOCK][0] == "avx2_conv"   # AVX-512 without VNNI
    assert rule("nehalem") == {}


def test_the_avx2_tile_fits_sixteen_ymm():
    """Two ymm per 16-channel block (accumulator, weights): tile + weights + broadcast <= 7 blocks."""
    for oc_blocks, ow in [(4, 56), (8, 28), (16, 14), (32, 7), (1, 13), (3, 112)]:
        t = vnni_rules.vnni_tiles(oc_blocks, ow, registers=vnni_rules.AVX2_BLOCK_REGISTERS)
        assert t["oc_tile"] * t["ow_tile"] + t["oc_tile"] + 1 <= vnni_rules.AVX2_BLOCK_REGISTERS
        assert 2 * (t["oc_tile"] * t["ow_tile"] + t["oc_tile"]) + 2 <= 16


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
    # run on this host's own CPU where it has VNNI: znver4 code stopped on an Intel VNNI host (SIGILL)
    from experiments import targets
    host = targets.host_config(2)
    target = tvm.target.Target(host if vnni.host_has_vnni() and vnni.target_has_vnni(tvm.target.Target(host))
                               else VNNI_TARGET)
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


def _packed_conv(target, x, w, stride, pad):
    """The packed conv of ``x`` (NHWC) and OHWI ``w`` scheduled by the target's rule: (output, asm)."""
    import tvm
    from tvm import te
    from experiments.e2e import nchwc_rules
    from experiments.int8 import vnni_ops
    oc = w.shape[0]
    shifted = x.dtype == np.int8
    xt = te.placeholder(x.shape, str(x.dtype), name="x")
    wt = te.placeholder(vnni_ops.pack_conv(w).shape, "int8", name="w")
    ct = te.placeholder((vnni_ops.padded(oc),), "int32", name="c") if shifted else None
    out = vnni_ops.conv2d_nhwc_packed(xt, wt, (stride, stride), pad, oc, ct)
    func = te.create_prim_func([xt, wt, *([ct] if shifted else []), out])
    scheduled, info = nchwc_rules.schedule_func(func, target, rules=vnni_rules.rules_for(target))
    assert info["rule"] == "avx2_conv"
    lib = tvm.compile(tvm.IRModule({"main": scheduled.with_attr("global_symbol", "main")}), target=target)
    call = [tvm.runtime.tensor(x), tvm.runtime.tensor(vnni_ops.pack_conv(w))]
    if shifted:
        fix = np.zeros(vnni_ops.padded(oc), np.int32)
        fix[:oc] = vnni_ops.shift_correction(w)
        call.append(tvm.runtime.tensor(fix))
    n, h, wd, _ = x.shape
    oh, ow = (h + pad[0] + pad[2] - w.shape[1]) // stride + 1, (wd + pad[1] + pad[3] - w.shape[2]) // stride + 1
    got = tvm.runtime.tensor(np.zeros((n, oh, ow, oc), np.int32))
    lib["main"](*call, got)
    return got.numpy(), lib.mod.inspect_source("asm")


def _host_has_avx2():
    from pathlib import Path
    text = Path("/proc/cpuinfo").read_text() if Path("/proc/cpuinfo").exists() else ""
    return " avx2 " in f" {text.replace(chr(10), ' ')} "


@pytest.mark.slow  # compiles the packed INT8 conv with TVM for an AVX2 target
@pytest.mark.parametrize("case", [((1, 8, 8, 16), 32, 3, 1, (1, 1, 1, 1), "uint8"),
                                  ((1, 9, 9, 8), 20, 3, 2, (1, 1, 0, 0), "uint8"),
                                  ((1, 12, 12, 3), 32, 7, 2, (3, 3, 3, 3), "int8")],
                         ids=["3x3", "stride2-oc20", "int8-stem"])
def test_avx2_sequence_is_exact_with_seven_bit_weights(case):
    import tvm
    from experiments.gemm import vnni
    from experiments.int8 import avx2_dot
    shape_x, oc, k, stride, pad, dtype = case
    rng = np.random.default_rng(2)
    top = avx2_dot.WEIGHT_MAX
    x = (np.where(rng.random(shape_x) < 0.5, 255, rng.integers(0, 256, shape_x)).astype(np.uint8)
         if dtype == "uint8" else rng.integers(-127, 128, shape_x).astype(np.int8))
    w = rng.integers(-top, top + 1, (oc, k, k, shape_x[3])).astype(np.int8)
    w[0], w[1] = top, -top          # the extremes: 2 * 255 * 63 per pair, the largest int16 sum
    target = tvm.target.Target({"kind": "llvm", "mcpu": "haswell", "num-cores": 2})
    assert avx2_dot.weight_max(target) == top
    got, asm = _packed_conv(target, x, w, stride, pad)
    counts = vnni.dot_counts(asm)
    assert counts["vpmaddubsw"] > 0 and counts["vpmaddwd"] > 0
    assert counts["vpdpbusd"] == 0 and "zmm" not in asm
    if not _host_has_avx2():
        pytest.skip("compiled with the AVX2 sequence; this host cannot run AVX2 code")
    assert np.array_equal(got, conv_nhwc_reference(x, w, stride, pad))


@pytest.mark.slow  # compiles the packed INT8 conv with TVM for an AVX2 target
def test_avx2_sequence_saturates_on_eight_bit_weights():
    """Why the AVX2 program quantizes weights to 7 bits: 255 x 127 pairs overflow vpmaddubsw's int16."""
    import tvm
    if not _host_has_avx2():
        pytest.skip("this host cannot run AVX2 code")
    x = np.full((1, 4, 4, 16), 255, np.uint8)
    w = np.full((16, 1, 1, 16), 127, np.int8)
    got, _ = _packed_conv(tvm.target.Target({"kind": "llvm", "mcpu": "haswell"}), x, w, 1, (0, 0, 0, 0))
    ref = conv_nhwc_reference(x, w, 1, (0, 0, 0, 0))
    assert int(ref.max()) == 16 * 255 * 127 and int(got.max()) == 8 * 32767


def test_the_rules_budget_is_per_model_with_a_default():
    from experiments.int8 import rule_engines
    p = {"rules_trials": {"default": 0, "resnet18_v1": 12}}
    assert rule_engines.trials_for(p, "resnet18_v1") == 12 and rule_engines.trials_for(p, "inception_v1") == 0
    assert rule_engines.trials_for({}, "resnet18_v1") == 0
    assert set(rule_engines.TUNED) == {"tvm_fp32_rules", "tvm_int8_rules"}   # one budget, both sides
