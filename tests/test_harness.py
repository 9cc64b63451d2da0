"""The case contract of experiments/harness.py: reuse, log range, check before time, statuses.

No real experiment runs: the cases are tiny Python functions, so this is fast and ISA-free.
"""
import json

import pytest

from experiments import harness
from study import schema

PARAMS = {"warmup": 1, "repeat": 3, "min_repeat": 2, "min_sample_s": 0.0001, "budget_s": 0.05}
PASSED = {"reference": "two", "max_abs_err": 0.0, "max_rel_err": 0.0, "threshold": 0.0, "passed": True}
FAILED = dict(PASSED, max_abs_err=1.0, max_rel_err=0.5, passed=False)


def _harness(tmp_path, previous=None, force=False):
    tmp_path.mkdir(parents=True, exist_ok=True)
    log = tmp_path / "fam.log"
    log.write_text("", encoding="utf-8")
    prev = None
    if previous:
        prev = tmp_path / "previous.jsonl"
        prev.write_text("".join(schema.dumps(r) + "\n" for r in previous), encoding="utf-8")
    spec = {"experiment": "fam", "params": PARAMS, "run_id": "run-1", "log_file": str(log),
            "log_ref": "runs/run-1/logs/fam.log", "records_file": str(tmp_path / "fam.jsonl"),
            "fingerprint": "base", "previous_records": str(prev) if prev else None, "force": force,
            "artifacts_dir": str(tmp_path / "runs" / "run-1" / "artifacts" / "fam"),
            "results_root": str(tmp_path)}
    return harness.Harness(spec)


def _records(h):
    return [json.loads(line) for line in h.records_file.read_text(encoding="utf-8").splitlines()]


def test_measure_checks_then_times(tmp_path):
    h = _harness(tmp_path)
    calls = []
    rec = h.measure("fam/x=1", {"x": 1}, build=lambda: 2, check=lambda b: dict(PASSED, reference=str(b)),
                    call=lambda b: lambda: calls.append(b), extra={"flops_per_call": 1})
    assert rec["status"] == "ok" and rec["samples"] and rec["warmup"] == 1 and rec["number"] >= 1
    assert rec["check"]["reference"] == "2" and rec["extra"] == {"flops_per_call": 1}
    assert schema.record_problems(rec, pending_log=True) == []
    assert _records(h) == [rec]


def test_failed_check_is_never_timed(tmp_path):
    h = _harness(tmp_path)
    timed = []
    rec = h.measure("fam/x=1", {"x": 1}, check=lambda _: FAILED, call=lambda _: lambda: timed.append(1),
                    mismatch=lambda c: f"off by {c['max_abs_err']}", extra=lambda _: {"seen": True})
    assert timed == []
    assert (rec["status"], rec["samples"], rec["warmup"], rec["number"]) == ("check_failed", [], 0, 0)
    assert rec["error"] == "off by 1.0" and rec["extra"] == {"seen": True}


def test_build_exception_is_compile_failed_and_case_failed_keeps_its_status(tmp_path):
    h = _harness(tmp_path)

    def broken():
        raise OSError("no compiler")

    def lost(_):
        raise harness.CaseFailed("run_failed", "device lost", extra={"via": "rpc"})

    rec = h.measure("fam/a", {"a": 1}, build=broken, check=lambda _: PASSED, call=None, extra={"kept": 1})
    assert (rec["status"], rec["error"], rec["extra"]) == ("compile_failed", "OSError: no compiler", {"kept": 1})
    rec = h.measure("fam/b", {"b": 1}, check=lost, call=None)
    assert (rec["status"], rec["error"], rec["extra"]) == ("run_failed", "device lost", {"via": "rpc"})
    for rec in _records(h):
        assert rec["check"] == harness.NONE_CHECK
        assert schema.record_problems(rec, pending_log=True) == []


