"""The seventh round of the hostile corpus (issue #29): values beyond any plausible figure (an exit
status of 10**90, a kernel of 1e300 s), strings that end in a newline (a regular expression's $
matched before it), times strptime reads but retest never writes, numbers of the wrong type that
compare equal, names that collide by case or normalization, escape sequences on the terminal, an
interrupted retest's leftovers under a planted type, and YAML tricks in the archive and words.

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
import os
import shutil
import signal
import subprocess
import sys

import pytest
from conftest import ROOT
from helpers import record, write_run
from test_hostile import _reseal_run as _reseal
from test_hostile_round2 import _manifest, _record
from test_hostile_round4 import CASES, RUN, _expect, _step

from reportgen.commands import retest
from reportgen.data import archive, load, safeyaml, seed, words
from reportgen.errors import ReportError
from reportgen.publish import verify

LATER = "20260102T000000Z-quick-f6ab9f827cfd"


def _file(name, twin=None):
    """A run carrying a file under ``name`` (and ``twin``), listed in run.json as retest lists files."""
    def mutate(tmp):
        run = write_run(tmp, RUN, [record(RUN)])
        for rel in filter(None, (name, twin)):
            (run / rel).parent.mkdir(parents=True, exist_ok=True)
            (run / rel).write_text("x\n")
        _reseal(run)
    return mutate


def _anchor_twin(tmp):
    twin = "numpy_gemm/dtype=float32/n=32/threads=1/blas=Configured"
    write_run(tmp, RUN, [record(RUN), record(RUN, case_id=twin)])


def _family_twin(manifest):
    entry = manifest["experiments"]["numpy_gemm"]
    manifest["experiments"]["NUMPY_GEMM"] = dict(entry, records=0, log=f"runs/{RUN}/logs/NUMPY_GEMM.log")


def _run_id_newline(tmp):
    write_run(tmp, RUN + "\n", [record(RUN + "\n")])


MUTATIONS = {
    "exp_exit_code_huge": _manifest(lambda m: m["experiments"]["numpy_gemm"].update(exit_code=10 ** 90)),
    "time_single_digits": _manifest(lambda m: m.update(started_at="2026-1-1T0:0:0Z")),
    "time_lower_case_z": _manifest(lambda m: m.update(finished_at="2026-01-01t00:10:00z")),
    "env_newline_in_string": _manifest(lambda m: m["environment"].update(cpu_model="Xeon\npublication machine: yes")),
    "family_name_case_twin": _manifest(_family_twin),
    "family_log_elsewhere": _manifest(lambda m: m["experiments"]["numpy_gemm"].update(log=f"runs/{LATER}/logs/numpy_gemm.log")),
    "record_id_trailing_newline": _record(lambda r: r.update(id=r["id"] + "\n")),
    "log_lines_bools": _record(lambda r: r["log"].update(lines=[True, True])),
    "stats_n_float": _record(lambda r: r["stats"].update(n=3.0)),
    "record_id_anchor_twin": _anchor_twin,
    "run_id_trailing_newline": _run_id_newline,
    "run_file_name_newline": _file("logs/a\nb.log"),
    "run_file_name_escape": _file("logs/a\x1b]8;;http:evil\x07b\x1b[2J.log"),
    "run_file_name_case_twin": _file("logs/NUMPY_GEMM.log"),
    "run_file_name_nfd_twin": _file("artifacts/numpy_gemm/caf\u00e9.txt", "artifacts/numpy_gemm/cafe\u0301.txt"),
    "run_file_name_ligature": _file("artifacts/numpy_gemm/\ufb01le.txt"),
}


CAMPAIGNS = {
    "camp_step_kernel_huge": _step(estimated_kernel_s=1e300),
    "camp_step_run_id_newline": _step(run_id=RUN + "\n"),
}


@pytest.mark.parametrize("case", sorted(MUTATIONS) + sorted(CAMPAIGNS))
def test_round7_results_are_refused_in_one_line_naming_the_file_and_field(case, tmp_path):
    """Runs through read_runs, campaigns through read_campaigns (a campaign's line names
    campaign.json and the field)."""
    results = tmp_path / "results"
    results.mkdir()
    {**MUTATIONS, **CAMPAIGNS}[case](results)
    with pytest.raises(ReportError) as err:
        (load.read_campaigns if case in CAMPAIGNS else load.read_runs)(results)
    lines, field = err.value.problems, CASES[case].get("field", "")
    assert any(p.startswith(str(results)) and field in p and _expect(case) in p for p in lines), lines
    assert not [p for p in lines if "\n" in p] and sum(map(len, lines)) < 3000


def test_every_exit_status_retest_writes_still_loads(tmp_path):
    import json
    for code in (0, 1, 255, -9, -15, None):   # with the status and the family's own failure record retest writes
        shutil.rmtree(tmp_path / "runs", ignore_errors=True)
        status = "ok" if code == 0 else {-9: "timeout", -15: "stopped"}.get(code, "run_failed")
        records = [record(RUN)]
        if code != 0:
            failed = record(RUN, case_id="numpy_gemm/scope=family", case={"scope": "family"})
            failed.update(samples=[], stats=None, repeat=0, metric="none", unit="none", extra={},
                          status="run_failed" if status == "stopped" else status,
                          error="family timed out after 60 s" if status == "timeout" else f"family exited with code {code}: x",
                          check={"reference": "none", "max_abs_err": None, "max_rel_err": None, "threshold": None,
                                 "passed": None})
            records.append(failed)
        run = write_run(tmp_path, RUN, records)
        manifest = json.loads((run / "run.json").read_text())
        manifest["experiments"]["numpy_gemm"].update(status=status, exit_code=code)
        (run / "run.json").write_text(json.dumps(manifest))
        assert len(load.read_runs(tmp_path)) == 1, code


def test_the_committed_results_hold_to_the_new_rules():
    """Every committed run: file names, times, family entries and anchors as round 7 requires."""
    assert load.read_runs(ROOT / "results")


# -- the terminal: an escape sequence in a name read from results/ is printed escaped --------------

def test_an_escape_sequence_in_a_folder_name_never_reaches_the_terminal_raw(tmp_path):
    shutil.copy(ROOT / "mkdocs.yml", tmp_path)
    write_run(tmp_path / "results", RUN, [record(RUN)])
    (tmp_path / "results" / "campaigns" / "z\x1b[2Jx\x1b]8;;http:e\x07").mkdir(parents=True)
    out = subprocess.run([sys.executable, "-m", "reportgen.cli", "--root", str(tmp_path), "verify"],
                         capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert out.returncode == 1 and "z\\x1b[2Jx\\x1b]8;;http:e\\x07" in out.stderr, out.stderr
    assert "\x1b" not in out.stderr and "\x07" not in out.stderr and "Traceback" not in out.stderr


# -- an interrupted retest's leftovers under a planted type ----------------------------------------

@pytest.mark.parametrize("case", ["stale_tmp_symlink", "stale_tmp_file"])
def test_a_stale_tmp_that_is_no_folder_is_removed_once_and_nothing_outside_is_touched(case, tmp_path, capsys):
    runs, outside = tmp_path / "runs", tmp_path / "outside"
    runs.mkdir()
    outside.mkdir()
    (outside / "keep.txt").write_text("precious")
    tmp = runs / f".tmp-{LATER}"
    if case == "stale_tmp_symlink":
        tmp.symlink_to(outside)
    else:
        tmp.write_text("x")
    assert retest.clean_stale(runs) == [tmp]
    assert not os.path.lexists(tmp) and (outside / "keep.txt").read_text() == "precious"
    assert retest.clean_stale(runs) == []   # said once: it is gone, not "removed" at every retest
    assert capsys.readouterr().out.count("removed") == 1


def test_records_are_reused_from_the_run_whose_id_is_newest(tmp_path):
    """Newest as a build orders runs (the run id's time, then retest's number within the second), never
    by the started_at string: three runs of one second all say the same started_at, and the sort by
    it kept the folders' name order, so the first run of the second passed for the newest."""
    retest._valid_runs.cache_clear()
    for run_id in (RUN, f"{RUN}-2", f"{RUN}-10", LATER):
        write_run(tmp_path, run_id, [record(run_id)])
    newest = [run.run_id for run in retest._valid_runs(str(tmp_path / "runs"))]
    retest._valid_runs.cache_clear()
    assert newest == [LATER, f"{RUN}-10", f"{RUN}-2", RUN], _expect("reuse_order_by_run_id")


