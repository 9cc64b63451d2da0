"""Markdown tables for the pages: historical cells and current figures, never mixed."""
import html

from reportgen.render import cells
from reportgen.render.cells import code_span as _code, text as _esc  # the one escaping point
from reportgen.render.markdown import markdown, ms_cell as _ms_cell
from reportgen.data.queries import STAGE_ORDER, tvm_family as _tvm_fam, tvm_main_shape, tvm_record as _tvm_get
from reportgen.data import merge
from reportgen.render.figures import fmt_number
from study.identity import kernel_isa

VERDICT_ZH = {"match": '<span class="ok">吻合</span>',
              "match_if_truncated": '<span class="warn">仅按截断吻合</span>',
              "mismatch": '<span class="bad">不吻合</span>',
              "holds": '<span class="ok">成立</span>', "fails": '<span class="bad">不成立</span>',
              "info": '<span class="info">对照</span>'}


def archive_table(book, table):
    """A historical table exactly as the seed prints it (every figure a marked span)."""
    headers = [_esc(table.meta["row_header"])] + [_esc(c["label"]) for c in table.columns]
    rows = []
    for row in table.rows:
        line = [_esc(row["label"])]
        for col in table.columns:
            cell = row["cells"][col["key"]]
            line.append(book.historical(cell) if cell.kind == "figure" else cells.text_with_code(cell.text))
        rows.append(line)
    return markdown(headers, rows)


def checks_table(checks, table_id):
    """Derived-value checks of one table: recomputed beside printed, nothing applied."""
    rows = [[_esc(c.title), _esc(c.formula), _esc(c.recomputed), _esc(c.printed),
             VERDICT_ZH[c.verdict]] for c in checks if c.table == table_id]
    if not rows:
        return ""
    return markdown(["检查", "算式", "重算", "原文", "结论"], rows)


def _gflops_cell(book, cur, stat, figure_suffix):
    if cur is None:
        return "未测"
    if not cur.ok:
        return book.failed(cur)
    value = cur.gflops(stat)
    return book.current(f"{cur.record['id']}#{figure_suffix}", fmt_number(value, "GFLOPS"),
                        "GFLOPS", cur)


def numpy_vs_history(book, table, current, env):
    """One sub-table per historical row of §21: sizes down, 历史 and 当前复测 side by side."""
    out = {}
    all_cores = env["logical_cores"] if env else None
    sizes = sorted({c.record["case"]["n"] for c in merge.family(current, "numpy_gemm").values()}
                   | {int(c["key"]) for c in table.columns if c["key"].isdigit()})
    for row in table.rows:
        dtype = row["join"]["dtype"]
        threads = 1 if row["join"]["threads"] == 1 else all_cores
        lines = []
        for n in sizes:
            hist = row["cells"].get(str(n))
            cells = [str(n), book.historical(hist) if hist else "—"]
            for blas in ("configured", "best"):
                cur = current.get(f"numpy_gemm/dtype={dtype}/n={n}/threads={threads}/blas={blas}")
                cells.append(_gflops_cell(book, cur, "p50", "gflops_p50"))
                cells.append(_gflops_cell(book, cur, "p95", "gflops_p95"))
            lines.append(cells)
        out[row["key"]] = markdown(
            ["n", f"历史：{_esc(row['label'])}", "当前复测·配置内核 p50", "p95",
             "当前复测·最佳内核 p50", "p95"], lines)
    return out


