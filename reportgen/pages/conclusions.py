"""The historical conclusions of the seed, each judged against the current records (seed §34).

A conclusion is the original's claim in our words (its figures quoted from archive/), and a
judge that reads the current records and returns an Evidence: a verdict, the comparison it
used, the observation in figures, an explanation and a recommendation. The verdict is
computed, so a retest that flips a result flips the verdict and the sentences with it.

Three outcomes, one noise rule. Supports and contradicts need a real
difference: two timings differ only when the two-sided Mann-Whitney U test of their raw
samples is significant at compare.ALPHA and their medians differ by at least
compare.MIN_EFFECT (reportgen.data.compare.samples_verdict); a claim judged against a threshold
("below half", "within 2x") is decided only when the value is more than MIN_EFFECT away from
the threshold. Anything else -- or no comparable records -- is undecided (pending when
nothing was measured). The words of every verdict and sentence are in docs/words/conclusions.yaml.
Comparisons are like for like: the same machine, run setup and, for §31, tuned FP32 against
tuned INT8; "NumPy near peak" uses the peak of the ISA NumPy's BLAS kernel actually ran.
"""
import re
from dataclasses import dataclass

from reportgen.data import claims, compare, merge
from study import identity, work
from reportgen.pages import service
from reportgen.render.cells import text as _esc
from reportgen.data.queries import TVM_ENGINES, e2e, e2e_models, gemm, ok
from reportgen.render.labels import engine_zh, model_zh
from reportgen.render.lookup import fig, gflops, hist, ms, percent, times
from reportgen.render.figures import rests_on_jump
from reportgen.data.words import W

_FIGURE = re.compile(r"\{(\w+/\w+/\w+)\}")
SUPPORTS, CONTRADICTS, UNDECIDED, PENDING = "supports", "contradicts", "undecided", "pending"
VERDICT_ZH = {SUPPORTS: W("conclusions.verdict_zh.supports"), CONTRADICTS: W("conclusions.verdict_zh.contradicts"),
              UNDECIDED: W("conclusions.verdict_zh.undecided"), PENDING: W("conclusions.verdict_zh.pending")}
NOT_MEASURED = W("conclusions.not_measured")
NOISE_RULE = (W("conclusions.noise_rule", alpha=compare.ALPHA, min_effect=compare.MIN_EFFECT))


def differ(a, b):
    """compare.samples_verdict on two current records (A first): (better/worse/same/noisy/too_few,
    B/A, p, (samples of A, samples of B))."""
    return (*compare.samples_verdict(a.record["samples"], b.record["samples"]),
            (len(a.record["samples"]), len(b.record["samples"])))


def _diff_text(label_a, label_b, result):
    verdict, ratio, p = result[:3]
    word = {"better": W("conclusions.diff_text.better", label_b=label_b), "worse": W("conclusions.diff_text.worse", label_b=label_b), "same": W("conclusions.diff_text.same"),
            "noisy": W("conclusions.diff_text.noisy"),
            "too_few": W("conclusions.diff_text.too_few", pmin=compare.smallest_p(*result[3]) if len(result) > 3 else 1.0)}[verdict]
    return W("conclusions.diff_text.text", label_b=label_b, label_a=label_a, ratio=ratio, p=p, word=word)


def _near(value, limit):
    """True when a value is within the minimum effect of a threshold: too close to call."""
    return abs(value / limit - 1) < compare.MIN_EFFECT


@dataclass
class Evidence:
    verdict: str
    observation: str
    explanation: str = ""
    recommendation: str = ""
    comparison: str = ""      # what was compared with what, under which rule


@dataclass
class Context:
    book: object
    current: dict
    env: dict
    tables: dict
    previous: dict = None   # current records as they were before the newest run, if known

    def quote(self, claim):
        """The claim with each {table/row/column} replaced by that archived figure, as printed."""
        return _FIGURE.sub(lambda m: hist(self.book, self.tables, *m.group(1).split("/")) or W("conclusions.quote.archive_missing"), claim)


def _pending(what=NOT_MEASURED):
    return Evidence(PENDING, what, "", W("conclusions.pending.recommendation"), W("conclusions.pending.comparison"))


def _undecided(obs, comparison, why=W("conclusions.undecided.explanation")):
    return Evidence(UNDECIDED, obs, why, W("conclusions.undecided.recommendation"), comparison)


# --- judges: one per historical conclusion ---------------------------------------------------