# -- archive and words YAML ------------------------------------------------------------------------

BOMB = "".join(f"{a}: &{a} [{', '.join([f'*{b}'] * 9)}]\n" for b, a in zip("abcdef", "bcdefg"))
SEED = {
    "seed_yaml_alias_bomb": ("content_map.yaml", "a: &a [x, x]\n" + BOMB + "passages: []\n", seed.read_content_map),
    "seed_yaml_python_tag": ("code.yaml", "snippets: !!python/object/apply:os.system ['true']\n", seed.read_code),
    "seed_yaml_not_a_mapping": ("content_map.yaml", "- 1\n- 2\n", seed.read_content_map),
    "seed_yaml_items_mistyped": ("coverage.yaml", "rules: []\nitems: 5\n", seed.read_items),
    "archive_yaml_duplicate_key": ("tables/prose_numbers.yaml", None, archive.read_archive),
}


@pytest.mark.parametrize("case", sorted(SEED))
def test_round7_archive_yaml_is_refused_in_one_line_naming_the_file(case, tmp_path):
    name, text, reader = SEED[case]
    folder = tmp_path / "archive"
    shutil.copytree(ROOT / "archive", folder)
    path = folder / name
    if text is None:   # the title given twice: the second would replace the reviewed one
        text = path.read_text(encoding="utf-8").replace("\n", "\ntitle: taken over\n", 1)
    path.write_text(text, encoding="utf-8")
    archive.reseal(folder)   # as a pull request that reseals its edit would
    with pytest.raises(ReportError) as err:
        reader(folder)
    lines = err.value.problems
    assert any(p.startswith(str(path)) and _expect(case) in p for p in lines), lines
    assert not [p for p in lines if "\n" in p]


