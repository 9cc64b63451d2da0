"""The eighty-eighth round of the hostile corpus (issue #29): attack only, then fixed.

Site set, 9 probes, 4 failed (two weak): the coverage page quoted archive words raw in its reasons (a checklist
item's required term, a passage's facts: a live outside link, bold, a figure no check read); a YAML "\\x02" in an
archive snippet became part of a fence once Markdown dropped it, and the text left its code block; a snippet's
counterpart named 'nonexistent.md' was published as a dead link without a word.

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
import types

import pytest
from test_hostile_round4 import _expect

MUTATIONS = {}
SPECIAL = {case: None for case in ("coverage_reasons_text", "yaml_controls_refused", "code_today_a_docs_page",
                                   "site_links_resolve", "ok_record_plain",
                                   "failed_error_no_median", "family_status_tied", "tuning_case_its_own")}

EVIL = "**123 \u500d** [x](https://evil.example/) <b>b</b> | c"


def test_the_coverage_pages_reasons_are_text():
    import markdown
    from reportgen.publish import coveragepage
    item = {"id": "x", "article": "intro", "content": "c", "seed_sections": ["1"], "page": "method.md", "anchor": "a"}
    text = coveragepage.coverage_markdown([types.SimpleNamespace(item=item, covered=False, reasons=[EVIL])], {}, [], {})
    passage = {"id": "p", "kind": "prose", "page": "method.md", "anchor": "a"}
    text += "\n" + "\n".join(coveragepage.content_markdown([types.SimpleNamespace(item=passage, covered=False, reasons=[EVIL])],
                                                           {}, {}))
    html = markdown.markdown(text, extensions=["tables"])
    assert "<strong>" not in html and "<b>" not in html and "<a " not in html, html
    assert html.count(_expect("coverage_reasons_text")) == 2


@pytest.mark.parametrize("text", ['a: "x\\x02y"', 'a: "\\x7f"', 'a: ["\\x1b[31m"]', 'a: "\\x9b"'])
def test_a_yaml_value_holds_no_control_character(text):
    from reportgen.data import safeyaml
    with pytest.raises(safeyaml.Refused) as refused:
        safeyaml.loads(text)
    assert _expect("yaml_controls_refused") in str(refused.value)
    assert safeyaml.loads('a: "tab\\there"') == {"a": "tab\there"}
    assert safeyaml.loads(text, controls=True)   # the hostile corpus's payloads


def test_a_code_snippets_today_is_a_page_of_docs(tmp_path):
    import shutil
    import yaml
    from conftest import ROOT
    from reportgen.data import safeyaml, seed
    from reportgen.errors import ReportError
    shutil.copytree(ROOT / "archive", tmp_path / "archive")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "method.md").write_text("# m {#install}\n", encoding="utf-8")
    path = tmp_path / "archive" / "code.yaml"
    data = safeyaml.loads(path.read_text(encoding="utf-8"))
    for snip in data["snippets"]:
        snip["today"] = "method.md#install"
    data["snippets"][0]["today"] = "nonexistent.md"
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    with pytest.raises(ReportError) as refused:
        seed.read_code(tmp_path / "archive")
    assert "snippets[0].today" in str(refused.value) and _expect("code_today_a_docs_page") in str(refused.value)
    assert len(refused.value.problems) == 1


def test_every_link_of_the_site_resolves(tmp_path):
    from reportgen.publish import links, verify
    site = tmp_path / "site"
    (site / "sub").mkdir(parents=True)
    (site / "a.html").write_text('<h1 id="top">a</h1><a href="sub/b.html#x">b</a><a href="#top">t</a>'
                                 '<a href="https://example.org/">e</a>', encoding="utf-8")
    (site / "sub" / "b.html").write_text('<p id="x">b</p><a href="../nonexistent.html">d</a><a href="../a.html#nope">n</a>'
                                         '<a href="../../outside.html">o</a><a href="../study.pdf">p</a>', encoding="utf-8")
    pages = verify._parse_pages(site, [])
    ids = {rel: page.ids for rel, page in pages.items()}
    assert links.problems(site, "a.html", pages["a.html"].links, ids) == []
    said = links.problems(site, "sub/b.html", pages["sub/b.html"].links, ids)
    assert len(said) == 3 and _expect("site_links_resolve") in said[0], said
    assert "has no element #nope" in said[1] and "leaves the site" in said[2]


# Data set, 18 probes, 5 failed: what an ok record's error, metric and check.reference say; a failed record's error
# stating a median; run.json's family status, exit code and log; a tuned record's case naming another tuning.

@pytest.mark.parametrize("change,field", [({"error": "numeric check FAILED: max error 3.2"}, "error"),
                                          ({"error": ""}, "error"), ({"metric": "gflops_per_s"}, "metric")])
def test_an_ok_record_has_no_error_and_a_known_metric(change, field):
    from helpers import record
    from study import schema
    said = schema.record_problems({**record(), **change})
    assert any(p.startswith(f"{field}: ") for p in said) and any(_expect("ok_record_plain") in p for p in said), said


@pytest.mark.parametrize("reference", ["", [1], "x" * 201, None])
def test_a_checks_reference_is_a_short_text(reference):
    from helpers import record
    from study import schema
    rec = record()
    rec["check"]["reference"] = reference
    assert any(p.startswith("check.reference: ") and _expect("ok_record_plain") in p for p in schema.record_problems(rec))


@pytest.mark.parametrize("error,refused", [("retried ok: p50 0.0001 ms over 21 samples", True),
                                           ("numpy_gemm/dtype=float32/n=32/threads=1/blas=configured: p50 0.0001 ms "
                                            "over 21 samples", True), ("note p50_ms=0.1", True),
                                           ("family timed out after 600 s", False),
                                           ("TVMError: check failed: max error 3.2 exceeds 1e-05", False)])
def test_a_failed_records_error_states_no_median(error, refused):
    from helpers import record
    from study import citation, schema
    rec = record(status="timeout", error=error)
    rec.update(samples=[], stats=None, repeat=0, metric="none")
    rec["check"].update(passed=None, max_abs_err=None, max_rel_err=None)
    assert schema.record_problems(rec, pending_log=True) == []
    said = citation.failed_error_problems(rec)   # read by load for each record
    assert bool(said) == refused, said
    assert not refused or _expect("failed_error_no_median") in said[0]


def _family(status, code, *statuses, files=True, others=1):
    manifest = {"files": {"logs/gemm_hand.log": "0" * 64} if files else {}}
    entry = {"status": status, "exit_code": code, "log": "runs/R/logs/gemm_hand.log"}
    said = "family timed out after 60 s" if status == "timeout" else f"family exited with code {code}: x"
    records = [{"experiment": "gemm_hand", "case": {"scope": "family"}, "status": s, "error": said} for s in statuses]
    records += [{"experiment": "gemm_hand", "case": {"m": 1}, "status": "ok"}] * others
    return entry, records, manifest


@pytest.mark.parametrize("args,kwargs,refused", [
    (("ok", 0), {}, False), (("run_failed", 1, "run_failed"), {}, False), (("stopped", -15, "run_failed"), {}, False),
    (("timeout", -9, "timeout"), {}, False), (("timeout", 124), {}, True), (("ok", 1), {}, True),
    (("ok", 0, "run_failed"), {}, True), (("ok", 0), {"others": 0}, True), (("run_failed", 0, "run_failed"), {}, True),
    (("ok", 0), {"files": False}, True), (("timeout", -9, "run_failed"), {}, True)])
def test_a_familys_status_is_what_its_records_and_exit_code_say(args, kwargs, refused):
    from reportgen.data import familyfacts
    entry, records, manifest = _family(*args, **kwargs)
    said = familyfacts.status_problems("gemm_hand", entry, records, manifest)
    assert bool(said) == refused, said


def test_a_tuned_records_case_names_its_own_tuning():
    from reportgen.data import familyfacts
    tune = {"id": "e2e_tune/x", "status": "ok", "fingerprint": "a" * 64}
    by_id = {"T": types.SimpleNamespace(records=[tune])}
    claim = {"run_id": "T", "record": "e2e_tune/x"}
    ok = {"case": {"tuning_run": "T", "tuning_fingerprint": "a" * 64}}
    assert familyfacts.tuning_case_problems(ok, claim, by_id) == []
    for case in ({"tuning_run": "I", "tuning_fingerprint": "a" * 64}, {"tuning_run": "T", "tuning_fingerprint": "0" * 64},
                 {"tuning_run": None}):
        said = familyfacts.tuning_case_problems({"case": case}, claim, by_id)
        assert len(said) == 1 and _expect("tuning_case_its_own") in said[0], said


def test_a_family_failures_error_quotes_no_summary(tmp_path):
    from reportgen.commands import retest
    log = tmp_path / "x.log"
    log.write_text("[gemm_hand] gemm_hand/m=1: p50 0.0001 ms over 21 samples\n", encoding="utf-8")
    rec = retest._failure_record("R", "gemm_hand", "run_failed", 1, "runs/R/logs/x.log", log, 60)
    assert "p50" not in rec["error"] and rec["error"].startswith("family exited with code 1: ")
