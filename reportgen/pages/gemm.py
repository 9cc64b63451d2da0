"""Markdown tables for the pages: historical cells and current figures, never mixed."""
import html

import pandas as pd

from reportgen.data import frame, queries
from reportgen.data.archive import Cell
from reportgen.render import cells, provenance
from reportgen.render.cells import code_span as _code, text as _esc  # the one escaping point
from reportgen.render.markdown import markdown, ms_cell as _ms_cell, table as _table
from reportgen.data.queries import STAGE_ORDER, tvm_family as _tvm_fam, tvm_main_shape, tvm_record as _tvm_get
from reportgen.data import claims, merge
from reportgen.render.figures import derive, fmt_number, operand, rests_on_jump
from study.identity import kernel_isa
from reportgen.data.words import W, W_for

VERDICT_ZH = {"match": W("gemm.verdict_zh.match"),
              "match_if_truncated": W("gemm.verdict_zh.match_if_truncated"),
              "mismatch": W("gemm.verdict_zh.mismatch"),
              "holds": W("gemm.verdict_zh.holds"), "fails": W("gemm.verdict_zh.fails"),
              "info": W("gemm.verdict_zh.info")}


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
    return markdown([W("gemm.checks_table.head_check"), W("gemm.checks_table.head_formula"), W("gemm.checks_table.head_recomputed"), W("gemm.checks_table.head_original"), W("gemm.checks_table.head_verdict")], rows)


def _gflops_cell(book, cur, stat, figure_suffix):
    if cur is None:
        return W("gemm.gflops_cell.text")
    if not cur.ok:
        return book.failed(cur)
    value = cur.gflops(stat)
    return book.current(f"{cur.record['id']}#{figure_suffix}", fmt_number(value, "GFLOPS"),
                        "GFLOPS", cur)


def numpy_vs_history(book, table, current, env):
    """One sub-table per historical row of §21: sizes down, historical and current columns side by side
    (the archive frame's cells of that row joined, by size, with the current records of each BLAS)."""
    out = {}
    all_cores = env["logical_cores"] if env else None
    hist = frame.archive_frame({table.id: table})
    hist = hist[hist["column"].str.isdigit().to_numpy(dtype=bool)]
    sizes = sorted(set(frame.case(frame.select(current, "numpy_gemm"), "n").dropna())
                   | {int(key) for key in hist["column"]})
    for row in table.rows:
        dtype = row["join"]["dtype"]
        threads = 1 if row["join"]["threads"] == 1 else all_cores
        sizes_frame = pd.DataFrame({"column": [str(n) for n in sizes]}, index=sizes, dtype=object)
        joined = sizes_frame.join(hist[hist["row"] == row["key"]].set_index("column")["cell"], on="column")
        for blas in ("configured", "best"):
            joined[blas] = queries.by_id(current, [queries.numpy_id(dtype, n, threads, blas) for n in sizes])
        lines = [[str(n), book.historical(cell) if isinstance(cell, Cell) else "—"]
                 + [_gflops_cell(book, cur, stat, f"gflops_{stat}") for cur in (conf, best) for stat in ("p50", "p95")]
                 for n, cell, conf, best in zip(joined.index, joined["cell"], joined["configured"], joined["best"])]
        out[row["key"]] = _table(pd.DataFrame(lines, columns=range(6), dtype=object), [
            "n", W("gemm.numpy_vs_history.head_history", label=_esc(row['label'])), W("gemm.numpy_vs_history.head_configured_p50"), "p95",
            W("gemm.numpy_vs_history.head_best_p50"), "p95"])
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
        best = merge.fastest(fam, key=lambda c: -c.gflops()) if fam else None
        peak = merge.peak(current, dtype, threads, kernel_isa(best.record["extra"])) if best else None
        if best is None or peak is None:
            lines.append([_esc(row["label"]), book.historical(row["cells"]["utilization"]), W("gemm.gflops_cell.text"), W("gemm.gflops_cell.text"), W("gemm.gflops_cell.text"), "—"])
            continue
        measured = best.gflops() / peak.gflops() * 100
        theo = peak.record["extra"].get("theoretical")
        lines.append([
            _esc(row["label"]), book.historical(row["cells"]["utilization"]),
            book.current(f"{best.record['id']}#gflops_p50", fmt_number(best.gflops(), "GFLOPS"), "GFLOPS", best),
            book.current(f"{best.record['id']}#util_measured", f"{measured:.1f}%", "%", best,
                         derived=_share_of_peak(best, peak)) + book.above_peak(measured / 100),
            book.current(f"{best.record['id']}#util_theoretical",
                         f"{best.gflops() / theo['gflops'] * 100:.1f}%", "%", best) if theo else W("gemm.utilization.no_formula"),
            _esc(W("gemm.utilization.kernel_and_isa", kernel_label=kernel_label(best.record['extra']), isa=peak.record['case']['isa'])),
        ])
    return markdown([W("gemm.utilization.head_config"), W("gemm.utilization.head_history_utilization"), W("gemm.utilization.head_best_gflops"), W("gemm.utilization.head_vs_measured_peak"), W("gemm.utilization.head_vs_theoretical_peak"),
                     W("gemm.utilization.head_kernel_isa")], lines)


