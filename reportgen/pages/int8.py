"""Tables of the INT8 study: calibration methods, per-layer error, coverage, §8 and §31, goals."""
from reportgen.data import merge
from reportgen.render.figures import fmt_number
from reportgen.render.cells import code_span as _code, text as _esc
from reportgen.render.markdown import markdown, ms_cell as _ms_cell

ENGINES = [  # (engine, label)
    ("tvm_fp32", "TVM FP32（C）"), ("tvm_int8", "TVM INT8（E）"), ("tvm_fp32_tuned", "TVM FP32 调优（D）"),
    ("tvm_int8_tuned", "TVM INT8 调优（F）"), ("tvm_qdq", "TVM 导入 QDQ"), ("ort_fp32", "ORT FP32"),
    ("ort_qdq", "ORT QDQ INT8"), ("tflite_fp32", "TFLite FP32"), ("tflite_int8", "TFLite INT8"),
]
LABEL = dict(ENGINES)
INSTRUCTIONS = ("vpdpbusd", "vpmaddubsw", "vpmaddwd", "vpmulld", "vfmadd")
MODEL_LABEL = {"digits_cnn": "digits CNN", "resnet18_v1": "ResNet-18 v1", "inception_v1": "Inception v1"}


def _fam(current):
    return merge.family(current, "int8")


def models(current):
    """Models of the INT8 study, in record order."""
    seen = []
    for cur in _fam(current).values():
        model = cur.record["case"].get("model")
        if model and model not in seen:
            seen.append(model)
    return seen


def get(current, model, engine):
    """The current record of one engine on one model, or None."""
    return next((c for c in _fam(current).values() if c.record["case"].get("model") == model
                 and c.record["case"].get("engine") == engine), None)


def _quant(current, model):
    return [c for c in _fam(current).values() if c.record["case"].get("model") == model
            and "method" in c.record["case"]]


def _pct(book, cur, key, value):
    """A share as a percentage, formatted as every page formats it (one figure id, one text)."""
    from reportgen.render.lookup import percent
    return percent(book, cur, key, value)


def _quality(book, cur):
    """Accuracy when the model has labels (digits), else top-1 agreement with FP32."""
    score = cur.record["extra"]["score"]
    if "accuracy" in score:
        return "准确率 " + _pct(book, cur, "accuracy", score["accuracy"])
    return "top-1 一致 " + _pct(book, cur, "top1_agree", score["top1_agree"])


def training(book, current):
    cur = current.get("int8/model=digits_cnn/train")
    if cur is None:
        return "（尚无记录）"
    if not cur.ok:
        return book.failed(cur)
    t = cur.record["extra"]["training"]
    rid = cur.record["id"]
    counts = t.get("counts", {})
    return (f"训练集 {counts.get('train', '?')} 张、校准集 {counts.get('calib', '?')} 张、评估集 {counts.get('eval', '?')} 张，"
            f"{t['epochs']} 轮，用时 "
            + book.current(f"{rid}#seconds", fmt_number(t["seconds"], "s") + " s", "s", cur)
            + "；评估集准确率 " + book.current(f"{rid}#eval_accuracy", f"{t['eval_accuracy'] * 100:.2f}%", "%", cur)
            + "（FP32 基线，量化后的准确率都和它比）。")


def methods(book, current, model):
    """Every calibration method x scheme: quality, error, conversions, coverage, weight bytes."""
    rows = []
    for cur in _quant(current, model):
        case, rid = cur.record["case"], cur.record["id"]
        if not cur.ok:
            rows.append([case["method"], case["scheme"], book.failed(cur)] + ["—"] * 5)
            continue
        e = cur.record["extra"]
        ops = e["rewrite"]["quantized_ops"]
        rows.append([case["method"], case["scheme"], _quality(book, cur),
                     book.current(f"{rid}#max_rel_err", f"{cur.record['check']['max_rel_err']:.3f}", "rel", cur),
                     book.current(f"{rid}#conversions", f"{e['rewrite']['quantize']} / {e['rewrite']['dequantize']}",
                                  "次", cur),
                     "、".join(f"{k} {v}" for k, v in sorted(ops.items())),
                     str(len([f for f in e["rewrite"]["float_ops"] if f["op"] not in ("reshape", "squeeze")])),
                     book.current(f"{rid}#weights_kib", fmt_number(e["weights_bytes"] / 1024, "KiB") + " KiB", "KiB", cur)
                     + " / " + fmt_number(e["fp32_weights_bytes"] / 1024, "KiB") + " KiB"])
    if not rows:
        return "（尚无记录）"
    return markdown(["校准方法", "激活方案", "质量", "最大相对误差", "量化 / 反量化次数", "整数算子", "浮点算子数",
                     "常量大小 INT8 / FP32"], rows)


