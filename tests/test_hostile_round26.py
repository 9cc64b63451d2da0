"""The twenty-sixth round of the hostile corpus (issue #29), attack only, then fixed: an id field of no
meaning (or a scope on an ok record) spelled one case twice, and the older spelling won; evidence
words the statement check did not read (a tag-shaped "[FAILED]", a status before the id, an id glued
to a path, a median between words); pdf removed the published PDF before it knew it could print.

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
import pytest
from conftest import ROOT
from helpers import record
from test_hostile_round4 import _expect

from study import citation, schema

MUTATIONS = {}
CASE = "numpy_gemm/dtype=float32/n=32/threads=1/blas=configured"


@pytest.mark.parametrize("case, case_id", [
    ("id_undeclared_field", CASE + "/zz=1"),
    ("id_undeclared_field", "e2e/model=resnet18_v1/size=224/engine=tvm_c/batch=1/threads=1/zz=1"),
    ("id_scope_on_ok", CASE + "/scope=x"),
])
def test_an_id_names_only_its_familys_fields(case, case_id):
    rec = record(case_id=case_id)
    if case_id.startswith("e2e/"):
        rec.update(experiment="e2e", case={"model": "resnet18_v1", "engine": "tvm_c", "batch": 1, "threads": 1,
                                           "input_size": 224, "seed": 0})
    found = schema.record_problems(rec)
    assert any(_expect(case) in line for line in found), found


def test_a_failed_familys_scope_record_still_loads():
    rec = record(case_id="numpy_gemm/scope=family")
    rec.update(status="error", samples=[], stats=None, error="boom")
    assert not [p for p in schema.record_problems(rec) if "scope" in p]


REC = {"id": CASE, "experiment": "numpy_gemm", "status": "ok", "stats": {"p50": 1.1e-6}, "samples": [1.1e-6] * 3}


@pytest.mark.parametrize("case, line", [
    ("evidence_tag_shaped_failure", f"[numpy_gemm] [FAILED] {CASE}"),
    ("evidence_status_before_id", f"timed out: {CASE}"),
    ("evidence_status_before_id", f"killed {CASE}"),
    ("evidence_status_before_id", f"error in {CASE}"),
    ("evidence_status_before_id", f"skipped {CASE}"),
    ("evidence_status_before_id", f"{CASE} -- status: timeout"),
    ("evidence_median_in_words", f"p50 was about 9.99 ms {CASE}"),
    ("evidence_median_in_words", f"{CASE} p50 latency 9.99 ms"),
    ("evidence_median_in_words", f"{CASE} median time 9.99 ms"),
    ("evidence_median_in_words", f"{CASE} 50th percentile 9.99 ms"),
    ("evidence_median_in_words", f"{CASE} p50 9.99 millisec"),
    ("evidence_id_in_a_path", f"results/{CASE}: FAILED"),
    ("evidence_id_in_a_path", f"x={CASE} FAILED"),
    ("evidence_id_in_a_path", f"-{CASE}: timeout"),
    ("evidence_id_in_a_path", f"{CASE}.log: FAILED"),
])
def test_what_a_line_says_about_a_record_is_read_whole(case, line):
    found = citation.statement_problems(REC, [line])
    assert found and all(_expect(case) in p for p in found), (line, found)


@pytest.mark.parametrize("line", [f"[numpy_gemm] {CASE}: p50 0.0011 ms over 3 samples",
                                  f"{CASE}: p50_ms=0.0011",
                                  "(context) op=QLinearConv node_ms=0.05", f"[numpy_gemm] {CASE}: ok"])
def test_lines_that_agree_with_the_record_still_pass(line):
    assert citation.statement_problems(REC, [line]) == []


def test_pdf_keeps_an_intact_published_pdf_until_it_replaces_it(tmp_path):
    """Round 26: pdf removed study.pdf and print.html before it verified; a verify that refused, or a
    print that failed, left the site without its PDF (the index's link answered 404)."""
    from reportgen.commands import pdf
    from reportgen.publish import sitecheck
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text("<p>x</p>")
    (site / pdf.PDF_NAME).write_bytes(b"%PDF intact")
    (site / pdf.PRINT_PAGE).write_text("<p>print</p>")
    sitecheck.write_manifest(site)
    assert sitecheck.drop_broken(site, [pdf.PRINT_PAGE, pdf.PDF_NAME]) == []
    assert (site / pdf.PDF_NAME).read_bytes() == b"%PDF intact", _expect("pdf_keeps_intact_output")
    (site / pdf.PRINT_PAGE).write_text("<p>cut")
    assert sitecheck.drop_broken(site, [pdf.PRINT_PAGE, pdf.PDF_NAME]) == [pdf.PRINT_PAGE]
    assert (site / pdf.PDF_NAME).exists() and sitecheck.manifest_problems(site) == []


def test_pdf_checks_its_outputs_before_it_verifies():
    import inspect
    from reportgen.commands import pdf
    source = inspect.getsource(pdf._verified_pdf)
    assert source.index("drop_broken") < source.index("verify_site") and "drop_from_manifest" not in source


# -- the site side (the second set of round 26) ---------------------------------------------------------

def test_serve_copies_only_names_inside_the_site_through_no_link(tmp_path):
    """Round 26: serve read site-files.json twice; a list rewritten in between to name ../../victim
    had that file overwritten by the copy, and x/hostname with x -> /etc served /etc/hostname."""
    import hashlib
    import os
    from reportgen.commands import serve
    from reportgen.errors import ReportError
    site, copy = tmp_path / "site", tmp_path / "copy"
    site.mkdir()
    (tmp_path / "victim.txt").write_text("precious")
    os.symlink(tmp_path, site / "x")
    sha = hashlib.sha256(b"precious").hexdigest()
    for rel in ("../victim.txt", "x/victim.txt", "/etc/hostname"):
        with pytest.raises(ReportError) as err:
            serve._snapshot(site, copy, {rel: sha})
        [line] = err.value.problems
        assert "\n" not in line and _expect("serve_list_read_once") in line, line
    assert (tmp_path / "victim.txt").read_text() == "precious" and not copy.exists()


def test_serve_reads_the_list_once(tmp_path, monkeypatch):
    from reportgen.commands import serve
    from reportgen.publish import plugin, sitecheck
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text(f"<html><head>{plugin.CSP_META}</head><body>home</body></html>")
    sitecheck.write_manifest(site)
    reads = []
    real = sitecheck.read_manifest
    monkeypatch.setattr(sitecheck, "read_manifest", lambda folder: reads.append(folder) or real(folder))

    from test_hostile_round25_site import Stopped
    monkeypatch.setattr(serve, "open_server", Stopped)
    serve.serve(site, 0, ROOT)
    assert len(reads) == 1


def test_pdf_refuses_a_site_folder_reached_through_a_link(tmp_path):
    import os
    from reportgen.commands import pdf
    from reportgen.errors import ReportError
    (tmp_path / "elsewhere" / "site").mkdir(parents=True)
    (tmp_path / "elsewhere" / "site" / "study.pdf").write_bytes(b"%PDF theirs")
    os.symlink(tmp_path / "elsewhere", tmp_path / "out")
    with pytest.raises(ReportError) as err:
        pdf.write_pdf(tmp_path, tmp_path / "out" / "site")
    assert _expect("pdf_site_link_chain") in str(err.value)
    assert (tmp_path / "elsewhere" / "site" / "study.pdf").read_bytes() == b"%PDF theirs"


@pytest.mark.parametrize("name, text", [
    ("a.svg", '<svg xmlns="http://www.w3.org/2000/svg"><script type="application/json"><script href="x/evil.js"/>'
              "</script></svg>"),
    ("b.xml", '<r><script type="application/json">{}</script></r>'),
])
def test_a_script_in_a_document_other_than_a_page_is_refused(tmp_path, name, text):
    from reportgen.publish import sitecheck
    (tmp_path / name).write_text(text)
    found = sitecheck.other_markup_problems(tmp_path, lambda rel: False)
    assert found and any(_expect("xml_data_script") in line for line in found), found


@pytest.mark.parametrize("case, planted", [
    ("page_data_script_markup", '<svg><script type="application/json" id="spec-zz">{"a": "<script href=\'x/evil.js\'/>"}'
                                "</script></svg>"),
    ("clobber_current_script", '<image name="currentScript" href="a.png">'),
    ("text_reordered", '<bdo dir="rtl">gol.exe</bdo>'),
    ("text_reordered", '<p dir="rtl">gol.exe</p>'),
    ("text_reordered", '<p style="unicode-bidi:bidi-override;direction:rtl">gol.exe</p>'),
    ("text_reordered", '<p style="unicode-bidi:\\62 idi-override">x</p>'),
    ("text_reordered", '<svg><text direction="rtl" unicode-bidi="bidi-override">gol.exe</text></svg>'),
    ("spec_bidi_escape", '<script type="application/json" id="spec-zz">{"title": "\\u202egol.exe"}</script>'),
])
def test_page_markup_of_round_26_is_refused(tmp_path, case, planted):
    from reportgen.publish import verify
    from test_hostile_round24 import _config
    (tmp_path / "index.html").write_text(f"<html><body>{planted}{_config()}</body></html>", encoding="utf-8")
    found = verify.script_problems(ROOT, tmp_path)
    assert found and any(_expect(case) in line for line in found), found


def test_a_stylesheet_holding_a_bidi_character_is_refused(tmp_path):
    from reportgen.publish import sitecheck
    (tmp_path / "x.css").write_text('p::before { content: "\\202E"; }')
    found = sitecheck.other_markup_problems(tmp_path, lambda rel: False)
    assert found and _expect("css_bidi_escape") in found[0], found


def test_a_page_shows_only_the_charts_the_build_draws():
    from reportgen.publish import plugin
    from reportgen.render import charts
    spec = {"mark": "point", "data": {"values": [{"x": 1}]}}
    own = f'<script type="application/json" id="spec-roofline">{charts.payload(spec)}</script>'
    assert plugin.spec_problem("docs/x.md", own, {"roofline": spec}) is None
    for page in (own.replace('"x": 1', '"x": 9'), own.replace("spec-roofline", "spec-mine")):
        line = plugin.spec_problem("docs/x.md", page, {"roofline": spec})
        assert line and line.startswith("docs/x.md: ") and _expect("page_own_chart") in line


def test_a_yaml_merge_key_is_refused():
    from reportgen.data import safeyaml
    with pytest.raises(safeyaml.Refused) as err:
        safeyaml.loads("a:\n  <<: {text: a}\n  text: b\n")
    assert _expect("yaml_merge_key") in str(err.value)


def test_a_run_dated_before_the_rule_loads_only_when_listed(tmp_path):
    """Round 26 (#8 of the first set): a run dated before NAMED_FROM, naming a real commit of its day,
    fell outside the citation rule; such runs are the ones archive/runs-before-named.txt lists."""
    from helpers import ENV, write_run
    from reportgen.data import load, runfacts
    from reportgen.errors import ReportError
    from study import identity
    mid = identity.machine_id(ENV)
    env = dict(ENV, machine_id=mid)
    first, late = f"20261201T000000Z-quick-{mid}", f"20261202T000000Z-quick-{mid}"
    results = tmp_path / "results"
    results.mkdir()
    (tmp_path / "archive").mkdir()
    write_run(results, first, [record(first)], sealed=False, environment=env)
    runfacts.sealed_list(results).write_text(f"# listed\n{first} {runfacts.manifest_sha256(results / 'runs' / first)}\n")
    assert len(load.read_runs(results)) == 1
    write_run(results, late, [record(late)], sealed=False, environment=env)
    with pytest.raises(ReportError) as err:
        load.read_runs(results)
    assert any(late in p and _expect("run_dated_back") in p for p in err.value.problems)
    runfacts.sealed_list(results).write_text(f"{late} {'0' * 64}\n20991231T000000Z-quick-f6ab9f827cfd {'0' * 64}\n")
    with pytest.raises(ReportError) as err:
        load.read_runs(results)
    assert any("runs-before-named.txt:2:" in p for p in err.value.problems)


def test_the_list_is_sealed_by_the_archive(tmp_path):
    """Round 27: the list sat in results/, where a pull request could edit or delete it unnoticed (no
    list: no rule); the archive's seal now covers it."""
    import shutil
    from reportgen.data import archive, runfacts
    shutil.copytree(ROOT / "archive", tmp_path / "archive")
    assert archive.seal_problems(tmp_path / "archive") == []
    runfacts.sealed_list(tmp_path / "results").unlink()
    found = archive.seal_problems(tmp_path / "archive")
    assert any(runfacts.SEALED in line and _expect("run_list_sealed") in line for line in found), found


def test_every_committed_run_dated_before_the_rule_is_listed():
    from reportgen.data import runfacts
    from study import citation
    listed = set(runfacts.sealed_list(ROOT / "results").read_text().split())
    old = {p.name for p in (ROOT / "results" / "runs").iterdir() if p.is_dir() and not citation.bound(p.name)
           and not p.name.startswith(".")}
    assert old <= listed


SPECIAL = {case: None for case in ("serve_list_read_once", "pdf_site_link_chain", "xml_data_script",
                                   "page_data_script_markup", "text_reordered", "spec_bidi_escape",
                                   "css_bidi_escape", "page_own_chart", "yaml_merge_key", "run_dated_back", "run_list_sealed",
                                   "id_undeclared_field", "id_scope_on_ok", "evidence_tag_shaped_failure",
                                   "evidence_status_before_id", "evidence_median_in_words", "evidence_id_in_a_path",
                                   "pdf_keeps_intact_output")}
