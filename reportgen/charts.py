"""Altair charts built from merged data: a Vega-Lite spec for the page, an SVG fallback."""
import html
import json

import altair as alt

from . import merge

THREADS_ZH = {1: "1 线程"}


def _threads_label(threads):
    return THREADS_ZH.get(threads, f"{threads} 线程")


def numpy_gflops_rows(table, current, env):
    """Long-form rows: historical §21 and current NumPy GFLOPS per size."""
    rows = []
    for row in table.rows:
        threads_hist = "1 线程" if row["join"]["threads"] == 1 else "4 线程（历史）"
        for col in table.columns:
            if col["key"].isdigit():
                rows.append({"n": int(col["key"]), "gflops": row["cells"][col["key"]].value,
                             "dtype": row["join"]["dtype"], "threads": threads_hist,
                             "series": "历史（2.4 GHz AVX2 服务器）"})
    for cur in merge.family(current, "numpy_gemm").values():
        if cur.ok:
            case = cur.record["case"]
            rows.append({"n": case["n"], "gflops": cur.gflops(), "dtype": case["dtype"],
                         "threads": _threads_label(case["threads"]),
                         "series": f"当前复测（{'配置内核' if case['blas_env'] == 'configured' else '最佳内核'}）"})
    return rows


def peak_rows(current):
    rows = []
    for cur in merge.family(current, "machine_peak").values():
        if cur.ok:
            case = cur.record["case"]
            rows.append({"dtype": case["dtype"], "gflops": cur.gflops(),
                         "label": f"实测峰值 {case['isa']} {_threads_label(case['threads'])}"})
            theo = cur.record["extra"].get("theoretical")
            if theo:
                rows.append({"dtype": case["dtype"], "gflops": theo["gflops"],
                             "label": f"理论峰值 {_threads_label(case['threads'])}"})
    return rows


def numpy_gflops(table, current, env):
    data = alt.Data(values=numpy_gflops_rows(table, current, env))
    base = alt.Chart(data).encode(
        x=alt.X("n:Q", scale=alt.Scale(type="log"), title="矩阵尺寸 n（n×n×n）"),
        y=alt.Y("gflops:Q", scale=alt.Scale(type="log"), title="GFLOPS（中位）"),
        color=alt.Color("series:N", title="来源"),
        strokeDash=alt.StrokeDash("threads:N", title="线程"),
        tooltip=["series:N", "threads:N", "n:Q", alt.Tooltip("gflops:Q", format=".1f")])
    chart = (base.mark_line(point=True)
             .properties(width=300, height=240)
             .facet(column=alt.Column("dtype:N", title=None), data=data))
    return chart.properties(title="NumPy GEMM：历史与当前复测")


def roofline(table, current, env):
    """GFLOPS against arithmetic intensity 2n³ / (3n² · bytes), with compute ceilings."""
    points = []
    for cur in merge.family(current, "numpy_gemm").values():
        case = cur.record["case"]
        if cur.ok and case["blas_env"] == "best":
            size = 4 if case["dtype"] == "float32" else 8
            points.append({"ai": 2 * case["n"] / (3 * size), "gflops": cur.gflops(), "n": case["n"],
                           "dtype": case["dtype"], "label": f"NumPy {_threads_label(case['threads'])}"})
    for row in table.rows:
        size = 4 if row["join"]["dtype"] == "float32" else 8
        for col in table.columns:
            if col["key"].isdigit():
                points.append({"ai": 2 * int(col["key"]) / (3 * size),
                               "gflops": row["cells"][col["key"]].value, "n": int(col["key"]),
                               "dtype": row["join"]["dtype"], "label": f"历史 {row['label']}"})
    rows = points + [dict(r, kind="ceiling") for r in peak_rows(current)]
    data = alt.Data(values=rows)
    dots = alt.Chart().mark_line(point=True).encode(
        x=alt.X("ai:Q", scale=alt.Scale(type="log"), title="运算强度（FLOP/字节，按 3n² 次最少访存）"),
        y=alt.Y("gflops:Q", scale=alt.Scale(type="log"), title="GFLOPS"),
        color=alt.Color("label:N", title="系列"),
        tooltip=["label:N", "n:Q", alt.Tooltip("gflops:Q", format=".1f")]
    ).transform_filter("datum.kind != 'ceiling'")
    rules = alt.Chart().mark_rule(strokeDash=[4, 3]).encode(
        y="gflops:Q", color=alt.Color("label:N"),
        tooltip=["label:N", alt.Tooltip("gflops:Q", format=".1f")]
    ).transform_filter("datum.kind == 'ceiling'")
    return (alt.layer(dots, rules, data=data).properties(width=300, height=260)
            .facet(column=alt.Column("dtype:N", title=None))
            .properties(title="Roofline 式视图：计算上限（实测与理论）"))


BUILDERS = {"numpy_gflops": numpy_gflops, "roofline": roofline}


def build_all(tables, current, env):
    """{name: Vega-Lite spec dict} for every chart the pages may place."""
    return {name: fn(tables["s21_numpy"], current, env).to_dict() for name, fn in BUILDERS.items()}


def svg(spec):
    """Static SVG fallback rendered without a browser."""
    import vl_convert as vlc
    return vlc.vegalite_to_svg(spec)


def embed_html(name, spec, svg_href):
    """The page snippet: a div the bundled vega-embed fills, with the SVG as fallback."""
    # Inside <script> entities are not decoded: keep the JSON valid and unbreakable instead.
    payload = json.dumps(spec, ensure_ascii=False, sort_keys=True).replace("<", "\\u003c")
    return (f'<div class="vchart" id="chart-{name}" data-chart="{name}">'
            f'<img class="vchart-fallback" src="{html.escape(svg_href)}" alt="图表 {name}（静态 SVG）"></div>\n'
            f'<script type="application/json" id="spec-{name}">{payload}</script>')
