"""The thirty-first round of the hostile corpus (issue #29), data side: the evidence check becomes a
grammar.  Rounds 18 to 30 each found one more spelling of a median or a failure in free words that
the statement check did not read ("p50 was about", "FA<BS>ILED", "OOM", the Chinese for timed out).
Now a cited line of a bound run that names a record is exactly its summary, its status, or a note
``<id>: key=value ...`` of study.citation.NOTE_KEYS written by the harness (citation.note); any other
line naming it is refused, so there is no free word left to read.

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
import re
from pathlib import Path

import pytest
from test_hostile_round4 import _expect

from study import citation

MUTATIONS = {}
SPECIAL = {"evidence_grammar": None, "evidence_note_agrees": None}
CASE = "numpy_gemm/dtype=float32/n=32/threads=1/blas=configured"
REC = {"id": CASE, "experiment": "numpy_gemm", "status": "ok", "samples": [1.1e-3] * 3,
       "stats": {"p50": 1.1e-3, "mean": 1.1e-3, "min": 1.0e-3}, "extra": {"flops_per_call": 2 * 32 ** 3},
       "case": {"dtype": "float32", "n": 32, "threads": 1, "blas": "configured"},
       "check": {"max_rel_err": 1.4e-7, "max_abs_err": 2e-6, "passed": True}}


@pytest.mark.parametrize("said", [
    "p50 was about 9.99 ms", "FAILED", "OOM", "\u8d85\u65f6", "p50 1.1 ms, but wrong", "ok: but mismatch",
    "gflops=2 verdict=fail", "kernel=conv_FAILED", "kernel=a<b", "p50_ms=9.99", "min_ms=5", "sum_check=failed",
    "changed=yes", "calls=-1", "rel_err=lots", "gflops=1 gflops=2", "timeout", "check_failed: result differs",
    "p50 1.1 ms over 4 samples", "p50 1.10 ms over 3 samples", "gflops=1\u200b",
])
def test_a_line_naming_the_record_outside_the_grammar_is_refused(said):
    found = citation.statement_problems(REC, [f"[numpy_gemm] {CASE}: {said}"])
    assert found and all(_expect("evidence_grammar") in p for p in found), (said, found)


@pytest.mark.parametrize("line", [f"FAILED {CASE}", f"results/{CASE}.log: FAILED", f"[other] {CASE}: ok", f"{CASE}.so: FAILED",
                                  f"{CASE}: ok {CASE}", f"x {CASE}: p50 1.1 ms over 3 samples"])
def test_the_id_anywhere_but_at_the_head_is_refused(line):
    found = citation.statement_problems(REC, [line])
    assert found and _expect("evidence_grammar") in found[0], (line, found)


@pytest.mark.parametrize("line", [
    f"[numpy_gemm] {CASE}: p50 1.1 ms over 3 samples", f"[numpy_gemm] {CASE}: ok",
    *(f"[numpy_gemm] {line}" for line in citation.note(CASE, p50_ms=1.1, gflops=2 * 32 ** 3 / 1.1e-3 / 1e9,
                                                         rel_err=1.4e-7, kernel="conv2d_FAILED", calls=2)),
    citation.context(kernel="fused conv2d=x", calls=2, kernel_ms=0.25),   # a name as a context line writes it
    "a line about nothing", "[numpy_gemm] blas_env=configured: openblas",
])
def test_the_harness_lines_pass(line):
    assert citation.statement_problems(REC, [line]) == [], line


def test_a_note_writes_only_grammar_values():
    lines = citation.note(CASE, kernel="a b=c<d>", flag=True, count=3, number=float("nan"), p50_ms=1.1)
    assert lines == [f"{CASE}: p50_ms=1.1", "(context) kernel=a_b_c_d_ flag=true count=3 number=nan"]


def test_a_failed_records_lines_are_its_own():
    rec = dict(REC, status="compile_failed", samples=[], stats=None)
    assert citation.statement_problems(rec, [f"{CASE}: compile_failed: Traceback ... {CASE} FAILED"]) == []


def test_no_experiment_says_a_free_line_about_its_case():
    """Every line a family writes about a case goes through the harness's note (or its summary and
    status lines): a free line starting with the case id would be refused when the run is loaded."""
    root = Path(__file__).resolve().parents[1] / "experiments"
    free = re.compile(r"""\.say\(\s*f?["']\{(?:case_id|cid|TRAIN_ID|label)\b""")
    found = [f"{path}:{n}" for path in sorted(root.rglob("*.py")) if path.name != "harness.py"
             for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if free.search(line)]
    assert found == []


@pytest.mark.parametrize("said", [
    "p50_s=0", "min_s=0", "p50_ms=1e1", "p50_ms=1.2",   # F1: within half a printed unit was no bound
    "samples=999", "gflops=9999", "rel_err=5", "max_err=1e9", "changed=true", "ratio=0.5", "peer_p50_ms=99",   # F2, F3
    "kernel=OOM", "kernel=deadlock", "kernel=p50:999ms",   # F4: a name is no fact of the record
])
def test_a_notes_every_field_is_a_fact_of_its_record(said):
    """Round 31 (attack) F1 to F4: a note's statistic matched at its own printed precision, its counts,
    GFLOPS, errors, flags and names were read for form only.  A note now gives only the facts its
    record holds (NOTE_KEYS), each within four significant digits of the record's."""
    found = citation.statement_problems(REC, [f"[numpy_gemm] {CASE}: {said}"])
    assert found and all(_expect("evidence_note_agrees") in p for p in found), (said, found)


@pytest.mark.parametrize("line", [
    "numpy_gemm/n=32/dtype=float32/threads=1/blas=configured: check_failed: result differs",   # fields reordered
    "numpy-gemm-dtype-float32-n-32-threads-1-blas-configured: p50 99.9 ms over 3 samples",   # the page anchor
    "NUMPY_GEMM/DTYPE=FLOAT32/N=32/THREADS=1/BLAS=CONFIGURED: FAILED",
    "note: numpy_gemm/dtype=float32/blas=configured/n=32/threads=1 crashed",
])
def test_another_spelling_of_the_records_case_names_it(line):
    """Round 31 (attack) F5: a line naming the record's case in another spelling (the one case
    study.cases.canonical_id makes of it, its page anchor, upper case) was read as naming nothing."""
    found = citation.statement_problems(REC, [line])
    assert found and _expect("evidence_grammar") in found[0], (line, found)


@pytest.mark.parametrize("line", [
    "numpy_gemm/dtype=float32/n=320/threads=1/blas=configured: FAILED", f"{CASE}.5: FAILED",
    "numpy_gemm/n=32/dtype=float32/threads=1/blas=configured:FAILED", "NUMPY_GEMM/DTYPE=FLOAT32/N=2048: FAILED",
    "numpy_gemm/dtype=float32/n=032: FAILED", "numpy_g\u0435mm/dtype=float32/n=32/threads=1/blas=configured: FAILED",
    "numpy-gemm-dtype-float32-n-32-threads-2-blas-configured=FAILED", "numpy_gemm dtype=float32 n=128: FAILED",
    "numpy_gemm/dtype=float32/n=2048/threads=2/blas=configured: p50 0.001 ms over 3 samples",
])
def test_any_case_of_the_family_in_the_records_range_is_its_own_grammar_line(line):
    """Round 32 (attack) F1 to F5: spellings combined (fields reordered and a status glued on, upper case
    and a field left out, n=04096, a Cyrillic e, the anchor form, fields apart) and another case's line
    in the record's range.  A record's range holds its own lines: any line naming a case of its family,
    in any spelling, is the record's own summary, status or note."""
    found = citation.statement_problems(REC, [line])
    assert found and _expect("evidence_grammar") in found[0], (line, found)
