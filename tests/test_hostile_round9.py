"""The ninth round of the hostile corpus (issue #29): figures each within its field's bounds but
absurd together (a GEMM of n=32 in a picosecond is 65 PFLOPS from a 2-core VM; a case of n=1e30;
threads=0), trial counts of 1e90, an environment of a million CPUs, folders nested 1200 levels deep
(os.walk, Path.rglob and os.makedirs recurse once per level), line breaks in the names of
campaigns, archive tables, docs and site files (a message split in two, or forged), words
placeholders whose format spec fills in a gigabyte or cannot format its value, and pages that load
from another origin.

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
import json
import os
import shutil
import subprocess

import pytest
from conftest import ROOT
from helpers import ENV, record, write_run
from test_hostile_round2 import _campaign
from test_hostile_round4 import CASES, RUN, _expect
from test_hostile_round8 import _plant_words

from reportgen.data import archive, load, words
from reportgen.errors import ReportError
from reportgen.publish import plugin, sitecheck, verify
from study import identity


def _records(*recs):
    return lambda tmp: write_run(tmp, RUN, list(recs))


def _environment(change):
    """A run of an environment changed by ``change``, stamped with that environment's own machine id
    (so that only the change itself is refused)."""
    def mutate(tmp):
        env = json.loads(json.dumps(ENV))
        change(env)
        env["machine_id"] = identity.legacy_machine_id(env)   # runs before 20261201 carry the legacy id
        run_id = f"20260101T000000Z-quick-{env['machine_id']}"
        run = write_run(tmp, run_id, [record(run_id)])
        manifest = json.loads((run / "run.json").read_text())
        manifest["environment"] = env
        (run / "run.json").write_text(json.dumps(manifest))
    return mutate


def _experiments(tmp):
    run = write_run(tmp, RUN, [record(RUN)])
    manifest = json.loads((run / "run.json").read_text())
    manifest["experiments"].update({f"fam{i}": {"status": "ok", "exit_code": 0, "duration_s": 0.0, "records": 0,
                                                "log": f"runs/{RUN}/logs/fam{i}.log", "reused": 0}
                                    for i in range(2000)})
    (run / "run.json").write_text(json.dumps(manifest))


def _gemm(n=32, threads=1, **change):
    case_id = f"numpy_gemm/dtype=float32/n={n}/threads={threads}/blas=configured"
    rec = record(RUN, case_id=case_id, case={"dtype": "float32", "m": n, "n": n, "k": n, "threads": threads,
                                             "blas_env": "configured", "seed": 0},
                 extra={"flops_per_call": 2 * n ** 3, "blas_kernel": {"architecture": "Haswell"}}, **change)
    return _records(rec)


def _trials_done(tmp):
    rec = record(RUN)
    rec["extra"]["trials_done"] = 10 ** 90
    write_run(tmp, RUN, [rec])


MUTATIONS = {
    "gemm_picosecond_samples": _gemm(samples=(1e-12, 1e-12, 1e-12)),
    "gemm_case_dim_1e30": _gemm(n=10 ** 30),
    "gemm_threads_zero": _gemm(threads=0),
    "gemm_threads_negative": _gemm(threads="-4"),
    "record_trials_done_1e90": _trials_done,
    "env_affinity_10k": _environment(lambda env: env.update(affinity=list(range(10_000)))),
    "env_simd_flags_200k": _environment(lambda env: env["simd_flags"].extend(f"f{i}" for i in range(200_000))),
    "env_logical_cores_1e18": _environment(lambda env: env.update(logical_cores=10 ** 18)),
    "env_memory_1e90": _environment(lambda env: env.update(memory_bytes=10 ** 90)),
    "experiments_2000_families": _experiments,
}


@pytest.mark.parametrize("case", sorted(MUTATIONS))
def test_round9_results_are_refused_in_one_line_naming_the_file_and_field(case, tmp_path):
    """Before round 9 each of these loaded: 65 PFLOPS from a 2-core VM, 1e84 GFLOPS, a GEMM on 0
    or "-4" threads, 1e90 trials, a 7.9 MB environment table, a machine of 1e18 cores."""
    results = tmp_path / "results"
    results.mkdir()
    MUTATIONS[case](results)
    with pytest.raises(ReportError) as err:
        load.read_runs(results)
    lines, field = err.value.problems, CASES[case].get("field", "")
    assert any(p.startswith(str(results)) and field in p and _expect(case) in p for p in lines), lines
    assert not [p for p in lines if "\n" in p]


def test_the_committed_results_hold_to_the_round9_bounds():
    runs = load.read_runs(ROOT / "results")
    assert load.read_campaigns(ROOT / "results", runs)
    assert archive.read_archive(ROOT / "archive")


def test_a_campaign_of_1e90_trials_is_refused(tmp_path):
    big = 10 ** 90
    _campaign(tmp_path, cumulative_trials=big, steps=[{"run_id": RUN, "trials": big, "seconds": 1.5,
                                                        "cumulative_trials": big, "estimated_kernel_s": 0.01,
                                                        "records": 8}])
    with pytest.raises(ReportError) as err:
        load.read_campaigns(tmp_path)
    assert any("campaign.json: steps[0].trials: " in p and _expect("camp_trials_1e90") in p
               for p in err.value.problems), err.value.problems


# -- folders nested 1200 levels: one line naming the folder, never a RecursionError ------------------

def _deep(folder, levels=1200):
    """folder/d/d/.../d with a file at the bottom, made level by level (os.makedirs itself recurses)."""
    os.makedirs(folder, exist_ok=True)
    fd = os.open(folder, os.O_RDONLY)
    for _ in range(levels):
        os.mkdir("d", dir_fd=fd)
        inner = os.open("d", os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = inner
    os.close(os.open("f.txt", os.O_CREAT | os.O_WRONLY, 0o644, dir_fd=fd))
    os.close(fd)


def _nested_run(tmp):
    run = write_run(tmp / "results", RUN, [record(RUN)])
    _deep(run / "artifacts")
    return lambda: load.read_runs(tmp / "results"), run


def _nested_docs(tmp):
    (tmp / "docs").mkdir()
    (tmp / "docs" / "index.md").write_text("# x\n", encoding="utf-8")
    (tmp / "mkdocs.yml").write_text("site_name: x\n", encoding="utf-8")
    _deep(tmp / "docs" / "assets")
    config = type("Config", (), {"docs_dir": str(tmp / "docs"), "config_file_path": str(tmp / "mkdocs.yml")})
    return lambda: plugin.ReportgenPlugin().on_config(config), tmp / "docs"


def _nested_archive(tmp):
    shutil.copytree(ROOT / "archive", tmp / "archive")
    _deep(tmp / "archive" / "tables" / "x")
    return lambda: archive.read_archive(tmp / "archive"), tmp / "archive"


def _nested_site(tmp):
    site = tmp / "site"
    site.mkdir()
    (site / "index.html").write_text("<html></html>", encoding="utf-8")
    sitecheck.write_manifest(site)
    _deep(site / "data")

    def check():   # verify raises ReportError(problems) with these first
        raise ReportError(sitecheck.manifest_problems(site))
    return check, site


NESTED = {"run_nested_folders": _nested_run, "docs_nested_folders": _nested_docs,
          "archive_nested_folders": _nested_archive, "site_nested_folders": _nested_site}


@pytest.fixture
def deep_tmp(tmp_path):
    """tmp_path, emptied by `rm -rf` afterwards: shutil.rmtree recurses once per level too, so pytest's
    own clean-up of a later session would end in a RecursionError on these folders."""
    yield tmp_path
    subprocess.run(["rm", "-rf", "--", *map(str, tmp_path.iterdir())], check=True)


@pytest.mark.parametrize("case", sorted(NESTED))
def test_folders_nested_1200_levels_are_refused_in_one_line(case, deep_tmp):
    """os.walk and Path.rglob recurse once per level: load, the build's docs check, the archive seal
    and verify ended in 'internal error RecursionError'."""
    check, where = NESTED[case](deep_tmp)
    with pytest.raises(ReportError) as err:
        check()
    assert any(p.startswith(str(where)) and _expect(case) in p for p in err.value.problems), err.value.problems


def test_the_walk_finds_what_rglob_finds(tmp_path):
    from reportgen.data import plainfile
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "a" / "b" / "x.txt").write_text("x")
    (tmp_path / "a" / "link").symlink_to(tmp_path / "a" / "b")   # listed, never entered
    assert plainfile.tree(tmp_path) == sorted(tmp_path.rglob("*"))


# -- a line break in a name: one line each, never a forged second ------------------------------------

def _camp_newline(tmp):
    (tmp / "campaigns" / "evil\nerror: none").mkdir(parents=True)
    return lambda: load.read_campaigns(tmp)


def _archive_newline(tmp):
    shutil.copytree(ROOT / "archive", tmp / "archive")
    (tmp / "archive" / "tables" / "x\nall good.yaml").write_text("a: 1\n", encoding="utf-8")
    return lambda: archive.read_archive(tmp / "archive")


def _docs_newline(tmp):
    (tmp / "docs").mkdir()
    (tmp / "mkdocs.yml").write_text("site_name: x\n", encoding="utf-8")
    os.mkfifo(tmp / "docs" / "x\nerror: none.md")
    config = type("Config", (), {"docs_dir": str(tmp / "docs"), "config_file_path": str(tmp / "mkdocs.yml")})
    return lambda: plugin.ReportgenPlugin().on_config(config)


def _site_newline(tmp):
    site = tmp / "site"
    site.mkdir()
    (site / "index.html").write_text("<html></html>", encoding="utf-8")
    sitecheck.write_manifest(site)
    (site / "x\nall listed.txt").write_text("x", encoding="utf-8")

    def check():
        raise ReportError(sitecheck.manifest_problems(site))
    return check


NEWLINES = {"camp_folder_newline": _camp_newline, "archive_table_name_newline": _archive_newline,
            "docs_fifo_name_newline": _docs_newline, "site_planted_name_newline": _site_newline}


@pytest.mark.parametrize("case", sorted(NEWLINES))
def test_a_line_break_in_a_name_stays_inside_its_one_line(case, tmp_path):
    """A campaign folder 'evil\\nerror: none' printed 'error: none' as a message of its own."""
    check = NEWLINES[case](tmp_path)
    with pytest.raises(ReportError) as err:
        check()
    lines = err.value.problems
    assert not [p for p in lines if "\n" in p or "\r" in p], lines
    assert any(_expect(case) in p for p in lines), lines
    assert len(str(err.value).splitlines()) == len(lines) + bool(err.value.hint)   # the hint: a line of its own


# -- words: a format spec that fills in a gigabyte, or cannot format its value ---------------------------

WORDS = {
    "words_format_width_huge": ("k: 'x {n:>300000000}'\n", 5),
    "words_format_precision_huge": ("k: 'x {n:.999999999f}'\n", 1.5),
    "words_format_spec_invalid": ("k: 'x {n:zz}'\n", 5),
    "words_format_code_for_str": ("k: 'x {n:d}'\n", "five"),
}


@pytest.mark.parametrize("case", sorted(WORDS))
def test_a_words_format_spec_is_checked_before_it_is_used(case, tmp_path, monkeypatch):
    """{n:>300000000} filled in 300 MB, {n:.999999999f} a gigabyte; {n:zz} and {n:d} of a text
    ended in 'internal error ValueError'."""
    text, value = WORDS[case]
    _plant_words(tmp_path, monkeypatch, lambda path, _tmp: path.write_text(text, encoding="utf-8"))
    with pytest.raises(ReportError) as err:
        words.W("w.k", n=value)
    (line,) = err.value.problems
    assert line.startswith("docs/words/w.yaml: the text of 'w.k'") and _expect(case) in line, line


def test_the_format_specs_the_words_use_still_fill_in(tmp_path, monkeypatch):
    text = "k: '{a:.2f} {b:.0%} {c:g} {d:.3g} {e:,} {f:>8}'\n"
    _plant_words(tmp_path, monkeypatch, lambda path, _tmp: path.write_text(text, encoding="utf-8"))
    assert words.W("w.k", a=1.234, b=0.5, c=2.0, d=1234.5, e=10000, f="x") == "1.23 50% 2 1.23e+03 10,000        x"


# -- verify: a page loads nothing from another origin ---------------------------------------------------

PAGES = {
    "verify_https_script": '<script src="https://evil.example/x.js"></script>',
    "verify_protocol_relative_script": '<script src="//evil.example/x.js"></script>',
    "verify_srcset_javascript": '<img srcset="a.png 1x, javascript:alert(1) 2x">',
    "verify_meta_refresh": '<meta http-equiv="refresh" content="0;url=https://evil.example/">',
    "verify_base_href": '<base href="https://evil.example/">',
    "verify_iframe_srcdoc": '<iframe srcdoc="&lt;script&gt;alert(1)&lt;/script&gt;"></iframe>',
}


@pytest.mark.parametrize("case", sorted(PAGES))
def test_verify_refuses_a_page_that_loads_from_another_origin(case, tmp_path):
    """Each passed verify's page checks (https is a scheme links may use; //host has none): only the
    rebuild comparison of `reportgen verify` caught them, and the build's own verify has none."""
    (tmp_path / "numbers.json").write_text("[]", encoding="utf-8")
    (tmp_path / "machine.json").write_text(json.dumps({"publication_machine": "f6ab9f827cfd"}), encoding="utf-8")
    (tmp_path / "index.html").write_text(f"<html><head>{PAGES[case]}</head><body>"
                                         '<a href="https://tvm.apache.org/">TVM</a></body></html>', encoding="utf-8")
    problems = verify._check_site(tmp_path, {}, {})
    # one problem (an iframe, since round 21, is also refused as markup parsed otherwise)
    assert problems and all(p.startswith(str(tmp_path / "index.html")) for p in problems) \
        and any(_expect(case) in p for p in problems) and len(problems) <= 2, problems


