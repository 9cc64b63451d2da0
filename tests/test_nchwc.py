"""The NCHWc rule library (experiments/e2e/nchwc.py): tiles by rule from the target's registers,
the knob grid, and -- slow tier -- a small network through every path of the rules (the stem's
NCHW->blocked conv, blocked 3x3/1x1 convs, a conv whose output channels are padded to whole
blocks, a depthwise conv behind an explicit pad with batch norm and Clip, channel concat, pad +
max pool, dense) compiled for explicit AVX2 and AVX-512 targets:
FMAs of the target's register width in the assembly, and the outputs equal to TVM's stock build
where the host can run the target's code."""
from pathlib import Path

import numpy as np
import pytest

from experiments.e2e import nchwc, nchwc_rules

AVX2 = {"kind": "llvm", "mcpu": "haswell", "num-cores": 2}
AVX512 = {"kind": "llvm", "mcpu": "skylake-avx512", "num-cores": 2}


def _flags() -> set[str]:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("flags"):
                return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def _host_runs(config) -> bool:
    return "avx512f" in _flags() if config is AVX512 else {"avx2", "fma"} <= _flags()


def _shape(oc=4, ic=4, oh=56, ow=56, kh=3, kw=3, lanes=16, ic_lanes=16):
    return nchwc_rules.ConvShape(oc_blocks=oc, ic_blocks=ic, oh=oh, ow=ow, kh=kh, kw=kw, lanes=lanes, ic_lanes=ic_lanes)


@pytest.mark.parametrize("registers", [16, 32])
@pytest.mark.parametrize("shape", [_shape(), _shape(oc=32, ic=32, oh=7, ow=7), _shape(oc=4, ic=3, oh=112, ow=112,
                                                                                     kh=7, kw=7, ic_lanes=1),
                                   _shape(oc=3, ic=3, oh=13, ow=13)])
def test_default_tile_fits_the_registers(shape, registers):
    t = nchwc_rules.conv_tiles(shape, registers)
    assert t["oc_tile"] * t["ow_tile"] + t["oc_tile"] <= registers
    assert shape.oc_blocks % t["oc_tile"] == 0 and shape.ow % t["ow_tile"] == 0
    assert shape.oh % t["row_tasks"] == 0


@pytest.mark.parametrize("registers", [16, 32])
@pytest.mark.parametrize("ow", [112, 56, 28, 14, 7, 13])
def test_depthwise_tile_fits_beside_the_taps(ow, registers):
    tile = nchwc_rules.depthwise_tile(ow, 9, registers)
    assert ow % tile == 0 and tile + 9 + 1 <= registers and tile <= nchwc_rules.MAX_PIXEL_TILE
    assert nchwc_rules.depthwise_tile(ow, 9, registers, {"ow_tile": 2}) == 2


def test_deep_layers_loop_input_blocks_outermost():
    # 512 channels at 7x7: a tile's weights (2 blocks x 32 input blocks x 3x3 x 16 x 16 floats) exceed L2
    assert nchwc_rules.conv_tiles(_shape(oc=32, ic=32, oh=7, ow=7), 32)["ic_outer"] == 1
    assert nchwc_rules.conv_tiles(_shape(), 32)["ic_outer"] == 0


@pytest.mark.parametrize("shape", [_shape(), _shape(oc=32, ic=32, oh=7, ow=7), _shape(oc=3, ic=2, oh=14, ow=14)])
def test_knob_grid_starts_with_the_default_and_is_bounded(shape):
    grid = nchwc_rules.knob_grid(shape, 32, threads=2, limit=32)
    assert grid[0] == nchwc_rules.conv_tiles(shape, 32, threads=2)
    assert 1 <= len(grid) <= 32 and len({tuple(sorted(g.items())) for g in grid}) == len(grid)
    for g in grid:
        assert g["oc_tile"] * g["ow_tile"] + g["oc_tile"] <= 32
    assert len(nchwc_rules.knob_grid(shape, 32, threads=2, limit=4)) <= 4