def kernel_label(extra):
    """'OpenBLAS Haswell kernel (avx2)' (in the page's words) or the ISA alone: what a utilization figure was measured with."""
    blas = extra.get("blas_kernel") or {}
    isa = kernel_isa(extra) or W("gemm.kernel_label.unknown")
    return W("gemm.kernel_label.openblas", architecture=blas['architecture'], isa=isa) if blas.get("architecture") else isa


def peak_table(book, current):
    """Measured FMA-loop peak beside the formula, per dtype, ISA and threads."""
    lines = []
    for cur in sorted(merge.family(current, "machine_peak").values(),
                      key=lambda c: (c.record["case"]["dtype"], c.record["case"]["isa"],
                                     c.record["case"]["threads"])):
        case = cur.record["case"]
        if not cur.ok:
            lines.append([_esc(case["dtype"]), _esc(case["isa"]), _esc(str(case["threads"])), book.failed(cur), "—", "—"])
            continue
        theo = cur.record["extra"].get("theoretical")
        fma = cur.record["extra"]["vector_fma_instructions"]
        lines.append([
            _esc(case["dtype"]), _esc(case["isa"]), _esc(str(case["threads"])),
            book.current(f"{cur.record['id']}#gflops_p50", fmt_number(cur.gflops(), "GFLOPS"), "GFLOPS", cur),
            _esc(f"{theo['formula']} = {theo['gflops']:.1f}") if theo else W("gemm.peak_table.unknown_cpu"),
            _esc(", ".join(f"{k}: {v}" for k, v in fma.items() if v)),
        ])
    return markdown(["dtype", W("gemm.peak_table.head_isa"), W("gemm.peak_table.head_threads"), W("gemm.peak_table.head_measured_peak"), W("gemm.peak_table.head_formula"), W("gemm.peak_table.head_fma_in_loop")], lines)


