"""The five common failure cases of seed §21b, each shown on a measurement of our own.

Every function picks its example by computing over the current records (never by a typed
record id) and returns a finished sentence; when the records are missing it says so.
"""
import re

from reportgen.data import merge
from reportgen.data.queries import e2e_tvm
from reportgen.render.labels import engine_zh, model_zh
from reportgen.render.lookup import fig, gflops, ms, percent, seconds, times
from reportgen.render.cells import code_span as _code, text as _esc
from reportgen.data.queries import STAGE_ORDER
from reportgen.data.words import W

LAYOUT_OPS = re.compile(r"transpose|layout_transform")
NOISE = 0.03   # a step's effect within ±3 % is not called a speed-up or a slow-down


def compile_vs_run(book, current):
    """Case 1: compile time is not run time. The TVM record whose compile costs most requests."""
    recs = [c for c in e2e_tvm(current) if c.record["extra"].get("compile_seconds") is not None]
    if not recs:
        return W("pitfalls.compile_vs_run.text")
    top = max(recs, key=lambda c: c.record["extra"]["compile_seconds"] / c.stat("p50"))
    e = top.record["extra"]
    ratio = e["compile_seconds"] / top.stat("p50")
    low = min(recs, key=lambda c: c.record["extra"]["compile_seconds"] / c.stat("p50"))
    low_ratio = low.record["extra"]["compile_seconds"] / low.stat("p50")
    text = (W("pitfalls.compile_vs_run.example", model_zh=model_zh(top.record['case']['model']), engine_zh=engine_zh(top.record['case']['engine']), import_seconds=seconds(book, top, 'import_time', e['import_seconds']), compile_seconds=seconds(book, top, 'compile_time', e['compile_seconds']), cold_seconds=seconds(book, top, 'cold_time', e['cold_seconds']), ms=ms(book, top), times=times(book, top, 'compile_over_p50', ratio), recs=len(recs), low_model_zh=model_zh(low.record['case']['model']), low_engine_zh=engine_zh(low.record['case']['engine']), low_times=times(book, low, 'compile_over_p50', low_ratio)))
    if e["compile_seconds"] > e["cold_seconds"]:
        text += W("pitfalls.compile_vs_run.compile_dominates")
    else:
        text += W("pitfalls.compile_vs_run.cold_run_dominates")
    return text


def _shape(cur):
    c = cur.record["case"]
    return (c["m"], c["n"], c["k"])


