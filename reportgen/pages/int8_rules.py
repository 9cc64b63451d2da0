"""INT8 by rule on the int8 page: per model, the integer network by the VNNI rule against ONNX
Runtime's QDQ model and TFLite's full-integer model (their own processes), and against the best
FP32 TVM network of the same run (any variant: the NCHWc rule, MetaSchedule, unscheduled) -- the
like-for-like comparisons of the INT8 issue, with the goals beside them.  Reads the machine
:mod:`reportgen.pages.borrow` picks.  Words in docs/words/int8_rules.yaml."""
import re

from reportgen.data import compare, convs, frame, merge
from reportgen.data.words import W, W_for
from reportgen.pages import borrow
from reportgen.render.cells import text as _esc
from reportgen.render.figures import derive, fmt_number, operand, paired_derivation, paired_ratio, rests_on_jump
from reportgen.render.markdown import markdown

RULE = "tvm_int8_rules"
FP32_TVM = ("tvm_fp32_rules", "tvm_fp32_tuned", "tvm_fp32")   # any FP32 TVM network of the family
MODELS = {"digits_cnn": "digits CNN", "resnet18_v1": "ResNet-18 v1", "inception_v1": "Inception v1"}
# the INT8 issue's goals on ResNet-18: INT8 by rule at most ORT QDQ's latency, at least 2x the best FP32
GOAL_VS_QDQ, GOAL_VS_FP32 = 1.0, 2.0
GOAL_TOP1 = 0.99   # and top-1 agreement with FP32 on the agreement set (256 inputs in standard/full)
AGREE_ENGINES = ("tvm_int8_rules", "ort_qdq", "tflite_int8", "tvm_int8_rules_avx2",
                 "tvm_fp32_rules", "ort_fp32", "tflite_fp32")
AVX2_INT8, AVX2_FP32 = "tvm_int8_rules_avx2", "tvm_fp32_rules_avx2"


def wants(cur):
    return cur.ok and cur.record["experiment"] == "int8" and cur.record["case"].get("engine") == RULE


def shows(cur):
    return cur.record["experiment"] == "int8" and cur.record["case"].get("batch", 1) == 1


def source(data, book):
    return borrow.Source(data, book, wants, shows)


def _get(current, model, engine):
    return frame.first(frame.select(current, "int8", model=model, engine=engine))


def _ok(cur):
    return cur is not None and cur.ok


def _same_run(a, b):
    return a.record["run_id"] == b.record["run_id"]


def _ratio(src, num, den, suffix, formula):
    """p50(num) / p50(den) of one run, with its operands and a bootstrap interval -- or, when the
    rule engine was timed in alternating blocks with ``den``'s engine, the paired-block ratio."""
    paired = paired_ratio(num, den.record["case"]["engine"])
    if paired is not None:
        value, (lo, hi) = paired
        # resting on the peer's own record too (its paired median is held to it): its flag follows
        text = src.fig(f"{num.record['id']}#{suffix}", f"{value:.2f}×", "×", num, derived=paired_derivation(num),
                       also=(den,))
        return text + W("int8_rules.interval", lo=lo, hi=hi), value
    value = num.stat("p50") / den.stat("p50")
    names = [num.record["case"]["engine"], den.record["case"]["engine"]]
    how = derive(formula.format(a=names[0], b=names[1]),
                 operand(names[0], num, fmt_number(num.stat("p50") * 1e3, "ms"), "ms (p50)"),
                 operand(names[1], den, fmt_number(den.stat("p50") * 1e3, "ms"), "ms (p50)"))
    owner = num if num.record["case"]["engine"] == RULE else den
    text = src.fig(f"{owner.record['id']}#{suffix}", f"{value:.2f}×", "×", owner, derived=how)
    interval = compare.ratio_interval(den.record["samples"], num.record["samples"])
    if interval is not None:
        text += W("int8_rules.interval", lo=interval[0], hi=interval[1])
    return text, value


