"""The seventy-sixth round of the hostile corpus (issue #29): attack only, then fixed.

Site set (2 of 11 failed): punctuation beyond the fold list copied ':', '-', '<' and the middle dot in titles; a
'<!--' (or an open attribute quote) inside a fenced code block hid the nested elements after it from the count.
Data set (23 probes, 0 failed; two weak passes: a convolution kernel of kh 0 or ic 0 loaded, flagged, and printed a
row at 0 GFLOPS; its sizes and tiles are now counts >= 1).

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
import pytest
from test_hostile_round4 import _expect

MUTATIONS = {}
SPECIAL = {case: None for case in ("title_punctuation_listed", "nesting_code_blanked", "rule_sizes_positive")}


@pytest.mark.parametrize("mark", ["\u0589", "\ufe30", "\u2043", "\u02d7", "\u2796", "\u2039", "\u16eb", "\u2e31"])
def test_a_title_holds_listed_punctuation_only(mark):
    from reportgen.publish import configcheck
    said = configcheck.title_problem(f"\u6eaf\u6e90 {mark} \u8bf4\u660e")
    assert said and _expect("title_punctuation_listed") in said


def test_committed_style_titles_pass():
    from reportgen.publish import configcheck
    for title in ("GEMM \u57fa\u7ebf\u4e0e\u5cf0\u503c\uff08Relax\uff09 10 \u03bcs", "INT8 \u91cf\u5316",
                  "\u300aTVM\u300b\u2014 \u7b80\u4ecb", "D\u2192int8"):
        assert configcheck.title_problem(title) is None, title


@pytest.mark.parametrize("opener", ["```html\n<!--\n```", "~~~\n<span title='\n~~~"])
def test_code_hides_no_nesting(opener):
    from reportgen.publish import nesting
    text = "# t\n\n" + opener + "\n\n" + '<div markdown="1">\n\n' * 480 + "x\n\n~~~\n-->\n~~~\n"
    said = nesting.nesting_problem("docs/a.md", text)
    assert said and said.startswith("docs/a.md:") and _expect("nesting_code_blanked") in said
    fenced = "# t\n\n```\n" + '<div markdown="1">\n' * 450 + "```\n"
    # shown as code, never parsed; since round 77 counted as written too (an unclosed fence hid a page's nesting)
    assert nesting.nesting_problem("docs/a.md", fenced) is not None


def test_a_convolutions_sizes_are_at_least_one():
    from study import work
    kernel = {"rule": "conv", "oc_blocks": 32, "ic_blocks": 32, "oc_tile": 2, "kh": 0, "kw": 3, "oh": 7, "ow": 7,
              "ow_tile": 7}
    said = work._nested_problems({"rules": {"lanes": 16, "kernels": {"k": kernel}}})
    assert said and said[0].startswith("extra.rules.kernels['k'].kh:") and _expect("rule_sizes_positive") in said[0]
