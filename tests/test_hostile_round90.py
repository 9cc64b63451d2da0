"""The ninetieth round of the hostile corpus (issue #29), site set: attack only, then fixed.

11 probes, 5 failed (two weak): a chart shown on two pages, or "<a href='#why'>", made `reportgen pdf` write a
print.html that every later verify refused; a docs/404.md replaced the theme's 404 page (and took links.py's
exemption for it); mkdocs.yml without validation: ran MkDocs' info levels; a '{#x}' in a code fence stood for a
snippet counterpart's heading.  The data set's round-90 tests are in test_hostile_round89.py, but for the two
left open there and mended a session later: a check_failed record's errors and samples, and a failed graph step's
IR sizes, were printed as current figures (e2e.md, graph.md, its provenance entry) though no run was compared with
them (the last two tests here; tests/test_fields_held.py holds every page to it over the committed results).

The case ids below are entries of tests/data/hostile/cases.yaml (test_hostile.py finds each one's test).
"""
import pytest
from test_hostile_round4 import _expect

MUTATIONS, SPECIAL = {}, dict.fromkeys(("print_page_links_checked", "docs_404_refused", "validation_required",
                                        "counterpart_anchor_as_markdown", "family_failure_left_out",
                                        "failed_record_no_figure", "failed_step_no_figure"))


def test_the_print_page_is_refused_naming_the_docs_page(tmp_path):
    from reportgen.commands import pdf
    from reportgen.publish import verify
    text = ('<body><section class="print-page md-typeset" id="index"><svg id="chart-h"></svg><a href=\'#why\'>w</a>'
            '</section><section class="print-page md-typeset" id="history"><svg id="chart-h"></svg></section></body>')
    parsed = verify._parse(text.encode())
    said = pdf._print_links_problems(tmp_path, text, parsed, tmp_path / "print.html")
    assert any("'chart-h' is given twice (from index.md, history.md)" in p for p in said), said
    assert any("#why" in p and "(from index.md)" in p for p in said), (said, _expect("print_page_links_checked"))


def test_a_docs_page_never_stands_in_for_a_theme_template(tmp_path):
    import types
    from reportgen.publish import plugin
    theme, docs = tmp_path / "theme", tmp_path / "docs"
    theme.mkdir()
    docs.mkdir()
    (theme / "404.html").write_text("x")
    (docs / "404.md").write_text("# x")
    page = types.SimpleNamespace(abs_src_path=str(docs / "404.md"), src_uri="404.md", dest_uri="404.html")
    said = plugin.theme_shadow_problem([page], docs, [str(theme)])
    assert said and said.startswith("docs/404.md: ") and _expect("docs_404_refused") in said


def test_mkdocs_yml_without_validation_is_refused(tmp_path):
    from conftest import copy_project
    from reportgen.commands import build
    from reportgen.errors import ReportError
    project = copy_project(tmp_path / "project")
    path = project / "mkdocs.yml"
    text = path.read_text(encoding="utf-8")
    start = text.index("validation:")
    end = text.index("\ntheme:")
    path.write_text(text[:start] + text[end + 1:], encoding="utf-8")
    with pytest.raises(ReportError) as refused:
        build._config_problems(project)
    assert _expect("validation_required") in str(refused.value)


def test_a_counterpart_anchor_is_a_heading_as_markdown_reads_it(tmp_path):
    from reportgen.data import seed
    (tmp_path / "p.md").write_text("# a\n\n```\n## x {#x}\n```\n<!-- {#y} -->\n`{#z}`\n## w {#w}\n", encoding="utf-8")
    for anchor in "xyz":
        assert _expect("counterpart_anchor_as_markdown") in seed._counterpart_problem(tmp_path, f"p.md#{anchor}")
    assert seed._counterpart_problem(tmp_path, "p.md#w") is None


# Data set, P5: a family's own failure record (what retest writes when a family exits early) of a family whose pages
# read each record's case fields stopped the build (gemm_tvm: KeyError 'stage'); their queries leave it out.

@pytest.mark.parametrize("family,shown", [("gemm_tvm", False), ("numpy_gemm", False), ("gemm_hand", False),
                                          ("machine_peak", False), ("e2e_tune", True), ("graph", True)])
def test_a_family_failure_is_left_out_where_pages_read_case_fields(family, shown):
    from helpers import record
    from reportgen.data import frame, merge
    ok = record(case_id=f"{family}/m=1")
    failed = record(case_id=f"{family}/scope=family", case={"scope": "family"})
    failed.update(status="run_failed", samples=[], stats=None)
    current = frame.Records({r["id"]: merge.Current(r, None) for r in (ok, failed)})
    ids = set(merge.family(current, family))
    assert (failed["id"] in ids) == shown and ok["id"] in ids, (ids, _expect("family_failure_left_out"))


def _failed(case_id, **overrides):
    from helpers import record
    from reportgen.data.merge import Current
    rec = record(case_id=case_id, samples=(0.0123456, 0.0123457, 0.0123458), **overrides)
    rec["status"], rec["error"] = "check_failed", "check_failed: max_rel_err 0.75 above 1e-3"
    rec["check"].update(max_rel_err=0.987654, passed=False)
    return Current(rec, None)


def test_a_failed_record_has_no_figure(tmp_path):
    from helpers import record
    from reportgen.data.merge import Current
    from reportgen.render import provenance
    from reportgen.render.figures import FigureBook, derive, operand
    book = FigureBook()
    book.set_page("e2e.md")
    cur = _failed("e2e/model=resnet18_v1/engine=tvm_d/batch=1/threads=2")
    shown = [book.current("x#max_rel_err", "9.9e-01", "rel", cur),
             book.current("y#ratio", "2.00", "x", Current(record(), None),   # an ok record, a failed operand
                          derived=derive("a / b", operand("a", cur, "12.3", "ms")))]
    for text in shown:
        assert 'class="num failed"' in text and _expect("failed_record_no_figure") in text and "9.9e-01" not in text
    assert not book.entries, "a failed record's figure was indexed in numbers.json"
    run = type("Run", (), {"manifest": {"profile": "standard"}})()
    log = tmp_path / cur.record["log"]["path"]
    log.parent.mkdir(parents=True)
    log.write_text("start\n" + cur.record["id"] + " check_failed\n", encoding="utf-8")
    entry = provenance.entry(tmp_path, Current(cur.record, run), "../data")
    for number in ("0.987654", "0.0123457", "1e-05", "0.012345"):
        assert number not in entry, number


def test_a_failed_graph_step_prints_no_ir_figure():
    from reportgen.pages import graph
    from reportgen.render.figures import FigureBook
    book = FigureBook()
    book.set_page("graph.md")
    cur = _failed("graph/unit=conv/pipeline=decompose/step=1", case={"unit": "conv", "pipeline": "decompose",
                                                                     "step": 1, "pass": "FuseOps"})
    cur.record["extra"] = {"stats": {"n_calls": 987654, "calls": {"conv2d": 987653}, "n_relax_funcs": 987652,
                                     "n_tir_funcs": 987651, "intermediate_bytes": 987650, "tir_alloc_bytes": 987649},
                           "changed": True, "artifacts": {"ir": "runs/x/artifacts/none.txt"}}
    table = graph.step_table(book, {cur.record["id"]: cur}, "decompose")
    assert _expect("failed_step_no_figure") in table and "98765" not in table
    assert graph.step_diffs("/nonexistent", {cur.record["id"]: cur}, "decompose", "../data") == ""
