"""The historical conclusions of the seed, each judged against the current records (seed §34).

A conclusion is the original's claim in our words (its figures quoted from archive/), and a
judge that reads the current records and returns an Evidence: a verdict, the comparison it
used, the observation in figures, an explanation and a recommendation. The verdict is
computed, so a retest that flips a result flips the verdict and the sentences with it.

Three outcomes, one noise rule. 成立 (supports) and 不成立 (contradicts) need a real
difference: two timings differ only when the two-sided Mann-Whitney U test of their raw
samples is significant at compare.ALPHA and their medians differ by at least
compare.MIN_EFFECT (reportgen.data.compare.samples_verdict); a claim judged against a threshold
("below half", "within 2x") is decided only when the value is more than MIN_EFFECT away from
the threshold. Anything else -- or no comparable records -- is 无法判定 (undecided / pending).
Comparisons are like for like: the same machine, run setup and, for §31, tuned FP32 against
tuned INT8; "NumPy near peak" uses the peak of the ISA NumPy's BLAS kernel actually ran.
"""
import re
from dataclasses import dataclass

from reportgen.data import compare, merge
from study import identity
from reportgen.pages import service
from reportgen.render.cells import text as _esc
from reportgen.data.queries import e2e, e2e_models, gemm, ok
from reportgen.render.labels import engine_zh, model_zh
from reportgen.render.lookup import fig, gflops, hist, ms, percent, times

_FIGURE = re.compile(r"\{(\w+/\w+/\w+)\}")
SUPPORTS, CONTRADICTS, UNDECIDED, PENDING = "supports", "contradicts", "undecided", "pending"
VERDICT_ZH = {SUPPORTS: '<span class="ok">成立</span>', CONTRADICTS: '<span class="bad">不成立</span>',
              UNDECIDED: '<span class="warn">无法判定</span>', PENDING: '<span class="info">无法判定（尚无记录）</span>'}
NOT_MEASURED = "尚无对应的当前记录。"
NOISE_RULE = (f"两个时间只有在原始样本的 Mann–Whitney U 检验（双侧，α = {compare.ALPHA:g}）显著、且中位数相差至少 "
              f"{compare.MIN_EFFECT:.0%} 时才算不同；对照阈值的结论，数值离阈值不到 {compare.MIN_EFFECT:.0%} 时不下判断。"
              "其余情形一律判为“无法判定”。")


def differ(a, b):
    """compare.samples_verdict on two current records (A first): better/worse/same/noisy, B/A, p."""
    return compare.samples_verdict(a.record["samples"], b.record["samples"])


def _diff_text(label_a, label_b, result):
    verdict, ratio, p = result
    word = {"better": f"{label_b}显著更快", "worse": f"{label_b}显著更慢", "same": "相差不到最小效应",
            "noisy": "差别不显著"}[verdict]
    return f"{label_b}相对{label_a}：中位数之比 {ratio:.3g}，p = {p:.2g}，{word}"


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
        return _FIGURE.sub(lambda m: hist(self.book, self.tables, *m.group(1).split("/")) or "（归档缺失）", claim)


def _pending(what=NOT_MEASURED):
    return Evidence(PENDING, what, "", "补上这组测量后，本条会自动给出判断。", "无可比较的记录")


def _undecided(obs, comparison, why="差别落在噪声规则之内，这次测量既不支持也不否定原文。"):
    return Evidence(UNDECIDED, obs, why, "在安静的机器上增加样本后重测。", comparison)


# --- judges: one per historical conclusion ---------------------------------------------------

