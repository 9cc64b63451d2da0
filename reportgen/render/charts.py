"""Altair charts built from merged data: a Vega-Lite spec for the page, an SVG fallback."""
import html
import json

import altair as alt

from reportgen.data import merge, queries
from study import work
from reportgen.data.queries import tvm_main_shape
from reportgen.render.labels import E2E_ENGINES, INT8_ENGINES, SPACE_ZH, STAGES, case_label, engine_zh, model_zh, stage_zh
from reportgen.data.words import W

THREADS_ZH = {1: W("charts.threads_zh.one_thread")}


def _threads_label(threads):
    return THREADS_ZH.get(threads, W("charts.threads_label.n_threads", threads=threads))


def numpy_gflops_rows(table, current, env):
    """Long-form rows: historical §21 and current NumPy GFLOPS per size."""
    rows = []
    for row in table.rows:
        threads_hist = W("charts.threads_zh.one_thread") if row["join"]["threads"] == 1 else W("charts.numpy_gflops_rows.history_threads")
        for col in table.columns:
            if col["key"].isdigit():
                rows.append({"n": int(col["key"]), "gflops": row["cells"][col["key"]].value,
                             "dtype": row["join"]["dtype"], "threads": threads_hist,
                             "series": W("charts.numpy_gflops_rows.series")})
    for cur in merge.family(current, "numpy_gemm").values():
        if cur.ok:
            case = cur.record["case"]
            rows.append(mark({"n": case["n"], "gflops": cur.gflops(), "dtype": case["dtype"],
                               "threads": _threads_label(case["threads"]),
                               "series": W("charts.numpy_gflops_rows.series_current", blas_env=W("charts.numpy_gflops_rows.blas_configured") if case['blas_env'] == 'configured' else W("charts.numpy_gflops_rows.blas_best"))}, cur))
    return rows


def peak_rows(current):
    rows = []
    for cur in merge.family(current, "machine_peak").values():
        if cur.ok:
            case = cur.record["case"]
            rows.append(mark({"dtype": case["dtype"], "gflops": cur.gflops(),
                               "label": W("charts.peak_rows.label", isa=case['isa'], threads_label=_threads_label(case['threads']))}, cur))
            theo = cur.record["extra"].get("theoretical")
            if theo:
                rows.append(mark({"dtype": case["dtype"], "gflops": theo["gflops"],
                                   "label": W("charts.peak_rows.label_theoretical", threads_label=_threads_label(case['threads']))}, cur))
    return rows


def numpy_gflops(table, current, env):
    data = alt.Data(values=numpy_gflops_rows(table, current, env))
    base = alt.Chart().encode(  # data goes to the facet, or every panel would show every dtype
        x=alt.X("n:Q", scale=alt.Scale(type="log"), title=W("charts.numpy_gflops.x")),
        y=alt.Y("gflops:Q", scale=alt.Scale(type="log"), title=W("charts.numpy_gflops.y")),
        color=alt.Color("series:N", title=W("charts.numpy_gflops.color")),
        strokeDash=alt.StrokeDash("threads:N", title=W("charts.numpy_gflops.dash")),
        tooltip=["series:N", "threads:N", "n:Q", alt.Tooltip("gflops:Q", format=".1f")])
    chart = (base.mark_line(point=True)
             .properties(width=300, height=240)
             .facet(column=alt.Column("dtype:N", title=None), data=data))
    return chart.properties(title=W("charts.numpy_gflops.title"))


