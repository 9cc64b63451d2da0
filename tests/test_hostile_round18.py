"""The eighteenth round of the hostile corpus (issue #29), attack only, then fixed: the failures of
the data side (the site and mkdocs.yml ones are in test_hostile_round18_site.py). A run of unknown
commit still reached retest's reuse and trace through a run carrying its records; a cited line could
contradict its record in other words than the harness's; a shortened excerpt could drop the line
about the record; clean_stale lost a good leftover run to another run's problem, and published one
before checking it; 0e400 in a log broke every build; default-ignorable characters other than the
listed ones passed as visible.

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
import json
import subprocess

import pytest
from conftest import ROOT
from helpers import record, write_run
from test_hostile_round4 import _expect
from test_hostile_round15_rules import CASE, HOST, NEW

from reportgen.data import load
from reportgen.errors import ReportError

MUTATIONS = {}


def _known_commit(root):
    """A git repository at ``root`` with one commit, made before the runs that name it (a run cannot
    have measured code committed after it: round 25 #4); its hash (a run naming it is of known code)."""
    import os
    dated = dict(os.environ, GIT_AUTHOR_DATE="2026-01-01T00:00:00Z", GIT_COMMITTER_DATE="2026-01-01T00:00:00Z")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    # the project's lock: a run's software is its commit's pins (runfacts.environment_problems)
    (root / "requirements.lock").write_bytes((ROOT / "requirements.lock").read_bytes())
    subprocess.run(["git", "-C", str(root), "add", "requirements.lock"], check=True)
    subprocess.run(["git", "-C", str(root), "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-q",
                    "--allow-empty", "-m", "x"], check=True, env=dated)
    return subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True,
                          check=True).stdout.strip()


def test_a_run_of_unknown_commit_reaches_neither_reuse_nor_trace_through_a_carrier(tmp_path):
    """Round 18 #9, #11: run A (commit unknown here, 1000x faster) and run B (known) carrying A's
    record unchanged; R, older and known, measured the case too. The build shows R's figure; retest
    offered B's records.jsonl (A's record inside) for reuse and as upstream, and trace named A."""
    from reportgen.commands import retest, trace
    from study import identity
    commit = _known_commit(tmp_path)
    results = tmp_path / "results"
    r, a, b = ("20261130T000000Z-quick-f6ab9f827cfd", "20261130T010000Z-quick-f6ab9f827cfd",
               "20261130T020000Z-quick-f6ab9f827cfd")
    other = "numpy_gemm/dtype=float32/n=64/threads=1/blas=configured"
    write_run(results, r, [record(run_id=r)])
    write_run(results, a, [record(run_id=a, samples=(1.1e-6,) * 3)])
    write_run(results, b, [record(run_id=b, case_id=other), dict(record(run_id=a, samples=(1.1e-6,) * 3), reused_from=a)])
    for run_id in (r, b):
        path = results / "runs" / run_id / "run.json"
        manifest = json.loads(path.read_text())
        manifest["git"]["commit"] = commit
        path.write_text(json.dumps(manifest))
    runs_dir = results / "runs"
    (tmp_path / "parts").mkdir()
    machine = identity.machine_id(json.loads((runs_dir / b / "run.json").read_text())["environment"])
    retest._valid_runs.cache_clear()
    try:
        previous = retest._previous_records(runs_dir, tmp_path, machine, "numpy_gemm")
        upstream = retest._upstream_records(runs_dir, tmp_path, machine, ["numpy_gemm"])["numpy_gemm"]
    finally:
        retest._valid_runs.cache_clear()
    offered = [json.loads(line)["run_id"] for path in [previous, *upstream[1:]]
               for line in open(path) if line.strip()]
    assert a not in offered and b in offered and r in offered, _expect("carrier_of_unknown_commit")
    text = trace.trace(tmp_path, CASE, site_dir=tmp_path / "no-site", machine=machine)
    assert f"run      {r}" in text and "1.1e-06" not in text