def _environment_rows(env):
    """(label, value) rows of the seed's §11 checklist for one run manifest's environment."""
    blas = "; ".join(W("gemm.environment_table.blas", api=b.get('internal_api'), version=b.get('version'), architecture=b.get('architecture'), threads=b.get('num_threads')) for b in env["blas"])
    return [
        ("CPU", W("gemm.environment_table.cpu", cpu_model=env['cpu_model'], cpu_vendor=env['cpu_vendor'], cpu_family_model=env['cpu_family_model'])),
        (W("gemm.environment_table.cores_label"), W("gemm.environment_table.cores", logical_cores=env['logical_cores'], physical_cores=env['physical_cores'], affinity=env['affinity'])),
        (W("gemm.environment_table.clock_label"), W("gemm.environment_table.clock", value=env['cpu_mhz']['value'], source=env['cpu_mhz']['source'])),
        (W("gemm.environment_table.caches_label"), ", ".join(f"{k} {v}" for k, v in env["caches"].items())),
        ("SIMD", ", ".join(env["simd_flags"])),
        (W("gemm.environment_table.memory_label"), f"{env['memory_bytes'] / 2**30:.1f} GiB"),
        (W("gemm.environment_table.os_label"), f"{env['os']} / {env['kernel']}"),
        ("Python / NumPy", f"{env['python_version']} / {env['numpy_version']}"),
        ("BLAS", blas),
        (W("gemm.environment_table.blas_env_label"), ", ".join(f"{k}={v}" for k, v in env["blas_env"].items())),
        ("TVM / tvm-ffi / LLVM", f"{env['tvm_version']} / {env.get('tvm_ffi_version')} / {env['llvm_version']}"),
        ("TVM target", str(env["tvm_target"])),
        ("TVM_NUM_THREADS", env["tvm_num_threads"]),
        (W("gemm.environment_table.compiler_label"), env.get("compiler", "")),
        (W("gemm.environment_table.machine_id_label"), env["machine_id"]),
        (W("gemm.environment_table.host_label"), env.get("machine_uuid", "")),   # not in the id: a fleet of one VM image
    ]


def environment_table(env, current=None):
    """The seed §11 checklist, filled from the newest run manifest that holds a current figure.  A field in which
    the other runs holding current figures (``current``) differ says so, with each other value and its runs: one
    record of a run on another OS, kernel or compiler rewrote the page's manifest for figures it never measured."""
    if not env:
        return W("gemm.environment_table.text")
    runs = {c.run.run_id: c.run for c in (current or {}).values()}
    others = [(run_id, _environment_rows(run.manifest["environment"])) for run_id, run in sorted(runs.items())]
    lines = []
    for i, (label, value) in enumerate(_environment_rows(env)):
        apart = {}
        for run_id, rows in others:
            if str(rows[i][1]) != str(value):
                apart.setdefault(str(rows[i][1]), []).append(run_id)
        cell = _esc(value)
        for other, ids in apart.items():
            cell += W("gemm.environment_table.differs", value=_esc(other), n=len(ids), run=_code(ids[-1]))
        lines.append([_esc(label), cell])
    return markdown([W("gemm.environment_table.head_item"), W("gemm.environment_table.head_value")], lines)


def _fma_text(evidence):
    if not evidence:
        return "—"
    used = [f"{k} {v}" for k, v in evidence.items() if v]
    return _esc(W("common.punct.enumeration_comma").join(used) if used else W("gemm.fma_text.none"))


def hand_optimizations(kernel):
    """What a hand-ladder kernel does, filed under the kernel name its records carry (case.kernel)."""
    return W_for("gemm.hand_ladder.optimizations", kernel)


def hand_ladder(book, table, current):
    """§22 beside its retest: one row per kernel, historical and current columns per size."""
    fam = [c for c in merge.family(current, "gemm_hand").values()]
    kernels = []
    for cur in fam:
        name = cur.record["case"]["kernel"]
        if name not in kernels:
            kernels.append(name)
    hist_rows = {r["key"]: r for r in table.rows}
    kernels.sort(key=lambda k: (k not in hist_rows, list(hist_rows).index(k) if k in hist_rows else 0))
    sizes = sorted({c.record["case"]["n"] for c in fam} | {int(c["key"]) for c in table.columns if c["key"].isdigit()})
    speed_headers = [W("gemm.hand_ladder.head_implementation")] + [f"{kind} {n}" for n in sizes for kind in (W("gemm.hand_ladder.head_history"), W("gemm.hand_ladder.head_current"))]
    detail_headers = [W("gemm.hand_ladder.head_implementation"), W("gemm.hand_ladder.head_optimizations"), W("gemm.utilization.head_history_utilization"),
                      W("gemm.hand_ladder.head_utilization"), W("gemm.hand_ladder.head_vector_fma")]
    speed, detail = [], []
    for name in kernels:
        by_n = {c.record["case"]["n"]: c for c in fam if c.record["case"]["kernel"] == name}
        # the instructions of a kernel measured ok (a failed record's counts are no figure)
        any_rec = next((c.record for c in by_n.values() if c.ok), {"extra": {}})
        hist = hist_rows.get(name)
        label = _esc(name) + ("" if hist else W("gemm.hand_ladder.new_mark"))
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
                                f"{top.gflops() / peak.gflops() * 100:.1f}%", "%", top, also=(peak,)) + \
                book.above_peak(top.gflops() / peak.gflops()) + \
                W("gemm.hand_ladder.isa_peak", isa=_esc(peak.record['case']['isa']))
        detail.append([label, _esc(hand_optimizations(name)),
                       book.historical(hist["cells"]["utilization"]) if hist else "—", util,
                       _fma_text(any_rec["extra"].get("vector_fma_instructions"))])
    return {"speed": markdown(speed_headers, speed), "detail": markdown(detail_headers, detail)}


