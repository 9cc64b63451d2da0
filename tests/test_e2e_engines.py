"""Fast tests for the end-to-end library (experiments/e2e). No timing asserts beyond a sanity ratio.

One ResNet-18 v1 (full width, 64x64 input so every engine runs it in well under
a second) is built once, exported once to ONNX and TFLite, imported once into
TVM and compiled once per variant; every engine is compared with TensorFlow.

Tolerances (float32 everywhere; observed errors are ~1e-6 of the logit scale):
``max_rel_err`` (max |diff| / max |reference|) <= 1e-4, every top-1 equal, and
top-5 overlap >= 0.9 (a swap at the 5th/6th boundary of one row is allowed).
"""

import time

import numpy as np
import pytest

from experiments import targets
from experiments.e2e import engines as E
from experiments.e2e import models as M

THREADS = 2
SIZE = 64
N_IMAGES = 5  # the four scikit-image pictures and one noise image
MAX_REL_ERR = 1e-4
MIN_TOP5 = 0.9


@pytest.fixture(scope="module")
def model():
    E.configure_tf_threads(THREADS)
    return M.build("resnet18_v1", seed=0, input_size=SIZE)


@pytest.fixture(scope="module")
def inputs():
    return M.sample_inputs(N_IMAGES, seed=0, input_size=SIZE)


@pytest.fixture(scope="module")
def reference(model, inputs):
    return E.prepare_tf(model, THREADS)(inputs)


@pytest.fixture(scope="module")
def onnx_path(model, tmp_path_factory):
    return M.export_onnx(model, tmp_path_factory.mktemp("e2e") / "resnet18.onnx", batch=None)


@pytest.fixture(scope="module")
def tflite_path(model, tmp_path_factory):
    return M.export_tflite(model, tmp_path_factory.mktemp("e2e") / "resnet18.tflite")


@pytest.fixture(scope="module")
def tvm_module(onnx_path):
    return E.tvm_import_onnx(onnx_path, (1, SIZE, SIZE, 3))


@pytest.fixture(scope="module")
def tvm_executables(tvm_module):
    target = targets.host_target(THREADS)
    return {v: E.tvm_compile(tvm_module, target, v) for v in ("B", "C")}


def _assert_agrees(logits, reference):
    a = E.agreement(logits, reference)
    assert a["max_rel_err"] <= MAX_REL_ERR, a
    assert a["top1_agree"] == 1.0, a
    assert a["top5_agree"] >= MIN_TOP5, a
    return a


def _per_image(runner, inputs):
    return np.concatenate([runner(inputs[i:i + 1]) for i in range(len(inputs))])


# --- models ----------------------------------------------------------------

@pytest.mark.slow  # builds three Keras ResNets
def test_build_is_seeded():
    E.configure_tf_threads(THREADS)
    a, b, c = (M.build("resnet18_v1", s, input_size=32, num_classes=10) for s in (3, 3, 4))
    wa, wb, wc = (m.get_weights() for m in (a, b, c))
    assert all(np.array_equal(x, y) for x, y in zip(wa, wb))
    assert not all(np.array_equal(x, y) for x, y in zip(wa, wc))
    bn = next(layer for layer in a.layers if "bn" in layer.name)
    assert not np.allclose(bn.moving_variance.numpy(), 1.0)  # BN is not the identity


@pytest.mark.slow  # builds ResNet-18 and runs TensorFlow
def test_model_shapes(model, reference):
    assert model.inputs[0].shape[1:] == (SIZE, SIZE, 3)
    assert reference.shape == (N_IMAGES, 1000) and reference.dtype == np.float32
    assert np.isfinite(reference).all() and reference.std() > 0


@pytest.mark.slow  # builds a Keras model
@pytest.mark.parametrize("name", ["inception_v1", "resnet50", "mobilenet_v2"])
def test_other_models_build(name):
    E.configure_tf_threads(THREADS)
    m = M.build(name, 0, input_size=32, num_classes=10)
    out = m(M.sample_inputs(2, 0, input_size=32), training=False).numpy()
    assert out.shape == (2, 10) and np.isfinite(out).all()


def test_unknown_model():
    with pytest.raises(ValueError):
        M.build("vgg16", 0)


def test_sample_inputs(inputs):
    assert inputs.shape == (N_IMAGES, SIZE, SIZE, 3) and inputs.dtype == np.float32
    assert np.array_equal(inputs, M.sample_inputs(N_IMAGES, seed=0, input_size=SIZE))
    other = M.sample_inputs(N_IMAGES, seed=1, input_size=SIZE)
    assert np.array_equal(inputs[:4], other[:4])  # the pictures do not depend on the seed
    assert not np.array_equal(inputs[4:], other[4:])  # the noise does
    assert M.sample_names(N_IMAGES) == ["astronaut", "coffee", "chelsea", "rocket", "noise0"]
    assert abs(float(inputs.mean())) < 1.0 and 0.5 < float(inputs.std()) < 2.0


