"""The thirty-third round of the hostile corpus (issue #29), data side, attack only, then fixed:
more spellings of a case (a field and its value apart or joined by ':', values holding '_' or '-' in
the anchor form, look-alike letters outside the table, the family as one word, fields before the
family, several fields given one value) and backspaces that erase a failure from the check but not
from the page.  Since this round the provenance page also shows a bound record's checked lines (its
summary and notes, study.citation.own_lines) apart from the range's unchecked output, so a spelling
no check reads is shown as output, never as the record's statement.

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
import pytest
from test_hostile_round4 import _expect

from study import citation

MUTATIONS = {}
SPECIAL = {"evidence_checked_apart": None}
CASE = "numpy_gemm/dtype=float32/n=32/threads=1/blas=configured"
REC = {"id": CASE, "experiment": "numpy_gemm", "status": "ok", "samples": [1e-3] * 3, "stats": {"p50": 1e-3},
       "case": {"dtype": "float32", "n": 32, "threads": 1, "blas": "configured"}, "extra": {}, "check": {}}
INT8 = "int8/model=digits_cnn/size=8/engine=tvm_fp32/batch=1/threads=2"
REC8 = dict(REC, id=INT8, experiment="int8", case={})


@pytest.mark.parametrize("rec, line", [
    (REC, "numpy_gemm n = 4096: FAILED (out of memory)"), (REC, "numpy_gemm n:4096: p50 0.0001 ms over 3 samples"),
    (REC8, "int8-model-digits-cnn-size-8-engine-tvm-fp32-batch-1-threads-2: FAILED"),
    (REC, "\u0578umpy_gemm/dtype=float32/n=4096: FAILED"), (REC, "NUMP\u03a5_GEMM/DTYPE=FLOAT32/N=4096: FAILED"),
    (REC, "NUMPY_GEMM/\u039d=4096: p50 0.0001 ms"), (REC, "NumpyGemm/dtype=float32/n=4096: p50 1 ms"),
    (REC, "numpy\u00adgemm/n=4096: FAILED"), (REC, "n=4096/dtype=float32 numpy_gemm: p50 1 ms"),
    (REC, "numpy_gemm case n=4096: check_failed"), (REC, "numpy_gemm m=k=n=4096: p50 1 ms"),
    (REC, "numpy_gemm/dtype=float64/n=4096: FAILED (out of memory)" + "\b" * 55 + "see above"),
])
def test_round_33_spellings_name_the_case(rec, line):
    found = citation.statement_problems(rec, [line])
    assert found and _expect("evidence_grammar") in found[0], (line, found)


def test_the_page_shows_the_records_checked_lines_apart():
    lines = ["[numpy_gemm] warming up", f"[numpy_gemm] {CASE}: p50_ms=1", "INT8 (engine tvm_fp32): FAILED",
             f"[numpy_gemm] {CASE}: p50 1 ms over 3 samples"]
    assert citation.own_lines(REC, lines) == [lines[1], lines[3]], _expect("evidence_checked_apart")


def test_the_provenance_excerpt_says_the_rest_is_unchecked_output():
    from reportgen.data.words import W
    assert "\u672a\u7ecf\u6838\u5bf9" in W("provenance.entry.log_excerpt_title_checked")   # "not checked"