def test_log_range_covers_the_case(tmp_path):
    h = _harness(tmp_path)

    def say(line):   # what retest does: the family's stdout is its log
        with h.log_file.open("a", encoding="utf-8") as fh:
            fh.write(line + "\n")

    h.say = say
    say("before")

    def check(_):
        say("checking")
        return PASSED

    rec = h.measure("fam/x=1", {"x": 1}, check=check, call=lambda _: lambda: None, time="fixed")
    assert rec["log"]["lines"] == [2, 3] and rec["repeat"] == PARAMS["repeat"]   # then its summary
    other = h.measure("fam/x=2", {"x": 2}, check=check, call=lambda _: lambda: None, time="fixed",
                      note=lambda o: {"rel_err": 0.0})   # a note, then the summary
    assert other["log"]["lines"] == [4, 6]


def test_the_log_is_read_on_from_where_it_was_counted(tmp_path, monkeypatch):
    """line() and the record's range read the log from the offset its last count ended at (a family
    of hundreds of cases read its whole log once per case), and from the start when the log is
    shorter than that offset (another file): the counts stay those of the whole file."""
    h = _harness(tmp_path)

    def say(line):
        with h.log_file.open("a", encoding="utf-8") as fh:
            fh.write(line + "\n")

    h.say = say
    say("x" * 100_000)
    assert h.line() == 1   # counted once
    reads, real = [], h._log_bytes
    monkeypatch.setattr(h, "_log_bytes", lambda offset=0: reads.append(offset) or real(offset))
    recs = [h.measure(f"fam/x={i}", {"x": i}, check=lambda _: PASSED, call=lambda _: lambda: None, time="fixed")
            for i in range(4)]
    assert [r["log"]["lines"] for r in recs] == [[2, 2], [3, 3], [4, 4], [5, 5]]
    assert reads and min(reads) > 100_000   # never the 100 kB line again
    h.log_file.write_text("one\n", encoding="utf-8")   # shorter than the mark: counted from the start
    assert h.line() == 1
    assert h.measure("fam/y", {"y": 1}, check=lambda _: PASSED, call=lambda _: lambda: None,
                     time="fixed")["log"]["lines"] == [2, 2]


def _cited(h, rec):
    first, last = rec["log"]["lines"]
    return "\n".join(h.log_file.read_text(encoding="utf-8").split("\n")[first - 1:last])


def test_the_cited_lines_always_name_the_record(tmp_path):
    """study.citation: a note without the id, a bare evidence or skip, a failure -- every range the
    harness cites ends with a line naming its record (before, a NumPy peer's range held only the TVM
    case timed just before it), and a range that names it already gets no extra line."""
    from study import citation
    h = _harness(tmp_path)

    def say(line):
        with h.log_file.open("a", encoding="utf-8") as fh:
            fh.write(line + "\n")

    h.say = say
    say("[fam] fam/x=10: p50 1 ms")   # a longer id is not this record's name
    recs = [h.measure("fam/x=1", {"x": 1}, check=lambda _: PASSED, call=lambda _: lambda: None, time="fixed",
                      note=lambda o: {}),   # no fields: no note
            h.evidence("fam/e", {"e": 1}, lambda: (PASSED, {})),
            h.measure("fam/b", {"b": 1}, check=lambda _: FAILED, call=None),
            h.skip("fam/s", {"s": 1}, "not here")]
    for rec in recs:
        assert citation.names_record(rec["id"], _cited(h, rec)), rec["id"]
    lines = h.log_file.read_text(encoding="utf-8").split("\n")
    assert [line.startswith("fam/x=1: p50 ") for line in lines].count(True) == 1 and recs[0]["log"]["lines"][0] == 2
    before = len(lines)
    named = h.measure("fam/n", {"n": 1}, check=lambda _: PASSED, call=lambda _: lambda: None, time="fixed")
    assert len(h.log_file.read_text(encoding="utf-8").split("\n")) == before + 1   # its summary alone
    assert _cited(h, named).startswith("fam/n: p50 ")
    bare = h.measure("fam/d", {"d": 1}, check=lambda _: PASSED, call=lambda _: lambda: None, time="fixed",
                     note=lambda o: {"top1": 1.0})   # no fact of the record: a context line, then the summary
    cited = _cited(h, bare).split("\n")
    assert cited[0] == "(context) top1=1" and cited[1].startswith("fam/d: p50 ") and len(cited) == 2
    assert citation.statement_problems(bare, cited) == []