def utilization(book, table, current, env):
    """Best current GFLOPS of each §21 row against the measured and the theoretical peak of the
    ISA that kernel used (an AVX2 BLAS kernel against the AVX2 peak, never against AVX-512's)."""
    lines = []
    for row in table.rows:
        dtype = row["join"]["dtype"]
        threads = 1 if row["join"]["threads"] == 1 else env["logical_cores"]
        fam = [c for c in merge.family(current, "numpy_gemm").values()
               if c.ok and c.record["case"]["dtype"] == dtype and c.record["case"]["threads"] == threads]
        best = max(fam, key=lambda c: c.gflops()) if fam else None
        peak = merge.peak(current, dtype, threads, kernel_isa(best.record["extra"])) if best else None
        if best is None or peak is None:
            lines.append([_esc(row["label"]), book.historical(row["cells"]["utilization"]), "未测", "未测", "未测", "—"])
            continue
        measured = best.gflops() / peak.gflops() * 100
        theo = peak.record["extra"].get("theoretical")
        lines.append([
            _esc(row["label"]), book.historical(row["cells"]["utilization"]),
            book.current(f"{best.record['id']}#gflops_p50", fmt_number(best.gflops(), "GFLOPS"), "GFLOPS", best),
            book.current(f"{best.record['id']}#util_measured", f"{measured:.1f}%", "%", best),
            book.current(f"{best.record['id']}#util_theoretical",
                         f"{best.gflops() / theo['gflops'] * 100:.1f}%", "%", best) if theo else "无公式",
            _esc(f"{kernel_label(best.record['extra'])}；峰值 {peak.record['case']['isa']}"),
        ])
    return markdown(["配置", "历史利用率", "当前最佳 GFLOPS（p50）", "对实测峰值", "对理论峰值",
                     "内核与所比峰值的指令集"], lines)


def kernel_label(extra):
    """'OpenBLAS Haswell 内核（avx2）' or the ISA alone: what a utilization figure was measured with."""
    blas = extra.get("blas_kernel") or {}
    isa = kernel_isa(extra) or "未知"
    return f"OpenBLAS {blas['architecture']} 内核（{isa}）" if blas.get("architecture") else isa


def peak_table(book, current):
    """Measured FMA-loop peak beside the formula, per dtype, ISA and threads."""
    lines = []
    for cur in sorted(merge.family(current, "machine_peak").values(),
                      key=lambda c: (c.record["case"]["dtype"], c.record["case"]["isa"],
                                     c.record["case"]["threads"])):
        case = cur.record["case"]
        if not cur.ok:
            lines.append([case["dtype"], case["isa"], case["threads"], book.failed(cur), "—", "—"])
            continue
        theo = cur.record["extra"].get("theoretical")
        fma = cur.record["extra"]["vector_fma_instructions"]
        lines.append([
            case["dtype"], case["isa"], case["threads"],
            book.current(f"{cur.record['id']}#gflops_p50", fmt_number(cur.gflops(), "GFLOPS"), "GFLOPS", cur),
            _esc(f"{theo['formula']} = {theo['gflops']:.1f}") if theo else "未知（CPU 不在表中）",
            _esc(", ".join(f"{k}: {v}" for k, v in fma.items() if v)),
        ])
    return markdown(["dtype", "指令集", "线程", "实测峰值 GFLOPS（p50）", "理论公式", "循环中的向量 FMA 指令"], lines)


def environment_table(env):
    """The seed §11 checklist, filled from the run manifest."""
    if not env:
        return "（尚无复测运行）"
    blas = "; ".join(f"{b.get('internal_api')} {b.get('version')} ({b.get('architecture')}, "
                     f"{b.get('num_threads')} 线程)" for b in env["blas"])
    rows = [
        ("CPU", f"{env['cpu_model']}（{env['cpu_vendor']}，family/model {env['cpu_family_model']}）"),
        ("核心 / 亲和性", f"{env['logical_cores']} 逻辑核，{env['physical_cores']} 物理核；亲和 CPU {env['affinity']}"),
        ("主频", f"{env['cpu_mhz']['value']} MHz（来源：{env['cpu_mhz']['source']}）"),
        ("缓存", ", ".join(f"{k} {v}" for k, v in env["caches"].items())),
        ("SIMD", ", ".join(env["simd_flags"])),
        ("内存", f"{env['memory_bytes'] / 2**30:.1f} GiB"),
        ("操作系统 / 内核", f"{env['os']} / {env['kernel']}"),
        ("Python / NumPy", f"{env['python_version']} / {env['numpy_version']}"),
        ("BLAS", blas),
        ("BLAS 环境变量", ", ".join(f"{k}={v}" for k, v in env["blas_env"].items())),
        ("TVM / tvm-ffi / LLVM", f"{env['tvm_version']} / {env.get('tvm_ffi_version')} / {env['llvm_version']}"),
        ("TVM target", str(env["tvm_target"])),
        ("TVM_NUM_THREADS", env["tvm_num_threads"]),
        ("C 编译器", env.get("compiler", "")),
        ("机器 id", env["machine_id"]),
    ]
    return markdown(["项目", "值"], [[_esc(k), _esc(v)] for k, v in rows])