def rows(src):
    """One row per model with an INT8-by-rule record."""
    out = []
    for model in [m for m in MODELS if _ok(_get(src.current, m, RULE))] + \
            sorted({c.record["case"]["model"] for c in src.current.values() if wants(c)} - set(MODELS)):
        rule = _get(src.current, model, RULE)
        qdq, tfl = _get(src.current, model, "ort_qdq"), _get(src.current, model, "tflite_int8")
        fp32 = [c for c in (_get(src.current, model, e) for e in FP32_TVM) if _ok(c) and _same_run(c, rule)]
        best = merge.fastest(fp32) if fp32 else None
        cells = [MODELS.get(model, model), src.ms(qdq), src.ms(tfl),
                 (src.ms(best) + W("int8_rules.variant", engine=W_for("int8_rules.engine", best.record["case"]["engine"]))
                  + _trials(best)) if best else "—", src.ms(rule) + _trials(rule)]
        vs_qdq = _ratio(src, rule, qdq, "vs_ort_qdq", "p50({a}) / p50({b}), same run") \
            if _ok(qdq) and _same_run(qdq, rule) else ("—", None)
        vs_fp32 = _ratio(src, best, rule, "best_fp32_over_int8",
                         "p50({a}) / p50({b}), {a} the fastest FP32 TVM network of the run") if best else ("—", None)
        cells += [vs_qdq[0], vs_fp32[0]]
        # top-1 on the agreement set where it was run (the goal reads it), as the agreement table
        # shows it; else on the evaluation images, as the int8 page formats that figure (one figure
        # id, one text)
        agreement = rule.record["extra"].get("agreement_set") or {}
        agree = (rule.record["extra"].get("score") or {}).get("top1_agree")
        if agreement.get("top1_agree") is not None:
            cells.append(src.fig(f"{rule.record['id']}#agree_top1", f"{agreement['top1_agree']:.4f}", "share", rule))
        else:
            cells.append(src.fig(f"{rule.record['id']}#top1_agree", fmt_number(agree * 100, "%") + "%", "%", rule)
                         if agree is not None else "—")
        if model == "resnet18_v1" and vs_qdq[1] is not None and vs_fp32[1] is not None:
            cells.append(_goal(vs_qdq[1], vs_fp32[1], rule.record["extra"].get("agreement_set"))
                         + rests_on_jump(vs_qdq[0], vs_fp32[0]))
        else:
            cells.append("—")
        out.append(cells)
    return out


def _trials(cur):
    """The knob-grid budget a rule engine was tuned with (nothing for the rule's own tiles)."""
    rules = cur.record["extra"].get("rules") or {}
    trials = rules.get("trials")
    if not isinstance(trials, int) or isinstance(trials, bool) or trials <= 0:
        return ""
    kept = ((rules.get("tuning") or {}).get("network_check") or {}).get("kept")
    return W("int8_rules.trials", trials=trials, limit=rules.get("limit", "?"),
             kept=W_for("int8_rules.kept", kept if kept in ("tuned", "default") else "unknown"))


def _goal(vs_qdq, vs_fp32, agree):
    """The ResNet-18 goal cell: speed goals and, where the agreement set was run, top-1 agreement."""
    fast = vs_qdq <= GOAL_VS_QDQ and vs_fp32 >= GOAL_VS_FP32
    if not fast:
        return W("int8_rules.goal.missed")
    if not agree:
        return W("int8_rules.goal.agreement_unmeasured")
    return W("int8_rules.goal.met") if agree["top1_agree"] >= GOAL_TOP1 else W("int8_rules.goal.missed")