def _tvm_vs_tf(c):
    rows, faster, slower, untuned, tests = [], 0, 0, 0, []
    for model in e2e_models(c.current):
        tf = e2e(c.current, model, "tf")
        tvms = [t for t in (e2e(c.current, model, e, like=tf) for e in ("tvm_b", "tvm_c", "tvm_d")) if ok(t)] \
            if ok(tf) else []
        if not ok(tf) or not tvms:
            continue
        best = min(tvms, key=lambda t: t.stat("p50"))
        ratio = best.stat("p50") / tf.stat("p50")
        result = differ(tf, best)
        faster += result[0] == "better"
        slower += result[0] == "worse"
        tests.append(f"{model_zh(model)}：" + _diff_text("TensorFlow", "TVM 最好的变体", result))
        untuned += not best.record["extra"].get("tuned")
        word = "快" if ratio < 1 else "慢"
        rows.append(f"{model_zh(model)}：TVM 最好的是 {engine_zh(best.record['case']['engine'])}（{ms(c.book, best)}），"
                    f"TensorFlow {ms(c.book, tf)}，TVM 是 TensorFlow 的 {times(c.book, best, 'best_tvm_over_tf', ratio)}（{word}）")
    if not rows:
        return _pending()
    comparison = "同一台机器、同一输入与线程数下，每个模型 TVM 最好的变体对 TensorFlow 的单次请求延迟；" + "；".join(tests)
    if slower == 0 and faster < len(rows):
        return _undecided("；".join(rows) + "。", comparison)
    verdict = SUPPORTS if slower == 0 else CONTRADICTS
    if untuned == len(rows):
        why = "这些 TVM 时间都来自未调优的内核：默认流水线不做调度，卷积是朴素的循环嵌套（见端到端页的算子剖面）。"
    else:
        why = "其中有调优过的 TVM 时间；剩下的差距要看调优覆盖了多少内核、试验预算够不够。"
    if verdict == SUPPORTS:
        why = "在这些模型上，TVM 的内核已经胜过 TensorFlow 的库实现。"
    rec = ("报告 TVM 的时间时同时给出调优状态；与成熟运行时（ONNX Runtime、TFLite）相比之前，先完成调优。"
           if verdict != SUPPORTS else "这一结论只对本机、本版本、这些模型成立，换硬件要重测。")
    return Evidence(verdict, "；".join(rows) + "。", why, rec, comparison)


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
    obs = (f"{len(recs)} 个 TVM 端到端用例中 {passed} 个通过了与 TensorFlow 的数值校验；最大相对误差最大的是 "
           f"{model_zh(worst.record['case']['model'])} 的 {engine_zh(worst.record['case']['engine'])}："
           f"{fig(c.book, worst, 'max_rel_err', err, 'rel')}"
           f"，top-1 一致率最低为 {fig(c.book, low, 'top1_agree', f'{top1:.2f}', 'ratio')}。")
    comparison = "每个 TVM 端到端用例的输出对同一输入上 TensorFlow 的输出：最大相对误差不超过记录里的阈值，且 top-1 全部一致"
    if passed == len(recs) and top1 == 1:
        return Evidence(SUPPORTS, obs, "编译改变的是执行方式，不是计算结果；误差在浮点重排的量级。",
                        "权重随机的网络对不同输入常给出同一类别，top-1 一致是弱证据，要看最大误差。", comparison)
    return Evidence(CONTRADICTS, obs, "有 TVM 用例的输出与 TensorFlow 不一致，须先查明再谈速度。",
                    "校验不通过的用例不给时间，见端到端页。", comparison)


def _batching(c):
    best = service.best_batching(c.current)
    if best is None:
        return _pending("尚无与 batch 1 可比的批处理记录。")
    gain, x, one, b = best
    slower = x.stat("p50") / one.stat("p50")
    obs = (f"{model_zh(x.record['case']['model'])} 上的 {engine_zh(x.record['case']['engine'])}：batch {b} 的吞吐是 batch 1 的 "
           f"{times(c.book, x, 'throughput_gain', gain)}，每次调用的延迟是 {times(c.book, x, 'call_latency_over_b1', slower)}。")
    per_image = compare.samples_verdict(one.record["samples"], [t / b for t in x.record["samples"]])
    per_call = differ(one, x)
    comparison = (f"同一引擎、同一输入尺寸：batch {b} 每张图的时间对 batch 1（吞吐），batch {b} 每次调用对 batch 1（延迟）；"
                  + _diff_text("batch 1", f"batch {b} 每张图", per_image) + "；"
                  + _diff_text("batch 1", f"batch {b} 每次调用", per_call))
    if per_image[0] == "better" and per_call[0] == "worse":
        return Evidence(SUPPORTS, obs, "一批里的多张图共享权重读取与线程调度，吞吐上升；但每次调用要算完整批。",
                        "交互式服务按 P95/P99 选批大小，离线任务按吞吐选。", comparison)
    if per_image[0] == "worse" or per_call[0] == "better":
        return Evidence(CONTRADICTS, obs, "在这个引擎上批处理没有带来预期的取舍。", "按业务指标分别测量，不要假设批处理总有收益。",
                        comparison)
    return _undecided(obs, comparison)


