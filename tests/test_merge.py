"""Which record stands for a case: most thorough profile first, then newest."""
from helpers import record, write_run

from reportgen.data import load, merge

CASE = "numpy_gemm/dtype=float32/n=32/threads=1/blas=configured"


def test_standard_beats_newer_quick(tmp_path):
    write_run(tmp_path, "20260101T000000Z-standard-f6ab9f827cfd", [record("20260101T000000Z-standard-f6ab9f827cfd", samples=(0.002,) * 3)],
              profile="standard", finished_at="2026-01-01T00:10:00Z")
    write_run(tmp_path, "20260102T000000Z-quick-f6ab9f827cfd", [record("20260102T000000Z-quick-f6ab9f827cfd")],
              profile="quick", finished_at="2026-01-02T00:10:00Z")
    cur = merge.current_records(load.read_runs(tmp_path))[CASE]
    assert cur.run.run_id == "20260101T000000Z-standard-f6ab9f827cfd"


def test_newest_of_same_profile(tmp_path):
    for day in ("01", "02"):
        rid = f"202601{day}T000000Z-quick-f6ab9f827cfd"
        write_run(tmp_path, rid, [record(rid)], finished_at=f"2026-01-{day}T00:10:00Z")
    cur = merge.current_records(load.read_runs(tmp_path))[CASE]
    assert cur.run.run_id == "20260102T000000Z-quick-f6ab9f827cfd"


def test_gflops_uses_median_time():
    rec = record(samples=(0.001, 0.002, 0.004))
    cur = merge.Current(rec, run=None)
    assert cur.gflops("p50") == 2 * 32 ** 3 / 0.002 / 1e9
