"""The twenty-first round of the hostile corpus (issue #29), attack only, then fixed: end tags and
attribute values a browser reads otherwise (</script/>, an img alt holding </title>), UTF-16 files,
serve's index.htm, the corpus file read through a link or with an unknown outcome, an untimed
record's summary with words after its status, a stated figure beyond a float, a committed folder
removed when git could not tell, and the publishing marker written through a link.

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
import os

import pytest
from test_hostile_round4 import _expect
from test_hostile_round15_rules import CASE, NEW
from test_hostile_round19 import _site_file_refused

MUTATIONS = {}


@pytest.mark.parametrize("name, text", [
    ("a.htm", '<script type="application/json">{}</script/><script>alert(1)</script>'),
    ("b.htm", '<script type="application/json">{}</script x><script>alert(1)</script>'),
    ("c.htm", '<title><img alt="</title><script>alert(1)</script>"></title>'),
    ("d.htm", '<textarea><img alt="</textarea><script>alert(1)</script>"></textarea>'),
])
def test_end_tags_and_attribute_values_a_browser_reads_otherwise_are_refused(tmp_path, name, text):
    _site_file_refused(tmp_path, name, text, "parsed_otherwise")


def test_a_utf16_document_is_refused(tmp_path):
    (tmp_path / "u.htm").write_bytes("<script>alert(1)</script>".encode("utf-16"))
    from reportgen.publish import sitecheck
    found = sitecheck.other_markup_problems(tmp_path, lambda rel: False)
    assert any("UTF-16" in p for p in found), found


def test_a_gzipped_document_is_read_decompressed(tmp_path):
    """x.xml.gz is sent as XML with Content-Encoding: gzip; the built sitemap.xml.gz passes."""
    import gzip
    (tmp_path / "s.xml.gz").write_bytes(gzip.compress(b'<x xmlns:h="http://www.w3.org/1999/xhtml"><h:script>alert(1)'
                                                      b'</h:script></x>'))
    from reportgen.publish import sitecheck
    found = sitecheck.other_markup_problems(tmp_path, lambda rel: False)
    assert any("inline script" in p for p in found), found


@pytest.mark.parametrize("link", [os.symlink, os.link])
def test_serve_checks_index_htm_too(tmp_path, link):
    from test_hostile_round11 import _get, _secret
    secret = _secret(tmp_path)
    site = tmp_path / "site"
    (site / "sub").mkdir(parents=True)
    (site / "index.html").write_text("<p>index</p>")
    link(secret, site / "sub" / "index.htm")
    data = _get(site, "/sub/")
    assert data.startswith(b"HTTP/1.0 404") and b"SECRET" not in data, _expect("serve_linked_index")


@pytest.mark.parametrize("setup, said", [
    ("link", "is a symlink on the way to the hostile corpus"),
    ("bytes", "cannot read the hostile corpus"),
    ("missing", "cannot read the hostile corpus"),
    ("outcome", "an outcome other than"),
    ("twice", "an id given before"),
])
def test_the_corpus_file_is_read_as_data_named_in_one_line(tmp_path, setup, said):
    from reportgen.data import corpus
    from reportgen.errors import ReportError
    path = tmp_path / corpus.PATH
    if setup == "link":
        (tmp_path / "elsewhere" / "data" / "hostile").mkdir(parents=True)
        (tmp_path / "elsewhere" / "data" / "hostile" / "cases.yaml").write_text("cases: []\n")
        (tmp_path / "tests").symlink_to(tmp_path / "elsewhere")
    elif setup != "missing":
        path.parent.mkdir(parents=True)
        path.write_bytes({"bytes": b"cases: [\xff]\n",
                          "outcome": b"cases:\n  - {id: a, class: x, outcome: published}\n",
                          "twice": b"cases:\n  - {id: a, class: x, outcome: text}\n  - {id: a, class: x, outcome: text}\n"}[setup])
    with pytest.raises(ReportError) as err:
        corpus.read(tmp_path)
    assert said in str(err.value) and "\n" not in str(err.value).strip(), _expect("corpus_file_shape")


def test_an_untimed_records_summary_is_its_status_and_its_own_error_only():
    from study import citation
    rec = {"id": CASE, "experiment": "numpy_gemm", "status": "check_failed", "samples": [], "stats": None,
           "error": "result differs"}
    assert citation.summary_problem(rec, f"{CASE}: check_failed: none; retried, ok, p50 1 ms over 3 samples")
    # round 22: even its own error is not part of the checked line ("none; rerun ok, p50 ..." stood there)
    assert citation.summary_problem(rec, f"{CASE}: check_failed: result differs")
    assert citation.summary_problem(rec, f"[numpy_gemm] {CASE}: check_failed") is None


def test_a_stated_figure_beyond_a_float_is_another_figure():
    from study import citation
    rec = {"id": CASE, "status": "ok", "samples": [1e-3] * 3, "stats": {"p50": 1e-3, "mean": 1e-3}}
    assert citation.statement_problems(rec, [f"{CASE}: p50 1e99999 ms"])
    assert citation.statement_problems(rec, [f"{CASE}: mean {'9' * 5000} ms"])


@pytest.mark.parametrize("variable", ["GIT_DIR", "GIT_INDEX_FILE"])
def test_a_committed_folder_is_left_alone_whatever_git_variables_say(tmp_path, monkeypatch, capsys, variable):
    """Round 21 #12, round 22 #16, #17: with GIT_DIR elsewhere git failed, with GIT_INDEX_FILE missing it
    listed nothing: either way clean_stale read 'not tracked' and removed a committed .tmp- folder (and
    committed_problem passed a committed site/). git is now asked without the GIT_* variables."""
    import subprocess
    from reportgen.commands import build, retest
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    runs = tmp_path / "results" / "runs"
    (runs / ".tmp-notes").mkdir(parents=True)
    (runs / ".tmp-notes" / "a.txt").write_text("kept")
    subprocess.run(["git", "-C", str(tmp_path), "add", "-f", "results/runs/.tmp-notes/a.txt"], check=True)
    monkeypatch.setenv(variable, str(tmp_path / "nowhere"))
    assert retest.clean_stale(runs) == [] and (runs / ".tmp-notes" / "a.txt").exists()
    assert "tracked by git" in capsys.readouterr().err and build.committed_problem(runs / ".tmp-notes")


def test_the_publishing_marker_is_never_written_through_a_link(tmp_path):
    """Round 21 #13: a committed .publishing-<id> link to an outside file was truncated."""
    from test_hostile_round16 import _stale
    from reportgen.commands import stale
    results, runs, tmp = _stale(tmp_path)
    outside = tmp_path / "precious"
    outside.write_text("PRECIOUS")
    (runs / f".publishing-{NEW}").symlink_to(outside)
    assert stale._publish_complete(runs, tmp).startswith("kept") and outside.read_text() == "PRECIOUS"


SPECIAL = {}
