"""Tables of the GEMM micro-kernel study (issue #17): the MR/NR/KC grid, MetaSchedule over
its own space and over the micro-kernel's space, and the INT8 VNNI GEMM beside FP32.

Every measured figure links to its record; each row says the ISA its kernel used
(``extra.isa``, from the FMA registers in the generated code)."""
from reportgen.data import compare, merge, queries, runfacts
from reportgen.render.labels import SPACE_ZH
from reportgen.render.figures import derive, fmt_number, operand
from reportgen.render.cells import text as _esc
from reportgen.render.markdown import markdown, ms_cell as _ms_cell
from reportgen.data.queries import tvm_record as _tvm_get, tvm_main_shape
from reportgen.data.words import W

ISA_ZH = {"avx512": W("gemm_ladder.isa_zh.avx512"), "avx2": W("gemm_ladder.isa_zh.avx2"), "sse": W("gemm_ladder.isa_zh.sse"), "scalar": W("gemm_ladder.isa_zh.scalar"),
          "avx512_vnni": W("gemm_ladder.isa_zh.avx512_vnni")}


def _fam(current):
    return list(merge.family(current, "gemm_tvm").values())


def _shape(case):
    return (case["m"], case["n"], case["k"])


def _shape_text(shape):
    return "×".join(map(str, shape))


def _isa(cur):
    isa = cur.record["extra"].get("isa") if cur is not None else None
    return _esc(ISA_ZH.get(isa, isa or "—"))


def _gflops(book, cur, unit="GFLOPS"):
    if cur is None:
        return W("gemm_ladder.gflops.text")
    if not cur.ok:
        return book.failed(cur)
    return book.current(f"{cur.record['id']}#gflops_p50", fmt_number(cur.gflops(), unit), unit, cur)


def _vs(book, num, den, suffix):
    """Speed of num relative to den (den time / num time), linked to num's record."""
    if num is None or den is None or not num.ok or not den.ok:
        return "—"
    return book.current(f"{num.record['id']}#{suffix}", f"{den.stat('p50') / num.stat('p50'):.2f}×", "×", num, also=(den,))


def microkernel_summary(book, current, threads):
    """The micro-kernel stage on every shape: GFLOPS, ISA, tiles, speed vs NumPy's best kernel."""
    fam = [c for c in _fam(current) if c.record["case"]["stage"] == "microkernel"
           and c.record["case"]["impl"] == "tvm" and c.record["case"]["threads"] == threads]
    if not fam:
        return W("gemm_ladder.microkernel_summary.text")
    rows = []
    for cur in sorted(fam, key=lambda c: _shape(c.record["case"])):
        shape = _shape(cur.record["case"])
        params = (cur.record["extra"].get("schedule_params") or {}) if cur.ok else {}   # a failure's are no figure
        best = queries.numpy_peer(current, shape, threads)
        parallel = _tvm_get(current, "tvm", "parallel", shape, threads)
        tiles = (W("gemm_ladder.microkernel_summary.blocking", mr=params['mr'], nr=params['nr'], kc=params['kc']) if {"mr", "nr", "kc"} <= params.keys()
                 else "—")
        rows.append([_shape_text(shape), _gflops(book, cur), _isa(cur), _peak_share(book, current, cur, threads),
                     _esc(tiles), _esc(params.get("tail_handling", "—")), _vs(book, cur, parallel, "speed_vs_parallel"),
                     _vs(book, cur, best, "speed_vs_best_numpy"), _gflops(book, best)])
    return markdown([W("gemm_ladder.microkernel_summary.head_shape"), W("gemm_ladder.microkernel_summary.head_microkernel_gflops"), W("gemm_ladder.microkernel_summary.head_isa"), W("gemm_ladder.microkernel_summary.head_peak_share"), W("gemm_ladder.microkernel_summary.head_blocking"), W("gemm_ladder.microkernel_summary.head_tail"),
                     W("gemm_ladder.microkernel_summary.head_vs_parallel"), W("gemm_ladder.microkernel_summary.head_vs_numpy"), W("gemm_ladder.microkernel_summary.head_numpy_gflops")], rows)


