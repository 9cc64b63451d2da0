"""The ninety-fourth round of the hostile corpus (issue #29): attack only, then fixed.

Site set: 17 probes, 4 failed (2 weak).  Mended here:
- arithmetic on placeholders made a figure no record holds: '{{ g.threads + g.threads }}' printed '22 threads' (the
  values are texts: '+' joins them), '{{ compare_alpha + compare_alpha }}' an alpha of 0.010.01; a docs page may
  not use '+', '-', '/' or a sign (pagecontent.template_problem; '*', '%', '**' were refused already);
- numbers Unicode gives a value NFKC leaves as they are ('\u2778', '\u278e', '\u24f7', '\u3222', '\u136b', counting rods) read as
  digits by both figure checks (numerals.numbers_as_digits).

The case ids below are entries of tests/data/hostile/cases.yaml (test_hostile.py finds each one's test).
"""
import pytest

from test_hostile_round4 import _expect

MUTATIONS, SPECIAL = {}, dict.fromkeys(("placeholder_arithmetic", "unicode_number_values"))


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
