"""The thirty-fourth round of the hostile corpus (issue #29), site side.

Since round 31 a project stylesheet may use only the properties and values of an allow-list
(sitecheck.CSS_PROPERTIES, _value_problem, _KEYWORDS, _box_problem).  The two refusal lists that came
before it (CSS_TEXT_RULES, _CSS_VALUES) are gone in this round; every rule they refused is shown here
to be refused by the allow-list alone.

Hand-typed figures were read from the docs source only (pagecontent.typed_figures, a pattern over
several guesses of how Jinja renders it).  The build now also reads each page as Jinja renders it,
with every placeholder value that holds a digit left out (pagecontent.typed_in_rendered): the text
the author typed as the reader gets it, whatever Jinja did to put it together.

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
import pytest
from test_hostile_round4 import _expect

from reportgen.publish import sitecheck

MUTATIONS = {}
SPECIAL = {"typed_figure_as_rendered": None}


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
    assert found and repr(figure) in found[0] and _expect("typed_figure_as_rendered") in found[0], found


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
