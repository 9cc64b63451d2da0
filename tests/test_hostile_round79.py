"""The seventy-ninth round of the hostile corpus (issue #29), site set: attack only, then fixed.

14 probes, 7 failed (two weak): a heading of 130 000 '{ ' converted for five minutes (attr_list's quadratic
regex); pymdownx.details' own guard read the check's lowered limit, so the check converted 17 nested details where
MkDocs published 21; two titles apart only in their spaces, or in an arrow or lenticular brackets beside ASCII;
an archive coverage item's content unbounded, converted in quadratic time in a generated page no check converted;
the machine banner placed after a '# ' comment inside a fenced block.  Declared: two distinct Chinese characters
drawn alike that no table pairs, twice in one title ('\u5df2\u77e5\u95ee\u9898' beside '\u5df1\u77e5\u95f4\u9898'): once
is one character apart and refused.

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
import sys

import pytest
from test_hostile_round4 import _expect
from test_hostile_round78 import _site_markdown

MUTATIONS = {}
SPECIAL = {case: None for case in ("conversion_in_time", "guards_read_the_real_limit", "titles_apart_in_spaces",
                                   "archive_texts_bounded", "banner_not_in_a_fence")}


def test_a_page_converted_past_its_seconds_is_refused(monkeypatch):
    from reportgen.publish import nesting
    extensions, configs = _site_markdown()
    monkeypatch.setattr(nesting, "CONVERT_S", 0.2)
    said = nesting.conversion_problem("docs/a.md", "# " + "{ " * 30000 + "\n", extensions, configs)
    assert said and said.startswith("docs/a.md: ") and _expect("conversion_in_time") in said, said
    converter = nesting.Converter(extensions, configs)
    converter.left = 0.05   # the build's budget spent: the next page has what is left
    heading = "# " + "{ " * 20000 + "\n"
    said = converter.problem("docs/b.md", heading, heading)
    assert said.startswith("docs/b.md: the build's pages have used the "), said   # the cause named, not this page


def test_the_extensions_guards_read_the_limit_mkdocs_converts_under():
    import markdown
    from reportgen.publish import nesting
    extensions, configs = _site_markdown()
    body = "".join("    " * i + f'??? note "n{i}"\n\n' for i in range(20)) + "    " * 20 + "x\n"
    page = '<div markdown="1">\n\n' * 32 + body + "\n" + "</div>\n\n" * 32
    real = markdown.Markdown(extensions=extensions, extension_configs=configs).convert(page)
    said = nesting.conversion_problem("docs/a.md", page, extensions, configs)
    if said is None:   # within the bound: the check converted what MkDocs converts, every details element
        seen = []
        original = markdown.Markdown.convert
        nesting_convert = lambda self, text: seen.append(original(self, text)) or seen[-1]   # noqa: E731
        markdown.Markdown.convert = nesting_convert
        try:
            nesting.conversion_problem("docs/a.md", page, extensions, configs)
        finally:
            markdown.Markdown.convert = original
        assert seen and seen[0].count("<" + _expect("guards_read_the_real_limit")) == real.count("<details")
    else:
        assert "nests deeper than" in said
    assert sys.getrecursionlimit.__name__ == "getrecursionlimit" and sys.getrecursionlimit() >= 1000


@pytest.mark.parametrize("a, b", [("\u7b2c 1 \u7ae0 GEMM", "\u7b2c1\u7ae0 GEMM"), ("INT8\u91cf\u5316(TVM)", "INT8 \u91cf\u5316 (TVM)"),
                                  ("\u3010x\u3011 \u5bf9\u7167", "[x] \u5bf9\u7167")])
def test_titles_apart_in_spaces_or_bracket_shapes_read_as_one(a, b):
    from study import confusables
    assert confusables.repeated([a, b]) == b
    from test_hostile_round57 import _on_config
    said = _on_config(nav=[{a: "index.md"}, {b: "gemm.md"}])
    assert _expect("titles_apart_in_spaces") in said, said


def test_an_archive_text_is_bounded():
    from reportgen.data import seed
    said = seed._shape_problem("archive/coverage.yaml: items[0].content", "{ " * 32000, seed.TEXT)
    assert said and said.startswith("archive/coverage.yaml: items[0].content:") and _expect("archive_texts_bounded") in said
    assert seed._shape_problem("x", ["ok", "{ " * 2001], seed.TEXTS) and seed._shape_problem("x", "ok", seed.TEXT) is None


def test_generated_pages_are_converted_within_the_bounds_too():
    from conftest import ROOT
    source = (ROOT / "reportgen" / "publish" / "plugin.py").read_text(encoding="utf-8")
    assert 'self._converts(f"docs/{COVERAGE_PAGE}", page.markdown, page.markdown)' in source
    assert 'return self._converts(f"docs/{page.file.src_uri}", markdown, markdown)' in source


def test_the_banner_goes_under_the_title_not_a_comment_in_a_fence():
    from reportgen.publish import pagecontent
    placed = pagecontent.under_title("```sh\n# comment\n```\n\n# Title\n\ntext\n", "NOTE")
    # round 80: on top unless the page opens with its title (a '# ' further down may be code, a comment, raw HTML)
    assert placed.startswith("NOTE\n```sh\n# comment\n```") and _expect("banner_not_in_a_fence") in placed
    assert pagecontent.under_title("~~~\n# x\n~~~\n", "NOTE").startswith("NOTE\n")