def _ratio_cell(book, num, den, suffix):
    if num is None or den is None or not num.ok or not den.ok:
        return "—"
    return book.current(f"{num.record['id']}#{suffix}", f"{num.stat('p50') / den.stat('p50'):.2f}×", "×", num, also=(den,))


def tvm_stages(book, table, current, threads):
    """§23 beside its retest on the main shape: TVM and NumPy, historical and current."""
    shape = tvm_main_shape(current)
    if shape is None:
        return W("gemm.tvm_stages.text")
    best = queries.numpy_peer(current, shape, threads)
    hist = {r["key"]: r for r in table.rows}
    lines = []
    for stage in STAGE_ORDER:
        tvm = _tvm_get(current, "tvm", stage, shape, threads)
        npy = (_tvm_get(current, "numpy", stage, shape, threads, "configured")   # runs before the peer was timed once per shape
               or _tvm_get(current, "numpy", "any", shape, threads, "configured"))
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
            _fma_text((claims.compiled(tvm.record, "codegen") or {}).get("fma_packed")) if tvm is not None and tvm.ok else "—",
        ])
    m, n, k = shape
    note = (W("gemm.tvm_stages.shape_note", m=m, n=n, k=k, threads=threads)
            + _ms_cell(book, best, "p50", "p50_ms"))
    return note + "\n\n" + markdown(
        [W("gemm.tvm_stages.head_stage"), W("gemm.tvm_stages.head_history_tvm"), W("gemm.tvm_stages.head_history_numpy"), W("gemm.tvm_stages.head_tvm_p50"), "p95", W("gemm.tvm_stages.head_numpy_configured_p50"),
         W("gemm.tvm_stages.head_tvm_vs_best_numpy"), W("gemm.tvm_stages.head_vector_fma")], lines)


def tvm_shapes(book, current, threads):
    """GFLOPS of each stage across shapes (tail shapes included), with NumPy's best kernel: the records
    looked up on the frame's index as a stages × shapes frame, stages no shape measured left out."""
    fam = frame.where(frame.select(current, "gemm_tvm"), threads=threads)
    shapes = sorted(set(zip(frame.case(fam, "m"), frame.case(fam, "n"), frame.case(fam, "k"))),
                    key=lambda s: (s[0] * s[1] * s[2], s))
    if not shapes:
        return W("gemm.tvm_stages.text")
    labels = [f"{m}×{n}×{k}" for m, n, k in shapes]
    grid = pd.DataFrame({label: queries.by_id(current, [queries.tvm_id("tvm", stage, s, threads) for stage in STAGE_ORDER])
                         for label, s in zip(labels, shapes)}, index=STAGE_ORDER, dtype=object)
    grid = grid[grid.notna().any(axis=1).to_numpy()]
    grid.index = [_esc(stage) for stage in grid.index]
    grid.loc[W("gemm.tvm_shapes.numpy_best_kernel")] = [queries.numpy_peer(current, s, threads) for s in shapes]
    cells = pd.DataFrame([[label] + [_gflops_cell(book, c, "p50", "gflops_p50") for c in curs]
                          for label, curs in zip(grid.index, grid.itertuples(index=False))], dtype=object)
    return _table(cells, [W("gemm.tvm_stages.head_stage")] + labels)


