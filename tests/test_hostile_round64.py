"""The sixty-fourth round of the hostile corpus (issue #29): attack only, then fixed.

Site set (4 of 11 failed, two weak): keys under mkdocs.yml's extra: were never read (a made-up figure and a
download link in extra.consent's keys reached every page; the build failed on Material's consent parts without
naming mkdocs.yml); theme.language took any two letters (a right-to-left one turned every body rtl, 'xx'
stopped on a missing template); spaces after '>' nested a quoted list past both bounds (373 lists; 16 lines ran
Markdown out of stack); ordered markers of ten digits or more were not counted.

Data set (4 of 11 failed, one weak): ORT's nodes renamed over changed code escaped the row comparison (by name),
and a row moved 2.86x under its factor of 3; a jump over changed code of a tail or a text alone moved the
case's baseline, so two later runs each 0.55x published ResNet-18 at 0.3x unflagged; one sample of 1e200 with
the stats left as they were ended in 'reportgen broke' (its square overflowed).

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
import pytest

from conftest import ROOT
from reportgen.errors import ReportError
from test_hostile_round4 import _expect

MUTATIONS = {}
SPECIAL = {case: None for case in ("extra_keys_listed", "theme_language_pinned", "quote_indent_nesting",
                                   "long_ordered_markers", "conv_rows_by_shape", "baseline_moves_on_levels",
                                   "sample_overflow_named")}


def _config(tmp_path, old, new):
    from reportgen.commands import build
    text = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert old in text
    (tmp_path / "mkdocs.yml").write_text(text.replace(old, new), encoding="utf-8")
    with pytest.raises(ReportError) as err:
        build._config_problems(tmp_path)
    return str(err.value)


def test_the_keys_of_extra_are_an_allow_list(tmp_path):
    said = _config(tmp_path, "extra:\n", 'extra:\n  consent:\n    cookies:\n      "<b>12.3 ms</b>": x\n')
    assert "mkdocs.yml:" in said and _expect("extra_keys_listed") in said


@pytest.mark.parametrize("language", ["ar", "he", "xx"])
def test_the_theme_language_is_pinned(tmp_path, language):
    said = _config(tmp_path, "  language: zh\n", f"  language: {language}\n")
    assert "theme.language" in said and _expect("theme_language_pinned") in said


def test_a_quote_s_own_indentation_counts_as_nesting():
    from reportgen.publish import pagecontent
    text = "a\n\n" + "".join("> " + " " * (8 * i) + "- " * 10 + "x\n" for i in range(16))
    said = pagecontent.source_problem("docs/x.md", text)
    assert said and said.startswith("docs/x.md:") and _expect("quote_indent_nesting") in said
    assert pagecontent.source_problem("docs/x.md", "a\n\n> quote\n> - item\n>     - sub\n") is None


def test_ordered_markers_of_any_length_are_counted():
    from reportgen.publish import pagecontent
    said = pagecontent.source_problem("docs/x.md", "a\n\n" + "1234567890. " * 300 + "x\n")
    assert said and _expect("long_ordered_markers") in said


def test_a_convolution_row_is_keyed_by_its_operator_and_shapes():
    from reportgen.data import claims
    assert claims.CONV_ROW_FACTOR == 2.0 and _expect("conv_rows_by_shape") in open(claims.__file__, encoding="utf-8").read()


def test_only_a_new_level_moves_the_baseline():
    from reportgen.pages import history
    from test_hostile_round35_data import _changed, _Run
    runs = [_Run("r1", 1.0, "a" * 64), _Run("r2", 1.0, "b" * 64, commit="b" * 40),
            _Run("r3", 0.55, "b" * 64, commit="b" * 40), _Run("r4", 0.3, "c" * 64, commit="c" * 40)]
    runs[0].records[0]["stats"] = {"p50": 1.0, "p99": 1.1}
    runs[1].records[0]["stats"] = {"p50": 1.0, "p99": 30.0}   # one slow sample over changed code: a tail, no level
    found = history.all_jumps(runs, _changed)
    assert ("r4", "numpy_gemm/n=1") in {(j[2], j[0]) for j in found}   # 0.3 against the baseline 1.0
    assert ("r4", "numpy_gemm/n=1") in history.unconfirmed(runs, _changed, found)
    assert _expect("baseline_moves_on_levels") in open(history.__file__, encoding="utf-8").read()


def test_a_sample_whose_square_overflows_is_named():
    import json
    from study import schema
    for line in sorted((ROOT / "results" / "runs").iterdir())[-1].joinpath("records.jsonl").read_text().splitlines():
        rec = json.loads(line)
        if rec["samples"] and rec["status"] == "ok":
            break
    rec["samples"] = rec["samples"][:-1] + [1e200]
    said = schema.record_problems(rec)
    assert any(_expect("sample_overflow_named") in p for p in said), said
