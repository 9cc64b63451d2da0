"""The fifth round of the hostile corpus (issue #29), records, loader and history: run.json's counts
against records.jsonl, shares above 1, a machine id naming two hardwares, mistyped extras and
environments, two runs of one machine in one second, campaigns read backwards, facts with no words,
unknown engines, a mistyped historical environment and runs that took no time.

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
import json
import shutil

import pytest
import yaml
from conftest import ROOT
from helpers import record, write_run
from test_hostile_round4 import CASES, RUN, _expect, _nested

from reportgen.data import load, merge
from reportgen.errors import ReportError

LATER = "20260102T000000Z-quick-f6ab9f827cfd"


def _manifest(run, change):
    manifest = json.loads((run / "run.json").read_text())
    change(manifest)
    (run / "run.json").write_text(json.dumps(manifest))


def _reseal(run):
    from test_hostile import _reseal_run
    _reseal_run(run)


# -- results refused by load, naming the file and the field -----------------------------------

def _run_json(change, records=None):
    def mutate(tmp):
        _manifest(write_run(tmp, RUN, records or [record(RUN)]), change)
    return mutate


def _environment(**change):
    return _run_json(lambda m: m["environment"].update(change))


def _same_second(tmp):
    write_run(tmp, RUN, [record(RUN)])
    other = RUN.replace("-quick-", "-standard-")
    write_run(tmp, other, [record(other)], profile="standard")


def _edited_machine(tmp):
    """Two runs named for one (legacy) machine id; the later one's CPU family edited after the run:
    the legacy id does not cover it, so today's rule moved the run to a machine of its own."""
    write_run(tmp, RUN, [record(RUN)])
    _manifest(write_run(tmp, LATER, [record(LATER)]),
              lambda m: m["environment"].update(cpu_family_model="26/68"))


MUTATIONS = {
    "runjson_records_count_forged": _run_json(lambda m: m["experiments"]["numpy_gemm"].update(records=40)),
    "runjson_family_missing": _run_json(lambda m: m.update(experiments={"gemm_hand": dict(
        m["experiments"]["numpy_gemm"], records=0)})),
    "extra_accuracy_above_one": _nested("extra", score={"accuracy": 12.5, "fp32_accuracy": 0.97}),
    "extra_ir_stats_mistyped": _nested("extra", stats={"n_calls": "many", "intermediate_bytes": 4096}),
    "extra_training_seconds_mistyped": _nested("extra", training={"seconds": "long", "epochs": 15}),
    "extra_training_accuracy_above_one": _nested("extra", training={"seconds": 3.0, "epochs": 15, "eval_accuracy": 12.5}),
    "env_container_mistyped": _environment(tvm_target=["llvm", "-mcpu=znver5"]),
    "env_blas_list_of_strings": _environment(blas=["openblas"]),
    "run_zero_duration": _run_json(lambda m: m.update(finished_at=m["started_at"])),
    "run_families_longer_than_run": _run_json(lambda m: m["experiments"]["numpy_gemm"].update(duration_s=3600.0)),
    "run_same_second_two_profiles": _same_second,
    "hist_machine_field_edited": _edited_machine,
    "run_legacy_machine_id_after_rule": lambda tmp: write_run(tmp, "20261202T000000Z-quick-f6ab9f827cfd",
                                                              [record("20261202T000000Z-quick-f6ab9f827cfd")]),
}


def test_the_committed_runs_agree_with_their_counts_types_machines_and_durations():
    runs = load.read_runs(ROOT / "results")
    assert len({run.run_id for run in runs}) == len(runs) >= 30


def test_shares_at_the_bounds_load():
    from study import work
    rec = record(RUN)
    rec["extra"].update(score={"accuracy": 1.0, "top1_agree": 0.0}, allocation=[{"share": 1, "seconds": 0.1}])
    assert work.extra_problems(rec) == []
    rec["extra"]["allocation"][0]["share"] = 1.0001
    assert work.extra_problems(rec) == ["extra.allocation[0].share: expected a share from 0 to 1, got float 1.0001"]


