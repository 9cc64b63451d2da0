"""Derived-value checks on the archive: recompute, compare, report; never change a value.

Where a historical value can be recomputed from other historical values
(utilization, ratios, peak formulas, shapes), recompute it at the printed
precision and say whether it matches. Claims the seed makes about its own
tables ("INT8 alone is slower") are checked the same way.
"""
import math
from dataclasses import dataclass, field
from reportgen.data.words import W


@dataclass
class Check:
    id: str
    table: str
    title: str
    formula: str
    recomputed: str
    printed: str
    verdict: str        # match | match_if_truncated | mismatch | holds | fails | info
    inputs: list = field(default_factory=list)


def _fmt(value, decimals):
    return f"{value:.{decimals}f}"


def _compare(check_id, table, title, formula, value, printed_cell, inputs, scale=1.0):
    """Round value at the printed cell's precision and compare with it."""
    decimals = printed_cell.decimals
    shown = value * scale
    rounded = _fmt(shown, decimals)
    printed_value = printed_cell.value
    if math.isclose(float(rounded), printed_value, abs_tol=0.5 * 10 ** -(decimals + 3)):
        verdict = "match"
    elif math.isclose(math.floor(shown * 10 ** decimals) / 10 ** decimals, printed_value,
                      abs_tol=0.5 * 10 ** -(decimals + 3)):
        verdict = "match_if_truncated"
    else:
        verdict = "mismatch"
    return Check(check_id, table, title, formula, rounded, printed_cell.text, verdict,
                 [c.id for c in inputs] + [printed_cell.id])


def _claim(check_id, table, title, formula, holds, inputs, detail):
    return Check(check_id, table, title, formula, detail, "—", "holds" if holds else "fails",
                 [c.id for c in inputs])


def _peaks(t):
    out = []
    for row, lanes in (("fp32", 8), ("fp64", 4)):
        clock, peak = t.cell(row, "clock"), t.cell(row, "peak")
        value = clock.value * (lanes + lanes) * 2
        out.append(_compare(f"s21_peak/{row}", t.id, W("derived.peaks.title", upper=row.upper()),
                            f"{clock.text} × ({lanes}+{lanes}) × 2", value, peak, [clock]))
    return out


def _numpy_util(t, peaks):
    out = []
    for row in t.rows:
        dtype = row["join"]["dtype"]
        cores = 1 if row["join"]["threads"] == 1 else 4
        peak = peaks.cell("fp32" if dtype == "float32" else "fp64", "peak")
        top = row["cells"]["10240"]
        util = row["cells"]["utilization"]
        out.append(_compare(f"s21_numpy/{row['key']}/utilization", t.id,
                            W("derived.numpy_util.title", label=row['label']), f"{top.text} ÷ ({peak.text} × {cores})",
                            top.value / (peak.value * cores), util, [top, peak], scale=100))
    return out


def _ladder_util(t, peaks):
    peak = peaks.cell("fp64", "peak")
    out = []
    for row in t.rows:
        top, util = row["cells"]["1024"], row["cells"]["utilization"]
        out.append(_compare(f"s22_hand_ladder/{row['key']}/utilization", t.id,
                            W("derived.numpy_util.title", label=row['label']), W("derived.ladder_util.formula", gflops=top.text, peak=peak.text),
                            top.value / peak.value, util, [top, peak], scale=100))
    return out


def _tf_tvm(t, summary):
    tf, tvm = t.cell("tensorflow", "rounded"), t.cell("tvm", "rounded")
    out = [_compare("s20_summary/speedup", summary.id, W("derived.tf_tvm.title"),
                    f"{tf.text} ÷ {tvm.text}", tf.value / tvm.value,
                    summary.cell("speedup", "value"), [tf, tvm])]
    for row in ("tensorflow", "tvm"):
        long, short = t.cell(row, "long"), t.cell(row, "rounded")
        out.append(_compare(f"s20_tf_vs_tvm/{row}/long_vs_rounded", t.id,
                            W("derived.tf_tvm.title_long_vs_rounded", row=row), f"round({long.text}, 6)",
                            long.value, short, [long]))
    return out


def _stage_copies(s23, s33):
    out = []
    for row in s23.rows:
        for col in ("tvm", "numpy"):
            a, b = row["cells"][col], s33.cell(row["key"], col)
            out.append(_claim(f"s33_tvm_stages_text/{row['key']}/{col}", s33.id,
                              W("derived.stage_copies.title", label=row['label'], col=col),
                              f"{b.text} = {a.text}", math.isclose(a.value, b.value),
                              [a, b], f"{b.value:g} vs {a.value:g}"))
    return out


def _ratio_claim(check_id, table, title, slow, fast, holds_if):
    ratio = slow.value / fast.value
    return _claim(check_id, table.id, title, f"{slow.text} ÷ {fast.text}", holds_if(ratio),
                  [slow, fast], f"{ratio:.2f}×")


