"""The thirty-second round of the hostile corpus (issue #29), site side, attack only, then fixed:
a "/*" inside a CSS string hid every later rule from the stylesheet check; a figure cut by a small
scrolling box, or shrunk by nested em sizes; hand-typed figures split by a Jinja comment, a dead
branch, a {% set %} name, a number placeholder, in another letter case, right after a Chinese
character, in a range or in a front matter escape; a verdict assembled by {{ '' }} in one step; a
snippet named x.html.py.

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
import jinja2
import pytest
from test_hostile_round4 import _expect

from reportgen.publish import pagecontent, sitecheck

MUTATIONS = {}
SPECIAL = {}


@pytest.mark.parametrize("css", [
    '.x:not([title="/*"]) { color: #000; } .num.cur { display: none; } /* */',
    ".num.cur { overflow-x: auto; max-width: 1.1em; }", ".finding, .finding * { font-size: .7em; }",
    "p { font-size: 80%; }", ".num { height: 1px; }",
])
def test_round_32_stylesheets_are_refused(tmp_path, css):
    (tmp_path / "study.css").write_text(css, encoding="utf-8")
    found = sitecheck.stylesheet_problems(tmp_path / "study.css", rules=True)
    assert found and _expect("css_allowed_properties") in found[0], found


@pytest.mark.parametrize("typed", [
    "0.01{## x ##}ms", "0.02{% if false %}.{% endif %} ms", "{% set u = 'ms' %}0.01 {{ u }}", "{{ 0.03 }} ms",
    "206 Gflops", "0.01 MS", "2.4 ghz", "30 fps", "\u5ef6\u8fdf0.01\u6beb\u79d2", "1-2 ms",
])
def test_round_32_typed_figures_are_found(tmp_path, typed):
    from reportgen.publish import verify
    (tmp_path / "x.md").write_text(f"# x\n\n{typed}\n", encoding="utf-8")
    found = verify.typed_figures(tmp_path)
    assert found and _expect("typed_figure_rendered") in found[0], found


def test_a_figure_in_a_front_matter_escape_is_found(tmp_path):
    from reportgen.publish import verify
    (tmp_path / "x.md").write_text('---\ntitle: "R 0.01\\u0020ms"\n---\n# x\n', encoding="utf-8")
    [line] = verify.typed_figures(tmp_path)
    assert _expect("typed_figure_rendered") in line


@pytest.mark.parametrize("source", ["{{ '' }}", "{{ 'da' 'ta-verdict' }}", "{{ 0.03 }}"])
def test_a_constant_placeholder_is_refused(source):
    node = pagecontent.template_problem(jinja2.Environment(comment_start_string="{##", comment_end_string="##}").parse(
        f'<span class="ver{source}dict">'))
    assert node is not None and "constant" in node.what


@pytest.mark.parametrize("source", ['<span class="ver{## x ##}dict">', 'da{% if x %}{% endif %}ta-num="x"',
                                    'class="num {{ x }}cur"'])
def test_markup_split_by_jinja_is_read_whole(source):
    found = pagecontent.source_problem("docs/x.md", source)
    assert found and _expect("built_only_markup") in found, found


@pytest.mark.parametrize("rel", ["snippets/x.html.py", "assets/css/a.svg.css", "x.html.md"])
def test_a_docs_file_has_one_suffix(rel):
    found = pagecontent.docs_file_problem(rel)
    assert found and _expect("docs_file_kinds") in found