def _interval(base, other):
    """The bootstrap 95 % interval of p50(other) / p50(base) as words after the ratio ('' when the
    samples are too few for one)."""
    ci = compare.ratio_interval(base.record["samples"], other.record["samples"])
    return W("conclusions.tvm_vs_tf.interval", lo=ci[0], hi=ci[1]) if ci else ""


def _tvm_vs_tf(c):
    rows, faster, slower, untuned, tests = [], 0, 0, 0, []
    for model in e2e_models(c.current):
        tf = e2e(c.current, model, "tf")
        # the best TVM of the run: every group B-D variant, the rule library's included
        tvms = [t for t in (e2e(c.current, model, e, like=tf) for e in TVM_ENGINES) if ok(t)] if ok(tf) else []
        if not ok(tf) or not tvms:
            continue
        best = merge.fastest(tvms)
        ratio = best.stat("p50") / tf.stat("p50")
        result = differ(tf, best)
        faster += result[0] == "better"
        slower += result[0] == "worse"
        tests.append(W("conclusions.tvm_vs_tf.model_prefix", model_zh=model_zh(model)) + _diff_text("TensorFlow", W("conclusions.tvm_vs_tf.label_b"), result))
        untuned += not best.record["extra"].get("tuned")
        word = W("conclusions.tvm_vs_tf.faster") if ratio < 1 else W("conclusions.tvm_vs_tf.slower")
        rows.append(W("conclusions.tvm_vs_tf.row", model_zh=model_zh(model), engine_zh=engine_zh(best.record['case']['engine']), tvm_ms=ms(c.book, best), tf_ms=ms(c.book, tf), times=times(c.book, best, 'best_tvm_over_tf', ratio, tf), interval=_interval(tf, best), word=word))
    if not rows:
        return _pending()
    comparison = W("conclusions.tvm_vs_tf.comparison") + W("common.punct.semicolon").join(tests)
    if slower == 0 and faster < len(rows):
        return _undecided(W("common.punct.semicolon").join(rows) + W("common.punct.period"), comparison)
    verdict = SUPPORTS if slower == 0 else CONTRADICTS
    if untuned == len(rows):
        why = W("conclusions.tvm_vs_tf.why_untuned")
    else:
        why = W("conclusions.tvm_vs_tf.why_partly_tuned")
    if verdict == SUPPORTS:
        why = W("conclusions.tvm_vs_tf.why_holds")
    rec = (W("conclusions.tvm_vs_tf.recommendation_refuted")
           if verdict != SUPPORTS else W("conclusions.tvm_vs_tf.recommendation_holds"))
    return Evidence(verdict, W("common.punct.semicolon").join(rows) + W("common.punct.period"), why, rec, comparison)


def _outputs_agree(c):
    recs = [x for m in e2e_models(c.current) for x in (e2e(c.current, m, e) for e in ("tvm_b", "tvm_c", "tvm_d"))
            if x is not None and x.record["check"].get("passed") is not None]
    if not recs:
        return _pending()
    worst = max(recs, key=lambda x: x.record["check"].get("max_rel_err") or 0)
    low = min(recs, key=lambda x: x.record["extra"].get("agreement", {}).get("top1_agree", 0))
    top1 = low.record["extra"].get("agreement", {}).get("top1_agree", 0)
    passed = sum(bool(x.record["check"]["passed"]) for x in recs)
    err = f"{worst.record['check']['max_rel_err']:.1e}"
    obs = (W("conclusions.outputs_agree.obs", recs=len(recs), passed=passed, model_zh=model_zh(worst.record['case']['model']), engine_zh=engine_zh(worst.record['case']['engine']), max_rel_err=fig(c.book, worst, 'max_rel_err', err, 'rel'), top1_agree=fig(c.book, low, 'top1_agree', f'{top1:.2f}', 'ratio')))
    comparison = W("conclusions.outputs_agree.comparison")
    if passed == len(recs) and top1 == 1:
        return Evidence(SUPPORTS, obs, W("conclusions.outputs_agree.explanation"),
                        W("conclusions.outputs_agree.recommendation"), comparison)
    return Evidence(CONTRADICTS, obs, W("conclusions.outputs_agree.explanation_refuted"),
                    W("conclusions.outputs_agree.recommendation_refuted"), comparison)