def roofline(table, current, env):
    """GFLOPS against arithmetic intensity 2n³ / (3n² · bytes), with compute ceilings."""
    points = []
    for cur in merge.family(current, "numpy_gemm").values():
        case = cur.record["case"]
        if cur.ok and case["blas_env"] == "best":
            size = 4 if case["dtype"] == "float32" else 8
            points.append(mark({"ai": 2 * case["n"] / (3 * size), "gflops": cur.gflops(), "n": case["n"],
                                 "dtype": case["dtype"], "label": f"NumPy {_threads_label(case['threads'])}"}, cur))
    for row in table.rows:
        size = 4 if row["join"]["dtype"] == "float32" else 8
        for col in table.columns:
            if col["key"].isdigit():
                points.append({"ai": 2 * int(col["key"]) / (3 * size),
                               "gflops": row["cells"][col["key"]].value, "n": int(col["key"]),
                               "dtype": row["join"]["dtype"], "label": W("charts.roofline.label", label=row['label'])})
    rows = points + [dict(r, kind="ceiling") for r in peak_rows(current)]
    data = alt.Data(values=rows)
    dots = alt.Chart().mark_line(point=True).encode(
        x=alt.X("ai:Q", scale=alt.Scale(type="log"), title=W("charts.roofline.x")),
        y=alt.Y("gflops:Q", scale=alt.Scale(type="log"), title="GFLOPS"),
        color=alt.Color("label:N", title=W("charts.roofline.series_legend")),
        tooltip=["label:N", "n:Q", alt.Tooltip("gflops:Q", format=".1f")]
    ).transform_filter("datum.kind != 'ceiling'")
    rules = alt.Chart().mark_rule(strokeDash=[4, 3]).encode(
        y="gflops:Q", color=alt.Color("label:N"),
        tooltip=["label:N", alt.Tooltip("gflops:Q", format=".1f")]
    ).transform_filter("datum.kind == 'ceiling'")
    return (alt.layer(dots, rules, data=data).properties(width=300, height=260)
            .facet(column=alt.Column("dtype:N", title=None))
            .properties(title=W("charts.roofline.title")))


def tvm_stage_rows(table, current, shape):
    rows = [{"stage": r["key"], "label": stage_zh(r["key"]), "ms": r["cells"][col].value * 1e3,
             "series": W("charts.roofline.label", label=label)}
            for r in table.rows for col, label in (("tvm", "TVM"), ("numpy", "NumPy"))]
    if shape:
        m, n, k = shape
        for cur in merge.family(current, "gemm_tvm").values():
            case = cur.record["case"]
            if cur.ok and (case["m"], case["n"], case["k"]) == (m, n, k) and case["stage"] in STAGES:
                who = "TVM" if case["impl"] == "tvm" else W("charts.tvm_stage_rows.numpy_configured")
                rows.append(mark({"stage": case["stage"], "label": stage_zh(case["stage"]), "ms": cur.stat("p50") * 1e3,
                                   "series": W("charts.tvm_stage_rows.series", who=who, threads_label=_threads_label(case['threads']))}, cur))
    return rows


def tvm_stages(tables, current, env):
    shape = tvm_main_shape(current)
    data = alt.Data(values=tvm_stage_rows(tables["s23_tvm_stages"], current, shape))
    title = W("charts.tvm_stages.title") + (W("charts.tvm_stages.title_shape", m=shape[0], n=shape[1], k=shape[2]) if shape else "")
    return alt.Chart(data).mark_line(point=True).encode(
        x=alt.X("label:N", sort=[stage_zh(st) for st in STAGES], title=W("charts.tvm_stages.x")),
        y=alt.Y("ms:Q", scale=alt.Scale(type="log"), title=W("charts.tvm_stages.y")),
        color=alt.Color("series:N", title=W("charts.roofline.series_legend")),
        tooltip=["series:N", "label:N", alt.Tooltip("ms:Q", format=".3f")]
    ).properties(width=620, height=250, title=title)