def _config(current, model, method, scheme):
    """The quantization record asked for, or the one the timed INT8 engine used."""
    if method is None:
        e = get(current, model, "tvm_int8")
        if e is None or not e.record["case"].get("quant"):
            return None
        method, scheme = e.record["case"]["quant"]["method"], e.record["case"]["quant"]["scheme"]
    return next((c for c in merge.family(current, "int8").values()
                 if c.record["case"].get("model") == model and c.record["case"].get("method") == method
                 and c.record["case"].get("scheme") == scheme), None)


def float_ops(book, current, model, method=None, scheme=None):
    cur = _config(current, model, method, scheme)
    if cur is None or not cur.ok:
        return "（尚无记录）"
    rows = [[f"{_code(f['var'])}", f"{_code(f['op'])}", _esc(f["input"]), _esc(f["reason"])]
            for f in cur.record["extra"]["rewrite"]["float_ops"]]
    link = book.current(f"{cur.record['id']}#float_ops", str(len(rows)), "个", cur)
    return f"留在浮点的算子共 {link} 个：\n\n" + markdown(["变量", "算子", "输入", "原因"], rows)


def layers(book, current, model, method=None, scheme=None, limit=40):
    """FP32 vs INT8 per quantized group: where the error starts to grow."""
    cur = _config(current, model, method, scheme)
    if cur is None or not cur.ok:
        return "（尚无记录）"
    e = cur.record["extra"]
    method, scheme = cur.record["case"]["method"], cur.record["case"]["scheme"]
    rows = []
    worst = max(e["layers"], key=lambda r: r["rel_err"]) if e["layers"] else None
    for index, r in enumerate(e["layers"][:limit], 1):
        rows.append([str(index), f"{_code(r['layer'])}", r["dtype"], f"[{r['fp32_min']:.3g}, {r['fp32_max']:.3g}]",
                     f"{r['fp32_mean']:.3g} / {r['int8_mean']:.3g}", f"{r['fp32_var']:.3g} / {r['int8_var']:.3g}",
                     f"{r['max_abs_err']:.3g}", f"{r['rel_err'] * 100:.2f}%", f"{r['saturation'] * 100:.3f}%"])
    head = (f"{MODEL_LABEL.get(model, _esc(model))}，{method} 校准，{scheme} 方案，"
            + book.current(f"{cur.record['id']}#layer_images", str(e["layer_images"]), "张", cur)
            + " 张评估图像；相对误差 = 最大绝对误差 ÷ 该层 FP32 的最大绝对值；饱和 = FP32 值落在截断范围之外的比例。")
    if worst is not None:
        head += (" 相对误差最大的是第 " + str(e["layers"].index(worst) + 1) + " 层 `" + _esc(worst["layer"]) + "`（"
                 + book.current(f"{cur.record['id']}#worst_layer", f"{worst['rel_err'] * 100:.2f}%", "%", cur) + "）。")
    return head + "\n\n" + markdown(["#", "层（组输出）", "类型", "FP32 范围", "均值 FP32 / INT8", "方差 FP32 / INT8",
                                     "最大绝对误差", "相对误差", "饱和"], rows)


def _p50(book, cur):
    return _ms_cell(book, cur, "p50", "p50_ms")


def _size(book, cur):
    e = cur.record["extra"]
    size = e.get("bytes", e.get("weights_bytes"))
    if size is None:
        return "—"
    kind = "文件" if "bytes" in e else "常量"
    return book.current(f"{cur.record['id']}#size_kib", fmt_number(size / 1024, "KiB") + " KiB", "KiB", cur) + f"（{kind}）"


def _coverage(book, cur):
    e = cur.record["extra"]
    if e.get("rewrite"):
        ops = sum(e["rewrite"]["quantized_ops"].values())
        return f"整数组 {ops}，量化/反量化 {e['rewrite']['quantize']}/{e['rewrite']['dequantize']}"
    if e.get("relax_ops"):
        q = e["relax_ops"].get("relax.quantize", 0) + e["relax_ops"].get("relax.dequantize", 0)
        return f"QDQ 导入为浮点算子，quantize/dequantize {q}"
    cov = (e.get("ort_coverage") or {}).get("by_op") or {}
    if cov:
        return "、".join(f"{op} 整数 {v.get('integer', 0)} / 浮点 {v.get('float', 0)}" for op, v in sorted(cov.items()))
    conv = e.get("converter") or {}
    if "int8_compute_ops" in conv:
        count = lambda v: v if isinstance(v, int) else len(v)  # noqa: E731
        return (f"整数计算算子 {count(conv['int8_compute_ops'])}，浮点计算算子 {count(conv['float_compute_ops'])}，"
                f"XNNPACK 分区 {conv.get('xnnpack_partitions', '?')}")
    return "全部 FP32"