def _batching(c):
    best = service.best_batching(c.current)
    if best is None:
        return _pending(W("conclusions.batching.what"))
    gain, x, one, b = best
    slower = x.stat("p50") / one.stat("p50")
    obs = (W("conclusions.batching.obs", model_zh=model_zh(x.record['case']['model']), engine_zh=engine_zh(x.record['case']['engine']), b=b, throughput_times=times(c.book, x, 'throughput_gain', gain, one), latency_times=times(c.book, x, 'call_latency_over_b1', slower, one)))
    per_image = compare.samples_verdict(one.record["samples"], [t / b for t in x.record["samples"]])
    per_call = differ(one, x)
    comparison = (W("conclusions.batching.comparison", b=b)
                  + _diff_text("batch 1", W("conclusions.batching.label_per_image", b=b), per_image) + W("common.punct.semicolon")
                  + _diff_text("batch 1", W("conclusions.batching.label_per_call", b=b), per_call))
    if per_image[0] == "better" and per_call[0] == "worse":
        return Evidence(SUPPORTS, obs, W("conclusions.batching.explanation"),
                        W("conclusions.batching.recommendation"), comparison)
    if per_image[0] == "worse" or per_call[0] == "better":
        return Evidence(CONTRADICTS, obs, W("conclusions.batching.explanation_refuted"), W("conclusions.batching.recommendation_refuted"),
                        comparison)
    return _undecided(obs, comparison)


def _numpy_best(c, dtype, threads):
    """Per size, NumPy's faster BLAS environment (pinning variables unset, or as configured)."""
    by_n = {}
    for x in merge.family(c.current, "numpy_gemm").values():
        case = x.record["case"]
        if x.ok and case["dtype"] == dtype and case["threads"] == threads:
            by_n.setdefault(case["n"], []).append(x)
    return [merge.fastest(found) for found in by_n.values()]


def _small_matrix(c):
    fam = sorted(_numpy_best(c, "float32", 1), key=lambda x: x.record["case"]["n"])
    if len(fam) < 2:
        return _pending()
    small, big = fam[0], merge.fastest(fam, key=lambda x: -x.gflops())
    share = small.gflops() / big.gflops()
    obs = (W("conclusions.small_matrix.obs", n=small.record['case']['n'], gflops=gflops(c.book, small), best_n=big.record['case']['n'], best_gflops=gflops(c.book, big), percent=percent(c.book, small, 'share_of_best_n', share, big)))
    comparison = (W("conclusions.small_matrix.comparison")
                  + _diff_text(W("conclusions.small_matrix.label_a", n=big.record['case']['n']), W("conclusions.small_matrix.label_a", n=small.record['case']['n']),
                               compare.samples_verdict([t / work.flops_per_call(big.record) for t in big.record["samples"]],
                                                       [t / work.flops_per_call(small.record) for t in small.record["samples"]])))
    if _near(share, 0.5):
        return _undecided(obs, comparison)
    verdict = SUPPORTS if share < 0.5 else CONTRADICTS
    why = (W("conclusions.small_matrix.why_holds") if verdict == SUPPORTS
           else W("conclusions.small_matrix.why_refuted"))
    return Evidence(verdict, obs, why, W("conclusions.small_matrix.recommendation"), comparison)


def _one_and_all_cores(c):
    """FP32 NumPy (best kernel) by n on one core and on all cores, and the sizes both have."""
    cores = c.env["logical_cores"] if c.env else None
    one = {x.record["case"]["n"]: x for x in _numpy_best(c, "float32", 1)}
    many = {x.record["case"]["n"]: x for x in _numpy_best(c, "float32", cores)} if cores and cores > 1 else {}
    return cores, one, many, sorted(set(one) & set(many))


def _multicore(c):
    cores, one, many, common = _one_and_all_cores(c)
    if not common:
        return _pending(W("conclusions.multicore.what"))
    n = common[-1]
    speedup = one[n].stat("p50") / many[n].stat("p50")
    eff = speedup / cores
    obs = (W("conclusions.multicore.obs", n=n, cores=cores, times=times(c.book, many[n], 'speedup_vs_1t', speedup, one[n]), percent=percent(c.book, many[n], 'parallel_efficiency', eff, one[n])))
    comparison = (W("conclusions.multicore.comparison", n=n, cores=cores) + _diff_text(W("conclusions.multicore.label_a"), W("conclusions.multicore.label_b", cores=cores), differ(one[n], many[n])))
    if _near(eff, 1.0):
        return _undecided(obs, comparison, W("conclusions.multicore.why", cores=cores))
    verdict = SUPPORTS if eff < 1.0 else CONTRADICTS
    why = (W("conclusions.multicore.why_holds") if verdict == SUPPORTS
           else W("conclusions.multicore.why_refuted"))
    return Evidence(verdict, obs, why, W("conclusions.multicore.recommendation"), comparison)


