"""The thirtieth round of the hostile corpus (issue #29), attack only, then partly fixed: a backspace
in a cited line made the statement check loop for ever (round 29's reading of backspaces matched a
word boundary, not the character), an OSC title's words were dropped from the check while the page
shows them, an archive column key given twice overwrote another column's figures, and a docs page
named x.markdown was never read for hand-typed figures.

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
import threading

import pytest
from test_hostile_round4 import _expect

from study import citation

MUTATIONS = {}
CASE = "numpy_gemm/dtype=float32/n=32/threads=1/blas=configured"
REC = {"id": CASE, "experiment": "numpy_gemm", "status": "ok", "stats": {"p50": 1.1e-3}}


@pytest.mark.parametrize("line", [f"{CASE}: p50 1.10 ms [####\b\b\b\b    ]", "progress\b\b\b\bdone", "\b" * 5000])
def test_a_backspace_in_a_cited_line_is_read_in_one_pass(line):
    found = []
    worker = threading.Thread(target=lambda: found.append(citation.statement_problems(REC, [line])), daemon=True)
    worker.start()
    worker.join(10)
    assert len(found) == 1 and isinstance(found[0], list), _expect("backspace_read_once")   # returned, either way


@pytest.mark.parametrize("said", ["\x1b]0;FAILED: result differs\x07p50 1.1 ms", "p50 1.1 ms \x1b]0;FAILED mismatch"])
def test_an_escape_sequences_words_are_read(said):
    found = citation.statement_problems(REC, [f"{CASE}: {said}"])
    assert found and _expect("evidence_more_failures") in found[0], found


def test_an_archive_column_key_given_twice_is_refused(tmp_path):
    from reportgen.data import archive
    raw = {"columns": [{"key": "32", "label": "32", "kind": "figure"}, {"key": "32", "label": "128", "kind": "figure"}],
           "rows": [{"key": "r", "label": "R", "cells": ["1.82", "36.16"]}]}
    found = archive._shape_problems(tmp_path / "t.yaml", raw)
    assert any("columns[1].key" in p and _expect("archive_column_twice") in p for p in found), found


@pytest.mark.parametrize("name", ["x.markdown", "x.mdown", "x.mkd"])
def test_a_docs_page_of_another_markdown_suffix_is_read_for_typed_figures(tmp_path, name):
    from reportgen.publish import verify
    (tmp_path / name).write_text("# x\n\np50 0.01 ms\n", encoding="utf-8")
    [line] = verify.typed_figures(tmp_path)
    assert line.startswith(f"{tmp_path / name}:3:") and _expect("typed_figure_spelled") in line


@pytest.mark.parametrize("css", [".h { & { color: #f00; } opacity: 0; }", ".h { color: rgb(0 0 0 / 0%); }",
                                 "p { color: Canvas; }", "p { background: url(\"data:image/svg+xml,x\"); }",
                                 "p { font-size: 0.1pt; }", "p { font-size: 1e-3em; }", "p { font-size: calc(1px); }",
                                 "p { height: 0; overflow: hidden; }", "p { font-size: .3rem; }"])
def test_a_project_stylesheets_values_are_allowed_ones_too(tmp_path, css):
    from reportgen.publish import sitecheck
    (tmp_path / "study.css").write_text(css, encoding="utf-8")
    found = sitecheck.stylesheet_problems(tmp_path / "study.css", rules=True)
    assert found and _expect("css_allowed_properties") in found[0], found


@pytest.mark.parametrize("planted", ["<video>not</video>", "<canvas>not</canvas>", "<meter>not</meter>",
                                     "<progress>not</progress>", "<select><option>x</option></select>",
                                     '<input type="hidden" value="not">'])
def test_fallback_content_elements_are_refused(tmp_path, planted):
    from conftest import ROOT
    from reportgen.publish import verify
    from test_hostile_round24 import _config
    (tmp_path / "index.html").write_text(f"<html><body>{planted}{_config()}</body></html>", encoding="utf-8")
    found = verify.script_problems(ROOT, tmp_path)
    assert any(_expect("ua_hidden_markup") in line for line in found), found


@pytest.mark.parametrize("planted", ["<table><tr><td>exe.</td></tr>gol</table>", "<table><tbody>gol<tr><td>x</td></tr>"
                                     "</tbody></table>"])
def test_text_the_browser_moves_out_of_a_table_is_refused(tmp_path, planted):
    from conftest import ROOT
    from reportgen.publish import verify
    from test_hostile_round24 import _config
    (tmp_path / "index.html").write_text(f"<html><body>{planted}{_config()}</body></html>", encoding="utf-8")
    found = verify.script_problems(ROOT, tmp_path)
    assert any("right inside <" in line and _expect("ua_hidden_markup") in line for line in found), found


def test_a_table_built_by_markdown_passes(tmp_path):
    from conftest import ROOT
    from reportgen.publish import verify
    from test_hostile_round24 import _config
    table = "<table>\n<thead>\n<tr>\n<th>a</th>\n</tr>\n</thead>\n<tbody>\n<tr>\n<td>1</td>\n</tr>\n</tbody>\n</table>"
    (tmp_path / "index.html").write_text(f"<html><body>{table}{_config()}</body></html>", encoding="utf-8")
    assert not [line for line in verify.script_problems(ROOT, tmp_path) if "right inside" in line]


def test_a_search_language_needs_the_themes_own_script(tmp_path):
    import json
    from conftest import ROOT
    from reportgen.publish import verify
    (tmp_path / "search").mkdir()
    index = tmp_path / "search" / "search_index.json"
    for lang, refused in ((["en"], False), (["de"], False), (["zz"], True)):
        index.write_text(json.dumps({"config": {"lang": lang}, "docs": []}))
        assert bool(verify._search_index_problems(tmp_path, ROOT)) is refused, lang
    assert _expect("search_lang_script") not in verify._search_index_problems(tmp_path, ROOT)[0]
    assert "the theme ships no" in verify._search_index_problems(tmp_path, ROOT)[0]


SPECIAL = {case: None for case in ("backspace_read_once", "archive_column_twice")}