@pytest.mark.parametrize("tail", ["rel_err=0e400", "max_err=0e309 rel_err=1e-400", "gflops=0e999"])
def test_a_number_too_large_for_a_float_in_a_cited_line_is_read_not_raised(tmp_path, tail):
    """Round 18 #23: 0e400 in a cited line made the citation rule raise OverflowError (10.0 ** 400):
    every build stopped naming no field; "0e400" also claimed a precision wide enough to match any median.
    (Now in the notes' grammar: such a value is a number, read without raising.)"""
    from study import citation
    results = tmp_path / "results"
    rec = record(run_id=NEW, case_id=CASE)
    rec["log"]["lines"] = [1, 2]
    write_run(results, NEW, [rec], log_text=f"[numpy_gemm] {CASE}: {tail}\n[numpy_gemm] {CASE}: p50 1.1 ms over 3 "
              "samples\n", environment=HOST)
    with pytest.raises(ReportError) as err:   # refused in a line (another figure than the record's), never raised
        load.read_runs(results)
    assert all("a cited line" in p for p in err.value.problems if "log.lines" in p), err.value.problems
    assert citation.printed_numbers(tail)   # read, not raised


@pytest.mark.parametrize("char", ["\u00ad", "\u034f", "\u17b4", "\u2065", "\u206a", "\ufe0f", "\U000e0101",
                                  "\ufff9", "\U0001d173"])
def test_every_default_ignorable_character_is_hidden_text(char):
    """Round 18 #27: the soft hyphen, variation selectors, U+206A-F, interlinear marks passed as visible:
    'Xeon\u00adGold' shows as XeonGold, two machines one name."""
    from reportgen.data import plainfile
    from reportgen.render import cells
    from study import schema
    problem = plainfile.hidden_text_problem("docs/x.md", "a" + char)
    assert problem and f"U+{ord(char):04X}" in problem and _expect("default_ignorable_characters") in problem
    assert not schema._VISIBLE.match("Xeon" + char + "Gold") and char not in cells.visible("a" + char)




def test_a_good_leftover_run_is_kept_while_another_run_fails_the_check(tmp_path, capsys):
    """Round 18 #20: a published run with an altered log made the check fail with the leftover in
    place, so the whole, valid leftover was removed (and the other run's problem went unsaid)."""
    from reportgen.commands import retest
    from test_hostile_round16 import _stale
    results, runs, tmp = _stale(tmp_path)
    other = "20261130T000000Z-quick-f6ab9f827cfd"
    write_run(results, other, [record(run_id=other)])
    with open(runs / other / "logs" / "numpy_gemm.log", "a") as fh:
        fh.write("edited\n")
    assert retest.clean_stale(runs) == [] and tmp.is_dir()
    said = capsys.readouterr().err
    assert f"kept {tmp.name}" in said and other in said and _expect("leftover_kept_for_another_run") in said


def test_a_run_whose_publishing_was_killed_during_its_check_is_judged_again(tmp_path, capsys):
    """Round 18 #21: clean_stale renames a leftover into place, then checks it; a kill -9 meanwhile left
    an unchecked (here broken) run published, and every build refused it until removed by hand. The
    marker it leaves makes the next clean_stale move the run back and judge it."""
    from reportgen.commands import retest
    from test_hostile_round16 import _stale
    results, runs, tmp = _stale(tmp_path)
    with open(tmp / "records.jsonl", "a") as fh:
        fh.write('{"cut')   # the run is not whole
    final = runs / NEW
    (runs / f".publishing-{NEW}").write_bytes(b"")   # as the killed clean_stale left it
    tmp.rename(final)
    assert retest.clean_stale(runs) == [tmp] and not final.exists() and not tmp.exists()
    assert not list(runs.glob(".publishing-*")) and not list(runs.glob(".tmp-*"))
    out = capsys.readouterr().out
    assert _expect("publishing_killed_during_check") in out and "removed" in out


