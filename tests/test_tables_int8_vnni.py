"""The INT8 page's tensorization table and budget sentence (reportgen/pages/int8.py) on synthetic records."""
from helpers import record

from reportgen.data import merge
from reportgen.pages import int8 as ti
from reportgen.render.figures import FigureBook

WORDS = {"heads": ["m", "packed", "tensorized", "kernels", "hot", "trials"], "yes": "YES", "no": "NO", "none": "NONE"}


def _rec(engine, samples, extra):
    case = {"model": "resnet18_v1", "engine": engine, "group": ti.LABEL[engine], "batch": 1, "threads": 2,
            "input_size": 64}
    return record(case_id=f"int8/model=resnet18_v1/size=64/engine={engine}/batch=1/threads=2", samples=samples,
                  experiment="int8", case=case, extra={"score": {"top1_agree": 1.0}, **extra})


def _current(same_budget=True):
    tuning = {"source": "int8 family", "trials": 200}
    recs = [
        _rec("tvm_fp32_tuned", (4e-3, 4e-3, 4e-3), {"tuning": dict(tuning, trials=208 if same_budget else 4000,
                                                                   source="int8 family" if same_budget else "e2e_tune")}),
        _rec("tvm_int8_tuned", (1e-3, 1e-3, 1e-3), {
            "tuning": dict(tuning, tensorized={"tasks": ["a", "b"], "count": 2, "tuned_tasks": 25,
                                               "log_lines": {"dot_16x4_vnni": 2}}),
            "rewrite": {"vnni_packed": {"conv2d": 19, "matmul": 1}, "vnni_layout": True},
            "asm": {"hottest_kernel": "fused_conv2d_vnni", "hottest": {"vpdpbusd": 12},
                    "all_kernels": {"vpdpbusd": 30}, "kernels_with": {"vpdpbusd": 3}}}),
    ]
    return {r["id"]: merge.Current(r, None) for r in recs}


def test_tensorization_table_counts_kernels_and_links_them():
    book = FigureBook()
    book.set_page("int8.md")
    table = ti.tensorization(book, _current(), WORDS)
    assert ">20<" in table and ">2 / 25<" in table and ">3<" in table and "YES" in table and ">200<" in table
    assert all(entry["record"] in _current() for entry in book.entries.values())
    assert ti.tensorization(book, {}, WORDS) == "NONE"


def test_goal_sentence_says_whether_budgets_were_equal():
    book = FigureBook()
    book.set_page("int8.md")
    same = ti.goals(book, _current(), words={"same_budget": "SAME BUDGET: "})
    assert "4.00×" in same and "SAME BUDGET: " in same
    other = ti.goals(book, _current(same_budget=False), words={"same_budget": "SAME BUDGET: "})
    assert "SAME BUDGET" not in other and ">4000<" in other