def _numpy_best(c, dtype, threads):
    return [x for x in merge.family(c.current, "numpy_gemm").values()
            if x.ok and x.record["case"]["dtype"] == dtype and x.record["case"]["threads"] == threads
            and x.record["id"].endswith("/blas=best")]


def _small_matrix(c):
    fam = sorted(_numpy_best(c, "float32", 1), key=lambda x: x.record["case"]["n"])
    if len(fam) < 2:
        return _pending()
    small, big = fam[0], max(fam, key=lambda x: x.gflops())
    share = small.gflops() / big.gflops()
    obs = (f"单核 FP32、最佳 BLAS 内核：n={small.record['case']['n']} 只有 "
           f"{gflops(c.book, small)} GFLOPS，"
           f"是 n={big.record['case']['n']} 时（{gflops(c.book, big)} GFLOPS）的 "
           f"{percent(c.book, small, 'share_of_best_n', share)}。")
    comparison = (f"单核 FP32、最佳 BLAS 内核：最小尺寸的 GFLOPS 对最快尺寸的 GFLOPS，“远低于”取不到一半（阈值 0.5）；"
                  + _diff_text(f"n={big.record['case']['n']} 每次浮点运算", f"n={small.record['case']['n']} 每次浮点运算",
                               compare.samples_verdict([t / big.record["extra"]["flops_per_call"] for t in big.record["samples"]],
                                                       [t / small.record["extra"]["flops_per_call"] for t in small.record["samples"]])))
    if _near(share, 0.5):
        return _undecided(obs, comparison)
    verdict = SUPPORTS if share < 0.5 else CONTRADICTS
    why = ("小矩阵的计算量太少，函数调用、参数检查和数据准备的固定开销占了大头。" if verdict == SUPPORTS
           else "本机的 BLAS 在小矩阵上也接近满速，固定开销不再显著。")
    return Evidence(verdict, obs, why, "报告 GEMM 时覆盖小、中、大多组尺寸，不只挑最好看的一个。", comparison)


def _one_and_all_cores(c):
    """FP32 NumPy (best kernel) by n on one core and on all cores, and the sizes both have."""
    cores = c.env["logical_cores"] if c.env else None
    one = {x.record["case"]["n"]: x for x in _numpy_best(c, "float32", 1)}
    many = {x.record["case"]["n"]: x for x in _numpy_best(c, "float32", cores)} if cores and cores > 1 else {}
    return cores, one, many, sorted(set(one) & set(many))


def _multicore(c):
    cores, one, many, common = _one_and_all_cores(c)
    if not common:
        return _pending("没有同一尺寸上单核与全部核心的 NumPy 记录。")
    n = common[-1]
    speedup = one[n].stat("p50") / many[n].stat("p50")
    eff = speedup / cores
    obs = (f"FP32、n={n}：{cores} 个核心比单核快 {times(c.book, many[n], 'speedup_vs_1t', speedup)}，"
           f"并行效率 {percent(c.book, many[n], 'parallel_efficiency', eff)}。")
    comparison = (f"FP32、最佳 BLAS 内核、同一尺寸 n={n}：{cores} 线程对单线程的加速比，除以线性扩展的 {cores}×"
                  "（效率离 1 不到最小效应时不下判断）；" + _diff_text("单线程", f"{cores} 线程", differ(one[n], many[n])))
    if _near(eff, 1.0):
        return _undecided(obs, comparison, f"并行效率与线性扩展的差别落在最小效应之内：本机只有 {cores} 个核心，看不出非线性。")
    verdict = SUPPORTS if eff < 1.0 else CONTRADICTS
    why = ("多个线程共享缓存和内存带宽，线程同步也要时间，所以扩展不是线性的。" if verdict == SUPPORTS
           else "并行效率高于线性：多个核心的缓存总量更大，工作集更容易放下。")
    return Evidence(verdict, obs, why, "单线程与多线程分别测量、分别调优。", comparison)


