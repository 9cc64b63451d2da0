"""Group D by rule on the e2e page: the NCHWc micro-kernel networks against ONNX Runtime (one row
per model, both variants, same run), the per-convolution table (each TVM conv kernel against
ONNX Runtime's own node time from its profiler, GFLOPS, share of the measured peak) and the
latency-vs-trials points of every TVM variant.  Words in docs/words/e2e_rules.yaml and docs/e2e.md."""
from reportgen.data import compare, convs, frame, merge
from reportgen.pages import borrow
from reportgen.data.queries import D_ENGINES, RULE_ENGINES
from reportgen.data.words import W, W_for
from reportgen.render import charts
from reportgen.render.cells import text as _esc
from reportgen.render.figures import derive, fmt_number, operand, paired_derivation, rests_on_jump
from reportgen.render.labels import ENGINE_ZH, model_zh
from reportgen.render.markdown import markdown

# the networks issue's goals: best TVM / ORT at batch 1 (2 threads), per model
GOALS = {"resnet18_v1": 1.0, "resnet50": 1.1, "inception_v1": 1.1, "mobilenet_v2": 1.25}


def wants(cur):
    """A record the section needs: a rule engine's e2e record."""
    return cur.ok and cur.record["experiment"] == "e2e" and cur.record["case"].get("engine") in RULE_ENGINES


def shows(cur):
    """The records the section shows: batch-1 e2e records of the rule engines, ORT and group D."""
    return cur.record["experiment"] == "e2e" and cur.record["case"].get("batch") == 1 \
        and cur.record["case"].get("engine") in (*RULE_ENGINES, "ort", *D_ENGINES)


def source(data, book):
    return borrow.Source(data, book, wants, shows)


def _get(current, model, engine, batch=1):
    return frame.first(frame.select(current, "e2e", model=model, engine=engine, batch=batch))


def _same_run(a, b):
    return a.record["run_id"] == b.record["run_id"] and \
        a.record["case"].get("input_size") == b.record["case"].get("input_size")


def _ok(cur):
    return cur is not None and cur.ok


def engine_zh(engine):
    return ENGINE_ZH.get(engine, engine)


def models(current):
    """Models with a rule-variant record, in the e2e family's order."""
    from reportgen.data import queries
    return [m for m in queries.models(current, "e2e") if any(_ok(_get(current, m, e)) for e in RULE_ENGINES)]


def trials_of(cur):
    """Trials behind a TVM time: 0 for the rule's default, the knob-grid candidates for the tuned
    variant, the campaign's cumulative trials for MetaSchedule's D."""
    extra = cur.record["extra"]
    if cur.record["case"]["engine"] == "tvm_rules":
        return 0
    if "rules_tuning" in extra:
        return int(extra["rules_tuning"]["trials"])
    t = extra.get("tuning") or {}
    return int(t.get("cumulative_trials", t.get("trials", 0)))


def state(fig, cur):
    """The tuning state cell of a rule record (the e2e tables' last column)."""
    extra = cur.record["extra"]
    rules = extra.get("rules") or {}
    kernels = f"{rules.get('conv_kernels', 0)}/{len(rules.get('kernels', {}))}"
    if "rules_tuning" not in extra:
        return W("e2e_rules.state.default", kernels=kernels)
    t = extra["rules_tuning"]
    rid = cur.record["id"]
    check = t["network_check"]
    kept = W_for("e2e_rules.kept", check["kept"])
    if "p_value" in check:   # older records kept the tuned network on a lower median alone
        kept += W("e2e_rules.state.check", wins=int(check["tuned_wins"]), calls=int(check["calls"]),
                  p=f"{float(check['p_value']):.2g}")
    return W("e2e_rules.state.tuned",
             trials=fig(f"{rid}#rules_trials", str(t["trials"]), "trials", cur),
             minutes=fig(f"{rid}#rules_tuning_min", fmt_number(t["seconds"] / 60, "min") + " min", "min", cur),
             kept=kept, kernels=kernels)


