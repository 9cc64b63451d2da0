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
    assert found == [[]], _expect("backspace_read_once")


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


SPECIAL = {case: None for case in ("backspace_read_once", "archive_column_twice")}