def one_shape(book, current, env):
    """Case 2: one shape is not many. Two nearly equal GEMM shapes, and the stage where they part most."""
    if env is None:
        return W("pitfalls.one_shape.text")
    threads = env["logical_cores"]
    fam = [c for c in merge.family(current, "gemm_tvm").values()
           if c.ok and c.record["case"]["impl"] == "tvm" and c.record["case"]["threads"] == threads]
    shapes = sorted({_shape(c) for c in fam}, key=lambda s: s[0] * s[1] * s[2])
    if len(shapes) < 2:
        return W("pitfalls.one_shape.single_shape")
    flops = {s: s[0] * s[1] * s[2] for s in shapes}
    a, b = min(zip(shapes, shapes[1:]), key=lambda p: flops[p[1]] / flops[p[0]])
    by = {(c.record["case"]["stage"], _shape(c)): c for c in fam}
    pairs = [(st, by[(st, a)], by[(st, b)]) for st in STAGE_ORDER if (st, a) in by and (st, b) in by]
    if not pairs:
        return W("pitfalls.one_shape.no_common_stage")
    stage, ca, cb = max(pairs, key=lambda p: max(p[1].gflops() / p[2].gflops(), p[2].gflops() / p[1].gflops()))
    gap = max(ca.gflops(), cb.gflops()) / min(ca.gflops(), cb.gflops())
    fast, slow = (ca, cb) if ca.gflops() > cb.gflops() else (cb, ca)
    size = (flops[b] / flops[a] - 1) * 100
    text = (W("pitfalls.one_shape.gap", shape_a='×'.join(map(str, a)), shape_b='×'.join(map(str, b)), size=size, stage=_esc(stage), fast_shape='×'.join(map(str, _shape(fast))), fast_gflops=gflops(book, fast), slow_shape='×'.join(map(str, _shape(slow))), slow_gflops=gflops(book, slow), times=times(book, fast, 'shape_gap', gap, slow)))
    turns = []   # a step that speeds one shape up and slows the other down
    steps = [st for st in STAGE_ORDER if st != "autotuned" and (st, a) in by and (st, b) in by]
    for prev, step in zip(steps, steps[1:]):
        ga = by[(prev, a)].stat("p50") / by[(step, a)].stat("p50")
        gb = by[(prev, b)].stat("p50") / by[(step, b)].stat("p50")
        if min(ga, gb) < 1 - NOISE and max(ga, gb) > 1 + NOISE:
            up, down = (a, b) if ga > 1 else (b, a)
            turns.append(W("pitfalls.one_shape.turn", prev=_esc(prev), step=_esc(step), up_shape='×'.join(map(str, up)), up_times=times(book, by[step, up], 'speed_vs_previous_stage', max(ga, gb), by[prev, up]), down_shape='×'.join(map(str, down)), down_times=times(book, by[step, down], 'speed_vs_previous_stage', min(ga, gb), by[prev, down])))
    if turns:
        text += W("pitfalls.one_shape.turns_intro") + W("common.punct.semicolon").join(turns) + W("common.punct.period")
    best = {}
    for s in shapes:
        cands = [c for c in fam if _shape(c) == s and c.record["case"]["stage"] != "autotuned"]
        if cands:
            best[s] = max(cands, key=lambda c: c.gflops()).record["case"]["stage"]
    names = sorted(set(best.values()))
    if len(names) > 1:
        text += (W("pitfalls.one_shape.best_stage_intro") + W("common.punct.semicolon").join(
            W("pitfalls.one_shape.best_stage", shape='×'.join(map(str, s)), stage=_esc(st)) for s, st in best.items()) + W("common.punct.period"))
    elif names:
        text += W("pitfalls.one_shape.same_best_stage", best=len(best), names=_esc(names[0]))
    return text


def mean_vs_median(book, current):
    """Case 3: the mean is not the median. The record whose mean departs most from its p50."""
    recs = [c for c in current.values() if c.ok and c.record.get("stats") and c.stat("n") >= 3
            and c.record["unit"] == "s" and c.stat("p50") > 0]
    if not recs:
        return W("pitfalls.mean_vs_median.text")
    top = max(recs, key=lambda c: abs(c.stat("mean") - c.stat("p50")) / c.stat("p50"))
    gap = top.stat("mean") / top.stat("p50")
    word = W("pitfalls.mean_vs_median.above") if gap >= 1 else W("pitfalls.mean_vs_median.below")
    return (W("pitfalls.mean_vs_median.example", recs=len(recs), code=_code(top.record['id']), p50_ms=ms(book, top), mean_ms=ms(book, top, 'mean'), times=times(book, top, 'mean_over_p50', gap), word=word, min_ms=ms(book, top, 'min'), p95_ms=ms(book, top, 'p95'), max_ms=ms(book, top, 'max'), samples=fig(book, top, 'n', str(top.stat('n')), 'samples'))
            + (W("pitfalls.mean_vs_median.why_above") if gap >= 1 else W("pitfalls.mean_vs_median.why_below")))