def _small_single_thread(c):
    cores, one, many, common = _one_and_all_cores(c)
    if not common:
        return _pending("没有同一尺寸上单核与全部核心的 NumPy 记录。")
    n = common[0]
    ratio = many[n].stat("p50") / one[n].stat("p50")
    obs = (f"FP32、n={n}：单线程 {ms(c.book, one[n])}，{cores} 线程 {ms(c.book, many[n])}，"
           f"多线程是单线程的 {times(c.book, many[n], 'time_vs_1t', ratio)}（大于 1 为更慢）。")
    result = differ(one[n], many[n])
    comparison = f"FP32、最佳 BLAS 内核、最小的共同尺寸 n={n}：{cores} 线程对单线程；" + _diff_text("单线程", f"{cores} 线程", result)
    if result[0] == "worse":
        return Evidence(SUPPORTS, obs, "计算量太小，唤醒和同步线程的开销超过了并行省下的时间。",
                        "小矩阵用单线程，或者让 BLAS 按尺寸自己决定线程数。", comparison)
    if result[0] == "better":
        return Evidence(CONTRADICTS, obs, "在最小的尺寸上多线程也更快，线程开销在本机上很小。",
                        "仍要按尺寸分别测量单线程与多线程。", comparison)
    return _undecided(obs, comparison, "两者的差别落在噪声规则之内：本机的 BLAS 对这么小的矩阵可能本来就只用一个线程。")


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
    obs = (f"n={n}（FP64）：MMult0 {gflops(c.book, a)} GFLOPS，"
           f"MMult_4x4_15_1 {gflops(c.book, b)} GFLOPS，"
           f"快 {times(c.book, b, 'speed_vs_mmult0', ratio)}。")
    comparison = (f"FP64、n={n}：阶梯最后一级对 MMult0 的速度比，原文的提升约为一个数量级，这里以 5× 为界；"
                  + _diff_text("MMult0", "MMult_4x4_15_1", differ(a, b)))
    if _near(ratio, 5):
        return _undecided(obs, comparison)
    verdict = SUPPORTS if ratio >= 5 else CONTRADICTS
    why = ("寄存器分块提高了数据复用，FMA 提高了每条指令的计算量，分块与连续访问改善了缓存局部性。"
           if verdict == SUPPORTS else "今天的编译器已经把朴素循环优化得很好，手写阶梯的相对收益变小了。")
    return Evidence(verdict, obs, why, "保留完整的优化阶梯，而不是只报告最后一行。", comparison)


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
    comparison = (f"FP64、n={n}，按原文顺序的每对相邻内核，后一级对前一级的时间：{len(gains)} 步显著更快、"
                  f"{len(drops)} 步显著更慢、{len(results) - len(gains) - len(drops)} 步在噪声之内")
    if drops:
        a, b = drops[0]
        obs = (f"n={n}：按原文顺序的 {len(steps) - 1} 个相邻步骤中有 {len(drops)} 步变慢，例如 {a} → {b}："
               f"{gflops(c.book, by[a])} → "
               f"{gflops(c.book, by[b])} GFLOPS。")
        return Evidence(SUPPORTS, obs, "每一步改变的不只一个因素：块形状变了，寄存器和缓存压力也跟着变。",
                        "调优时保留每一步的测量，回退的步骤同样是证据。", comparison)
    if len(gains) < len(results):
        return _undecided(f"n={n}：按原文顺序的 {len(steps) - 1} 个相邻步骤没有一步显著变慢，但也不是每一步都显著变快。",
                          comparison)
    obs = f"n={n}：按原文顺序的 {len(steps) - 1} 个相邻步骤在本机上每一步都更快。"
    return Evidence(CONTRADICTS, obs, "本机的编译器与缓存让每一步都得到了收益，原文的回退没有重现。",
                    "这不说明优化总是单调的，换一台机器仍要逐级测量。", comparison)


def _stage(c, stage):
    return gemm(c.current, stage, env=c.env)