def _small_single_thread(c):
    cores, one, many, common = _one_and_all_cores(c)
    if not common:
        return _pending(W("conclusions.multicore.what"))
    n = common[0]
    ratio = many[n].stat("p50") / one[n].stat("p50")
    obs = (W("conclusions.small_single_thread.obs", n=n, single_ms=ms(c.book, one[n]), cores=cores, multi_ms=ms(c.book, many[n]), times=times(c.book, many[n], 'time_vs_1t', ratio, one[n])))
    result = differ(one[n], many[n])
    comparison = W("conclusions.small_single_thread.comparison", n=n, cores=cores) + _diff_text(W("conclusions.multicore.label_a"), W("conclusions.multicore.label_b", cores=cores), result)
    if result[0] == "worse":
        return Evidence(SUPPORTS, obs, W("conclusions.small_single_thread.explanation"),
                        W("conclusions.small_single_thread.recommendation"), comparison)
    if result[0] == "better":
        return Evidence(CONTRADICTS, obs, W("conclusions.small_single_thread.explanation_refuted"),
                        W("conclusions.small_single_thread.recommendation_refuted"), comparison)
    return _undecided(obs, comparison, W("conclusions.small_single_thread.why"))


def _hand_gain(c):
    fam = merge.family(c.current, "gemm_hand")
    first = [x for x in fam.values() if x.record["case"]["kernel"] == "MMult0" and x.ok]
    last = [x for x in fam.values() if x.record["case"]["kernel"] == "MMult_4x4_15_1" and x.ok]
    sizes = sorted({x.record["case"]["n"] for x in first} & {x.record["case"]["n"] for x in last})
    if not sizes:
        return _pending()
    n = sizes[-1]
    a = next(x for x in first if x.record["case"]["n"] == n)
    b = next(x for x in last if x.record["case"]["n"] == n)
    ratio = b.gflops() / a.gflops()
    obs = (W("conclusions.hand_gain.obs", n=n, mmult0_gflops=gflops(c.book, a), last_gflops=gflops(c.book, b), times=times(c.book, b, 'speed_vs_mmult0', ratio, a)))
    comparison = (W("conclusions.hand_gain.comparison", n=n)
                  + _diff_text("MMult0", "MMult_4x4_15_1", differ(a, b)))
    if _near(ratio, 5):
        return _undecided(obs, comparison)
    verdict = SUPPORTS if ratio >= 5 else CONTRADICTS
    why = (W("conclusions.hand_gain.why_holds")
           if verdict == SUPPORTS else W("conclusions.hand_gain.why_refuted"))
    return Evidence(verdict, obs, why, W("conclusions.hand_gain.recommendation"), comparison)


def _ladder_monotonic(c):
    order = [r["key"] for r in c.tables["s22_hand_ladder"].rows] if "s22_hand_ladder" in c.tables else []
    fam = merge.family(c.current, "gemm_hand")
    sizes = sorted({x.record["case"]["n"] for x in fam.values()})
    if not order or not sizes:
        return _pending()
    n = sizes[-1]
    by = {x.record["case"]["kernel"]: x for x in fam.values() if x.record["case"]["n"] == n and x.ok}
    steps = [k for k in order if k in by]
    if len(steps) < 2:
        return _pending()
    results = {(a, b): differ(by[a], by[b]) for a, b in zip(steps, steps[1:])}
    drops = [pair for pair, r in results.items() if r[0] == "worse"]
    gains = [pair for pair, r in results.items() if r[0] == "better"]
    comparison = (W("conclusions.ladder_monotonic.comparison", n=n, gains=len(gains), drops=len(drops), results=len(results) - len(gains) - len(drops)))
    if drops:
        a, b = drops[0]
        obs = (W("conclusions.ladder_monotonic.obs", n=n, steps=len(steps) - 1, drops=len(drops), a=a, b=b, a_gflops=gflops(c.book, by[a]), b_gflops=gflops(c.book, by[b])))
        return Evidence(SUPPORTS, obs, W("conclusions.ladder_monotonic.explanation"),
                        W("conclusions.ladder_monotonic.recommendation"), comparison)
    if len(gains) < len(results):
        return _undecided(W("conclusions.ladder_monotonic.obs_undecided", n=n, steps=len(steps) - 1),
                          comparison)
    obs = W("conclusions.ladder_monotonic.obs_all_faster", n=n, steps=len(steps) - 1)
    return Evidence(CONTRADICTS, obs, W("conclusions.ladder_monotonic.explanation_refuted"),
                    W("conclusions.ladder_monotonic.recommendation_refuted"), comparison)


def _stage(c, stage):
    return gemm(c.current, stage, env=c.env)


