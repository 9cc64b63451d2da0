"""Summary statistics of raw samples, shared by the harness (write) and verify (read)."""
import math

STAT_KEYS = ("min", "p50", "p95", "p99", "max", "mean", "std", "n")


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