def _network(seed=0):
    """A small Relax network over every path of the rules (NCHW input of 3 channels, 32 x 32)."""
    import tvm
    from tvm import relax
    rng = np.random.default_rng(seed)

    def const(*shape):
        return relax.const(rng.standard_normal(shape).astype("float32") * 0.2)

    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType((1, 3, 32, 32), "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            op = relax.op
            y = bb.emit(op.nn.conv2d(x, const(32, 3, 7, 7), strides=2, padding=3))          # stem: 3 -> 32
            y = bb.emit(op.nn.relu(op.add(y, const(1, 32, 1, 1))))
            y = bb.emit(op.nn.max_pool2d(y, pool_size=3, strides=2, padding=1))              # 8 x 8
            a = bb.emit(op.nn.relu(op.nn.conv2d(y, const(32, 32, 3, 3), padding=1)))        # blocked 3x3
            # MobileNetV2's path as the ONNX frontend emits it: Pad as call_tir, a depthwise conv,
            # batch norm as multiply + add, Clip as call_tir maximum then minimum with 0-d bounds
            from tvm import topi
            d = bb.emit_te(topi.nn.pad, a, [0, 0, 1, 1], [0, 0, 1, 1])
            d = bb.emit(op.add(op.multiply(op.nn.conv2d(d, const(32, 1, 3, 3), groups=32), const(1, 32, 1, 1)),
                               const(1, 32, 1, 1)))
            d = bb.emit_te(topi.maximum, d, relax.const(0.0, "float32"))
            a = bb.emit_te(topi.minimum, d, relax.const(6.0, "float32"))
            b = bb.emit(op.nn.conv2d(a, const(24, 32, 1, 1)))                                # 24: padded out
            c = bb.emit(op.nn.conv2d(a, const(16, 32, 1, 1)))
            z = bb.emit(op.concat([op.nn.relu(c), op.nn.relu(op.strided_slice(
                op.nn.conv2d(b, const(16, 24, 3, 3), padding=1), axes=[1], begin=[0], end=[16]))], axis=1))
            z = bb.emit(op.add(z, y))                                                        # residual add
            g = bb.emit(op.reshape(op.mean(z, axis=[2, 3]), (1, 32)))
            out = bb.emit_output(op.matmul(g, const(32, 10)))
        bb.emit_func_output(out)
    return bb.get(), tvm


def _fma_widths(asm: str) -> set[str]:
    import re
    widths = set()
    for line in asm.splitlines():
        if re.search(r"\bvfmadd\d+ps\b", line):
            widths |= set(re.findall(r"%([xyz]mm)\d+", line))
    return widths


@pytest.mark.slow  # compiles a network for two targets with TVM
@pytest.mark.parametrize("config", [AVX2, AVX512], ids=["avx2", "avx512"])
def test_rules_compile_for_the_target_and_match_the_stock_build(config):
    from tvm import relax
    from experiments.graph import relax_study
    mod, tvm = _network()
    target = tvm.target.Target(config)
    lanes = nchwc.lanes_of(target)
    assert lanes == (16 if config is AVX512 else 8)
    executable, kernels = nchwc_rules.compile_rules(mod, target)
    convs = [k for k in kernels.values() if k["rule"] == "conv"]
    assert len(convs) >= 4   # stem, 3x3, the padded 1x1, the 1x1, the 3x3 on 24 channels
    depthwise = [k for k in kernels.values() if k["rule"] == "depthwise"]
    assert len(depthwise) == 1 and depthwise[0]["ow_tile"] + 9 + 1 <= nchwc.vector_registers(target)
    for k in convs:
        assert k["oc_tile"] * k["ow_tile"] + k["oc_tile"] <= nchwc.vector_registers(target)
    widths = _fma_widths(relax_study.generated_source(executable, "asm") or "")
    assert ("zmm" in widths) == (config is AVX512) and "ymm" in widths | ({"ymm"} if config is AVX512 else set())
    if not _host_runs(config):
        pytest.skip(f"compiled and checked the assembly; this host cannot run {config['mcpu']} code")
    x = np.random.default_rng(1).standard_normal((1, 3, 32, 32)).astype("float32")
    got = relax.VirtualMachine(executable, tvm.cpu())["main"](tvm.runtime.tensor(x)).numpy()
    want = relax.VirtualMachine(tvm.compile(mod, "llvm"), tvm.cpu())["main"](tvm.runtime.tensor(x)).numpy()
    assert np.max(np.abs(got - want)) <= 1e-4 * max(1.0, float(np.max(np.abs(want))))


@pytest.mark.slow  # compiles one conv kernel per candidate
def test_tune_kernel_keeps_a_correct_candidate_and_reports_failures():
    import tvm
    mod, _ = _network()
    target = tvm.target.Target(AVX2 if not _host_runs(AVX512) else AVX512)
    if not _host_runs(AVX2):
        pytest.skip("the host runs neither AVX2 nor AVX-512 code")
    fused = nchwc.fuse_rules(mod, target)
    lanes = nchwc.lanes_of(target)
    name, func = next((n, f) for n, f in nchwc_rules.mod_functions(fused) if nchwc_rules.conv_shape(f, lanes) is not None)
    shape = nchwc_rules.conv_shape(func, lanes)
    grid = nchwc_rules.knob_grid(shape, nchwc.vector_registers(target), threads=2, limit=3)
    result = nchwc_rules.tune_kernel(func, target, grid, repeat=3)
    assert result["default"] == grid[0] and result["best"] in grid
    assert all("seconds" in t or "error" in t for t in result["trials"])
    assert result["best_seconds"] <= result["default_seconds"]


@pytest.mark.slow  # compiles one kernel with TVM
def test_a_gemv_keeps_several_vectors_of_outputs_side_by_side():
    """A classifier's shape (1 x 256 @ 256 x 640, 8-lane vectors): the generic rule accumulates five
    vectors of outputs at once (five independent FMA chains, 40 floats of a weight row per read) and
    still leaves 640 / 40 = 16 parallel tasks; the result equals NumPy's."""
    import tvm
    from tvm import s_tir, te
    from tvm.tirx import ForKind
    k = te.reduce_axis((0, 256), "k")
    x = te.placeholder((1, 256), "float32", name="x")
    w = te.placeholder((256, 640), "float32", name="w")
    y = te.compute((1, 640), lambda i, j: te.sum(x[i, k] * w[k, j], axis=k), name="matmul")
    sch = s_tir.Schedule(tvm.IRModule({"main": te.create_prim_func([x, w, y])}))
    nchwc_rules.schedule_generic(sch, 8)
    loops = [sch.get(lp) for lp in sch.get_loops(sch.get_sblock("matmul_update"))]
    assert [(int(lp.extent), int(lp.kind)) for lp in loops[-3:]] == [
        (256, ForKind.SERIAL), (5, ForKind.UNROLLED), (8, ForKind.VECTORIZED)]
    assert int(loops[0].extent) == 640 // 40 and int(loops[0].kind) == ForKind.PARALLEL
    lib = tvm.compile(sch.mod, "llvm")
    rng = np.random.default_rng(0)
    xs, ws = rng.standard_normal((1, 256)).astype("float32"), rng.standard_normal((256, 640)).astype("float32")
    out = tvm.runtime.tensor(np.zeros((1, 640), "float32"))
    lib(tvm.runtime.tensor(xs), tvm.runtime.tensor(ws), out)
    np.testing.assert_allclose(out.numpy(), xs @ ws, rtol=1e-4, atol=1e-4)