def _blocking_limited(c):
    base, block, perm = _stage(c, "baseline"), _stage(c, "blocking"), _stage(c, "loop_permutation")
    vec = _stage(c, "vectorization")
    if not all(ok(x) for x in (base, block, perm)):
        return _pending()
    first = base.stat("p50") / block.stat("p50")
    later = block.stat("p50") / perm.stat("p50")
    obs = (W("conclusions.blocking_limited.obs", blocking_times=times(c.book, block, 'speed_vs_previous_stage', first, base), permutation_times=times(c.book, perm, 'speed_vs_blocking', later, block)))
    if ok(vec):
        step = block.stat("p50") / vec.stat("p50")
        obs += W("conclusions.blocking_limited.obs_vectorization", times=times(c.book, vec, 'speed_vs_previous_stage', step, block))
    obs += W("conclusions.blocking_limited.obs_close")
    tests = (differ(base, block), differ(block, perm))
    comparison = (W("conclusions.blocking_limited.comparison") + _diff_text("baseline", "blocking", tests[0])
                  + W("common.punct.semicolon") + _diff_text("blocking", "loop permutation", tests[1]))
    # the verdict compares the two steps' gains: only when each step is itself established
    if _near(first, later) or any(t[0] == "too_few" for t in tests):
        return _undecided(obs, comparison)
    if first < later:
        return Evidence(SUPPORTS, obs, W("conclusions.blocking_limited.explanation"),
                        W("conclusions.blocking_limited.recommendation"), comparison)
    # Why blocking gained the most: read from the blocking stage's own assembly, not assumed.
    packed = {reg: n for reg, n in ((claims.compiled(block.record, "codegen") or {}).get("fma_packed") or {}).items() if n}
    explanation = (W("conclusions.blocking_limited.explanation_auto_vectorized", fma=sum(packed.values()),
                     registers=W("common.punct.enumeration_comma").join(sorted(packed)))
                   if packed else W("conclusions.blocking_limited.explanation_locality"))
    return Evidence(CONTRADICTS, obs, explanation, W("conclusions.blocking_limited.recommendation_refuted"), comparison)


def _parallel_near_numpy(c):
    par = _stage(c, "parallel")
    npy = gemm(c.current, "any", env=c.env, impl="numpy", blas="best")
    if not (ok(par) and ok(npy)):
        return _pending()
    ratio = par.stat("p50") / npy.stat("p50")
    obs = (W("conclusions.parallel_near_numpy.obs", parallel_ms=ms(c.book, par), numpy_ms=ms(c.book, npy), times=times(c.book, par, 'over_best_numpy', ratio, npy)))
    comparison = (W("conclusions.parallel_near_numpy.comparison")
                  + _diff_text("NumPy", "TVM parallel", differ(npy, par)))
    if _near(ratio, 2):
        return _undecided(obs, comparison)
    verdict = SUPPORTS if ratio <= 2 else CONTRADICTS
    why = (W("conclusions.parallel_near_numpy.why_holds") if verdict == SUPPORTS
           else W("conclusions.parallel_near_numpy.why_refuted"))
    return Evidence(verdict, obs, why, W("conclusions.parallel_near_numpy.recommendation"), comparison)


def _autotune_beats_hand(c):
    tuned, par = _stage(c, "autotuned"), _stage(c, "parallel")
    if not (ok(tuned) and ok(par)):
        return _pending()
    ratio = tuned.stat("p50") / par.stat("p50")
    trials = tuned.record["extra"].get("trials_done")
    obs = (W("conclusions.autotune_beats_hand.obs", fig=fig(c.book, tuned, 'trials', str(trials), 'trials'), tuned_ms=ms(c.book, tuned), hand_ms=ms(c.book, par), times=times(c.book, tuned, 'ratio_to_parallel', ratio, par)))
    result = differ(par, tuned)
    comparison = W("conclusions.autotune_beats_hand.comparison") + _diff_text(W("conclusions.autotune_beats_hand.label_a"), "MetaSchedule", result)
    if result[0] == "better":
        return Evidence(SUPPORTS, obs, W("conclusions.autotune_beats_hand.explanation"),
                        W("conclusions.autotune_beats_hand.recommendation"), comparison)
    if result[0] == "worse":
        return Evidence(CONTRADICTS, obs,
                        W("conclusions.autotune_beats_hand.explanation_refuted"),
                        W("conclusions.autotune_beats_hand.recommendation_refuted"), comparison)
    return _undecided(obs, comparison)


