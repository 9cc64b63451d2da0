"""The ninety-fourth round of the hostile corpus (issue #29): attack only, then fixed.

Site set: 17 probes, 4 failed (2 weak).  Mended here:
- arithmetic on placeholders made a figure no record holds: '{{ g.threads + g.threads }}' printed '22 threads' (the
  values are texts: '+' joins them), '{{ compare_alpha + compare_alpha }}' an alpha of 0.010.01; a docs page may
  not use '+', '-', '/' or a sign (pagecontent.template_problem; '*', '%', '**' were refused already);
- numbers Unicode gives a value NFKC leaves as they are ('\u2778', '\u278e', '\u24f7', '\u3222', '\u136b', counting rods) read as
  digits by both figure checks (numerals.numbers_as_digits);
- a hand-made study.pdf ("GEMM peak: 9999 GFLOPS") listed in site-files.json without the print.html it is printed
  from passed verify: a PDF needs its print page beside it, and that page is held to the one pdf assembles (P2, in
  part: the PDF's own text is still the browser's, not compared).

Data set: 13 probes, 4 failed (1 weak).  Mended here (P2, P7, P9): a same-code run turned the home page's headline
ratios (ResNet-18 0.99x to 0.60x, ResNet-50 1.04x to 0.59x) through the peer's samples inside the paired blocks,
no median moving, and timed a tuning 8.7x shorter: the paired ratio is held to its case's range as the median is
(history.RANGE), every single duration a record states as the first call is (history.SINGLE_RANGE).

The case ids below are entries of tests/data/hostile/cases.yaml (test_hostile.py finds each one's test).
"""
import pytest

from test_hostile_round4 import _expect

MUTATIONS, SPECIAL = {}, dict.fromkeys(("placeholder_arithmetic", "unicode_number_values", "range_of_every_figure",
                                        "pdf_beside_print_page"))


@pytest.mark.parametrize("source", ["{{ g.threads + g.threads }} x", "{{ a - b }}", "{{ a / b }}", "{{ -a }}",
                                    "{{ a // b }}", "{% if a %}{{ a + '' }}{% endif %}"])
def test_arithmetic_on_a_placeholder_is_refused(source):
    from reportgen.publish import pagecontent, sandbox
    env = sandbox.sandbox()
    node = pagecontent.template_problem(env.parse(source))
    assert node is not None and _expect("placeholder_arithmetic") in node.what, source


def test_a_comparison_is_no_arithmetic():
    from reportgen.publish import pagecontent, sandbox
    env = sandbox.sandbox()
    assert pagecontent.template_problem(env.parse("{% if a > b and not c %}{{ a }}{% endif %}")) is None


@pytest.mark.parametrize("text", ["\u5feb \u2778 \u500d", "\u5360 \u278e \u6210", "\u24f7 ms", "TVM \u136b \u5f20", "\U0001d362 \u6beb\u79d2"])
def test_a_number_unicode_gives_a_value_is_a_digit(tmp_path, text):
    from reportgen.publish import numerals, pagecontent
    (tmp_path / "x.md").write_text(f"# x\n\n{text}\n", encoding="utf-8")
    assert pagecontent.typed_figures(tmp_path), text
    assert _expect("unicode_number_values") in numerals.as_digits.__doc__
    assert numerals.numbers_as_digits("\u4e07 \u2778 \u00bd a1") == "\u4e07 3 0.5 a1"


def test_a_paired_ratio_and_a_single_duration_are_held_to_their_case_s_range():
    from reportgen.pages import history
    from test_hostile_round35_data import _changed, _Run as _Same
    for values, put, name in (((0.99, 1.02, 0.97, 0.60), lambda r, v: r.update(extra={"paired_peer": {"ratio": v}}),
                               "paired_peer.ratio"),   # round 94, data P2 and P7: a headline ratio, no median moved
                              ((56.9, 57.2, 58.0, 6.5), lambda r, v: r.update(extra={"rules_tuning": {"seconds": v}}),
                               "extra.rules_tuning.seconds")):   # data P9: a tuning timed 8.7x shorter
        runs = [_Same(f"r{i}", 0.009, "a" * 64) for i in range(len(values))]
        for run, value in zip(runs, values):
            put(run.records[0], value)
        found = history.all_jumps(runs, _changed)
        assert [(j[2], j[5]) for j in found] == [("r3", f"{name} (outside the case's range)")], (name, found)
        assert _expect("range_of_every_figure") in found[0][5]


def test_a_pdf_without_the_print_page_it_comes_from_is_refused(tmp_path):
    from reportgen.publish import sitecheck
    (tmp_path / "study.pdf").write_bytes(b"%PDF-1.4\n1 0 obj<</Type/Catalog>>endobj\n%%EOF\n")   # round 94, site P2
    said = sitecheck.pdf_problems(tmp_path)
    assert said and _expect("pdf_beside_print_page") in said[0]
    (tmp_path / "print.html").write_text("<html></html>", encoding="utf-8")
    assert sitecheck.pdf_problems(tmp_path) == []
