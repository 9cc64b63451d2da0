"""The thirty-first round of the hostile corpus (issue #29): the page side's refusals become an
allow-list.  A page's content (the HTML Markdown makes of a docs page, or of a generated page) holds
only the elements, attributes and classes the build writes (reportgen/publish/pagecontent.py); docs/
holds only the kinds of file the project keeps there; a project stylesheet hides only the page's
furniture.  Round 30's SVG presentation attributes, and rounds 27 to 29's theme classes and print
rules, are each a case of these.

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
import pytest
from test_hostile_round4 import _expect

from reportgen.publish import pagecontent, sitecheck

MUTATIONS = {}
SPECIAL = {"content_allow_list": None, "docs_file_kinds": None, "typed_figure_rendered": None}


@pytest.mark.parametrize("planted", [
    '<svg><text><tspan x="40">exe.</tspan><tspan x="0">gol</tspan></text></svg>',   # round 30: placed glyphs
    '<svg><text opacity="0">0.01 ms</text></svg>', '<svg><text fill="none">0.01 ms</text></svg>',
    '<span class="md-toggle">0.01 ms</span>', '<div class="md-sidebar">x</div>',    # the theme's hiding classes
    '<span class="num" style="order:2">x</span>', "<bdo dir=rtl>gol.exe</bdo>", "<dialog>x</dialog>",
    "<iframe src=x></iframe>", "<object data=x></object>", "<form action=x><button>go</button></form>",
    '<p align="right">x</p>', '<span aria-hidden="true">x</span>', '<div role="presentation">x</div>',
    '<a href="javascript:alert(1)">x</a>', '<a href="//evil.example/x">x</a>', '<a href="data:text/html,x">x</a>',
    '<img src="https://evil.example/x.png" alt="x">', '<img src="assets/charts/x.svg" alt="x" width="0">',
    '<script type="module" id="spec-x">x</script>', '<span id="__config">x</span>', '<div data-chart="a b">x</div>',
    '<a class="headerlink" href="#x">0.01 ms</a>', '<span class="headerlink">x</span>',
    '<p class="csv"><a href="x.csv" download>p50 0.01 ms</a></p>', "<math><mi>x</mi></math>", "<template>x</template>",
])
def test_page_content_outside_the_allow_list_is_refused(planted):
    found = pagecontent.content_problem("docs/x.md", f"<p>before</p>{planted}<p>after</p>")
    assert found and found.startswith(("docs/x.md: <", "docs/x.md: text")), found
    assert _expect("content_allow_list") in found, found


@pytest.mark.parametrize("written", [
    '<h2 id="s31">x<a class="headerlink" href="#s31" title="Permanent link">&para;</a></h2>',
    '<div class="admonition note"><p class="admonition-title">x</p><p>y</p></div>',
    '<details class="abstract" open><summary>x</summary><p>y</p></details>',
    '<div class="highlight"><pre><span></span><code><span class="kn">import</span> <span class="nn">tvm</span>'
    '</code></pre></div>', '<pre class="verbatim"><code>x</code></pre>',
    '<table><thead><tr><th>a</th></tr></thead><tbody><tr><td><a class="num cur" href="provenance/x.html#k" '
    'title="t" data-num="gemm/m=1#2">1.0</a></td></tr></tbody></table>',
    '<div class="vchart" id="chart-x" data-chart="history"><img class="vchart-fallback" '
    'src="../assets/charts/history.svg" alt="x"></div><script type="application/json" id="spec-history">{}</script>',
    '<p class="csv"><a href="csv/x.csv" download>CSV</a></p>', '<a href="https://tvm.apache.org/docs/">x</a>',
    '<span class="verdict" data-conclusion="fusion" data-verdict="holds">x</span>',
])
def test_what_the_build_writes_passes(written):
    assert pagecontent.content_problem("docs/x.md", written) is None


def test_a_docs_page_with_an_svg_stops_the_build(project):
    from reportgen.commands import build
    from reportgen.errors import ReportError
    page = project / "docs" / "method.md"
    page.write_text(page.read_text(encoding="utf-8") + '\n<svg><text opacity="0">x</text></svg>\n', encoding="utf-8")
    with pytest.raises(ReportError) as err:
        build.build(project, project / "site")
    assert "docs/method.md: <svg>" in str(err.value) and _expect("content_allow_list") in str(err.value)


@pytest.mark.parametrize("rel", ["x.svg", "assets/x.html", "img/a.png", "assets/css/x.svg", "assets/js/x.mjs",
                                 "a.markdown", "assets/vendor/x.html", "snippets/x.sh"])
def test_docs_holds_only_its_kinds_of_file(rel):
    found = pagecontent.docs_file_problem(rel)
    assert found and found.startswith(f"docs/{rel}:") and _expect("docs_file_kinds") in found, found


@pytest.mark.parametrize("rel", ["index.md", "provenance/x.md", "assets/css/study.css", "assets/js/charts.js",
                                 "assets/vendor/vega.min.js", "assets/vendor/LICENSE.vega", "snippets/s03_debug.py",
                                 "words/plugin.yaml"])
def test_the_kinds_docs_holds_pass(rel):
    assert pagecontent.docs_file_problem(rel) is None


@pytest.mark.parametrize("css", [".num { display: none; }", ".md-typeset .vchart-fallback { display:none }",
                                 ".headerlink, .num { display: none; }", "@media print { td { display: none; } }",
                                 ".x /* .headerlink */ { display: none; }"])
def test_a_project_stylesheet_hides_only_furniture(tmp_path, css):
    (tmp_path / "print.css").write_text(css, encoding="utf-8")
    found = sitecheck.stylesheet_problems(tmp_path / "print.css", rules=True)
    assert found and _expect("css_allowed_properties") in found[0], found


def test_the_projects_own_stylesheets_pass():
    from conftest import ROOT
    for name in ("study.css", "print.css"):
        assert sitecheck.stylesheet_problems(ROOT / "docs" / "assets" / "css" / name, rules=True) == []


@pytest.mark.parametrize("typed", ["**0.01** ms", "[0.01](#x) ms", "[0.01][r] ms", '<img alt="0.01 ms" src="x">',
                                   '{{ "0.01 ms" }}', "{% set x = '0.01 ms' %}", "0.01 \u5fae\u79d2", "3 \u7eb3\u79d2",
                                   "__0.01__ ms", "~~0.01~~ ms"])
def test_a_figure_typed_in_a_rendered_form_is_found(tmp_path, typed):
    """Rounds 27 to 29: emphasis, a link, an alt text, a placeholder's string literal or the Chinese
    for micro- and nanoseconds hid a hand-typed figure from the docs check, not from the reader."""
    from reportgen.publish import verify
    (tmp_path / "x.md").write_text(f"# x\n\n{typed}\n", encoding="utf-8")
    [line] = verify.typed_figures(tmp_path)
    assert line.startswith(f"{tmp_path / 'x.md'}:3:") and _expect("typed_figure_rendered") in line