def _fma_text(evidence):
    if not evidence:
        return "—"
    used = [f"{k} {v}" for k, v in evidence.items() if v]
    return _esc("、".join(used) if used else "无")


def hand_ladder(book, table, current):
    """§22 beside its retest: one row per kernel, 历史 and 当前 columns per size."""
    fam = [c for c in merge.family(current, "gemm_hand").values()]
    kernels = []
    for cur in fam:
        name = cur.record["case"]["kernel"]
        if name not in kernels:
            kernels.append(name)
    hist_rows = {r["key"]: r for r in table.rows}
    kernels.sort(key=lambda k: (k not in hist_rows, list(hist_rows).index(k) if k in hist_rows else 0))
    sizes = sorted({c.record["case"]["n"] for c in fam} | {int(c["key"]) for c in table.columns if c["key"].isdigit()})
    speed_headers = ["实现"] + [f"{kind} {n}" for n in sizes for kind in ("历史", "当前")]
    detail_headers = ["实现", "主要优化（本文实现）", "历史利用率",
                      "当前利用率（对本机同指令集的实测 FP64 单核峰值）", "向量 FMA 指令"]
    speed, detail = [], []
    for name in kernels:
        by_n = {c.record["case"]["n"]: c for c in fam if c.record["case"]["kernel"] == name}
        any_rec = next(iter(by_n.values())).record
        hist = hist_rows.get(name)
        label = _esc(name) + ("" if hist else "（新增）")
        cells = [label]
        for n in sizes:
            h_cell = hist["cells"].get(str(n)) if hist else None
            cells.append(book.historical(h_cell) if h_cell else "—")
            cells.append(_gflops_cell(book, by_n.get(n), "p50", "gflops_p50"))
        speed.append(cells)
        top = by_n.get(max(by_n))
        util = "—"
        peak = merge.peak(current, "float64", 1, kernel_isa(top.record["extra"])) if top is not None else None
        if top is not None and top.ok and peak is not None:
            util = book.current(f"{top.record['id']}#util_measured",
                                f"{top.gflops() / peak.gflops() * 100:.1f}%", "%", top) + \
                f"（{_esc(peak.record['case']['isa'])} 峰值）"
        detail.append([label, _esc(any_rec["extra"].get("optimizations", "")),
                       book.historical(hist["cells"]["utilization"]) if hist else "—", util,
                       _fma_text(any_rec["extra"].get("vector_fma_instructions"))])
    return {"speed": markdown(speed_headers, speed), "detail": markdown(detail_headers, detail)}


def _ratio_cell(book, num, den, suffix):
    if num is None or den is None or not num.ok or not den.ok:
        return "—"
    return book.current(f"{num.record['id']}#{suffix}", f"{num.stat('p50') / den.stat('p50'):.2f}×", "×", num)


