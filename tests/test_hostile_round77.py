"""The seventy-seventh round of the hostile corpus (issue #29): attack only, then fixed.

Site set (2 of 11 failed, one weak): an unclosed code fence blanked the rest of a page the nesting bound read while
Markdown converted it; a lone Chinese character drawn as ASCII punctuation made a second title that read the same.

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
import pytest
from test_hostile_round4 import _expect

MUTATIONS = {}
SPECIAL = {case: None for case in ("nesting_as_written", "lone_cjk_punctuation_titles")}


@pytest.mark.parametrize("opener", ["```\nunclosed", "      ```", "> ```", "text\n~~~"])
def test_a_fence_that_does_not_close_hides_no_nesting(opener):
    from reportgen.publish import nesting
    text = "# t\n\n" + opener + "\n\n" + '<div markdown="1">\n\n' * 480
    said = nesting.nesting_problem("docs/a.md", text)
    assert said and said.startswith("docs/a.md:") and _expect("nesting_as_written") in said


@pytest.mark.parametrize("a, b", [("TVM \u4e28 ORT", "TVM | ORT"), ("TVM \u5341 ORT", "TVM + ORT"),
                                  ("a \u4e8c b", "a = b"), ("a \u4e3f b", "a / b")])
def test_a_lone_chinese_character_drawn_as_punctuation_is_that_punctuation(a, b):
    from test_hostile_round57 import _on_config
    said = _on_config(nav=[{a: "index.md"}, {b: "gemm.md"}])
    assert _expect("lone_cjk_punctuation_titles") in said, said
