"""`reportgen compare RUN_A RUN_B`: per case, is B really faster or slower than A?

A verdict needs both a significant difference of the raw samples (two-sided
Mann-Whitney U, alpha = 0.01) and a minimum effect on the medians (5 %):
a significant 1 % shift is called "same", a large but insignificant one "noisy" -- unless the
test could not have rejected with so few samples whatever they were (3 against 3: the smallest
two-sided p is 0.1), which is "too_few", never "noisy".
Direction follows the metric: for time, lower is better.
"""
from dataclasses import dataclass

import numpy as np
from scipy.stats import mannwhitneyu

from study import identity, stats
from reportgen.data import load
from reportgen.errors import ReportError
from study.schema import EVIDENCE

ALPHA = 0.01
MIN_EFFECT = 0.05
LOWER_IS_BETTER = {"time_per_call": True}


@dataclass
class Row:
    id: str
    median_a: float | None
    median_b: float | None
    ratio: float | None       # B / A of medians
    p_value: float | None
    verdict: str              # better | worse | same | noisy | too_few | not_comparable


def smallest_p(n_a, n_b):
    """The smallest two-sided p the exact Mann-Whitney U test can give for ``n_a`` against
    ``n_b`` samples (complete separation, no ties): 2 / C(n_a + n_b, n_a)."""
    from math import comb
    if n_a < 1 or n_b < 1:
        return 1.0
    return min(1.0, 2.0 / comb(n_a + n_b, n_a))


def ratio_interval(samples_a, samples_b, level=0.95, resamples=2000, seed=0):
    """Bootstrap interval of median(B) / median(A): both sets resampled with replacement
    (percentile method, fixed seed: the same records give the same interval)."""
    a, b = np.asarray(samples_a, float), np.asarray(samples_b, float)
    if len(a) < 2 or len(b) < 2:
        return None
    rng = np.random.default_rng(seed)
    ma = stats.resampled_medians(rng, a, resamples)
    mb = stats.resampled_medians(rng, b, resamples)
    tail = (1 - level) / 2 * 100
    lo, hi = np.percentile(mb / ma, [tail, 100 - tail])
    return float(lo), float(hi)


def samples_verdict(samples_a, samples_b, lower_is_better=True):
    """(verdict, B/A of the medians, p) for two sets of raw samples, by the rule above.

    better/worse need both p < ALPHA (two-sided Mann-Whitney U) and a median shift of at least
    MIN_EFFECT; a smaller shift is "same", a larger but insignificant one "noisy". The
    conclusions of the write-up use the same rule (reportgen.pages.conclusions).
    """
    ma, mb = float(np.median(samples_a)), float(np.median(samples_b))
    ratio = mb / ma
    p = float(mannwhitneyu(samples_a, samples_b, alternative="two-sided").pvalue) \
        if len(samples_a) > 1 and len(samples_b) > 1 else 1.0
    if abs(ratio - 1) < MIN_EFFECT:
        return "same", ratio, p
    if smallest_p(len(samples_a), len(samples_b)) >= ALPHA:   # the test cannot reject: say so
        return "too_few", ratio, p
    if p >= ALPHA:
        return "noisy", ratio, p
    improved = ratio < 1 if lower_is_better else ratio > 1
    return ("better" if improved else "worse"), ratio, p


def _verdict(a, b, metric):
    if a["status"] != "ok" or b["status"] != "ok":
        return Row(a["id"], None, None, None, None, "not_comparable")
    verdict, _ratio, p = samples_verdict(a["samples"], b["samples"], LOWER_IS_BETTER.get(metric, True))
    ma, mb = a["stats"]["p50"], b["stats"]["p50"]
    return Row(a["id"], ma, mb, mb / ma, p, verdict)


def compare_runs(run_a, run_b):
    """Rows for every case measured in both runs (by stable id)."""
    timed = [r for r in run_a.records if r["metric"] != EVIDENCE]   # evidence has no samples to compare
    a = {r["id"]: r for r in timed}
    b = {r["id"]: r for r in run_b.records if r["metric"] != EVIDENCE}
    return [_verdict(a[k], b[k], a[k]["metric"]) for k in sorted(set(a) & set(b))]


def environment_differences(run_a, run_b, keys=("machine_id", "cpu_model", "logical_cores", "simd_flags",
                                                "numpy_version", "tvm_version", "llvm_version", "blas")):
    """(key, A's value, B's value) for each environment key that differs (another machine first:
    a device measured through RPC may share the CPU model and still not be this machine)."""
    ea, eb = run_a.manifest["environment"], run_b.manifest["environment"]
    # the machine id is recomputed from the hardware, so runs stamped by an older rule still match
    ea, eb = dict(ea, machine_id=identity.machine_id(ea)), dict(eb, machine_id=identity.machine_id(eb))
    return [(k, ea.get(k), eb.get(k)) for k in keys if ea.get(k) != eb.get(k)]


def compare(root, run_a_id, run_b_id):
    runs = {r.run_id: r for r in load.read_runs(root / "results")}
    missing = [r for r in (run_a_id, run_b_id) if r not in runs]
    if missing:
        raise ReportError(f"compare: unknown run {', '.join(missing)}", hint="known: " + ", ".join(runs))
    run_a, run_b = runs[run_a_id], runs[run_b_id]
    lines = []
    for key, va, vb in environment_differences(run_a, run_b):
        lines.append(f"environment differs: {key}: {va} -> {vb} (figures may not be comparable)")
    rows = compare_runs(run_a, run_b)
    if not rows:
        raise ReportError(f"compare: {run_a_id} and {run_b_id} share no case id")
    lines.append(f"{'case':70} {'A p50':>11} {'B p50':>11} {'B/A':>7} {'p':>8}  verdict")
    for row in rows:
        if row.verdict == "not_comparable":
            lines.append(f"{row.id:70} {'':>11} {'':>11} {'':>7} {'':>8}  not comparable (a side failed)")
            continue
        lines.append(f"{row.id:70} {row.median_a:11.4g} {row.median_b:11.4g} {row.ratio:7.3f} "
                     f"{row.p_value:8.2g}  {row.verdict}")
    return "\n".join(lines)