def _calibration(src, model, engine):
    """How the engine's INT8 network was calibrated, read from the TVM INT8 record of the same run
    (it carries the calibration set and the images handed to the peers); "—" for FP32."""
    if engine not in ("tvm_int8_rules", "tvm_int8_rules_avx2", "ort_qdq", "tflite_int8"):
        return "—"
    tvm = _get(src.current, model, "tvm_int8_rules")
    rewrite = (tvm.record["extra"].get("rewrite") if _ok(tvm) else None) or {}
    calib = rewrite.get("calibration")
    if not isinstance(calib, dict):   # runs before the calibration set was recorded
        return W("int8_rules.agreement.calib_old")
    if engine.startswith("tvm_"):
        kept = W("int8_rules.agreement.kept_float") if "matmul" in (rewrite.get("float_kinds") or []) else ""
        return W("int8_rules.agreement.calib_tvm", images=int(calib.get("images", 0)), kept=kept)
    return W("int8_rules.agreement.calib_peer", images=int(rewrite.get("peer_calibration_images", 0)))


def agreement(src):
    """Top-1 and top-5 agreement with FP32 on the agreement set, per model and engine, with how
    each INT8 network was calibrated."""
    body = []
    for model in MODELS:
        for engine in AGREE_ENGINES:
            cur = _get(src.current, model, engine)
            agree = (cur.record["extra"].get("agreement_set") if _ok(cur) else None) or {}
            if not agree:
                continue
            rid = cur.record["id"]
            body.append([MODELS[model], W_for("int8_rules.agree_engine", engine), str(agree["inputs"]),
                         src.fig(f"{rid}#agree_top1", f"{agree['top1_agree']:.4f}", "share", cur),
                         src.fig(f"{rid}#agree_top5", f"{agree['top5_agree']:.4f}", "share", cur),
                         _calibration(src, model, engine)])
    if not body:
        return W("int8_rules.agreement.none")
    table = markdown([W("int8_rules.agreement.head_model"), W("int8_rules.agreement.head_engine"),
                      W("int8_rules.agreement.head_inputs"), W("int8_rules.agreement.head_top1"),
                      W("int8_rules.agreement.head_top5"), W("int8_rules.agreement.head_calibration")], body)
    return "\n\n".join([table, *filter(None, (_margins(src, model) for model in MODELS))])


def _margins(src, model):
    """Where the TVM INT8 network's disagreements fall: FP32 margins against its logit error, in
    each input's logit spread (recorded by experiments/e2e/engines.margins); ORT QDQ's error beside."""
    cur, ort = _get(src.current, model, RULE), _get(src.current, model, "ort_qdq")
    mg = ((cur.record["extra"].get("agreement_set") or {}).get("margins") if _ok(cur) else None)
    if not mg:
        return ""
    rid = cur.record["id"]

    def f(key, value, unit="sd", digits=3, who=cur, where=rid):
        return src.fig(f"{where}#margin_{key}", f"{value:.{digits}f}", unit, who)
    q = mg["margin_quantiles"]
    flips = (W("int8_rules.margins.flips", flips=mg["flips"], flip_max=f("flip_max", mg["flip_margin_max"]))
             if mg["flips"] else W("int8_rules.margins.no_flips"))
    ort_mg = ((ort.record["extra"].get("agreement_set") or {}).get("margins") if _ok(ort) else None)
    peer = (W("int8_rules.margins.peer", err=f("error_median", ort_mg["error_median"], who=ort, where=ort.record["id"]))
            if ort_mg else "")
    return W("int8_rules.margins.text", model=MODELS[model], flips=flips, margin_low=f("p5", q["5"]), margin_median=f("p50", q["50"]),
             err=f("error_median", mg["error_median"]),
             share=f("share_below_error", mg["share_margin_below_error"], "share", 4), peer=peer) + _levers(src, cur)