def tuning_rows(current):
    rows, refs = [], []
    for cur in merge.family(current, "gemm_tvm").values():
        case = cur.record["case"]
        if case["stage"] == "autotuned" and case["impl"] == "tvm" and cur.ok:
            label = f"MetaSchedule {case['m']}×{case['n']}×{case['k']} {_threads_label(case['threads'])}"
            for point in cur.record["extra"].get("curve") or []:
                if point.get("best_so_far_s"):
                    rows.append(mark({"trial": point["trial"], "seconds": point["elapsed_s"],
                                       "ms": point["best_so_far_s"] * 1e3, "series": label}, cur))
            best = queries.numpy_peer(current, (case["m"], case["n"], case["k"]), case["threads"])
            if best is not None and best.ok:
                refs.append(mark({"ms": best.stat("p50") * 1e3, "series": W("charts.tuning_rows.series_numpy")}, best))
            hand = [c for c in merge.family(current, "gemm_hand").values()
                    if c.ok and c.record["case"]["n"] == case["m"] == case["n"] == case["k"]]
            if hand:
                fastest = min(hand, key=lambda c: c.stat("p50"))
                refs.append(mark({"ms": fastest.stat("p50") * 1e3,
                                   "series": W("charts.tuning_rows.series_hand", kernel=fastest.record['case']['kernel'])}, fastest))
    return rows, refs


def tuning_curve(tables, current, env):
    rows, refs = tuning_rows(current)
    values = [dict(r, kind="curve") for r in rows] + [dict(r, kind="ref") for r in refs]
    data = alt.Data(values=values)

    def panel(field, title):
        line = alt.Chart().mark_line(point=True, interpolate="step-after").encode(
            x=alt.X(f"{field}:Q", title=title),
            y=alt.Y("ms:Q", scale=alt.Scale(type="log"), title=W("charts.panel.y_ms")),
            color=alt.Color("series:N", title=W("charts.roofline.series_legend")),
            tooltip=["series:N", f"{field}:Q", alt.Tooltip("ms:Q", format=".3f")]
        ).transform_filter("datum.kind == 'curve'")
        rule = alt.Chart().mark_rule(strokeDash=[4, 3]).encode(
            y="ms:Q", color=alt.Color("series:N"), tooltip=["series:N", alt.Tooltip("ms:Q", format=".3f")]
        ).transform_filter("datum.kind == 'ref'")
        return alt.layer(line, rule, data=data).properties(width=300, height=240)

    return alt.hconcat(panel("trial", W("charts.tuning_curve.x_trials")), panel("seconds", W("charts.tuning_curve.x_seconds"))).properties(
        title=W("charts.tuning_curve.title"))


def e2e_ops(tables, current, env):
    """Per-operator time of one TVM run, before (C) and after tuning (D), per model (log scale)."""
    rows = []
    for cur in merge.family(current, "e2e").values():
        case = cur.record["case"]
        if cur.ok and case.get("batch") == 1 and case.get("engine") in ("tvm_c", "tvm_d", "tvm_d_prepack", "tvm_rules"):
            for op in cur.record["extra"].get("op_profile", [])[:8]:
                rows.append(mark({"model": case["model"], "variant": case["engine"].replace("tvm_", "TVM ").upper(),
                                   "op": op["op"], "ms": op["seconds"] * 1e3, "calls": op["calls"]}, cur))
    data = alt.Data(values=rows)
    return (alt.Chart(data).mark_bar().encode(
        y=alt.Y("op:N", sort="-x", title=None),
        x=alt.X("ms:Q", scale=alt.Scale(type="log"), stack=None, title=W("charts.e2e_ops.x")),
        color=alt.Color("variant:N", title=W("charts.e2e_ops.color")), yOffset="variant:N",
        tooltip=["model:N", "variant:N", "op:N", "calls:Q", alt.Tooltip("ms:Q", format=".3f")])
        .properties(width=320, height=alt.Step(9))
        .facet(row=alt.Row("model:N", title=None)).resolve_scale(y="independent")
        .properties(title=W("charts.e2e_ops.title")))