def layout_conversion(book, current):
    """Case 4: layout conversion is not free. The layout kernels of the TVM end-to-end records."""
    recs = e2e_tvm(current)
    if not recs:
        return W("pitfalls.layout_conversion.text")
    timed, bounded, names = [], [], set()
    for cur in recs:
        e = cur.record["extra"]
        calls = {k: v for k, v in e.get("kernel_calls", {}).items() if LAYOUT_OPS.search(k)}
        profile, total = e.get("op_profile") or [], e.get("op_profile_total_s")
        if not calls or not profile or not total:
            continue
        names |= set(calls)
        in_profile = [op for op in profile if LAYOUT_OPS.search(op["op"])]
        if in_profile:
            timed.append((sum(op["seconds"] for op in in_profile) / total, cur))
        else:   # below the profile's cut: at most the time of its last (smallest) entry
            bounded.append((profile[-1]["seconds"] / total, cur, len(profile)))
    if not timed and not bounded:
        return W("pitfalls.layout_conversion.none_found")
    text = (W("pitfalls.layout_conversion.found", recs=len(recs), timed=len(timed) + len(bounded), kernels=W("common.punct.enumeration_comma").join((f'{_code(n)}' for n in sorted(names)))))
    if timed:
        share, cur = max(timed, key=lambda t: t[0])
        text += (W("pitfalls.layout_conversion.largest_share", model_zh=model_zh(cur.record['case']['model']), engine_zh=engine_zh(cur.record['case']['engine']), percent=percent(book, cur, 'layout_share', share)))
    if bounded:
        share, cur, cut = max(bounded, key=lambda t: t[0])
        text += (W("pitfalls.layout_conversion.upper_bound", bounded=len(bounded), cut=cut, model_zh=model_zh(cur.record['case']['model']), engine_zh=engine_zh(cur.record['case']['engine']), percent=percent(book, cur, 'layout_bound_share', share)))
    untuned = all(not cur.record["extra"].get("tuned") for _share, cur, *_rest in timed + bounded)
    if untuned:
        return text + (W("pitfalls.layout_conversion.why_untuned"))
    return text + W("pitfalls.layout_conversion.why_tuned")


def _int8_quality(cur):
    """What besides latency an INT8 record reports: accuracy, agreement or an error bound."""
    e, chk = cur.record.get("extra", {}), cur.record.get("check", {})
    found = [k for k in ("score", "accuracy", "accuracy_drop", "top1", "top1_agree", "agreement", "per_layer",
                         "coverage") if e.get(k) is not None]
    if chk.get("max_rel_err") is not None:
        found.append("max_rel_err")
    return found


def int8_latency_only(book, current):
    """Case 5: INT8 judged on latency alone. Which INT8 records also carry accuracy and coverage."""
    fam = [c for c in merge.family(current, "int8").values() if c.ok and c.record["metric"] != "evidence"]
    if not fam:
        return W("pitfalls.int8_latency_only.text")
    bare = [c for c in fam if not _int8_quality(c)]
    text = W("pitfalls.int8_latency_only.with_quality", timed=len(fam), with_quality=len(fam) - len(bare))
    if bare:
        ex = bare[0]
        text += (W("pitfalls.int8_latency_only.latency_only", bare=len(bare), code=_code(ex.record['id']), ms=ms(book, ex)))
    text += W("common.punct.period")
    for cur in fam:
        score = cur.record["extra"].get("score") or {}
        if cur.record["case"].get("engine") != "tvm_int8" or score.get("accuracy") is None \
                or score.get("fp32_accuracy") is None:
            continue
        drop = (score["fp32_accuracy"] - score["accuracy"]) * 100
        text += (W("pitfalls.int8_latency_only.example_open", model_zh=model_zh(cur.record['case']['model']), ms=ms(book, cur), accuracy=percent(book, cur, 'accuracy', score['accuracy']), fp32_accuracy=percent(book, cur, 'fp32_accuracy', score['fp32_accuracy']))
                 + (W("pitfalls.int8_latency_only.drop", fig=fig(book, cur, 'accuracy_drop_points', f'{drop:.2f}', 'points')) if drop > 0 else
                    W("pitfalls.int8_latency_only.no_drop"))
                 + W("pitfalls.int8_latency_only.example_close"))
        break
    return text