def tvm_codegen(book, current, data_prefix):
    """Per stage: what the generated code contains, with links to the full dumps."""
    lines = []
    for cur in sorted((c for c in _tvm_fam(current) if c.record["case"]["impl"] == "tvm" and c.ok
                       and "artifacts" in c.record["extra"]),
                      key=lambda c: (c.record["case"]["threads"], STAGE_ORDER.index(c.record["case"]["stage"]),
                                     c.record["case"]["m"])):
        case, extra = cur.record["case"], cur.record["extra"]
        code = claims.compiled(cur.record, "codegen")   # None: a searched stage that cites no assembly
        links = " ".join(f'<a href="{cells.href(data_prefix + "/" + ref)}">{_esc(name)}</a>'
                         for name, ref in sorted(extra["artifacts"].items()))
        counts = ([_esc(", ".join(f"{k} {v}" for k, v in code.get("fma_packed", {}).items() if v) or W("gemm.fma_text.none")),
                   _esc(str(code.get("fma_scalar", "—"))), _esc(code.get("widest_register", "—")),
                   _esc(", ".join(f"{k} {v}" for k, v in code.get("vector_ops", {}).items() if v) or W("gemm.fma_text.none"))]
                  if code is not None else ["—"] * 3 + [W("gemm.tvm_codegen.no_counts") if "asm" in extra["artifacts"]
                                                  else W("gemm.tvm_codegen.no_assembly")])
        lines.append([_esc(case["stage"]), f"{case['m']}×{case['n']}×{case['k']}", str(case["threads"]), *counts, links])
    if not lines:
        return W("gemm.tvm_stages.text")
    return markdown([W("gemm.tvm_stages.head_stage"), W("gemm.tvm_codegen.head_shape"), W("gemm.peak_table.head_threads"), W("gemm.tvm_codegen.head_vector_fma"), W("gemm.tvm_codegen.head_scalar_fma"), W("gemm.tvm_codegen.head_widest_register"), W("gemm.tvm_codegen.head_vector_instructions"), W("gemm.tvm_codegen.head_artifacts")], lines)


def tuning_summary(book, current):
    lines = []
    for cur in (c for c in _tvm_fam(current) if c.record["case"]["stage"] == "autotuned"
                and c.record["case"]["impl"] == "tvm"):
        e, case = cur.record["extra"], cur.record["case"]
        fails = (e.get("failures") or {}) if cur.ok else {}   # a failed record's counts are no figure
        lines.append([f"{case['m']}×{case['n']}×{case['k']}", str(case["threads"]),
                      book.current(f"{cur.record['id']}#trials", str(e.get("trials_done")), "trials", cur),
                      book.current(f"{cur.record['id']}#tuning_s", fmt_number(e.get("tuning_seconds", 0), "s") + " s",
                                   "s", cur),
                      _esc(e.get("cost_model", "")),
                      _esc(W("common.punct.comma").join(f"{k} {v}" for k, v in fails.items()) or W("gemm.kernel_label.unknown")),
                      _ms_cell(book, cur, "p50", "p50_ms")])
    if not lines:
        return W("gemm.tuning_summary.text")
    return markdown([W("gemm.tvm_codegen.head_shape"), W("gemm.peak_table.head_threads"), W("gemm.tuning_summary.head_trials"), W("gemm.tuning_summary.head_tuning_time"), W("gemm.tuning_summary.head_cost_model"), W("gemm.tuning_summary.head_failures"), W("gemm.tuning_summary.head_best_p50")], lines)


