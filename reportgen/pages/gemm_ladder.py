"""Tables of the GEMM micro-kernel study (issue #17): the MR/NR/KC grid, MetaSchedule over
its own space and over the micro-kernel's space, and the INT8 VNNI GEMM beside FP32.

Every measured figure links to its record; each row says the ISA its kernel used
(``extra.isa``, from the FMA registers in the generated code)."""
from reportgen.data import merge
from reportgen.render.labels import SPACE_ZH
from reportgen.render.figures import fmt_number
from reportgen.render.cells import text as _esc
from reportgen.render.markdown import markdown, ms_cell as _ms_cell
from reportgen.data.queries import tvm_record as _tvm_get, tvm_main_shape

ISA_ZH = {"avx512": "AVX-512（zmm）", "avx2": "AVX2（ymm）", "sse": "SSE（xmm）", "scalar": "标量",
          "avx512_vnni": "AVX-512 VNNI（zmm）"}


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
        return "未测"
    if not cur.ok:
        return book.failed(cur)
    return book.current(f"{cur.record['id']}#gflops_p50", fmt_number(cur.gflops(), unit), unit, cur)


def _vs(book, num, den, suffix):
    """Speed of num relative to den (den time / num time), linked to num's record."""
    if num is None or den is None or not num.ok or not den.ok:
        return "—"
    return book.current(f"{num.record['id']}#{suffix}", f"{den.stat('p50') / num.stat('p50'):.2f}×", "×", num)


def microkernel_summary(book, current, threads):
    """The micro-kernel stage on every shape: GFLOPS, ISA, tiles, speed vs NumPy's best kernel."""
    fam = [c for c in _fam(current) if c.record["case"]["stage"] == "microkernel"
           and c.record["case"]["impl"] == "tvm" and c.record["case"]["threads"] == threads]
    if not fam:
        return "（尚无记录）"
    rows = []
    for cur in sorted(fam, key=lambda c: _shape(c.record["case"])):
        shape = _shape(cur.record["case"])
        params = cur.record["extra"].get("schedule_params") or {}
        best = _tvm_get(current, "numpy", "any", shape, threads, "best")
        parallel = _tvm_get(current, "tvm", "parallel", shape, threads)
        tiles = (f"{params['mr']}×{params['nr']}，KC {params['kc']}" if {"mr", "nr", "kc"} <= params.keys()
                 else "—")
        rows.append([_shape_text(shape), _gflops(book, cur), _isa(cur), _peak_share(book, current, cur, threads),
                     _esc(tiles), _esc(params.get("tail_handling", "—")), _vs(book, cur, parallel, "speed_vs_parallel"),
                     _vs(book, cur, best, "speed_vs_best_numpy"), _gflops(book, best)])
    return markdown(["形状", "微内核 GFLOPS", "指令集", "对同机同指令集的实测 FMA 峰值", "MR×NR，KC", "尾部处理",
                     "速度比：÷ parallel 阶段", "速度比：÷ NumPy 最佳内核", "NumPy 最佳内核 GFLOPS"], rows)


def _peak_share(book, current, cur, threads):
    """GFLOPS of a kernel as a share of the measured FP32 peak of the ISA it used, same machine and threads."""
    if cur is None or not cur.ok:
        return "—"
    peak = merge.isa_peak(current, "float32", threads, cur.record["extra"].get("isa"))
    if peak is None:
        return "—（没有该指令集的峰值记录）"
    share = cur.gflops() / peak.gflops()
    return book.current(f"{cur.record['id']}#share_of_isa_peak", f"{share * 100:.0f}%", "%", cur) + \
        f"（{_esc(peak.record['case']['isa'])} 峰值 " + book.current(
            f"{peak.record['id']}#gflops_p50", fmt_number(peak.gflops(), "GFLOPS"), "GFLOPS", peak) + "）"