def _blocking_limited(c):
    base, block, perm = _stage(c, "baseline"), _stage(c, "blocking"), _stage(c, "loop_permutation")
    vec = _stage(c, "vectorization")
    if not all(ok(x) for x in (base, block, perm)):
        return _pending()
    first = base.stat("p50") / block.stat("p50")
    later = block.stat("p50") / perm.stat("p50")
    obs = (f"baseline → blocking 快 {times(c.book, block, 'speed_vs_previous_stage', first)}；"
           f"blocking → loop permutation 再快 {times(c.book, perm, 'speed_vs_blocking', later)}")
    if ok(vec):
        step = block.stat("p50") / vec.stat("p50")
        obs += f"；其中 vectorization 这一步单独看是 {times(c.book, vec, 'speed_vs_previous_stage', step)}"
    obs += "（大于 1 为变快）。"
    comparison = ("同一运行、同一线程数的 1024³ GEMM：baseline→blocking 的加速比对 blocking→loop permutation 的加速比"
                  "（两者之比离 1 不到最小效应时不下判断）；" + _diff_text("baseline", "blocking", differ(base, block))
                  + "；" + _diff_text("blocking", "loop permutation", differ(block, perm)))
    if _near(first, later):
        return _undecided(obs, comparison)
    if first < later:
        return Evidence(SUPPORTS, obs, "分块本身只改善了局部性，真正的下降来自向量化和让访问连续的循环重排。",
                        "先看访存方向与 SIMD，再调块大小。", comparison)
    return Evidence(CONTRADICTS, obs,
                    "今天的 LLVM 会自己把分块后的内层循环向量化（分块阶段的汇编里已有 ymm FMA），所以收益提前出现在分块这一步，"
                    "显式的 vectorization 不再带来原文那样的下降。",
                    "读阶梯时看代码生成证据，不要只按阶段名字归因。", comparison)


def _parallel_near_numpy(c):
    par = _stage(c, "parallel")
    npy = gemm(c.current, "any", env=c.env, impl="numpy", blas="best")
    if not (ok(par) and ok(npy)):
        return _pending()
    ratio = par.stat("p50") / npy.stat("p50")
    obs = (f"parallel 阶段 {ms(c.book, par)}，同一运行的 NumPy 最佳内核 {ms(c.book, npy)}，"
           f"TVM 是 NumPy 的 {times(c.book, par, 'over_best_numpy', ratio)}。")
    comparison = ("同一运行、同一形状与线程数：TVM parallel 阶段对 NumPy 最佳内核的时间，“接近”取两倍以内；"
                  + _diff_text("NumPy", "TVM parallel", differ(npy, par)))
    if _near(ratio, 2):
        return _undecided(obs, comparison)
    verdict = SUPPORTS if ratio <= 2 else CONTRADICTS
    why = ("手写调度加上多线程，已经进入 BLAS 的同一量级。" if verdict == SUPPORTS
           else "手写调度与 BLAS 的差距仍超过两倍，瓶颈在微内核与打包。")
    return Evidence(verdict, obs, why, "以同一轮测得的 NumPy 为参照，而不是历史数字。", comparison)


