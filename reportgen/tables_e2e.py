"""Tables of the end-to-end study: the §9 summary built from records, latencies, per-operator time."""
from . import merge
from .figures import fmt_number
from .tables import _esc, _ms_cell, markdown

SCHEMES = [  # (engine, 方案, 图优化, GEMM 调度, 数据类型)
    ("tf", "TensorFlow（A 组）", "-", "库实现", "FP32"),
    ("ort", "ONNX Runtime（A 组对照）", "ORT 图优化", "库实现（MLAS）", "FP32"),
    ("tflite", "TFLite XNNPACK（A 组对照）", "转换器", "库实现（XNNPACK）", "FP32"),
    ("tvm_b", "TVM Basic（B 组）", "基础（无融合）", "默认（未调度）", "FP32"),
    ("tvm_c", "TVM 图优化（C 组）", "有（折叠 + 融合）", "默认（未调度）", "FP32"),
]
LATER = [("TVM GEMM（D 组）", "有", "MetaSchedule 调优", "FP32"), ("TVM INT8（E 组）", "有", "默认/调优", "INT8"),
         ("Combined（F 组）", "有", "调优", "INT8")]


def _fam(current):
    return merge.family(current, "e2e")


def models(current):
    seen = []
    for cur in _fam(current).values():
        if cur.record["case"]["model"] not in seen:
            seen.append(cur.record["case"]["model"])
    return seen


def _get(current, model, engine):
    return next((c for c in _fam(current).values() if c.record["case"]["model"] == model
                 and c.record["case"]["engine"] == engine and c.record["case"]["batch"] == 1), None)


def _ms(book, cur, stat="p50"):
    return _ms_cell(book, cur, stat, f"{stat}_ms")


def _bottleneck(book, cur):
    """The slowest operator from the VM profile (TVM only): computed, never typed."""
    if cur is None or not cur.ok or not cur.record["extra"].get("op_profile"):
        return "—"
    top = cur.record["extra"]["op_profile"][0]
    share = top["seconds"] / cur.record["extra"]["op_profile_total_s"]
    return (f"`{_esc(top['op'])}`（" + book.current(f"{cur.record['id']}#top_op_share", f"{share * 100:.0f}%", "%", cur)
            + " 的时间）")


def summary(book, current, model):
    """Seed §9's table for one model, every number from a record; D/E/F shown as not yet measured."""
    tf = _get(current, model, "tf")
    lines = []
    for engine, scheme, graph, gemm, dtype in SCHEMES:
        cur = _get(current, model, engine)
        ratio = "—"
        if cur is not None and cur.ok and tf is not None and tf.ok:
            ratio = book.current(f"{cur.record['id']}#vs_tf", f"{cur.stat('p50') / tf.stat('p50'):.2f}×", "×", cur)
        agree = "基线" if engine == "tf" else (
            book.current(f"{cur.record['id']}#max_rel_err", f"{cur.record['check']['max_rel_err']:.1e}", "rel", cur)
            if cur is not None and cur.record["check"].get("max_rel_err") is not None else "—")
        lines.append([scheme, graph, gemm, dtype, _ms(book, cur), ratio, agree,
                      _bottleneck(book, cur) if engine.startswith("tvm") else "框架内核库"])
    for scheme, graph, gemm, dtype in LATER:
        lines.append([scheme, graph, gemm, dtype, "尚未测量", "—", "—", "—"])
    return markdown(["方案", "图优化", "GEMM 调度", "数据类型", "延迟 p50（batch 1）", "÷ TensorFlow",
                     "与 TF 的最大相对误差", "主要瓶颈（按测量）"], lines)


def latency_table(book, current):
    lines = []
    for model in models(current):
        row = [_esc(model)]
        for engine, *_ in SCHEMES:
            cur = _get(current, model, engine)
            row.append(_ms(book, cur) + (" / " + _ms(book, cur, "p95") if cur is not None and cur.ok else ""))
        lines.append(row)
    return markdown(["模型"] + [s[1] for s in SCHEMES], lines)


def compile_table(book, current):
    lines = []
    for model in models(current):
        for engine in ("tvm_b", "tvm_c"):
            cur = _get(current, model, engine)
            if cur is None or not cur.ok:
                continue
            e = cur.record["extra"]
            calls = sum(e.get("kernel_calls", {}).values())
            lines.append([_esc(model), engine.upper().replace("TVM_", "TVM "),
                          book.current(f"{cur.record['id']}#import_s", fmt_number(e["import_seconds"], "s") + " s", "s", cur),
                          book.current(f"{cur.record['id']}#compile_s", fmt_number(e["compile_seconds"], "s") + " s", "s", cur),
                          book.current(f"{cur.record['id']}#cold_ms", fmt_number(e["cold_seconds"] * 1e3, "ms") + " ms", "ms", cur),
                          _ms(book, cur), str(len(e.get("kernel_calls", {}))), str(calls)])
    return markdown(["模型", "变体", "导入（ONNX）", "编译", "首次运行（冷）", "稳定运行 p50", "不同内核数", "每次推理的内核调用"], lines)


def op_profile(book, current, model, engine="tvm_c"):
    cur = _get(current, model, engine)
    if cur is None or not cur.ok:
        return "（尚无记录）"
    e = cur.record["extra"]
    total = e["op_profile_total_s"]
    lines = [[f"`{_esc(op['op'])}`", _esc(op["kind"]), str(op["calls"]),
              fmt_number(op["seconds"] * 1e3, "ms") + " ms", f"{op['seconds'] / total * 100:.1f}%"]
             for op in e["op_profile"]]
    return (f"{_esc(model)}，{engine.upper().replace('TVM_', 'TVM ')}，一次推理（VM instrument 计时，含少量插桩开销），"
            f"合计 " + book.current(f"{cur.record['id']}#profile_total", fmt_number(total * 1e3, "ms") + " ms", "ms", cur)
            + "：\n\n" + markdown(["算子（内核或 VM 内建函数）", "类别", "调用次数", "时间", "占比"], lines))