def test_a_words_file_with_a_key_given_twice_is_refused(tmp_path):
    path = tmp_path / "w.yaml"
    path.write_text("a:\n  b: reviewed\nc: x\na:\n  b: replaced\n", encoding="utf-8")
    with pytest.raises(safeyaml.Refused, match=_expect("words_yaml_duplicate_key").replace("(", r"\(")):
        safeyaml.loads(path.read_text(encoding="utf-8"), aliases=True)
    for name in sorted((ROOT / "docs" / "words").glob("*.yaml")):   # the project's own: none does
        words.catalog(name.stem)


# -- verify reads only plain site files within the limit -------------------------------------------

def test_verify_refuses_a_fifo_page_without_reading_it(tmp_path):
    os.mkfifo(tmp_path / "evil.html")

    def hung(*_):
        raise TimeoutError("verify blocked reading a FIFO")
    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(20)
    try:
        problems = verify._csp_problems(tmp_path)   # before round 7: the read blocked for ever
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    assert any(p.startswith(str(tmp_path / "evil.html")) and _expect("verify_fifo_page") in p for p in problems)


SPECIAL = {**{case: None for case in CAMPAIGNS}, **{case: None for case in SEED},
           "cli_error_escape_sequence": None, "stale_tmp_symlink": None, "stale_tmp_file": None,
           "reuse_order_by_run_id": None, "words_yaml_duplicate_key": None, "verify_fifo_page": None}