def test_the_edited_machine_would_have_hidden_its_jump(tmp_path):
    """The jump the edit hides: the same record three times slower on the same machine."""
    from reportgen.pages import history
    write_run(tmp_path, RUN, [record(RUN)])
    write_run(tmp_path, LATER, [record(LATER, samples=(0.003, 0.0033, 0.0036))])
    runs = load.read_runs(tmp_path)
    assert [(cid, b) for cid, _a, b, _r in history.jumps(runs)] == [(record(RUN)["id"], LATER)]


def test_runs_numbered_within_one_second_are_ordered_by_their_number(tmp_path):
    ids = [RUN, f"{RUN}-2", f"{RUN}-10"]
    for run_id in reversed(ids):
        write_run(tmp_path, run_id, [record(run_id)])
    runs = load.read_runs(tmp_path)
    assert [r.run_id for r in runs] == ids   # -10 after -2, not before it as the folder names sort
    assert merge.current_records(runs)[record(RUN)["id"]].run.run_id == f"{RUN}-10"


@pytest.mark.parametrize("suffix", ["-1", "-02", "-0"])
def test_a_number_retest_never_gives_is_not_a_second_run(tmp_path, suffix):
    write_run(tmp_path, RUN + suffix, [record(RUN + suffix)])
    with pytest.raises(ReportError, match="run_id: names machine"):
        load.read_runs(tmp_path)


# -- campaigns: steps in the order the retests ran, one per run ----------------------------------

def _steps(*runs):
    from test_hostile_round2 import _campaign
    steps = [{"run_id": run, "trials": 8, "seconds": 1.5, "cumulative_trials": 8 * (i + 1),
              "estimated_kernel_s": 0.01, "records": 8} for i, run in enumerate(runs)]
    return lambda tmp: _campaign(tmp, steps=steps, cumulative_trials=8 * len(runs))


CAMPAIGNS = {
    "camp_steps_reversed": _steps(LATER, RUN),
    "camp_step_duplicated": _steps(RUN, RUN),
}


@pytest.mark.parametrize("case", sorted(MUTATIONS) + sorted(CAMPAIGNS))
def test_round5_results_are_refused_naming_the_file_and_field(case, tmp_path):
    """Runs through read_runs, campaigns through read_campaigns: one line each, naming the file
    (run.json, records.jsonl or campaign.json) and the field."""
    (tmp_path / "results").mkdir()
    reader = load.read_campaigns if case in CAMPAIGNS else load.read_runs
    {**MUTATIONS, **CAMPAIGNS}[case](tmp_path / "results")
    with pytest.raises(ReportError) as err:
        reader(tmp_path / "results")
    lines = err.value.problems
    named = [p for p in lines if p.startswith(str(tmp_path)) and CASES[case]["field"] in p]
    assert any(_expect(case) in p for p in named), lines
    assert not [p for p in lines if "\n" in p] and sum(map(len, lines)) < 2000


def test_steps_in_order_load(tmp_path):
    _steps(RUN, LATER)(tmp_path)
    assert len(load.read_campaigns(tmp_path)) == 1


# -- a fact a record carries that the words have no text for: the record's fault ------------------

GRAPH_RUN = "20261129T180944Z-standard-f6ab9f827cfd"


def _graph_copy(tmp_path, edit):
    run = tmp_path / "runs" / GRAPH_RUN
    shutil.copytree(ROOT / "results" / "runs" / GRAPH_RUN, run)
    recs = [json.loads(line) for line in (run / "records.jsonl").read_text(encoding="utf-8").splitlines()]
    target = edit(recs)
    (run / "records.jsonl").write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in recs), encoding="utf-8")
    _reseal(run)
    return run, target


def test_an_unknown_pass_is_blamed_on_the_record(tmp_path):
    from reportgen.pages import graph

    def edit(recs):
        rec = next(r for r in recs if r["case"].get("pipeline") and r["case"].get("step", 0) > 0)
        rec["id"] = rec["id"].replace(f"-{rec['case']['pass']}", "-NoSuchPass")   # id and case name one step
        rec["case"]["pass"] = "NoSuchPass"
        return rec
    run, rec = _graph_copy(tmp_path, edit)
    current = merge.current_records(load.read_runs(tmp_path))
    subject = rec["case"].get("unit") or rec["case"].get("model")
    with pytest.raises(ReportError) as err:
        graph.step_diffs(tmp_path, current, rec["case"]["pipeline"], "data", subject)
    text = str(err.value)
    assert "\n" not in text.strip() and not text.startswith("docs/words"), text
    assert f"{run / 'records.jsonl'}: {rec['id']}: {CASES['graph_unknown_pass_blamed']['field']}" in text
    assert _expect("graph_unknown_pass_blamed") in text