def tvm_stages(book, table, current, threads):
    """§23 beside its retest on the main shape: TVM and NumPy, historical and current."""
    shape = tvm_main_shape(current)
    if shape is None:
        return "（尚无记录）"
    best = _tvm_get(current, "numpy", "any", shape, threads, "best")
    hist = {r["key"]: r for r in table.rows}
    lines = []
    for stage in STAGE_ORDER:
        tvm = _tvm_get(current, "tvm", stage, shape, threads)
        npy = _tvm_get(current, "numpy", stage, shape, threads, "configured")
        h = hist.get(stage)
        if tvm is None and h is None:
            continue
        lines.append([
            _esc(h["label"] if h else stage),
            book.historical(h["cells"]["tvm"]) if h else "—",
            book.historical(h["cells"]["numpy"]) if h else "—",
            _ms_cell(book, tvm, "p50", "p50_ms"), _ms_cell(book, tvm, "p95", "p95_ms"),
            _ms_cell(book, npy, "p50", "p50_ms"),
            _ratio_cell(book, tvm, best, "ratio_to_best_numpy"),
            _esc(str((tvm.record["extra"].get("codegen") or {}).get("fma_packed", {}).get("ymm", "—")))
            if tvm is not None and tvm.ok else "—",
        ])
    m, n, k = shape
    note = (f"形状 {m}×{n}×{k}（M×N×K），{threads} 线程。同一运行中 NumPy 最佳内核："
            + _ms_cell(book, best, "p50", "p50_ms"))
    return note + "\n\n" + markdown(
        ["阶段", "历史 TVM", "历史 NumPy", "当前 TVM p50", "p95", "当前 NumPy（配置内核，同一轮）p50",
         "TVM ÷ NumPy 最佳内核", "ymm FMA 指令"], lines)


def tvm_shapes(book, current, threads):
    """GFLOPS of each stage across shapes (tail shapes included), with NumPy's best kernel."""
    fam = [c for c in _tvm_fam(current) if c.record["case"]["threads"] == threads]
    shapes = sorted({(c.record["case"]["m"], c.record["case"]["n"], c.record["case"]["k"]) for c in fam},
                    key=lambda s: s[0] * s[1] * s[2])
    if not shapes:
        return "（尚无记录）"
    lines = []
    for stage in STAGE_ORDER:
        cells = [_tvm_get(current, "tvm", stage, s, threads) for s in shapes]
        if all(c is None for c in cells):
            continue
        lines.append([_esc(stage)] + [_gflops_cell(book, c, "p50", "gflops_p50") for c in cells])
    lines.append(["NumPy 最佳内核"] + [_gflops_cell(book, _tvm_get(current, "numpy", "any", s, threads, "best"),
                                                 "p50", "gflops_p50") for s in shapes])
    return markdown(["阶段"] + [f"{m}×{n}×{k}" for m, n, k in shapes], lines)


def tvm_codegen(book, current, data_prefix):
    """Per stage: what the generated code contains, with links to the full dumps."""
    lines = []
    for cur in sorted((c for c in _tvm_fam(current) if c.record["case"]["impl"] == "tvm" and c.ok
                       and "artifacts" in c.record["extra"]),
                      key=lambda c: (c.record["case"]["threads"], STAGE_ORDER.index(c.record["case"]["stage"]),
                                     c.record["case"]["m"])):
        case, extra = cur.record["case"], cur.record["extra"]
        code = extra.get("codegen", {})
        links = " ".join(f'<a href="{cells.href(data_prefix + "/" + ref)}">{_esc(name)}</a>'
                         for name, ref in sorted(extra["artifacts"].items()))
        lines.append([_esc(case["stage"]), f"{case['m']}×{case['n']}×{case['k']}", str(case["threads"]),
                      _esc(", ".join(f"{k} {v}" for k, v in code.get("fma_packed", {}).items() if v) or "无"),
                      _esc(str(code.get("fma_scalar", "—"))), _esc(code.get("widest_register", "—")),
                      _esc(", ".join(f"{k} {v}" for k, v in code.get("vector_ops", {}).items() if v) or "无"),
                      links])
    if not lines:
        return "（尚无记录）"
    return markdown(["阶段", "形状", "线程", "向量 FMA", "标量 FMA", "最宽寄存器", "向量指令总数", "完整产物"], lines)


