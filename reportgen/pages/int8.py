"""Tables of the INT8 study: calibration methods, per-layer error, coverage, §8 and §31, goals."""
from reportgen.data import compare, frame, merge, queries
from study import cases
from reportgen.render.figures import derive, fmt_number, operand, paired_derivation, paired_ratio
from reportgen.render.cells import code_span as _code, text as _esc
from reportgen.render.markdown import markdown, ms_cell as _ms_cell
from reportgen.data.words import W, W_fact, W_for
from reportgen.render.labels import INT8_ENGINES, engine_zh

ENGINES = [(e, engine_zh(e)) for e in INT8_ENGINES]   # (engine, label)
LABEL = dict(ENGINES)
INSTRUCTIONS = ("vpdpbusd", "vpmaddubsw", "vpmaddwd", "vpmulld", "vfmadd")
MODEL_LABEL = {"digits_cnn": "digits CNN", "resnet18_v1": "ResNet-18 v1", "inception_v1": "Inception v1"}


def _fam(current):
    return merge.family(current, "int8")


def models(current):
    """Models of the INT8 study, in record order."""
    return queries.models(current, "int8")


def get(current, model, engine):
    """The current record of one engine on one model, or None."""
    return frame.first(frame.select(current, "int8", model=model, engine=engine))


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
        return W("int8.quality.accuracy_prefix") + _pct(book, cur, "accuracy", score["accuracy"])
    return W("int8.quality.agreement_prefix") + _pct(book, cur, "top1_agree", score["top1_agree"])


def training(book, current):
    cur = current.get(cases.case_id("int8", model="digits_cnn", train=True))
    if cur is None:
        return W("int8.training.text")
    if not cur.ok:
        return book.failed(cur)
    t = cur.record["extra"]["training"]
    rid = cur.record["id"]
    counts = t.get("counts") or {}   # null as absent (it stopped the build in an AttributeError)
    return (W("int8.training.counts", train=counts.get('train', '?'), calib=counts.get('calib', '?'), eval=counts.get('eval', '?'), epochs=t['epochs'])
            + book.current(f"{rid}#seconds", fmt_number(t["seconds"], "s") + " s", "s", cur)
            + W("int8.training.accuracy_open") + book.current(f"{rid}#eval_accuracy", f"{t['eval_accuracy'] * 100:.2f}%", "%", cur)
            + W("int8.training.baseline_note"))


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
                                  W("int8.methods.times_unit"), cur),
                     W("common.punct.enumeration_comma").join(f"{_esc(k)} {v}" for k, v in sorted(ops.items())),
                     str(len([f for f in e["rewrite"]["float_ops"] if f["op"] not in ("reshape", "squeeze")])),
                     book.current(f"{rid}#weights_kib", fmt_number(e["weights_bytes"] / 1024, "KiB") + " KiB", "KiB", cur)
                     + " / " + fmt_number(e["fp32_weights_bytes"] / 1024, "KiB") + " KiB"])
    if not rows:
        return W("int8.training.text")
    return markdown([W("int8.methods.head_method"), W("int8.methods.head_scheme"), W("int8.methods.head_quality"), W("int8.methods.head_max_rel_err"), W("int8.methods.head_qdq_counts"), W("int8.methods.head_integer_ops"), W("int8.methods.head_float_ops"),
                     W("int8.methods.head_constant_size")], rows)


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


# Records written before the rewrite recorded a reason code (every run committed up to 20261201T124020Z)
# carry the sentence itself in "reason", never shown; their reason followed from the operator alone, by
# the rule quantize.py had then: these operators had their own, any other had no integer implementation.
_REASON_OF_OLD_OP = {"nn.max_pool2d": "after_float_pad", "mean": "mean_truncates", "call_tir": "pad_as_float_tir",
                     "reshape": "shape_only", "permute_dims": "shape_only", "squeeze": "shape_only",
                     "flatten": "shape_only"}


def float_reason(float_op, blame=None):
    """Why the rewrite left an operator in float: the words filed under its reason code.  ``blame``
    (the record's file, id and field) is named when the record carries a code with no words."""
    code = float_op.get("reason_code") or _REASON_OF_OLD_OP.get(float_op["op"], "no_integer_op")
    if blame is not None and float_op.get("reason_code"):
        return W_fact("int8.float_ops.reason", blame, code)
    return W_for("int8.float_ops.reason", code)


