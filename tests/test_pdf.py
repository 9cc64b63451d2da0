"""The whole article as one PDF: assembled from the built pages in nav order, printed by Chromium."""
import json
import re

import pytest

from reportgen.commands import pdf

HISTORICAL = {"s31_int8/inception_v1/framework_time": "560 ms", "s21_numpy/quad_fp32/1024": "225.42"}
CURRENT = "machine_peak/dtype=float32/isa=avx2/threads=1#gflops_p50"


def test_print_page_keeps_nav_order_and_links_inside(built_site):
    pages, name = pdf.nav_pages(built_site)
    html = pdf.assemble(built_site / "site", pages, name)
    order = [m.group(1) for m in re.finditer(r'<section class="print-page md-typeset" id="([^"]+)"', html)]
    assert order == [p.removesuffix(".md") for _, p in pages]
    assert order.index("codegen") == order.index("gemm-ladder") + 1
    assert 'id="codegen--apis"' in html                     # ids carry their page
    assert 'href="#codegen--apis"' in html                  # graph.md's pointer now points inside the PDF
    assert 'id="spec-history"' in html or "vchart" in html  # chart ids untouched
    assert 'class="num hist"' in html and 'class="num cur"' in html


def test_without_chromium_the_pdf_is_skipped_with_one_line(built_site, monkeypatch, capsys):
    monkeypatch.setattr(pdf, "chromium", lambda: None)
    assert pdf.write_pdf(built_site, built_site / "site") is None
    out = capsys.readouterr().out.strip().splitlines()
    assert len(out) == 1 and out[0].startswith("reportgen pdf: skipped, chromium is not installed")


@pytest.mark.browser
@pytest.mark.slow   # Chromium prints the whole article (about 40 pages): half a minute
def test_pdf_holds_every_chapter_with_historical_and_current_figures(built_site):
    pypdf = pytest.importorskip("pypdf")
    if pdf.chromium() is None:
        pytest.skip("Debian's chromium is not installed")
    out = pdf.write_pdf(built_site, built_site / "site", quiet=True)
    reader = pypdf.PdfReader(str(out))
    assert len(reader.pages) > 40
    text = re.sub(r"\s+", "", "".join(p.extract_text() for p in reader.pages))
    for figure_id, archived in HISTORICAL.items():
        assert re.sub(r"\s+", "", archived) in text, figure_id
    numbers = json.loads((built_site / "site" / "numbers.json").read_text(encoding="utf-8"))
    current = next(e["value"] for e in numbers if e["id"] == CURRENT)
    assert current in text
    for heading in ("代码生成与运行时模块", "GEMM优化阶梯", "INT8"):
        assert heading in text
    # collapsed blocks print open: a §9 summary table, an INT8 calibration table, an IR diff
    for inside in ("主要瓶颈（按测量）", "量化/反量化次数", "+++after", "@@-"):
        assert inside in text, inside
    # bookmarks from the headings, and charts from their large-text copies
    assert _outline_entries(reader.outline) >= 20
    printed = (built_site / "site" / pdf.PRINT_PAGE).read_text(encoding="utf-8")
    assert ".print.svg" in printed and not re.search(r'assets/charts/\w+\.svg"', printed)


def _outline_entries(outline):
    return sum(_outline_entries(o) if isinstance(o, list) else 1 for o in outline)


def test_print_page_opens_every_block_and_lists_the_chapters(built_site):
    pages, name = pdf.nav_pages(built_site)
    html = pdf.assemble(built_site / "site", pages, name)
    assert "<details" in html and not re.search(r"<details(?![^>]*\bopen\b)", html)
    toc = re.search(r'<section class="print-toc[^>]*>(.*?)</section>', html, re.S).group(1)
    assert toc.count("<li>") == len(pages)
