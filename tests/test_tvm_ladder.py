"""Fast tests for the TVM GEMM stage ladder (experiments/gemm/tvm_ladder.py). No timing asserts."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import tvm

from experiments.gemm import ms_tune, tvm_ladder as ladder

ROOT = Path(__file__).resolve().parents[1]
STAGE_NAMES = [stage["name"] for stage in ladder.STAGES]
SHAPES = [(64, 64, 64), (33, 47, 29)]  # divisible, and ragged in every dimension


def _cpu_flags() -> set[str]:
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return set()
    for line in text.splitlines():
        if line.startswith("flags"):
            return set(line.split(":", 1)[1].split())
    return set()


@pytest.fixture(scope="module")
def target():
    return ladder.host_target()


@pytest.fixture(scope="module")
def builds(target):
    """Every stage built once per test shape."""
    return {(stage, shape): ladder.build_stage(stage, *shape, target)
            for stage in STAGE_NAMES for shape in SHAPES}


def test_stage_table():
    assert STAGE_NAMES == ["baseline", "blocking", "vectorization", "loop_permutation",
                           "packing", "write_cache", "parallel", "microkernel"]
    assert [s["historical_name"] for s in ladder.STAGES] == [
        "baseline", "blocking", "vectorization", "loop permutation", "packing",
        "write cache", "parallel", None]  # microkernel is ours, not in the historical table
    assert all(s["description"].strip() for s in ladder.STAGES)


def test_unknown_stage_rejected(target):
    with pytest.raises(ValueError, match="unknown stage"):
        ladder.build_stage("unrolling", 8, 8, 8, target)


@pytest.mark.slow  # builds 16 TVM modules (8 stages x 2 shapes)
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("stage", STAGE_NAMES)
def test_stage_is_numerically_correct(builds, stage, shape):
    report = ladder.check(builds[(stage, shape)], *shape, seed=7)
    assert report["passed"], report
    assert report["threshold"] == pytest.approx(shape[2] * np.finfo(np.float32).eps)


@pytest.mark.slow  # compiles a TVM module
def test_custom_tiles_on_ragged_shape(target):
    built = ladder.build_stage("parallel", 33, 47, 29, target, tiles={"bm": 16, "bn": 8, "bk": 3})
    assert built.params["bm"] == 16 and built.params["bn"] == 8 and built.params["bk"] == 3
    assert ladder.check(built, 33, 47, 29, seed=3)["passed"]


@pytest.mark.slow  # needs the 16 TVM builds
def test_tail_handling_is_reported(builds):
    assert "pad M/N" in builds[("vectorization", (33, 47, 29))].params["tail_handling"]
    assert "guarded k split" in builds[("vectorization", (33, 47, 29))].params["tail_handling"]
    assert builds[("vectorization", (64, 64, 64))].params["tail_handling"] == "M/N divisible, K divisible"


@pytest.mark.slow  # needs the 16 TVM builds
def test_lowered_text_shows_each_stage(builds):
    text = {stage: builds[(stage, (64, 64, 64))].lowered_text for stage in STAGE_NAMES}
    assert "T.vectorized" not in text["baseline"] and "T.parallel" not in text["baseline"]
    assert "T.vectorized" not in text["blocking"]
    assert "T.vectorized" in text["vectorization"]
    assert "B_global" in text["packing"] and "(2, 64, 32)" in text["packing"]
    assert 'scope="local"' in text["write_cache"] and "T.unroll" in text["write_cache"]
    assert text["parallel"].count("T.parallel") == 2  # packing loop + outer i loop
    assert "C_rf_local" in text["microkernel"] and "B_global" in text["microkernel"]  # K blocks, packed B


def test_check_catches_wrong_and_unwritten_results():
    a, b = ladder.random_operands(16, 8, 32, seed=1)
    exact = (a.astype(np.float64) @ b).astype(np.float32)
    assert ladder.error_report(exact, a, b)["passed"]
    assert not ladder.error_report(exact + 1e-3, a, b)["passed"]
    unwritten = exact.copy()
    unwritten[3, 4] = np.nan
    assert not ladder.error_report(unwritten, a, b)["passed"]


SYNTHETIC_ASM = """
main:
\tvfmadd231ps\t(%rax,%rcx,4), %ymm1, %ymm2
\tvfmadd213ps\t%ymm3, %ymm4, %ymm5
\tvfmadd231ss\t(%rdx), %xmm0, %xmm1
\tvmovups\t%ymm2, (%rsi)
\tvmovss\t(%rdi), %xmm0
\taddq\t$32, %rax   # vfmadd231ps in a comment is ignored
\t.p2align\t4
"""


def test_codegen_evidence_parses_memory_operands():
    evidence = ladder.codegen_evidence(SYNTHETIC_ASM)
    assert evidence["fma_packed"] == {"xmm": 0, "ymm": 2, "zmm": 0}
    assert evidence["fma_scalar"] == 1
    assert evidence["vector_ops"]["ymm"] == 1
    assert evidence["scalar_simd_ops"] == 1
    assert evidence["widest_register"] == "ymm"
    assert evidence["has_ymm_fma"] and not evidence["has_zmm"]


# Codegen checks compile for explicit targets (never the host), so they pass on any x86-64
# host; compiling for an ISA the host lacks is fine, only running it is not (load=False).
AVX2_TARGET = {"kind": "llvm", "mcpu": "haswell"}
AVX512_TARGETS = [{"kind": "llvm", "mcpu": "skylake-avx512"}, {"kind": "llvm", "mcpu": "znver4"}]


def _evidence(stage, shape, config, **kwargs):
    built = ladder.build_stage(stage, *shape, tvm.target.Target(config), load=False, **kwargs)
    return built, ladder.codegen_evidence(built.asm)


@pytest.mark.slow  # compiles all 8 stages for AVX2, up to 1024^3
@pytest.mark.parametrize("shape", [(64, 64, 64), (1024, 1024, 1024)], ids=["64", "1024"])
def test_avx2_target_emits_ymm_fma_and_no_zmm(shape):
    evidence = {stage: _evidence(stage, shape, AVX2_TARGET)[1] for stage in STAGE_NAMES}
    assert evidence["baseline"]["fma_packed"]["ymm"] == 0
    assert not evidence["baseline"]["has_ymm_fma"]
    for stage in STAGE_NAMES[STAGE_NAMES.index("vectorization"):]:
        assert evidence[stage]["fma_packed"]["ymm"] > 0, (stage, evidence[stage])
        assert not evidence[stage]["has_zmm"], (stage, evidence[stage])
    assert ladder.isa_from_evidence(evidence["microkernel"]) == "avx2"


@pytest.mark.slow  # compiles the micro-kernel for AVX-512
@pytest.mark.parametrize("config", AVX512_TARGETS, ids=lambda c: c["mcpu"])
@pytest.mark.parametrize("shape", [(64, 64, 64), (127, 255, 63)], ids=["64", "odd"])
def test_avx512_target_microkernel_emits_zmm_fma(config, shape):
    built, evidence = _evidence("microkernel", shape, config)
    assert built.params["isa"] == "avx512" and built.params["lanes"] == 16
    assert built.params["nr"] % 16 == 0
    assert evidence["fma_packed"]["zmm"] > 0 and ladder.isa_from_evidence(evidence) == "avx512"


def test_microkernel_tiles_follow_the_target_not_the_host():
    avx2, avx512 = (tvm.target.Target(c) for c in (AVX2_TARGET, AVX512_TARGETS[1]))
    assert ladder.target_isa(avx2) == "avx2" and ladder.simd_lanes(avx2) == 8
    assert ladder.target_isa(avx512) == "avx512" and ladder.simd_lanes(avx512) == 16
    assert ladder.microkernel_defaults(avx2)["nr"] == 16 and ladder.microkernel_defaults(avx512)["nr"] == 32
    for target in (avx2, avx512):
        grid = ladder.microkernel_grid(target, "large")
        assert grid[0] == ladder.microkernel_defaults(target) and len(grid) == len({str(g) for g in grid})
        assert all(g["nr"] % ladder.simd_lanes(target) == 0 and g["mc"] % g["mr"] == 0 for g in grid)
    with pytest.raises(ValueError, match="SIMD width"):
        ladder.microkernel_tiles(64, 64, 64, {"mr": 8, "nr": 24, "kc": 64, "ku": 4, "mc": 64}, 16)


@pytest.mark.parametrize("shape", [(127, 255, 511), (1000, 1000, 1000), (1, 1, 1)],
                         ids=lambda s: "x".join(map(str, s)))
def test_microkernel_tiles_even_out_k(shape):
    t = ladder.microkernel_tiles(*shape, {"mr": 8, "nr": 32, "kc": 256, "ku": 4, "mc": 64}, 16)
    blocks = -(-shape[2] // t["kc"])
    assert t["kc"] % t["ku"] == 0 and t["kc"] * blocks - shape[2] < blocks * t["ku"]


def _host_runs(config) -> bool:
    return "avx512f" in _cpu_flags() if "512" in config["mcpu"] or config["mcpu"] == "znver4" \
        else {"avx2", "fma"} <= _cpu_flags()


MICRO_SHAPES = [(1, 1, 1), (5, 3, 7), (33, 47, 29), (127, 255, 63), (64, 64, 64), (65, 70, 300)]


@pytest.mark.slow  # compiles a micro-kernel per shape
@pytest.mark.parametrize("config", [AVX2_TARGET, AVX512_TARGETS[1]], ids=lambda c: c["mcpu"])
@pytest.mark.parametrize("shape", MICRO_SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_microkernel_numerics_on_odd_shapes(config, shape):
    if not _host_runs(config):
        pytest.skip(f"host CPU cannot run {config['mcpu']} code")
    built = ladder.build_stage("microkernel", *shape, tvm.target.Target(config),
                               tiles={"kc": 64})  # several K blocks even on small shapes
    report = ladder.check(built, *shape, seed=11)
    assert report["passed"], (built.params, report)


@pytest.mark.slow  # TVM C codegen of a stage
@pytest.mark.parametrize("stage", ["baseline", "vectorization", "parallel"])
def test_c_source(stage):
    source = ladder.c_source(33, 47, 29, stage=stage)
    assert source.startswith('// tvm target: {"kind":"c"')
    assert "__tvm_ffi_main(" in source and "for (int32_t" in source
    if stage == "parallel":  # packed B, padded local C tile with guarded write-back
        assert "B_pad_global" in source and "C_pad_local" in source


@pytest.mark.slow  # needs the 16 TVM builds
def test_time_module_returns_one_value_per_repeat(builds):
    import tvm

    built = builds[("write_cache", (64, 64, 64))]
    a, b = ladder.random_operands(64, 64, 64, seed=0)
    args = [tvm.runtime.tensor(x) for x in (a, b, np.zeros((64, 64), np.float32))]
    times = ladder.time_module(built, args, number=2, repeat=3, warmup=1)
    assert len(times) == 3 and all(t > 0 for t in times)


@pytest.mark.slow  # a fresh process that builds a TVM stage
def test_parallel_stage_with_two_threads():
    """Fresh process: the TVM thread pool is sized on first use."""
    script = (
        "from experiments.gemm import tvm_ladder as L\n"
        "n = L.configure_threads(2)\n"
        "b = L.build_stage('parallel', 65, 70, 33, L.host_target())\n"
        "print(n, L.check(b, 65, 70, 33, seed=5)['passed'])\n"
    )
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True,
                         text=True, timeout=120, check=True).stdout.split()
    assert out == ["2", "True"]


def test_classify_failure():
    assert ms_tune.classify_failure(None, None) is None
    assert ms_tune.classify_failure("LocalBuilder: An exception occurred\n...", None) == "build_failed"
    assert ms_tune.classify_failure("LocalBuilder: Timeout, killed after 30 seconds", None) == "timeout"
    assert ms_tune.classify_failure(None, "LocalRunner: Timeout, killed after 60 seconds\n") == "timeout"
    assert ms_tune.classify_failure(None, "LocalRunner: An exception occurred\n...") == "run_failed"


def test_error_summary_keeps_the_line_that_names_the_error():
    trace = ("Traceback (most recent call last):\n  File \"x.py\", line 3, in f\n    build()\n"
             "tvm.error.InternalError: Check failed: (e.ty().IsScalar()) is false: Cannot broadcast lanes=16 to 64\n")
    assert ms_tune.error_summary(trace) == ("tvm.error.InternalError: Check failed: (e.ty().IsScalar()) is false: "
                                           "Cannot broadcast lanes=16 to 64")
    assert ms_tune.error_summary("LocalBuilder: Timeout, killed after 30 seconds") == \
        "LocalBuilder: Timeout, killed after 30 seconds"
    assert ms_tune.error_summary(None) is None and len(ms_tune.error_summary("x" * 999)) == 300


def test_tuning_curve_tracks_best_so_far():
    trials = [{"elapsed_s": 1.0, "run_secs": [3e-3], "category": None},
              {"elapsed_s": 1.0, "run_secs": [1e9], "category": "run_failed"},
              {"elapsed_s": 2.0, "run_secs": [1e-3, 1e-3], "category": None},
              {"elapsed_s": 2.0, "run_secs": [2e-3], "category": None}]
    curve = ms_tune.tuning_curve(trials)
    assert [p["best_so_far_s"] for p in curve] == [3e-3, 3e-3, 1e-3, 1e-3]
    assert curve[1]["run_secs"] is None and [p["trial"] for p in curve] == [1, 2, 3, 4]


def test_trial_log_round_trip(tmp_path, target):
    workload = ms_tune.tuning_workload(16, 16, 16)
    trials = [{"elapsed_s": 3.5, "run_secs": [2e-5], "category": None},
              {"elapsed_s": 3.5, "run_secs": None, "category": "timeout"}]
    ms_tune.save_trial_log(tmp_path, workload, target, trials)
    ms_tune.save_trial_log(tmp_path, ms_tune.tuning_workload(16, 16, 8), target, trials[:1])
    assert ms_tune.load_trial_log(tmp_path, workload, target) == trials
    assert ms_tune.load_trial_log(tmp_path, workload, ladder.host_target(num_threads=2)) == []


@pytest.mark.slow
@pytest.mark.skipif(not os.environ.get("TVM_LADDER_TUNE"),
                    reason="MetaSchedule smoke takes ~1 min; set TVM_LADDER_TUNE=1")
def test_tune_smoke_and_reuse(tmp_path, target):
    result = ms_tune.tune(64, 64, 64, target, tmp_path, max_trials=4, num_threads=1, seed=0)
    assert not result.reused and result.trials_done == 4 and len(result.curve) == 4
    assert result.best_check["passed"] and result.best_run_secs > 0
    again = ms_tune.tune(64, 64, 64, target, tmp_path, max_trials=4, num_threads=1, seed=0)
    assert again.reused and again.trials_done == 0 and len(again.curve) == 4
    assert again.curve == result.curve and again.failures == result.failures
    assert again.best_run_secs == result.best_run_secs
    assert ladder.check(again, 64, 64, 64, seed=1)["passed"]


def _space_schedule(config, shape):
    from tvm import s_tir

    target = tvm.target.Target(config)
    sch = s_tir.Schedule(ms_tune.tuning_workload(*shape))
    ladder.microkernel_space(target, *shape)(sch)
    return target, sch


@pytest.mark.slow  # tvm.compile of replayed schedules
@pytest.mark.parametrize("config", [AVX2_TARGET, AVX512_TARGETS[1]], ids=lambda c: c["mcpu"])
def test_microkernel_space_replays_with_other_decisions(config):
    """MetaSchedule replays the space's trace with sampled decisions: every perfect tile,
    down to unit factors, must still give a valid, correct schedule."""
    from tvm import s_tir

    shape = (48, 64, 40)
    target, sch = _space_schedule(config, shape)
    trace = sch.trace
    tiles = [inst for inst in trace.insts if inst.kind.name == "SamplePerfectTile"]
    assert len(tiles) == 4  # NR/lanes, KC, MR (with MC), k unroll
    for pick in ("innermost_one", "outermost_one"):
        new = trace
        for inst in tiles:
            extent = int(np.prod([int(x) for x in trace.decisions[inst]]))
            n = len(trace.decisions[inst])
            decision = [extent] + [1] * (n - 1) if pick == "innermost_one" else [1] * (n - 1) + [extent]
            if inst.attrs[1] and decision[-1] > int(inst.attrs[1]):  # respect max_innermost_factor
                decision = [extent] + [1] * (n - 1)
            new = new.with_decision(inst, decision, remove_postproc=True)
        replay = s_tir.Schedule(ms_tune.tuning_workload(*shape))
        new.apply_to_schedule(replay, remove_postproc=True)
        executable = tvm.compile(replay.mod, target)
        if _host_runs(config):
            a, b = ladder.random_operands(*shape, seed=2)
            report = ladder.error_report(ladder.run_gemm(executable.jit()["main"], a, b), a, b)
            assert report["passed"], (pick, report)


def test_microkernel_space_rejects_shapes_it_cannot_tile():
    with pytest.raises(ValueError, match="N % 16"):
        ladder.microkernel_space(tvm.target.Target(AVX512_TARGETS[1]), 64, 40, 64)
    with pytest.raises(ValueError, match="even M"):
        ladder.microkernel_space(tvm.target.Target(AVX2_TARGET), 63, 64, 64)
    with pytest.raises(ValueError, match="K % 8"):
        ladder.microkernel_space(tvm.target.Target(AVX2_TARGET), 64, 64, 60)


@pytest.mark.slow  # compiles and times every grid candidate
def test_microkernel_grid_records_each_candidate_and_the_stage_names_its_choice(tmp_path):
    from experiments import gemm_tvm, harness

    if not _host_runs(AVX2_TARGET):
        pytest.skip("host CPU lacks AVX2+FMA")

    spec = {"experiment": "gemm_tvm", "run_id": "20260101T000000Z-quick-f6ab9f827cfd",
            "params": {"seed": 0, "warmup": 1, "repeat": 3, "min_repeat": 3, "min_sample_s": 0.001, "budget_s": 0.2,
                       "microkernel": {"grid": "small", "grid_shape": [32, 32, 32]}},
            "log_file": str(tmp_path / "log.txt"), "log_ref": "runs/x/logs/gemm_tvm.log",
            "records_file": str(tmp_path / "records.jsonl"), "artifacts_dir": str(tmp_path / "a" / "b" / "c" / "d"),
            "fingerprint": "f", "previous_records": None, "results_root": str(tmp_path)}
    h = harness.Harness(spec)
    gemm_tvm._GRID_CHOICE.clear()
    target = tvm.target.Target(AVX2_TARGET if not _host_runs(AVX512_TARGETS[1]) else AVX512_TARGETS[1])
    rec = gemm_tvm._microkernel_case(h, (33, 40, 20), 1, h.params, target, False)
    grid = rec["extra"]["grid"]
    assert len(grid) == len(ladder.microkernel_grid(target, "small")) and rec["extra"]["tiles_chosen_by"] in grid
    assert all("/impl=tvm_grid/" in case_id for case_id in grid)
    assert rec["status"] == "ok" and rec["check"]["passed"] and rec["extra"]["isa"] == ladder.target_isa(target)
    assert rec["case"]["tiles"]["nr"] == rec["extra"]["schedule_params"]["nr"]
    gemm_tvm._GRID_CHOICE.clear()
