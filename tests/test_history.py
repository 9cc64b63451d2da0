"""The history page: every run listed, consecutive runs on one machine compared from raw samples."""
from helpers import record, write_run

from reportgen.pages import history
from reportgen.data import load, merge


def test_two_runs_on_one_machine_are_compared(tmp_path):
    slow = [0.0020, 0.0021, 0.0020, 0.0022, 0.0021, 0.0020, 0.0021]
    fast = [0.0010, 0.0011, 0.0010, 0.0011, 0.0010, 0.0010, 0.0011]
    write_run(tmp_path, "20260101T000000Z-quick-f6ab9f827cfd", [record("20260101T000000Z-quick-f6ab9f827cfd", samples=fast)],
              finished_at="2026-01-01T00:10:00Z")
    write_run(tmp_path, "20260102T000000Z-quick-f6ab9f827cfd", [record("20260102T000000Z-quick-f6ab9f827cfd", samples=slow)],
              finished_at="2026-01-02T00:10:00Z")
    runs = load.read_runs(tmp_path)
    text = history.comparisons(runs)
    assert "20260101T000000Z-quick-f6ab9f827cfd → 20260102T000000Z-quick-f6ab9f827cfd" in text
    assert "变慢" in text and "numpy_gemm/dtype=float32/n=32/threads=1/blas=configured" in text
    table = history.runs_table(runs, "data", merge.current_records(runs))
    assert table.index("20260102T000000Z-quick-f6ab9f827cfd") < table.index("20260101T000000Z-quick-f6ab9f827cfd")


def test_single_run_has_nothing_to_compare(tmp_path):
    write_run(tmp_path, "20260101T000000Z-quick-f6ab9f827cfd", [record("20260101T000000Z-quick-f6ab9f827cfd")])
    assert "暂无可比较的内容" in history.comparisons(load.read_runs(tmp_path))
