"""Issue #29, classes closed by a rule rather than case by case.

Class 5 (wrong log lines shown as evidence): the log lines a record cites name that record
(study.citation).

Runs from NAMED_FROM on are refused when a record's range does not; older runs load and their
records carry a visible marker on the provenance page and in the writeup's evidence count. 
Class 6 (a command that stays broken or loses work after an interruption): a retest killed between
writing run.json and its one rename left a whole, measured run in .tmp-<id>; the next retest removed
it. Now it publishes it when the folder passes a build's checks.

Each case id is an entry of tests/data/hostile/cases.yaml (round 15)."""
import os

import pytest

from helpers import ENV, record, write_run
from test_hostile_round4 import _expect
from reportgen.data import evidence, load, merge
from reportgen.errors import ReportError
from reportgen.render import provenance
from study import citation, identity

CASE = "numpy_gemm/dtype=float32/n=32/threads=1/blas=configured"
NAMED = f"[numpy_gemm] {CASE}: p50 1.1 ms over 3 samples\n"
NEIGHBOUR = "[numpy_gemm] numpy_gemm/dtype=float32/n=320/threads=1/blas=configured: p50 1.100 ms\n"
HOST = dict(ENV, machine_id=identity.machine_id(ENV))   # a run after 1 Dec carries today's machine id
NEW = f"{citation.NAMED_FROM}-quick-{HOST['machine_id']}"
OLD = "20261130T000000Z-quick-f6ab9f827cfd"


def _run(tmp_path, run_id, first_line):
    results = tmp_path / "results"
    rec = record(run_id=run_id, case_id=CASE)
    rec["log"]["lines"] = [1, 1]
    write_run(results, run_id, [rec], log_text=first_line + "done\n", environment=HOST if run_id == NEW else None)
    return results


def test_a_run_after_the_rule_citing_a_neighbours_line_is_refused(tmp_path):
    results = _run(tmp_path, NEW, NEIGHBOUR)
    with pytest.raises(ReportError) as err:
        load.read_runs(results)
    [problem] = err.value.problems
    assert f"runs/{NEW}/records.jsonl:1: log.lines: lines 1-1 of runs/{NEW}/logs/numpy_gemm.log do not name " \
           f"the record '{CASE}'" in problem and _expect("record_cites_a_neighbours_line") in problem


def test_a_run_after_the_rule_whose_lines_name_the_record_loads(tmp_path):
    assert [r.run_id for r in load.read_runs(_run(tmp_path, NEW, NAMED))] == [NEW]


@pytest.mark.parametrize("first_line, marked", [(NEIGHBOUR, True), (NAMED, False)])
def test_an_older_record_is_published_with_a_marker_when_its_lines_do_not_name_it(tmp_path, first_line, marked):
    results = _run(tmp_path, OLD, first_line)
    current = merge.current_records(load.read_runs(results))
    [cur] = current.values()
    text = provenance.entry(results, cur, "../data")
    warning = provenance.W("provenance.entry.unnamed", since="2026-12-05 12:00 UTC")
    assert (warning in text) is marked and _expect("older_record_cites_a_neighbours_line") in warning
    assert evidence.gaps(results, current)[2] == ([CASE] if marked else [])


def test_a_failed_familys_record_cites_a_line_that_names_it(tmp_path):
    from reportgen.commands import retest
    log = tmp_path / "numpy_gemm.log"
    log.write_bytes(b"starting\nTraceback: boom")   # no newline at the end: the line is not glued to it
    rec = retest._failure_record(NEW, "numpy_gemm", "run_failed", 1, f"runs/{NEW}/logs/numpy_gemm.log", log, 60)
    lines = log.read_text(encoding="utf-8").split("\n")
    first, last = rec["log"]["lines"]
    assert citation.names_record(rec["id"], "\n".join(lines[first - 1:last]))   # failed_family_cites_whole_log
    assert rec["error"] == "family exited with code 1: Traceback: boom" and lines[1] == "Traceback: boom"


@pytest.mark.parametrize("complete", [True, False])
def test_a_whole_run_left_in_its_tmp_folder_is_published_by_the_next_retest(tmp_path, capsys, complete):
    from reportgen.commands import retest
    results = _run(tmp_path, NEW, NAMED)
    runs = results / "runs"
    tmp = runs / f".tmp-{NEW}"
    os.rename(runs / NEW, tmp)
    if not complete:   # killed while it wrote run.json
        (tmp / "run.json").write_text('{"schema_version": 1, "run_id"', encoding="utf-8")
    (runs / f".tmp-{NEW}.lock").write_text("")
    removed = retest.clean_stale(runs)
    out = capsys.readouterr().out
    assert not os.path.lexists(runs / f".tmp-{NEW}.lock") and not os.path.lexists(tmp)
    if complete:
        assert removed == [] and _expect("retest_killed_after_run_json") in out
        assert [r.run_id for r in load.read_runs(results)] == [NEW]
    else:
        assert removed == [tmp] and not os.path.lexists(runs / NEW) and "removed" in out


def test_a_tiny_nonzero_figure_is_never_shown_as_zero():
    """fmt_number_subnormal: fixed point with at most six decimals printed 5e-324 (or 2e-7 ms) as 0.000000."""
    from reportgen.render.figures import fmt_number
    shown = [fmt_number(v, "ms") for v in (5e-324, 2e-7, -1.234e-5)]
    assert shown == ["4.94e-324", "2e-07", "-1.23e-05"], _expect("fmt_number_subnormal")
    assert [fmt_number(v, "ms") for v in (0.000123, 0.0123, 12.34)] == ["0.000123", "0.0123", "12.3"]


MUTATIONS = {}
SPECIAL = {case: None for case in ("record_cites_a_neighbours_line", "older_record_cites_a_neighbours_line",
                                   "failed_family_cites_whole_log", "retest_killed_after_run_json",
                                   "fmt_number_subnormal")}