def tuning_summary(book, current):
    lines = []
    for cur in (c for c in _tvm_fam(current) if c.record["case"]["stage"] == "autotuned"
                and c.record["case"]["impl"] == "tvm"):
        e, case = cur.record["extra"], cur.record["case"]
        fails = e.get("failures") or {}
        lines.append([f"{case['m']}×{case['n']}×{case['k']}", str(case["threads"]),
                      book.current(f"{cur.record['id']}#trials", str(e.get("trials_done")), "trials", cur),
                      book.current(f"{cur.record['id']}#tuning_s", fmt_number(e.get("tuning_seconds", 0), "s") + " s",
                                   "s", cur),
                      _esc(e.get("cost_model", "")),
                      _esc("，".join(f"{k} {v}" for k, v in fails.items()) or "未知"),
                      _ms_cell(book, cur, "p50", "p50_ms")])
    if not lines:
        return "（尚无调优记录）"
    return markdown(["形状", "线程", "试验次数", "调优耗时", "代价模型", "失败（按类别）", "最佳核 p50"], lines)


def gemm_goals(book, current, env):
    """The performance goals of the GEMM study as ratios measured in one run (shown, never asserted)."""
    shape = tvm_main_shape(current)
    if shape is None or env is None:
        return "（尚无记录）"
    threads = env["logical_cores"]
    best = _tvm_get(current, "numpy", "any", shape, threads, "best")
    tuned = _tvm_get(current, "tvm", "autotuned", shape, threads)
    parallel = _tvm_get(current, "tvm", "parallel", shape, threads)
    peak = merge.peak(current, "float32", threads)
    rows = []

    def speed_row(label, cur, goal, suffix):
        if cur is None or best is None or not cur.ok or not best.ok:
            rows.append([label, f"≥ {goal}×", "未测", "—"])
            return
        ratio = best.stat("p50") / cur.stat("p50")
        rows.append([label, f"≥ {goal}×", book.current(f"{cur.record['id']}#{suffix}", f"{ratio:.2f}×", "×", cur),
                     '<span class="ok">达到</span>' if ratio >= goal else '<span class="bad">未达到</span>'])

    speed_row("MetaSchedule 调优后 ÷ NumPy 最佳内核（速度比）", tuned, 1.0, "speed_vs_best_numpy")
    speed_row("手写 parallel 阶段 ÷ NumPy 最佳内核（速度比）", parallel, 0.5, "speed_vs_best_numpy")
    if tuned is not None and tuned.ok and peak is not None:
        share = tuned.gflops() / peak.gflops()
        rows.append(["MetaSchedule 调优后 ÷ 实测 FMA 峰值（全部核心）", "≥ 85%",
                     book.current(f"{tuned.record['id']}#share_of_peak", f"{share * 100:.1f}%", "%", tuned),
                     '<span class="ok">达到</span>' if share >= 0.85 else '<span class="bad">未达到</span>'])
    m, n, k = shape
    return (f"形状 {m}×{n}×{k}，{threads} 线程，同一次运行中测得：\n\n"
            + markdown(["目标", "要求", "实测", "结论"], rows))


def tvm_excerpts(results_dir, current, data_prefix, lines=60):
    """Collapsible excerpts of each stage's TensorIR (and the C-target source of baseline)."""
    from reportgen.data import load
    parts = []
    for cur in sorted((c for c in _tvm_fam(current) if c.record["case"]["impl"] == "tvm" and c.ok
                       and "artifacts" in c.record["extra"]),
                      key=lambda c: STAGE_ORDER.index(c.record["case"]["stage"])):
        case, arts = cur.record["case"], cur.record["extra"]["artifacts"]
        for kind, lang, label in (("tensorir", "python", "TensorIR"), ("trace", "python", "调度轨迹"),
                                  ("c_source", "c", "C 目标源码")):
            if kind not in arts:
                continue
            text = load.read_artifact(results_dir, arts[kind]).splitlines()
            more = [f"# … 共 {len(text)} 行，完整文件见链接"] if len(text) > lines else []
            link = f'<a href="{cells.href(data_prefix + "/" + arts[kind])}">完整文件</a>'
            title = _esc(f'{case["stage"]}：{label}（{case["m"]}×{case["n"]}×{case["k"]}）')
            parts.append(f'??? abstract "{title}"\n    {link}\n\n'
                         + cells.code_block("\n".join(text[:lines] + more), lang, "    ") + "\n")
    return "\n".join(parts) or "（尚无产物）"