def float_ops(book, current, model, method=None, scheme=None):
    cur = _config(current, model, method, scheme)
    if cur is None or not cur.ok:
        return W("int8.training.text")
    rows = [[f"{_code(f['var'])}", f"{_code(f['op'])}", _esc(f["input"]),
             _esc(float_reason(f, cur.blame(f"extra.rewrite.float_ops[{i}].reason_code")))]
            for i, f in enumerate(cur.record["extra"]["rewrite"]["float_ops"])]
    link = book.current(f"{cur.record['id']}#float_ops", str(len(rows)), W("int8.float_ops.count_unit"), cur)
    return W("int8.float_ops.caption", link=link) + markdown([W("int8.float_ops.head_var"), W("int8.float_ops.head_op"), W("int8.float_ops.head_input"), W("int8.float_ops.head_reason")], rows)


def layers(book, current, model, method=None, scheme=None, limit=40):
    """FP32 vs INT8 per quantized group: where the error starts to grow."""
    cur = _config(current, model, method, scheme)
    if cur is None or not cur.ok:
        return W("int8.training.text")
    e = cur.record["extra"]
    method, scheme = cur.record["case"]["method"], cur.record["case"]["scheme"]
    rows = []
    worst = max(e["layers"], key=lambda r: r["rel_err"]) if e["layers"] else None
    for index, r in enumerate(e["layers"][:limit], 1):
        rows.append([str(index), f"{_code(r['layer'])}", _esc(r["dtype"]), f"[{r['fp32_min']:.3g}, {r['fp32_max']:.3g}]",
                     f"{r['fp32_mean']:.3g} / {r['int8_mean']:.3g}", f"{r['fp32_var']:.3g} / {r['int8_var']:.3g}",
                     f"{r['max_abs_err']:.3g}", f"{r['rel_err'] * 100:.2f}%", f"{r['saturation'] * 100:.3f}%"])
    head = (W("int8.layers.caption_open", model=MODEL_LABEL.get(model, _esc(model)), method=method, scheme=scheme)
            + book.current(f"{cur.record['id']}#layer_images", str(e["layer_images"]), W("int8.layers.images_unit"), cur)
            + W("int8.layers.caption_note"))
    if worst is not None:
        head += (W("int8.layers.worst_open") + str(e["layers"].index(worst) + 1) + W("int8.layers.worst_layer_open") + _esc(worst["layer"]) + W("int8.layers.worst_layer_close")
                 + book.current(f"{cur.record['id']}#worst_layer", f"{worst['rel_err'] * 100:.2f}%", "%", cur) + W("int8.layers.worst_close"))
    return head + "\n\n" + markdown(["#", W("int8.layers.head_layer"), W("int8.layers.head_dtype"), W("int8.layers.head_fp32_range"), W("int8.layers.head_mean"), W("int8.layers.head_variance"),
                                     W("int8.layers.head_max_abs_err"), W("int8.layers.head_rel_err"), W("int8.layers.head_saturation")], rows)


def _p50(book, cur):
    return _ms_cell(book, cur, "p50", "p50_ms")


def _size(book, cur):
    e = cur.record["extra"]
    size = e.get("bytes", e.get("weights_bytes"))
    if size is None:
        return "—"
    kind = W("int8.size.file") if "bytes" in e else W("int8.size.constants")
    return book.current(f"{cur.record['id']}#size_kib", fmt_number(size / 1024, "KiB") + " KiB", "KiB", cur) + W("int8.size.kind_note", kind=kind)