def _paired(src, tvm, ort, suffix, brief=False):
    """The ratio of a rule engine timed in alternating blocks with ORT (its record's paired_peer):
    the median of the blocks' p50 ratios, with its bootstrap interval over blocks.  It rests on ORT's
    own record of the run too (its paired median is held to it): a flag on that record follows it."""
    pp = tvm.record["extra"]["paired_peer"]
    text = src.fig(f"{tvm.record['id']}#{suffix}", f"{pp['ratio']:.2f}×", "×", tvm, derived=paired_derivation(tvm),
                   also=(ort,) if _ok(ort) and _same_run(tvm, ort) else ())
    lo, hi = pp["ratio_ci"]
    if brief:   # the sentence around it says how the blocks were timed
        return text + W("e2e_rules.interval_brief", lo=lo, hi=hi), float(pp["ratio"])
    return (text + W("e2e_rules.paired", lo=lo, hi=hi, blocks=int(pp["blocks"]), calls=int(pp["calls_per_block"]))
            + _steal(pp), float(pp["ratio"]))


def _steal(pp):
    """A note when the hypervisor took CPU time during some paired blocks (either side), from the
    steal ticks the blocks recorded; nothing when none did or the record predates them."""
    ours, theirs = pp.get("steal_ticks") or [], pp.get("peer_steal_ticks") or []
    stolen = sum(1 for a, b in zip(ours, theirs) if (a or 0) > 0 or (b or 0) > 0)
    return W("e2e_rules.steal", stolen=stolen, blocks=int(pp["blocks"])) if stolen else ""


def _ratio(src, tvm, ort, suffix="vs_ort", brief=False):
    """TVM / ORT of one run with its operands: the paired-block ratio when the engine was timed so,
    else p50 / p50 of the two records; "—" across runs."""
    if _ok(tvm) and tvm.record["extra"].get("paired_peer"):
        # #vs_ort is the p50 / p50 ratio on the e2e page: the paired one has an id of its own
        return _paired(src, tvm, ort, "vs_ort_paired" if suffix == "vs_ort" else suffix, brief)
    if not (_ok(tvm) and _ok(ort) and _same_run(tvm, ort)):
        return "—", None
    value = tvm.stat("p50") / ort.stat("p50")
    how = derive("p50(tvm) / p50(ort), same run",
                 operand("tvm", tvm, fmt_number(tvm.stat("p50") * 1e3, "ms"), "ms (p50)"),
                 operand("ort", ort, fmt_number(ort.stat("p50") * 1e3, "ms"), "ms (p50)"))
    interval = compare.ratio_interval(ort.record["samples"], tvm.record["samples"])
    text = src.fig(f"{tvm.record['id']}#{suffix}", f"{value:.2f}×", "×", tvm, derived=how)
    if interval is not None:
        text += (W("e2e_rules.interval_brief", lo=interval[0], hi=interval[1]) if brief
                 else W("e2e_rules.interval", lo=interval[0], hi=interval[1]))
    return text, value


def summary_table(src):
    """One row per model: ORT, the rule's default, the tuned rule, the best TVM of the run / ORT,
    and the goal."""
    current, rows = src.current, []
    for model in models(current):
        ort = _get(current, model, "ort")
        rule, tuned = (_get(current, model, e) for e in RULE_ENGINES)
        cells = [_esc(model_zh(model)), src.ms(ort)]
        for cur in (rule, tuned):
            cells += [src.ms(cur), _ratio(src, cur, ort)[0] if _ok(cur) else "—"]
        cells.append(state(src.fig, tuned) if _ok(tuned) else "—")
        tvms = [c for c in (_get(current, model, e) for e in (*RULE_ENGINES, *D_ENGINES))
                if _ok(c) and _ok(ort) and _same_run(c, ort)]
        best = merge.fastest(tvms) if tvms else None
        goal = GOALS.get(model)
        if best is None:
            cells += ["—", "—"]
        else:
            text, value = _ratio(src, best, ort, "best_vs_ort")
            cells.append(text)
            goal_text = f"{goal:.2f}×" if goal else "—"
            cells.append((W("e2e_rules.goal.met", goal=goal_text) if goal and value <= goal
                          else W("e2e_rules.goal.missed", goal=goal_text)) + rests_on_jump(text))
        rows.append(cells)
    if not rows:
        return W("e2e_rules.summary.none")
    return markdown([W("e2e_rules.summary.head.model"), W("e2e_rules.summary.head.ort_p50"),
                     W("e2e_rules.summary.head.rules_p50"), W("e2e_rules.summary.head.rules_vs_ort"),
                     W("e2e_rules.summary.head.rules_tuned_p50"), W("e2e_rules.summary.head.rules_tuned_vs_ort"),
                     W("e2e_rules.summary.head.tuning"), W("e2e_rules.summary.head.best_vs_ort"),
                     W("e2e_rules.summary.head.goal")], rows)


# --------------------------------------------------------------------------- per convolution


