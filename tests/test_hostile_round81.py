"""The eighty-first round of the hostile corpus (issue #29), site set: attack only, then fixed.

13 probes, 6 failed (three weak): nesting._code_blanked's code-span regex took 91 s on a 4.8 KB line of backticks;
nesting_problem's HTMLParser read 120 KB of unclosed '<a ' for two minutes before the '<' bound refused it; the
banner check re-joined the page before each mark (weak); 'i' with a dot above, and marks on Chinese characters and
digits, made a second title that read as the first (weak for the latter); the build's conversion budget is spent
twice, by the check and by MkDocs (weak: 60 s now).  The data set of this round ran past the session.

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
import time

import pytest
from test_hostile_round4 import _expect

MUTATIONS = {}
SPECIAL = {case: None for case in ("code_spans_linear", "marks_bounds_first", "mark_on_no_latin_letter")}


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