def _peak_share(book, current, cur, threads):
    """GFLOPS of a kernel as a share of the measured FP32 peak of the ISA it used, same machine and threads."""
    if cur is None or not cur.ok:
        return "—"
    isa = cur.record["extra"].get("isa")
    peak = merge.isa_peak(current, "float32", threads, isa)
    if peak is None:
        failed = merge.isa_peak_failed(current, "float32", threads, isa)
        return (W("gemm_ladder.peak_share.failed", isa=_esc(str(isa)), failed=book.failed(failed))
                if failed is not None else W("gemm_ladder.peak_share.text"))
    share = cur.gflops() / peak.gflops()
    return book.current(f"{cur.record['id']}#share_of_isa_peak", f"{share * 100:.0f}%", "%", cur, also=(peak,)) + book.above_peak(share) + \
        W("gemm_ladder.peak_share.isa_peak_open", isa=_esc(peak.record['case']['isa'])) + book.current(
            f"{peak.record['id']}#gflops_p50", fmt_number(peak.gflops(), "GFLOPS"), "GFLOPS", peak) + W("common.punct.close_paren")


def microkernel_grid(book, current):
    """The recorded MR/NR/KC grid per thread count, from the newest run that searched it; the chosen
    candidate is marked.  A grid is one search: a candidate of an older run whose id scheme has since
    changed (ids without ``mc``) is still the current record of its own id, but not of this search."""
    fam = [c for c in _fam(current) if c.record["case"]["impl"] == "tvm_grid"]
    def place(c):   # the newest by runfacts.order_key (-10 after -2), as every reader orders runs
        return runfacts.order_key(c.run) if c.run is not None else ((c.record["run_id"], 1), c.record["run_id"])
    newest = {}
    for c in fam:
        threads = c.record["case"]["threads"]
        newest[threads] = max(newest.get(threads, place(c)), place(c))
    fam = [c for c in fam if place(c) == newest[c.record["case"]["threads"]]]
    if not fam:
        return W("gemm_ladder.microkernel_grid.text")
    chosen = {c.record["extra"].get("tiles_chosen_by") for c in _fam(current)
              if c.record["case"]["stage"] == "microkernel" and c.record["case"]["impl"] == "tvm"}
    rows = []
    for cur in sorted(fam, key=lambda c: (c.record["case"]["threads"], c.record["id"])):
        case = cur.record["case"]
        tiles = case.get("tiles") or {}
        rows.append([_shape_text(_shape(case)), str(case["threads"])]
                    + [_esc(str(tiles.get(key, "—"))) for key in ("mr", "nr", "kc", "mc")]
                    + [_isa(cur), _gflops(book, cur), W("gemm_ladder.microkernel_grid.chosen") if cur.record["id"] in chosen else ""])
    return markdown([W("gemm_ladder.microkernel_summary.head_shape"), W("gemm_ladder.microkernel_grid.head_threads"), "MR", "NR", "KC", "MC",
                     W("gemm_ladder.microkernel_summary.head_isa"), W("gemm_ladder.microkernel_grid.head_gflops"), W("gemm_ladder.microkernel_grid.head_chosen")], rows)


def tuning_spaces(book, current):
    """MetaSchedule's default space beside the micro-kernel space, same workload and budget."""
    rows = []
    for cur in sorted((c for c in _fam(current) if c.record["case"]["stage"] in SPACE_ZH
                       and c.record["case"]["impl"] == "tvm"),
                      key=lambda c: (_shape(c.record["case"]), c.record["case"]["threads"], c.record["case"]["stage"])):
        case, extra = cur.record["case"], cur.record["extra"]
        shape = _shape(case)
        best = queries.numpy_peer(current, shape, case["threads"])
        hand = _tvm_get(current, "tvm", "microkernel", shape, case["threads"])
        rows.append([SPACE_ZH[case["stage"]], _shape_text(shape), str(case["threads"]),
                     book.current(f"{cur.record['id']}#trials", str(extra.get("trials_done")), "trials", cur),
                     book.current(f"{cur.record['id']}#tuning_s", fmt_number(extra.get("tuning_seconds", 0), "s") + " s",
                                  "s", cur),
                     _gflops(book, cur), _isa(cur), _vs(book, cur, hand, "speed_vs_microkernel"),
                     _vs(book, cur, best, "speed_vs_best_numpy")])
    if not rows:
        return W("gemm_ladder.tuning_spaces.text")
    return markdown([W("gemm_ladder.tuning_spaces.head_space"), W("gemm_ladder.microkernel_summary.head_shape"), W("gemm_ladder.microkernel_grid.head_threads"), W("gemm_ladder.tuning_spaces.head_trials"), W("gemm_ladder.tuning_spaces.head_tuning_time"), W("gemm_ladder.tuning_spaces.head_best_gflops"), W("gemm_ladder.microkernel_summary.head_isa"),
                     W("gemm_ladder.tuning_spaces.head_vs_hand"), W("gemm_ladder.microkernel_summary.head_vs_numpy")], rows)


