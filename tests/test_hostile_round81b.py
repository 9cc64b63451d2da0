"""The eighty-first round of the hostile corpus (issue #29), data set: the three failures round 81 left open.

An autotuned GEMM stage's codegen forged from 32 zmm FMAs to 64 scalar ones was printed (a searched program is left
out of the level comparison and it cited no assembly to be counted again); a micro-kernel of 127x255x511 read
'M/N/K divisible'; peak records forged to time out made the micro-kernel's share read 'no peak record for this
ISA' and the peak goal 'not measured'.  And what the second rule wanted first: extra.isa tied to the code's widest
packed FMA (not to its widest register, which a blocked loop of ymm FMAs reaches in its moves); and, found by
listing the record fields the pages read that no level holds, the micro-kernel's cache blocks (KC, MC) the ladder's
table prints beside its register tile, now fitted again from the grid record's tiles (study.tails.fitted).

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
import pytest
from helpers import record
from test_hostile_round4 import _expect

MUTATIONS = {}
SPECIAL = {case: None for case in ("searched_codegen_unbacked", "tail_handling_decided", "peak_failed_said",
                                   "isa_of_widest_fma", "cache_blocks_fitted")}

SEARCHED = "gemm_tvm/impl=tvm/stage=autotuned/m=64/n=64/k=64/threads=1"


def _searched(artifacts):
    return record(case_id=SEARCHED, experiment="gemm_tvm", samples=(1e-4, 1e-4, 1e-4),
                  case={"impl": "tvm", "stage": "autotuned", "m": 64, "n": 64, "k": 64, "threads": 1,
                        "dtype": "float32"},
                  extra={"flops_per_call": 2 * 64 ** 3, "isa": "sse", "artifacts": artifacts,
                         "codegen": {"fma_packed": {"xmm": 24}, "fma_scalar": 64, "widest_register": "xmm",
                                     "vector_ops": {"xmm": 24}}})


def test_a_searched_stage_prints_codegen_only_with_its_assembly():
    from reportgen.data import claims, merge
    from reportgen.pages import codegen, gemm
    from reportgen.render.figures import FigureBook
    rec = _searched({"trace": "artifacts/autotuned.trace.py"})
    assert claims.compiled(rec, "codegen") is None
    current = {rec["id"]: merge.Current(rec, None)}
    book = FigureBook()
    book.set_page("codegen.md")
    table = gemm.tvm_codegen(book, current, "data")
    assert _expect("searched_codegen_unbacked") in table and "xmm 24" not in table and "| 64 |" not in table, table
    assert "autotuned" not in codegen.instruction_facts(book, current, {})
    rec["extra"]["artifacts"]["asm"] = "artifacts/autotuned.s"   # then searchfacts counts it again from the listing
    assert claims.compiled(rec, "codegen") == rec["extra"]["codegen"]
    assert "xmm 24" in gemm.tvm_codegen(book, current, "data")


@pytest.mark.parametrize("stage,shape,params,want", [
    ("microkernel", (127, 255, 511), {"mr": 8, "nr": 32, "kc": 256}, "pad M/N/K"),
    ("microkernel", (128, 256, 512), {"mr": 8, "nr": 32, "kc": 256}, "M/N/K divisible"),
    ("blocking", (127, 128, 63), {"bm": 32, "bn": 32, "bk": 4}, "pad M/N to tile multiples, guarded k split"),
    ("baseline", (64, 64, 64), {}, "none (default loops)"),
])
def test_the_tail_handling_is_the_one_the_shape_decides(stage, shape, params, want):
    from study import tails, work
    case = {"stage": stage, "m": shape[0], "n": shape[1], "k": shape[2]}
    assert tails.expected(case, params).startswith(want)
    wrong = "masked AVX-512 epilogue (no scalar tail)"
    said = tails.problem(case, {**params, "tail_handling": wrong})
    assert said and _expect("tail_handling_decided") in said
    assert tails.problem(case, {**params, "tail_handling": tails.expected(case, params)}) is None
    rec = record(case_id=f"gemm_tvm/impl=tvm/stage={stage}/m={shape[0]}/n={shape[1]}/k={shape[2]}/threads=1",
                 experiment="gemm_tvm", case={"impl": "tvm", **case, "threads": 1, "dtype": "float32"},
                 extra={"flops_per_call": 2 * shape[0] * shape[1] * shape[2],
                        "schedule_params": {**params, "tail_handling": wrong}})
    assert any(_expect("tail_handling_decided") in p for p in work._required_problems(rec) if p)


def test_a_failed_peak_is_said_with_its_record():
    from test_tables_microkernel import FLOPS, _book, _current, _rec
    from reportgen.data import merge
    from reportgen.pages import gemm_ladder as tm
    one = "m=64/n=64/k=64/threads=1"
    current = _current()
    peak = record(case_id="machine_peak/dtype=float32/isa=avx512/threads=1", experiment="machine_peak",
                  case={"dtype": "float32", "isa": "avx512", "threads": 1, "iters": 2048}, samples=(8e-5,) * 3,
                  extra={"flops_per_call": FLOPS, "accumulators": 8})
    peak.update(status="timeout", error="exceeded the 60 s budget", samples=[], stats=None)
    kernel = _rec(f"gemm_tvm/impl=tvm/stage=microkernel/{one}", {"impl": "tvm", "stage": "microkernel", "threads": 1},
                  {"isa": "avx512"})
    current.update({r["id"]: merge.Current(r, None) for r in (peak, kernel)})
    goals = tm.kernel_goals(_book(), current, 2)
    row = next(line for line in goals.splitlines() if "FMA" in line and "| 1 |" in line)
    assert _expect("peak_failed_said") in row and "timeout" in row, row
    share = tm._peak_share(_book(), current, current[kernel["id"]], 1)
    assert "timeout" in share and "没有该指令集的峰值记录" not in share, share


@pytest.mark.parametrize("isa,packed,dots,refused", [
    ("scalar", {"zmm": 64}, None, True), ("avx2", {"ymm": 32, "zmm": 0}, None, False),
    ("avx512", {"ymm": 32, "zmm": 0}, None, True), ("sse", {}, None, True), ("scalar", {"xmm": 0}, None, False),
    ("avx512_vnni", {"zmm": 0}, {"vpdpbusd": 32}, False), ("avx512", {"zmm": 0}, {"vpdpbusd": 32}, True),
])
def test_the_isa_is_the_widest_packed_fma(isa, packed, dots, refused):
    from study import targets
    extra = {"isa": isa, "codegen": {"fma_packed": packed, "widest_register": "zmm"},
             **({"dot_instructions": dots} if dots else {})}
    said = targets.isa_problems(extra)
    assert bool(said) == refused, said
    assert not said or _expect("isa_of_widest_fma") in said[0]


@pytest.mark.parametrize("field,value,refused", [("kc", 256, True), ("mc", 63, True), ("kc", 252, False)])
def test_the_cache_blocks_are_fitted_from_the_grid(field, value, refused):
    from types import SimpleNamespace
    from reportgen.data import searchfacts
    grid = {"id": "gemm_tvm/impl=tvm_grid/g", "status": "ok", "stats": {"min": 1.0},
            "case": {"tiles": {"mr": 8, "nr": 32, "ku": 4, "kc": 256, "mc": 64}}}
    params = {"mr": 8, "nr": 32, "ku": 4, "kc": 252, "mc": 64, field: value}   # K=1000 in 4 blocks of 250 -> 252
    rec = {"run_id": "r", "case": {"k": 1000}, "extra": {"tiles_chosen_by": grid["id"], "grid": [grid["id"]],
                                                        "schedule_params": params}}
    said = searchfacts._tiles_problems(rec, {"r": SimpleNamespace(records=[grid])})
    assert bool(said) == refused, said
    assert not said or _expect("cache_blocks_fitted") in said[0]
