"""INT8 VNNI GEMM (experiments/gemm/vnni.py): codegen for explicit targets on any x86-64 host,
exact numerics only where the host runs VNNI. No timing asserts."""

import pytest
import tvm

from experiments.gemm import vnni

VNNI_TARGETS = [{"kind": "llvm", "mcpu": "znver4"}, {"kind": "llvm", "mcpu": "cascadelake"}]


@pytest.mark.slow  # compiles the INT8 GEMM for a VNNI target
@pytest.mark.parametrize("config", VNNI_TARGETS, ids=lambda c: c["mcpu"])
def test_vnni_target_emits_vpdpbusd(config):
    target = tvm.target.Target(config)
    assert vnni.target_has_vnni(target)
    *_, asm, _ = vnni.build_int8(64, 64, 64, target, load=False)  # compile only: host may lack VNNI
    assert vnni.dot_counts(asm)["vpdpbusd"] > 0


def test_targets_without_vnni_are_recognised():
    assert not vnni.target_has_vnni(tvm.target.Target({"kind": "llvm", "mcpu": "haswell"}))
    assert not vnni.target_has_vnni(tvm.target.Target({"kind": "llvm", "mcpu": "skylake-avx512"}))
    assert vnni.host_has_vnni({"avx512f", "avx512_vnni"}) and not vnni.host_has_vnni({"avx2"})


def test_shape_limits():
    with pytest.raises(ValueError, match="N % 16"):
        vnni.int8_prim_func(16, 24, 16)
    sch = vnni.schedule_int8(12, 48, 8)  # MR, NV shrink to divisors of M and N/16
    assert "B_packed" in sch.mod.script()


@pytest.mark.slow  # compiles and runs the INT8 GEMM
@pytest.mark.skipif(not vnni.host_has_vnni(), reason="host CPU lacks AVX-512 VNNI")
@pytest.mark.parametrize("shape", [(16, 16, 4), (12, 48, 8), (40, 96, 132), (128, 64, 256)],
                         ids=lambda s: "x".join(map(str, s)))
def test_int8_gemm_is_exact(shape):
    m, n, k = shape
    *_, rt_mod, _, _ = vnni.build_int8(m, n, k, tvm.target.Target(VNNI_TARGETS[0]))
    a, b = vnni.int8_operands(m, n, k, seed=3)
    a[0, :] = 255  # extremes of u8 x s8
    b[:, 0] = -128
    report = vnni.exact_check(vnni.run_int8(rt_mod["main"], a, b), a, b)
    assert report["passed"], report


def _harness(tmp_path):
    from experiments import harness

    spec = {"experiment": "gemm_tvm", "run_id": "20260101T000000Z-quick-f6ab9f827cfd", "params": {"seed": 0},
            "log_file": str(tmp_path / "log.txt"), "log_ref": "runs/x/logs/gemm_tvm.log",
            "records_file": str(tmp_path / "records.jsonl"), "artifacts_dir": str(tmp_path / "a" / "b" / "c" / "d"),
            "fingerprint": "f", "previous_records": None, "results_root": str(tmp_path)}
    return harness.Harness(spec)


@pytest.mark.slow  # compiles the INT8 GEMM for the evidence
def test_int8_case_without_vnni_is_skipped_with_evidence(tmp_path, monkeypatch):
    """A host without VNNI: compiled for an explicit VNNI target, vpdpbusd counted, not timed."""
    from experiments import gemm_tvm

    monkeypatch.setattr(vnni, "host_has_vnni", lambda flags=None: False)
    h = _harness(tmp_path)
    rec = gemm_tvm._int8_case(h, (32, 32, 32), 1, h.params, tvm.target.Target({"kind": "llvm", "mcpu": "haswell"}))
    assert rec["status"] == "skipped" and rec["samples"] == [] and "lacks AVX-512 VNNI" in rec["error"]
    assert rec["extra"]["dot_instructions"]["vpdpbusd"] > 0 and rec["case"]["target"]["mcpu"] == "znver4"


@pytest.mark.slow  # compiles and times the INT8 GEMM
@pytest.mark.skipif(not vnni.host_has_vnni(), reason="host CPU lacks AVX-512 VNNI")
def test_int8_case_on_a_vnni_host_is_checked_then_timed(tmp_path):
    from experiments import gemm_tvm

    h = _harness(tmp_path)
    h.params.update(warmup=1, repeat=3, min_repeat=3, min_sample_s=0.001, budget_s=0.2)
    rec = gemm_tvm._int8_case(h, (32, 64, 64), 1, h.params, tvm.target.Target(VNNI_TARGETS[0]))
    assert rec["status"] == "ok" and rec["check"]["passed"] and rec["check"]["max_abs_err"] == 0.0
    assert len(rec["samples"]) >= 3 and rec["extra"]["isa"] == "avx512_vnni"
