"""The eighty-first round of the hostile corpus (issue #29), site set: attack only, then fixed.

13 probes, 6 failed (three weak): nesting._code_blanked's code-span regex took 91 s on a 4.8 KB line of backticks;
nesting_problem's HTMLParser read 120 KB of unclosed '<a ' for two minutes before the '<' bound refused it; the
banner check re-joined the page before each mark (weak); 'i' with a dot above, and marks on Chinese characters and
digits, made a second title that read as the first (weak for the latter); the build's conversion budget is spent
twice, by the check and by MkDocs (weak: 60 s now).

Data set (6 of 14 failed, two weak; two mended here): extra.isa renamed to an unknown name, or to 'scalar' over code
in 512-bit registers, hid the above-peak warning and turned the peak goal to 'not measured'; a tail handling of
null, an object or 50 000 characters printed as it was.  Left: the autotuned stage's codegen (no artifact to tie it
to), a tail-handling text contradicting the shape, peak records forged to time out.

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
import time

import pytest
from test_hostile_round4 import _expect

MUTATIONS = {}
SPECIAL = {case: None for case in ("code_spans_linear", "marks_bounds_first", "mark_on_no_latin_letter",
                                   "isa_named_and_tied", "tail_handling_text")}


def test_code_spans_are_blanked_in_one_pass():
    from reportgen.publish import nesting
    assert nesting._spans_blanked("a `x` b") == _expect("code_spans_linear")
    assert nesting._spans_blanked("a `<div>` b `c") == "a         b `c"
    started = time.monotonic()
    nesting._spans_blanked("`" * 20000 + "x" + "` " * 20000)
    assert time.monotonic() - started < 5   # a bound on work, not a timing: the regex took minutes


def test_the_marks_bounds_come_before_the_nesting_parsers(monkeypatch):
    from reportgen.publish import nesting, pagecontent
    monkeypatch.setattr(nesting, "nesting_problem", lambda *a: (_ for _ in ()).throw(AssertionError("read first")))
    said = pagecontent.source_problem("docs/a.md", "# t\n\n" + "<a \n\n" * (pagecontent.MAX_PAGE_MARKS + 1))
    assert said and _expect("marks_bounds_first") in said, said


@pytest.mark.parametrize("title", ["i\u0307nt8 i\u0307n TVM", "\u6982\u302a\u89c8", "GEMM 1\u0308", "\u6982\u0323\u89c8"])
def test_a_mark_on_anything_but_a_latin_letter_is_refused(title):
    from reportgen.publish import configcheck
    assert _expect("mark_on_no_latin_letter") in configcheck.title_problem(title)
    assert configcheck.title_problem("Caf\u00e9 na\u00efve") is None and configcheck.title_problem("Cafe\u0301") is None


def _stage(isa, zmm, ymm_fma=False, packed=0):
    return {"id": "gemm_tvm/impl=tvm/stage=microkernel/m=1024/n=1024/k=1024/threads=1", "experiment": "gemm_tvm",
            "status": "ok", "samples": [1.0], "metric": "time", "case": {},
            "extra": {"isa": isa, "codegen": {"has_zmm": zmm, "has_ymm_fma": ymm_fma, "fma_packed": packed}}}


def test_the_isa_is_one_the_study_names():
    from study import work
    said = [p for p in work._required_problems(_stage("avx1024", True, packed=32)) if p]
    assert any(p.startswith(_expect("isa_named_and_tied")) for p in said), said
    # an 'avx2' target whose code LLVM wrote in 512-bit registers is a real run (Sapphire Rapids), not refused
    for isa, zmm, packed in (("avx512", True, 32), ("avx512_vnni", True, 0), ("scalar", False, 0), ("avx2", True, 32)):
        assert not [p for p in work._required_problems(_stage(isa, zmm, packed=packed)) if p and "isa" in p]


@pytest.mark.parametrize("tail", [None, {"a": 1}, "x" * 50000, ""])
def test_the_tail_handling_is_a_short_text(tail):
    from study import work
    rec = _stage("avx512", True, packed=32)
    rec["extra"]["schedule_params"] = {"tail_handling": tail}
    said = [p for p in work._required_problems(rec) if p]
    assert any(_expect("tail_handling_text") in p for p in said), said


def test_the_isa_is_a_level_over_changed_code():
    from reportgen.data import claims
    before = {"id": "gemm_tvm/x", "extra": {"isa": "avx512"}}
    assert claims.level_jump(before, {"id": "gemm_tvm/x", "extra": {"isa": "avx2"}}, 2.0)
