"""The thirty-seventh round of the hostile corpus (issue #29), site side, attack only, then fixed: a
build-only class given as {: class="csv" } (the attr_list form the source check did not read) or held
in a Jinja name ({% set kind = "csv" %}<p class="{{ kind }}">, shown on screen, cut from the PDF); a
table squeezed to a smear by its width; a caveat shrunk by fourteen nested <sub>; the PDF rewriting
href="#x" typed as code; a colour for '.md-typeset div', which reached the theme's footer.

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
import pytest
from test_hostile_round4 import _expect

from reportgen.publish import pagecontent, sitecheck

MUTATIONS = {}
SPECIAL = {"built_only_as_rendered": None, "nested_small_type": None}


@pytest.mark.parametrize("source", ["para\n{: class=\"csv\" }", "[x](#y){: class=headerlink }", "x\n{: #a class='verdict' }"])
def test_a_build_only_class_in_attr_list_form_is_refused(source):
    found = pagecontent.source_problem("docs/x.md", source)
    assert found and _expect("built_only_markup") in found, found


def test_a_build_only_class_held_in_a_jinja_name_is_refused(project):
    from reportgen.commands import build
    from reportgen.errors import ReportError
    page = project / "docs" / "roadmap.md"
    page.write_text(page.read_text(encoding="utf-8") + '\n{% set kind = "csv" %}<p class="{{ kind }}">\u53ea\u5728\u5c4f\u5e55\u4e0a</p>\n',
                    encoding="utf-8")
    with pytest.raises(ReportError) as err:
        build.build(project, project / "site")
    assert "docs/roadmap.md (as rendered)" in str(err.value) and _expect("built_only_as_rendered") in str(err.value)


def test_nested_small_type_is_refused():
    found = pagecontent.content_problem("docs/x.md", "<p>" + "<sub>" * 14 + "caveat" + "</sub>" * 14 + "</p>")
    assert found and _expect("nested_small_type") in found
    assert pagecontent.content_problem("docs/x.md", "<p>H<sub>2</sub>O and x<sup>2</sup></p>") is None


@pytest.mark.parametrize("css", [".md-typeset table:not([class]) { table-layout: fixed; }",
                                 ".md-typeset table:not([class]) { width: 10%; }", ".md-typeset div { color: #000000; }"])
def test_round_37_stylesheets_are_refused(tmp_path, css):
    sheet = tmp_path / "study.css"
    sheet.write_text(css + "\n", encoding="utf-8")
    found = sitecheck.stylesheet_problems(sheet, rules=True)
    assert found and _expect("css_allowed_properties") in found[0], (css, found)


def test_the_pdf_rewrites_links_in_tags_only():
    from reportgen.commands import pdf
    out = pdf._rewrite('<p id="x">see <code>href="#groups"</code> <a href="#y">y</a></p>', "method", set())
    assert '<code>href="#groups"</code>' in out and 'href="#method--y"' in out and 'id="method--x"' in out