def _levers(src, cur):
    """The rewrite's error levers as the record counts them (runs before them have none of them)."""
    rw = cur.record["extra"].get("rewrite") or {}
    if "residual_fused" not in rw or "bias_corrected" not in rw:
        return ""
    rid = cur.record["id"]
    fused = (W("int8_rules.margins.levers_fused",
               fused=src.fig(f"{rid}#residual_fused", str(rw["residual_fused"]), "groups", cur))
             if rw["residual_fused"] else "")
    wide = (W("int8_rules.margins.levers_wide",
              wide=src.fig(f"{rid}#residual_wide", str(rw["residual_wide"]), "groups", cur))
            if rw.get("residual_wide") else "")
    concat = (W("int8_rules.margins.levers_concat",
                concat=src.fig(f"{rid}#concat_integer", str(rw["concat_integer"]), "concats", cur))
              if rw.get("concat_integer") else "")
    ratio = rw.get("rounding_error_ratio_median")
    rounded = (W("int8_rules.margins.levers_rounded",
                 rounded=src.fig(f"{rid}#weights_rounded", str(rw["weights_rounded"]), "groups", cur),
                 ratio=src.fig(f"{rid}#rounding_error_ratio", f"{ratio:.3f}", "ratio", cur))
               if rw.get("weights_rounded") and ratio is not None else "")
    return W("int8_rules.margins.levers", fused=fused, wide=wide, concat=concat, rounded=rounded,
             corrected=src.fig(f"{rid}#bias_corrected", str(rw["bias_corrected"]), "groups", cur))


def avx2(data, src, model="resnet18_v1"):
    """The rule engines compiled for an AVX2 target on this host: INT8 against FP32, paired."""
    int8, fp32 = _get(src.current, model, AVX2_INT8), _get(src.current, model, AVX2_FP32)
    if not (_ok(int8) and _ok(fp32) and _same_run(int8, fp32)):
        return W("int8_rules.avx2.none")
    ratio, value = _ratio(src, int8, fp32, "int8_over_fp32_avx2", "p50({a}) / p50({b}), same run")
    asm = int8.record["extra"].get("asm") or {}
    rid = int8.record["id"]
    hot = asm.get("hottest") or {}
    target = int8.record["extra"].get("avx2_target") or {}
    agree = int8.record["extra"].get("agreement_set")
    return W("int8_rules.avx2.text", model=MODELS.get(model, model), mcpu=target.get("mcpu", "—"),
             fp32_ms=src.ms(fp32), int8_ms=src.ms(int8), ratio=ratio,
             verdict=W("int8_rules.avx2.faster") if value < 1 else W("int8_rules.avx2.not_faster"),
             maddubs=src.fig(f"{rid}#vpmaddubsw_hot", str(hot.get("vpmaddubsw", 0)), "instructions", int8),
             dpbusd=str(hot.get("vpdpbusd", 0)),
             agreement=W("int8_rules.avx2.agreement", top1=src.fig(f"{rid}#agree_top1", f"{agree['top1_agree']:.4f}",
                                                                   "share", int8), inputs=agree["inputs"])
             if agree else "",
             machine=borrow.where(data, src))


def table(src):
    body = rows(src)
    if not body:
        return W("int8_rules.none")
    return markdown([W("int8_rules.head.model"), W("int8_rules.head.ort_qdq"), W("int8_rules.head.tflite_int8"),
                     W("int8_rules.head.best_fp32"), W("int8_rules.head.tvm_int8_rules"),
                     W("int8_rules.head.rules_vs_qdq"), W("int8_rules.head.fp32_vs_rules"),
                     W("int8_rules.head.top1_agrees"), W("int8_rules.head.goal")], body)


def kernels(src, model="resnet18_v1"):
    """What the rule made of one model's integer network: kernels by rule, vpdpbusd in the hottest."""
    rule = _get(src.current, model, RULE)
    if not _ok(rule):
        return ""
    rules = rule.record["extra"].get("rules") or {}
    asm = rule.record["extra"].get("asm") or {}
    rid = rule.record["id"]
    ks = rules.get("kernels") or {}
    return W("int8_rules.kernels", model=MODELS.get(model, model),
             convs=src.fig(f"{rid}#rule_kernels", str(rules.get("rule_kernels", 0)), "kernels", rule),
             total=str(len(ks)), hottest=asm.get("hottest_kernel") or "—",
             dots=src.fig(f"{rid}#vpdpbusd_hot", str((asm.get("hottest") or {}).get("vpdpbusd", 0)), "instructions", rule))


