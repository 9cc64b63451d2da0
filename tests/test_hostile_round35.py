"""The thirty-fifth round of the hostile corpus (issue #29), site side, attack only, then fixed.

Figures and markup made by the page's own Jinja: strings set aside in {% with %} or a block set and
shown unit first; string methods on constants ('{} ms'.format(0.01), '0.01_ms'.replace, a headerlink
class assembled with .format); Jinja's loop counter writing "99.9 GFLOPS"; a digit typed against a
placeholder that carries its own shape ("9" + "1024x1024").  A docs page now holds no such block, no
method but get/startswith/endswith of a placeholder, no loop counter, and a digit in a string only as
what a placeholder is asked for; the second rendering keeps numbers Jinja computed and refuses a
digit glued to a placeholder's figure.  Stylesheets: a line height of 1% or 1px, the root named
through an attribute selector, boxes wider than a page and text that never wraps; mkdocs.yml: a dark
palette under colours checked against a white page.

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
import jinja2.sandbox
import pytest
from test_hostile_round4 import _expect

from reportgen.publish import pagecontent, plugin, sitecheck

MUTATIONS = {}
SPECIAL = {case: None for case in ("jinja_page_text", "digit_glued_to_placeholder", "theme_palette")}


@pytest.mark.parametrize("source", [
    "{% with u = 'ms', d = '0.01' %}{{ d }} {{ u }}{% endwith %}",
    "{% set u %}ms{% endset %}{% set d %}0.01{% endset %}{{ d }} {{ u }}",
    "{{ '0.01_ms'.replace('_', ' ') }}", "{{ '{} ms'.format(0.01) }}",
    "TVM {{ '<a class=\"header{}\" href=\"#h2\">x</a>'.format('link') }}",
    "{% for x in xs %}{% if loop.last %}{{ loop.index }}.{{ loop.index }} GFLOPS{% endif %}{% endfor %}",
    "{% for d in ['0.01'] %}{{ d }} ms{% endfor %}", "{% set d = '0.01' %}{{ d }} ms",
    "{{ g.get('none', '0.01 ms') }}", "{{ g.format('x') }}",
])
def test_text_a_page_makes_with_its_own_jinja_is_refused(source):
    node = pagecontent.template_problem(jinja2.sandbox.ImmutableSandboxedEnvironment().parse(source))
    assert node is not None and _expect("jinja_page_text") in node.what, (source, getattr(node, "what", None))


@pytest.mark.parametrize("source", ["{{ hist('prose_numbers', 's23b_scope_shape', 'value') }}", "{{ g.get('vs_numpy_ci', '') }}",
                                    "{% if isa.startswith('avx512') %}y{% endif %}", "{{ f(x, {'a': ['s20']}) }}",
                                    "{{ x['s31'] }}", "{% for t, a in archive_sections %}{{ '{#' ~ a ~ '}' }}{% endfor %}"])
def test_what_the_docs_ask_of_placeholders_passes(source):
    assert pagecontent.template_problem(jinja2.sandbox.ImmutableSandboxedEnvironment().parse(source)) is None


@pytest.mark.parametrize("source, names", [
    ("was 9{{ shape }} here", {"shape": "1024\u00d71024"}), ("{{ share }}5 of the peak", {"share": "91.1%"}),
])
def test_a_digit_glued_to_a_placeholders_figure_is_found(source, names):
    env = jinja2.sandbox.ImmutableSandboxedEnvironment(finalize=plugin._digit_free)
    found = pagecontent.typed_in_rendered("docs/x.md", env.from_string(source).render(**names))
    assert found and _expect("digit_glued_to_placeholder") in found[0], found


def test_a_number_jinja_computed_is_read_as_typed():
    env = jinja2.sandbox.ImmutableSandboxedEnvironment(finalize=plugin._digit_free)
    text = env.from_string("{{ n }}.{{ n }} GFLOPS and {{ fig }} ms").render(n=9, fig="<b>0.5</b>")
    assert pagecontent.typed_in_rendered("docs/x.md", text) and "ms" not in " ".join(
        pagecontent.typed_in_rendered("docs/x.md", text))


@pytest.mark.parametrize("css", [".md-typeset .finding p { line-height: 1%; }", ".x { line-height: 1px; }",
                                 "html[lang~=zh] { font-size: 9px; }", ".md-typeset .finding p { width: 5000px; }",
                                 ".x { width: 200%; }", ".x li { white-space: nowrap; }", ".x p { width: max-content; }"])
def test_round_35_stylesheets_are_refused(tmp_path, css):
    sheet = tmp_path / "study.css"
    sheet.write_text(css + "\n", encoding="utf-8")
    found = sitecheck.stylesheet_problems(sheet, rules=True)
    assert found and _expect("css_allowed_properties") in found[0], (css, found)


def test_a_palette_other_than_the_light_one_is_refused(project):
    from reportgen.commands import build
    from reportgen.errors import ReportError
    config = project / "mkdocs.yml"
    config.write_text(config.read_text(encoding="utf-8").replace("    scheme: default", "    scheme: slate"), encoding="utf-8")
    with pytest.raises(ReportError) as err:
        build.build(project, project / "site")
    assert "mkdocs.yml" in str(err.value) and _expect("theme_palette") in str(err.value)