def test_a_note_that_contradicts_its_record_is_refused(tmp_path):
    """A timed ok record whose own lines report a failure or another median would be refused by
    load (study.citation.statement_problems): the harness stops at the case instead of writing it."""
    h = _harness(tmp_path)

    def say(line):
        with h.log_file.open("a", encoding="utf-8") as fh:
            fh.write(line + "\n")

    h.say = say
    for case_id, note in (("fam/f", lambda o: {"sum_check": "failed"}),
                          ("fam/m", lambda o: {"p50_ms": o.p50() * 1e3 + 5})):
        with pytest.raises(ValueError, match=case_id):
            h.measure(case_id, {"c": case_id}, check=lambda _: PASSED, call=lambda _: lambda: None, time="fixed",
                      note=note)
    assert "fam/f" not in (h.records_file.read_text(encoding="utf-8") if h.records_file.exists() else "")


def test_unchanged_case_is_reused_and_force_measures_again(tmp_path):
    first = _harness(tmp_path / "a")
    old = first.measure("fam/x=1", {"x": 1}, check=lambda _: PASSED, call=lambda _: lambda: None)
    built = []
    for force, want in ((False, "run-1"), (True, None)):
        h = _harness(tmp_path / f"b{force}", previous=[old], force=force)
        rec = h.measure("fam/x=1", {"x": 1}, build=lambda: built.append(1), check=lambda _: PASSED,
                        call=lambda _: lambda: None)
        assert rec["reused_from"] == want
    assert built == [1]   # the reused case built nothing


def test_evidence_and_skip(tmp_path):
    h = _harness(tmp_path)
    ok = h.evidence("fam/e", {"e": 1}, lambda: (PASSED, {"fact": 1}), unit="none")
    bad = h.evidence("fam/f", {"f": 1}, lambda: (FAILED, {}), mismatch="no change")
    skipped = h.skip("fam/s", {"s": 1}, "not on this host", extra={"why": 1})
    skipped_fact = h.skip("fam/t", {"t": 1}, "no equivalent", evidence_unit="none")
    assert (ok["metric"], ok["status"], ok["unit"], ok["samples"]) == ("evidence", "ok", "none", [])
    assert (bad["status"], bad["error"]) == ("check_failed", "no change")
    assert (skipped["metric"], skipped["status"], skipped["error"]) == ("time_per_call", "skipped", "not on this host")
    assert (skipped_fact["metric"], skipped_fact["status"]) == ("evidence", "skipped")
    for rec in _records(h):
        assert schema.record_problems(rec, pending_log=True) == []


def test_unknown_timing_mode_is_an_error(tmp_path):
    with pytest.raises(ValueError, match="time: 'sometimes'"):
        _harness(tmp_path).measure("fam/x", {}, check=lambda _: PASSED, call=lambda _: lambda: None,
                                   time="sometimes")


def test_summary_line_carries_the_median_without_a_note(tmp_path):
    """The log lines a record cites print its figure even when the family gave no note."""
    from reportgen.data import evidence
    h = _harness(tmp_path)
    with open(h.log_file, "a", encoding="utf-8") as log:
        import contextlib
        with contextlib.redirect_stdout(log):
            rec = h.measure("fam/x=1", {"x": 1}, check=lambda b: PASSED, call=lambda b: lambda: sum(range(500)),
                            extra={"flops_per_call": 1000})
    first, last = rec["log"]["lines"]
    cited = "\n".join(h.log_file.read_text(encoding="utf-8").split("\n")[first - 1:last])
    assert "fam/x=1: p50" in cited
    assert evidence.cites_value(rec, rec["stats"]["p50"], cited)
