"""The thirty-sixth round of the hostile corpus (issue #29), site side, attack only, then fixed: a
table without outer pipes under a header naming its unit; text after '<' read as a tag ('<0.01 ms =>');
an unquoted tooltip (title=0.01ms); a quoted '>' ending the tag early; header units the list did not
know (GHz, GiB, minutes); a figure in mkdocs.yml's extra (a language menu's name on every page); a
white background for .md-typeset, which the theme also puts on its footer.

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
import pytest
from test_hostile_round4 import _expect

from reportgen.publish import pagecontent, sitecheck

MUTATIONS = {}
SPECIAL = {"typed_figure_markup_edges": None}


@pytest.mark.parametrize("text, figure", [
    ("\u5ef6\u8fdf ms | \u540d\u79f0\n--- | ---\n0.01 | a\n", "0.01"),
    ("\u4f18\u5316\u540e\u5ef6\u8fdf <0.01 ms => \u6ee1\u8db3\u8981\u6c42\u3002", "0.01 ms"),
    ("<span title=0.01ms>\u60ac\u505c</span>", "0.01ms"),
    ("\u5ef6\u8fdf 0.02<span title=\">\"> ms</span>\u3002", "0.02 ms"),
    ("| \u9891\u7387 (GHz) | \u663e\u5b58 (GiB) | \u8017\u65f6\uff08\u5206\u949f\uff09 |\n|---|---|---|\n| 3.5 | 16 | 45 |\n", "45"),
])
def test_round_36_typed_figures_are_found(tmp_path, text, figure):
    (tmp_path / "x.md").write_text("# x\n\n" + text, encoding="utf-8")
    found = pagecontent.typed_figures(tmp_path)
    assert any(figure in p and _expect("typed_figure_markup_edges") in p for p in found), found


@pytest.mark.parametrize("css", [".md-typeset { background-color: #ffffff; }", ".md-typeset { color: #000000; }",
                                 "@media print { .md-typeset { background: #ffffff; } }"])
def test_a_colour_for_md_typeset_itself_is_refused(tmp_path, css):
    sheet = tmp_path / "study.css"
    sheet.write_text(css + "\n", encoding="utf-8")
    found = sitecheck.stylesheet_problems(sheet, rules=True)
    assert found and _expect("css_allowed_properties") in found[0], (css, found)


def test_a_figure_in_mkdocs_yml_extra_is_refused(project):
    from reportgen.commands import build
    from reportgen.errors import ReportError
    config = project / "mkdocs.yml"
    text = config.read_text(encoding="utf-8")
    assert "\nsite_description: " in text   # (extra.alternate, where round 36 found it, is refused whole since round 64)
    config.write_text(text.replace("\nsite_description: ", "\nsite_description: \u5ef6\u8fdf 0.01 ms ", 1),
                      encoding="utf-8")
    with pytest.raises(ReportError) as err:
        build.build(project, project / "site")
    assert "mkdocs.yml" in str(err.value) and "'0.01 ms'" in str(err.value) and _expect("typed_figure_in_title") in str(err.value)