def int8_vnni(book, current):
    """u8×s8→s32 GEMM with vpdpbusd beside the FP32 micro-kernel of the same shape and threads."""
    rows = []
    for cur in sorted((c for c in _fam(current) if c.record["case"]["impl"] == "tvm_int8"),
                      key=lambda c: (_shape(c.record["case"]), c.record["case"]["threads"])):
        case, extra = cur.record["case"], cur.record["extra"]
        shape = _shape(case)
        fp32 = current.get(extra.get("fp32_peer") or "")
        dots = (extra.get("dot_instructions") or {}).get("vpdpbusd") if cur.ok else None
        state = (W("gemm_ladder.int8_vnni.exact_match") if cur.ok else
                 W("gemm_ladder.int8_vnni.failed", failed=book.failed(cur), error=_esc(cur.record.get('error') or '')))
        rows.append([_shape_text(shape), str(case["threads"]), _gflops(book, cur, "GOPS") if cur.ok else "—",
                     _gflops(book, fp32), _vs(book, cur, fp32, "speed_vs_fp32") if cur.ok else "—",
                     _esc(str(dots) if dots is not None else "—"), state])
    if not rows:
        return W("gemm_ladder.int8_vnni.text")
    return markdown([W("gemm_ladder.microkernel_summary.head_shape"), W("gemm_ladder.microkernel_grid.head_threads"), "INT8 GOPS", W("gemm_ladder.int8_vnni.head_fp32_gflops"), W("gemm_ladder.int8_vnni.head_int8_vs_fp32"),
                     W("gemm_ladder.int8_vnni.head_vpdpbusd"), W("gemm_ladder.int8_vnni.head_result")], rows)


def _fastest(current, shape, threads):
    """The fastest passing finished TVM kernel (by p50) on one shape and thread count."""
    done = [c for c in (_tvm_get(current, "tvm", s, shape, threads) for s in BEST_STAGES) if c is not None and c.ok]
    return merge.fastest(done) if done else None


def _goal_row(book, label, threads, goal, num, den, suffix, share=False):
    """One goal: the measured ratio (den p50 / num p50, or num's share of peak den) beside its bar."""
    need = f"≥ {goal * 100:.0f}%" if share else f"≥ {goal:.1f}×"
    if num is not None and num.ok and den is not None and not den.ok:   # the divisor failed: say so, with its record
        return [label, str(threads), need, W("gemm_ladder.kernel_goals.divisor_failed", failed=book.failed(den)), "—"]
    if num is None or den is None or not num.ok or not den.ok:
        return [label, str(threads), need, W("gemm_ladder.gflops.text"), "—"]
    if share:
        value, shown, unit = num.gflops() / den.gflops(), f"{num.gflops() / den.gflops() * 100:.0f}%", "%"
        derived = derive("gflops_p50(kernel) / gflops_p50(peak)",
                         operand("kernel", num, fmt_number(num.gflops(), "GFLOPS"), "GFLOPS (p50)"),
                         operand("peak", den, fmt_number(den.gflops(), "GFLOPS"), "GFLOPS (p50)"))
    else:
        value = den.stat("p50") / num.stat("p50")
        shown, unit = f"{value:.2f}×", "×"
        derived = derive("p50(peer) / p50(kernel)",
                         operand("peer", den, fmt_number(den.stat("p50") * 1e3, "ms"), "ms (p50)"),
                         operand("kernel", num, fmt_number(num.stat("p50") * 1e3, "ms"), "ms (p50)"))
    met = W("gemm_ladder.kernel_goals.met") if value >= goal else W("gemm_ladder.kernel_goals.missed")
    flag = book.above_peak(value) if share else ""
    return [label, str(threads), need, book.current(f"{num.record['id']}#{suffix}", shown, unit, num, derived=derived,
                                                    also=(den,)) + flag, met]