def _tvm_convs(cur):
    """Every conv kernel of a rule record with its calls and seconds (data.convs.tvm_conv: output channels, input
    channels kept apart as blocks x lanes or the stem's plain channels, kernel and output size)."""
    rules = cur.record["extra"].get("rules") or {}
    lanes, info = convs.lanes_of(cur.record), rules.get("kernels") or {}
    out = []
    for row in cur.record["extra"].get("kernel_profile") or []:
        k = convs.tvm_conv(info.get(row["op"]), row["op"], lanes)
        if k is not None:
            out.append(dict(k, op=row["op"], calls=int(row["calls"]), seconds=float(row["seconds"])))
    return out


def _ort_convs(cur):
    """ORT's conv nodes of its profile (data.convs.ort_conv: O, I, KH, KW from the weight, OH, OW from the output)."""
    out = []
    for node in cur.record["extra"].get("node_profile") or []:
        found = convs.ort_conv(node)
        if found is not None:
            out.append(dict({k: int(v) for k, v in found.items()}, node=node["node"], seconds=float(node["seconds"])))
    return out


def conv_rows(cur, ort):
    """TVM conv kernels matched with ORT's nodes of the same convolution; one row per shape, both
    sides summed over the kernels and nodes of that shape.

    A kernel of ``calls`` calls takes that many unassigned nodes of its kernel size, output size
    and output channels (TVM's padded up to whole blocks): nodes with its input channels first,
    then nodes whose input channels ORT padded up to a whole block (its NCHWc pass pads 24 to
    32), so no node is counted twice.  FLOPs use TVM's own channel counts."""
    nodes = _ort_convs(ort)
    taken, rows = set(), {}
    for k in sorted(_tvm_convs(cur), key=lambda k: -k["i"] % k["lanes"]):   # whole blocks first
        def fits(n, exact):
            return (n["node"] not in taken and n["kh"] == k["kh"] and n["kw"] == k["kw"] and n["oh"] == k["oh"]
                    and n["ow"] == k["ow"] and 0 <= k["o"] - n["o"] < k["lanes"]
                    and (n["i"] == k["i"] if exact else 0 < n["i"] - k["i"] < k["lanes"]))
        match = ([n for n in nodes if fits(n, True)] + [n for n in nodes if fits(n, False)])[:k["calls"]]
        taken.update(n["node"] for n in match)
        o = match[0]["o"] if match else k["o"]
        key = (o, k["i"], k["kh"], k["kw"], k["oh"], k["ow"])
        row = rows.setdefault(key, {"kernels": [], "nodes": {}, "tvm_s": 0.0})
        row["kernels"].append(k)
        row["tvm_s"] += k["seconds"]
        for n in match:
            row["nodes"][n["node"]] = n
    for key, row in rows.items():
        o, i, kh, kw, oh, ow = key
        row["ort_s"] = sum(n["seconds"] for n in row["nodes"].values()) if row["nodes"] else None
        row["count"] = sum(k["calls"] for k in row["kernels"])
        row["flops"] = 2.0 * o * i * kh * kw * oh * ow * row["count"]
    return sorted(rows.items(), key=lambda kv: -kv[1]["tvm_s"])


def _peak(current, threads, lanes):
    """The measured fp32 FMA peak of this machine at ``threads`` for the ISA of ``lanes``."""
    isa = {16: "avx512", 8: "avx2"}.get(lanes)
    return merge.peak(current, "float32", threads, isa)


