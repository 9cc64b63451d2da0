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


SPECIAL = {"words_value_markup_guard", "csp_no_inline_or_eval", "site_dir_inside_site"}
