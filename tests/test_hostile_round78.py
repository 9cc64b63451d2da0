"""The seventy-eighth round of the hostile corpus (issue #29): the levers rounds 75-77 named, before the attack.

Nesting is bounded by Python-Markdown's own conversion of each page (with the site's extensions, under a bound of
calls, the line found by halves), not only by a second reading of the text that a fence or a comment could mislead;
titles are told apart by UTS #39's confusables skeleton (study.confusables) instead of fold lists written by hand.

Then the attack, site set (3 of 10 failed): titles in variant forms of one Chinese character read as one and passed
(OpenCC's variant tables now fold them, and titles one character apart read as one); lone Chinese characters drawn
as ASCII that no table pairs; the banner mark written inside a tag hid the tag from every check, the build joining it
after them.  Two weak passes mended: the check's lowered limit stopped Markdown's quotes early (its guard is now
watched), and the search for a refused page's line is bounded in time.

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
import functools

import pytest
from conftest import ROOT
from test_hostile_round4 import _expect

MUTATIONS = {}
SPECIAL = {case: None for case in ("markdown_conversion_bound", "confusable_skeleton_titles", "cjk_variant_titles",
                                   "lone_cjk_drawn_as_ascii", "banner_mark_in_a_tag", "markdown_guard_watched")}


@functools.cache
def _site_markdown():
    from mkdocs.config import load_config
    config = load_config(str(ROOT / "mkdocs.yml"))
    return config.markdown_extensions, config.mdx_configs


@pytest.mark.parametrize("nest", ['<div markdown="1">\n\n', "    "])   # quotes: Markdown bounds them itself
def test_a_page_markdown_nests_past_the_bound_is_refused_at_its_line(nest):
    from reportgen.publish import nesting
    extensions, configs = _site_markdown()
    if nest == "    ":
        deep = "".join(nest * i + "- x\n" for i in range(150))
    else:
        deep = nest * 150 + "x\n\n" + "</div>\n\n" * 150   # unclosed, Markdown nests none of them
    text = "# t\n\nsome text\n\n" + deep
    said = nesting.conversion_problem("docs/a.md", text, extensions, configs)
    assert said and _expect("markdown_conversion_bound") in said, said
    line = int(said.split(":")[1])
    assert 5 <= line <= text.count("\n") + 1, said
    assert nesting.conversion_problem("docs/a.md", "# t\n\nsome text\n", extensions, configs) is None


def test_the_committed_pages_convert_within_the_bound():
    from reportgen.publish import nesting
    extensions, configs = _site_markdown()
    for page in sorted((ROOT / "docs").glob("*.md")):
        assert nesting.conversion_problem(page.name, page.read_text(encoding="utf-8"), extensions, configs) is None


def test_the_bound_restores_the_recursion_limit():
    import sys
    from reportgen.publish import nesting
    extensions, configs = _site_markdown()
    before = sys.getrecursionlimit()
    nesting.conversion_problem("docs/a.md", "> " * 400 + "x\n", extensions, configs)
    assert sys.getrecursionlimit() == before


def test_a_page_nested_behind_what_the_text_reading_misses_is_refused_as_rendered():
    from reportgen.publish import nesting
    extensions, configs = _site_markdown()
    deep = '<div markdown="1">\n\n' * 150 + "</div>\n\n" * 150
    said = nesting.converted_problem("docs/a.md", "# t\n\n{{ x }}\n", "# t\n\n" + deep, extensions, configs)
    assert said and said.startswith("docs/a.md (as rendered):") and _expect("markdown_conversion_bound") in said


@pytest.mark.parametrize("a, b", [("GEMM \u5bf9\u7167", "GEMM \u5bf9\u7167"), ("Gemm \u57fa\u7ebf", "Gernrn \u57fa\u7ebf"),
                                  ("INT8 \u91cf\u5316", "lNT8 \u91cf\u5316"), ("TVM 0.27", "TVM O.27"),
                                  ("a \u2014 b", "a - b"), ("a \u00b7 b", "a . b"), ("A x B", "A \u00d7 B"),
                                  ("TVM | ORT", "TVM \u4e28 ORT"), ("TVM's", "TVM\u2019s")])
def test_titles_drawn_alike_by_the_unicode_table_are_one_name(a, b):
    from study import confusables
    assert confusables.repeated([a, b]) == b
    from test_hostile_round57 import _on_config
    said = _on_config(nav=[{a: "index.md"}, {b: "gemm.md"}])
    assert _expect("confusable_skeleton_titles") in said, said


@pytest.mark.parametrize("a, b", [("GEMM \u57fa\u7ebf", "GEMV \u57fa\u7ebf"), ("INT8", "INT4"), ("\u6982\u89c8", "\u65b9\u6cd5")])
def test_titles_a_reader_tells_apart_stay_apart(a, b):
    from study import confusables
    assert confusables.repeated([a, b]) is None


def test_the_vendored_table_is_the_published_one():
    from study import confusables
    head = confusables.TABLE.read_text(encoding="utf-8").split("\n", 12)[:12]
    assert any("Version: 13.0.0" in line for line in head)
    table = confusables._table()
    assert len(table) == 6311 and table["\u0131"] == "i" and table["m"] == "rn" and table["0"] == "O"


@pytest.mark.parametrize("a, b", [("\u672a\u6765\u8def\u7ebf", "\u672b\u6765\u8def\u7ebf"), ("\u81ea\u5df1", "\u81ea\u5df2"),
                                  ("\u65e5\u5fd7", "\u66f0\u5fd7"), ("GEMM", "GEMMs")])
def test_nav_titles_one_character_apart_read_as_one(a, b):
    from test_hostile_round57 import _on_config
    said = _on_config(nav=[{a: "index.md"}, {b: "gemm.md"}])
    assert _expect("confusable_skeleton_titles") in said and "one character apart" in said, said


def test_one_apart_is_one_edit():
    from study import confusables
    for a, b, apart in (("abc", "abc", True), ("abc", "abxc", True), ("abc", "ab", True), ("abc", "xbc", True),
                        ("abc", "xyc", False), ("abc", "acb", True), ("abcd", "badc", False), ("a", "abc", False), ("", "a", True)):
        assert confusables.one_apart(a, b) is apart and confusables.one_apart(b, a) is apart, (a, b)
    names = confusables.Names(apart=True)
    assert names.seen("\u8fd0\u884c 12", "one") is None and names.seen("\u8fd0\u884c 13", "two", apart=False) is None
    assert names.seen("\u8fd0\u884c 14", "three") == "one"


@pytest.mark.parametrize("a, b", [("\u9ec4\u91d1\u65b9\u6cd5", "\u9ec3\u91d1\u65b9\u6cd5"),
                                  ("\u6237\u53e3\u5bf9\u7167", "\u6236\u53e3\u5bf9\u7167"),
                                  ("\u9ec4\u91d1\u6237\u53e3", "\u9ec3\u91d1\u6236\u53e3"),
                                  ("\u5185\u5b58\u8bf4\u660e", "\u5167\u5b58\u8aac\u660e")])
def test_titles_in_variant_forms_of_one_character_are_one_name(a, b):
    from study import confusables
    assert confusables.repeated([a, b]) == b   # without the one-character rule too
    from test_hostile_round57 import _on_config
    said = _on_config(nav=[{a: "index.md"}, {b: "gemm.md"}])
    assert _expect("cjk_variant_titles") in said, said


@pytest.mark.parametrize("a, b", [("a \u4e42 b \u4e42 c", "a x b x c"), ("\u7532\u4e36\u4e59\u4e36\u4e19", "\u7532\u3001\u4e59\u3001\u4e19"),
                                  ("A \u4e05 B \u4e85 C", "A T B J C"), ("a \u4e40 b", "a \\ b"), ("x \u4e59 y \u535c z", "x + y - z")])
def test_lone_chinese_characters_drawn_as_ascii_are_what_they_copy(a, b):
    from study import confusables
    assert confusables.repeated([a, b]) == b
    from test_hostile_round57 import _on_config
    said = _on_config(nav=[{a: "index.md"}, {b: "gemm.md"}])
    assert _expect("lone_cjk_drawn_as_ascii") in said, said


@pytest.mark.parametrize("text", ["# t\n\n<di<!-- reportgen:banner -->v markdown>\n",
                                  "# t\n\n<!-- reportgen:banner -->\n\nx\n\n<!-- reportgen:banner -->\n",
                                  "# t\n\n```py<!-- reportgen:banner -->thon hl_lines=\"1-999\"\nx\n```\n"])
def test_the_banner_mark_stands_alone(text):
    from reportgen.publish import pagecontent
    said = pagecontent.source_problem("docs/a.md", text)
    assert said and said.startswith("docs/a.md:") and _expect("banner_mark_in_a_tag") in said, said
    assert pagecontent.source_problem("docs/a.md", "# t\n\n<!-- reportgen:banner -->\n\nx\n") is None


def test_the_checked_text_is_the_text_mkdocs_is_handed(monkeypatch):
    from reportgen.publish import pagecontent
    placed = pagecontent.under_title("# t\n\n<!-- reportgen:banner -->\n\nx\n", "!!! note\n    n", below_finding=True)
    assert "reportgen:banner" not in placed and "!!! note" in placed
    source = (ROOT / "reportgen" / "publish" / "plugin.py").read_text(encoding="utf-8")
    body = source[source.index("def on_page_markdown"):source.index("def on_page_content")]
    # the conversion check reads the text the hook returns, after the banner is placed
    assert body.index("pagecontent.under_title(") < body.rindex("return self._converts(")


def test_markdowns_own_guard_firing_within_the_bound_is_past_it(monkeypatch):
    import markdown.util
    from reportgen.publish import nesting
    extensions, configs = _site_markdown()
    quotes = "> " * 120 + "x\n"   # Markdown stops nesting quotes near the limit: no RecursionError, another page
    said = nesting.conversion_problem("docs/a.md", quotes, extensions, configs)
    assert said and _expect("markdown_guard_watched") in said, said
    assert markdown.util.nearing_recursion_limit.__name__ == "nearing_recursion_limit"   # put back


def test_the_search_for_the_line_is_bounded_in_time(monkeypatch):
    from reportgen.publish import nesting
    extensions, configs = _site_markdown()
    monkeypatch.setattr(nesting, "SEARCH_S", 0)
    deep = "text\n\n" * 50 + '<div markdown="1">\n\n' * 150 + "x\n\n" + "</div>\n\n" * 150
    said = nesting.conversion_problem("docs/a.md", deep, extensions, configs)
    assert said and said.startswith(f"docs/a.md:1-{deep.count(chr(10)) + 1}:"), said
