"""The ninety-second round of the hostile corpus (issue #29), site set: attack only, then fixed (next session).

13 probes, 7 failed.  Mended here (P1, P2, P3, P7): the typed-figure check named the units a figure is written with,
and each round found another way to write one ('\u6bcf\u79d2\u5904\u7406 2000 \u5f20', '0.3 \u4e2a\u767e\u5206\u70b9', '\u00d73.27', '3:1', '2k img/s', a Cyrillic unit
letter, '30\u066a', a unit in a table's row header, a nested list).  reportgen/publish/digitforms inverts it: a docs
page types a number only in the forms that name, cite, count a list, version, shape or size in bits; any other
number is refused unless the page's front matter declares the phrase that holds it (numbers:), one place a
reviewer reads.

The case ids below are entries of tests/data/hostile/cases.yaml (test_hostile.py finds each one's test).
"""
import pytest

from test_hostile_round4 import _expect

MUTATIONS, SPECIAL = {}, dict.fromkeys(("digit_forms", "digit_forms_declared"))

ROUND_92 = ["\u6bcf\u79d2\u5904\u7406 2000 \u5f20", "\u63d0\u901f 0.3 \u4e2a\u767e\u5206\u70b9", "\u5feb \u00d73.27", "\u6bd4\u4f8b 3:1", "2k img/s", "\u5ef6\u8fdf 10 m\u0455",
            "\u5360 30\u066a", "| \u9879 | \u503c |\n|---|---|\n| \u5ef6\u8fdf (ms) | 12 |\n", "- TVM\n    - 12.5\n", "\u0662\u0660\u0660\u0660 \u5f20", "\uff11\uff12 \u5f20",
            "x3.27", "TVM 2000 \u5f20", "<span title=\"2000 \u5f20\">a</span>", "{{ \"2000\" }} \u5f20"]
ALLOWED = ["TVM 0.27 \u4e0e LLVM 22", "\u00a732 \u4e0e [18]\u2013[19]", "2020 \u5e74", "OSDI 2018", "FP32 \u4e0e p50\u3001ResNet-18\u3001AVX-512",
           "1. \u7b2c\u4e00\u6761", "7\u00d77 \u4e0e 224\u00d7224", "1024\u00b3", "512 \u4f4d", "n=32", "batch 8", "0.1.14.post1", "TVM\uff080.27\uff09",
           "3n\u00b2 \u4e2a\u5143\u7d20", "`2000 \u5f20` \u5728\u4ee3\u7801\u91cc"]


@pytest.mark.parametrize("text", ROUND_92)
def test_a_number_outside_the_allowed_forms_is_refused(tmp_path, text):
    from reportgen.publish import pagecontent
    (tmp_path / "x.md").write_text(f"# x\n\n{text}\n", encoding="utf-8")
    said = pagecontent.typed_figures(tmp_path)
    assert said and all(str(tmp_path / "x.md") in p for p in said), said
    if not any("hand-typed figure" in p for p in said):   # the unit check found none: the digit forms did
        assert _expect("digit_forms") in said[0]


@pytest.mark.parametrize("text", ALLOWED)
def test_a_number_in_an_allowed_form_passes(tmp_path, text):
    from reportgen.publish import pagecontent
    (tmp_path / "x.md").write_text(f"# x\n\n{text}\n", encoding="utf-8")
    assert pagecontent.typed_figures(tmp_path) == []


def test_a_declared_phrase_holds_its_number_and_a_stale_one_is_named(tmp_path):
    from reportgen.publish import pagecontent
    page = tmp_path / "x.md"
    page.write_text("---\nnumbers:\n  - \u8f93\u5165\u6700\u5927 255\n  - \u5df2\u5220\u6389\u7684 7 \u4f4d\n---\n# x\n\n\u8f93\u5165\u6700\u5927 255\u3002\u53e6 255 \u4e2a\n",
                    encoding="utf-8")
    said = pagecontent.typed_figures(tmp_path)
    assert len(said) == 2, said   # the undeclared 255, and the phrase the page no longer holds
    assert any(f"{page}:8:" in p and "255" in p for p in said)   # its line in the file
    assert any(_expect("digit_forms_declared") in p and "7" in p for p in said)
    from reportgen.data import plainfile   # the front matter's shape: texts of at most 40 characters
    assert plainfile._front_matter_value_ok("numbers", ["a" * 38 + " 1"]) and not plainfile._front_matter_value_ok(
        "numbers", ["a" * 40 + "1"]) and not plainfile._front_matter_value_ok("numbers", "255")
    for phrase in ("1", "1 x", "2.5 %", "words"):   # a number in two characters of words or more, never one alone
        assert not plainfile._front_matter_value_ok("numbers", [phrase]), phrase


def test_the_committed_pages_declare_few_numbers():
    from pathlib import Path
    from reportgen.data import plainfile
    from reportgen.publish import digitforms
    docs = Path(__file__).resolve().parents[1] / "docs"
    declared = [p for page in docs.glob("*.md")
                for p in digitforms.declared(plainfile.front_matter_data(page.read_text(encoding="utf-8")))]
    assert 0 < len(declared) <= 80, len(declared)   # facts of the method; a figure has a placeholder