def int8_latency(tables, current, env):
    """Latency per engine of the INT8 study, per model (log scale), p50 with p95 ticks."""
    rows = []
    for cur in merge.family(current, "int8").values():
        case = cur.record["case"]
        if cur.ok and cur.record["samples"] and case.get("engine"):
            rows.append(mark({"model": model_zh(case["model"]), "engine": engine_zh(case["engine"]),
                               "dtype": "INT8" if "int8" in case["engine"]
                               or "qdq" in case["engine"] else "FP32",
                               "p50_ms": cur.stat("p50") * 1e3, "p95_ms": cur.stat("p95") * 1e3}, cur))
    data = alt.Data(values=rows)
    order = [engine_zh(e) for e in INT8_ENGINES]
    bars = alt.Chart().mark_bar().encode(
        x=alt.X("engine:N", sort=order, title=None),
        y=alt.Y("p50_ms:Q", scale=alt.Scale(type="log"), stack=None, title=W("charts.int8_latency.y")),
        color=alt.Color("dtype:N", title=W("charts.int8_latency.color")),
        tooltip=["model:N", "engine:N", alt.Tooltip("p50_ms:Q", format=".3f"), alt.Tooltip("p95_ms:Q", format=".3f")])
    ticks = alt.Chart().mark_tick(color="black", thickness=2).encode(x=alt.X("engine:N", sort=order), y=alt.Y("p95_ms:Q", scale=alt.Scale(type="log")))
    return (alt.layer(bars, ticks, data=data).properties(width=260, height=220)
            .facet(column=alt.Column("model:N", title=None)).resolve_scale(y="independent")
            .properties(title=W("charts.int8_latency.title")))


def tuning_spaces(tables, current, env):
    """Best-so-far GFLOPS of MetaSchedule's default space and of the micro-kernel space,
    against trials and against tuning seconds (main shape)."""
    data = alt.Data(values=tuning_space_rows(current))

    def panel(field, title):
        return alt.Chart(data).mark_line(point=True, interpolate="step-after").encode(
            x=alt.X(f"{field}:Q", title=title),
            y=alt.Y("gflops:Q", title=W("charts.panel.y_gflops")),
            color=alt.Color("series:N", title=W("charts.panel.color_space")),
            tooltip=["series:N", f"{field}:Q", alt.Tooltip("gflops:Q", format=".1f")]
        ).properties(width=300, height=240)

    return alt.hconcat(panel("trial", W("charts.tuning_curve.x_trials")), panel("seconds", W("charts.tuning_curve.x_seconds"))).properties(
        title=W("charts.tuning_spaces.title"))


def campaign_rows(current):
    """One point per campaign step of every e2e_tune record: cumulative trials, cumulative tuning
    seconds and the database's estimate of one run's kernel time (ms); peers' measured p50 as lines."""
    rows = []
    for cur in merge.family(current, "e2e_tune").values():
        camp = cur.record["extra"].get("campaign") if cur.ok else None
        if not camp:
            continue
        case, seconds = cur.record["case"], 0.0
        for step in camp["steps"]:
            seconds += step["seconds"]
            if step.get("estimated_kernel_s"):
                rows.append(mark({"series": f"{case['model']} · {case.get('variant', 'default')}", "model": case["model"],
                                   "trials": step["cumulative_trials"], "hours": seconds / 3600,
                                   "ms": step["estimated_kernel_s"] * 1e3, "kind": "campaign"}, cur))
    for cur in merge.family(current, "e2e").values():
        case = cur.record["case"]
        if cur.ok and case.get("batch") == 1 and case.get("engine") in ("ort", "tflite") \
                and any(r["model"] == case["model"] for r in rows):
            rows.append(mark({"series": W("charts.campaign_rows.series", model=case['model'], engine=case['engine']), "model": case["model"],
                               "ms": cur.stat("p50") * 1e3, "kind": "peer"}, cur))
    return rows


