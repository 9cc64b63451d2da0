"""The thirty-fourth round of the hostile corpus (issue #29), site side.

Since round 31 a project stylesheet may use only the properties and values of an allow-list
(sitecheck.CSS_PROPERTIES, _value_problem, _KEYWORDS, _box_problem).  The two refusal lists that came
before it (CSS_TEXT_RULES, _CSS_VALUES) are gone in this round; every rule they refused is shown here
to be refused by the allow-list alone.

Hand-typed figures were read from the docs source only (pagecontent.typed_figures, a pattern over
several guesses of how Jinja renders it).  The build now also reads each page as Jinja renders it,
with every placeholder value that holds a digit left out (pagecontent.typed_in_rendered): the text
the author typed as the reader gets it, whatever Jinja did to put it together.

Round 34's site set (attack only, 15 probes, 8 failed) then found: a CSS escape that opens no comment
in a browser; figures in mkdocs.yml's titles, with their unit before them or in their table's header,
and in code; colours given to the theme's header and footer; indent('c') writing markup after each
line break; numbers typed into a page's Jinja; a type size for the root element.  Each is refused now.

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
import pytest
from test_hostile_round4 import _expect

from reportgen.publish import sitecheck

MUTATIONS = {}
SPECIAL = {case: None for case in ("typed_figure_as_rendered", "css_escaped_comment", "jinja_filter_arguments",
                                   "jinja_number_literal", "typed_figure_placement", "typed_figure_in_title")}


@pytest.mark.parametrize("css", [
    "p{font-size:3px}", "p{font-size:.3em}", "p{font-size:0}", "p{font-size:30%}", "p{font-size:0.0px}",
    "p{font-size:0px !important}", "p{margin:0 -1em}", "p{margin-left:-2px}", "p{margin:-0.5em}", "p{padding:-1px}",
    "p{display:contents}", "p{display:flex}", "p{display:inline-grid}", "p{display:ruby}",
    "p{color:transparent}", "p{color:rgba(0,0,0,0)}", "p{color:#0000}", "p{color:#00000000}",
    "p{unicode-bidi:bidi-override}", "p{direction:rtl}", "p{order:2}", "p{float:right}",
    "p{flex-direction:row-reverse}", "p{grid-row:2}", "p{grid-template-areas:none}", "p{quotes:none}",
    "@counter-style x{system:cyclic}", "p{visibility:hidden}", "p::after{content:'1'}",
    "p::after{content:attr(x)}", "p{text-indent:-9em}", "@media print{p{direction:rtl}}",
])
def test_what_the_old_refusal_lists_caught_the_allow_list_refuses(tmp_path, css):
    sheet = tmp_path / "study.css"
    sheet.write_text(css + "\n", encoding="utf-8")
    found = sitecheck.stylesheet_problems(sheet, rules=True)
    assert len(found) == 1 and str(sheet) in found[0] and "CSS_PROPERTIES" in found[0], (css, found)



@pytest.mark.parametrize("source, names, figure", [
    ("0.01 {{ unit }} per call", {"unit": "ms"}, "0.01 ms"),   # the unit from a placeholder
    ("was 1{{ fig }} ms", {"fig": '<span class="num">0.5</span>'}, "1 ms"),   # a digit typed against a figure
    ("0.0\n{%- if fig %}{%- endif -%}\n1 ms", {"fig": "x"}, "0.01 ms"),   # whitespace control joins lines
    ("{% for _ in items %}9{% endfor %}.5 ms", {"items": [1, 2]}, "99.5 ms"),
])
def test_a_figure_typed_into_the_page_as_rendered_is_found(source, names, figure):
    """Since round 34 the build renders every docs page a second time with each placeholder value that
    holds a digit left out, and reads what is left for typed figures: the page's own text as the reader
    gets it (loops run, conditions decided, whitespace control applied, units of placeholders kept)."""
    import jinja2.sandbox
    from reportgen.publish import pagecontent, plugin
    env = jinja2.sandbox.ImmutableSandboxedEnvironment(finalize=plugin._digit_free)
    found = pagecontent.typed_in_rendered("docs/x.md", env.from_string(source).render(**names))
    assert any(repr(figure) in p and _expect("typed_figure_as_rendered") in p for p in found), found


@pytest.mark.parametrize("source, names", [
    ("{{ fig }} ms per call", {"fig": '<span class="num">0.5</span>'}), ("GEMM {{ n }}", {"n": 4096}),
])
def test_a_placeholder_figure_with_a_typed_unit_passes(source, names):
    import jinja2.sandbox
    from reportgen.publish import pagecontent, plugin
    env = jinja2.sandbox.ImmutableSandboxedEnvironment(finalize=plugin._digit_free)
    assert pagecontent.typed_in_rendered("docs/x.md", env.from_string(source).render(**names)) == []


def test_the_build_refuses_a_figure_typed_into_the_page_as_rendered(project):
    from reportgen.commands import build
    from reportgen.errors import ReportError
    page = project / "docs" / "index.md"
    page.write_text(page.read_text(encoding="utf-8") + "\n\u5ef6\u8fdf 0.0\n{%- if runs %}{%- endif -%}\n1 ms\n",
                    encoding="utf-8")
    with pytest.raises(ReportError) as err:
        build.build(project, project / "site")
    assert "docs/index.md" in str(err.value) and "'0.01 ms'" in str(err.value), str(err.value)
    assert _expect("typed_figure_as_rendered") in str(err.value)


# -- round 34's site set (attack only, 15 probes, 8 failed), each now refused ---------------------

def _sheet(tmp_path, css):
    sheet = tmp_path / "study.css"
    sheet.write_text(css + "\n", encoding="utf-8")
    return sitecheck.stylesheet_problems(sheet, rules=True)


def test_a_css_escape_that_opens_no_comment_is_refused(tmp_path):
    """F1: the check dropped /* ... */ before it decoded escapes; a browser opens no comment at \\/*, so
    every rule up to the next */ was applied and never read (every current figure hidden)."""
    found = _sheet(tmp_path, ".x\\/*{}\n.num.cur{display:none}\n.y*/{}")
    assert len(found) == 1 and _expect("css_escaped_comment") in found[0], found


@pytest.mark.parametrize("css", [".md-footer-meta, .md-footer { background: #ffffff; }", ".md-header { color: #3f51b5; }",
                                 "a { color: #000000; }", "body { color: #000000; }", ".no-js .md-typeset { color: #000000; }",
                                 ".md-typeset .md-nav { color: #000000; }"])
def test_a_colour_for_the_themes_header_footer_or_navigation_is_refused(tmp_path, css):
    """F4: text colours dark and backgrounds light suit the white page, not the theme's indigo header
    or dark footer (the footer names the commit and the machine a page was built from)."""
    found = _sheet(tmp_path, css)
    assert found and _expect("css_allowed_properties") in found[0], (css, found)


@pytest.mark.parametrize("css", ["html { font-size: 9px; }", ":root { font-size: 9px; }", "[lang] { font-size: 9px; }",
                                 "* { font-size: 9px; }", ":is(html) { font-size: 9px; }", ".no-js { font-size: 9px; }",
                                 "@media print { html { font-size: 9px; } }"])
def test_a_type_size_for_what_may_be_the_root_element_is_refused(tmp_path, css):
    """F8: html{font-size:9px} made every .5rem figure 4.5 px, each value within its own floor."""
    found = _sheet(tmp_path, css)
    assert found and _expect("css_allowed_properties") in found[0], (css, found)


@pytest.mark.parametrize("css", [".md-typeset .num.cur { font-size: .5rem; }", "body { background: #ffffff; }",
                                 ".ok { color: #2e7d32; }", ".print-toc ol { font-size: .72rem; }"])
def test_colours_and_sizes_of_the_content_pass(tmp_path, css):
    assert _sheet(tmp_path, css) == []


@pytest.mark.parametrize("source, what", [
    ("{{ '<p class=\\nsv>x</p>' | indent('c') }}", "jinja_filter_arguments"),   # F5: indent's text after each break
    ("{{ xs | indent('4') }}", "jinja_filter_arguments"), ("{{ xs | join('<p class=csv>') }}", "jinja_filter_arguments"),
    ("{{ xs | indent(4, true) }}", "jinja_filter_arguments"),
    ("{% set best = 0.013 %}{{ best }} ms", "jinja_number_literal"),   # F6
    ("{% macro gf(v) %}{{ v }} GFLOPS{% endmacro %}{{ gf(1840) }}", "jinja_number_literal"),
    ("{{ x or 0.013 }} ms", "jinja_number_literal"), ("{{ 12.5 | indent }}", "jinja_number_literal"),
])
def test_a_page_assembling_text_through_filters_or_its_own_numbers_is_refused(source, what):
    import jinja2.sandbox
    from reportgen.publish import pagecontent
    node = pagecontent.template_problem(jinja2.sandbox.ImmutableSandboxedEnvironment().parse(source))
    assert node is not None and _expect(what) in node.what, (source, getattr(node, "what", None))


@pytest.mark.parametrize("source", ["{{ xs | indent(4) }}", "{{ f(1) | indent(4) }}", "{{ xs | join('\u3001\u00a7') }}",
                                    "{% if n > 2 %}y{% endif %}", "{% set f = finding() if measured('e2e') else None %}"])
def test_the_jinja_the_docs_use_passes(source):
    import jinja2.sandbox
    from reportgen.publish import pagecontent
    assert pagecontent.template_problem(jinja2.sandbox.ImmutableSandboxedEnvironment().parse(source)) is None


@pytest.mark.parametrize("text, figure", [
    ("| \u914d\u7f6e | \u5355\u6838\u6700\u4f73\uff08GFLOPS\uff09 |\n|---|---|\n| \u590d\u6d4b | 206.4 |\n", "206.4"),   # F3
    ("\u5cf0\u503c\uff08GFLOPS\uff09\uff1a1840", "1840"), ("\u5ef6\u8fdf\uff08\u6beb\u79d2\uff09\u4e3a 0.01", "0.01"),
    ("\u52a0\u901f\u6bd4\uff08\u500d\uff09\u8fbe\u5230 12.5", "12.5"),
    ("```text title=\"log\"\ngemm: p50 0.013 ms, 1840.2 GFLOPS (12.5x)\n```\n", "0.013 ms"),   # F7
    ("`\u5355\u6838 FP32\uff1a1840.2 GFLOPS`", "1840.2 GFLOPS"),
])
def test_a_figure_with_its_unit_before_it_in_its_header_or_in_code_is_found(tmp_path, text, figure):
    from reportgen.publish import pagecontent
    (tmp_path / "x.md").write_text("# x\n\n" + text, encoding="utf-8")
    found = pagecontent.typed_figures(tmp_path)
    assert any(figure in p and _expect("typed_figure_placement") in p for p in found), found


def test_code_that_names_a_vector_type_is_no_figure(tmp_path):
    from reportgen.publish import pagecontent
    (tmp_path / "x.md").write_text("---\nnumbers: [2 threads]\n---\n# x\n\n`<16 x i32>` and `<64 x i8>`; GFLOPS, 2 threads\n",
                                   encoding="utf-8")   # a number of the page's own is declared (digitforms)
    assert pagecontent.typed_figures(tmp_path) == []


def test_a_figure_in_a_title_of_mkdocs_yml_is_refused(project):
    """F2: site_name and nav titles are shown on every page, and were read only for markup."""
    from reportgen.commands import build
    from reportgen.errors import ReportError
    config = project / "mkdocs.yml"
    config.write_text(config.read_text(encoding="utf-8").replace("  - \u6982\u89c8: index.md",
                                                                 "  - \u6982\u89c8\uff08\u5355\u6838 206 GFLOPS\uff09: index.md"),
                      encoding="utf-8")
    with pytest.raises(ReportError) as err:
        build.build(project, project / "site")
    assert "mkdocs.yml" in str(err.value) and "'206 GFLOPS'" in str(err.value) and _expect("typed_figure_in_title") in str(err.value)