def _ort_convs(ort):
    """ORT's QLinearConv nodes as (O, I, OH, OW) (data.convs.ort_qconv)."""
    out = []
    for node in ort.record["extra"].get("node_profile") or []:
        key = convs.ort_qconv(node)
        if key is not None:
            out.append({"node": node["node"], "seconds": float(node["seconds"]), "key": key})
    return out


def conv_rows(cur, ort):
    """TVM's packed convolutions and ORT's QLinearConv nodes of the same output and input channels
    (TVM's padded to 16 and 4) and output size, both sides summed per row.  ORT's profile does not
    give kernel sizes, so a row holds every kernel size of that shape (ResNet's 3x3 and 1x1
    downsampling convs of a stage share one); each node is counted once."""
    info = (cur.record["extra"].get("rules") or {}).get("kernels") or {}
    nodes, taken, rows = _ort_convs(ort), set(), {}
    for k in cur.record["extra"].get("kernel_profile") or []:
        ki = info.get(k["op"]) or {}
        if convs.tvm_qconv(ki) is None:
            continue
        o, i, oh, ow = convs.tvm_qconv(ki)
        fits = [n for n in nodes if n["node"] not in taken and 0 <= o - n["key"][0] < 16
                and 0 <= i - n["key"][1] < 4 and n["key"][2:] == (oh, ow)][:int(k["calls"])]
        taken.update(n["node"] for n in fits)
        key = fits[0]["key"] if fits else (o, i, oh, ow)
        row = rows.setdefault(key, {"kernels": [], "nodes": {}, "count": 0, "sizes": []})
        row["kernels"].append((k["op"], float(k["seconds"])))
        row["count"] += int(k["calls"])
        size = f"{int(ki['kh'])}×{int(ki['kw'])}"
        if size not in row["sizes"]:
            row["sizes"].append(size)
        row["nodes"].update((n["node"], n["seconds"]) for n in fits)
    return sorted(rows.items(), key=lambda kv: -sum(v for _, v in kv[1]["kernels"]))


def profile(src, model="resnet18_v1"):
    """Where each side's time goes on one model: TVM's kernels by operand class (the share in
    integer kernels), ORT's nodes by type, and the convolutions side by side."""
    rule, ort = _get(src.current, model, RULE), _get(src.current, model, "ort_qdq")
    if not (_ok(rule) and _ok(ort) and _same_run(rule, ort)) or not rule.record["extra"].get("kernel_profile") \
            or not ort.record["extra"].get("node_profile"):
        return W("int8_rules.profile.none")
    rid, oid = rule.record["id"], ort.record["id"]
    kernels = [k for k in rule.record["extra"]["kernel_profile"] if k.get("kind") == "kernel"]
    nodes = ort.record["extra"]["node_profile"]
    total = sum(float(k["seconds"]) for k in kernels)
    classes = []
    for cls in ("integer", "mixed", "float"):
        parts = [(k["op"], float(k["seconds"])) for k in kernels if k.get("operands") == cls]
        if parts:
            share = sum(v for _, v in parts) / total
            classes.append([W_for("int8_rules.profile.class", cls), str(len(parts)),
                            src.sum(f"{rid}#class_{cls}", rule, parts),
                            src.fig(f"{rid}#class_{cls}_share", f"{share * 100:.1f}%", "share", rule)])
    by_op = {}
    for n in nodes:
        by_op.setdefault(str(n["op"]), []).append((str(n["node"]), float(n["seconds"])))
    node_total = sum(float(n["seconds"]) for n in nodes)
    types = [[_esc(op), str(len(parts)), src.sum(f"{oid}#op_{re.sub(r'[^A-Za-z0-9_]', '_', op)[:40]}", ort, parts),
              f"{sum(v for _, v in parts) / node_total * 100:.1f}%"]
             for op, parts in sorted(by_op.items(), key=lambda kv: -sum(v for _, v in kv[1]))]
    convs = []
    for (o, i, oh, ow), row in conv_rows(rule, ort):
        tag = f"{o}x{i}@{oh}x{ow}"
        tvm_s = sum(v for _, v in row["kernels"])
        ort_s = sum(row["nodes"].values())
        convs.append([f"{o}×{i}", " + ".join(row["sizes"]), f"{oh}×{ow}", str(row["count"]),
                      src.sum(f"{rid}#conv_{tag}", rule, row["kernels"]),
                      src.sum(f"{oid}#conv_{tag}", ort, list(row["nodes"].items())) if row["nodes"] else "—",
                      f"{tvm_s / ort_s:.2f}×{src.book.profiles_disagree(tvm_s / ort_s)}" if ort_s else "—"])
    head = W("int8_rules.profile.text", model=MODELS.get(model, model),
             tvm_sum=src.sum(f"{rid}#kernel_sum", rule, [(k["op"], float(k["seconds"])) for k in kernels]),
             tvm_p50=src.ms(rule), ort_sum=src.sum(f"{oid}#node_sum", ort, [(n["node"], float(n["seconds"])) for n in nodes]),
             ort_p50=src.ms(ort))
    return "\n\n".join([
        head,
        markdown([W("int8_rules.profile.head.class"), W("int8_rules.profile.head.kernels"),
                  W("int8_rules.profile.head.time"), W("int8_rules.profile.head.share")], classes),
        markdown([W("int8_rules.profile.head.op"), W("int8_rules.profile.head.nodes"),
                  W("int8_rules.profile.head.time"), W("int8_rules.profile.head.share")], types),
        W("int8_rules.profile.convs_intro"),
        markdown([W("int8_rules.profile.head.conv"), W("int8_rules.profile.head.kernel"), W("int8_rules.profile.head.output_size"),
                  W("int8_rules.profile.head.count"), W("int8_rules.profile.head.tvm"),
                  W("int8_rules.profile.head.ort"), W("int8_rules.profile.head.tvm_vs_ort")], convs)])


