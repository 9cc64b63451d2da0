"""The twenty-seventh round of the hostile corpus (issue #29), data side, attack only, then fixed: the
archive's seal read and written outside the error handling (a byte that is not UTF-8, a file name one
line cannot hold).

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
import os
import shutil
import subprocess
import sys

import pytest
from conftest import ROOT
from test_hostile_round4 import _expect

from reportgen.data import archive
from reportgen.errors import ReportError
from study import citation, schema

MUTATIONS = {}


@pytest.fixture
def arch(tmp_path):
    shutil.copytree(ROOT / "archive", tmp_path / "archive")
    return tmp_path / "archive"


@pytest.mark.parametrize("planted", [b"# \xe9t\xe9\n", b"\xff\xfe"])
def test_a_seal_that_is_not_utf8_is_one_line_naming_it(arch, planted):
    seal = arch / archive.SEAL
    seal.write_bytes(planted + seal.read_bytes())
    found = archive.seal_problems(arch)
    assert len(found) == 1 and str(seal) in found[0] and _expect("archive_seal_not_utf8") in found[0], found
    with pytest.raises(ReportError) as err:
        archive.read_archive(arch)
    assert _expect("archive_seal_not_utf8") in str(err.value)


@pytest.mark.parametrize("name", [b"x\ny.yaml", b"\xff.yaml", b"x\ry.yaml"])
def test_a_name_the_seal_cannot_list_is_refused_before_resealing(arch, name):
    seal = arch / archive.SEAL
    before = seal.read_bytes()
    with open(os.path.join(bytes(arch), b"tables", name), "wb") as fh:
        fh.write(b"x: 1\n")
    run = subprocess.run([sys.executable, "-m", "reportgen.data.archive", "--reseal", str(arch)],
                         capture_output=True, env=dict(os.environ, PYTHONPATH=str(ROOT)), cwd=ROOT)
    err = run.stderr.decode("utf-8", "replace")
    assert run.returncode == 1 and "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert _expect("archive_name_unlistable") in err and "tables/" in err, err
    assert seal.read_bytes() == before, "the seal is left as it was"
    found = archive.seal_problems(arch)
    assert found and all("\n" not in line for line in found)
    assert any(_expect("archive_name_unlistable") in line for line in found), found


CASE = "numpy_gemm/dtype=float32/n=32/threads=1/blas=configured"
REC = {"id": CASE, "experiment": "numpy_gemm", "status": "ok", "samples": [1.1e-3] * 5,
       "stats": {"p50": 1.1e-3, "mean": 1.1e-3, "min": 1e-3},
       "extra": {"flops_per_call": 2 * 32 ** 3}, "check": {"max_rel_err": 1.23e-07, "max_abs_err": 0.0, "passed": True}}
HARNESS_LINES = [   # the harness's own summary and note lines (experiments/*.py note=, h.note) for an ok record
    f"[numpy_gemm] {CASE}: p50 1.1 ms over 5 samples",
    *(f"[numpy_gemm] {line}" for line in citation.note(CASE, gflops=2 * 32 ** 3 / 1.1e-3 / 1e9, rel_err=1.23e-07)),
    *(f"[numpy_gemm] {line}" for line in citation.note(CASE, top1=1.0, rel_err=1.23e-07, kernel="conv2d_FAILED")),
    *(f"[numpy_gemm] {line}" for line in citation.note(CASE, calls=3, changed=True, compile_s=1.2, max_err=0.0)),
    *(f"[numpy_gemm] {line}" for line in citation.note(CASE, sum_check="passed", p50_ms=1.1, min_ms=1.0)),
    f"[numpy_gemm] {citation.context(tuner='MetaSchedule', trials=64, device='rpc-key')}",
]


@pytest.mark.parametrize("said", [
    "segfault", "SIGSEGV (core dumped), rerun", "not ok", "check passed=False", "\u2717", "\u274c result",
    "NaN in output", "out of memory", "OOM", "assertion", "AssertionError", "RuntimeError: x", "panicked",
    "bad result", "invalid output", "did not pass", "check: False", "max_rel_err 0.5 > threshold 1e-05",
    "ok=false", "\u6821\u9a8c\u672a\u901a\u8fc7", "\u7ed3\u679c\u4e0d\u6b63\u786e", "\u8d85\u65f6",
    "Fehler", "time-out", "errored", "errors: 1", "ERR", "rc=139", "exit code 1", "returned non-zero",
    "terminated", "cancelled", "interrupted",
])
def test_other_words_of_failure_are_read(said):
    found = citation.statement_problems(REC, [f"[numpy_gemm] {CASE}: {said}"])
    assert any(_expect("evidence_failure_other_words") in p for p in found), (said, found)


@pytest.mark.parametrize("said", [
    "p50_ms=9.99", "p50ms 9.99", "median_ms: 9.99", "p50 -> 9.99 ms", "9.99 ms (p50)", "9.99 ms median",
    "p50 [ms] 9.99", "p50/ms 9.99", "p50 took 9.99 ms", "p50 of the samples 9.99 ms",
    "{'p50': 0.00999, 'unit': 's'}", '{"p50_s": 0.00999}', "p50 9.99 ms; p50 1.1 ms",
])
def test_other_spellings_of_a_median_are_read(said):
    found = citation.statement_problems(REC, [f"[numpy_gemm] {CASE}: {said}"])
    assert any(_expect("evidence_median_other_spellings") in p for p in found), (said, found)


@pytest.mark.parametrize("said", [
    "1.1 ms (p50)", "p50 -> 1.10 ms", "{'p50': 0.0011, 'unit': 's'}", "p50 1.1 ms (mean 1.1 ms)",
    "p50_ms=1.1, rel_err=0.1", "p50_ms=1.1 result=FAILED", "kernel=conv_FAILED", "p50_ms=1.1 p50_ms=1.1",
    "check=failed", "changed=maybe", "calls=3.5", "p50_ms=1.1 " * 41,
])
def test_the_records_own_median_outside_the_grammar_is_refused(said):
    """Since round 31 a line naming a record is its summary, its status or a key=value note of
    study.citation.NOTE_KEYS: the record's own median in free words is refused too, with any word."""
    found = citation.statement_problems(REC, [f"[numpy_gemm] {CASE}: {said.strip()}"])
    assert found and all("a cited line" in p for p in found), (said, found)


@pytest.mark.parametrize("line", HARNESS_LINES)
def test_the_harness_own_lines_still_pass(line):
    assert citation.statement_problems(REC, [line]) == []


@pytest.mark.parametrize("ahead_s, refused", [(20 * 3600, True), (2 * 3600, True), (60, False)])
def test_a_run_dated_hours_ahead_is_not_a_measurement_yet(ahead_s, refused):
    import datetime as dt
    start = dt.datetime.now(dt.timezone.utc).replace(microsecond=0) + dt.timedelta(seconds=ahead_s)
    run = {"profile": "standard", "run_id": f"{start:%Y%m%dT%H%M%SZ}-standard-f6ab9f827cfd",
           "started_at": f"{start:%Y-%m-%dT%H:%M:%SZ}", "finished_at": f"{start:%Y-%m-%dT%H:%M:%SZ}"}
    found = [p for p in schema._time_problems(run) if _expect("run_dated_hours_ahead") in p]
    assert bool(found) is refused, found


SPECIAL = {case: None for case in ("archive_seal_not_utf8", "archive_name_unlistable",
                                   "evidence_failure_other_words", "evidence_median_other_spellings",
                                   "run_dated_hours_ahead")}
