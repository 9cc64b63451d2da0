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

LAYOUT_OPS = re.compile(r"transpose|layout_transform")
NOISE = 0.03   # a step's effect within ±3 % is not called a speed-up or a slow-down


def compile_vs_run(book, current):
    """Case 1: compile time is not run time. The TVM record whose compile costs most requests."""
    recs = [c for c in e2e_tvm(current) if c.record["extra"].get("compile_seconds") is not None]
    if not recs:
        return "（尚无 TVM 端到端记录，无法举例。）"
    top = max(recs, key=lambda c: c.record["extra"]["compile_seconds"] / c.stat("p50"))
    e = top.record["extra"]
    ratio = e["compile_seconds"] / top.stat("p50")
    low = min(recs, key=lambda c: c.record["extra"]["compile_seconds"] / c.stat("p50"))
    low_ratio = low.record["extra"]["compile_seconds"] / low.stat("p50")
    text = (f"{model_zh(top.record['case']['model'])} 的 {engine_zh(top.record['case']['engine'])}："
            f"导入 {seconds(book, top, 'import_time', e['import_seconds'])}，编译 "
            f"{seconds(book, top, 'compile_time', e['compile_seconds'])}，首次运行 "
            f"{seconds(book, top, 'cold_time', e['cold_seconds'])}，稳定运行 p50 {ms(book, top)}。"
            f"编译耗时是稳定运行 p50 的 {times(book, top, 'compile_over_p50', ratio)}；"
            f"在 {len(recs)} 个 TVM 端到端用例中这个比值最小的是 "
            f"{model_zh(low.record['case']['model'])} 的 {engine_zh(low.record['case']['engine'])}"
            f"（{times(book, low, 'compile_over_p50', low_ratio)}）。")
    if e["compile_seconds"] > e["cold_seconds"]:
        text += "把编译算进“第一次请求”，冷启动就由编译主导；发布时编译一次、运行时加载编译产物，才是在线服务的口径。"
    else:
        text += "这里编译比第一次运行还快，冷启动的大头在首次运行本身。"
    return text


def _shape(cur):
    c = cur.record["case"]
    return (c["m"], c["n"], c["k"])


def one_shape(book, current, env):
    """Case 2: one shape is not many. Two nearly equal GEMM shapes, and the stage where they part most."""
    if env is None:
        return "（尚无记录。）"
    threads = env["logical_cores"]
    fam = [c for c in merge.family(current, "gemm_tvm").values()
           if c.ok and c.record["case"]["impl"] == "tvm" and c.record["case"]["threads"] == threads]
    shapes = sorted({_shape(c) for c in fam}, key=lambda s: s[0] * s[1] * s[2])
    if len(shapes) < 2:
        return "（只有一个形状的记录，无法比较。）"
    flops = {s: s[0] * s[1] * s[2] for s in shapes}
    a, b = min(zip(shapes, shapes[1:]), key=lambda p: flops[p[1]] / flops[p[0]])
    by = {(c.record["case"]["stage"], _shape(c)): c for c in fam}
    pairs = [(st, by[(st, a)], by[(st, b)]) for st in STAGE_ORDER if (st, a) in by and (st, b) in by]
    if not pairs:
        return "（两个相邻形状没有共同的阶段记录。）"
    stage, ca, cb = max(pairs, key=lambda p: max(p[1].gflops() / p[2].gflops(), p[2].gflops() / p[1].gflops()))
    gap = max(ca.gflops(), cb.gflops()) / min(ca.gflops(), cb.gflops())
    fast, slow = (ca, cb) if ca.gflops() > cb.gflops() else (cb, ca)
    size = (flops[b] / flops[a] - 1) * 100
    text = (f"{'×'.join(map(str, a))} 与 {'×'.join(map(str, b))} 的计算量只差 {size:.1f} 个百分点，"
            f"但 {_esc(stage)} 阶段在 {'×'.join(map(str, _shape(fast)))} 上是 {gflops(book, fast)} GFLOPS，"
            f"在 {'×'.join(map(str, _shape(slow)))} 上只有 {gflops(book, slow)} GFLOPS，"
            f"相差 {times(book, fast, 'shape_gap', gap)}。")
    turns = []   # a step that speeds one shape up and slows the other down
    steps = [st for st in STAGE_ORDER if st != "autotuned" and (st, a) in by and (st, b) in by]
    for prev, step in zip(steps, steps[1:]):
        ga = by[(prev, a)].stat("p50") / by[(step, a)].stat("p50")
        gb = by[(prev, b)].stat("p50") / by[(step, b)].stat("p50")
        if min(ga, gb) < 1 - NOISE and max(ga, gb) > 1 + NOISE:
            up, down = (a, b) if ga > 1 else (b, a)
            turns.append(f"{_esc(prev)} → {_esc(step)} 在 {'×'.join(map(str, up))} 上变快 "
                         f"{times(book, by[(step, up)], 'speed_vs_previous_stage', max(ga, gb))}，在 "
                         f"{'×'.join(map(str, down))} 上却变慢（{times(book, by[(step, down)], 'speed_vs_previous_stage', min(ga, gb))}）")
    if turns:
        text += "同一个调度步骤在两个形状上的效果甚至方向相反：" + "；".join(turns) + "。"
    best = {}
    for s in shapes:
        cands = [c for c in fam if _shape(c) == s and c.record["case"]["stage"] != "autotuned"]
        if cands:
            best[s] = max(cands, key=lambda c: c.gflops()).record["case"]["stage"]
    names = sorted(set(best.values()))
    if len(names) > 1:
        text += ("手写阶梯里最快的阶段也随形状改变：" + "；".join(
            f"{'×'.join(map(str, s))} 上是 {_esc(st)}" for s, st in best.items()) + "。")
    elif names:
        text += f"在 {len(best)} 个形状上，手写阶梯里最快的都是 {_esc(names[0])}，但各阶段之间的差距并不相同。"
    return text


