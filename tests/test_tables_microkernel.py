"""Page tables of the micro-kernel study (reportgen/pages/gemm_ladder.py) on synthetic records."""
from helpers import record

from study import stats

from reportgen.data import merge
from reportgen.pages import gemm_ladder as tm
from reportgen.render import charts
from reportgen.render.charts import tuning_spaces
from reportgen.render.figures import FigureBook

SHAPE = {"m": 64, "n": 64, "k": 64}
FLOPS = 2 * 64 ** 3


def _rec(case_id, case, extra=None, samples=(1e-4, 1.1e-4, 1.2e-4), **kw):
    return record(case_id=case_id, samples=samples, experiment="gemm_tvm",
                  case={"dtype": "float32", **SHAPE, "threads": 2, **case},
                  extra={"flops_per_call": FLOPS, **(extra or {})}, **kw)


def _current():
    key = "m=64/n=64/k=64/threads=2"
    grid = f"gemm_tvm/impl=tvm_grid/stage=microkernel/{key}/mr=8/nr=32/kc=256"
    curve = [{"trial": 1, "elapsed_s": 3.0, "run_secs": 2e-4, "best_so_far_s": 2e-4},
             {"trial": 2, "elapsed_s": 3.0, "run_secs": None, "best_so_far_s": 2e-4}]
    recs = [
        _rec(grid, {"impl": "tvm_grid", "stage": "microkernel", "tiles": {"mr": 8, "nr": 32, "kc": 256}},
             {"isa": "avx512"}),
        _rec(f"gemm_tvm/impl=tvm/stage=microkernel/{key}", {"impl": "tvm", "stage": "microkernel"},
             {"isa": "avx512", "tiles_chosen_by": grid, "grid": [grid],
              "schedule_params": {"mr": 8, "nr": 32, "kc": 64, "tail_handling": "M/N/K divisible"}}),
        _rec(f"gemm_tvm/impl=tvm/stage=parallel/{key}", {"impl": "tvm", "stage": "parallel"}, {"isa": "avx512"},
             samples=(2e-4, 2e-4, 2e-4)),
        _rec(f"gemm_tvm/impl=numpy/stage=any/{key}/blas=best", {"impl": "numpy", "stage": "any"}),
        _rec(f"gemm_tvm/impl=tvm/stage=autotuned/{key}", {"impl": "tvm", "stage": "autotuned"},
             {"isa": "avx2", "trials_done": 2, "tuning_seconds": 3.0, "curve": curve}),
        _rec(f"gemm_tvm/impl=tvm/stage=autotuned_microkernel/{key}", {"impl": "tvm", "stage": "autotuned_microkernel"},
             {"isa": "avx512", "trials_done": 2, "tuning_seconds": 4.0, "curve": curve}),
        _rec(f"gemm_tvm/impl=tvm_int8/stage=vnni/{key}", {"impl": "tvm_int8", "stage": "vnni"},
             {"isa": "avx512_vnni", "dot_instructions": {"vpdpbusd": 32},
              "fp32_peer": f"gemm_tvm/impl=tvm/stage=microkernel/{key}"}, samples=(3e-5, 3e-5, 3e-5)),
    ]
    return {r["id"]: merge.Current(r, None) for r in recs}


def _book():
    book = FigureBook()
    book.set_page("gemm-ladder.md")
    return book


def test_tables_show_isa_and_link_every_figure():
    current, book = _current(), _book()
    summary = tm.microkernel_summary(book, current, 2)
    assert "AVX-512（zmm）" in summary and "8×32，KC 64" in summary and "1.82×" in summary  # parallel p50 ÷ microkernel p50
    grid = tm.microkernel_grid(book, current)
    assert "选中" in grid and "| 8 | 32 | 256 |" in grid
    spaces = tm.tuning_spaces(book, current)
    assert "默认搜索空间" in spaces and "微内核搜索空间" in spaces and "AVX2（ymm）" in spaces
    int8 = tm.int8_vnni(book, current)
    assert "| 32 |" in int8 and "3.67×" in int8 and "完全一致" in int8
    assert all(entry["record"] in current for entry in book.entries.values())


def test_skipped_int8_shows_the_reason_not_a_number():
    current, book = _current(), _book()
    rec = current["gemm_tvm/impl=tvm_int8/stage=vnni/m=64/n=64/k=64/threads=2"].record
    rec.update(status="skipped", error="host lacks AVX-512 VNNI", samples=[], stats=None)
    text = tm.int8_vnni(book, current)
    assert "skipped" in text and "host lacks AVX-512 VNNI" in text and "3.67×" not in text