def _fusion(c):
    steps = [x for x in merge.family(c.current, "graph").values()
             if x.record["case"].get("model") == "resnet18" and x.record["case"].get("pipeline") == "decompose"]
    by = {x.record["case"]["pass"]: x for x in steps}
    before, after = by.get("AnnotateTIROpPattern"), by.get("FuseTIR")
    if not (ok(before) and ok(after)):
        return _pending()
    b, a = before.record["extra"]["stats"], after.record["extra"]["stats"]
    lat = after.stat("p50") / before.stat("p50")
    bytes_b, bytes_a = f"{b['intermediate_bytes']:,}", f"{a['intermediate_bytes']:,}"
    obs = (W("conclusions.fusion.obs", before_bytes=fig(c.book, before, 'intermediate_bytes', bytes_b, 'B'), after_bytes=fig(c.book, after, 'intermediate_bytes', bytes_a, 'B'), times=times(c.book, after, 'latency_vs_unfused', lat, before)))
    fewer = a["intermediate_bytes"] < b["intermediate_bytes"]
    result = differ(before, after)
    comparison = (W("conclusions.fusion.comparison") + _diff_text(W("conclusions.fusion.label_a"), W("conclusions.fusion.label_b"), result))
    verdict = SUPPORTS if fewer else CONTRADICTS
    why = (W("conclusions.fusion.why_fewer_and_faster") if fewer and result[0] == "better" else
           W("conclusions.fusion.why_fewer_not_faster") if fewer
           else W("conclusions.fusion.why_not_fewer"))
    return Evidence(verdict, obs, why, W("conclusions.fusion.recommendation"), comparison)


def _int8_needs_tuning(c):
    models = sorted({x.record["case"]["model"] for x in merge.family(c.current, "int8").values()
                     if x.record["case"].get("engine") == "tvm_int8"})
    rows, alone, paired, tests = [], [], [], []
    for model in models:
        fp32 = e2e(c.current, model, "tvm_fp32", family="int8")
        if not ok(fp32):
            continue
        int8 = e2e(c.current, model, "tvm_int8", like=fp32, family="int8")
        if not ok(int8):
            continue
        fp32_t, int8_t = (e2e(c.current, model, e, like=fp32, family="int8") for e in ("tvm_fp32_tuned", "tvm_int8_tuned"))
        result = differ(fp32, int8)
        alone.append(result[0])
        tests.append(W("conclusions.int8_needs_tuning.untuned_prefix", model_zh=model_zh(model)) + _diff_text("FP32", "INT8", result))
        text = (W("conclusions.int8_needs_tuning.row", model_zh=model_zh(model), fp32_ms=ms(c.book, fp32), int8_ms=ms(c.book, int8), times=times(c.book, int8, 'int8_over_fp32', int8.stat('p50') / fp32.stat('p50'), fp32)))
        if ok(int8_t):
            text += W("conclusions.int8_needs_tuning.int8_tuned_part", ms=ms(c.book, int8_t))
        if ok(int8_t) and ok(fp32_t):
            tuned = differ(fp32_t, int8_t)
            paired.append(tuned[0])
            tests.append(W("conclusions.int8_needs_tuning.tuned_prefix", model_zh=model_zh(model)) + _diff_text(W("conclusions.int8_needs_tuning.label_a"), W("conclusions.int8_needs_tuning.label_b"), tuned))
            text += (W("conclusions.int8_needs_tuning.fp32_tuned_part", ms=ms(c.book, fp32_t), times=times(c.book, int8_t, 'int8_tuned_over_fp32_tuned', int8_t.stat('p50') / fp32_t.stat('p50'), fp32_t)))
        rows.append(text)
    if not rows:
        return _pending(W("conclusions.int8_needs_tuning.what"))
    obs = W("common.punct.semicolon").join(rows) + W("common.punct.period")
    comparison = (W("conclusions.int8_needs_tuning.comparison") + W("common.punct.semicolon").join(tests))
    if "better" in alone or "worse" in paired:
        # whether the CPU has an integer dot-product instruction is the machine's fact, not assumed
        vnni = "vnni" in identity.isa_level(c.env or {})
        why = (W("conclusions.int8_needs_tuning.why_int8_faster_alone") if "better" in alone
               else W("conclusions.int8_needs_tuning.why_int8_slower_tuned_vnni") if vnni else W("conclusions.int8_needs_tuning.why_int8_slower_tuned"))
        advice = (W("conclusions.int8_needs_tuning.recommendation_vnni") if vnni
                  else W("conclusions.int8_needs_tuning.recommendation"))
        return Evidence(CONTRADICTS, obs, why, advice, comparison)
    if alone and all(r == "worse" for r in alone) and paired and all(r == "better" for r in paired):
        return Evidence(SUPPORTS, obs, W("conclusions.int8_needs_tuning.explanation"),
                        W("conclusions.int8_needs_tuning.recommendation_holds"), comparison)
    return _undecided(obs, comparison, W("conclusions.int8_needs_tuning.why"))


