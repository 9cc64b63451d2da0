"""Fast tests for the Relax graph-level study (experiments/graph/relax_study.py). No timing asserts."""

from pathlib import Path

import numpy as np
import pytest
import yaml

from experiments.graph import migration, relax_study as rs, resnet18
from reportgen.data.words import W_for

ROOT = Path(__file__).resolve().parents[1]
VARIANTS = {"decompose": rs.PIPELINE, "fold_bn": rs.PIPELINE_FOLD_BN}


@pytest.fixture(scope="module")
def unit():
    mod, params, reference = rs.conv_unit(0)
    data = rs.conv_input(0)
    return mod, params, data, reference(data)


@pytest.fixture(scope="module")
def steps(unit):
    return {name: rs.apply_pipeline(unit[0], pipeline) for name, pipeline in VARIANTS.items()}


def _step(results, name):
    return next(s for s in results if s.name == name)


def _before(results, name):
    return results[_step(results, name).index - 1]


# --- hello -----------------------------------------------------------------

@pytest.mark.slow  # compiles a Relax module to LLVM
def test_hello_relax():
    h = rs.hello_relax(41)
    assert h["output"] == 42 == h["expected"]
    assert h["output_dtype"] == "int64"
    assert "R.add" in h["ir_text"] and 'R.Tensor((), dtype="int64")' in h["ir_text"]
    assert h["script_roundtrip"]
    assert "T.prim_func" in h["tir_text"] and "call_tir" in h["tir_text"]
    assert "define" in h["llvm_ir"] and h["asm"].strip()
    assert "@main" in h["vm_text"]


# --- conv unit and reference ----------------------------------------------

@pytest.mark.slow  # builds the conv unit
def test_conv_unit_shapes_and_params(unit):
    mod, params, data, ref = unit
    main = mod["main"]
    assert [p.name for p in main.params] == ["data"]  # weights are bound constants
    assert "R.nn.batch_norm" in mod.script() and "training=False" in mod.script()
    assert [int(d) for d in main.ret_ty.shape.values] == [1, 32, 112, 112]
    assert data.shape == (1, 3, 224, 224) and ref.shape == (1, 32, 112, 112)
    assert params["weight"].shape == (32, 3, 3, 3)
    assert (params["moving_var"] > 0).all()
    for name, trivial in (("gamma", 1.0), ("beta", 0.0), ("moving_mean", 0.0), ("moving_var", 1.0)):
        assert not np.allclose(params[name], trivial), name
    assert (ref >= 0).all() and (ref > 0).any() and (ref == 0).any()
    again = rs.conv_unit(0)[1]
    assert all(np.array_equal(params[k], again[k]) for k in params)


def test_reference_matches_direct_convolution():
    spec = rs.ConvSpec(data_shape=(1, 2, 5, 6), weight_shape=(3, 2, 3, 3), out_shape=(1, 3, 3, 3))
    params, x = rs.conv_params(1, spec), rs.conv_input(1, spec)
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (1, 1), (1, 1)))
    w = params["weight"].astype(np.float64)
    direct = np.zeros((1, 3, 3, 3))
    for o in range(3):
        for i in range(3):
            for j in range(3):
                direct[0, o, i, j] = np.sum(xp[0, :, 2 * i:2 * i + 3, 2 * j:2 * j + 3] * w[o])
    c = {k: params[k].astype(np.float64)[None, :, None, None] for k in rs.PARAM_NAMES[1:]}
    expect = np.maximum((direct - c["moving_mean"]) / np.sqrt(c["moving_var"] + 1e-5) * c["gamma"] + c["beta"], 0)
    np.testing.assert_allclose(rs.conv_reference(x, params, spec), expect, rtol=1e-5, atol=1e-6)


def test_check():
    ref = np.array([0.0, 1.0, -2.0])
    assert rs.check(ref + 1e-6, ref)["passed"]
    bad = rs.check(ref + 1e-2, ref)
    assert not bad["passed"] and bad["max_abs_err"] == pytest.approx(1e-2)
    assert bad["threshold"] == pytest.approx(2e-4) and bad["max_rel_err"] == pytest.approx(5e-3)
    assert not rs.check(ref[:2], ref)["passed"]


# --- pipeline ---------------------------------------------------------------

@pytest.mark.slow  # runs the Relax pipelines
@pytest.mark.parametrize("variant", list(VARIANTS))
def test_pipeline_passes_exist_and_change_ir(variant, steps):
    results = steps[variant]
    assert results[0].name == "imported" and VARIANTS[variant][0][1] is None
    for name, p in VARIANTS[variant][1:]:
        assert migration.resolve_api(f"tvm.relax.transform.{name}") is not None
        assert callable(p)
    # every step but the trailing clean-up changes the module
    assert all(s.changed for s in results[1:-1]), [(s.name, s.changed) for s in results]
    assert all(s.text.startswith("# from tvm.script") for s in results)