def campaign_curve(tables, current, env):
    """Tuning campaigns: estimated kernel time vs cumulative trials, ONNX Runtime / TFLite as rules."""
    data = alt.Data(values=campaign_rows(current))
    line = alt.Chart().mark_line(point=True).encode(
        x=alt.X("trials:Q", title=W("charts.campaign_curve.x")),
        y=alt.Y("ms:Q", scale=alt.Scale(type="log"), title=W("charts.campaign_curve.y")),
        color=alt.Color("series:N", title=W("charts.campaign_curve.color")),
        tooltip=["series:N", "trials:Q", alt.Tooltip("hours:Q", format=".2f", title=W("charts.campaign_curve.tooltip_hours")),
                 alt.Tooltip("ms:Q", format=".2f")]).transform_filter("datum.kind == 'campaign'")
    peers = alt.Chart().mark_rule(strokeDash=[4, 3]).encode(
        y="ms:Q", color=alt.Color("series:N"), tooltip=["series:N", alt.Tooltip("ms:Q", format=".2f")]
    ).transform_filter("datum.kind == 'peer'")
    return alt.layer(line, peers, data=data).properties(
        width=560, height=260, title=W("charts.campaign_curve.title"))


def graph_step_rows(current, subject="resnet18"):
    """p50 of the network after each pass step, per pipeline (the graph page's main chart)."""
    rows = []
    for cur in merge.family(current, "graph").values():
        case = cur.record["case"]
        if cur.ok and cur.record["samples"] and case.get("model") == subject and case.get("pipeline"):
            rows.append(mark({"step": int(str(case["step"]).split("-")[0]), "pass": case["pass"], "pipeline": case["pipeline"],
                               "ms": cur.stat("p50") * 1e3, "p95_ms": cur.stat("p95") * 1e3}, cur))
    return rows


def graph_steps(tables, current, env):
    """Latency after each graph pass (ResNet-18, untuned kernels): flat lines are the finding."""
    data = alt.Data(values=graph_step_rows(current))
    return alt.Chart(data).mark_line(point=True).encode(
        x=alt.X("step:O", title=W("charts.graph_steps.x"), axis=alt.Axis(labelAngle=0)),
        y=alt.Y("ms:Q", scale=alt.Scale(zero=True), title=W("charts.graph_steps.y")),
        color=alt.Color("pipeline:N", title=W("charts.graph_steps.color")),
        tooltip=["pipeline:N", "step:O", "pass:N", alt.Tooltip("ms:Q", format=".1f"), alt.Tooltip("p95_ms:Q", format=".1f")]
    ).properties(width=560, height=200, title=W("charts.graph_steps.title"))


BUILDERS = {"numpy_gflops": lambda t, c, e: numpy_gflops(t["s21_numpy"], c, e),
            "roofline": lambda t, c, e: roofline(t["s21_numpy"], c, e),
            "tvm_stages": tvm_stages, "tuning_curve": tuning_curve, "tuning_spaces": tuning_spaces,
            "e2e_latency": lambda t, c, e: e2e_latency(t, c, e), "e2e_ops": e2e_ops, "int8_latency": int8_latency,
            "campaign_curve": campaign_curve, "graph_steps": graph_steps}


def build_all(tables, current, env, runs=()):
    """{name: Vega-Lite spec dict} for every chart the pages may place."""
    specs = {name: flagged(fn(tables, current, env).to_dict()) for name, fn in BUILDERS.items()}
    specs["history"] = history(tables, current, env, runs).to_dict()
    return specs


FLAG = "flag"
"""The field of a chart point whose record is flagged as a jump (pages.history.flagged)."""


def mark(row, cur):
    """A chart point drawn from ``cur``'s record, carrying the jump flag when that record jumped: as
    the pages flag a figure resting on a jumped record, its chart point says so in its tooltip."""
    if cur is not None and getattr(cur, "jumped", False):
        row[FLAG] = W("charts.flag.point")
    return row


def _walk(node):
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from _walk(value)
    elif isinstance(node, list):
        for value in node:
            yield from _walk(value)


