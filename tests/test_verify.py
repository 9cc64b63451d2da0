"""verify: a figure without a record, an altered archive figure, typed figures, broken links."""
import json

import pytest

from reportgen.publish import verify
from reportgen.errors import ReportError


def test_typed_figures_are_found(tmp_path):
    (tmp_path / "page.md").write_text(
        "历史上快了 2.12 倍，延迟 12.3 ms。\n"
        "{{ numpy_gflops('float32', 1024, 1) }} GFLOPS 来自记录。\n"
        "```bash\nsleep 5s\n```\n"
        "矩阵 1024×1024 与 §21 不算数字结果。\n", encoding="utf-8")
    problems = verify.typed_figures(tmp_path)
    assert [p.split(": ", 1)[1] for p in problems] == [
        "hand-typed figure '2.12 倍': take it from a record or the archive through a placeholder",
        "hand-typed figure '12.3 ms': take it from a record or the archive through a placeholder"]
    assert all(p.startswith(f"{tmp_path / 'page.md'}:1:") for p in problems)


def test_committed_docs_have_no_typed_figures():
    from conftest import ROOT
    assert verify.typed_figures(ROOT / "docs") == []


def test_built_site_verifies(built_site):
    assert verify.verify(built_site, built_site / "site")
    numbers = json.loads((built_site / "site" / "numbers.json").read_text(encoding="utf-8"))
    kinds = {e["kind"] for e in numbers}
    assert kinds == {"historical", "current"}
    current = [e for e in numbers if e["kind"] == "current"]
    assert all(e["record"] and e["sha256"] and e["log"] for e in current)


def _problems(project):
    with pytest.raises(ReportError) as err:
        verify.verify(project, project / "site")
    return err.value.problems


def test_altered_historical_figure_is_caught(built_copy):
    page = built_copy / "site" / "gemm.html"
    text = page.read_text(encoding="utf-8")
    page.write_text(text.replace('data-num="s21_numpy/single_fp32/32" title="历史数据（s21_numpy/single_fp32/32）">1.82<',
                                 'data-num="s21_numpy/single_fp32/32" title="历史数据（s21_numpy/single_fp32/32）">1.83<'),
                    encoding="utf-8")
    assert f"{page}: figure 's21_numpy/single_fp32/32': shows '1.83' but the archive has '1.82'" in _problems(built_copy)


def test_figure_without_record_is_caught(built_copy):
    page = built_copy / "site" / "gemm.html"
    with open(page, "a", encoding="utf-8") as fh:
        fh.write('<a class="num cur" data-num="numpy_gemm/made-up#gflops" href="x.html">999</a>')
    assert f"{page}: figure 'numpy_gemm/made-up#gflops': not in numbers.json for this page" in _problems(built_copy)


def test_numbers_json_lists_exactly_what_each_page_shows(built_site, built_copy):
    """Both ways: a listed figure its page does not show is caught, and so is a shown figure
    listed only for another page."""
    index = built_copy / "site" / "numbers.json"
    numbers = json.loads(index.read_text(encoding="utf-8"))
    shown = {(e["page"], e["id"]) for e in numbers}
    pages = {e["page"] for e in numbers}
    assert len(pages) > 5 and len(shown) == len(numbers)
    entry = next(e for e in numbers if e["page"] == "gemm.md" and e["kind"] == "current")
    moved = dict(entry, page="history.md")          # same figure, claimed for a page without it
    index.write_text(json.dumps([e for e in numbers if e is not entry] + [moved]), encoding="utf-8")
    problems = _problems(built_copy)
    assert f"{index}: figure {entry['id']!r} is listed for history.md but that page does not show it" in problems
    assert f"{built_copy / 'site' / 'gemm.html'}: figure {entry['id']!r}: not in numbers.json for this page" in problems


def test_archived_figure_missing_from_site_is_caught(built_copy):
    index = built_copy / "site" / "numbers.json"
    numbers = [e for e in json.loads(index.read_text(encoding="utf-8")) if e["id"] != "s31_int8/resnet18_v1/tvm_int8"]
    index.write_text(json.dumps(numbers), encoding="utf-8")
    problems = _problems(built_copy)
    assert f"{index}: archived figure 's31_int8/resnet18_v1/tvm_int8' appears on no page" in problems


