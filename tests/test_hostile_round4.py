"""The fourth round of the hostile corpus (issue #29): derived figures from a record's own claims,
formulas in CSV cells, run ids that lie about their machine, units, caches outside the project,
FIFOs and huge files, mistyped extras, forged pages, campaigns, counts, cases and site folders.

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every
entry has a test here or in the earlier rounds.
"""
import json
import os
import time

import pytest
import yaml
from conftest import ROOT
from helpers import record, write_run

from reportgen.data import load
from reportgen.errors import ReportError

CASES = {c["id"]: c for c in yaml.safe_load(
    (ROOT / "tests" / "data" / "hostile" / "cases.yaml").read_text(encoding="utf-8"))["cases"]}
RUN = "20260101T000000Z-quick-test"


def _expect(case):
    return CASES[case]["expect"]


def _one_line(err):
    text = str(err)
    assert "\n" not in text.strip() and "Traceback" not in text, text
    return text


def _reseal(run):
    from test_hostile import _reseal_run
    _reseal_run(run)


# -- results refused by load, naming the file and the field -----------------------------------

def _record(**change):
    def mutate(tmp):
        write_run(tmp, RUN, [record(RUN, **change)])
    return mutate


def _sparse_log(tmp):
    run = write_run(tmp, RUN, [record(RUN)])
    with open(run / "logs" / "big.txt", "wb") as fh:   # 12 GB that take no disk
        fh.truncate(12 * 2**30)
    _reseal_listing_only(run, "logs/big.txt")


def _reseal_listing_only(run, rel):
    manifest = json.loads((run / "run.json").read_text())
    manifest["files"][rel] = "0" * 64
    (run / "run.json").write_text(json.dumps(manifest))


MUTATIONS = {
    "lim_sparse_huge_run_file": _sparse_log,
}


@pytest.mark.parametrize("case", sorted(MUTATIONS))
def test_round4_results_are_refused_naming_the_file(case, tmp_path):
    results = tmp_path / "results"
    results.mkdir()
    MUTATIONS[case](results)
    started = time.monotonic()
    with pytest.raises(ReportError) as err:
        load.read_runs(results)
    assert time.monotonic() - started < 10
    text = "\n".join(err.value.problems)
    assert _expect(case) in text, text
    assert str(results) in text, "the message names the file"
    assert all("\n" not in p for p in err.value.problems) and len(text) < 2000


# -- CSV cells a spreadsheet would run -------------------------------------------------------

@pytest.mark.parametrize("cell, guarded", [("-1 +1+cmd|' /C calc'!A0", True), ("-1.41 / -1.41", True),
                                           ("=1+1", True), ("@SUM(A1)", True), ("\t=1", True), ("\r=1", True),
                                           ("-", True), ("-1.5", False), ("+3e-4", False), ("1,234", False),
                                           ("12.5 ms", False), ("plain", False)])
def test_a_csv_cell_that_is_not_a_whole_number_is_guarded(cell, guarded):
    from reportgen.publish import csvs
    out = csvs.to_csv([["head"], [cell]]).split("\n", 1)[1]
    assert out.lstrip('"').startswith("'") is guarded, (_expect("csv_formula_leading_number"), cell, out)


# -- archive files that are not plain files ------------------------------------------------------

@pytest.fixture
def archive_copy(tmp_path):
    import shutil
    dest = tmp_path / "archive"
    shutil.copytree(ROOT / "archive", dest)
    return dest


def test_a_fifo_in_the_archive_is_refused_not_read(archive_copy):
    from reportgen.data import archive
    path = archive_copy / "tables" / "s21_peak.yaml"
    path.unlink()
    os.mkfifo(path)
    started = time.monotonic()
    with pytest.raises(ReportError) as err:
        archive.read_archive(archive_copy)
    assert time.monotonic() - started < 10
    assert _expect("fifo_in_archive") in _one_line(err.value) and str(path) in str(err.value)


def test_a_fifo_elsewhere_in_the_archive_fails_the_seal(archive_copy):
    from reportgen.data import archive
    os.mkfifo(archive_copy / "planted.yaml")
    problems = archive.seal_problems(archive_copy)
    assert any(str(archive_copy / "planted.yaml") in p and "not a plain file" in p for p in problems)


def test_a_fifo_or_huge_file_read_through_plainfile_is_one_line(tmp_path):
    from reportgen.data import plainfile
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(ReportError) as err:
        plainfile.read_bytes(fifo)
    assert "is not a plain file" in _one_line(err.value)
    big = tmp_path / "big.log"
    with open(big, "wb") as fh:
        fh.truncate(2000)
    assert len(plainfile.read_bytes(big, 2000)) == 2000
    with pytest.raises(ReportError) as err:
        plainfile.read_bytes(big, 1999)
    assert "2000 bytes, more than the 1999" in _one_line(err.value)
    (tmp_path / "link").symlink_to(big)
    with pytest.raises(ReportError) as err:
        plainfile.read_bytes(tmp_path / "link")
    assert "is a symlink" in _one_line(err.value)


def test_the_largest_committed_run_file_is_well_inside_the_limit():
    from reportgen.data import plainfile
    largest = max(p.stat().st_size for p in (ROOT / "results").rglob("*") if p.is_file())
    assert largest * 4 < plainfile.MAX_RUN_FILE_BYTES


SPECIAL = {"csv_formula_leading_number", "fifo_in_archive"}