def gemm_goals(book, current, env):
    """The performance goals of the GEMM study as ratios measured in one run (shown, never asserted)."""
    shape = tvm_main_shape(current)
    if shape is None or env is None:
        return W("gemm.tvm_stages.text")
    threads = env["logical_cores"]
    best = queries.numpy_peer(current, shape, threads)
    tuned = _tvm_get(current, "tvm", "autotuned", shape, threads)
    parallel = _tvm_get(current, "tvm", "parallel", shape, threads)
    peak = merge.peak(current, "float32", threads)
    rows = []

    def speed_row(label, cur, goal, suffix):
        if cur is None or best is None or not cur.ok or not best.ok:
            rows.append([label, f"≥ {goal}×", W("gemm.gflops_cell.text"), "—"])
            return
        ratio = best.stat("p50") / cur.stat("p50")
        cell = book.current(f"{cur.record['id']}#{suffix}", f"{ratio:.2f}×", "×", cur, also=(best,))
        rows.append([label, f"≥ {goal}×", cell,
                     (W("gemm.speed_row.met") if ratio >= goal else W("gemm.speed_row.missed")) + rests_on_jump(cell)])

    speed_row(W("gemm.gemm_goals.label_tuned"), tuned, 1.0, "speed_vs_best_numpy")
    speed_row(W("gemm.gemm_goals.label_parallel"), parallel, 0.5, "speed_vs_best_numpy")
    if tuned is not None and tuned.ok and peak is not None:
        share = tuned.gflops() / peak.gflops()
        cell = book.current(f"{tuned.record['id']}#share_of_peak", f"{share * 100:.1f}%", "%", tuned,
                            derived=_share_of_peak(tuned, peak)) + book.above_peak(share)
        rows.append([W("gemm.gemm_goals.label_tuned_vs_peak"), "≥ 85%", cell,
                     (W("gemm.speed_row.met") if share >= 0.85 else W("gemm.speed_row.missed")) + rests_on_jump(cell)])
    m, n, k = shape
    return (W("gemm.gemm_goals.shape_note", m=m, n=n, k=k, threads=threads)
            + markdown([W("gemm.gemm_goals.head_goal"), W("gemm.gemm_goals.head_requirement"), W("gemm.gemm_goals.head_measured"), W("gemm.checks_table.head_verdict")], rows))


def _lines(text):
    """An artifact's lines as an editor counts them, by "\n" only: splitlines would also cut at form
    feeds, \x1c-\x1e, \x85 and U+2028, and show one line as several (and miscount the lines left out).
    A CRLF ending is dropped; a carriage return inside a line is shown as \u240d, as in log excerpts."""
    lines = text.removesuffix("\n").split("\n") if text else []
    return [line.removesuffix("\r").replace("\r", "\u240d") for line in lines]


def tvm_excerpts(results_dir, current, data_prefix, lines=60):
    """Collapsible excerpts of each stage's TensorIR (and the C-target source of baseline)."""
    from reportgen.data import load
    parts = []
    for cur in sorted((c for c in _tvm_fam(current) if c.record["case"]["impl"] == "tvm" and c.ok
                       and "artifacts" in c.record["extra"]),
                      key=lambda c: STAGE_ORDER.index(c.record["case"]["stage"])):
        case, arts = cur.record["case"], cur.record["extra"]["artifacts"]
        for kind, lang, label in (("tensorir", "python", "TensorIR"), ("trace", "python", W("gemm.tvm_excerpts.trace")),
                                  ("c_source", "c", W("gemm.tvm_excerpts.c_source"))):
            if kind not in arts:
                continue
            text = [provenance.cut_line(t) for t in _lines(load.read_artifact(results_dir, arts[kind]))]
            more = [W("gemm.tvm_excerpts.more_lines", text=len(text))] if len(text) > lines else []
            link = W("gemm.tvm_excerpts.link", href=cells.href(data_prefix + '/' + arts[kind]))
            title = _esc(W("gemm.tvm_excerpts.title", stage=case['stage'], label=label, m=case['m'], n=case['n'], k=case['k']))
            parts.append(f'??? abstract "{title}"\n    {link}\n\n'
                         + cells.code_block("\n".join(text[:lines] + more), lang, "    ") + "\n")
    return "\n".join(parts) or W("gemm.tvm_excerpts.none")