def kernel_goals(book, current, all_threads):
    """The kernel goals of issue #17 on the main shape, each a ratio of two records of one run and
    machine: TVM's fastest kernel against NumPy's best (1 thread, all cores), its share of the
    measured FMA peak of the ISA it used (1 thread), MetaSchedule over the micro-kernel space
    against the hand micro-kernel, the INT8 VNNI GEMM against the FP32 micro-kernel."""
    shape = tvm_main_shape(current)
    if shape is None:
        return W("gemm_ladder.kernel_goals.text")
    rows = []
    for threads in sorted({1, all_threads}):
        rows.append(_goal_row(book, W("gemm_ladder.kernel_goals.vs_numpy"), threads, 1.0,
                              _fastest(current, shape, threads), queries.numpy_peer(current, shape, threads),
                              "speed_vs_best_numpy"))
    top = _fastest(current, shape, 1)
    isa = top.record["extra"].get("isa") if top is not None else None
    peak = merge.isa_peak(current, "float32", 1, isa) or merge.isa_peak_failed(current, "float32", 1, isa)
    rows.append(_goal_row(book, W("gemm_ladder.kernel_goals.peak"), 1, 0.9, top, peak, "share_of_isa_peak", share=True))
    for threads in sorted({1, all_threads}):
        tuned = _tvm_get(current, "tvm", "autotuned_microkernel", shape, threads)
        if tuned is not None:
            rows.append(_goal_row(book, W("gemm_ladder.kernel_goals.tuned"), threads, 1.0, tuned,
                                  _tvm_get(current, "tvm", "microkernel", shape, threads), "speed_vs_microkernel"))
    for cur in sorted((c for c in _fam(current) if c.record["case"]["impl"] == "tvm_int8"
                       and _shape(c.record["case"]) == shape), key=lambda c: c.record["case"]["threads"]):
        rows.append(_goal_row(book, W("gemm_ladder.kernel_goals.int8"), cur.record["case"]["threads"], 3.0, cur,
                              current.get(cur.record["extra"].get("fp32_peer") or ""), "speed_vs_fp32"))
    return W("gemm_ladder.kernel_goals.lead", shape=_shape_text(shape)) + markdown(
        [W("gemm_ladder.kernel_goals.head_goal"), W("gemm_ladder.microkernel_grid.head_threads"), W("gemm_ladder.kernel_goals.head_need"),
         W("gemm_ladder.kernel_goals.head_measured"), W("gemm_ladder.kernel_goals.head_verdict")], rows)


def names(site):
    """The placeholders this module gives the page templates."""
    d, b = site.data, site.book
    return {
        "microkernel_summary": lambda threads: microkernel_summary(b, d.current,
                                                                                site.threads(threads)),
        "microkernel_grid": lambda: microkernel_grid(b, d.current),
        "tuning_spaces": lambda: tuning_spaces(b, d.current),
        "int8_vnni": lambda: int8_vnni(b, d.current),
        "kernel_goals": lambda: kernel_goals(b, d.current, site.threads("all")),
        "ladder_finding": lambda threads="all": finding(b, d.current, site.threads(threads)),
    }


BEST_STAGES = ("parallel", "microkernel", "autotuned", "autotuned_microkernel")   # the ladder's finished kernels


def verdict_of(ratio):
    """faster / par / slower for a speed ratio (higher is faster), with the study's minimum effect."""
    if ratio >= 1 + compare.MIN_EFFECT:
        return "faster"
    if ratio <= 1 - compare.MIN_EFFECT:
        return "slower"
    return "par"


