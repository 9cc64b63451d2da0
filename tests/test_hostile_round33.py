"""The thirty-third round of the hostile corpus (issue #29), site side, attack only, then fixed: a
front matter title or a mkdocs.yml nav title holding markup the theme writes unescaped (a page struck
out and drawn white); a build-only class written as a character reference (class="&#99;sv", hidden in
print; &#118;erdict); a scrolling figure box cut in print; a fixed height that let paragraphs draw
over each other; more units; a figure in a Markdown link's title.

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
import pytest
from test_hostile_round4 import _expect

from reportgen.publish import pagecontent, sitecheck

MUTATIONS = {}
SPECIAL = {"title_markup": None}


@pytest.mark.parametrize("title", ["'R<s><font color=\"#ffffff\">'", "'a &amp; b'", "'x > y'"])
def test_a_front_matter_value_holds_no_markup(tmp_path, title):
    from reportgen.data import plainfile
    (tmp_path / "a.md").write_text(f"---\ntitle: {title}\n---\n# x\n", encoding="utf-8")
    found = plainfile.front_matter_problem("docs/a.md", tmp_path / "a.md")
    assert found and found.startswith("docs/a.md: front matter:") and _expect("title_markup") in found


def test_a_nav_title_holds_no_markup(project):
    from reportgen.commands import build
    from reportgen.errors import ReportError
    config = project / "mkdocs.yml"
    config.write_text(config.read_text(encoding="utf-8").replace("  - 概览: index.md", "  - '概览<s>': index.md"),
                      encoding="utf-8")
    with pytest.raises(ReportError) as err:
        build.build(project, project / "site")
    assert "mkdocs.yml" in str(err.value) and _expect("title_markup") in str(err.value)


@pytest.mark.parametrize("source", ['<p class="&#99;sv">x</p>', '<span class="&#118;erdict">x</span>',
                                    '<a class="n&#117;m cur">1</a>'])
def test_a_build_only_class_as_a_character_reference_is_refused(source):
    found = pagecontent.source_problem("docs/x.md", source)
    assert found and _expect("built_only_markup") in found, found


@pytest.mark.parametrize("css", [
    ".md-typeset .num { display: block; max-width: 64px; font-size: 1.2rem; overflow-x: auto; white-space: nowrap; }",
    ".md-typeset .finding { height: 64px; }", "p { max-height: 10em; }", ".x { overflow: scroll; }",
])
def test_round_33_stylesheets_are_refused(tmp_path, css):
    (tmp_path / "print.css").write_text(css, encoding="utf-8")
    found = sitecheck.stylesheet_problems(tmp_path / "print.css", rules=True)
    assert found and _expect("css_allowed_properties") in found[0], found


@pytest.mark.parametrize("typed", ["3.2X", "0.01 milliseconds", "1200 tok/s", "1200 \u6b21/\u79d2", "30 sec", "5\u2030",
                                   "5 Mflops", "12 \u03bcsec", "500 MHz", "16 GB", "3.2 times", "1.5 \u5929",
                                   '[see](#finding "0.01 ms")'])
def test_round_33_typed_figures_are_found(tmp_path, typed):
    from reportgen.publish import verify
    (tmp_path / "x.md").write_text(f"# x\n\n{typed}\n", encoding="utf-8")
    found = verify.typed_figures(tmp_path)
    assert found and _expect("typed_figure_rendered") in found[0], found


def test_a_build_is_dated_by_its_commit_not_the_clock(monkeypatch):
    """CI, this session: a site built before midnight differed from verify's rebuild after it
    (MkDocs dates sitemap.xml.gz by the clock), and verify refused a sound site."""
    import os
    import subprocess
    from conftest import ROOT
    from reportgen.commands import build
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    when = subprocess.run(["git", "-C", str(ROOT), "log", "-1", "--format=%ct"], capture_output=True, text=True).stdout.strip()
    with build._commit_date(ROOT):
        assert os.environ.get("SOURCE_DATE_EPOCH") == (when or None)
    assert "SOURCE_DATE_EPOCH" not in os.environ
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "86400")
    with build._commit_date(ROOT):
        assert os.environ["SOURCE_DATE_EPOCH"] == "86400"
