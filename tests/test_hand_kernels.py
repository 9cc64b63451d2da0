"""Correctness tests for the hand-optimised GEMM ladder (no timing asserts)."""

import importlib.util
import re
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

from reportgen.data.words import W_for

_HAND_PY = Path(__file__).resolve().parents[1] / "experiments" / "gemm" / "hand.py"
_spec = importlib.util.spec_from_file_location("gemm_hand", _HAND_PY)
hand = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = hand   # dataclasses resolve annotations via sys.modules
_spec.loader.exec_module(hand)

NAMES = [row["name"] for row in hand.LADDER]
# (m, n, k): square, odd/ragged, degenerate, and non-square crossing the
# MC=128 / KC=256 cache blocks of the blocked rows.
SHAPES = [(64, 64, 64), (127, 255, 33), (1, 1, 1), (150, 70, 300)]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    return hand.build(tmp_path_factory.mktemp("hand_build"))


def _require(built, name):
    if name not in built.available:
        pytest.skip(f"{name}: {built.skipped[name]}")


def test_every_kernel_has_its_words():
    """The page says what each kernel optimizes from the words filed under its name."""
    for name in NAMES:
        assert W_for("gemm.hand_ladder.optimizations", name)


def test_every_row_is_built_or_skipped_with_reason(built):
    assert sorted(built.available + list(built.skipped)) == sorted(NAMES)
    assert all(built.skipped.values())
    assert built.available == [n for n in NAMES if n in built.available]
    assert built.so_path.exists() and built.compiler


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("name", NAMES)
def test_kernel_matches_numpy(built, name, shape):
    _require(built, name)
    result = hand.check(built, name, *shape, seed=sum(shape))
    assert result["passed"], result


@pytest.mark.parametrize("name", NAMES)
def test_fortran_order_inputs(built, name):
    _require(built, name)
    rng = np.random.default_rng(0)
    a, b, c = (np.asfortranarray(rng.standard_normal(s)) for s in ((9, 13), (13, 7), (9, 7)))
    expected = c + a @ b
    hand.run(built, name, a, b, c)
    np.testing.assert_allclose(c, expected, rtol=1e-12, atol=1e-12)


def _bad_inputs():
    ok = lambda *s: np.zeros(s)
    return {
        "float32": (ok(4, 4).astype(np.float32), ok(4, 4), ok(4, 4)),
        "shape": (ok(4, 5), ok(4, 4), ok(4, 4)),
        "non_contiguous": (ok(4, 8)[:, ::2], ok(4, 4), ok(4, 4)),
        "mixed_order": (ok(4, 4), np.asfortranarray(ok(4, 4)), ok(4, 4)),
        "list": ([[1.0]], ok(1, 1), ok(1, 1)),
    }


@pytest.mark.parametrize("case", list(_bad_inputs()))
def test_bad_inputs_raise_value_error(built, case):
    a, b, c = _bad_inputs()[case]
    with pytest.raises(ValueError):
        hand.run(built, "MMult0", a, b, c)


def test_wrong_dtype_message(built):
    a = np.zeros((2, 2), dtype=np.float32)
    with pytest.raises(ValueError, match="float64"):
        hand.run(built, "MMult0", a, np.zeros((2, 2)), np.zeros((2, 2)))


def test_missing_cpu_flags_skip_cleanly(tmp_path):
    b = hand.build(tmp_path, cpu_flags_override={"sse2"})
    assert b.available == NAMES[:6]
    assert "avx512f" in b.skipped["MMult_16x8_avx512"]
    assert "fma" in b.skipped["MMult_4x4_15_1"]
    with pytest.raises(ValueError, match="not available"):
        hand.run(b, "MMult_8x6_avx2", np.zeros((1, 1)), np.zeros((1, 1)), np.zeros((1, 1)))


def _expected_fma_width(requires):
    if "avx512f" in requires:
        return "zmm"
    if "avx2" in requires:
        return "ymm"
    return "xmm" if "fma" in requires else None


@pytest.mark.skipif(shutil.which("objdump") is None, reason="objdump not installed")
@pytest.mark.parametrize("row", hand.LADDER, ids=lambda r: r["name"])
def test_machine_code_matches_ladder_step(built, row):
    """SIMD rows use vector FMA of their width; scalar rows stay scalar."""
    _require(built, row["name"])
    asm = hand.disassemble(built, row["name"])
    counts = hand.count_vector_fma(asm)
    width = _expected_fma_width(row["requires"])
    if width is None:
        assert sum(counts.values()) == 0, counts
    else:
        assert counts[width] > 0, counts
    if not row["requires"]:   # naive rows: no packed arithmetic at all
        assert not re.search(r"\bv?(mul|add)pd\b", asm)
