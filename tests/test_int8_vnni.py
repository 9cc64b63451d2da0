"""The integer path's packed VNNI kernels (experiments/int8/vnni_ops.py): weight packing, exact
numerics of the kernels on any host, the rewrite choosing them, and MetaSchedule tensorizing one
with vpdpbusd for an explicit VNNI target (compile only; run only where the host has VNNI)."""
import numpy as np
import pytest
from helpers import conv_nhwc_reference

tvm = pytest.importorskip("tvm")
from tvm import relax, te  # noqa: E402

from experiments.gemm import vnni  # noqa: E402
from experiments.int8 import quantize as Q  # noqa: E402
from experiments.int8 import vnni_ops  # noqa: E402

VNNI_TARGET = {"kind": "llvm", "mcpu": "znver4", "num-cores": 2}


_conv_ref = conv_nhwc_reference


def _operands(shape_x, shape_w, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 256, shape_x, dtype=np.uint8)
    w = rng.integers(-128, 128, shape_w, dtype=np.int8)
    x.reshape(-1)[0] = 255   # extremes of u8 x s8
    w.reshape(-1)[0] = -128
    return x, w


def test_packing_puts_16x4_blocks_together():
    w = np.arange(20 * 3 * 3 * 8).reshape(20, 3, 3, 8).astype(np.int32)
    p = vnni_ops.pack_conv(w)
    assert p.shape == (2, 3, 3, 2, 16, 4)
    assert p[1, 2, 0, 1, 3, 2] == w[16 + 3, 2, 0, 4 + 2]
    assert not p[1, :, :, :, 4:].any()          # output channels 20..31 are zero padding
    d = np.arange(8 * 10).reshape(8, 10)
    pd = vnni_ops.pack_dense(d)
    assert pd.shape == (1, 2, 16, 4) and pd[0, 1, 7, 3] == d[7, 7] and not pd[0, :, 10:].any()
    p6 = vnni_ops.pack_conv(np.ones((16, 1, 1, 6), np.int8))   # input channels 6 -> 8, zero weights
    assert p6.shape == (1, 1, 1, 2, 16, 4) and p6[0, 0, 0, 1, :, :2].all() and not p6[0, 0, 0, 1, :, 2:].any()
    assert list(vnni_ops.shift_correction(np.ones((2, 1, 1, 3), np.int8) * [[[[1, -2, 4]]]])) == [-384, -384]


def _build(tensors, target="llvm"):
    return tvm.compile(tvm.IRModule({"main": te.create_prim_func(tensors)}), target)


@pytest.mark.slow  # compiles and runs the packed INT8 conv with TVM
@pytest.mark.parametrize("case", [((1, 8, 8, 16), 32, 3, 1, (1, 1, 1, 1)), ((1, 9, 9, 8), 20, 3, 2, (1, 1, 0, 0)),
                                  ((1, 7, 7, 4), 16, 1, 1, (0, 0, 0, 0))], ids=["3x3", "stride2-oc20", "1x1"])
def test_packed_conv_kernel_is_exact(case):
    shape_x, oc, k, stride, pad = case
    x, w = _operands(shape_x, (oc, k, k, shape_x[3]))
    xt = te.placeholder(x.shape, "uint8", name="x")
    wt = te.placeholder(vnni_ops.pack_conv(w).shape, "int8", name="w")
    out = vnni_ops.conv2d_nhwc_packed(xt, wt, (stride, stride), pad, oc)
    ref = _conv_ref(x, w, stride, pad)
    got = tvm.runtime.tensor(np.zeros(ref.shape, np.int32))
    _build([xt, wt, out])(tvm.runtime.tensor(x), tvm.runtime.tensor(vnni_ops.pack_conv(w)), got)
    assert np.array_equal(got.numpy(), ref)