def thread_scaling(book, current, env):
    """All-core over single-thread speed of NumPy per size (best kernel): where threads pay."""
    if env is None:
        return W("gemm.tvm_stages.text")
    cores = env["logical_cores"]
    fam = merge.family(current, "numpy_gemm")
    sizes = sorted({c.record["case"]["n"] for c in fam.values()})
    lines = []
    for dtype in ("float32", "float64"):
        row = [dtype]
        for n in sizes:
            one = fam.get(queries.numpy_id(dtype, n, 1, "best"))
            many = fam.get(queries.numpy_id(dtype, n, cores, "best"))
            if one is None or many is None or not (one.ok and many.ok):
                row.append("—")
                continue
            row.append(book.current(f"{many.record['id']}#speedup_vs_1t",
                                    f"{one.stat('p50') / many.stat('p50'):.2f}×", "×", many, also=(one,)))
        lines.append(row)
    return markdown(["dtype"] + [f"n={n}" for n in sizes], lines)


def names(site):
    """The placeholders this module gives the page templates."""
    d, b = site.data, site.book
    return {
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
        "env_table": lambda: environment_table(d.env, d.current),
        "gemm_finding": lambda: finding(b, d.current, d.env),
    }


NEAR_PEAK, FAR_FROM_PEAK = 0.8, 0.5   # shares of the measured peak that the finding's verdict words follow


def _level(share):
    return "near" if share >= NEAR_PEAK else ("mid" if share >= FAR_FROM_PEAK else "far")


def _share_of_peak(kernel, peak):
    return derive("gflops_p50(kernel) / gflops_p50(peak) * 100",
                  operand("kernel", kernel, fmt_number(kernel.gflops(), "GFLOPS"), "GFLOPS"),
                  operand("peak", peak, fmt_number(peak.gflops(), "GFLOPS"), "GFLOPS"))


def finding(book, current, env):
    """Facts of the page's opening finding (the words are in docs/gemm.md): NumPy's best FP32 GEMM
    against the measured peak of the ISA its kernel used, on one core and on all cores, and the
    smallest size's share.  None when the records are missing."""
    if env is None:
        return None
    fam = [c for c in merge.family(current, "numpy_gemm").values() if c.ok and c.record["case"]["dtype"] == "float32"]
    out = {}
    for key, threads in (("one", 1), ("all", env["logical_cores"])):
        pool = [c for c in fam if c.record["case"]["threads"] == threads]
        best = merge.fastest(pool, key=lambda c: -c.gflops()) if pool else None
        peak = merge.peak(current, "float32", threads, kernel_isa(best.record["extra"])) if best else None
        if best is None or peak is None:
            return None
        share = best.gflops() / peak.gflops()
        out[key] = {"gflops": book.current(f"{best.record['id']}#gflops_p50", fmt_number(best.gflops(), "GFLOPS"),
                                           "GFLOPS", best),
                    "peak": book.current(f"{peak.record['id']}#gflops_p50", fmt_number(peak.gflops(), "GFLOPS"),
                                         "GFLOPS", peak),
                    "share": book.current(f"{best.record['id']}#util_measured", f"{share * 100:.1f}%", "%", best,
                                          derived=_share_of_peak(best, peak)) + book.above_peak(share),
                    "level": _level(share), "n": str(best.record["case"]["n"]), "threads": str(threads),
                    "isa": kernel_isa(best.record["extra"]) or "?"}
        small = min((c for c in pool if c.record["case"].get("blas_env") == "best"), key=lambda c: c.record["case"]["n"],
                    default=None)
        if key == "one" and small is not None:
            s_share = small.gflops() / peak.gflops()
            out["small"] = {"n": str(small.record["case"]["n"]), "level": _level(s_share),
                            "share": book.current(f"{small.record['id']}#util_measured_small",
                                                  f"{s_share * 100:.1f}%", "%", small,
                                                  derived=_share_of_peak(small, peak)) + book.above_peak(s_share)}
    scale = out["all"]["level"] == "near" and out["one"]["level"] == "near"
    out["verdict"] = "library_near_peak" if scale else ("library_single_only" if out["one"]["level"] == "near"
                                                        else "library_below_peak")
    return out