def test_every_committed_graph_fact_has_words_when_blamed():
    from reportgen.pages import graph
    current = merge.current_records(load.read_runs(ROOT / "results"))
    for cur in merge.family(current, "graph").values():
        if "pipeline" in cur.record["case"]:
            assert graph.step_words(cur.record["case"], cur)


def test_an_unknown_engine_is_refused_naming_the_record(tmp_path):
    from reportgen.render import labels
    from reportgen.publish import verify
    case_id = "e2e/model=resnet18_v1/size=224/engine=evil_engine/batch=1/threads=2"
    rec = record(RUN, case_id=case_id, case={"model": "resnet18_v1", "input_size": 224, "engine": "evil_engine",
                                             "batch": 1, "threads": 2},
                 extra={})
    run = write_run(tmp_path / "results", RUN, [rec])
    runs = load.read_runs(tmp_path / "results")
    [problem] = labels.engine_problems(runs)
    assert problem.startswith(f"{run / 'records.jsonl'}: {case_id}: {CASES['e2e_unknown_engine']['field']}")
    assert _expect("e2e_unknown_engine") in problem
    with pytest.raises(ReportError) as err:
        verify.verify(tmp_path)
    assert problem in err.value.problems
    assert labels.engine_problems(load.read_runs(ROOT / "results")) == []


# -- the historical environments, typed at load ------------------------------------------------

def test_a_mistyped_historical_environment_is_refused(tmp_path):
    from reportgen.data import archive
    dest = tmp_path / "archive"
    shutil.copytree(ROOT / "archive", dest)
    path = dest / "environments.yaml"
    envs = yaml.safe_load(path.read_text(encoding="utf-8"))
    envs["hist_quant"]["facts"] = {"a": "<b>raw</b>"}
    envs["hist_quant"]["label"] = ["x", "y"]
    path.write_text(yaml.safe_dump(envs, allow_unicode=True), encoding="utf-8")
    with pytest.raises(ReportError) as err:
        archive.read_archive(dest)
    text = "\n".join(err.value.problems)
    assert f"{path}: hist_quant.{CASES['archive_env_mistyped']['field']}: {_expect('archive_env_mistyped')}" in text
    assert f"{path}: hist_quant.label: expected a string, got list" in text


SPECIAL = {*CAMPAIGNS, "graph_unknown_pass_blamed", "e2e_unknown_engine", "archive_env_mistyped",
           "hist_fingerprint_edited"}


def test_a_retest_of_half_a_second_finishes_after_it_starts(monkeypatch):
    import datetime
    from reportgen.commands import retest

    class Clock(datetime.datetime):
        @classmethod
        def now(cls, tz=None):
            return datetime.datetime(2026, 1, 1, 0, 0, 0, 300000, tzinfo=tz)
    monkeypatch.setattr(retest._dt, "datetime", Clock)
    assert (retest._now(), retest._now(up=True)) == ("2026-01-01T00:00:00Z", "2026-01-01T00:00:01Z")


def test_an_edited_fingerprint_moves_a_jump_to_the_changed_list_not_off_the_page(tmp_path, capsys):
    """A record's fingerprint is its own claim: a run that edits it (and reseals its file list)
    left the same-code comparison, so its threefold jump was published silently. The jump is now
    listed among the changed-code jumps, on the page and at build time."""
    from reportgen.pages import history
    from reportgen.publish import plugin
    write_run(tmp_path, RUN, [record(RUN)])
    write_run(tmp_path, LATER, [record(LATER, samples=(0.003, 0.0033, 0.0036), fingerprint="e" * 64)])
    runs = load.read_runs(tmp_path)
    assert history.jumps(runs) == []
    assert [(cid, b) for cid, _a, b, _r in history.jumps(runs, changed=True)] == [(record(RUN)["id"], LATER)]
    assert LATER in history.jumps_text(runs)
    plugin._say_jumps(runs)
    assert _expect("hist_fingerprint_edited") in capsys.readouterr().out