# --- engines against TensorFlow ---------------------------------------------

@pytest.mark.slow  # ONNX export + ONNX Runtime
def test_ort_agrees_with_tf(onnx_path, inputs, reference):
    runner = E.prepare_ort(onnx_path, THREADS)
    _assert_agrees(runner(inputs), reference)
    meta = runner.metadata()
    assert meta["engine"] == "onnxruntime" and meta["threads"] == THREADS
    assert meta["providers"] == ["CPUExecutionProvider"]


@pytest.mark.slow  # TFLite export
def test_tflite_agrees_with_tf(tflite_path, inputs, reference):
    runner = E.prepare_tflite(tflite_path, THREADS)
    _assert_agrees(runner(inputs), reference)  # resized from the exported batch 1
    _assert_agrees(runner(inputs[:1]), reference[:1])  # and back
    assert runner.metadata()["engine"] == "tflite"


@pytest.mark.slow  # builds ResNet-18
def test_tf_runner_metadata(model):
    meta = E.prepare_tf(model, THREADS).metadata()
    assert meta["engine"] == "tensorflow" and meta["threads"] == THREADS
    assert meta["jit_compile"] is False and meta["inter_op_threads"] == 1


@pytest.mark.slow  # builds ResNet-18
def test_tf_threads_fixed_after_start(model):
    with pytest.raises(RuntimeError, match="configure_tf_threads"):
        E.configure_tf_threads(THREADS + 1)


@pytest.mark.slow  # imports and compiles ResNet-18 in TVM
@pytest.mark.parametrize("variant", ["B", "C"])
def test_tvm_agrees_with_tf(tvm_executables, variant, inputs, reference):
    runner = E.prepare_tvm(tvm_executables[variant], THREADS, variant)
    _assert_agrees(_per_image(runner, inputs), reference)
    meta = runner.metadata()
    assert meta["engine"] == "tvm" and meta["variant"] == variant and meta["threads"] == THREADS


@pytest.mark.slow  # imports ResNet-18 into TVM
def test_tvm_import_binds_weights(tvm_module):
    params = tvm_module["main"].params
    assert len(params) == 1  # only the image; weights are constants


@pytest.mark.slow  # compiles ResNet-18 in TVM
def test_tvm_variant_c_fuses(tvm_executables):
    b, c = (E.tvm_kernel_calls(tvm_executables[v]) for v in ("B", "C"))
    assert sum(c.values()) < sum(b.values())
    assert not any(name.startswith("fused_") for name in b)
    assert any(name.startswith("fused_conv2d") for name in c)


@pytest.mark.slow  # imports ResNet-18 into TVM
def test_tvm_unknown_variant(tvm_module):
    with pytest.raises(ValueError):
        E.tvm_compile(tvm_module, targets.host_target(THREADS), "A")


@pytest.mark.slow  # compiles and profiles ResNet-18 in TVM
@pytest.mark.parametrize("variant", ["B", "C"])
def test_tvm_op_profile(tvm_executables, variant, inputs):
    runner = E.prepare_tvm(tvm_executables[variant], THREADS, variant)
    batch = inputs[:1]
    runner(batch)  # warm
    t0 = time.perf_counter()
    runner(batch)
    wall = time.perf_counter() - t0
    rows = E.tvm_op_profile(runner.handle, [batch])
    assert rows and all(r["calls"] >= 1 and r["seconds"] >= 0 for r in rows)
    kernels = [r for r in rows if r["kind"] == "kernel"]
    launches = E.tvm_kernel_calls(tvm_executables[variant])
    assert {r["op"]: r["calls"] for r in kernels} == launches
    assert rows == sorted(rows, key=lambda r: r["seconds"], reverse=True)
    total = sum(r["seconds"] for r in rows)
    assert 0.3 * wall <= total <= 3.0 * wall, (total, wall)
    runner(batch)  # the instrument is gone; the VM still runs


# --- agreement metric -------------------------------------------------------

def test_agreement_definition():
    ref = np.array([[0, 1, 2, 3, 4, 5, 6], [6, 5, 4, 3, 2, 1, 0]], dtype=np.float32)
    same = E.agreement(ref, ref)
    assert same["max_abs_err"] == 0 and same["top1_agree"] == same["top5_agree"] == 1.0
    assert same["ref_min_top1_margin"] == 1.0
    out = ref.copy()
    out[0, 0] = 10.0  # row 0: class 0 becomes top-1 and enters the top 5 (class 2 drops out)
    a = E.agreement(out, ref)
    assert a["max_abs_err"] == 10.0 and a["max_rel_err"] == pytest.approx(10.0 / 6.0)
    assert a["top1_agree"] == 0.5
    assert a["top5_agree"] == pytest.approx((4 / 5 + 1) / 2)
    assert a["top5_exact"] == 0.5
    with pytest.raises(ValueError):
        E.agreement(out[:1], ref)
