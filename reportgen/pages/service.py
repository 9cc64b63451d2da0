"""Seed §18 on our records: from a kernel micro-benchmark to a served model.

Cold start against warm runs, the tail of single requests, what batching does to throughput
and to each request, and how much of a request one kernel can save (Amdahl). Sentences and
tables are computed; a missing record is said to be missing.
"""
from reportgen.data import merge
from reportgen.render.figures import fmt_number
from reportgen.data.queries import e2e, e2e_models, e2e_tvm, ok
from reportgen.render.labels import engine_zh, model_zh
from reportgen.render.lookup import fig, ms, percent, seconds, times
from reportgen.render.cells import code_span as _code
from reportgen.render.markdown import markdown
from reportgen.data.words import W

ENGINES = ("tf", "ort", "tflite", "tvm_b", "tvm_c", "tvm_d")
TAIL_MIN_SAMPLES = 100   # fewer samples than this: p99 is close to the maximum of a few calls


def cold_table(book, current):
    """Per model and engine: the first call against the warm median, batch 1."""
    lines = []
    for model in e2e_models(current):
        for engine in ENGINES:
            cur = e2e(current, model, engine)
            if not ok(cur) or cur.record["extra"].get("cold_seconds") is None:
                continue
            cold = cur.record["extra"]["cold_seconds"]
            size = cur.record["case"].get("input_size", "?")
            lines.append([model_zh(model), engine_zh(engine), f"{size}×{size}", seconds(book, cur, "cold_time", cold), ms(book, cur),
                          times(book, cur, "cold_over_p50", cold / cur.stat("p50"))])
    if not lines:
        return W("service.cold_table.text")
    return markdown([W("service.cold_table.head_model"), W("service.cold_table.head_engine"), W("service.cold_table.head_input"), W("service.cold_table.head_cold"), W("service.cold_table.head_steady_p50"), W("service.cold_table.head_cold_vs_warm")], lines)


def cold_summary(book, current):
    """Which engine pays most for its first request, relative to its warm median."""
    recs = [c for m in e2e_models(current) for c in (e2e(current, m, e) for e in ENGINES)
            if ok(c) and c.record["extra"].get("cold_seconds") is not None]
    if not recs:
        return W("service.cold_table.text")
    key = lambda c: c.record["extra"]["cold_seconds"] / c.stat("p50")  # noqa: E731
    hi, lo = max(recs, key=key), min(recs, key=key)
    return (W("service.cold_summary.text", model_zh=model_zh(hi.record['case']['model']), engine_zh=engine_zh(hi.record['case']['engine']), times=times(book, hi, 'cold_over_p50', key(hi)), low_model_zh=model_zh(lo.record['case']['model']), low_engine_zh=engine_zh(lo.record['case']['engine']), low_times=times(book, lo, 'cold_over_p50', key(lo))))


def tail_summary(book, current):
    """How far p95 and p99 sit from p50, and whether there are enough requests to call it a tail."""
    recs = [c for m in e2e_models(current) for c in (e2e(current, m, e) for e in ENGINES) if ok(c)]
    if not recs:
        return W("service.cold_table.text")
    widest = max(recs, key=lambda c: c.stat("p99") / c.stat("p50"))
    ns = sorted(c.stat("n") for c in recs)
    text = (W("service.tail_summary.text", recs=len(recs), model_zh=model_zh(widest.record['case']['model']), engine_zh=engine_zh(widest.record['case']['engine']), p50_ms=ms(book, widest), p95_ms=ms(book, widest, 'p95'), p99_ms=ms(book, widest, 'p99'), times=times(book, widest, 'p99_over_p50', widest.stat('p99') / widest.stat('p50'))))
    few = [c for c in recs if c.stat("n") < TAIL_MIN_SAMPLES]
    if few:
        text += (W("service.tail_summary.few_samples", min_n=ns[0], max_n=ns[-1], few=len(few), tail_min_samples=TAIL_MIN_SAMPLES))
    else:
        text += W("service.tail_summary.enough_samples", min_n=ns[0])
    return text


