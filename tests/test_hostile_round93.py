"""The ninety-third round of the hostile corpus (issue #29): attack only, then fixed.

Site set: 15 probes, 3 failed (4 weak).  Mended here:
- two figures written side by side read as one number, with no digit typed: '{{ a }}{{ b }}' or '{{ a ~ b }}' on a
  docs page printed a 206 GFLOPS headline beside a 2-thread count as '2062 GFLOPS'; '{logical_cores}{physical_cores}'
  in a words file printed 2 and 2 cores as 22, '{value}{value} MHz' a doubled clock.  The typed rendering marks
  where a value shows a digit first or last (digitforms.left_out), and the words refuse such a text (words._glued).

Data set: 22 probes, 2 failed (1 weak): see the next commit.

The case ids below are entries of tests/data/hostile/cases.yaml (test_hostile.py finds each one's test).
"""
from test_hostile_round4 import _expect

MUTATIONS, SPECIAL = {}, dict.fromkeys(("figures_side_by_side",))


def test_two_figures_side_by_side_are_one_typed_number():
    import jinja2.sandbox
    import pytest
    from reportgen.data import words
    from reportgen.errors import ReportError
    from reportgen.publish import pagecontent, plugin
    env = jinja2.sandbox.ImmutableSandboxedEnvironment(finalize=plugin._digit_free)
    fig = '<a class="fig" href="#x">206</a>'
    for source in ("{{ a }}{{ b }} GFLOPS", "{{ a ~ b }} GFLOPS", "{{ a }}.{{ b }}", "{{ a }}<span></span>{{ b }}"):
        found = pagecontent.typed_in_rendered("docs/x.md", env.from_string(source).render(a=fig, b="2"))
        assert any(_expect("figures_side_by_side") in p for p in found), (source, found)
    for source in ("{{ a }}\uff08{{ b }}\uff09", "{{ v }}{{ ci }}", "{{ a }} {{ b }}"):   # apart as a reader reads them
        assert pagecontent.typed_in_rendered("docs/x.md", env.from_string(source).render(
            a=fig, b="2", v="1.02\u00d7", ci="\uff0895% \u533a\u95f4\uff09")) == [], source
    for text in ("{a}{b} \u903b\u8f91\u6838", "{a}{a} MHz", "{a}.{b}", "{a}5 ms"):   # a words file's text
        with pytest.raises(ReportError) as err:
            words._fill("docs/words/gemm.yaml", "k", text, {"a": "2", "b": 2})
        assert "docs/words/gemm.yaml" in str(err.value) and "read as one number" in str(err.value)
    assert words._fill("w", "k", "{a} {b}\uff08{a}\uff09", {"a": "2", "b": 2}) == "2 2\uff082\uff09"
