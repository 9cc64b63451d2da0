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
        return "（尚无端到端记录。）"
    return markdown(["模型", "引擎", "输入", "首次调用（冷）", "稳定运行 p50", "冷 ÷ 热"], lines)


def cold_summary(book, current):
    """Which engine pays most for its first request, relative to its warm median."""
    recs = [c for m in e2e_models(current) for c in (e2e(current, m, e) for e in ENGINES)
            if ok(c) and c.record["extra"].get("cold_seconds") is not None]
    if not recs:
        return "（尚无端到端记录。）"
    key = lambda c: c.record["extra"]["cold_seconds"] / c.stat("p50")  # noqa: E731
    hi, lo = max(recs, key=key), min(recs, key=key)
    return (f"首次调用相对稳定中位数最贵的是 {model_zh(hi.record['case']['model'])} 上的 "
            f"{engine_zh(hi.record['case']['engine'])}（{times(book, hi, 'cold_over_p50', key(hi))}），最便宜的是 "
            f"{model_zh(lo.record['case']['model'])} 上的 {engine_zh(lo.record['case']['engine'])}"
            f"（{times(book, lo, 'cold_over_p50', key(lo))}）。")


def tail_summary(book, current):
    """How far p95 and p99 sit from p50, and whether there are enough requests to call it a tail."""
    recs = [c for m in e2e_models(current) for c in (e2e(current, m, e) for e in ENGINES) if ok(c)]
    if not recs:
        return "（尚无端到端记录。）"
    widest = max(recs, key=lambda c: c.stat("p99") / c.stat("p50"))
    ns = sorted(c.stat("n") for c in recs)
    text = (f"{len(recs)} 个 batch 1 用例里，p99 离 p50 最远的是 {model_zh(widest.record['case']['model'])} 上的 "
            f"{engine_zh(widest.record['case']['engine'])}：p50 {ms(book, widest)}，p95 {ms(book, widest, 'p95')}，"
            f"p99 {ms(book, widest, 'p99')}，p99 是 p50 的 {times(book, widest, 'p99_over_p50', widest.stat('p99') / widest.stat('p50'))}。")
    few = [c for c in recs if c.stat("n") < TAIL_MIN_SAMPLES]
    if few:
        text += (f"每个用例的请求数在 {ns[0]} 到 {ns[-1]} 之间，其中 {len(few)} 个不足 {TAIL_MIN_SAMPLES} 个："
                 "这么少的样本里 p99 只是最慢几次调用之间的插值，只能当作趋势，不能当作服务的尾延迟承诺。")
    else:
        text += f"每个用例至少有 {ns[0]} 个请求，p99 可以当作尾部估计。"
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
                              times(book, big, "throughput_gain", gain),
                              times(book, big, "call_latency_over_b1", big.stat("p50") / one.stat("p50"))])
    if not lines:
        return "尚无与 batch 1 可比的批处理记录（同一模型、引擎、输入尺寸与线程数）：批处理对吞吐和单次延迟的影响待测。"
    return markdown(["模型", "引擎", "batch", "batch 1 每次调用 p50", "该 batch 每次调用 p50", "吞吐 ÷ batch 1",
                     "每次调用延迟 ÷ batch 1"], lines)


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
    return (f"批处理收益最大的是 {model_zh(cur.record['case']['model'])} 上的 {engine_zh(cur.record['case']['engine'])}："
            f"batch {b} 的吞吐是 batch 1 的 {times(book, cur, 'throughput_gain', gain)}，代价是每次调用的延迟变为 "
            f"{times(book, cur, 'call_latency_over_b1', slower)}——一个请求若要等凑满一批，它看到的延迟还要再加上排队时间。")


def amdahl(book, current):
    """How much a request gains if its slowest kernel ran twice as fast (Amdahl's law)."""
    recs = [c for c in e2e_tvm(current) if c.record["extra"].get("op_profile")]
    if not recs:
        return "（尚无 TVM 的算子剖面。）"
    lines = []
    for cur in recs:
        e = cur.record["extra"]
        top = e["op_profile"][0]
        share = top["seconds"] / e["op_profile_total_s"]
        lines.append([model_zh(cur.record["case"]["model"]), engine_zh(cur.record["case"]["engine"]),
                      _code(top['op']), percent(book, cur, "top_kernel_share", share),
                      times(book, cur, "amdahl_2x_top", 1 / (1 - share / 2))])
    return markdown(["模型", "变体", "最慢的内核", "占一次推理", "该内核快一倍时整体加速"], lines)


def compile_budget(book, current):
    """Compile and tuning time beside one request: the part of a deployment that is paid once."""
    tvm = e2e_tvm(current)
    tune = [c for c in merge.family(current, "e2e_tune").values() if ok(c)]
    if not tvm:
        return "（尚无 TVM 端到端记录。）"
    longest = max(tvm, key=lambda c: c.record["extra"].get("compile_seconds", 0))
    text = (f"TVM 编译最久的是 {model_zh(longest.record['case']['model'])} 的 {engine_zh(longest.record['case']['engine'])}"
            f"（{seconds(book, longest, 'compile_time', longest.record['extra']['compile_seconds'])}）。")
    if tune:
        t = max(tune, key=lambda c: c.record["extra"]["tuning"]["seconds"])
        minutes = fmt_number(t.record["extra"]["tuning"]["seconds"] / 60, "min") + " min"
        text += (f"MetaSchedule 调优 {model_zh(t.record['case']['model'])} 用了 "
                 f"{fig(book, t, 'tuning_min', minutes, 'min')}，"
                 "这部分在发布阶段离线完成，数据库随产物保存。")
    else:
        text += "本次还没有整网调优的记录。"
    return text