def batching(book, current):
    """Batch 8 against batch 1 for every model and engine measured at both."""
    batches = sorted({c.record["case"].get("batch", 1) for c in merge.family(current, "e2e").values()} - {1})
    lines = []
    for b in batches:
        for model in e2e_models(current):
            for engine in ENGINES:
                one = e2e(current, model, engine)
                big = e2e(current, model, engine, b, like=one) if one is not None else None
                if not (ok(one) and ok(big)):
                    continue
                gain = (b / big.stat("p50")) / (1 / one.stat("p50"))
                lines.append([model_zh(model), engine_zh(engine), str(b), ms(book, one), ms(book, big),
                              times(book, big, "throughput_gain", gain, one),
                              times(book, big, "call_latency_over_b1", big.stat("p50") / one.stat("p50"), one)])
    if not lines:
        return W("service.batching.text")
    return markdown([W("service.cold_table.head_model"), W("service.cold_table.head_engine"), "batch", W("service.batching.head_single_p50"), W("service.batching.head_batch_p50"), W("service.batching.head_throughput_gain"),
                     W("service.batching.head_latency_ratio")], lines)


def best_batching(current):
    """(throughput gain, batched record, its batch-1 peer, batch) with the largest gain, or None."""
    best = None
    for cur in merge.family(current, "e2e").values():
        b = cur.record["case"].get("batch", 1)
        one = e2e(current, cur.record["case"]["model"], cur.record["case"]["engine"], like=cur) if b > 1 else None
        if ok(cur) and ok(one):
            gain = (b / cur.stat("p50")) * one.stat("p50")
            if best is None or gain > best[0]:
                best = (gain, cur, one, b)
    return best


def batching_summary(book, current):
    """One sentence: the largest throughput gain and what it cost each request."""
    best = best_batching(current)
    if best is None:
        return ""   # batching() already says that nothing is measured
    gain, cur, one, b = best
    slower = cur.stat("p50") / one.stat("p50")
    return (W("service.batching_summary.text", model_zh=model_zh(cur.record['case']['model']), engine_zh=engine_zh(cur.record['case']['engine']), b=b, times=times(book, cur, 'throughput_gain', gain, one), latency_times=times(book, cur, 'call_latency_over_b1', slower, one)))


def amdahl(book, current):
    """How much a request gains if its slowest kernel ran twice as fast (Amdahl's law)."""
    recs = [c for c in e2e_tvm(current) if c.record["extra"].get("op_profile")]
    if not recs:
        return W("service.amdahl.text")
    lines = []
    for cur in recs:
        e = cur.record["extra"]
        top = e["op_profile"][0]
        share = top["seconds"] / e["op_profile_total_s"]
        lines.append([model_zh(cur.record["case"]["model"]), engine_zh(cur.record["case"]["engine"]),
                      _code(top['op']), percent(book, cur, "top_kernel_share", share),
                      times(book, cur, "amdahl_2x_top", 1 / (1 - share / 2))])
    return markdown([W("service.cold_table.head_model"), W("service.amdahl.head_variant"), W("service.amdahl.head_slowest_kernel"), W("service.amdahl.head_share"), W("service.amdahl.head_speedup_if_twice")], lines)


def compile_budget(book, current):
    """Compile and tuning time beside one request: the part of a deployment that is paid once."""
    tvm = e2e_tvm(current)
    tune = [c for c in merge.family(current, "e2e_tune").values() if ok(c)]
    if not tvm:
        return W("service.compile_budget.text")
    longest = max(tvm, key=lambda c: c.record["extra"].get("compile_seconds", 0))
    text = (W("service.compile_budget.longest_compile", model_zh=model_zh(longest.record['case']['model']), engine_zh=engine_zh(longest.record['case']['engine']), seconds=seconds(book, longest, 'compile_time', longest.record['extra']['compile_seconds'])))
    if tune:
        t = max(tune, key=lambda c: c.record["extra"]["tuning"]["seconds"])
        minutes = fmt_number(t.record["extra"]["tuning"]["seconds"] / 60, "min") + " min"
        text += (W("service.compile_budget.tuning_time", model_zh=model_zh(t.record['case']['model']), fig=fig(book, t, 'tuning_min', minutes, 'min')))
    else:
        text += W("service.compile_budget.no_tuning")
    return text
