"""What a record's figures say of one another: an accuracy and its agreement with the reference are counted over
the same images, so they bound each other; a first call and an operator profile's total are calls of the code the
samples time, so the samples bound them."""
from study.stats import is_number

SCORE_SLACK = 1e-9
"""The rounding by which two shares of one image count may differ beyond what they bound."""


def score_problems(extra):
    """An accuracy differs from the reference's (fp32_accuracy) on at most the images whose top-1 answers differ,
    the share 1 - top1_agree: a network that agreed with FP32's top-1 on every image was published 1.48 points
    less accurate than it, turning the INT8 accuracy goal from met to missed."""
    out = []
    for name in ("score", "agreement_set"):
        score = extra.get(name)
        if not isinstance(score, dict):
            continue
        acc, ref, agree = (score.get(k) for k in ("accuracy", "fp32_accuracy", "top1_agree"))
        if all(is_number(v) for v in (acc, ref, agree)) and abs(acc - ref) > 1 - agree + SCORE_SLACK:
            out.append(f"extra.{name}.accuracy: {acc:.6g} differs from fp32_accuracy {ref:.6g} by more than the "
                       f"share of images whose top-1 answers differ (1 - top1_agree = {1 - agree:.6g})")
    return out


COLD_FLOOR = 0.5
"""The least a first call may take, as a share of the record's fastest warm call (the committed ones: 0.71x at the
least): it runs what every warm call runs, and more.  A first call of 0.5 ms before a 15.6 ms median turned the
service page's verdict on the cheapest first call."""
PROFILE_SPAN = (1 / 3, 30.0)
"""How far an operator profile's total (one instrumented call) may lie from the record's median call (the committed
ones: 0.62x to 11.3x, a tiny network's profiling overhead the most): 1000 s beside 15 ms turned a 12 % bottleneck
into 0 % and its 'twice as fast' gain into 1.00x."""


def timing_problems(rec):
    """A record's first call and operator profile total against its own samples (COLD_FLOOR, PROFILE_SPAN): single
    measurements no run is compared with (claims.NOISY), held to the record's timings instead."""
    extra, samples = rec.get("extra") or {}, [s for s in rec.get("samples") or () if is_number(s) and s > 0]
    p50 = (rec.get("stats") or {}).get("p50") if isinstance(rec.get("stats"), dict) else None
    out = []
    cold = extra.get("cold_seconds")
    if is_number(cold) and samples and rec.get("unit") == "s" and cold < COLD_FLOOR * min(samples):
        out.append(f"extra.cold_seconds: {cold:.4g} s, under {COLD_FLOOR:g}x the fastest warm call ({min(samples):.4g} s):"
                   " a first call runs what every warm call runs")
    total = extra.get("op_profile_total_s")
    low, high = PROFILE_SPAN
    if is_number(total) and is_number(p50) and p50 > 0 and not low <= total / p50 <= high:
        out.append(f"extra.op_profile_total_s: {total:.4g} s, {total / p50:.3g}x the record's median call ({p50:.4g} s); "
                   f"an operator profile of one call lies within {low:.2g}x to {high:g}x of it")
    return out
