"""The thirty-fourth round of the hostile corpus (issue #29), data side: what round 33 left.

Failed records of a bound run cited nested ranges over one 16 MiB log line (record i cited lines
1 to i+1), so every check and every page read that line once per record: 40 such records made a
build take a minute, and a few thousand would take hours.  The harness starts each record's range
after the last one ends, so a bound run whose records' ranges overlap is refused at load; and a
log is split once for all the records that cite it (reportgen.data.logtext), not once per record.

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
from pathlib import Path

import pytest
from test_hostile_round4 import _expect

from reportgen.data import load, logtext
from reportgen.errors import ReportError

MUTATIONS = {}
SPECIAL = {"cited_ranges_overlap": None, "reuse_not_retests": None}


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


A, B, C = ("20260101T000000Z-quick-f6ab9f827cfd", "20260102T000000Z-quick-f6ab9f827cfd",
           "20260103T000000Z-quick-f6ab9f827cfd")


def _reuse_runs(tmp_path, c_profile="quick", b_samples=(0.002, 0.0021, 0.0022)):
    """Run A measured the case, run B measured it again (other samples), run C carries A's record."""
    from helpers import record, write_run
    results = tmp_path / "results"
    first = record(run_id=A)
    write_run(results, A, [first])
    write_run(results, B, [record(run_id=B, samples=b_samples)])
    c_id = C.replace("-quick-", f"-{c_profile}-")
    write_run(results, c_id, [dict(first, reused_from=A)], profile=c_profile)
    return results


def test_a_record_reused_past_a_later_measurement_is_refused(tmp_path):
    """Round 34: a run carried an older record of older code over a later run's measurement of the same
    case (reuse checked only machine, order and equality); retest reuses only from the newest run."""
    with pytest.raises(ReportError) as err:
        load.read_runs(_reuse_runs(tmp_path))
    assert any(_expect("reuse_not_retests") in p and B in p and "records.jsonl:1: reused_from" in p
               for p in err.value.problems), err.value.problems


def test_a_quick_record_reused_into_a_standard_run_is_refused(tmp_path):
    from helpers import record, write_run
    results = tmp_path / "results"
    first = record(run_id=A)
    write_run(results, A, [first])
    write_run(results, C.replace("-quick-", "-standard-"), [dict(first, reused_from=A)], profile="standard")
    with pytest.raises(ReportError) as err:
        load.read_runs(results)
    assert any("'quick' run" in p and "same profile" in p for p in err.value.problems), err.value.problems


def test_a_record_reused_from_the_newest_run_loads(tmp_path):
    from helpers import record, write_run
    results = tmp_path / "results"
    first = record(run_id=A)
    write_run(results, A, [first])
    write_run(results, B, [dict(first, reused_from=A)])
    write_run(results, C, [dict(first, reused_from=A)])   # B carried it too: still the newest measurement
    assert [r.run_id for r in load.read_runs(results)] == [A, B, C]


def test_the_validation_cache_knows_every_module_of_the_rules(monkeypatch, tmp_path):
    """Round 34: the rules fingerprint hashed five modules of study/, not study/ids.py, whose
    artifact-reference rule records are checked by: a changed rule left records valid from the cache."""
    import shutil
    import study
    copy = tmp_path / "study"
    shutil.copytree(Path(study.__file__).parent, copy, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(study, "__file__", str(copy / "__init__.py"))
    before = load._rules_fingerprint.__wrapped__()   # the cached answer is this process's code
    for name in sorted(p.name for p in copy.glob("*.py")):
        (copy / name).write_text((copy / name).read_text(encoding="utf-8") + "\n# changed\n", encoding="utf-8")
        after = load._rules_fingerprint.__wrapped__()
        assert after != before, name
        before = after


def test_a_failed_records_check_passed_note_is_never_shown_as_checked():
    """Round 34 H7 (held): a failed record's range holding '<id>: check=passed' shows only its status line
    as checked; the note stays under the unchecked output."""
    from reportgen.render import provenance
    rec = dict(_failed("20261206T000000Z-quick-f6ab9f827cfd", 1), run_id="20261206T000000Z-quick-f6ab9f827cfd")
    lines = [f"[numpy_gemm] {rec['id']}: check=passed", f"[numpy_gemm] {rec['id']}: run_failed"]
    rec["log"]["lines"] = [1, 2]
    parts = provenance._excerpt(rec, lines)   # ["", checked title, "", checked lines, "", output title, "", output]
    checked, output = parts[3], parts[7]
    assert "check=passed" not in checked and lines[1] in checked and "check=passed" in output


def test_a_figure_of_a_record_that_jumped_or_outran_its_peak_is_flagged():
    """Round 34 F3: a bound run of forged samples (4x faster, same code) was published as the current
    GFLOPS and as 381.8 % of the measured peak with no mark beside it; the jump was listed only on the
    history page.  A figure of a record that jumped against the same code's previous run on its machine
    now links to that list, and a share of a measured peak above 1 is flagged wherever it is shown."""
    from helpers import record
    from reportgen.data.merge import Current
    from reportgen.render.figures import FigureBook
    rec = record()
    book = FigureBook()
    book.set_page("gemm.md")
    cur = Current(rec, None)
    plain = book.current(f"{rec['id']}#gflops_p50", "427", "GFLOPS", cur)
    book.jumped = {(rec["run_id"], rec["id"])}
    flagged = book.current(f"{rec['id']}#gflops_p50", "427", "GFLOPS", cur)
    assert flagged.startswith(plain) and 'href="history.html#jumps"' in flagged[len(plain):]
    assert book.above_peak(3.818) and 'class="bad"' in book.above_peak(3.818) and book.above_peak(0.98) == ""