def conv_table(src, model="resnet18_v1", engine="tvm_rules"):
    """The per-convolution table of one model (batch 1)."""
    current = src.current
    cur, ort = _get(current, model, engine), _get(current, model, "ort")
    if not (_ok(cur) and _ok(ort) and _same_run(cur, ort)) or not cur.record["extra"].get("kernel_profile") \
            or not ort.record["extra"].get("node_profile"):
        return W("e2e_rules.convs.none")
    rows = conv_rows(cur, ort)
    threads = int(cur.record["case"].get("threads", 1))
    peak = _peak(current, threads, int((cur.record["extra"].get("rules") or {}).get("lanes", 16)))
    rid, oid = cur.record["id"], ort.record["id"]
    lines, tvm_parts, ort_parts = [], [], []
    for n, ((o, i, kh, kw, oh, ow), row) in enumerate(rows, 1):
        tag = f"{o}x{i}x{kh}x{kw}@{oh}x{ow}"
        tvm_cell = src.sum(f"{rid}#conv_{tag}", cur, [(k["op"], k["seconds"]) for k in row["kernels"]])
        tvm_parts.append((f"row{n}", row["tvm_s"]))
        if row["ort_s"] is None:
            ort_cell, ratio = "—", "—"
        else:
            ort_parts.append((f"row{n}", row["ort_s"]))
            ort_cell = src.sum(f"{oid}#conv_{tag}", ort, [(k, v["seconds"]) for k, v in row["nodes"].items()])
            # ORT's side past the measured peak is flagged too (its nodes' times divided by 40 printed 42.93x)
            # each figure of the row through the book: a flag of a record it rests on reaches it
            ratio = (src.fig(f"{rid}#vs_ort_{tag}", f"{row['tvm_s'] / row['ort_s']:.2f}×", "×", cur, also=(ort,))
                     + src.book.profiles_disagree(row["tvm_s"] / row["ort_s"])
                     + (src.book.above_peak(row["flops"] / row["ort_s"] / 1e9 / peak.gflops("p50")) if peak else ""))
        gflops = row["flops"] / row["tvm_s"] / 1e9
        # a kernel past the measured peak is shown, and flagged (a profile time divided by 40 printed 3532 %)
        # (a peak forged 3x faster, flagged as a new level, moved every row's share 88 % -> 24 % unflagged)
        share = (src.fig(f"{rid}#peak_share_{tag}", f"{gflops / peak.gflops('p50') * 100:.0f}%", "%", cur, also=(peak,))
                 + src.book.above_peak(gflops / peak.gflops('p50')) if peak is not None else "—")
        lines.append([f"{o}×{i}×{kh}×{kw}", f"{oh}×{ow}", str(row["count"]), tvm_cell, ort_cell, ratio,
                      src.fig(f"{rid}#gflops_{tag}", fmt_number(gflops, "GFLOPS"), "GFLOPS", cur), share])
    if ort_parts:
        tvm_total, ort_total = (sum(v for _, v in parts) for parts in (tvm_parts, ort_parts))
        lines.append([W("e2e_rules.convs.total"), "", "", src.sum(f"{rid}#conv_total", cur, tvm_parts),
                      src.sum(f"{oid}#conv_total", ort, ort_parts), f"{tvm_total / ort_total:.2f}×", "", ""])
    return markdown([W("e2e_rules.convs.head.conv"), W("e2e_rules.convs.head.output_size"),
                     W("e2e_rules.convs.head.count"), W("e2e_rules.convs.head.tvm_rules"),
                     W("e2e_rules.convs.head.ort_node"), W("e2e_rules.convs.head.tvm_vs_ort"),
                     W("e2e_rules.convs.head.tvm_gflops"), W("e2e_rules.convs.head.peak_share")], lines) + _profile_sums(src, cur, ort)


def _profile_sums(src, cur, ort):
    """Each side's whole profile (every kernel, every node) beside its own p50: the per-convolution
    ratios compare profiled kernels, and each engine's profiler has its own overhead, so a reader
    sees how far each profile is from that engine's untimed-profile latency."""
    kernels = [(k["op"], k["seconds"]) for k in cur.record["extra"]["kernel_profile"] if k.get("kind") == "kernel"]
    nodes = [(n["node"], n["seconds"]) for n in ort.record["extra"]["node_profile"]]
    return W("e2e_rules.convs.sums",
             tvm_sum=src.sum(f"{cur.record['id']}#kernel_sum", cur, kernels), tvm_p50=src.ms(cur),
             ort_sum=src.sum(f"{ort.record['id']}#node_sum", ort, nodes), ort_p50=src.ms(ort))


def curve_table(src):
    """Latency against trials of every TVM variant with a time at batch 1: (model, variant, trials,
    p50, / ORT of the same run)."""
    current, rows = src.current, []
    for model in models(current):
        ort = _get(current, model, "ort")
        for engine in (*RULE_ENGINES, *D_ENGINES):
            cur = _get(current, model, engine)
            if not _ok(cur):
                continue
            rows.append((model, trials_of(cur), engine, cur, ort))
    lines = []
    for model, trials, engine, cur, ort in sorted(rows, key=lambda r: (r[0], r[1])):
        lines.append([_esc(model_zh(model)), engine_zh(engine), str(trials),
                      src.ms(cur), _ratio(src, cur, ort)[0]])
    if not lines:
        return W("e2e_rules.summary.none")
    return markdown([W("e2e_rules.curve.head.model"), W("e2e_rules.curve.head.variant"),
                     W("e2e_rules.curve.head.trials"), W("e2e_rules.curve.head.p50"), W("e2e_rules.curve.head.vs_ort")], lines)


