"""The noise rule's outcomes (reportgen.data.compare.samples_verdict): a test that cannot reject
by construction says so ("too_few"), and only a decidable test says "noisy"."""
import pytest

from reportgen.data import compare


@pytest.mark.parametrize("n_a,n_b,expected", [(3, 3, 0.1), (5, 5, 2 / 252), (4, 5, 2 / 126), (1, 9, 0.2)])
def test_smallest_p_is_complete_separation(n_a, n_b, expected):
    assert compare.smallest_p(n_a, n_b) == pytest.approx(expected)


def test_three_against_three_cannot_decide_even_when_apart():
    slow, fast = [1.34, 1.35, 1.36], [1.00, 1.01, 1.02]   # 34 % apart, samples do not overlap
    verdict, ratio, p = compare.samples_verdict(fast, slow)
    assert verdict == "too_few" and p == pytest.approx(0.1) and ratio > 1.3


def test_five_against_five_can_decide():
    slow, fast = [1.34, 1.35, 1.36, 1.37, 1.38], [1.00, 1.01, 1.02, 1.03, 1.04]
    assert compare.samples_verdict(fast, slow)[0] == "worse"
    assert compare.samples_verdict(slow, fast)[0] == "better"


def test_overlapping_samples_with_enough_of_them_are_noisy_not_too_few():
    a = [1.0, 1.5, 1.1, 1.6, 1.2, 1.4, 1.05, 1.55]
    b = [1.1, 1.6, 1.2, 1.7, 1.3, 1.5, 1.15, 1.65]
    assert compare.smallest_p(len(a), len(b)) < compare.ALPHA
    assert compare.samples_verdict(a, b)[0] == "noisy"


def test_a_small_shift_is_same_whatever_the_count():
    assert compare.samples_verdict([1.0, 1.0, 1.0], [1.01, 1.01, 1.01])[0] == "same"


def test_ratio_interval_brackets_the_ratio_and_narrows_with_samples():
    import numpy as np
    rng = np.random.default_rng(1)
    a, b = 1.0 + 0.05 * rng.random(200), 1.2 + 0.05 * rng.random(200)
    lo, hi = compare.ratio_interval(a, b)
    assert lo < np.median(b) / np.median(a) < hi and hi - lo < 0.05
    lo3, hi3 = compare.ratio_interval(a[:5], b[:5])
    assert hi3 - lo3 > hi - lo
    assert compare.ratio_interval([1.0], [1.0, 2.0]) is None
