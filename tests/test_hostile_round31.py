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
SPECIAL = {"content_allow_list": None, "docs_file_kinds": None, "typed_figure_rendered": None, "built_only_markup": None}


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
                                 "a.markdown", "assets/vendor/x.html", "snippets/x.sh", "assets/vendor/LICENSE.html"])
def test_docs_holds_only_its_kinds_of_file(rel):
    found = pagecontent.docs_file_problem(rel, b"<html>x</html>")
    assert found and found.startswith(f"docs/{rel}:") and _expect("docs_file_kinds") in found, found


@pytest.mark.parametrize("rel", ["index.md", "provenance/x.md", "assets/css/study.css", "assets/js/charts.js",
                                 "assets/vendor/vega.min.js", "assets/vendor/LICENSE.vega", "snippets/s03_debug.py",
                                 "words/plugin.yaml"])
def test_the_kinds_docs_holds_pass(rel):
    from conftest import ROOT
    data = (ROOT / "docs" / rel).read_bytes() if rel.startswith(("assets/vendor/", "assets/js/")) else None
    assert pagecontent.docs_file_problem(rel, data) is None


def test_a_vendored_script_changed_by_one_byte_is_refused():
    """Round 31 (attack) F8: a line added to a vendored script rewrote every figure in the browser."""
    from conftest import ROOT
    data = (ROOT / "docs" / "assets" / "vendor" / "vega.min.js").read_bytes() + b";document.title='x'"
    found = pagecontent.docs_file_problem("assets/vendor/vega.min.js", data)
    assert found and "VENDORED" in found and _expect("docs_file_kinds") in found


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


@pytest.mark.parametrize("css", [
    ".num.cur { display: inline-block; max-width: 1.2em; overflow: hidden; white-space: nowrap; }",
    ".num.hist { display: table-column; }", ".ok { color: #fff; }", ".x { color: #eeeeee; }",
    ".md-typeset table:not([class]) tbody tr:last-child { display: table-header-group; }",
    "p { line-height: 0; }", "p { vertical-align: 9999px; }", "p { margin-left: -.5e9em; }", "p { margin: -.4em 0; }",
    "p { padding-left: 10em; }", "p { border-left: 9999px solid #fff; }", ".num.cur { text-decoration: line-through; }",
    "p { font-size: .6em; }", "p { background: #000; }",
])
def test_round_31_stylesheet_values_that_hide_or_move_figures_are_refused(tmp_path, css):
    """Round 31 (attack) F1: allowed properties with values that cut "206" to "20", emptied a column,
    drew text white on white, moved a row or struck every current figure out."""
    (tmp_path / "study.css").write_text(css, encoding="utf-8")
    found = sitecheck.stylesheet_problems(tmp_path / "study.css", rules=True)
    assert found and _expect("css_allowed_properties") in found[0], found


def test_an_image_shows_only_a_chart_the_build_draws():
    """Round 31 (attack) F3: a missing chart's alt text showed as the page's text."""
    html = '<img class="vchart-fallback" src="assets/charts/gemm-peak-now.svg" alt="206000 GFLOPS">'
    found = pagecontent.content_problem("docs/x.md", html, {"history"})
    assert found and _expect("content_allow_list") in found
    assert pagecontent.content_problem("docs/x.md", html.replace("gemm-peak-now", "history"), {"history"}) is None


@pytest.mark.parametrize("source", [
    '<span class="verdict" data-conclusion="int8_needs_tuning" data-verdict="supports">x</span>',   # F5
    '<a class="headerlink" href="#v">not</a> holds',                                                  # F9
    '<a class="num cur" href="provenance/x.html#y">206</a>',                                          # F11
    '## note {: data-toc-label="p50 0.01" }', "## note {: .num }", "<p class='csv'>x</p>",            # F6
    '{{ "<span data-num=x>" }}', '<div data-chart="history"></div>', '<script type="application/json" id="spec-x">',
])
def test_markup_only_the_build_writes_is_refused_in_a_docs_pages_own_text(source):
    """Round 31 (attack) F5, F6, F9, F11: a docs page wrote a verdict, a figure, a permalink hiding a
    word, or a table-of-contents label by hand; the content allow-list permits them because the build
    writes them, through placeholders."""
    found = pagecontent.source_problem("docs/x.md", f"# x\n\n{source}\n")
    assert found and found.startswith("docs/x.md:") and _expect("built_only_markup") in found, found


@pytest.mark.parametrize("source", ['<span class="num hist legend">x</span>', '<div class="finding" id="finding" markdown>',
                                    "{{ figure('x') }}", "see the data folder", '<p class="admonition-title">x</p>',
                                    "a data-driven, spec-compliant page"])
def test_a_docs_pages_own_markup_passes(source):
    assert pagecontent.source_problem("docs/x.md", source) is None


@pytest.mark.parametrize("source", ['{{ "da" ~ "ta-num" }}', "{{ x|format(1) }}", '{{ ["a", "b"]|join }}', "{{ x[0] }}",
                                    "{{ x[1:3] }}", "{{ x|replace('a', 'b') }}"])
def test_a_docs_page_does_not_assemble_text_out_of_pieces(source):
    import jinja2
    node = pagecontent.template_problem(jinja2.Environment().parse(source))
    assert node is not None and node.what


@pytest.mark.parametrize("source", ['{{ link("provenance/" ~ family ~ ".md", family) }}', "{{ x.y|indent(2) }}",
                                    '{{ facts | join("、") }}', '{{ d["key"] }}'])
def test_the_docs_pages_own_templates_pass(source):
    import jinja2
    assert pagecontent.template_problem(jinja2.Environment().parse(source)) is None


@pytest.mark.parametrize("typed", ["3 \u5206\u949f", "5 GB/s", "800 TOPS", "99999 img/s", "10<sup>-3</sup> ms",
                                   '```text title="p50 0.01 ms"\nx\n```'])
def test_round_31_typed_figures_are_found(tmp_path, typed):
    """Round 31 (attack) F7, F10: other units, a power of ten, and a code block's caption."""
    from reportgen.publish import verify
    (tmp_path / "x.md").write_text(f"# x\n\n{typed}\n", encoding="utf-8")
    [line] = verify.typed_figures(tmp_path)
    assert _expect("typed_figure_rendered") in line