SPECIAL = {**{case: None for case in NESTED}, **{case: None for case in NEWLINES},
           **{case: None for case in WORDS}, **{case: None for case in PAGES}, "camp_trials_1e90": None,
           "camp_step_run_missing": None}


MISSING_RUN = "20261201T110215Z-standard-ab32f168216c"   # named by a committed campaign, never committed


def test_a_campaign_step_whose_run_is_absent_is_marked_and_counted_as_unverifiable():
    """camp_step_run_missing: the step stays in the count (the database holds its tuning records and
    the tuned network used them) but the campaign table marks its run, a note gives the trials no log
    backs, and the build prints one line for it; with the run present, nothing is marked."""
    from reportgen.data import campaigns, merge
    from reportgen.pages import e2e
    from reportgen.render.figures import FigureBook
    from reportgen.data.words import W
    runs = load.read_runs(ROOT / "results")
    assert MISSING_RUN not in {run.run_id for run in runs}
    current = merge.current_records(merge.runs_of(runs, "ab32f168216c"))
    ids = {run.run_id for run in runs}
    table = e2e.campaign_table(FigureBook(), current, ids)
    marked = [line for line in table.splitlines() if MISSING_RUN in line]
    assert marked and all(W("e2e.campaign_table.run_missing") in line for line in marked)
    assert sum(W("e2e.campaign_table.run_missing") in line for line in table.splitlines()) == len(marked)
    note = table.split("\n\n")[-1]
    assert ">372<" in note and ">1<" in note, note
    whole = e2e.campaign_table(FigureBook(), current, ids | {MISSING_RUN})
    assert W("e2e.campaign_table.run_missing") not in whole and ">372<" not in whole.split("\n\n")[-1]
    lines = campaigns.step_lines(load.read_campaigns(ROOT / "results", runs), runs)
    assert [line for line in lines if MISSING_RUN in line] == [
        f"campaign resnet18_v1-b1-s224-default-2356d41c5a: step 1 names run {MISSING_RUN}, which is not in "
        "results/runs/; its 372 trials are counted as the campaign says, unverifiable"]