@pytest.mark.slow  # compiles and runs the shifted INT8 conv with TVM
def test_int8_input_conv_reads_shifted_bytes_and_is_exact():
    """The stem's case: an int8 image with 3 channels, 7x7 stride 2 with zero padding."""
    rng = np.random.default_rng(3)
    x = rng.integers(-127, 128, (1, 12, 12, 3), dtype=np.int8)
    w = rng.integers(-127, 128, (20, 7, 7, 3), dtype=np.int8)
    xt = te.placeholder(x.shape, "int8", name="x")
    wt = te.placeholder(vnni_ops.pack_conv(w).shape, "int8", name="w")
    ct = te.placeholder((32,), "int32", name="c")
    out = vnni_ops.conv2d_nhwc_packed(xt, wt, (2, 2), (3, 3, 3, 3), 20, ct)
    ref = _conv_ref(x, w, 2, (3, 3, 3, 3))
    fix = np.zeros(32, np.int32)
    fix[:20] = vnni_ops.shift_correction(w)
    got = tvm.runtime.tensor(np.zeros(ref.shape, np.int32))
    _build([xt, wt, ct, out])(tvm.runtime.tensor(x), tvm.runtime.tensor(vnni_ops.pack_conv(w)),
                              tvm.runtime.tensor(fix), got)
    assert np.array_equal(got.numpy(), ref)
    with pytest.raises(ValueError, match="shift correction"):
        vnni_ops.conv2d_nhwc_packed(xt, wt, (2, 2), (3, 3, 3, 3), 20)


@pytest.mark.slow  # compiles and runs the packed INT8 dense with TVM
def test_packed_dense_kernel_is_exact():
    x, w = _operands((1, 64), (64, 10))
    xt, wt = te.placeholder(x.shape, "uint8", name="x"), te.placeholder((1, 16, 16, 4), "int8", name="w")
    got = tvm.runtime.tensor(np.zeros((1, 10), np.int32))
    _build([xt, wt, vnni_ops.dense_packed(xt, wt, 10)])(tvm.runtime.tensor(x), tvm.runtime.tensor(vnni_ops.pack_dense(w)), got)
    assert np.array_equal(got.numpy(), x.astype(np.int64) @ w.astype(np.int64))


