"""The twenty-eighth round of the hostile corpus (issue #29), attack only, then fixed: stylesheets
that replaced a figure with generated text or reordered words by grid, a stylesheet named u.CSS, the
hidden attribute, bidi characters in documents other than pages, hand-typed figures in more
spellings, and print.html joining a cut headerlink's neighbours into markup (an entity, a redirect)
or printing a page swapped for a link.

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
import os

import pytest
from conftest import ROOT
from test_hostile_round4 import _expect

from reportgen.errors import ReportError

MUTATIONS = {}


GENERATED = ['p::after { content: attr(title); }', 'q { quotes: "0.01 ms" ""; }', '.num::after { content: "" "0.01 ms"; }',
             '.num::after { content: var(--x); }', '.row span:first-child { grid-column: 2; }', '.num { visibility: hidden; }']


@pytest.mark.parametrize("css", GENERATED + ["u.CSS"])
def test_a_stylesheet_replaces_or_reorders_no_text(tmp_path, css):
    """u.CSS: a stylesheet named with an upper-case suffix skipped the rules."""
    from reportgen.publish import verify
    (tmp_path / "x").mkdir()
    name, css = ("u.CSS", "p { unicode-bidi: bidi-override; }") if css == "u.CSS" else ("study.css", css)
    (tmp_path / "x" / name).write_text(css, encoding="utf-8")
    found = verify._stylesheet_problems(ROOT, tmp_path)
    assert found and _expect("css_text_rules") in found[0], found


def test_the_projects_own_stylesheets_pass():
    from reportgen.publish import sitecheck
    for path in (ROOT / "docs" / "assets" / "css").glob("*.css"):
        assert sitecheck.stylesheet_problems(path, rules=True) == [], path


@pytest.mark.parametrize("planted", ["<span hidden>not</span>", '<p hidden="">x</p>'])
def test_the_hidden_attribute_is_refused(tmp_path, planted):
    from reportgen.publish import verify
    from test_hostile_round24 import _config
    (tmp_path / "index.html").write_text(f"<html><body>{planted}{_config()}</body></html>", encoding="utf-8")
    found = verify.script_problems(ROOT, tmp_path)
    assert any(_expect("style_attribute") in line for line in found), found


@pytest.mark.parametrize("name, text", [("a.svg", "<svg><text>gol\u202e.exe</text></svg>"),
                                        ("assets/x.html", "<p>gol&#x202E;.exe</p>"), ("b.htm", "<p>a\u200bb</p>")])
def test_a_document_other_than_a_page_shows_no_bidi_character(tmp_path, name, text):
    from reportgen.publish import sitecheck
    (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / name).write_text(text, encoding="utf-8")
    found = sitecheck.other_markup_problems(tmp_path, lambda rel: False)
    assert found and any(_expect("document_bidi") in line for line in found), found


@pytest.mark.parametrize("typed", ["0\\.01 ms", "0.0<b></b>1 ms", "0.01\nms", ".01 ms", "1e-2 ms", "5 us", "5 \u00b5s",
                                   "2 ns", "2.5x", "3 TFLOPS", "3 GFLOP/s"])
def test_a_hand_typed_figure_in_other_spellings_is_found(tmp_path, typed):
    from reportgen.publish import verify
    (tmp_path / "a.md").write_text(f"# a\n\nTVM takes {typed} here.\n", encoding="utf-8")
    found = verify.typed_figures(tmp_path)
    assert len(found) == 1 and found[0].startswith(f"{tmp_path / 'a.md'}:3:"), found
    assert _expect("typed_figure_spelled") in found[0]


def _site(tmp_path, article):
    from reportgen.publish import plugin
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text(f'<html><head>{plugin.CSP_META}</head><body><article class="md-content__inner '
                                     f'md-typeset">{article}</article></body></html>', encoding="utf-8")
    return site


@pytest.mark.parametrize("article", ['<p>&<a class="headerlink" href="#x">x</a>#x202E;gol.exe</p>',
                                     '<p><<a class="headerlink" href="#x">x</a>meta http-equiv="refresh" '
                                     'content="0;url=x/n.htm"></p>'])
def test_a_cut_headerlink_joins_no_markup(tmp_path, article):
    from reportgen.commands import pdf
    page = pdf.print_page(ROOT, _site(tmp_path, article), [("T", "index.md")], "S").decode("utf-8")
    assert "\u202e" not in __import__("html").unescape(page) and '<meta http-equiv="refresh"' not in page, \
        _expect("print_cut_joins_nothing")


@pytest.mark.parametrize("article", ['<meta http-equiv="refresh" content="0;url=x/n.htm">', "<p>gol&#x202E;.exe</p>"])
def test_the_print_page_is_checked_for_redirects_and_bidi(tmp_path, article):
    from reportgen.commands import pdf
    with pytest.raises(ReportError) as err:
        pdf.print_page(ROOT, _site(tmp_path, article), [("T", "index.md")], "S")
    assert all(line.startswith(str(tmp_path / "site" / "print.html")) for line in err.value.problems)


def test_pdf_prints_no_page_swapped_for_a_link(tmp_path):
    from reportgen.commands import pdf
    site = _site(tmp_path, "<p>ours</p>")
    (tmp_path / "outside.html").write_text('<article class="md-content__inner md-typeset">SECRET</article>')
    os.unlink(site / "index.html")
    os.symlink(tmp_path / "outside.html", site / "index.html")
    (site / "gemm.html").symlink_to(tmp_path / "outside.html")
    with pytest.raises(ReportError) as err:
        pdf.assemble(site, [("G", "gemm.md")], "S")
    assert _expect("pdf_page_link") in str(err.value.problems[0])


SPECIAL = {case: None for case in ("document_bidi", "print_cut_joins_nothing", "pdf_page_link")}