@pytest.mark.slow  # compiles Relax modules
@pytest.mark.parametrize("variant", list(VARIANTS))
def test_compile_first_and_last_step_match_reference(variant, unit, steps):
    _, _, data, ref = unit
    for step in (steps[variant][0], steps[variant][-1]):
        result = rs.check(rs.compile_step(step.mod)(data), ref)
        assert result["passed"], (step.name, result)


@pytest.mark.slow  # runs the Relax pipelines
def test_fold_constant_folds_batch_norm(steps):
    dec = steps["decompose"]
    before, after = _before(dec, "FoldConstant").stats, _step(dec, "FoldConstant").stats
    assert after["n_calls"] < before["n_calls"]
    assert before["calls"]["relax.sqrt"] == 1 and "relax.expand_dims" in before["calls"]
    assert "relax.sqrt" not in after["calls"] and "relax.expand_dims" not in after["calls"]

    fb = steps["fold_bn"]
    before, after = _before(fb, "FoldConstant").stats, _step(fb, "FoldConstant").stats
    assert after["n_calls"] < before["n_calls"]
    # BN is now scale (inside the conv weight) + shift (one bias add): 2 constants
    assert after["calls"] == {"relax.add": 1, "relax.nn.conv2d": 1, "relax.nn.relu": 1}
    assert after["n_constants"] == 2


@pytest.mark.slow  # runs the Relax pipelines
@pytest.mark.parametrize("variant", list(VARIANTS))
def test_fusion_reduces_kernels_and_intermediates(variant, steps):
    results = steps[variant]
    pre, fused, tir = _before(results, "FuseOps"), _step(results, "FuseOps"), _step(results, "FuseTIR")
    assert fused.stats["intermediate_bytes"] < pre.stats["intermediate_bytes"]
    assert fused.stats["n_calls"] == 1 < pre.stats["n_calls"]
    assert tir.stats["n_tir_funcs"] == 1 < pre.stats["n_tir_funcs"]
    assert tir.stats["n_relax_funcs"] == 1 and fused.stats["n_relax_funcs"] == 2
    # unscheduled fused kernel still materialises its stages internally
    assert tir.stats["tir_alloc_bytes"] > pre.stats["tir_alloc_bytes"]


def test_ir_stats_intermediates():
    def body(bb, x):
        a = bb.emit(rs.relax.op.add(x, x))          # intermediate, 4*4*4 bytes
        b = bb.emit(rs.relax.op.multiply(a, a))     # aliased by the output
        return bb.emit(b)
    stats = rs.ir_stats(rs.make_module([("x", (4, 4), "float32")], body))
    assert stats["n_intermediates"] == 1 and stats["intermediate_bytes"] == 64
    assert stats["calls"] == {"relax.add": 1, "relax.multiply": 1}
    assert stats["n_relax_funcs"] == 1 and stats["n_tir_funcs"] == 0


# --- ResNet-18 --------------------------------------------------------------

TINY_RESNET = resnet18.ResNetSpec(data_shape=(1, 3, 32, 32), stem_channels=4, stages=((4, 1), (8, 2)),
                            blocks_per_stage=2, num_classes=10)


@pytest.fixture(scope="module")
def resnet():
    mod, _reference = resnet18.resnet18(0)
    return mod, {name: rs.apply_pipeline(mod, pipeline) for name, pipeline in VARIANTS.items()}


@pytest.mark.slow  # builds ResNet-18 (11.7 M parameters) and runs both pipelines
def test_resnet18_structure(resnet):
    mod, results = resnet
    main, stats = mod["main"], results["decompose"][0].stats
    assert [p.name for p in main.params] == ["data"]  # weights are bound constants
    assert [int(d) for d in main.params[0].ty.shape.values] == [1, 3, 224, 224]
    assert [int(d) for d in main.ret_ty.shape.values] == [1, 1000]
    assert stats["calls"]["relax.nn.conv2d"] == stats["calls"]["relax.nn.batch_norm"] == 20
    assert mod.script().count("training=False") == 20
    params = resnet18.resnet18_params(0)
    trainable = sum(v.size for k, v in params.items() if not k.endswith(("moving_mean", "moving_var")))
    assert trainable == 11_689_512  # torchvision resnet18's parameter count
    assert stats["n_constants"] == len(params)
    assert all((v > 0).all() for k, v in params.items() if k.endswith("moving_var"))
    assert resnet18.resnet18_input(0).shape == (1, 3, 224, 224)