def _fallback_slow(c):
    base, tuned = _stage(c, "baseline"), _stage(c, "autotuned")
    if not (ok(base) and ok(tuned)):
        return _pending()
    ratio = base.stat("p50") / tuned.stat("p50")
    obs = (W("conclusions.fallback_slow.obs", default_ms=ms(c.book, base), tuned_ms=ms(c.book, tuned), times=times(c.book, base, 'default_over_tuned', ratio, tuned)))
    comparison = (W("conclusions.fallback_slow.comparison")
                  + _diff_text(W("conclusions.fallback_slow.label_a"), W("conclusions.fallback_slow.label_b"), differ(tuned, base)))
    if _near(ratio, 2):
        return _undecided(obs, comparison)
    verdict = SUPPORTS if ratio > 2 else CONTRADICTS
    why = (W("conclusions.fallback_slow.why_holds") if verdict == SUPPORTS
           else W("conclusions.fallback_slow.why_refuted"))
    return Evidence(verdict, obs, why, W("conclusions.fallback_slow.recommendation"), comparison)


def _numpy_near_peak(c):
    fam = _numpy_best(c, "float32", 1)
    if not fam:
        return _pending()
    best = merge.fastest(fam, key=lambda x: -x.gflops())
    kernel = (best.record["extra"].get("blas_kernel") or {}).get("architecture") or "?"
    isa = identity.BLAS_ISA.get(kernel.lower())
    peak = merge.isa_peak(c.current, "float32", 1, isa) if isa else None
    failed = merge.isa_peak_failed(c.current, "float32", 1, isa) if peak is None else None
    if failed is not None:   # measured and failed: said with its record, not 'no peak record'
        return _pending(W("conclusions.numpy_near_peak.peak_failed", kernel=_esc(kernel), isa=_esc(isa),
                          failed=c.book.failed(failed)))
    if peak is None:
        return _pending(W("conclusions.numpy_near_peak.what", kernel=_esc(kernel), isa=isa or W("conclusions.numpy_near_peak.unknown_isa")))
    share = best.gflops() / peak.gflops()
    obs = (W("conclusions.numpy_near_peak.obs", gflops=gflops(c.book, best), kernel=_esc(kernel), upper=isa.upper(), peak_gflops=gflops(c.book, peak), percent=percent(c.book, best, 'share_of_isa_peak', share, peak)))
    comparison = (W("conclusions.numpy_near_peak.comparison", upper=isa.upper(), kernel=_esc(kernel)))
    if _near(share, 0.8):
        return _undecided(obs, comparison)
    verdict = SUPPORTS if share >= 0.8 else CONTRADICTS
    why = (W("conclusions.numpy_near_peak.why_holds") if verdict == SUPPORTS
           else W("conclusions.numpy_near_peak.why_refuted"))
    return Evidence(verdict, obs, why, W("conclusions.numpy_near_peak.recommendation"),
                    comparison)


# --- the list, in the seed's order ---------------------------------------------------------

@dataclass
class Conclusion:
    id: str
    sections: tuple
    claim: str        # the original's claim in our words; {table/row/column} marks an archived figure
    judge: object     # Context -> Evidence


CONCLUSIONS = [   # claims in our words; {table/row/column} is an archived figure, quoted as printed
    Conclusion("tvm_vs_tf", ("20",), W("conclusions.claims.tvm_vs_tf"), _tvm_vs_tf),
    Conclusion("outputs_agree", ("20",), W("conclusions.claims.outputs_agree"), _outputs_agree),
    Conclusion("fallback_slow", ("20",), W("conclusions.claims.fallback_slow"), _fallback_slow),
    Conclusion("small_matrix", ("21",), W("conclusions.claims.small_matrix"), _small_matrix),
    Conclusion("multicore", ("21",), W("conclusions.claims.multicore"), _multicore),
    Conclusion("small_single_thread", ("5", "13"), W("conclusions.claims.small_single_thread"), _small_single_thread),
    Conclusion("numpy_near_peak", ("21",), W("conclusions.claims.numpy_near_peak"),
               _numpy_near_peak),
    Conclusion("hand_gain", ("22",), W("conclusions.claims.hand_gain"), _hand_gain),
    Conclusion("ladder_not_monotonic", ("22",), W("conclusions.claims.ladder_not_monotonic"), _ladder_monotonic),
    Conclusion("blocking_limited", ("23",), W("conclusions.claims.blocking_limited"), _blocking_limited),
    Conclusion("parallel_near_numpy", ("23",), W("conclusions.claims.parallel_near_numpy"), _parallel_near_numpy),
    Conclusion("autotune_beats_hand", ("23",), W("conclusions.claims.autotune_beats_hand"), _autotune_beats_hand),
    Conclusion("batching", ("18",), W("conclusions.claims.batching"), _batching),
    Conclusion("fusion", ("15", "29"), W("conclusions.claims.fusion"), _fusion),
    Conclusion("int8_needs_tuning", ("31",), W("conclusions.claims.int8_needs_tuning"), _int8_needs_tuning),
]
CONCLUSIONS.sort(key=lambda x: int(x.sections[0]))   # the seed's order (stable within a section)
BY_ID = {x.id: x for x in CONCLUSIONS}