def test_broken_provenance_anchor_is_caught(built_copy):
    prov = built_copy / "site" / "provenance" / "numpy_gemm" / "dtype-float32.html"   # the entry's group page
    text = prov.read_text(encoding="utf-8")
    prov.write_text(text.replace('id="numpy-gemm-dtype-float32-n-32-threads-1-blas-configured"', 'id="gone"'),
                    encoding="utf-8")
    problems = _problems(built_copy)
    assert any("anchor #numpy-gemm-dtype-float32-n-32-threads-1-blas-configured not found" in p for p in problems)


def test_altered_log_fails_verify(built_copy):
    log = next((built_copy / "results" / "runs").glob("*/logs/numpy_gemm.log"))
    log.write_text(log.read_text(encoding="utf-8") + "tampered\n", encoding="utf-8")
    assert any("log.sha256" in p and "was altered" in p for p in _problems(built_copy))


def test_a_page_is_parsed_once_per_content_and_again_when_a_byte_changes():
    from reportgen.publish import verify as v
    page = b'<p><span class="num hist" data-num="s21/x">1.82</span></p>'
    first = v._parse(page)
    assert v._parse(page) is first and first.nums[0]["text"] == "1.82"
    changed = v._parse(page.replace(b"1.82", b"1.83"))
    assert changed is not first and changed.nums[0]["text"] == "1.83"
    assert v._parse(b'<p id="a">x\r\ny</p>').ids == {"a"}


def test_a_site_over_its_size_budget_is_refused_naming_the_largest_files(tmp_path):
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "big.log").write_bytes(b"x" * 3000)
    (tmp_path / "index.html").write_bytes(b"y" * 100)
    [problem] = verify._size_problems(tmp_path, budget_mb=0.002)
    assert "0.0 MB, over the 0.002 MB budget" in problem and problem.index("big.log") < problem.index("index.html")
    assert verify._size_problems(tmp_path, budget_mb=1) == []


def test_the_site_ships_only_run_files_its_pages_cite(built_site):
    """site/data/runs holds a run's manifest and the files some page links to, nothing else."""
    import re
    site = built_site / "site"
    linked = set()
    for page in site.rglob("*.html"):
        for m in re.finditer(r'(?:href|src)="(?:\.\./)*data/runs/([^"#?]+)"', page.read_text(encoding="utf-8")):
            linked.add(m.group(1))
    shipped = {p.relative_to(site / "data" / "runs").as_posix() for p in (site / "data" / "runs").rglob("*") if p.is_file()}
    assert shipped - {s for s in shipped if s.endswith("/run.json")} <= linked
    assert {s.split("/")[0] for s in shipped} == {s.split("/")[0] for s in linked}
    assert sum(p.stat().st_size for p in site.rglob("*") if p.is_file()) <= verify.SIZE_BUDGET_MB * 1e6


def test_every_page_declares_the_content_security_policy(built_site):
    """A static host (or a file opened from disk) sends no headers: each page carries the policy
    itself, so that nothing is fetched from elsewhere and no plugin runs."""
    from reportgen.publish.plugin import PAGE_CSP
    site = built_site / "site"
    meta = f'<meta http-equiv="Content-Security-Policy" content="{PAGE_CSP}">'
    pages = [p for p in site.rglob("*.html") if p.name not in ("404.html", "print.html")]
    assert pages and not [p for p in pages if meta not in p.read_text(encoding="utf-8")[:4000]]
    assert "connect-src 'self'" in PAGE_CSP and "object-src 'none'" in PAGE_CSP


def test_shipped_records_and_log_excerpts_are_checked_against_their_runs(built_copy):
    """A record file or a log excerpt under site/data that no run holds, or that was altered, is
    refused by verify naming the file."""
    site = built_copy / "site"
    record = next((site / "data" / "records").rglob("*.json"))
    record.write_text(record.read_text(encoding="utf-8").replace('"ok"', '"failed"', 1), encoding="utf-8")
    (record.parent / "planted-0000000000.json").write_text("{}", encoding="utf-8")
    with pytest.raises(ReportError) as exc:
        verify.verify(built_copy, site)
    text = "\n".join(exc.value.problems)
    assert f"{record}: differs from record" in text and "planted-0000000000.json: not a record" in text