def _coverage(book, cur):
    e = cur.record["extra"]
    if e.get("rewrite"):
        ops = sum(e["rewrite"]["quantized_ops"].values())
        return W("int8.coverage.text", ops=ops, quantize=e['rewrite']['quantize'], dequantize=e['rewrite']['dequantize'])
    if e.get("relax_ops"):
        q = e["relax_ops"].get("relax.quantize", 0) + e["relax_ops"].get("relax.dequantize", 0)
        return W("int8.coverage.relax_qdq", q=q)
    cov = (e.get("ort_coverage") or {}).get("by_op") or {}
    if cov:
        return W("common.punct.enumeration_comma").join(W("int8.coverage.ort_op", op=_esc(op), integer=v.get('integer', 0), float=v.get('float', 0)) for op, v in sorted(cov.items()))
    conv = e.get("converter") or {}
    if "int8_compute_ops" in conv:
        count = lambda v: v if isinstance(v, int) else len(v)  # noqa: E731
        return (W("int8.coverage.tflite_ops", integer_ops=count(conv['int8_compute_ops']), float_ops=count(conv['float_compute_ops']), partitions=conv.get('xnnpack_partitions', '?')))
    return W("int8.coverage.all_fp32")


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
                     book.current(f"{cur.record['id']}#images_per_s", fmt_number(1 / cur.stat("p50"), "ips"), W("int8.metrics.ips_unit"), cur),
                     _quality(book, cur), _coverage(book, cur)])
    if not rows:
        return W("int8.training.text")
    return markdown([W("int8.metrics.head_scheme"), W("int8.metrics.head_size"), W("int8.metrics.head_latency"), W("int8.metrics.head_throughput"), W("int8.metrics.head_quality"), W("int8.metrics.head_coverage")], rows)


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
        cur = [_p50(book, tf) if tf is not None else W("int8.vs_history.not_measured")]
        for engine in ("tvm_fp32_tuned", "tvm_int8", "tvm_int8_tuned"):
            cur.append(_p50(book, get(current, model, engine)) if get(current, model, engine) is not None else W("int8.vs_history.not_measured"))
        rows.append([_esc(row["label"])] + hist + cur)
    heads = [W("int8.vs_history.head_model")] + [c["label"] + W("int8.vs_history.history_suffix") for c in table.columns] + \
        [W("int8.vs_history.head_tf_today"), W("int8.vs_history.head_tvm_fp32_tuned_today"), W("int8.vs_history.head_tvm_int8_today"), W("int8.vs_history.head_tvm_int8_tuned_today")]
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
                                    W("int8.isa.count_unit"), cur) for i in INSTRUCTIONS])
    if not rows:
        return W("int8.training.text")
    if flags and not (flags.get("avx512_vnni") or flags.get("avx_vnni")):
        lead = (W("int8.isa.lead_no_vnni"))
    else:
        lead = W("int8.isa.lead_vnni")
    return lead + W("int8.isa.table_intro") + markdown(
        [W("int8.vs_history.head_model"), W("int8.isa.head_engine"), W("int8.isa.head_hottest_kernel")] + [f"`{i}`" for i in INSTRUCTIONS], rows)


def tensorization(book, current, words):
    """Per tuned INT8 network: packed VNNI kernels in the program, tasks MetaSchedule tensorized
    ("Tensorizing with ..." in its logs), and whether vpdpbusd reached the hottest kernel.

    ``words`` (from the page template): ``heads`` (six column titles), ``yes``, ``no``, ``none``
    (the text when no tuned INT8 record exists).
    """
    rows = []
    for cur in _fam(current).values():
        e = cur.record["extra"]
        if cur.record["case"].get("engine") != "tvm_int8_tuned" or not cur.ok:
            continue
        rid, tuning, asm = cur.record["id"], e.get("tuning", {}), e.get("asm", {})
        packed = (e.get("rewrite") or {}).get("vnni_packed") or {}
        tens = tuning.get("tensorized") or {}
        hot = (asm.get("hottest") or {}).get("vpdpbusd", 0)
        rows.append([MODEL_LABEL.get(cur.record["case"]["model"], _esc(cur.record["case"]["model"])),
                     book.current(f"{rid}#vnni_packed", str(sum(packed.values())), "kernels", cur),
                     (book.current(f"{rid}#tensorized_tasks", f"{tens.get('count', 0)} / {tens.get('tuned_tasks', 0)}",
                                   "tasks", cur) if tens else "—"),
                     book.current(f"{rid}#vpdpbusd_kernels", str((asm.get("kernels_with") or {}).get("vpdpbusd", 0)),
                                  "kernels", cur),
                     words["yes" if hot else "no"] + f" ({book.current(f'{rid}#vpdpbusd_hot', str(hot), 'instructions', cur)})",
                     book.current(f"{rid}#trials", str(tuning.get("trials", 0)), "trials", cur)])
    if not rows:
        return words["none"]
    return markdown(list(words["heads"]), rows)


