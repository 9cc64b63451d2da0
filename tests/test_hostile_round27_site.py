"""The twenty-seventh round of the hostile corpus (issue #29), attack only, then fixed: the site side.

pdf cut the pages' headerlinks out of their HTML and so joined a docs page's "<<a class=headerlink>x
</a>script src=...>" into a script of print.html, which the printing browser ran; stylesheets and
style attributes showed text otherwise than the page writes it (bidi, flex order, generated content,
font-size:0, a UTF-16 or gb18030 stylesheet); serve started on a page holding a bidi character.

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
import pytest
from conftest import ROOT
from test_hostile_round4 import _expect

from reportgen.errors import ReportError

MUTATIONS = {}


def test_the_page_assembled_for_printing_is_checked_as_a_page(tmp_path):
    from reportgen.commands import pdf
    from reportgen.publish import plugin
    site = tmp_path / "site"
    site.mkdir()
    article = ('<h1>T<a class="headerlink" href="#t">x</a></h1>'   # since round 28 the splice below is inert
               '<p><<a class="headerlink" href="#x">x</a>script src="x/evil.js"></script></p>'
               '<p><script src="x/evil.js"></script></p>')
    (site / "index.html").write_text(f'<html><head>{plugin.CSP_META}</head><body><article class="md-content__inner '
                                     f'md-typeset">{article}</article></body></html>', encoding="utf-8")
    with pytest.raises(ReportError) as err:
        pdf.print_page(ROOT, site, [("T", "index.md")], "S")
    assert any(_expect("print_page_checked") in line for line in err.value.problems), err.value.problems
    (site / "index.html").write_text(f'<html><head>{plugin.CSP_META}</head><body><article class="md-content__inner '
                                     f'md-typeset"><p>fine</p></article></body></html>', encoding="utf-8")
    assert b"fine" in pdf.print_page(ROOT, site, [("T", "index.md")], "S")


@pytest.mark.parametrize("css", ["p { unicode-bidi: bidi-override; direction: rtl; }",
                                 "p { unicode-bidi: bidi-override; \\64 irection: rtl; }",
                                 ".x { display: inline-flex; } .x span:first-child { order: 2; }",
                                 ".num { font-size: 0; } .num::after { content: \"0.01 ms\"; }",
                                 ".x { flex-flow: row-reverse; }"])
def test_a_stylesheet_of_the_project_shows_text_as_written(tmp_path, css):
    from reportgen.publish import verify
    (tmp_path / "assets" / "css").mkdir(parents=True)
    (tmp_path / "assets" / "css" / "study.css").write_text(css, encoding="utf-8")
    found = verify._stylesheet_problems(ROOT, tmp_path)
    assert found and _expect("css_text_rules") in found[0], found


def test_the_themes_own_stylesheet_is_read_as_the_theme_wrote_it(tmp_path):
    from reportgen.publish import verify
    theme = verify._theme_folders(ROOT)[0]
    main = next((theme / "assets" / "stylesheets").glob("main.*.min.css"))
    (tmp_path / "assets" / "stylesheets").mkdir(parents=True)
    (tmp_path / "assets" / "stylesheets" / main.name).write_bytes(main.read_bytes())   # direction:rtl for rtl pages
    assert verify._stylesheet_problems(ROOT, tmp_path) == []


@pytest.mark.parametrize("data", ['p::before { content: "\u202e"; }'.encode("utf-16"),
                                  '@charset "gb18030"; p::before { content: "x"; }'.encode("utf-8"),
                                  b"p { color: red; }\x00"])
def test_a_stylesheet_is_read_as_utf8(tmp_path, data):
    from reportgen.publish import sitecheck
    (tmp_path / "x.css").write_bytes(data)
    found = sitecheck.other_markup_problems(tmp_path, lambda rel: False)
    assert found and all(line.startswith(str(tmp_path / "x.css")) for line in found), found


@pytest.mark.parametrize("planted", ['<span style="display:inline-flex"><span style="order:2">gol</span>.exe</span>',
                                     '<span style="font-size:0">9.99 ms</span>0.01 ms',
                                     '<svg><text style="direction:rtl">x</text></svg>'])
def test_no_element_of_a_page_has_a_style_attribute(tmp_path, planted):
    from reportgen.publish import verify
    from test_hostile_round24 import _config
    (tmp_path / "index.html").write_text(f"<html><body>{planted}{_config()}</body></html>", encoding="utf-8")
    found = verify.script_problems(ROOT, tmp_path)
    assert any(_expect("style_attribute") in line for line in found), found


@pytest.mark.parametrize("text", ["gol\u202e.exe", "gol&#x202E;.exe", "a&#8203;b"])
def test_serve_refuses_a_page_holding_a_bidi_character(tmp_path, text):
    from reportgen.publish import plugin, verify
    (tmp_path / "index.html").write_text(f"<html><head>{plugin.CSP_META}</head><body><p>{text}</p></body></html>",
                                         encoding="utf-8")
    found = verify.script_problems(ROOT, tmp_path)
    assert found and any(_expect("page_bidi_at_serve") in line for line in found), found


def test_serve_serves_a_site_without_a_half_replaced_pdf(tmp_path, monkeypatch, capsys):
    """Round 27: a pdf killed after it replaced study.pdf but before it listed it made serve refuse the
    whole site as "changed after the build"; rerunning pdf is what mends it."""
    from reportgen.commands import pdf, serve
    from reportgen.publish import plugin, sitecheck
    from test_hostile_round25_site import Stopped
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text(f"<html><head>{plugin.CSP_META}</head><body>home</body></html>")
    (site / pdf.PDF_NAME).write_bytes(b"%PDF old")
    sitecheck.write_manifest(site)
    (site / pdf.PDF_NAME).write_bytes(b"%PDF new, not yet listed")
    monkeypatch.setattr(serve, "open_server", Stopped)
    serve.serve(site, 0, ROOT)
    assert pdf.PDF_NAME not in Stopped.served["listed"] and Stopped.served["files"] == ["index.html"]
    assert _expect("serve_without_pdf") in capsys.readouterr().out
    (site / "index.html").write_text("changed")
    with pytest.raises(ReportError):
        serve.serve(site, 0, ROOT)


@pytest.mark.parametrize("typed", ["0.01&nbsp;ms", "0.01<!-- -->ms", "0.01 m&#115;", "&#48;.01 ms",
                                   "0.01\u33b3", "0.01 \uff4d\uff53"])
def test_a_hand_typed_figure_is_found_as_a_reader_sees_it(tmp_path, typed):
    from reportgen.publish import verify
    (tmp_path / "a.md").write_text(f"# a\n\nTVM takes {typed} here.\n", encoding="utf-8")
    [line] = verify.typed_figures(tmp_path)
    assert line.startswith(f"{tmp_path / 'a.md'}:3:") and _expect("typed_figure_spelled") in line


SPECIAL = {case: None for case in ("typed_figure_spelled", "serve_without_pdf", "print_page_checked", "css_text_rules", "style_attribute", "page_bidi_at_serve")}