def mean_vs_median(book, current):
    """Case 3: the mean is not the median. The record whose mean departs most from its p50."""
    recs = [c for c in current.values() if c.ok and c.record.get("stats") and c.stat("n") >= 3
            and c.record["unit"] == "s" and c.stat("p50") > 0]
    if not recs:
        return "（尚无计时记录。）"
    top = max(recs, key=lambda c: abs(c.stat("mean") - c.stat("p50")) / c.stat("p50"))
    gap = top.stat("mean") / top.stat("p50")
    word = "高出" if gap >= 1 else "低了"
    return (f"在全部 {len(recs)} 条当前计时记录里，均值偏离中位数最多的是 {_code(top.record['id'])}："
            f"中位数 {ms(book, top)}，均值 {ms(book, top, 'mean')}，是中位数的 "
            f"{times(book, top, 'mean_over_p50', gap)}（{word}）；最小 {ms(book, top, 'min')}，"
            f"p95 {ms(book, top, 'p95')}，最大 {ms(book, top, 'max')}，共 "
            f"{fig(book, top, 'n', str(top.stat('n')), 'samples')} 个样本。"
            + ("少数几次慢调用就能把均值拉离大多数样本所在的位置，所以本站的表格一律以中位数为主、"
               "同时给出 p95 与样本数。" if gap >= 1 else "这里均值低于中位数，说明样本偏向快的一侧。"))


def layout_conversion(book, current):
    """Case 4: layout conversion is not free. The layout kernels of the TVM end-to-end records."""
    recs = e2e_tvm(current)
    if not recs:
        return "（尚无 TVM 端到端记录。）"
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
        return "本次复测的 TVM 端到端记录里没有布局转换内核（transpose / layout_transform）。"
    text = (f"{len(recs)} 个 TVM 端到端用例中有 {len(timed) + len(bounded)} 个含布局转换内核"
            f"（{'、'.join(f'{_code(n)}' for n in sorted(names))}）。")
    if timed:
        share, cur = max(timed, key=lambda t: t[0])
        text += (f"剖面里记下了它的时间的用例中，占比最高的是 {model_zh(cur.record['case']['model'])} 的 "
                 f"{engine_zh(cur.record['case']['engine'])}：{percent(book, cur, 'layout_share', share)}。")
    if bounded:
        share, cur, cut = max(bounded, key=lambda t: t[0])
        text += (f"有 {len(bounded)} 个用例里它不在耗时前 {cut} 名之内，只能给出上界：最宽的上界出现在 "
                 f"{model_zh(cur.record['case']['model'])} 的 {engine_zh(cur.record['case']['engine'])}，"
                 f"不超过一次推理的 {percent(book, cur, 'layout_bound_share', share)}。")
    untuned = all(not cur.record["extra"].get("tuned") for _share, cur, *_rest in timed + bounded)
    if untuned:
        return text + ("这些变体的卷积都没有调度，卷积占了绝大部分时间，布局转换的代价被掩盖；卷积调优之后，"
                       "同一个转换的占比会上升，所以优化前后都要把它单独列出。")
    return text + "卷积调优之后，布局转换在一次推理中的占比会上升，所以调优前后都要把它单独列出。"


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
        return "尚待 INT8 记录：INT8 实验族还没有当前记录，这一条暂时只能陈述原则。"
    bare = [c for c in fam if not _int8_quality(c)]
    text = f"INT8 实验族有 {len(fam)} 条计时记录，其中 {len(fam) - len(bare)} 条同时带有精度、输出误差或算子覆盖信息"
    if bare:
        ex = bare[0]
        text += (f"；{len(bare)} 条只有延迟，例如 {_code(ex.record['id'])}（{ms(book, ex)}），"
                 "它们不能单独支持“INT8 更好”的结论")
    text += "。"
    for cur in fam:
        score = cur.record["extra"].get("score") or {}
        if cur.record["case"].get("engine") != "tvm_int8" or score.get("accuracy") is None \
                or score.get("fp32_accuracy") is None:
            continue
        drop = (score["fp32_accuracy"] - score["accuracy"]) * 100
        text += (f"以 {model_zh(cur.record['case']['model'])} 的 TVM INT8 为例：延迟 {ms(book, cur)}，准确率 "
                 f"{percent(book, cur, 'accuracy', score['accuracy'])}，同一评估集上 FP32 为 "
                 f"{percent(book, cur, 'fp32_accuracy', score['fp32_accuracy'])}（"
                 + (f"下降 {fig(book, cur, 'accuracy_drop_points', f'{drop:.2f}', 'points')} 个百分点" if drop > 0 else
                    "没有下降")
                 + "）。只报告延迟，后两个数字就看不到了。")
        break
    return text
