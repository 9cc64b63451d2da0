"""Markdown tables for the pages: historical cells and current figures, never mixed."""
import html

from . import merge
from .figures import fmt_number

VERDICT_ZH = {"match": '<span class="ok">吻合</span>',
              "match_if_truncated": '<span class="warn">仅按截断吻合</span>',
              "mismatch": '<span class="bad">不吻合</span>',
              "holds": '<span class="ok">成立</span>', "fails": '<span class="bad">不成立</span>',
              "info": '<span class="info">对照</span>'}


def _esc(text):
    return html.escape(str(text)).replace("|", "&#124;")


def markdown(headers, rows):
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def archive_table(book, table):
    """A historical table exactly as the seed prints it (every figure a marked span)."""
    headers = [_esc(table.meta["row_header"])] + [_esc(c["label"]) for c in table.columns]
    rows = []
    for row in table.rows:
        cells = [_esc(row["label"])]
        for col in table.columns:
            cell = row["cells"][col["key"]]
            cells.append(book.historical(cell) if cell.kind == "figure" else _esc(cell.text))
        rows.append(cells)
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
    """Best current GFLOPS of each §21 row against the measured and the theoretical peak."""
    lines = []
    for row in table.rows:
        dtype = row["join"]["dtype"]
        threads = 1 if row["join"]["threads"] == 1 else env["logical_cores"]
        fam = [c for c in merge.family(current, "numpy_gemm").values()
               if c.ok and c.record["case"]["dtype"] == dtype and c.record["case"]["threads"] == threads]
        peak = merge.peak(current, dtype, threads)
        if not fam or peak is None:
            lines.append([_esc(row["label"]), book.historical(row["cells"]["utilization"]), "未测", "未测", "未测"])
            continue
        best = max(fam, key=lambda c: c.gflops())
        measured = best.gflops() / peak.gflops() * 100
        theo = peak.record["extra"].get("theoretical")
        lines.append([
            _esc(row["label"]), book.historical(row["cells"]["utilization"]),
            book.current(f"{best.record['id']}#gflops_p50", fmt_number(best.gflops(), "GFLOPS"), "GFLOPS", best),
            book.current(f"{best.record['id']}#util_measured", f"{measured:.1f}%", "%", best),
            book.current(f"{best.record['id']}#util_theoretical",
                         f"{best.gflops() / theo['gflops'] * 100:.1f}%", "%", best) if theo else "无公式",
        ])
    return markdown(["配置", "历史利用率", "当前最佳 GFLOPS（p50）", "对实测峰值", "对理论峰值"], lines)


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
    peak = merge.peak(current, "float64", 1)
    speed_headers = ["实现"] + [f"{kind} {n}" for n in sizes for kind in ("历史", "当前")]
    detail_headers = ["实现", "主要优化（本文实现）", "历史利用率", "当前利用率（对实测 FP64 单核峰值）",
                      "向量 FMA 指令"]
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
        if top is not None and top.ok and peak is not None:
            util = book.current(f"{top.record['id']}#util_measured",
                                f"{top.gflops() / peak.gflops() * 100:.1f}%", "%", top)
        detail.append([label, _esc(any_rec["extra"].get("optimizations", "")),
                       book.historical(hist["cells"]["utilization"]) if hist else "—", util,
                       _fma_text(any_rec["extra"].get("vector_fma_instructions"))])
    return {"speed": markdown(speed_headers, speed), "detail": markdown(detail_headers, detail)}