def _autotune_beats_hand(c):
    tuned, par = _stage(c, "autotuned"), _stage(c, "parallel")
    if not (ok(tuned) and ok(par)):
        return _pending()
    ratio = tuned.stat("p50") / par.stat("p50")
    trials = tuned.record["extra"].get("trials_done")
    obs = (f"MetaSchedule（{fig(c.book, tuned, 'trials', str(trials), 'trials')} 次试验）{ms(c.book, tuned)}，"
           f"手写 parallel {ms(c.book, par)}，调优结果是手写的 {times(c.book, tuned, 'ratio_to_parallel', ratio)}。")
    result = differ(par, tuned)
    comparison = "同一运行、同一形状与线程数：MetaSchedule 结果对手写 parallel 阶段；" + _diff_text("手写 parallel", "MetaSchedule", result)
    if result[0] == "better":
        return Evidence(SUPPORTS, obs, "搜索在这个 workload 上找到了比手写更好的分块与并行方式。",
                        "保留手写基线，用于回归比较。", comparison)
    if result[0] == "worse":
        return Evidence(CONTRADICTS, obs,
                        "试验预算有限时，搜索还没有找到手写调度的水平；更多试验（full 档）可能改变结果。",
                        "自动调优先设可靠的手写基线，报告试验次数，并把调优结果与基线并列。", comparison)
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
    obs = (f"ResNet-18 融合前后：图级中间张量 {fig(c.book, before, 'intermediate_bytes', bytes_b, 'B')}"
           f" → {fig(c.book, after, 'intermediate_bytes', bytes_a, 'B')} 字节，"
           f"延迟比值 {times(c.book, after, 'latency_vs_unfused', lat)}。")
    fewer = a["intermediate_bytes"] < b["intermediate_bytes"]
    result = differ(before, after)
    comparison = ("ResNet-18（Relax 推理路径）FuseTIR 之后对融合之前（AnnotateTIROpPattern）：图级中间张量字节数（计数，无噪声），"
                  "延迟只作旁证（原文说融合未必更快）；" + _diff_text("融合前", "融合后", result))
    verdict = SUPPORTS if fewer else CONTRADICTS
    why = ("融合省下了中间张量的写回，也省下了时间。" if fewer and result[0] == "better" else
           "中间张量确实少了；但内核没有调度，时间几乎全花在卷积循环里，省下的写回在延迟上看不出来。" if fewer
           else "融合没有减少图级中间张量。")
    return Evidence(verdict, obs, why, "融合之后要对融合后的内核调度，才能把省下的内存读写变成时间。", comparison)


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
        tests.append(f"{model_zh(model)}（未调优）：" + _diff_text("FP32", "INT8", result))
        text = (f"{model_zh(model)}：TVM FP32 {ms(c.book, fp32)}，INT8 {ms(c.book, int8)}"
                f"（FP32 的 {times(c.book, int8, 'int8_over_fp32', int8.stat('p50') / fp32.stat('p50'))}）")
        if ok(int8_t):
            text += f"，INT8 + 调优 {ms(c.book, int8_t)}"
        if ok(int8_t) and ok(fp32_t):
            tuned = differ(fp32_t, int8_t)
            paired.append(tuned[0])
            tests.append(f"{model_zh(model)}（都调优）：" + _diff_text("调优的 FP32", "调优的 INT8", tuned))
            text += (f"，FP32 + 调优 {ms(c.book, fp32_t)}（调优的 INT8 是调优的 FP32 的 "
                     f"{times(c.book, int8_t, 'int8_tuned_over_fp32_tuned', int8_t.stat('p50') / fp32_t.stat('p50'))}）")
        rows.append(text)
    if not rows:
        return _pending("尚待 INT8 记录。")
    obs = "；".join(rows) + "。"
    comparison = ("同一模型、同一流水线：未调优的 INT8 对未调优的 FP32（“单独使用更慢”），调优的 INT8 对同样调优的 FP32"
                  "（“与调优配合才有收益”），没有两者都调优的模型不参与第二项；" + "；".join(tests))
    if "better" in alone or "worse" in paired:
        why = ("今天的整数路径不调优也已快过 FP32，原文“INT8 单独使用反而更慢”没有重现。" if "better" in alone
               else "两边都调优之后，INT8 反而慢于 FP32：这台 CPU 没有 VNNI，整数点积要多条指令拼出来（见 INT8 一页的指令表）。")
        return Evidence(CONTRADICTS, obs, why, "仍要同时检查精度与算子覆盖，并在有 VNNI 的 CPU 上重测，见 INT8 一页。", comparison)
    if alone and all(r == "worse" for r in alone) and paired and all(r == "better" for r in paired):
        return Evidence(SUPPORTS, obs, "未调优的整数内核没有用上整数点积指令的优势，转换开销还在；调优后整数路径才显出带宽与计算上的收益。",
                        "INT8 的时间必须与调优状态、精度和算子覆盖一起报告。", comparison)
    return _undecided(obs, comparison, "有的比较落在噪声规则之内，或者还没有两边都调优的记录。")


def _fallback_slow(c):
    base, tuned = _stage(c, "baseline"), _stage(c, "autotuned")
    if not (ok(base) and ok(tuned)):
        return _pending()
    ratio = base.stat("p50") / tuned.stat("p50")
    obs = (f"同一个 GEMM，默认（未调度）{ms(c.book, base)}，调优后 {ms(c.book, tuned)}，"
           f"差 {times(c.book, base, 'default_over_tuned', ratio)}。")
    comparison = ("同一运行的 1024³ GEMM：未调度的默认实现对 MetaSchedule 调优结果，“明显回退”取慢两倍以上；"
                  + _diff_text("调优结果", "默认实现", differ(tuned, base)))
    if _near(ratio, 2):
        return _undecided(obs, comparison)
    verdict = SUPPORTS if ratio > 2 else CONTRADICTS
    why = ("没有调优记录时，TVM 用的是默认实现，测到的是回退性能，不是 TVM 能达到的性能。" if verdict == SUPPORTS
           else "本机上默认实现与调优结果相差不大。")
    return Evidence(verdict, obs, why, "每个 TVM 时间都带上 target、调优状态与调优数据库，缺一项就不能当作 TVM 的结果。", comparison)


