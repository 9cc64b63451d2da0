"""The FMA peak loop checks itself: every lane ends exactly at the iteration count."""
import pytest

from study import environment
from experiments import peak


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    isas = peak.vector_isas(environment.capture()["simd_flags"])
    if not isas:
        pytest.skip("no FMA on this CPU")
    name, vec_bytes = isas[0]
    built, _argv = peak._load(tmp_path_factory.mktemp("peak"), name, vec_bytes)
    return built, vec_bytes


@pytest.mark.parametrize("dtype,symbol", [("float32", "peak_f32"), ("float64", "peak_f64")])
def test_lane_sum_is_exact_up_to_the_cap(lib, dtype, symbol):
    built, vec_bytes = lib
    iters = peak.MAX_EXACT_ITERS[dtype] if dtype == "float32" else 1 << 20
    lanes = vec_bytes // peak.ELEMENT_BYTES[dtype]
    assert getattr(built, symbol)(iters, 1.0, 1.0) == iters * built.peak_accumulators() * lanes


def test_float32_count_saturates_beyond_the_cap(lib):
    built, vec_bytes = lib
    iters = 2 ** 24 + 16
    lanes = vec_bytes // 4
    assert built.peak_f32(iters, 1.0, 1.0) < iters * built.peak_accumulators() * lanes


def test_theoretical_peak_names_its_inputs():
    env = {"cpu_mhz": {"value": 2400.0, "source": "test"}, "tvm_target": {"mcpu": "znver3"}}
    theo = peak.theoretical(env, "float32", 32, 1)
    assert theo["gflops"] == pytest.approx(2.4 * 8 * 2 * 2)
    assert "2.400 GHz" in theo["formula"] and theo["fma_pipes"] == 2
    assert peak.theoretical({"cpu_mhz": {"value": None, "source": "?"}, "tvm_target": {}}, "float32", 32, 1) is None
