"""The seventy-first round of the hostile corpus (issue #29): attack only, then fixed.

Site set (4 of 11 failed, two weak, one suspected; one weak pass): a tab the pure-Python YAML loader refuses kept a
front matter's depth from being counted, and MkDocs' C loader crashed; nav entries without titles escaped the
count; a Chinese stroke stood for a Latin I, a division slash for '/'; use_directory_urls was not pinned; 43 500
headings made an 18.6 MB page before any bound.

Data set (3 of 9 failed, one weak): a case's id fields were taken from any object of the case (the INT8 chart broke);
a profile scaled whole, shares and median kept, moved the per-convolution tables 2.5x unflagged; a median in other
words inside a record's cited lines.

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
import copy

import pytest
from conftest import ROOT
from test_hostile_round4 import _expect
from test_hostile_round64 import _config

MUTATIONS = {}
SPECIAL = {case: None for case in ("front_matter_read_whole", "nav_entries_counted", "cjk_lookalike_letter",
                                   "punctuation_lookalike_titles", "directory_urls_pinned", "headings_bound",
                                   "case_fields_where_read", "profile_total_per_call", "stray_median_wordings")}


def test_a_front_matter_the_bounded_loader_cannot_read_is_refused(tmp_path):
    from reportgen.data import plainfile
    (tmp_path / "a.md").write_text("---\nsearch: {exclude:\tfalse}\nhide:\n" + "- " * 40000 + "toc\n---\n# x\n",
                                   encoding="utf-8")
    said = plainfile.front_matter_depth_problems(tmp_path)
    assert said and said[0].startswith(str(tmp_path / "a.md")) and _expect("front_matter_read_whole") in said[0]
    assert plainfile.front_matter_depth_problems(ROOT / "docs") == []


def test_nav_entries_without_titles_are_counted():
    from reportgen.publish import configcheck
    nav = [{"a": "index.md"}] + [f"p{i:04d}.md" for i in range(150)]
    assert configcheck.nav_entries(nav) == 151
    assert configcheck.nav_entries([{"s": [{"a": "a.md"}, "b.md", {"t": ["c.md"]}]}]) == 5
    from test_hostile_round57 import _on_config
    said = _on_config(nav=nav)
    assert _expect("nav_entries_counted") in said


def test_a_chinese_stroke_inside_a_latin_word_is_a_lookalike():
    from reportgen.publish import configcheck
    from study import schema
    for title in ("\u4e28NT8 \u91cf\u5316", "GE\u5de5M", "x\u3007r"):
        assert configcheck.title_problem(title) and schema.foreign_letter(title), title
    for plain in ("INT8 \u91cf\u5316", "\u4e00\u4e2a GEMM", "GEMM \u57fa\u7ebf"):
        assert configcheck.title_problem(plain) is None, plain
    from study import letters
    assert _expect("cjk_lookalike_letter") in open(letters.__file__, encoding="utf-8").read()


def test_lookalike_punctuation_makes_one_title():
    from test_hostile_round57 import _on_config
    # each either folds into one title or is a mark titles do not use (round 76: listed punctuation only)
    said = _on_config(nav=[{"CPU / GPU": "index.md"}, {"CPU \u2215 GPU": "gemm.md"}])
    assert _expect("punctuation_lookalike_titles") in said or "titles use ASCII punctuation" in said
    said = _on_config(nav=[{"\u6eaf\u6e90\u00b7\u8bf4\u660e": "index.md"}, {"\u6eaf\u6e90\u30fb\u8bf4\u660e": "gemm.md"}])
    assert _expect("punctuation_lookalike_titles") in said or "titles use ASCII punctuation" in said
    said = _on_config(nav=[{"\u6eaf\u6e90\u00b7\u8bf4\u660e": "index.md"}, {"\u6eaf\u6e90\u3002\u8bf4\u660e": "gemm.md"}])
    assert _expect("punctuation_lookalike_titles") in said


@pytest.mark.parametrize("old, new", [("use_directory_urls: false\n", "use_directory_urls: true\n"),
                                      ("use_directory_urls: false\n", ""), ("strict: true\n", "strict: false\n")])
def test_the_flags_the_links_are_made_for_are_pinned(tmp_path, old, new):
    said = _config(tmp_path, old, new)
    assert "mkdocs.yml:" in said and _expect("directory_urls_pinned") in said


def test_a_page_of_too_many_headings_is_refused():
    from reportgen.publish import pagecontent
    said = pagecontent.source_problem("docs/x.md", "# a\n\n" + "## h\n\n" * 300)
    assert said and said.startswith("docs/x.md:") and _expect("headings_bound") in said
    said = pagecontent.source_problem("docs/x.md", "a\n\n" + "h\n=\n\n" * 150 + "<h2>x</h2>\n\n" * 60)
    assert said and _expect("headings_bound") in said


def test_a_case_holds_its_id_fields_where_the_pages_read_them():
    from study import cases
    rid = "int8/model=resnet18_v1/size=224/quant=minmax-int8"
    said = cases.case_problems(rid, {"input_size": 224, "quant": {"model": "resnet18_v1"}, "method": "minmax",
                                     "scheme": "int8"}, "ok")
    assert said and _expect("case_fields_where_read") in said[0]
    said = cases.case_problems(rid, {"input_size": 224, "model": "resnet18_v1", "method": "minmax"}, "ok")
    assert any("quant" in line for line in said)
    assert cases.case_problems(rid, {"input_size": 224, "model": "resnet18_v1", "method": "minmax",
                                     "scheme": "int8"}, "ok") == []


def test_a_profile_scaled_whole_moves_a_level():
    from reportgen.data import claims
    from test_hostile_round66 import _committed
    before = _committed("tvm_rules", "kernel_profile")
    after = copy.deepcopy(before)
    for row in after["extra"]["kernel_profile"]:
        row["seconds"] *= 2.5
    found = claims.level_jump(before, after, 2.0)
    assert found is not None and found[1] == "extra.kernel_profile total / p50"
    assert _expect("profile_total_per_call") in found[1]
    assert claims.jump(before, after, 2.0) is not None
    slight = copy.deepcopy(before)
    for row in slight["extra"]["kernel_profile"]:
        row["seconds"] *= 1.5
    assert claims.level_jump(before, slight, 2.0) is None


def test_a_median_in_more_wordings_inside_the_cited_lines_is_refused():
    from study import citation
    for stray in ("median 0.0500 ms over 200 samples", "p50 0.05 msec over 200 runs", "p50 0,0500 ms over 200 samples",
                  "\u4e2d\u4f4d\u6570 0.0500 ms\uff08200 \u6b21\uff09"):
        assert citation.stray_median(["x", stray]) == 1, stray
    assert citation.stray_median(["[e2e] rules tuned network 3 ms vs default 4 ms (median of 20 alternating calls)"]) \
        is None
    from reportgen.data import runfacts
    assert _expect("stray_median_wordings") in open(runfacts.__file__, encoding="utf-8").read()