def flagged(spec):
    """A chart spec whose tooltips show the jump flag of a point, and whose title carries a subtitle
    counting the flagged points when there are any (a reader who hovers over nothing sees it too)."""
    count = sum(1 for node in _walk(spec.get("datasets", {})) if node.get(FLAG))
    count += sum(1 for node in _walk((spec.get("data") or {}).get("values", [])) if node.get(FLAG))
    if not count:
        return spec
    for node in list(_walk(spec)):
        tips = (node.get("encoding") or {}).get("tooltip") if isinstance(node.get("encoding"), dict) else None
        if isinstance(tips, list):
            tips.append({"field": FLAG, "type": "nominal", "title": W("charts.flag.title")})
    title = spec.get("title")
    text = title.get("text") if isinstance(title, dict) else title
    spec["title"] = {"text": text or "", "subtitle": W("charts.flag.subtitle", n=count)}
    return spec


# Vega-Lite's default text sizes (px) and the factor the printed article uses: an A4 column is
# about 700 px wide, so a chart of 800 px prints at 0.85 scale and its 10 px labels near 6 pt.
TEXT_PX = {("axis", "labelFontSize"): 10, ("axis", "titleFontSize"): 11, ("legend", "labelFontSize"): 10,
           ("legend", "titleFontSize"): 11, ("header", "labelFontSize"): 10, ("header", "titleFontSize"): 11,
           ("title", "fontSize"): 13}
PRINT_TEXT = 1.4


def svg(spec, text=1.0):
    """Static SVG rendered without a browser: the page's fallback (text=1) or the printed article's
    copy with every text enlarged by ``text``."""
    import vl_convert as vlc
    if text != 1.0:
        spec = dict(spec, config=dict(spec.get("config") or {}))
        for (part, key), px in TEXT_PX.items():
            spec["config"][part] = {**spec["config"].get(part, {}), key: round(px * text, 1)}
        spec["config"]["legend"]["labelLimit"] = 400   # the larger labels are not cut at 160 px
    return vlc.vegalite_to_svg(spec)


def embed_html(name, spec, svg_href):
    """The page snippet: a div the bundled vega-embed fills, with the SVG as fallback."""
    return (W("charts.embed_html.text", name=name, svg_href=html.escape(svg_href), payload=payload(spec)))


def payload(spec):
    """A spec as the JSON text of its <script> (verify and the build compare a page's with it)."""
    # Inside <script> entities are not decoded: keep the JSON valid and unbreakable instead.
    return json.dumps(spec, ensure_ascii=False, sort_keys=True).replace("<", "\\u003c")


ENV_MARKS = ("tvm_version", "numpy_version", "llvm_version", "cpu_model", "blas")


def history_rows(runs, limit=12):
    """p50 of every timed case seen in two or more runs, normalized to its first run, one point per run.

    A series is one case id on one machine and one profile: a quick smoke run is never linked to
    a standard point, nor one machine's figure to another's (the site passes one machine's runs).
    """
    from study.schema import EVIDENCE
    series, labels = {}, {}
    for run in runs:
        for rec in run.records:
            if rec["status"] == "ok" and rec["metric"] != EVIDENCE and not rec["reused_from"]:
                key = (rec["id"], merge.machine_of(run), run.manifest["profile"])
                series.setdefault(key, []).append((run, rec["stats"]["p50"]))
                labels[key] = W("charts.history_rows.case", case=case_label(rec["id"].split("/")[0], rec.get("case")),
                                profile=key[2])
    repeated = sorted((k for k, v in series.items() if len(v) >= 2), key=lambda k: (-len(series[k]), k))[:limit]
    rows, said = [], {}
    for key in repeated:   # two cases the words cannot tell apart keep apart as #2, #3
        said[labels[key]] = said.get(labels[key], 0) + 1
        if said[labels[key]] > 1:
            labels[key] += f" #{said[labels[key]]}"
    for key in repeated:
        first = series[key][0][1]
        for run, p50 in series[key]:
            rows.append({"run": run.manifest["finished_at"], "case": labels[key], "id": key[0], "ratio": p50 / first,
                         "machine": key[1], "kind": "point"})
    for prev, run in zip(runs, runs[1:]):
        changed = [k for k in ENV_MARKS if prev.manifest["environment"].get(k) != run.manifest["environment"].get(k)]
        if changed:
            rows.append({"run": run.manifest["finished_at"], "kind": "env", "label": W("charts.history_rows.env_changed") + W("common.punct.enumeration_comma").join(changed)})
    return rows