def s08(book, current, model):
    """Seed §8's metrics (size, P50, throughput, quality, coverage) per engine of one model."""
    rows = []
    for engine, label in ENGINES:
        cur = get(current, model, engine)
        if cur is None:
            continue
        if not cur.ok:
            rows.append([label, book.failed(cur), "—", "—", "—", "—"])
            continue
        rows.append([label, _size(book, cur), _p50(book, cur),
                     book.current(f"{cur.record['id']}#images_per_s", fmt_number(1 / cur.stat("p50"), "ips"), "图/秒", cur),
                     _quality(book, cur), _coverage(book, cur)])
    if not rows:
        return "（尚无记录）"
    return markdown(["方案", "模型或权重大小", "单次延迟 p50", "吞吐（batch 1）", "精度", "算子覆盖"], rows)


def s31(book, table, current):
    """Seed §31 beside today's retest: original framework, TVM FP32, INT8, INT8 + tuning."""
    e2e = merge.family(current, "e2e")
    rows = []
    for row in table.rows:
        model = row["key"]
        cells = [table.cell(model, c["key"]) for c in table.columns]
        hist = [book.historical(c) if c.kind == "figure" else _esc(c.text) for c in cells]
        tf = next((c for c in e2e.values() if c.record["case"]["model"] == model and c.record["case"]["engine"] == "tf"
                   and c.record["case"]["batch"] == 1), None)
        cur = [_p50(book, tf) if tf is not None else "未测"]
        for engine in ("tvm_fp32_tuned", "tvm_int8", "tvm_int8_tuned"):
            cur.append(_p50(book, get(current, model, engine)) if get(current, model, engine) is not None else "未测")
        rows.append([_esc(row["label"])] + hist + cur)
    heads = ["模型"] + [c["label"] + "（历史）" for c in table.columns] + \
        ["TensorFlow（今天）", "TVM FP32 调优（今天）", "TVM INT8（今天）", "TVM INT8 + MetaSchedule（今天）"]
    return markdown(heads, rows)


def isa(book, current):
    """What the integer kernels are made of: the CPU's VNNI flags and the instructions in the hot loop."""
    rows, flags = [], None
    for cur in _fam(current).values():
        e = cur.record["extra"]
        if not cur.ok or "asm" not in e:
            continue
        flags = e.get("isa", flags)
        hot = e["asm"]["hottest"]
        rows.append([MODEL_LABEL.get(cur.record["case"]["model"], cur.record["case"]["model"]),
                     LABEL[cur.record["case"]["engine"]], f"{_code(e['asm']['hottest_kernel'] or '—')}"]
                    + [book.current(f"{cur.record['id']}#asm_{i}", f"{hot.get(i, 0)} / {e['asm']['all_kernels'].get(i, 0)}",
                                    "条", cur) for i in INSTRUCTIONS])
    if not rows:
        return "（尚无记录）"
    if flags and not (flags.get("avx512_vnni") or flags.get("avx_vnni")):
        lead = ("本机 CPU 没有 VNNI（`/proc/cpuinfo` 中既无 `avx512_vnni` 也无 `avx_vnni`），`vpdpbusd` 不可用；"
                "整数点积只能用 AVX2 的 `vpmaddubsw`（u8×s8→s16，会饱和）或 `vpmaddwd`（s16×s16→s32）。")
    else:
        lead = "本机 CPU 有 VNNI：整数点积可以用 `vpdpbusd`（u8×s8 累加到 s32）一条指令完成。"
    return lead + "下表数的是这些指令在汇编里出现的次数（最热内核 / 全部内核）：\n\n" + markdown(
        ["模型", "引擎", "最热内核"] + [f"`{i}`" for i in INSTRUCTIONS], rows)