def goals(book, current, model="resnet18_v1", digits="digits_cnn", words=None):
    """The issue's goals as computed sentences (shown, never asserted); ``words["same_budget"]``
    (from the template) opens the budget sentence when both networks were tuned here alike."""
    out = []
    f, d = get(current, model, "tvm_int8_tuned"), get(current, model, "tvm_fp32_tuned")
    best_f = fastest(current, model, INT8_TVM)
    best_d = fastest(current, model, FP32_TVM, run=best_f.record["run_id"]) if best_f is not None else None
    if best_f is not None and best_d is not None:   # the goal: the best of each side, one run
        ratio = best_d.stat("p50") / best_f.stat("p50")
        cell = book.current(f"{best_f.record['id']}#vs_best_fp32", f"{ratio:.2f}×", "×", best_f, also=(best_d,))
        out.append(W("int8.goals.int8_vs_fp32", model=MODEL_LABEL.get(model, model), cell=cell,
                     int8=engine_zh(best_f.record["case"]["engine"]), fp32=engine_zh(best_d.record["case"]["engine"]),
                     ratio=W("int8.goals.met") if ratio >= 2 else W("int8.goals.missed")))
    if f is not None and d is not None and f.ok and d.ok and f.record["run_id"] == d.record["run_id"]:
        td, tf = d.record["extra"].get("tuning", {}), f.record["extra"].get("tuning", {})
        if td.get("trials") and tf.get("trials"):
            same = td.get("source") == tf.get("source") == "int8 family" and (words or {}).get("same_budget")
            out.append((words["same_budget"] if same else W("int8.goals.budget_open"))
                       + book.current(f"{d.record['id']}#trials_budget", str(td["trials"]), "trials", d)
                       + W("int8.goals.budget_middle")
                       + book.current(f"{f.record['id']}#trials_budget", str(tf["trials"]), "trials", f)
                       + W("int8.goals.budget_close"))
    t = get(current, model, "tflite_int8")
    if best_f is not None and t is not None and t.ok and best_f.record["run_id"] == t.record["run_id"]:
        cell = book.current(f"{best_f.record['id']}#vs_tflite_int8", f"{best_f.stat('p50') / t.stat('p50'):.2f}×", "×", best_f,
                            also=(t,))
        out.append(W("int8.goals.vs_tflite", cell=cell))
    q = get(current, digits, "tvm_int8")
    if q is not None and q.ok and "accuracy" in q.record["extra"]["score"]:
        s = q.record["extra"]["score"]
        drop = (s["fp32_accuracy"] - s["accuracy"]) * 100
        cell = book.current(f"{q.record['id']}#accuracy_drop", f"{drop:.2f}", W("int8.goals.points_unit"), q)
        out.append(W("int8.goals.accuracy_drop", cell=cell, drop=W("int8.goals.met") if drop <= 1 else W("int8.goals.missed")))
    return "\n".join(out) if out else W("int8.goals.no_same_run")


INT8_TVM = ("tvm_int8", "tvm_int8_tuned", "tvm_int8_rules")
FP32_TVM = ("tvm_fp32", "tvm_fp32_tuned", "tvm_fp32_rules")


def fastest(current, model, engines, run=None):
    """The fastest ok record among ``engines`` for one model (of one run when given): a comparison
    takes the best of each side, never a variant that happens to share a name."""
    found = [c for c in (get(current, model, e) for e in engines)
             if c is not None and c.ok and c.record["samples"] and (run is None or c.record["run_id"] == run)]
    return merge.fastest(found) if found else None


PAIRS = [(W("int8.pairs.tvm_untuned"), "tvm_fp32", "tvm_int8"), (W("int8.pairs.tvm_tuned"), "tvm_fp32_tuned", "tvm_int8_tuned"),
         (W("int8.pairs.ort"), "ort_fp32", "ort_qdq"), (W("int8.pairs.tflite"), "tflite_fp32", "tflite_int8"),
         (W("int8.pairs.tvm_imported_qdq"), "tvm_fp32", "tvm_qdq")]


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
            row.append(book.current(f"{b.record['id']}#speedup_vs_{fp32}", f"{ratio:.2f}×", "×", b, also=(a,))
                       + ("" if ratio >= 1 else W("int8.speedups.slower")))
        rows.append(row)
    if not rows:
        return W("int8.training.text")
    return markdown([W("int8.vs_history.head_model")] + [p[0] for p in PAIRS], rows)


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
        "int8_goals": lambda **words: goals(b, d.current, words=words),
        "int8_tensorization": lambda words: tensorization(b, d.current, words),
        "int8_speedups": lambda: speedups(b, d.current),
        "int8_model_label": lambda model: MODEL_LABEL.get(model, model),
        "int8_finding": lambda model="resnet18_v1": finding(b, d.current, model),
    }