def history(tables, current, env, runs=()):
    rows = history_rows(list(runs))
    data = alt.Data(values=rows)
    points = alt.Chart().mark_line(point=True).encode(
        x=alt.X("run:T", title=W("charts.history.x")),
        y=alt.Y("ratio:Q", scale=alt.Scale(type="log"), title=W("charts.history.y")),
        color=alt.Color("case:N", title=W("charts.history.color"), legend=alt.Legend(labelLimit=420)),
        tooltip=["case:N", "id:N", "run:T", "machine:N", alt.Tooltip("ratio:Q", format=".3f")]
    ).transform_filter("datum.kind == 'point'")
    layers = [points]
    if any(r["kind"] == "env" for r in rows):   # an empty rule layer has no extent (Vega warns)
        layers.append(alt.Chart().mark_rule(strokeDash=[2, 2], color="gray").encode(
            x="run:T", tooltip=["label:N"]).transform_filter("datum.kind == 'env'"))
    return alt.layer(*layers, data=data).properties(width=640, height=260, title=W("charts.history.title"))


def e2e_latency(tables, current, env):
    """Warm latency per engine per model (log scale), p50 with the p95 as a tick."""
    rows = []
    for cur in merge.family(current, "e2e").values():
        if cur.ok and cur.record["case"]["batch"] == 1:
            case = cur.record["case"]
            rows.append(mark({"model": model_zh(case["model"]), "engine": engine_zh(case["engine"]), "group": case["group"],
                               "p50_ms": cur.stat("p50") * 1e3, "p95_ms": cur.stat("p95") * 1e3}, cur))
    data = alt.Data(values=rows)
    bars = alt.Chart().mark_bar().encode(
        x=alt.X("engine:N", title=None, sort=[engine_zh(e) for e in E2E_ENGINES]),
        y=alt.Y("p50_ms:Q", scale=alt.Scale(type="log"), stack=None, title=W("charts.int8_latency.y")),
        color=alt.Color("group:N", title=W("charts.e2e_latency.color")),
        tooltip=["model:N", "engine:N", alt.Tooltip("p50_ms:Q", format=".2f"), alt.Tooltip("p95_ms:Q", format=".2f")])
    ticks = alt.Chart().mark_tick(color="black", thickness=2).encode(
        x=alt.X("engine:N", sort=[engine_zh(e) for e in E2E_ENGINES]), y=alt.Y("p95_ms:Q", scale=alt.Scale(type="log")))
    return (alt.layer(bars, ticks, data=data).properties(width=170, height=174)
            .facet(column=alt.Column("model:N", title=None)).properties(title=W("charts.e2e_latency.title")))


def tuning_space_rows(current):
    """Points of the GFLOPS-vs-trials / vs-seconds chart: best so far, per space and shape."""
    rows = []
    main = tvm_main_shape(current)
    for cur in merge.family(current, "gemm_tvm").values():
        case = cur.record["case"]
        if case["stage"] not in SPACE_ZH or case["impl"] != "tvm" or not cur.ok or (case["m"], case["n"], case["k"]) != main:
            continue
        label = W("charts.tuning_space_rows.label", space_zh=SPACE_ZH[case['stage']], threads=case['threads'])
        flops = work.flops_per_call(cur.record)
        for point in cur.record["extra"].get("curve") or []:
            if point.get("best_so_far_s"):
                rows.append(mark({"trial": point["trial"], "seconds": point.get("elapsed_s"),
                                   "gflops": flops / point["best_so_far_s"] / 1e9, "series": label}, cur))
    return rows
