"""Summary statistics of raw samples, shared by the harness (write) and verify (read)."""
import math

STAT_KEYS = ("min", "p50", "p95", "p99", "max", "mean", "std", "n")


def is_number(value):
    """A finite real number, not a true/false (Python counts True as 1): what every figure a record states
    must be before it is compared, divided or printed."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def is_count(value, low=0, high=None):
    """An integer (not a true/false) from low up to high (None: unbounded): a count of trials, calls, images or
    iterations."""
    return (isinstance(value, int) and not isinstance(value, bool) and (low is None or value >= low)
            and (high is None or value <= high))


def percentile(sorted_values, q):
    """Linear-interpolated percentile (NumPy's default method) of pre-sorted values."""
    if not sorted_values:
        raise ValueError("percentile of no samples")
    pos = (len(sorted_values) - 1) * q / 100.0
    lo = math.floor(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


def summarize(samples):
    """min, p50, p95, p99, max, mean, sample std and n of a list of numbers."""
    values = sorted(float(v) for v in samples)
    n = len(values)
    mean = sum(values) / n
    var = sum((v - mean) ** 2 for v in values) / (n - 1) if n > 1 else 0.0
    return {
        "min": values[0],
        "p50": percentile(values, 50),
        "p95": percentile(values, 95),
        "p99": percentile(values, 99),
        "max": values[-1],
        "mean": mean,
        "std": math.sqrt(var),
        "n": n,
    }


def same_stats(a, b, rel=1e-9):
    """True when two stats dicts agree (what the harness wrote vs a recomputation)."""
    for key in STAT_KEYS:
        x, y = a.get(key), b.get(key)
        if not isinstance(x, (int, float)) or not isinstance(y, (int, float)):
            return False
        if not math.isclose(x, y, rel_tol=rel, abs_tol=1e-15):
            return False
    return True


SIGN_TEST = "one-sided sign test over paired rounds"
SIGN_ALPHA = 0.05
"""The level the rule engines keep a searched network at: a record's own alpha is no choice of its own
(0.2 made p = 0.134 pass as "tuned, faster")."""


def faster_of(tuned_s, default_s, alpha=SIGN_ALPHA):
    """Which of two programs to keep from their paired rounds (seconds, round by round): "tuned" only
    when it won significantly more rounds than it lost -- a one-sided sign test at ``alpha`` -- and its
    median is lower; a tie or a noise-level lead keeps the default.  The rule the rule engines apply
    (experiments.e2e.nchwc_rules.faster_network) and the report checks their choice with."""
    calls = min(len(tuned_s), len(default_s))
    tuned_ms, default_ms = (percentile(sorted(t), 50) * 1e3 for t in (tuned_s, default_s))
    wins = sum(1 for t, d in zip(tuned_s, default_s) if t < d)
    # P(at least `wins` of `calls` rounds won | the two are equally fast)
    p_value = sum(math.comb(calls, k) for k in range(wins, calls + 1)) / 2 ** calls
    kept = "tuned" if p_value < alpha and tuned_ms < default_ms else "default"
    return {"tuned_ms": tuned_ms, "default_ms": default_ms, "calls": calls, "tuned_wins": wins,
            "p_value": p_value, "alpha": alpha, "test": SIGN_TEST, "kept": kept}


RESAMPLE_CELLS = 1 << 20
"""Draws one step of the bootstrap holds at once (8 MB of indices): 2000 resamples of 100 000 samples drawn
at once took 3.3 GB (reportgen.data.compare.ratio_interval)."""


def resampled_medians(rng, x, resamples):
    """The medians of ``resamples`` draws with replacement of ``x``, drawn in steps of an even number of rows
    (each step's draw count even: the generator's stream is then the one a single draw takes, so the
    intervals are those of drawing all at once)."""
    import numpy as np
    rows = max(2, RESAMPLE_CELLS // len(x) // 2 * 2)
    return np.concatenate([np.median(x[rng.integers(0, len(x), (min(rows, resamples - i), len(x)))], axis=1)
                           for i in range(0, resamples, rows)])


PAIRED_RESAMPLES = 2000


def paired_summary(paired, resamples=PAIRED_RESAMPLES, seed=0):
    """Medians of both sides of a paired timing (experiments.e2e.peer.paired_blocks: ``samples``,
    ``peer_samples``, ``block_ratios``), the median block ratio and its bootstrap 95 % interval (blocks
    resampled: each block is one paired observation).  Seeded: the report recomputes it from the
    record's own samples (reportgen.data.searchfacts)."""
    import numpy as np
    ratios = np.asarray(paired["block_ratios"], float)
    rng = np.random.default_rng(seed)
    boots = resampled_medians(rng, ratios, resamples)
    lo, hi = np.percentile(boots, [2.5, 97.5])
    return {"p50_s": float(np.median(paired["samples"])), "peer_p50_s": float(np.median(paired["peer_samples"])),
            "ratio": float(np.median(ratios)), "ratio_ci": [float(lo), float(hi)]}


def block_ratios(samples, peer_samples, calls):
    """Each block's median over the peer's median in the same block (``calls`` calls a block)."""
    import numpy as np
    return [float(np.median(samples[k:k + calls]) / np.median(peer_samples[k:k + calls]))
            for k in range(0, len(samples), calls)]