def microkernel_grid(book, current):
    """The recorded MR/NR/KC grid per thread count; the chosen candidate is marked."""
    fam = [c for c in _fam(current) if c.record["case"]["impl"] == "tvm_grid"]
    if not fam:
        return "（尚无网格搜索记录）"
    chosen = {c.record["extra"].get("tiles_chosen_by") for c in _fam(current)
              if c.record["case"]["stage"] == "microkernel" and c.record["case"]["impl"] == "tvm"}
    rows = []
    for cur in sorted(fam, key=lambda c: (c.record["case"]["threads"], c.record["id"])):
        case = cur.record["case"]
        tiles = case.get("tiles") or {}
        rows.append([_shape_text(_shape(case)), str(case["threads"]), str(tiles.get("mr", "—")),
                     str(tiles.get("nr", "—")), str(tiles.get("kc", "—")), _isa(cur), _gflops(book, cur),
                     '<span class="ok">选中</span>' if cur.record["id"] in chosen else ""])
    return markdown(["形状", "线程", "MR", "NR", "KC", "指令集", "GFLOPS（中位数）", "选用"], rows)


def tuning_spaces(book, current):
    """MetaSchedule's default space beside the micro-kernel space, same workload and budget."""
    rows = []
    for cur in sorted((c for c in _fam(current) if c.record["case"]["stage"] in SPACE_ZH
                       and c.record["case"]["impl"] == "tvm"),
                      key=lambda c: (_shape(c.record["case"]), c.record["case"]["threads"], c.record["case"]["stage"])):
        case, extra = cur.record["case"], cur.record["extra"]
        shape = _shape(case)
        best = _tvm_get(current, "numpy", "any", shape, case["threads"], "best")
        hand = _tvm_get(current, "tvm", "microkernel", shape, case["threads"])
        rows.append([SPACE_ZH[case["stage"]], _shape_text(shape), str(case["threads"]),
                     book.current(f"{cur.record['id']}#trials", str(extra.get("trials_done")), "trials", cur),
                     book.current(f"{cur.record['id']}#tuning_s", fmt_number(extra.get("tuning_seconds", 0), "s") + " s",
                                  "s", cur),
                     _gflops(book, cur), _isa(cur), _vs(book, cur, hand, "speed_vs_microkernel"),
                     _vs(book, cur, best, "speed_vs_best_numpy")])
    if not rows:
        return "（尚无调优记录）"
    return markdown(["搜索空间", "形状", "线程", "试验次数", "调优耗时", "最佳核 GFLOPS", "指令集",
                     "速度比：÷ 手写微内核", "速度比：÷ NumPy 最佳内核"], rows)


def int8_vnni(book, current):
    """u8×s8→s32 GEMM with vpdpbusd beside the FP32 micro-kernel of the same shape and threads."""
    rows = []
    for cur in sorted((c for c in _fam(current) if c.record["case"]["impl"] == "tvm_int8"),
                      key=lambda c: (_shape(c.record["case"]), c.record["case"]["threads"])):
        case, extra = cur.record["case"], cur.record["extra"]
        shape = _shape(case)
        fp32 = current.get(extra.get("fp32_peer") or "")
        dots = (extra.get("dot_instructions") or {}).get("vpdpbusd")
        state = ('<span class="ok">与 NumPy int32 完全一致</span>' if cur.ok else
                 f'{book.failed(cur)}：{_esc(cur.record.get("error") or "")}')
        rows.append([_shape_text(shape), str(case["threads"]), _gflops(book, cur, "GOPS") if cur.ok else "—",
                     _gflops(book, fp32), _vs(book, cur, fp32, "speed_vs_fp32") if cur.ok else "—",
                     _esc(str(dots) if dots is not None else "—"), state])
    if not rows:
        return "（尚无 INT8 记录）"
    return markdown(["形状", "线程", "INT8 GOPS", "FP32 微内核 GFLOPS", "INT8 ÷ FP32（速度比）",
                     "`vpdpbusd` 指令数", "结果"], rows)


def names(site):
    """The placeholders this module gives the page templates."""
    d, b = site.data, site.book
    return {
        "microkernel_summary": lambda threads: microkernel_summary(b, d.current,
                                                                                site.threads(threads)),
        "microkernel_grid": lambda: microkernel_grid(b, d.current),
        "tuning_spaces": lambda: tuning_spaces(b, d.current),
        "int8_vnni": lambda: int8_vnni(b, d.current),
    }