def _numpy_near_peak(c):
    fam = _numpy_best(c, "float32", 1)
    if not fam:
        return _pending()
    best = max(fam, key=lambda x: x.gflops())
    kernel = (best.record["extra"].get("blas_kernel") or {}).get("architecture") or "?"
    isa = identity.BLAS_ISA.get(kernel.lower())
    peak = merge.isa_peak(c.current, "float32", 1, isa) if isa else None
    if peak is None:
        return _pending(f"NumPy 用的 BLAS 内核是 {_esc(kernel)}，没有这个内核所用指令集（{isa or '未知'}）的实测峰值记录。")
    share = best.gflops() / peak.gflops()
    obs = (f"单核 FP32：NumPy 最好 {gflops(c.book, best)} GFLOPS（OpenBLAS {_esc(kernel)} 内核，{isa.upper()}），"
           f"同一指令集的实测 FMA 峰值 {gflops(c.book, peak)} GFLOPS，"
           f"利用率 {percent(c.book, best, 'share_of_isa_peak', share)}。")
    comparison = (f"单核 FP32：NumPy 最快尺寸的 GFLOPS 对 {isa.upper()} 的实测 FMA 峰值（NumPy 的 BLAS 内核 {_esc(kernel)} 实际用的指令集，"
                  "不是机器最宽的指令集），“接近”取利用率至少 0.8")
    if _near(share, 0.8):
        return _undecided(obs, comparison)
    verdict = SUPPORTS if share >= 0.8 else CONTRADICTS
    why = ("成熟 BLAS 的微内核几乎用满了它所用指令集的 FMA 单元。" if verdict == SUPPORTS
           else "本机的 BLAS 内核离同一指令集的 FMA 峰值还远，可能是频率变化或内核本身。")
    return Evidence(verdict, obs, why, "用内核实际所用指令集的实测峰值衡量利用率，而不是标称频率公式或机器最宽的指令集。",
                    comparison)


# --- the list, in the seed's order ---------------------------------------------------------

@dataclass
class Conclusion:
    id: str
    sections: tuple
    claim: str        # the original's claim in our words; {table/row/column} marks an archived figure
    judge: object     # Context -> Evidence


