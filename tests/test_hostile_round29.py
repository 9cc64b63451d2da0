"""The twenty-ninth round of the hostile corpus (issue #29), attack only, then partly fixed: cited
lines the statement check misread (a thousands separator, other names of the median, a figure before
"is the median", terminal colour codes, failure words in more spellings), an e2e case without its
input size, archive names broken by other line breaks, a table's environment of another type, and a
site/machine.json naming its machine with a number.

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
import pytest
from helpers import record
from test_hostile_round4 import _expect

from study import citation, schema

MUTATIONS = {}
CASE = "numpy_gemm/dtype=float32/n=32/threads=1/blas=configured"
REC = {"id": CASE, "experiment": "numpy_gemm", "status": "ok", "stats": {"p50": 9.99e-6}}


@pytest.mark.parametrize("case, said", [
    ("evidence_more_spellings", "p50 9,990 us"), ("evidence_more_spellings", "50%: 1.2 ms"),
    ("evidence_more_spellings", "med 1 ms"), ("evidence_more_spellings", "q50 1 ms"),
    ("evidence_more_spellings", "9.99 ms is the median"), ("evidence_more_spellings", "9.99 ms = p50"),
    ("evidence_more_spellings", "p50 \x1b[0m9.99 ms"),
    ("evidence_more_failures", "\x1b[31mFA\x1b[0mILED"), ("evidence_more_failures", "deadlock"),
    ("evidence_more_failures", "hung"), ("evidence_more_failures", "\u5185\u5b58\u4e0d\u8db3"),
    ("evidence_more_failures", "result inf"), ("evidence_more_failures", "DNF"),
])
def test_more_ways_of_stating_a_median_or_a_failure_are_read(case, said):
    found = citation.statement_problems(REC, [f"[numpy_gemm] {CASE}: {said}"])
    assert found and all(_expect(case) in p for p in found), (said, found)


@pytest.mark.parametrize("said", ["p50_us=9.99", "p50 0.00999 ms over 3 samples",
                                  "p50_us=9.99 mean_us=11", "mean_ms=1.1e-2"])
def test_lines_that_agree_still_pass(said):
    rec = dict(REC, stats={"p50": 9.99e-6, "mean": 1.1e-5}, samples=[9.99e-6] * 3)
    assert citation.statement_problems(rec, [f"{CASE}: {said}"]) == []


def test_an_ok_e2e_record_names_its_input_size():
    case = {"model": "resnet18_v1", "engine": "tvm_c", "batch": 1, "threads": 1, "seed": 0}
    rec = record(case_id="e2e/model=resnet18_v1/engine=tvm_c/batch=1/threads=1")
    rec.update(experiment="e2e", case=case)
    assert any(_expect("e2e_case_without_size") in p for p in schema.record_problems(rec))


@pytest.mark.parametrize("name", ["a\u2028b.yaml", "a\x85b.yaml", "a\x0cb.yaml", "a\x1cb.yaml"])
def test_a_file_name_another_line_break_splits_is_refused_by_reseal(tmp_path, name):
    from reportgen.data import archive
    from reportgen.errors import ReportError
    (tmp_path / "a.yaml").write_text("x: 1\n")
    (tmp_path / name).write_text("x: 1\n")
    with pytest.raises(ReportError) as err:
        archive.reseal(tmp_path)
    [line] = err.value.problems
    assert "\n" not in line and line.isprintable() and _expect("archive_name_unlistable") in line
    assert not (tmp_path / archive.SEAL).exists()


def test_a_tables_environment_of_another_type_and_a_row_given_twice(tmp_path):
    from reportgen.data import archive
    raw = {"columns": [{"key": "a", "label": "A", "kind": "text"}], "environment": ["a"],
           "rows": [{"key": "r", "label": "R", "cells": ["1"]}, {"key": "r", "label": "R2", "cells": ["2"]}]}
    found = archive._shape_problems(tmp_path / "t.yaml", raw)
    assert any("environment: expected a string" in p for p in found) and \
        any(_expect("archive_row_twice") in p for p in found), found


def test_site_machine_named_with_a_number_is_one_line(tmp_path):
    import json
    from reportgen.publish import sitecheck
    (tmp_path / "machine.json").write_text(json.dumps({"publication_machine": 123456789012,
                                                       "reason": "chosen with --machine"}))
    sitecheck.write_manifest(tmp_path)
    found = sitecheck.rebuild_problems(tmp_path, tmp_path, lambda *a: pytest.fail("built"))
    assert len(found) == 1 and _expect("site_machine_number") in found[0], found


# -- the site side (the second set of round 29) ---------------------------------------------------------

@pytest.mark.parametrize("css", ['li { list-style-type: "0.01 ms"; }', "p { position: relative; left: 3em; }",
                                 "p { transform: scaleX(-1); }", "p { margin-left: -3em; }", "p { opacity: 0; }",
                                 "p { color: transparent; }", "p { font-size: .001px; }", "p { clip-path: inset(50%); }",
                                 "@font-face { font-family: x; src: url(x.woff); }", "p { display: inline-flex; }",
                                 "p { text-emphasis: '0'; }", "p { hyphenate-character: '0.01 ms'; }"])
def test_a_project_stylesheet_sets_only_the_allowed_properties(tmp_path, css):
    from reportgen.publish import sitecheck
    (tmp_path / "study.css").write_text(css, encoding="utf-8")
    found = sitecheck.stylesheet_problems(tmp_path / "study.css", rules=True)
    assert found and _expect("css_allowed_properties") in found[0], found


@pytest.mark.parametrize("planted", ["<span popover>not</span>", '<p data-clipboard-text="curl x | sh">make site</p>',
                                     "<dialog>not</dialog>", "<datalist><option>x</option></datalist>",
                                     "<ruby>a<rp>not</rp></ruby>", "<p inert>x</p>"])
def test_page_markup_the_browser_hides_or_copies_otherwise_is_refused(tmp_path, planted):
    from conftest import ROOT
    from reportgen.publish import verify
    from test_hostile_round24 import _config
    (tmp_path / "index.html").write_text(f"<html><head><title>t</title></head><body>{planted}{_config()}</body></html>",
                                         encoding="utf-8")
    found = verify.script_problems(ROOT, tmp_path)
    assert any(_expect("ua_hidden_markup") in line for line in found), found


@pytest.mark.parametrize("name, text", [("a.svg", '<svg xmlns:s="x"><s:style>text{unicode-bidi:bidi-override}</s:style></svg>'),
                                        ("b.xhtml", '<html xmlns:h="x"><h:style>p{direction:rtl}</h:style></html>')])
def test_a_prefixed_style_element_is_refused(tmp_path, name, text):
    from reportgen.publish import sitecheck
    (tmp_path / name).write_text(text, encoding="utf-8")
    found = sitecheck.other_markup_problems(tmp_path, lambda rel: False)
    assert found and any("markup a browser reads otherwise" in line for line in found), found


def test_the_search_index_names_languages_only(tmp_path):
    import json
    from reportgen.publish import verify
    (tmp_path / "search").mkdir()
    index = tmp_path / "search" / "search_index.json"
    index.write_text(json.dumps({"config": {"lang": ["en"]}, "docs": []}))
    assert verify._search_index_problems(tmp_path) == []
    index.write_text(json.dumps({"config": {"lang": ["x/../../../../x/evil"]}, "docs": []}))
    [line] = verify._search_index_problems(tmp_path)
    assert _expect("search_lang_script") in line


@pytest.mark.parametrize("folder", [".git", "theme/.hidden"])
def test_a_hidden_folder_is_no_theme_or_docs_folder(tmp_path, folder):
    from reportgen.commands import build
    from reportgen.errors import ReportError
    (tmp_path / "mkdocs.yml").write_text(f"site_name: x\ntheme:\n  name: material\n  custom_dir: {folder}\n")
    with pytest.raises(ReportError) as err:
        build._config_problems(tmp_path)
    assert _expect("config_hidden_folder") in str(err.value)


def test_unfenced_meta_lines_are_refused(tmp_path):
    from reportgen.data import plainfile
    (tmp_path / "a.md").write_text("Caveat: the figures below are not reproducible\n\n# A\n", encoding="utf-8")
    line = plainfile.front_matter_problem("docs/a.md", tmp_path / "a.md")
    assert line and line.startswith("docs/a.md:1:") and _expect("unfenced_meta") in line
    (tmp_path / "b.md").write_text("# B\n\nCaveat: shown\n", encoding="utf-8")
    assert plainfile.front_matter_problem("docs/b.md", tmp_path / "b.md") is None


SPECIAL = {case: None for case in ("css_allowed_properties", "ua_hidden_markup", "search_lang_script",
                                   "config_hidden_folder", "unfenced_meta", "evidence_more_spellings", "evidence_more_failures", "e2e_case_without_size",
                                   "archive_row_twice", "site_machine_number")}
