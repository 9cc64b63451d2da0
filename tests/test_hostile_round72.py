"""The seventy-second round of the hostile corpus (issue #29): attack only, then fixed.

Data set (3 of 10 failed, one weak): a rule record's kernel calls halved over changed code moved the per-convolution
table 2x unflagged (calls were compared at the same code only); calibration fields at the top of an INT8 engine
record's case broke the INT8 page; a kernel row of 10^9 calls loaded and printed 10^11 GFLOPS.

Site set (4 of 10 failed, three weak): headings inside a list escaped the headings bound; CJK strokes, box drawing
and Chinese characters touching a Latin word read as its letters; a page listed without a title took a section's
title; 3 000 pages outside the nav were built before any bound.

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
import copy
from types import SimpleNamespace

import pytest
from test_hostile_round4 import _expect

from reportgen.errors import ReportError

MUTATIONS = {}
SPECIAL = {case: None for case in ("shape_calls_level", "int8_engine_no_calibration", "profile_row_calls_bound",
                                   "headings_as_converted", "latin_word_letters", "page_title_vs_section",
                                   "docs_pages_bound")}


def test_a_convolutions_calls_are_a_level():
    from reportgen.data import claims
    from test_hostile_round66 import _committed
    before = _committed("tvm_rules", "kernel_profile")
    after = copy.deepcopy(before)
    shaped = claims._shape_calls(before)
    assert shaped, "a rule record's kernels are keyed by shape"
    label = next(iter(shaped))
    kernels = before["extra"]["rules"]["kernels"]
    row = next(r for r in after["extra"]["kernel_profile"] if claims._kernel_shape(kernels.get(r["op"])) == label)
    row["calls"] += 1
    found = claims.level_jump(before, after, 2.0)
    assert found is not None and found[1].endswith("] " + _expect("shape_calls_level"))
    assert claims.level_jump(before, copy.deepcopy(before), 2.0) is None


def test_an_int8_engine_record_names_no_calibration():
    from study import cases
    rid = "int8/model=resnet18_v1/size=224/engine=tvm_int8/batch=1/threads=2"
    case = {"model": "resnet18_v1", "input_size": 224, "engine": "tvm_int8", "batch": 1, "threads": 2}
    assert cases.case_problems(rid, case, "ok") == []
    said = cases.case_problems(rid, dict(case, method="minmax", scheme="int8"), "ok")
    assert said and said[0].startswith("case.method:") and _expect("int8_engine_no_calibration") in said[0]


def test_a_profile_rows_calls_are_bounded():
    from study import work
    rec = {"extra": {"kernel_profile": [{"op": "k", "kind": "conv", "calls": 10 ** 9, "seconds": 0.001}]},
           "experiment": "e2e", "status": "ok", "case": {}, "samples": []}
    said = work.extra_problems(rec)
    assert any(line.startswith("extra.kernel_profile[0].calls:") and _expect("profile_row_calls_bound") in line
               for line in said), said


def test_headings_are_counted_as_converted():
    from reportgen.publish import plugin
    me = plugin.ReportgenPlugin.__new__(plugin.ReportgenPlugin)
    me.csv_files, me.csv_owner = {}, {}
    page = SimpleNamespace(file=SimpleNamespace(src_uri="probe.md"))
    with pytest.raises(ReportError) as err:
        me.on_page_content("<ul>" + "<li><h1 id=a>a</h1></li>" * 600 + "</ul>", page, None, None)
    assert str(err.value).startswith("docs/probe.md: 600 ") and _expect("headings_as_converted") in str(err.value)


def test_a_latin_word_is_spelled_in_latin_letters():
    from reportgen.publish import configcheck
    for title in ("\u31d1NT8 \u91cf\u5316", "\u4e42eon", "\u3405eon", "\u4e05VM", "\u4e2bOLO", "\u2502NT8"):
        said = configcheck.title_problem(title)
        assert said and _expect("latin_word_letters") in said, title
    for plain in ("GEMM \u57fa\u7ebf\u4e0e\u5cf0\u503c\uff08Relax\uff09 10 \u03bcs", "4\u00d74 GEMM", "Caf\u00e9"):
        assert configcheck.title_problem(plain) is None, plain


def test_a_page_listed_without_a_title_takes_no_sections_title():
    from reportgen.publish.plugin import ReportgenPlugin
    pages = [SimpleNamespace(src_uri="fupan.md", page=SimpleNamespace(title="\u590d\u76d8"))]
    config = SimpleNamespace(nav=[{"\u590d\u76d8": ["retrospective.md"]}, "fupan.md"])
    with pytest.raises(ReportError) as err:
        ReportgenPlugin().on_env(None, config, SimpleNamespace(documentation_pages=lambda: pages))
    assert "docs/fupan.md" in str(err.value) and _expect("page_title_vs_section") in str(err.value)


def test_the_docs_pages_are_bounded(tmp_path):
    from reportgen.data import plainfile
    for i in range(plainfile.MAX_DOCS_PAGES + 1):
        (tmp_path / f"p{i}.md").write_text("# p\n", encoding="utf-8")
    said = plainfile.front_matter_depth_problems(tmp_path)
    assert said and said[0].startswith(str(tmp_path)) and _expect("docs_pages_bound") in said[0]