def test_empty_and_chart():
    book = _book()
    assert tm.microkernel_summary(book, {}, 1).startswith("（") and tm.int8_vnni(book, {}).startswith("（")
    rows = charts.tuning_space_rows(_current())
    assert {r["series"] for r in rows} == {"MetaSchedule 默认搜索空间（2 线程）", "MetaSchedule 微内核搜索空间（2 线程）"}
    assert tuning_spaces({}, _current(), None).to_dict()["hconcat"]


def test_kernel_goals_judge_each_ratio_of_one_run():
    current, book = _current(), _book()
    one = "m=64/n=64/k=64/threads=1"
    extra = [_rec(f"gemm_tvm/impl=tvm/stage=microkernel/{one}", {"impl": "tvm", "stage": "microkernel", "threads": 1},
                  {"isa": "avx512"}, samples=(1e-4, 1e-4, 1e-4)),
             _rec(f"gemm_tvm/impl=numpy/stage=any/{one}/blas=best", {"impl": "numpy", "stage": "any", "threads": 1},
                  samples=(1.2e-4, 1.2e-4, 1.2e-4)),
             record(case_id="machine_peak/dtype=float32/isa=avx512/threads=1", experiment="machine_peak",
                    case={"dtype": "float32", "isa": "avx512", "threads": 1, "iters": 2048}, samples=(8e-5, 8e-5, 8e-5),
                    extra={"flops_per_call": FLOPS, "accumulators": 8})]   # 2048 x 8 x 16 lanes x 2 = FLOPS
    current.update({r["id"]: merge.Current(r, None) for r in extra})
    text = tm.kernel_goals(book, current, 2)
    rows = {line.split(" | ")[0].strip("| ") + "/" + line.split(" | ")[1]: line for line in text.splitlines()
            if line.startswith("| ") and "---" not in line}
    assert "1.20×" in rows["TVM 最快的内核 ÷ NumPy 最佳内核（速度比）/1"] and "达到" in rows["TVM 最快的内核 ÷ NumPy 最佳内核（速度比）/1"]
    assert "80%" in rows["TVM 最快的内核占同指令集实测 FMA 峰值/1"] and "未达到" in rows["TVM 最快的内核占同指令集实测 FMA 峰值/1"]
    assert "3.67×" in rows["INT8 VNNI GEMM ÷ 同形状 FP32 微内核（速度比）/2"]
    assert "1.00×" in rows["MetaSchedule（微内核空间）÷ 手写 microkernel（速度比）/2"]
    derived = [e for e in book.entries.values() if e.get("derived")]
    assert derived and all(entry["record"] in current for entry in book.entries.values())
    assert tm.kernel_goals(_book(), {}, 2).startswith("（")
    assert "高于实测峰值" not in text
    peak = current["machine_peak/dtype=float32/isa=avx512/threads=1"].record   # a slowed peak run
    peak.update(samples=[2e-4] * 3, stats=stats.summarize([2e-4] * 3))
    slowed = tm.kernel_goals(_book(), current, 2)
    assert "200%" in slowed and "高于实测峰值" in slowed


def test_grid_shows_one_search_the_newest_run_per_thread_count():
    """An older run's candidate under an id scheme since changed (no mc) is still the current record
    of its own id; the grid table shows only the newest run's search, so no candidate appears twice."""
    current, book = _current(), _book()
    old = _rec("gemm_tvm/impl=tvm_grid/stage=microkernel/m=64/n=64/k=64/threads=2/mr=4/nr=16",
               {"impl": "tvm_grid", "stage": "microkernel", "tiles": {"mr": 4, "nr": 16, "kc": 999, "mc": 32}},
               {"isa": "avx512"}, run_id="20250101T000000Z-quick-f6ab9f827cfd")
    current[old["id"]] = merge.Current(old, None)
    grid = tm.microkernel_grid(book, current)
    assert "| 8 | 32 | 256 |" in grid and "999" not in grid


def test_numpy_peer_is_the_faster_blas_environment():
    """The NumPy peer a TVM kernel is compared with is the lower median of the two environments."""
    from reportgen.data import queries
    key = "m=64/n=64/k=64/threads=2"
    slow = _rec(f"gemm_tvm/impl=numpy/stage=any/{key}/blas=best", {"impl": "numpy", "stage": "any"},
                samples=(3e-4, 3e-4, 3e-4))
    fast = _rec(f"gemm_tvm/impl=numpy/stage=any/{key}/blas=configured", {"impl": "numpy", "stage": "any"},
                samples=(2e-4, 2e-4, 2e-4))
    current = {r["id"]: merge.Current(r, None) for r in (slow, fast)}
    assert queries.numpy_peer(current, (64, 64, 64), 2).record["id"] == fast["id"]
    del current[fast["id"]]
    assert queries.numpy_peer(current, (64, 64, 64), 2).record["id"] == slow["id"]