def _seed_claims(tables):
    s21, s22, s23, s31 = (tables[k] for k in ("s21_numpy", "s22_hand_ladder", "s23_tvm_stages", "s31_int8"))
    c = []
    quad, single = s21.cell("quad_fp32", "utilization"), s21.cell("single_fp32", "utilization")
    c.append(_claim("s21_numpy/claim/quad_lower", s21.id, W("derived.seed_claims.title_quad_lower"),
                    f"{quad.text} < {single.text}", quad.value < single.value, [quad, single],
                    f"{quad.text} vs {single.text}"))
    drops = [(a, b) for a, b in zip(s22.rows, s22.rows[1:])
             if b["cells"]["1024"].value < a["cells"]["1024"].value]
    c.append(_claim("s22_hand_ladder/claim/not_monotonic", s22.id,
                    W("derived.seed_claims.title_not_monotonic"), W("derived.seed_claims.formula_not_monotonic"), bool(drops),
                    [r["cells"]["1024"] for r in s22.rows],
                    W("common.punct.semicolon").join(f"{b['label']} {b['cells']['1024'].text} < {a['label']} "
                             f"{a['cells']['1024'].text}" for a, b in drops) or W("derived.seed_claims.no_drops")))
    tvm = {r["key"]: r["cells"]["tvm"] for r in s23.rows}
    npy = {r["key"]: r["cells"]["numpy"] for r in s23.rows}
    c.append(_ratio_claim("s23_tvm_stages/claim/blocking_limited", s23, W("derived.seed_claims.title_blocking_limited"),
                          tvm["baseline"], tvm["blocking"], lambda r: r < 2))
    c.append(_ratio_claim("s23_tvm_stages/claim/vectorize_big", s23, W("derived.seed_claims.title_vectorize_big"),
                          tvm["blocking"], tvm["vectorization"], lambda r: r > 2))
    c.append(_ratio_claim("s23_tvm_stages/claim/permute_big", s23, W("derived.seed_claims.title_permute_big"),
                          tvm["vectorization"], tvm["loop_permutation"], lambda r: r > 2))
    c.append(_ratio_claim("s23_tvm_stages/claim/parallel_close", s23, W("derived.seed_claims.title_parallel_close"),
                          tvm["parallel"], npy["parallel"], lambda r: r < 2))
    c.append(_claim("s23_tvm_stages/claim/autotvm_closer", s23.id, W("derived.seed_claims.title_autotvm_closer"),
                    f"{tvm['autotuned'].text} ÷ {npy['autotuned'].text} < "
                    f"{tvm['parallel'].text} ÷ {npy['parallel'].text}",
                    tvm["autotuned"].value / npy["autotuned"].value < tvm["parallel"].value / npy["parallel"].value,
                    [tvm["autotuned"], npy["autotuned"], tvm["parallel"], npy["parallel"]],
                    f"{tvm['autotuned'].value / npy['autotuned'].value:.2f}× < "
                    f"{tvm['parallel'].value / npy['parallel'].value:.2f}×"))
    r18 = {k: s31.cell("resnet18_v1", k) for k in ("framework_time", "tvm_fp32", "tvm_int8", "tvm_int8_tuned")}
    inc = {k: s31.cell("inception_v1", k) for k in ("framework_time", "tvm_fp32", "tvm_int8", "tvm_int8_tuned")}
    for cid, title, a, b in (
            ("r18_fp32_slower", W("derived.seed_claims.title_r18_fp32_slower"), r18["tvm_fp32"], r18["framework_time"]),
            ("r18_int8_slower", W("derived.seed_claims.title_r18_int8_slower"), r18["tvm_int8"], r18["tvm_fp32"]),
            ("r18_tuned_faster", W("derived.seed_claims.title_r18_tuned_faster"), r18["framework_time"], r18["tvm_int8_tuned"]),
            ("inc_fp32_faster", W("derived.seed_claims.title_inc_fp32_faster"), inc["framework_time"], inc["tvm_fp32"]),
            ("inc_int8_slower", W("derived.seed_claims.title_inc_int8_slower"), inc["tvm_int8"], inc["tvm_fp32"]),
            ("inc_tuned_better", W("derived.seed_claims.title_inc_tuned_better"), inc["tvm_fp32"], inc["tvm_int8_tuned"])):
        c.append(_ratio_claim(f"s31_int8/claim/{cid}", s31, f"“{title}”", a, b, lambda r: r > 1))
    return c


def _conv_shape(t):
    inp, ker, out = (t.cell(k, "shape").text for k in ("input", "kernel", "output"))
    h = int(inp.strip("()").split(",")[2])
    k = int(ker.strip("()").split(",")[2])
    stride = int(t.cell("stride", "shape").text.strip("()").split(",")[0])
    oh = (h + 2 * 1 - k) // stride + 1
    channels = int(ker.strip("()").split(",")[0])
    want = f"(1, {channels}, {oh}, {oh})"
    return [_claim("s29_conv_unit/output", t.id, W("derived.conv_shape.title"),
                   f"⌊({h} + 2·1 − {k}) / {stride}⌋ + 1 = {oh}", want == out,
                   [t.cell(k, "shape") for k in ("input", "kernel", "stride", "output")], want)]


def _cross_numpy(s21, s23):
    gflops = s21.cell("quad_fp32", "1024")
    implied = 2 * 1024 ** 3 / (gflops.value * 1e9)
    low = min(r["cells"]["numpy"].value for r in s23.rows)
    high = max(r["cells"]["numpy"].value for r in s23.rows)
    return [Check("s23_tvm_stages/cross/numpy_vs_s21", s23.id,
                  W("derived.cross_numpy.title"),
                  f"2·1024³ ÷ {gflops.text} GFLOPS", f"{implied * 1e3:.2f} ms",
                  f"{low * 1e3:.2f}–{high * 1e3:.2f} ms", "info",
                  [gflops.id] + [r["cells"]["numpy"].id for r in s23.rows])]


def run_checks(tables):
    """All derived-value checks, in the order the seed presents its tables."""
    peaks = tables["s21_peak"]
    return (_tf_tvm(tables["s20_tf_vs_tvm"], tables["s20_summary"])
            + _peaks(peaks) + _numpy_util(tables["s21_numpy"], peaks)
            + _ladder_util(tables["s22_hand_ladder"], peaks)
            + _stage_copies(tables["s23_tvm_stages"], tables["s33_tvm_stages_text"])
            + _cross_numpy(tables["s21_numpy"], tables["s23_tvm_stages"])
            + _conv_shape(tables["s29_conv_unit"]) + _seed_claims(tables))