def verdict_within(ratio, interval):
    """:func:`verdict_of`, except "par" whenever the ratio's interval holds 1 (neither side is
    shown faster); without an interval, the minimum effect alone."""
    if interval is not None and interval[0] <= 1 <= interval[1]:
        return "par"
    return verdict_of(ratio)


def finding(book, current, threads):
    """Facts of the page's opening finding (words in docs/gemm-ladder.md): on the main shape, the
    fastest finished TVM kernel against NumPy's best kernel and against the baseline stage."""
    shape = tvm_main_shape(current)
    if shape is None:
        return None
    best_np = queries.numpy_peer(current, shape, threads)
    base = _tvm_get(current, "tvm", "baseline", shape, threads)
    done = [c for c in (_tvm_get(current, "tvm", s, shape, threads) for s in BEST_STAGES) if c is not None and c.ok]
    if best_np is None or not best_np.ok or not done:
        return None
    top = merge.fastest(done)
    ratio = best_np.stat("p50") / top.stat("p50")
    out = {"shape": _shape_text(shape), "threads": str(threads), "stage": top.record["case"]["stage"],
           "gflops": _gflops(book, top), "numpy": _gflops(book, best_np),
           "vs_numpy": book.current(f"{top.record['id']}#speed_vs_best_numpy", f"{ratio:.2f}×", "×", top,
                                    derived=derive("p50(numpy_best) / p50(tvm)", operand("numpy_best", best_np, fmt_number(best_np.stat("p50") * 1e3, "ms"), "ms (p50)"),
                                                   operand("tvm", top, fmt_number(top.stat("p50") * 1e3, "ms"), "ms (p50)"))),
           # the NumPy peer's own process (timed inside TVM's, it ran 15-20 % slow on Zen 4) and
           # which BLAS environment was the faster one
           "peer_clean": str(best_np.record["extra"].get("process", "")).startswith("own child"),
           "peer_env": best_np.record["case"].get("blas_env", "best")}
    interval = compare.ratio_interval(top.record["samples"], best_np.record["samples"])
    out["verdict"] = verdict_within(ratio, interval)
    if interval:
        out["vs_numpy_ci"] = W("gemm_ladder.finding.vs_numpy_ci", lo=interval[0], hi=interval[1])
    if top.record["extra"].get("isa"):   # a share of peak needs the ISA the kernel used (older records lack it)
        out["isa"], out["share"] = top.record["extra"]["isa"], _peak_share(book, current, top, threads)
    if base is not None and base.ok:
        gain = base.stat("p50") / top.stat("p50")
        out["vs_baseline"] = book.current(f"{top.record['id']}#speed_vs_baseline", fmt_number(gain, "×") + "×", "×", top,
                                          derived=derive("p50(baseline) / p50(tvm)", operand("baseline", base, fmt_number(base.stat("p50") * 1e3, "ms"), "ms (p50)"),
                                                         operand("tvm", top, fmt_number(top.stat("p50") * 1e3, "ms"), "ms (p50)")))
    hands = [c for c in (_tvm_get(current, "tvm", s, shape, threads) for s in ("parallel", "microkernel"))
             if c is not None and c.ok]
    tuned = [c for c in (_tvm_get(current, "tvm", s, shape, threads) for s in ("autotuned", "autotuned_microkernel"))
             if c is not None and c.ok]
    if hands and tuned:
        h, t = merge.fastest(hands), merge.fastest(tuned)
        r = h.stat("p50") / t.stat("p50")
        out.update(tuned=_gflops(book, t), tuned_stage=t.record["case"]["stage"], hand_stage=h.record["case"]["stage"],
                   tuned_vs_hand=book.current(f"{t.record['id']}#speed_vs_hand", f"{r:.2f}×", "×", t,
                                              derived=derive("p50(hand) / p50(tuned)", operand("hand", h, fmt_number(h.stat("p50") * 1e3, "ms"), "ms (p50)"),
                                                             operand("tuned", t, fmt_number(t.stat("p50") * 1e3, "ms"), "ms (p50)"))),
                   tuned_verdict=verdict_of(r), tuned_trials=book.current(
                       f"{t.record['id']}#trials", str(t.record["extra"].get("trials_done")), "trials", t))
    return out
