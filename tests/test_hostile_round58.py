"""The fifty-eighth round of the hostile corpus (issue #29): attack only, then fixed.

Data set (2 of 11 failed): a run naming an older commit that an earlier run of the machine had measured,
its records given new fingerprints, moved ResNet-18 0.4x: git shows the code changed between the run
and the one before it, so the jump was listed as one over changed code and published unflagged (now a
jump over changed code is also held to the newest earlier record measured with the family's code as
this run has it); an INT8 record's weights of 10^25 bytes loaded and reached the methods table (an
integer beyond 2^53 is refused).

Site set (7 of 12 failed): a marked section '<![x[ ... ]]>' is one declaration to Python's parser and ends at
its first '>' in a browser (a live meta refresh passed every check), '<![foo[' stopped the parser in an
AssertionError; the search separator, a regular expression every visitor's browser runs, was unchecked; a
stylesheet of empty rules, a block of 40 000 setext headings and an unclosed '<a' with 32 000 spaces each
took minutes in a check or in Markdown; a docs script listed in extra_javascript ran on every page.

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
import inspect

import pytest

from conftest import ROOT
from reportgen.errors import ReportError
from test_hostile_round4 import _expect
from test_hostile_round35_data import _changed, _Run

MUTATIONS = {}
SPECIAL = {case: None for case in ("jump_back_to_older_code", "integer_beyond_2_53", "marked_section",
                                   "marked_section_keyword", "search_separator_pinned", "stylesheet_size",
                                   "own_script_pinned", "block_lines", "tag_scan_linear")}


def test_a_run_back_at_older_code_is_held_to_that_code_s_records():
    from reportgen.pages import history
    runs = [_Run("r1", 1.0, "a" * 64), _Run("r2", 1.1, "b" * 64, commit="b" * 40),
            _Run("r3", 0.4, "c" * 64)]   # back at commit a, whose record said 1.0
    assert history.flagged(runs, _changed) == {("r3", "numpy_gemm/n=1")}
    [(_, earlier, later, ratio)] = history.jumps(runs, code_changed=_changed)
    assert (earlier, later) == ("r1", "r3") and ratio == pytest.approx(0.4)
    steady = [_Run("r1", 1.0, "a" * 64), _Run("r2", 0.4, "b" * 64, commit="b" * 40), _Run("r3", 1.05, "c" * 64)]
    assert history.flagged(steady, _changed) == set()   # r2's new level is changed code; r3 is r1's level again
    assert _expect("jump_back_to_older_code") in inspect.getdoc(history._same_code_hit)


def test_an_integer_beyond_2_53_is_refused():
    from helpers import record
    from study import schema
    for extra in ({"calibration": {"weights_bytes": 10**25}}, {"layers": [{"elements": -10**20}]}):
        rec = record("20261206T000000Z-quick-f6ab9f827cfd")
        rec["extra"].update(extra)
        said = [p for p in schema.record_problems(rec, pending_log=True) if "2^53" in p]
        assert said and said[0].startswith("extra.") and _expect("integer_beyond_2_53") in said[0]
    out = []
    schema._finite({"n": 2**53}, "extra", out)
    assert out == []


def test_a_marked_section_is_refused_before_any_parser():
    from reportgen.publish import pagecontent, sitecheck
    redirect = '<div>\n<![temp[ x> <meta http-equiv="refresh" content="0;url=https://evil.example/"> ]]>\n</div>'
    said = pagecontent.source_problem("docs/x.md", "intro\n\n" + redirect)
    assert said.startswith("docs/x.md:4:") and _expect("marked_section") in said
    assert _expect("marked_section_keyword") in pagecontent.source_problem("docs/x.md", "<div><![foo[ a ]]></div>")
    assert _expect("marked_section") in pagecontent.content_problem("x.md", redirect)
    parsed = sitecheck.Markup()
    parsed.feed("<p><![foo[ a ]]></p>")   # an AssertionError before
    assert parsed.otherwise


def test_the_search_separator_is_the_reviewed_one(tmp_path):
    from reportgen.commands import build
    text = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    line = next(x for x in text.splitlines() if "separator:" in x)
    (tmp_path / "mkdocs.yml").write_text(text.replace(line, "      separator: '(\\S+\\s?)+\\u0001'"), encoding="utf-8")
    with pytest.raises(ReportError) as err:
        build._config_problems(tmp_path)
    assert "separator" in str(err.value) and _expect("search_separator_pinned") in str(err.value)
    build._config_problems(ROOT)


def test_a_stylesheet_is_bounded_and_read_in_linear_time(tmp_path):
    from reportgen.publish import sitecheck
    sheet = tmp_path / "x.css"
    sheet.write_text(".a{}" * 40000, encoding="utf-8")
    said = sitecheck.stylesheet_problems(sheet, rules=True)
    assert said and said[0].startswith(str(sheet)) and _expect("stylesheet_size") in said[0]
    assert "_prelude(css" in inspect.getsource(sitecheck._css_outside_allowed)   # by index, never the whole prefix


def test_a_docs_script_is_one_of_the_project_s():
    from reportgen.publish import pagecontent
    said = pagecontent.docs_file_problem("assets/js/evil.js", b"alert(1)")
    assert said.startswith("docs/assets/js/evil.js:") and _expect("own_script_pinned") in said
    for rel in pagecontent.OWN_SCRIPTS:
        assert pagecontent.docs_file_problem(rel, ROOT / "docs" / rel) is None
    assert _expect("own_script_pinned") in pagecontent.docs_file_problem("assets/js/charts.js", b"alert(1)")


def test_a_block_of_a_docs_page_is_bounded():
    from reportgen.publish import pagecontent
    said = pagecontent.source_problem("docs/x.md", "intro\n\n" + "a\n-\n" * 40000)
    assert said.startswith("docs/x.md:3:") and _expect("block_lines") in said


def test_the_tag_pattern_cannot_backtrack():
    from reportgen.publish import pagecontent
    assert pagecontent._TAG.search("<a" + " " * 32000) is None
    assert [m.group(0) for m in pagecontent._TAG.finditer('<a href="x>y" b=c>t</a>')] == ['<a href="x>y" b=c>', "</a>"]
    assert _expect("tag_scan_linear") in inspect.getsource(pagecontent).split("_TAG = ")[1][:600]