def finding(book, current, model="resnet18_v1"):
    """Facts of the page's opening finding (words in docs/int8.md): on one network, tuned INT8
    against tuned FP32 (what our integer path buys), ONNX Runtime's QDQ against its FP32 (what a
    mature integer path buys on the same machine), and tuned TVM INT8 against ONNX Runtime QDQ."""
    from reportgen.pages.gemm_ladder import verdict_within
    f = fastest(current, model, INT8_TVM)
    d = fastest(current, model, FP32_TVM, run=f.record["run_id"]) if f is not None else None
    of, oq = get(current, model, "ort_fp32"), get(current, model, "ort_qdq")
    if not all(c is not None and c.ok for c in (f, d, of, oq)) or len({c.record["run_id"] for c in (f, d, of, oq)}) != 1:
        return None
    ours, theirs, gap = d.stat("p50") / f.stat("p50"), of.stat("p50") / oq.stat("p50"), f.stat("p50") / oq.stat("p50")
    paired = paired_ratio(f, "ort_qdq")   # timed in alternating blocks with ORT QDQ: that ratio, with its interval
    if paired is not None:
        gap = paired[0]
    # bootstrap intervals of the two speed-ups (each median ratio of two records of one run)
    ours_ci = compare.ratio_interval(f.record["samples"], d.record["samples"])
    theirs_ci = compare.ratio_interval(oq.record["samples"], of.record["samples"])
    gap_ci = paired[1] if paired is not None else compare.ratio_interval(oq.record["samples"], f.record["samples"])
    asm = f.record["extra"].get("asm") or {}
    vnni = bool((asm.get("all_kernels") or {}).get("vpdpbusd"))
    # kernels the tuned program left as plain loop nests (no candidate built), and their share of its op profile
    unscheduled = set((f.record["extra"].get("tuning") or {}).get("unscheduled") or [])
    kernels = [op for op in f.record["extra"].get("op_profile") or [] if op.get("kind") == "kernel"]
    total = sum(float(op["seconds"]) for op in kernels)
    idle = sum(float(op["seconds"]) for op in kernels if op["op"] in unscheduled)
    share = idle / total if total else 0.0
    return {"model": MODEL_LABEL.get(model, model),
            "int8_label": engine_zh(f.record["case"]["engine"]), "fp32_label": engine_zh(d.record["case"]["engine"]),
            "unscheduled": book.current(f"{f.record['id']}#unscheduled", str(len(unscheduled)), "kernels", f),
            "unscheduled_share": book.current(f"{f.record['id']}#unscheduled_share", f"{share * 100:.0f}%", "%", f),
            "unscheduled_dominate": share >= 0.5,
            "hot_vpdpbusd": bool((asm.get("hottest") or {}).get("vpdpbusd")),
            "int8_ms": _p50(book, f), "fp32_ms": _p50(book, d), "ort_qdq_ms": _p50(book, oq),
            "ours": book.current(f"{f.record['id']}#vs_best_fp32", f"{ours:.2f}×", "×", f,
                                 derived=derive(f"p50({d.record['case']['engine']}) / p50({f.record['case']['engine']}), "
                                                "the fastest FP32 and INT8 TVM networks of one run",
                                                operand(d.record["case"]["engine"], d, fmt_number(d.stat("p50") * 1e3, "ms"), "ms (p50)"),
                                                operand(f.record["case"]["engine"], f, fmt_number(f.stat("p50") * 1e3, "ms"), "ms (p50)")))
            + _interval(ours_ci),
            "ours_verdict": verdict_within(ours, ours_ci),
            "theirs": book.current(f"{oq.record['id']}#speedup_vs_ort_fp32", f"{theirs:.2f}×", "×", oq,
                                   derived=derive("p50(ort_fp32) / p50(ort_qdq)", operand("ort_fp32", of, fmt_number(of.stat("p50") * 1e3, "ms"), "ms (p50)"),
                                                  operand("ort_qdq", oq, fmt_number(oq.stat("p50") * 1e3, "ms"), "ms (p50)")))
            + _interval(theirs_ci),
            "theirs_verdict": verdict_within(theirs, theirs_ci),
            "vs_ort": book.current(f"{f.record['id']}#vs_ort_qdq", f"{gap:.2f}×", "×", f, also=(oq,),
                                   derived=paired_derivation(f) if paired is not None else
                                   derive(f"p50({f.record['case']['engine']}) / p50(ort_qdq), same run", operand(f.record["case"]["engine"], f, fmt_number(f.stat("p50") * 1e3, "ms"), "ms (p50)"),
                                          operand("ort_qdq", oq, fmt_number(oq.stat("p50") * 1e3, "ms"), "ms (p50)")))
            + _interval(gap_ci),
            "gap_verdict": verdict_within(1 / gap, gap_ci and (1 / gap_ci[1], 1 / gap_ci[0])), "vpdpbusd": vnni,
            # compiled by the VNNI rule (fixed tiles, no search) rather than by MetaSchedule
            "by_rule": f.record["case"]["engine"] in ("tvm_int8_rules", "tvm_int8_rules_avx2")}


def _interval(ci):
    """The 95 % interval after a ratio, or nothing when there are too few samples for one."""
    return W("int8_rules.interval", lo=ci[0], hi=ci[1]) if ci is not None else ""
