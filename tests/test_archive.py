"""The archive keeps every historical figure as printed; derived checks never change it."""
from pathlib import Path

import pytest
import yaml

from reportgen.data import archive, derived
from reportgen.errors import ReportError

ROOT = Path(__file__).resolve().parents[1]
SEED = ROOT.parent / "shared" / "seed" / "000_db91cd5353750051.txt"


@pytest.fixture(scope="module")
def tables():
    return archive.read_archive(ROOT / "archive")[0]


@pytest.mark.skipif(not SEED.exists(), reason="the seed text lives in ../shared (not in this repo)")
def test_every_archived_string_is_printed_in_the_seed(tables):
    seed = SEED.read_text(encoding="utf-8")
    lines = seed.splitlines()
    for table in tables.values():
        first, last = table.meta["seed_lines"]
        window = "\n".join(lines[first - 1:last])
        for row in table.rows:
            for cell in row["cells"].values():
                if cell.kind == "figure":
                    assert cell.text in window, f"{cell.id}: {cell.text!r} not in seed lines {first}-{last}"


def test_figure_counts(tables):
    counts = {t.id: len(t.figures()) for t in tables.values()}
    assert counts["s21_numpy"] == 4 * 7
    assert counts["s22_hand_ladder"] == 9 * 5
    assert counts["s23_tvm_stages"] == 8 * 2
    assert counts["s31_int8"] == 2 * 4


def test_numbers_keep_their_printed_digits(tables):
    cell = tables["s21_numpy"].cell("quad_fp32", "10240")
    assert cell.text == "256.00" and cell.value == 256.0 and cell.decimals == 2
    assert tables["s23_tvm_stages"].cell("packing", "tvm").text == "0.0987 s"
    assert tables["s33_tvm_stages_text"].cell("blocking", "numpy").text == "0.012s"


def test_derived_checks_report_without_changing(tables):
    before = {c.id: c.text for t in tables.values() for c in t.figures()}
    checks = {c.id: c for c in derived.run_checks(tables)}
    after = {c.id: c.text for t in tables.values() for c in t.figures()}
    assert before == after
    assert checks["s21_numpy/quad_fp32/utilization"].verdict == "mismatch"
    assert checks["s21_numpy/quad_fp32/utilization"].recomputed == "83.3"
    assert checks["s21_numpy/single_fp32/utilization"].verdict == "match"
    assert checks["s22_hand_ladder/MMult_1x4_5/utilization"].verdict == "mismatch"
    assert checks["s22_hand_ladder/MMult_4x4_15_1/utilization"].verdict == "match_if_truncated"
    assert checks["s20_summary/speedup"].verdict == "match"
    assert checks["s29_conv_unit/output"].verdict == "holds"
    assert all(c.verdict == "holds" for k, c in checks.items() if "/claim/" in k)


def test_unquoted_number_is_refused(tmp_path):
    (tmp_path / "tables").mkdir()
    src = yaml.safe_load((ROOT / "archive" / "tables" / "s31_int8.yaml").read_text(encoding="utf-8"))
    src["rows"][0]["cells"][1] = 27.8
    (tmp_path / "tables" / "s31_int8.yaml").write_text(yaml.dump(src, allow_unicode=True), encoding="utf-8")
    (tmp_path / "environments.yaml").write_text((ROOT / "archive" / "environments.yaml").read_text(encoding="utf-8"),
                                                encoding="utf-8")
    with pytest.raises(ReportError) as err:
        archive.read_archive(tmp_path)
    assert err.value.problems == [
        f"{tmp_path / 'tables' / 's31_int8.yaml'}: rows[0].cells.framework_time: expected the printed string, "
        "got float 27.8 (quote it to keep every digit)"]