CONCLUSIONS = [   # claims in our words; {table/row/column} is an archived figure, quoted as printed
    Conclusion("tvm_vs_tf", ("20",), "TVM 推理比 TensorFlow 快（{s20_tf_vs_tvm/tvm/rounded} 秒对 "
               "{s20_tf_vs_tvm/tensorflow/rounded} 秒，约 {s20_summary/speedup/value} 倍）", _tvm_vs_tf),
    Conclusion("outputs_agree", ("20",), "TensorFlow 与 TVM 的分类输出基本一致", _outputs_agree),
    Conclusion("fallback_slow", ("20",), "AutoTVM 找不到配置而回退时，测到的是回退实现的慢速度", _fallback_slow),
    Conclusion("small_matrix", ("21",), "小矩阵的利用率远低于大矩阵（单核 FP32：n=32 为 {s21_numpy/single_fp32/32}，"
               "n=1024 为 {s21_numpy/single_fp32/1024} GFLOPS）", _small_matrix),
    Conclusion("multicore", ("21",), "多核扩展不是线性的（四核 FP32 利用率 {s21_numpy/quad_fp32/utilization}，"
               "低于单核的 {s21_numpy/single_fp32/utilization}）", _multicore),
    Conclusion("small_single_thread", ("5", "13"), "矩阵很小时，单线程可能反而比多线程快", _small_single_thread),
    Conclusion("numpy_near_peak", ("21",), "NumPy 接近单核理论峰值（单核 FP32 利用率 {s21_numpy/single_fp32/utilization}）",
               _numpy_near_peak),
    Conclusion("hand_gain", ("22",), "寄存器分块、SIMD/FMA 与缓存分块让手写 GEMM 从 {s22_hand_ladder/MMult0/1024} 升到 "
               "{s22_hand_ladder/MMult_4x4_15_1/1024} GFLOPS", _hand_gain),
    Conclusion("ladder_not_monotonic", ("22",), "阶梯并不单调（MMult_1x4_9 的 {s22_hand_ladder/MMult_1x4_9/1024} 之后，"
               "MMult_4x4_5 回落到 {s22_hand_ladder/MMult_4x4_5/1024}）", _ladder_monotonic),
    Conclusion("blocking_limited", ("23",), "分块收益有限（{s23_tvm_stages/baseline/tvm} → {s23_tvm_stages/blocking/tvm}），"
               "向量化与循环重排带来更大的下降（→ {s23_tvm_stages/vectorization/tvm} → "
               "{s23_tvm_stages/loop_permutation/tvm}）", _blocking_limited),
    Conclusion("parallel_near_numpy", ("23",), "并行之后 TVM 接近 NumPy（{s23_tvm_stages/parallel/tvm} 对 "
               "{s23_tvm_stages/parallel/numpy}）", _parallel_near_numpy),
    Conclusion("autotune_beats_hand", ("23",), "自动调优在手写并行之上再缩小差距（{s23_tvm_stages/parallel/tvm} → "
               "{s23_tvm_stages/autotuned/tvm}）", _autotune_beats_hand),
    Conclusion("batching", ("18",), "批处理能提高吞吐，但会增加单次调用的延迟", _batching),
    Conclusion("fusion", ("15", "29"), "融合减少了中间张量的写回（但未必总是更快）", _fusion),
    Conclusion("int8_needs_tuning", ("31",), "INT8 单独使用反而更慢，与调优配合才有收益（ResNet18：FP32 "
               "{s31_int8/resnet18_v1/tvm_fp32}，INT8 {s31_int8/resnet18_v1/tvm_int8}，INT8 + AutoTVM "
               "{s31_int8/resnet18_v1/tvm_int8_tuned}）", _int8_needs_tuning),
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
        cell += (f'<br><span class="warn" data-flipped="{conclusion.id}">最新一次复测改变了判断：'
                 f"此前为{VERDICT_ZH[before]}</span>")
    return cell


def table(ctx):
    """Every historical conclusion with the current evidence for or against it."""
    lines = ["| 原文 | 原文结论（转述，数字取自归档） | 当前证据（本次复测） | 比较与噪声规则 | 判断 |", "|---|---|---|---|---|"]
    before = previous_verdicts(ctx)
    for conclusion, claim, ev in judge_all(ctx):
        lines.append(f"| §{'、§'.join(conclusion.sections)} | {claim} | {ev.observation} | {ev.comparison or '—'} | "
                     f"{_verdict_cell(conclusion, ev, before.get(conclusion.id))} |")
    return "\n".join(lines)


def counts(ctx):
    """'N 条结论：a 条成立，…' computed from the verdicts."""
    verdicts = [ev.verdict for _c, _claim, ev in judge_all(ctx)]
    parts = [f"{verdicts.count(v)} 条{label}" for v, label in
             ((SUPPORTS, "成立"), (CONTRADICTS, "不成立"), (UNDECIDED, "无法判定"), (PENDING, "因尚无记录而无法判定"))
             if verdicts.count(v)]
    return f"共 {len(verdicts)} 条：" + "，".join(parts) + "。"


def statements(ctx, ids):
    """Observation / explanation / recommendation, kept apart (seed §23b), for chosen conclusions."""
    out = []
    before = previous_verdicts(ctx)
    for conclusion, claim, ev in judge_all(ctx):
        if conclusion.id not in ids:
            continue
        out.append(f"**{claim}** — {_verdict_cell(conclusion, ev, before.get(conclusion.id))}\n\n"
                   f"- 观察（测量事实）：{ev.observation}\n"
                   f"- 比较：{ev.comparison or '—'}\n"
                   f"- 解释（工程推断）：{ev.explanation or '—'}\n"
                   f"- 建议（适用条件）：{ev.recommendation or '—'}\n")
    return "\n".join(out) or "（没有这些结论）"


def reversed_results(ctx):
    """Conclusions the retest does not confirm, listed rather than hidden (seed §23b)."""
    rows = [f"- {claim}：{ev.observation} {ev.explanation}" for _c, claim, ev in judge_all(ctx)
            if ev.verdict in (CONTRADICTS, UNDECIDED)]
    return "\n".join(rows) or "本次复测没有与原文相反的结论。"


def ids():
    return [x.id for x in CONCLUSIONS]