def thread_scaling(book, current, env):
    """All-core over single-thread speed of NumPy per size (best kernel): where threads pay."""
    if env is None:
        return "（尚无记录）"
    cores = env["logical_cores"]
    fam = merge.family(current, "numpy_gemm")
    sizes = sorted({c.record["case"]["n"] for c in fam.values()})
    lines = []
    for dtype in ("float32", "float64"):
        row = [dtype]
        for n in sizes:
            one = fam.get(f"numpy_gemm/dtype={dtype}/n={n}/threads=1/blas=best")
            many = fam.get(f"numpy_gemm/dtype={dtype}/n={n}/threads={cores}/blas=best")
            if one is None or many is None or not (one.ok and many.ok):
                row.append("—")
                continue
            row.append(book.current(f"{many.record['id']}#speedup_vs_1t",
                                    f"{one.stat('p50') / many.stat('p50'):.2f}×", "×", many))
        lines.append(row)
    return markdown(["dtype"] + [f"n={n}" for n in sizes], lines)


def numpy_gflops(site, dtype, n, threads, blas="configured"):
    """One current NumPy figure for prose; threads may be 'all'."""
    if threads == "all":
        threads = site.data.env["logical_cores"]
    cur = site.data.current.get(f"numpy_gemm/dtype={dtype}/n={n}/threads={threads}/blas={blas}")
    if cur is None:
        return "（未测）"
    if not cur.ok:
        return site.book.failed(cur)
    return site.book.current(f"{cur.record['id']}#gflops_p50", fmt_number(cur.gflops(), "GFLOPS"),
                             "GFLOPS", cur)

def peak_gflops(site, dtype, threads):
    if threads == "all":
        threads = site.data.env["logical_cores"]
    cur = merge.peak(site.data.current, dtype, threads)
    if cur is None:
        return "（未测）"
    return site.book.current(f"{cur.record['id']}#gflops_p50", fmt_number(cur.gflops(), "GFLOPS"),
                             "GFLOPS", cur)


def names(site):
    """The placeholders this module gives the page templates."""
    d, b = site.data, site.book
    return {
        "numpy_gflops": lambda *args, **kw: numpy_gflops(site, *args, **kw),
        "peak_gflops": lambda *args, **kw: peak_gflops(site, *args, **kw),
        "archive_table": lambda table: archive_table(b, d.tables[table]),
        "checks": lambda table: checks_table(d.checks, table),
        "numpy_tables": lambda: numpy_vs_history(b, d.tables["s21_numpy"], d.current, d.env),
        "utilization": lambda: utilization(b, d.tables["s21_numpy"], d.current, d.env),
        "peak_table": lambda: peak_table(b, d.current),
        "hand_ladder": lambda: hand_ladder(b, d.tables["s22_hand_ladder"], d.current),
        "tvm_stages": lambda threads: tvm_stages(b, d.tables["s23_tvm_stages"], d.current,
                                                    site.threads(threads)),
        "tvm_shapes": lambda threads: tvm_shapes(b, d.current, site.threads(threads)),
        "tvm_codegen": lambda: tvm_codegen(b, d.current, b.data_prefix()),
        "tuning_summary": lambda: tuning_summary(b, d.current),
        "gemm_goals": lambda: gemm_goals(b, d.current, d.env),
        "thread_scaling": lambda: thread_scaling(b, d.current, d.env),
        "tvm_excerpts": lambda: tvm_excerpts(d.results_dir, d.current, b.data_prefix()),
        "env_table": lambda: environment_table(d.env),
    }