def judge_all(ctx):
    """[(Conclusion, claim text, Evidence)] in the seed's order."""
    return [(x, ctx.quote(x.claim), x.judge(ctx)) for x in CONCLUSIONS]


def previous_verdicts(ctx):
    """{conclusion id: verdict} judged on the records as they were before the newest run."""
    if not ctx.previous:
        return {}
    from reportgen.render.figures import FigureBook  # a scratch book: these figures are not shown
    before = Context(FigureBook(), ctx.previous, ctx.env, ctx.tables)
    return {x.id: x.judge(before).verdict for x in CONCLUSIONS}


def _verdict_cell(conclusion, evidence, before=None):
    cell = (f'<span class="verdict" data-conclusion="{conclusion.id}" data-verdict="{evidence.verdict}">'
            f"{VERDICT_ZH[evidence.verdict]}</span>")
    if before not in (None, PENDING, evidence.verdict) and evidence.verdict != PENDING:
        cell += (W("conclusions.verdict_cell.cell", id=conclusion.id, verdict_zh=VERDICT_ZH[before]))
    return cell + rests_on_jump(evidence.observation, evidence.comparison)   # it says so itself


def table(ctx):
    """Every historical conclusion with the current evidence for or against it."""
    lines = [W("conclusions.table.header"), "|---|---|---|---|---|"]
    before = previous_verdicts(ctx)
    for conclusion, claim, ev in judge_all(ctx):
        lines.append(W("conclusions.table.row", sections=W("conclusions.table.section_separator").join(conclusion.sections), claim=claim, observation=ev.observation, comparison=ev.comparison or '—', verdict_cell=_verdict_cell(conclusion, ev, before.get(conclusion.id))))
    return "\n".join(lines)


def counts(ctx):
    """The summary line (N conclusions: a support, ...) computed from the verdicts."""
    verdicts = [ev.verdict for _c, _claim, ev in judge_all(ctx)]
    parts = [W("conclusions.counts.count", count=verdicts.count(v), label=label) for v, label in
             ((SUPPORTS, W("conclusions.counts.holds")), (CONTRADICTS, W("conclusions.counts.fails")), (UNDECIDED, W("conclusions.counts.undecided")), (PENDING, W("conclusions.counts.pending")))
             if verdicts.count(v)]
    return W("conclusions.counts.total", verdicts=len(verdicts)) + W("common.punct.comma").join(parts) + W("common.punct.period")


def statements(ctx, ids):
    """Observation / explanation / recommendation, kept apart (seed §23b), for chosen conclusions."""
    out = []
    before = previous_verdicts(ctx)
    for conclusion, claim, ev in judge_all(ctx):
        if conclusion.id not in ids:
            continue
        out.append(W("conclusions.statements.statement", claim=claim, verdict_cell=_verdict_cell(conclusion, ev, before.get(conclusion.id)), observation=ev.observation, comparison=ev.comparison or '—', explanation=ev.explanation or '—', recommendation=ev.recommendation or '—'))
    return "\n".join(out) or W("conclusions.statements.none")


def reversed_results(ctx):
    """Conclusions the retest does not confirm, listed rather than hidden (seed §23b)."""
    rows = [W("conclusions.reversed_results.item", claim=claim, observation=ev.observation, explanation=ev.explanation) for _c, claim, ev in judge_all(ctx)
            if ev.verdict in (CONTRADICTS, UNDECIDED)]
    return "\n".join(rows) or W("conclusions.reversed_results.none")


def ids():
    return [x.id for x in CONCLUSIONS]


