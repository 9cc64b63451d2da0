"""The twelfth round of the hostile corpus (issue #29): what the project writes and what a leftover of
an interrupted build, retest or campaign commit does to the next one; records reused across machines or
back in time; a machine chosen for the site by a run's claimed finish; a campaign step of another
machine; absurd call counts, a record's campaign snapshot of the wrong shape, and inf in a figure.

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
import json
import math
import os
import shutil
import stat
from pathlib import Path

import pytest
from conftest import ROOT
from helpers import record, write_run
from test_hostile_round4 import CASES, RUN, _expect, _reseal
from test_hostile_round10 import refused_in_one_line

from reportgen.commands import build, retest
from reportgen.data import campaigns, load, merge
from reportgen.data.words import W
from reportgen.errors import ReportError
from study import schema

MUTATIONS = {}
CAMPAIGN_RUN = "20261201T115914Z-standard-ab32f168216c"   # a committed run whose tuning records carry campaigns
OTHER_MACHINE_RUN = "20261129T171403Z-standard-f6ab9f827cfd"


# -- files outside the project -------------------------------------------------------------------

@pytest.mark.parametrize("case", ["site_dir_user_folder_of_site_shape", "site_dir_marker_symlink"])
def test_a_folder_outside_the_project_is_replaced_only_with_a_marker_of_its_own(case, tmp_path):
    """A folder of the user's holding index.html and numbers.json (any web export), or one holding a
    link named like the marker, was taken for a previous site: `build --site-dir` moved it aside and
    removed it with every file in it."""
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "notes.txt").write_text("precious")
    if case == "site_dir_user_folder_of_site_shape":
        (folder / "index.html").write_text("my page")
        (folder / "numbers.json").write_text("[]")
    else:
        (tmp_path / "any").write_text("x")
        os.symlink(tmp_path / "any", folder / build.MARKER)
    with pytest.raises(ReportError) as err:
        build.check_site_dir(ROOT, folder)
    assert str(folder) in str(err.value) and _expect(case) in str(err.value)
    site = tmp_path / "site"   # a site this command built (its marker a plain file) is still replaced
    site.mkdir()
    (site / build.MARKER).write_text("built\n")
    (site / "index.html").write_text("x")
    assert build.check_site_dir(ROOT, site) == site


def test_the_writability_probe_of_retest_follows_no_planted_link(tmp_path, monkeypatch):
    """retest_probe_lock_symlink: retest checked results/runs by Path.touch of .tmp-probe-<pid>.lock, a
    guessable name: a link planted there was followed and its target created (as root: /etc/nologin)."""
    project = tmp_path / "project"
    shutil.copytree(ROOT / "experiments", project / "experiments",
                    ignore=shutil.ignore_patterns("__pycache__"))
    (project / "results" / "runs").mkdir(parents=True)
    target = tmp_path / "outside" / "nologin"
    target.parent.mkdir()
    os.symlink(target, project / "results" / "runs" / f".tmp-probe-{os.getpid()}.lock")

    class Stop(Exception):
        pass

    def stop(_runs_dir):
        raise Stop
    monkeypatch.setattr(retest, "clean_stale", stop)   # the probe runs just before it
    with pytest.raises(Stop):
        retest.retest(project, "quick", only=("numpy_gemm",), allow_dirty=True)
    assert not os.path.lexists(target), CASES["retest_probe_lock_symlink"]["expect"]


# -- leftovers of an interrupted build, retest or commit ----------------------------------------

def test_a_build_stopped_between_its_renames_puts_the_published_site_back(tmp_path, monkeypatch, capsys):
    """build_stopped_between_renames: a build stopped after site -> site.old and before site.tmp -> site left
    no site/; the next build removed site.old as a leftover, so when it failed too (here: in MkDocs)
    the last good site was gone."""
    site = tmp_path / "out" / "site"
    site.parent.mkdir()
    old = site.with_name("site.old")
    old.mkdir()
    (old / build.MARKER).write_text("built\n")
    (old / "index.html").write_text("LAST GOOD SITE")
    from mkdocs.commands import build as mk_build

    def crash(_config):
        raise RuntimeError("a crash inside MkDocs")
    monkeypatch.setattr(mk_build, "build", crash)
    with pytest.raises(RuntimeError):
        build._build(ROOT, build.check_site_dir(ROOT, site), False, None)
    assert (site / "index.html").read_text() == "LAST GOOD SITE"
    assert _expect("build_stopped_between_renames") in capsys.readouterr().out


def test_a_folder_under_a_lock_name_is_one_line_for_a_build_and_removed_by_retest(tmp_path):
    """lock_name_taken_by_a_folder: a folder at a retest's .tmp-<id>.lock made every retest stop with
    IsADirectoryError (clean_stale opened it as a lock) until removed by hand; a folder at the build's
    .site.lock was an OSError naming no fault."""
    runs = tmp_path / "runs"
    (runs / ".tmp-20260101T000000Z-quick-aaaaaaaaaaaa.lock").mkdir(parents=True)
    (runs / ".tmp-20260101T000000Z-quick-bbbbbbbbbbbb").mkdir()
    (runs / ".tmp-20260101T000000Z-quick-bbbbbbbbbbbb.lock").mkdir()
    retest.clean_stale(runs)
    assert os.listdir(runs) == []
    site = tmp_path / "out" / "site"
    (site.parent / ".site.lock").mkdir(parents=True)
    with pytest.raises(ReportError) as err:
        with build._Lock(site, 1):
            pass
    assert str(err.value).startswith(str(site.parent / ".site.lock")) and _expect("lock_name_taken_by_a_folder") in str(err.value)


def test_a_dangling_link_takes_the_run_id(tmp_path):
    """run_id_taken_by_a_dangling_link: exists() is False for a dangling link, so retest named its run
    after it; the final rename onto the link fails, and the next retest removes the measured run."""
    base = "20260101T000000Z-quick-aaaaaaaaaaaa"
    os.symlink(tmp_path / "nowhere", tmp_path / base)
    assert retest._unique_run_id(tmp_path, base) == f"{base}-2"


def _tuning():
    from experiments.e2e import tuning
    return tuning


def _campaign(results, monkeypatch):
    tuning = _tuning()
    monkeypatch.setattr(tuning, "prune", lambda _work, _keep: {"before": 0, "after": 0})
    parts = {"model": "m", "batch": 1, "input_size": 224, "seed": 0, "variant": "default", "target": "{}",
             "tvm_version": "x"}
    work = results.parent / "work"
    work.mkdir(exist_ok=True)
    (work / "database_workload.json").write_text('["hash", "payload"]\n')
    (work / "database_tuning_record.json").write_text("")
    return (lambda: tuning.Campaign(results, parts)), work


def test_a_commit_stopped_between_its_renames_loses_no_trials(tmp_path, monkeypatch, capsys):
    """camp_commit_stopped_between_renames: stopped after <key> -> .old-<key>, the campaign was taken for a
    new one by the next retest (0 trials), whose commit then removed .old-<key>: the tuning was lost;
    the build skipped the hidden folder, so the campaign vanished from the site without a word."""
    results = tmp_path / "results"
    new, work = _campaign(results, monkeypatch)
    new().commit(work, run_id="20260101T000000Z-standard-aaaaaaaaaaaa", trials=64, seconds=10.0, estimate_s=None)
    camp = new()
    camp.dir.rename(camp.dir.with_name(f".old-{camp.key}"))   # where a kill -9 between the renames leaves it
    assert list(load.read_campaigns(results)) == [camp.key]
    assert new().trials == 64 and camp.dir.is_dir()
    assert _expect("camp_commit_stopped_between_renames") in capsys.readouterr().out


@pytest.mark.parametrize("name, plant", [(".tmp-", "symlink"), (".tmp-", "file"), (".old-", "symlink")])
def test_a_leftover_of_a_commit_that_is_no_folder_is_removed_not_followed(name, plant, tmp_path, monkeypatch):
    """camp_commit_leftover_not_a_folder: rmtree(ignore_errors=True) left a file or link under .tmp-/.old-,
    and every later commit of the campaign failed on the name (FileExistsError, NotADirectoryError)
    after the whole tuning job; the folder a link names is never touched."""
    results = tmp_path / "results"
    new, work = _campaign(results, monkeypatch)
    new().commit(work, run_id="20260101T000000Z-standard-aaaaaaaaaaaa", trials=64, seconds=10.0, estimate_s=None)
    camp = new()
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep").write_text("keep")
    path = camp.dir.with_name(f"{name}{camp.key}")
    os.symlink(outside, path) if plant == "symlink" else path.write_text("x")
    state = camp.commit(work, run_id="20260102T000000Z-standard-aaaaaaaaaaaa", trials=64, seconds=10.0,
                        estimate_s=None)
    assert state["cumulative_trials"] == 128 and os.listdir(outside) == ["keep"]
    assert not os.path.lexists(path) or path.is_dir()


# -- a run taking over a figure, a machine taking over the site ----------------------------------

def _reused_into(results, origin, run_id, environment=None):
    """A run ``run_id`` that carries the first ok record of the committed run ``origin`` as reused."""
    recs = [json.loads(line) for line in (ROOT / "results" / "runs" / origin / "records.jsonl").read_text().splitlines()
            if line.strip()]
    carried = dict(next(r for r in recs if r["status"] == "ok"))
    carried["reused_from"] = carried["run_id"]
    run = write_run(results, run_id, [record(run_id)])
    with open(run / "records.jsonl", "a", encoding="utf-8") as fh:
        fh.write(schema.dumps(carried) + "\n")
    manifest = json.loads((run / "run.json").read_text())
    entry = manifest["experiments"].setdefault(carried["experiment"], {
        "status": "ok", "exit_code": 0, "duration_s": 1.0, "log": f"runs/{run_id}/logs/{carried['experiment']}.log",
        "records": 0, "reused": 0})
    entry["records"] += 1
    entry["reused"] += 1
    if environment is not None:
        manifest["environment"] = environment
    (run / "run.json").write_text(json.dumps(manifest))
    _reseal(run)


def _reuse_from_another_machine(results):
    shutil.copytree(ROOT / "results" / "runs" / OTHER_MACHINE_RUN, results / "runs" / OTHER_MACHINE_RUN)
    env = json.loads((ROOT / "results" / "runs" / CAMPAIGN_RUN / "run.json").read_text())["environment"]
    _reused_into(results, OTHER_MACHINE_RUN, "20261205T130000Z-quick-ab32f168216c", env)


def _reuse_from_a_later_run(results):
    shutil.copytree(ROOT / "results" / "runs" / OTHER_MACHINE_RUN, results / "runs" / OTHER_MACHINE_RUN)
    _reused_into(results, OTHER_MACHINE_RUN, "20261128T000000Z-quick-f6ab9f827cfd")


MUTATIONS["reuse_from_another_machine"] = _reuse_from_another_machine
MUTATIONS["reuse_from_a_later_run"] = _reuse_from_a_later_run


def test_publication_machine_is_never_decided_by_a_claimed_finish():
    """publication_machine_by_finished_at: of two machines with as many families, the one whose newest run
    claimed the later finished_at was published (and lent its figures first), though the other's
    run started a month later: a run may claim a finish it never had."""
    def run(run_id, finished, machine):
        found = load.Run(Path(run_id), {"run_id": run_id, "profile": "standard", "finished_at": finished,
                                        "environment": {}}, [{"id": f"{f}/a=1", "status": "ok"} for f in "xy"])
        found.__dict__["machine"] = machine
        return found
    runs = [run("20261101T000000Z-standard-aaaaaaaaaaaa", "2026-12-04T23:00:00Z", "aaaaaaaaaaaa"),
            run("20261203T000000Z-standard-bbbbbbbbbbbb", "2026-12-03T01:00:00Z", "bbbbbbbbbbbb")]
    assert merge.publication_machine(runs)[0] == "bbbbbbbbbbbb"
    assert [s["id"] for s in merge.summaries(runs)] == ["bbbbbbbbbbbb", "aaaaaaaaaaaa"]


def test_a_campaign_step_of_another_machine_is_marked_counted_and_said():
    """camp_step_other_machine (round 8 #47, left open): a step naming a run of another machine was shown
    as this machine's tuning; now the table marks its run, a note counts its trials, and the build
    prints one line per such step (the trials stay counted: the database holds them)."""
    from reportgen.pages import e2e
    from reportgen.render.cells import code_span
    from reportgen.render.figures import FigureBook
    runs = load.read_runs(ROOT / "results")
    current = merge.current_records(merge.runs_of(runs, "ab32f168216c"))
    tune = next(c for c in current.values() if (c.record.get("extra") or {}).get("campaign"))
    machines = {run.run_id: run.machine for run in runs}
    step = dict(tune.record["extra"]["campaign"]["steps"][0], run_id=OTHER_MACHINE_RUN)
    kept = tune.record["extra"]["campaign"]   # the loaded record itself: put back before the runs are read again
    tune.record["extra"]["campaign"] = dict(kept, steps=[step] + kept["steps"][1:])
    try:
        table = e2e.campaign_table(FigureBook(), current, machines)
    finally:
        tune.record["extra"]["campaign"] = kept
    marked = [line for line in table.splitlines() if OTHER_MACHINE_RUN in line]
    mark = W("e2e.campaign_table.run_other_machine", machine=code_span(machines[OTHER_MACHINE_RUN]))
    assert len(marked) == 1 and mark in marked[0] and table.count(mark) == 1
    notes = [note for note in table.split("\n\n") if "#other_machine_trials" in note]
    assert len(notes) == 1 and f">{step['trials']}<" in notes[0]
    state = {"k": {"steps": [dict(step, run_id=OTHER_MACHINE_RUN), dict(step, run_id=CAMPAIGN_RUN)]}}
    lines = campaigns.step_lines(state, runs)
    assert len(lines) == 1 and OTHER_MACHINE_RUN in lines[0] and _expect("camp_step_other_machine") in lines[0]
    assert not [line for line in campaigns.step_lines(load.read_campaigns(ROOT / "results", runs), runs)
                if "another machine" in line]


def test_a_word_cache_folder_others_may_write_is_not_used(tmp_path, monkeypatch):
    """jieba_cache_shared_folder: the search's word cache used <REPORTGEN_CACHE>/jieba whoever owned it
    and whoever could write it (the build's other caches refuse such a folder since round 11), and
    made it 0775 under umask 002."""
    from reportgen.publish import wordsplit
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o777)
    monkeypatch.setenv("REPORTGEN_CACHE", str(shared))
    assert not wordsplit._folder().is_relative_to(shared)
    own = tmp_path / "own"
    monkeypatch.setenv("REPORTGEN_CACHE", str(own))
    old = os.umask(0o002)
    try:
        folder = wordsplit._folder()
    finally:
        os.umask(old)
    assert folder == own / "jieba" and stat.S_IMODE(os.stat(folder).st_mode) == 0o700


# -- absurd counts, a record's campaign snapshot, inf in a figure ---------------------------------

def _counts(name):
    def mutate(results):
        rec = record(RUN)
        if name == "repeat":   # a failed record: its repeat was checked against no samples
            rec.update(samples=[], stats=None, status="run_failed", error="boom")
        rec[name] = 10**90
        write_run(results, RUN, [rec])
    return mutate


for _name in ("warmup", "number", "repeat"):
    MUTATIONS[f"lim_{_name}_1e90"] = _counts(_name)


def _snapshot(change):
    """The committed run CAMPAIGN_RUN with its first campaign snapshot changed, resealed."""
    def mutate(results):
        run = results / "runs" / CAMPAIGN_RUN
        shutil.copytree(ROOT / "results" / "runs" / CAMPAIGN_RUN, run)
        recs = [json.loads(line) for line in (run / "records.jsonl").read_text().splitlines() if line.strip()]
        change(next(r for r in recs if (r.get("extra") or {}).get("campaign"))["extra"]["campaign"])
        (run / "records.jsonl").write_text("".join(schema.dumps(r) + "\n" for r in recs))
        _reseal(run)
    return mutate


MUTATIONS.update({
    "camp_snapshot_steps_text": _snapshot(lambda c: c.update(steps="many")),
    "camp_snapshot_trials_text": _snapshot(lambda c: c["steps"][0].update(trials="lots")),
    "camp_snapshot_seconds_text": _snapshot(lambda c: c["steps"][0].update(seconds="long")),
    "camp_snapshot_kernel_1e308": _snapshot(lambda c: c["steps"][0].update(estimated_kernel_s=1e308)),
    "camp_snapshot_cumulative_forged": _snapshot(lambda c: c.update(cumulative_trials=99999)),
})


@pytest.mark.parametrize("case", sorted(MUTATIONS))
def test_round12_results_are_refused_in_one_line_naming_the_file_and_field(case, tmp_path):
    """Before round 12 these loaded: a record reused from another machine's run (shown as this machine's
    figure) or from a later run; warmup, number or repeat of 1e90; and a campaign snapshot whose steps
    were text or whose kernel time was 1e308 s, which ended the build in an internal error on the
    campaign table (a forged cumulative count was published as it was)."""
    refused_in_one_line(MUTATIONS[case], case, tmp_path / "results")


def test_a_figure_that_is_not_finite_is_a_marker_not_an_internal_error():
    """fmt_number_not_finite: fmt_number(inf) and fmt_number(nan) raised IndexError (a figure overflowing
    on the way, 1e306 s in ms, stopped the build)."""
    from reportgen.render.figures import fmt_number
    marker = W("figures.not_finite.text")
    assert [fmt_number(v, "ms") for v in (math.inf, -math.inf, math.nan)] == [marker] * 3
    assert fmt_number(12.34, "ms") == "12.3" and fmt_number(0, "s") == "0"


def test_a_failed_familys_error_quotes_its_last_log_line_cut_at_newlines(tmp_path):
    """failure_record_form_feed_tail: the run_failed record's error quoted the log's last line as
    splitlines cut it, so a form feed made a fragment ('ok: all 12 cases passed') the family's last word."""
    log = tmp_path / "numpy_gemm.log"
    log.write_bytes(b"starting\nTraceback: real error in kernel\x0cok: all 12 cases passed\r\n")
    rec = retest._failure_record("20260101T000000Z-quick-aaaaaaaaaaaa", "numpy_gemm", "run_failed", 1,
                                 "runs/20260101T000000Z-quick-aaaaaaaaaaaa/logs/numpy_gemm.log", log, 60)
    assert rec["error"] == "family exited with code 1: Traceback: real error in kernel\x0cok: all 12 cases passed"


SPECIAL = {"site_dir_user_folder_of_site_shape": None, "site_dir_marker_symlink": None,
           "retest_probe_lock_symlink": None, "build_stopped_between_renames": None,
           "lock_name_taken_by_a_folder": None, "run_id_taken_by_a_dangling_link": None,
           "camp_commit_stopped_between_renames": None, "camp_commit_leftover_not_a_folder": None,
           "publication_machine_by_finished_at": None, "camp_step_other_machine": None,
           "jieba_cache_shared_folder": None, "fmt_number_not_finite": None,
           "failure_record_form_feed_tail": None}
