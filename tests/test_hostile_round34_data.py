"""The thirty-fourth round of the hostile corpus (issue #29), data side: what round 33 left.

Failed records of a bound run cited nested ranges over one 16 MiB log line (record i cited lines
1 to i+1), so every check and every page read that line once per record: 40 such records made a
build take a minute, and a few thousand would take hours.  The harness starts each record's range
after the last one ends, so a bound run whose records' ranges overlap is refused at load; and a
log is split once for all the records that cite it (reportgen.data.logtext), not once per record.

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
import pytest
from test_hostile_round4 import _expect

from reportgen.data import load, logtext
from reportgen.errors import ReportError

MUTATIONS = {}
SPECIAL = {"cited_ranges_overlap": None}


def _failed(run_id, n):
    from helpers import record
    rec = record(run_id=run_id, case_id=f"numpy_gemm/dtype=float32/n={n}/threads=1/blas=configured")
    return dict(rec, samples=[], status="run_failed", error="lost", stats=None, repeat=0, warmup=0, number=0,
                check={"reference": "none", "max_abs_err": None, "max_rel_err": None, "threshold": None, "passed": None})


def _write(tmp_path, spans):
    from helpers import write_run
    from test_hostile_round15_rules import HOST, NEW
    records, lines = [], ["x" * 100_000]
    for n, (first, last) in enumerate(spans, 1):
        rec = _failed(NEW, n)
        lines.append(f"[numpy_gemm] {rec['id']}: run_failed")
        rec["log"]["lines"] = [first, last]
        records.append(rec)
    write_run(tmp_path / "results", NEW, records, log_text="\n".join(lines) + "\n", environment=HOST)
    return tmp_path / "results"


def test_a_bound_run_whose_records_cite_nested_ranges_is_refused(tmp_path):
    results = _write(tmp_path, [(1, n + 1) for n in range(1, 6)])
    with pytest.raises(ReportError) as err:
        load.read_runs(results)
    problems = err.value.problems
    overlaps = [p for p in problems if _expect("cited_ranges_overlap") in p]
    assert len(overlaps) == 4 and all("records.jsonl:" in p and "log.lines" in p for p in overlaps), problems
    assert "'numpy_gemm/dtype=float32/n=1/threads=1/blas=configured'" in overlaps[0]


def test_a_bound_run_whose_records_cite_one_range_each_loads(tmp_path):
    results = _write(tmp_path, [(1, 2)] + [(n + 1, n + 1) for n in range(2, 6)])
    assert len(load.read_runs(results)[0].records) == 5


def test_a_log_is_split_once_for_the_records_that_cite_it(tmp_path, monkeypatch):
    results = _write(tmp_path, [(1, 2)] + [(n + 1, n + 1) for n in range(2, 6)])
    run = load.read_runs(results)[0]
    reads = []
    real = logtext.read_log
    monkeypatch.setattr(logtext, "read_log", lambda *a: reads.append(1) or real(*a))
    logtext._SPLIT_LOGS.clear()
    texts = [logtext.excerpt_text(results, rec) for rec in run.records]
    assert len(reads) == 1 and texts[1].startswith("[numpy_gemm] numpy_gemm/dtype=float32/n=2/")
    log = results / run.records[0]["log"]["path"]
    log.write_text(log.read_text() + "more\n")   # another file now: read again, never a stale copy
    logtext.log_lines(results, run.records[0])
    assert len(reads) == 2