def _net(seed=0):
    """conv(4->16)+relu -> conv(16->16)+bias+relu -> mean -> dense(16->10), NCHW like the ONNX import."""
    rng = np.random.default_rng(seed)
    c = lambda a: relax.const(a.astype("float32"))  # noqa: E731
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType((1, 4, 8, 8), "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            a = bb.emit(relax.op.nn.relu(relax.op.nn.conv2d(x, c(rng.normal(0, 0.3, (16, 4, 3, 3))), padding=1)))
            b = bb.emit(relax.op.nn.conv2d(a, c(rng.normal(0, 0.2, (16, 16, 3, 3))), padding=1))
            b = bb.emit(relax.op.nn.relu(relax.op.add(b, c(rng.normal(0, 0.1, (1, 16, 1, 1))))))
            m = bb.emit(relax.op.mean(b, axis=[2, 3]))
            out = bb.emit_output(bb.emit(relax.op.matmul(m, c(rng.normal(0, 0.5, (16, 10))))))
        bb.emit_func_output(out)
    return Q.prepare(relax.transform.Normalize()(bb.get()))


def _run(mod, xs):
    vm = relax.VirtualMachine(tvm.compile(mod, "llvm"), tvm.cpu())
    return np.concatenate([vm["main"](tvm.runtime.tensor(x[None])).numpy() for x in xs])


@pytest.mark.slow  # compiles two INT8 programs
def test_rewrite_uses_packed_kernels_and_matches_the_legalized_program():
    rng = np.random.default_rng(1)
    mod = Q.channels_last(_net())
    names = [v.name for v, _ in Q.bindings(mod)]
    assert len(set(names)) == len(names)
    tap, tap_names = Q.tap_module(mod)
    taps = Q.run_taps(tvm.compile(tap, "llvm"), [rng.normal(0, 1, (1, 4, 8, 8)).astype("float32") for _ in range(8)],
                      tap_names)
    acts = Q.calibrate(taps, "minmax", "uint8")
    packed, report = Q.rewrite(mod, acts, vnni=True)
    plain, _ = Q.rewrite(mod, acts)
    # the first conv reads the int8 image (shifted by 128); the second conv and the dense read uint8
    assert [g["kernel"] for g in report["groups"]] == ["vnni_packed", "vnni_packed", "vnni_packed"]
    assert report["vnni_packed"] == {"conv2d": 2, "matmul": 1}
    xs = rng.normal(0, 1, (4, 4, 8, 8)).astype("float32")
    np.testing.assert_allclose(_run(packed, xs), _run(plain, xs), rtol=1e-6, atol=1e-6)   # same integers
    ref = _run(_net(), xs)
    assert np.max(np.abs(_run(packed, xs) - ref)) / np.max(np.abs(ref)) < 0.1


def _designs(mod, target, space_generator, states):
    """Each MetaSchedule design space of ``mod`` for the given random states, postprocessors applied
    (None for one the postprocessors refuse)."""
    from tvm.s_tir import meta_schedule as ms
    for rand_state in states:
        ctx = ms.TuneContext(mod=mod, target=target, space_generator=space_generator, task_name="t",
                             rand_state=rand_state)
        for design in ctx.generate_design_space():
            sch = design.copy()
            try:
                done = all(p.apply(sch) for p in ctx.space_generator.postprocs)
            except tvm.TVMError:
                done = False
            yield sch if done else None


def _tensorized_design(mod, target, attempts=40):
    """A design space of ``mod`` under the target's rules that the postprocessors tensorize (the first
    of ``attempts`` random states that gives one), or None."""
    for sch in _designs(mod, target, "post-order-apply", range(1, attempts + 1)):
        if sch is not None and "vpdpbusd" in tvm.compile(sch.mod, target).mod.inspect_source("asm"):
            return sch
    return None


@pytest.mark.slow  # MetaSchedule design-space search and builds
def test_metaschedule_tensorizes_the_packed_conv_for_a_vnni_target():
    """Compile only (any x86-64 host): the "vnni" rule set maps the packed conv onto dot_16x4_vnni."""
    vnni.override_shipped()
    target = tvm.target.Target(VNNI_TARGET)
    assert vnni.target_has_vnni(target)
    x, w = _operands((1, 8, 8, 16), (32, 3, 3, 16))
    xt = te.placeholder(x.shape, "uint8", name="x")
    wt = te.placeholder(vnni_ops.pack_conv(w).shape, "int8", name="w")
    mod = tvm.IRModule({"main": te.create_prim_func([xt, wt, vnni_ops.conv2d_nhwc_packed(xt, wt, (1, 1), (1, 1, 1, 1), 32)])})
    sch = _tensorized_design(mod, target)
    assert sch is not None, "no design space of the packed conv was tensorized with vpdpbusd"
    if not vnni.host_has_vnni():
        pytest.skip("host CPU lacks AVX-512 VNNI: compiled, not run")
    got = tvm.runtime.tensor(np.zeros((1, 8, 8, 32), np.int32))
    tvm.compile(sch.mod, target)(tvm.runtime.tensor(x), tvm.runtime.tensor(vnni_ops.pack_conv(w)), got)
    assert np.array_equal(got.numpy(), _conv_ref(x, w, 1, (1, 1, 1, 1)))


def test_tensorizing_lines_are_counted_per_task(tmp_path):
    from experiments import int8_quant
    from experiments.e2e import tuning
    log = "tvm.s_tir.meta_schedule.logging.task_0_{}.log"
    (tmp_path / "logs").mkdir()     # tune_tasks writes under <work_dir>/logs
    (tmp_path / "logs" / log.format("fused_conv2d_vnni_add")).write_text(
        "x [INFO] [multi_level_tiling_with_intrin.cc:68] Tensorizing with dot_16x4_vnni\n", encoding="utf-8")
    (tmp_path / log.format("add")).write_text("nothing\n", encoding="utf-8")
    assert tuning.tensorized(tmp_path, "fused_conv2d_vnni_add") == {"dot_16x4_vnni": 1}
    assert tuning.tensorized(tmp_path, "add") == {}          # not the other task's file
    per_task = {"fused_conv2d_vnni_add": {"trials": 8, "tensorized": {"dot_16x4_vnni": 1}}, "add": {"trials": 8}}
    assert int8_quant.tensorized_summary(per_task) == {"tasks": ["fused_conv2d_vnni_add"], "count": 1,
                                                       "tuned_tasks": 2, "log_lines": {"dot_16x4_vnni": 1}}


def test_vnni_layout_follows_the_target_and_the_profile(monkeypatch):
    """The choice only; registering the intrinsic imports TVM's tensor intrinsics (11 s or more),
    which the slow tensorization tests exercise for real."""
    from experiments import int8_quant
    from experiments.gemm import vnni
    registered = []
    monkeypatch.setattr(vnni, "override_shipped", lambda: registered.append(True))
    assert not int8_quant.vnni_layout({}, tvm.target.Target({"kind": "llvm", "mcpu": "haswell"}))
    assert not int8_quant.vnni_layout({"vnni": False}, tvm.target.Target(VNNI_TARGET))
    assert registered == []
    assert int8_quant.vnni_layout({}, tvm.target.Target(VNNI_TARGET))
    assert registered == [True]   # the byte-operand intrinsic is registered exactly when it is chosen


def _requantized_conv():
    """A packed VNNI conv fused with an int32 bias and a fixed-point requantize to uint8: the shape
    of the integer network's kernels whose candidates failed to build."""
    x = te.placeholder((1, 8, 8, 16), "uint8", name="x")
    w = te.placeholder(vnni_ops.pack_conv(np.zeros((32, 3, 3, 16), np.int8)).shape, "int8", name="w")
    b = te.placeholder((32,), "int32", name="b")
    acc = vnni_ops.conv2d_nhwc_packed(x, w, (1, 1), (1, 1, 1, 1), 32)
    y = te.compute(acc.shape, lambda n, i, j, c: (acc[n, i, j, c] + b[c]).astype("int64") * 1234567 >> 31, name="rq")
    q = te.compute(acc.shape, lambda *i: te.max(te.min(y(*i), 255), 0).astype("uint8"), name="clip")
    return tvm.IRModule({"main": te.create_prim_func([x, w, b, q])})


@pytest.mark.slow  # MetaSchedule design spaces and candidate builds (compile only: any x86-64 host)
def test_the_vnni_space_without_vectorize_builds_its_candidates():
    """tuning.search_space(vectorize=False): the target's own rules and postprocessors, the vectorize
    annotation of ParallelizeVectorizeUnroll off (parallel and unroll kept); every sampled candidate
    of a requantized packed conv then builds for a VNNI target."""
    from types import SimpleNamespace

    from tvm.s_tir import meta_schedule as ms

    from experiments.e2e import tuning
    vnni.override_shipped()
    target = tvm.target.Target(VNNI_TARGET)
    mod = _requantized_conv()
    task = SimpleNamespace(dispatched=[mod], task_name="fused_conv2d_vnni_probe")
    assert tuning.search_space(task, target) == "post-order-apply"
    space = tuning.search_space(task, target, vectorize=False)
    default = ms.TuneContext(mod=mod, target=target, space_generator="post-order-apply", task_name="t").space_generator
    assert [type(r).__name__ for r in space.sch_rules] == [type(r).__name__ for r in default.sch_rules]
    assert [type(p).__name__ for p in space.postprocs] == [type(p).__name__ for p in default.postprocs]
    (pvu,) = [r for r in space.sch_rules if type(r).__name__ == "ParallelizeVectorizeUnroll"]
    (pvu0,) = [r for r in default.sch_rules if type(r).__name__ == "ParallelizeVectorizeUnroll"]
    assert int(pvu.max_vectorize_extent) == -1 and int(pvu0.max_vectorize_extent) > 0
    assert int(pvu.max_jobs_per_core) == int(pvu0.max_jobs_per_core)
    built = failed = 0
    for sch in _designs(mod, target, space, range(1, 7)):
        if sch is None:
            continue
        try:
            tvm.compile(sch.mod, target)   # "Cannot broadcast lanes=16 to 64" with the annotation on
            built += 1
        except Exception:   # noqa: BLE001 - that InternalError is no TVMError
            failed += 1
    assert built >= 1 and failed == 0