@pytest.mark.slow  # ResNet-18 through both pipelines
@pytest.mark.parametrize("variant", list(VARIANTS))
def test_resnet18_fusion_cuts_calls(variant, resnet):
    results = resnet[1][variant]
    imported, pre, tir = results[0].stats, _before(results, "FuseOps").stats, _step(results, "FuseTIR").stats
    assert imported["n_calls"] >= 2.5 * tir["n_calls"]
    assert pre["n_calls"] >= 2.5 * tir["n_calls"]
    assert tir["n_tir_funcs"] < pre["n_tir_funcs"]
    assert tir["intermediate_bytes"] < pre["intermediate_bytes"] / 2
    fused_convs = {k: v for k, v in tir["calls"].items() if "conv2d" in k}
    assert sum(fused_convs.values()) == 20 and all(k.startswith("call_tir:fused_") for k in fused_convs)


@pytest.mark.slow  # compiles a ResNet
def test_small_resnet_matches_numpy_and_fused_step():
    mod, reference = resnet18.resnet18(0, TINY_RESNET)
    data = resnet18.resnet18_input(0, TINY_RESNET)
    expected = reference(data)
    assert expected.shape == (1, 10)
    results = rs.apply_pipeline(mod, rs.PIPELINE_FOLD_BN)
    imported = rs.compile_step(results[0].mod)(data)
    assert rs.check(imported, expected)["passed"]
    assert rs.check(rs.compile_step(results[-1].mod)(data), imported, rtol=1e-3)["passed"]


def test_every_pipeline_step_has_its_words():
    for variant in VARIANTS:
        for name, _pass in rs.pipeline_steps(variant):
            assert W_for("graph.step_diffs.step", variant, name)


# --- PASS_MAP ---------------------------------------------------------------

def test_pass_map_matches_seed_table():
    table = yaml.safe_load((ROOT / "archive/tables/s24_passes.yaml").read_text(encoding="utf-8"))
    seed = {row["key"]: row["cells"][0] for row in table["rows"]}
    assert [e["relay_pass"] for e in migration.PASS_MAP] == list(seed)   # the page takes each pass's group from there
    for e in migration.PASS_MAP:
        assert W_for("graph.pass_map.note", e["relay_pass"])   # the page's note on it
        if e["relax_equivalent"]:
            assert migration.resolve_api(f"tvm.relax.transform.{e['relax_equivalent']}")


@pytest.mark.slow  # runs a Relax pass per entry
@pytest.mark.parametrize("entry", [e for e in migration.PASS_MAP if e["relax_equivalent"]],
                         ids=lambda e: e["relay_pass"])
def test_demonstrate_changes_ir(entry):
    d = migration.demonstrate(entry["relay_pass"])
    assert d["changed"] is True
    assert d["before_text"] != d["after_text"]
    assert {"n_calls", "intermediate_bytes"} <= set(d["before_stats"]) & set(d["after_stats"])


def test_demonstrate_without_equivalent_raises():
    for e in migration.PASS_MAP:
        if e["relax_equivalent"] is None:
            with pytest.raises(ValueError):
                migration.demonstrate(e["relay_pass"])


# --- MIGRATION --------------------------------------------------------------

SEED_OLD_APIS = [
    "tvm.build", "tvm.relay.build", "relay.Module.from_expr", "relay.expr.var / relay.var",
    "relay.expr.const", "relay.op.tensor.add", "relay.expr.Function", "relay.scalar_type",
    "relay.transform.*", "tvm.transform.PassContext(opt_level=3)", "te.create_schedule", "tvm.lower",
    "graph runtime (graph_runtime / graph_executor)", "mod.astext", "lib.get_source", "AutoTVM",
]


def test_migration_covers_seed_and_resolves():
    assert [m["old_api"] for m in migration.MIGRATION] == SEED_OLD_APIS
    for m in migration.MIGRATION:
        assert m["era"] == "TVM 0.6/0.7" and W_for("graph.migration.note", m["old_api"])
        assert migration.resolve_api(m["new_api"]) is not None, m["new_api"]


@pytest.mark.parametrize("gone", ["tvm.relay", "tvm.autotvm", "tvm.lower", "tvm.te.create_schedule",
                                  "tvm.contrib.graph_executor", "tvm.IRModule.astext",
                                  "tvm.runtime.Module.get_source", "tvm.relax.TensorStructInfo"])
def test_old_apis_are_gone(gone):
    with pytest.raises((ImportError, AttributeError)):
        migration.resolve_api(gone)