@pytest.mark.parametrize("line, said", [
    ("p50: 1.100 ms over 3 samples", "states another"),            # the record's p50 is 1.1 us
    ("median 1.100 ms over 3 samples", "states another"),
    ("p50 1.100 sec", "states another"),
    ("p50 1.100 ns", "states another"),
    ("wrong result, max_rel_err 0.5", "reports 'wrong'"),
    ("check failed: result differs", "reports 'fail"),
    ("Segmentation fault (core dumped) 1.100", "reports 'Segmentation'"),
])
def test_a_cited_line_contradicting_its_record_in_other_words_is_refused(tmp_path, line, said):
    """Round 18 #12-16: the rule read only "<id>: p50 <v> ms" and a first word that was a status.  Now
    a line naming the record is its summary, its status or a key=value note (study.citation)."""
    _refused(tmp_path, f"[numpy_gemm] {CASE}: {line}\n", "a cited line")


@pytest.mark.parametrize("text", [f"[numpy_gemm] {CASE} FAILED (segfault) p50 0.0011 ms\n",
                                  f"[numpy_gemm] {CASE}\uff1a FAILED\n",
                                  f"[numpy_gemm] {CASE}: ok; {CASE}: FAILED: result differs\n"])
def test_a_failure_said_without_an_ascii_colon_or_second_on_a_line_is_refused(tmp_path, text):
    """Round 18 #16, #17: "<id> FAILED", a fullwidth colon, or a second "<id>:" on the line."""
    _refused(tmp_path, text, "a cited line")


def test_the_last_cited_line_is_the_records_summary(tmp_path):
    """The harness ends every range with the record's summary; a bound run whose range ends
    elsewhere (here a peer's line after it) is refused, naming what the line should read."""
    _refused(tmp_path, f"[numpy_gemm] {CASE}: p50 0.0011 ms over 3 samples\n[numpy_gemm] other: p50 9 ms\n",
             "is not the record's summary", whole=True)


def _refused(tmp_path, text, said, samples=(1.1e-6,) * 3, whole=False):
    """``text`` in a bound record's range (then a proper summary line, unless it is the ``whole``
    range) makes load refuse the run saying ``said``."""
    results = tmp_path / "results"
    rec = record(run_id=NEW, case_id=CASE, samples=samples)
    rec["log"]["lines"] = [1, text.count("\n")]
    if not whole:   # the range ends with a proper summary: the contradiction alone refuses it
        text += f"[numpy_gemm] {CASE}: p50 0.0011 ms over 3 samples\n"
        rec["log"]["lines"] = [1, text.count("\n")]
    write_run(results, NEW, [rec], log_text=text, environment=HOST)
    with pytest.raises(ReportError) as err:
        load.read_runs(results)
    problems = err.value.problems
    assert any(said in p for p in problems), problems
    assert all(_expect("cited_line_contradicts_record") in p for p in problems)


def test_a_shortened_excerpt_keeps_the_lines_about_its_record():
    """Round 18 #19: a 100-line range with the record's line at 50 showed the first and last 20 lines
    (another case's median, its failures) and elided the one line about the record."""
    from reportgen.render import provenance
    lines = ([f"other/case: p50 9.990 ms"] * 49 + [f"{CASE}: p50 0.0011 ms over 3 samples"]
             + ["other/case: FAILED: result differs"] * 50)
    shown = provenance.shown_lines(lines, 40, CASE)
    assert f"{CASE}: p50 0.0011 ms" in shown and shown.count("\n") == 42, _expect("excerpt_keeps_named_line")
    assert provenance.shown_lines(lines, 40).count(CASE) == 0   # without the id: as before


SPECIAL = {case: None for case in ("carrier_of_unknown_commit", "number_beyond_float", "default_ignorable_characters",
                                   "leftover_kept_for_another_run", "publishing_killed_during_check",
                                   "excerpt_keeps_named_line")}