def curve_points(current):
    """Points of the latency-vs-trials chart: every TVM variant at batch 1 (model, variant,
    trials, p50 ms) and ONNX Runtime of the same model as a level line."""
    out = []
    for model in models(current):
        for engine in (*RULE_ENGINES, *D_ENGINES):
            cur = _get(current, model, engine)
            if _ok(cur):
                out.append(charts.mark({"model": model_zh(model), "engine": engine_zh(engine), "kind": "tvm",
                                        "trials": trials_of(cur), "ms": cur.stat("p50") * 1e3}, cur))
        ort = _get(current, model, "ort")
        if _ok(ort):
            out.append(charts.mark({"model": model_zh(model), "engine": engine_zh("ort"), "kind": "peer",
                                    "ms": ort.stat("p50") * 1e3}, ort))
    return out


def curve_chart(data):
    """The latency-vs-trials chart (Vega-Lite) of the machine the section reads: trials on a
    symlog axis (the rule's default is 0 trials), latency on a log axis, one colour per model,
    one shape per variant, ONNX Runtime as a dashed level per model."""
    import altair as alt
    machine, current, _ = borrow.pick(data, wants)
    values = curve_points(current)
    points = alt.Chart().mark_point(size=80, filled=True).encode(
        x=alt.X("trials:Q", scale=alt.Scale(type="symlog"), title=W("e2e_rules.chart.trials")),
        y=alt.Y("ms:Q", scale=alt.Scale(type="log"), title=W("e2e_rules.chart.ms")),
        color=alt.Color("model:N", title=W("e2e_rules.chart.model")),
        shape=alt.Shape("engine:N", title=W("e2e_rules.chart.variant")),
        tooltip=["model:N", "engine:N", "trials:Q", alt.Tooltip("ms:Q", format=".2f")],
    ).transform_filter("datum.kind == 'tvm'")
    peers = alt.Chart().mark_rule(strokeDash=[4, 3]).encode(
        y="ms:Q", color=alt.Color("model:N"), tooltip=["model:N", "engine:N", alt.Tooltip("ms:Q", format=".2f")]
    ).transform_filter("datum.kind == 'peer'")
    return alt.layer(points, peers, data=alt.Data(values=values)).properties(
        width=560, height=280, title=W("e2e_rules.chart.title", machine=machine or "—"))


def answer(data, src):
    """The home page's end-to-end answer: per model, the best TVM / ORT of the run (the summary
    table's last ratio column), and which machine it comes from."""
    parts, left, paired = [], [], True
    for model in models(src.current):
        ort = _get(src.current, model, "ort")
        measured = [c for c in (_get(src.current, model, e) for e in (*RULE_ENGINES, *D_ENGINES)) if _ok(c)]
        tvms = [c for c in measured if _ok(ort) and _same_run(c, ort)]
        if tvms:
            best = merge.fastest(tvms)
            paired = paired and bool(best.record["extra"].get("paired_peer"))   # the words say how it was timed
            parts.append(W("e2e_rules.answer.model", model=_esc(model_zh(model)),
                           ratio=_ratio(src, best, ort, "best_vs_ort", brief=True)[0]))
        elif measured and _ok(ort):   # a ratio only within one run: a model left out is named, never dropped
            left.append(_esc(model_zh(model)))
    said = W("e2e_rules.answer.left", models=W("common.punct.enumeration_comma").join(left)) if left else ""
    if not parts:
        return W("e2e_rules.answer.none") + said
    return W("e2e_rules.answer.text", models=W("common.punct.enumeration_comma").join(parts),
             how=W("e2e_rules.answer.paired") if paired else W("e2e_rules.answer.unpaired"),
             machine=borrow.where(data, src)) + said


def names(site):
    d, b = site.data, site.book
    src = lambda: source(d, b)   # noqa: E731 - built per call: the book's page is set per page
    return {
        "e2e_rules_machine": lambda: borrow.note(d, src()),
        "e2e_answer": lambda: answer(d, src()),
        "e2e_rules_models": lambda: models(src().current),
        "e2e_rules_summary": lambda: summary_table(src()),
        "e2e_rules_convs": lambda model="resnet18_v1", engine="tvm_rules": conv_table(src(), model, engine),
        "e2e_rules_curve": lambda: curve_table(src()),
    }
