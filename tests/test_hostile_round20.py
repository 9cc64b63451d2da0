"""The twentieth round of the hostile corpus (issue #29), attack only, then fixed: the summary line
was compared as a figure at its own printed precision (1e1 ms stood for 14.9 ms, other scripts'
digits read as numbers, 5000 digits were a ValueError), an untimed record's summary could claim a
median, the harness checked a record without its full statistics, clean_stale removed a committed
folder, serve sent a folder's linked index.html, the corpus file itself was read without its shape
checked, and pdf broke on a bare nav entry.

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
import os

import pytest
from test_hostile_round4 import _expect
from test_hostile_round15_rules import CASE
from test_hostile_round18 import _refused

MUTATIONS = {}


@pytest.mark.parametrize("figure", ["1e1", "9.990", "\u0a67\u0a66", "1" * 5000])
def test_the_summary_is_exactly_what_the_harness_writes(tmp_path, figure):
    """Round 20 #9, #10, #13: the figure of 'p50 <v> ms over <n> samples' is compared as text."""
    _refused(tmp_path, f"[numpy_gemm] {CASE}: p50 {figure} ms over 3 samples\n", _expect("summary_exact"),
             samples=(0.00999, 0.00999, 0.00999), whole=True)


def test_an_untimed_records_summary_states_only_its_status():
    """Round 20 #11: '<id>: ok: p50 0.001 ms over 1000 samples' passed as an evidence record's summary."""
    from study import citation
    rec = {"id": CASE, "experiment": "numpy_gemm", "status": "ok", "samples": [], "stats": None}
    assert citation.summary_problem(rec, f"{CASE}: ok: p50 0.001 ms over 1000 samples")
    assert citation.summary_problem(rec, f"[numpy_gemm] {CASE}: ok") is None


def test_the_harness_checks_the_statistics_the_record_will_hold(tmp_path):
    """Round 20 #14: the harness checked a record holding p50 only, so '<id>: min 5 ms' passed there
    and load then refused the whole run: measured work that could never be published."""
    from test_harness import PASSED, _harness
    h = _harness(tmp_path)

    def say(line):   # what retest does: the family's stdout is its log
        with h.log_file.open("a", encoding="utf-8") as fh:
            fh.write(line + "\n")

    h.say = say
    with pytest.raises(ValueError, match="min"):
        h.measure("fam/m", {"m": 1}, check=lambda _: PASSED, call=lambda _: lambda: None, time="fixed",
                  note=lambda o: {"min_ms": 5000})


@pytest.mark.parametrize("link", [os.symlink, os.link])
def test_serve_checks_the_index_file_it_answers_a_folder_with(tmp_path, link):
    """Round 20 #20, #21: /sub/ was answered with sub/index.html, a link to a file outside."""
    from test_hostile_round11 import _get, _secret
    secret = _secret(tmp_path)
    site = tmp_path / "site"
    (site / "sub").mkdir(parents=True)
    (site / "index.html").write_text("<p>index</p>")
    link(secret, site / "sub" / "index.html")
    data = _get(site, "/sub/")
    assert data.startswith(b"HTTP/1.0 404") and b"SECRET" not in data, _expect("serve_linked_index")




@pytest.mark.parametrize("text, said", [("cases: [1]\n", "cases[0]: expected a mapping"),
                                        ("cases:\n  - {id: a, class: x}\n", "cases[0]: expected a mapping"),
                                        ("cases:\n  - {id: a, class: x, outcome: text, outcome: refused}\n",
                                         "given twice")])
def test_the_corpus_file_is_read_with_its_shape_checked(tmp_path, text, said):
    """Round 20 #22, #23: a case of another shape was a TypeError on the credibility page, and a key
    given twice turned a published case into 'refused'."""
    from reportgen.data import corpus
    from reportgen.errors import ReportError
    path = tmp_path / corpus.PATH
    path.parent.mkdir(parents=True)
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ReportError) as err:
        corpus.read(tmp_path)
    assert said in str(err.value) and str(path) in str(err.value), _expect("corpus_file_shape")


def test_a_bare_nav_entry_is_a_page_to_print(tmp_path):
    """Round 20 #25: 'nav: [index.md]' was an AttributeError in pdf.nav_pages."""
    from reportgen.commands import pdf
    (tmp_path / "mkdocs.yml").write_text("site_name: s\nnav:\n  - index.md\n  - A: [b.md, {C: c.md}]\n  - 3\n",
                                         encoding="utf-8")
    assert pdf.nav_pages(tmp_path) == ([("index", "index.md"), ("b", "b.md"), ("C", "c.md")], "s")




@pytest.mark.parametrize("name, text", [
    ("a.htm", "<!-- x --!><script>alert(1)</script> -->"),
    ("b.htm", "<!--><script>alert(1)</script>-->"),
    ("c.htm", "<![CDATA[ ]]><img src=x onerror=alert(1)>"),
    ("d.svg", '<!DOCTYPE svg [<!ENTITY x "&#60;script&#62;alert(1)&#60;/script&#62;">]><svg>&x;</svg>'),
    ("e.htm", '<svg><style><img src=x onerror=alert(1)></style></svg>'),
    ("f.htm", '<noembed><img title="</noembed><img src=x onerror=alert(1)>"></noembed>'),
])
def test_markup_a_browser_parses_otherwise_is_refused(tmp_path, name, text):
    """Round 20 #1-6: Python's HTMLParser and a browser disagree on these; each hid a script."""
    from test_hostile_round19 import _site_file_refused
    _site_file_refused(tmp_path, name, text, "parsed_otherwise")




def test_a_project_folder_reached_through_a_committed_link_is_refused(tmp_path):
    """Round 20 #19: docs_dir: lnk/docs (or results_dir: lnk/results), lnk a committed symlink:
    only the last part was checked for a link."""
    from reportgen.data import plainfile
    outside = tmp_path / "outside" / "docs"
    outside.mkdir(parents=True)
    root = tmp_path / "project"
    root.mkdir()
    (root / "lnk").symlink_to(tmp_path / "outside")
    problem = plainfile.linked_folder_problem(root / "lnk" / "docs", root, "docs_dir")
    assert problem.startswith(str(root / "lnk")) and _expect("folder_through_link") in problem
    assert plainfile.linked_folder_problem(root, root, "docs_dir") is None


SPECIAL = {case: None for case in ("summary_exact", "serve_linked_index", "corpus_file_shape", "parsed_otherwise",
                                   "folder_through_link")}