def answer(data, src, model="resnet18_v1"):
    """The home page's INT8 answer: INT8 by rule against ORT QDQ and against the best FP32 TVM of
    the same run, on one model, and which machine it comes from.  A ratio only within one run: a side
    whose current record is of another run is named as left out, never the whole answer dropped (a
    re-run of the rule and QDQ records alone said there was no INT8 record at all)."""
    rule, qdq = _get(src.current, model, RULE), _get(src.current, model, "ort_qdq")
    if not _ok(rule):
        return W("int8_rules.answer.none")
    best = merge.fastest(c for c in (_get(src.current, model, e) for e in FP32_TVM) if _ok(c) and _same_run(c, rule))
    vs_fp32 = _ratio(src, best, rule, "best_fp32_over_int8",
                     "p50({a}) / p50({b}), {a} the fastest FP32 TVM network of the run")[0] if best else None
    vs_qdq = _ratio(src, rule, qdq, "vs_ort_qdq", "p50({a}) / p50({b}), same run")[0] \
        if _ok(qdq) and _same_run(qdq, rule) else None
    which = "text" if vs_fp32 and vs_qdq else "only_fp32" if vs_fp32 else "only_qdq" if vs_qdq else "left"
    return W_for("int8_rules.answer", which, model=MODELS.get(model, model), vs_fp32=vs_fp32, vs_qdq=vs_qdq,
             machine=borrow.where(data, src))


def names(site):
    d, b = site.data, site.book
    src = lambda: source(d, b)   # noqa: E731 - built per call: the book's page is set per page
    return {
        "int8_rules_machine": lambda: borrow.note(d, src()),
        "int8_answer": lambda model="resnet18_v1": answer(d, src(), model),
        "int8_rules_table": lambda: table(src()),
        "int8_rules_kernels": lambda model="resnet18_v1": kernels(src(), model),
        "int8_agreement_table": lambda: agreement(src()),
        "int8_avx2": lambda model="resnet18_v1": avx2(d, src(), model),
        "int8_profile": lambda model="resnet18_v1": profile(src(), model),
    }