def goals(book, current, model="resnet18_v1", digits="digits_cnn"):
    """The issue's goals as computed sentences (shown, never asserted)."""
    out = []
    f, d = get(current, model, "tvm_int8_tuned"), get(current, model, "tvm_fp32_tuned")
    if f is not None and d is not None and f.ok and d.ok and f.record["run_id"] == d.record["run_id"]:
        ratio = d.stat("p50") / f.stat("p50")
        cell = book.current(f"{f.record['id']}#vs_fp32_tuned", f"{ratio:.2f}×", "×", f)
        out.append(f"- {MODEL_LABEL.get(model, model)}：INT8 调优比 FP32 调优快 {cell}，"
                   f"目标（≥ 2×）{'**达到**' if ratio >= 2 else '**未达到**'}。")
        td, tf = d.record["extra"].get("tuning", {}), f.record["extra"].get("tuning", {})
        if td.get("trials") and tf.get("trials"):
            out.append("  两者的调优预算不同：FP32 网络用了 "
                       + book.current(f"{d.record['id']}#trials_budget", str(td["trials"]), "trials", d)
                       + " 次试验，INT8 网络用了 "
                       + book.current(f"{f.record['id']}#trials_budget", str(tf["trials"]), "trials", f)
                       + " 次；比较时要把预算和指令集一起看。")
    t = get(current, model, "tflite_int8")
    if f is not None and t is not None and f.ok and t.ok and f.record["run_id"] == t.record["run_id"]:
        cell = book.current(f"{f.record['id']}#vs_tflite_int8", f"{f.stat('p50') / t.stat('p50'):.2f}×", "×", f)
        out.append(f"- 同一模型上 TVM INT8 调优的延迟是 TFLite INT8 的 {cell}。")
    q = get(current, digits, "tvm_int8")
    if q is not None and q.ok and "accuracy" in q.record["extra"]["score"]:
        s = q.record["extra"]["score"]
        drop = (s["fp32_accuracy"] - s["accuracy"]) * 100
        cell = book.current(f"{q.record['id']}#accuracy_drop", f"{drop:.2f}", "点", q)
        out.append(f"- digits CNN：INT8 相对 FP32 的准确率下降 {cell} 个百分点，"
                   f"目标（≤ 1 点）{'**达到**' if drop <= 1 else '**未达到**'}。")
    return "\n".join(out) if out else "（尚无同一次运行中的记录，无法判断）"


PAIRS = [("TVM 未调优（C → E）", "tvm_fp32", "tvm_int8"), ("TVM 调优（D → F）", "tvm_fp32_tuned", "tvm_int8_tuned"),
         ("ONNX Runtime（FP32 → QDQ）", "ort_fp32", "ort_qdq"), ("TFLite（FP32 → INT8）", "tflite_fp32", "tflite_int8"),
         ("TVM：FP32 → 导入的 QDQ", "tvm_fp32", "tvm_qdq")]


def speedups(book, current):
    """What INT8 buys inside each engine: FP32 p50 ÷ INT8 p50, measured in one run."""
    rows = []
    for model in models(current):
        row = [MODEL_LABEL.get(model, _esc(model))]
        for _, fp32, int8 in PAIRS:
            a, b = get(current, model, fp32), get(current, model, int8)
            if a is None or b is None or not a.ok or not b.ok or a.record["run_id"] != b.record["run_id"]:
                row.append("—")
                continue
            ratio = a.stat("p50") / b.stat("p50")
            row.append(book.current(f"{b.record['id']}#speedup_vs_{fp32}", f"{ratio:.2f}×", "×", b)
                       + ("" if ratio >= 1 else "（变慢）"))
        rows.append(row)
    if not rows:
        return "（尚无记录）"
    return markdown(["模型"] + [p[0] for p in PAIRS], rows)


def names(site):
    """The placeholders this module gives the page templates."""
    d, b = site.data, site.book
    return {
        "int8_models": lambda: models(d.current),
        "int8_training": lambda: training(b, d.current),
        "int8_methods": lambda model: methods(b, d.current, model),
        "int8_float_ops": lambda model, method=None, scheme=None: float_ops(b, d.current, model, method, scheme),
        "int8_layers": lambda model, method=None, scheme=None: layers(b, d.current, model, method, scheme),
        "int8_s08": lambda model: s08(b, d.current, model),
        "int8_s31": lambda: s31(b, d.tables["s31_int8"], d.current),
        "int8_isa": lambda: isa(b, d.current),
        "int8_goals": lambda: goals(b, d.current),
        "int8_speedups": lambda: speedups(b, d.current),
        "int8_model_label": lambda model: MODEL_LABEL.get(model, model),
    }
