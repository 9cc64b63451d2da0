"""The sixty-first round of the hostile corpus (issue #29): attack only, then fixed.

Round 60's data set, left then: a second forged run at the same commit 'confirmed' a forged new level; a case
never measured before, a share the pages print (ORT's agreement 0.86 -> 0.41) and a record's own check
threshold (1e300) moved over changed code unflagged.  Only a run listed in archive/runs-confirming.txt (a
maintainer's, sealed with the archive) confirms a new level now; a new case and a moved share or threshold
over changed code are new levels too (history.unconfirmed).  A summary-shaped line giving the record's fields
after its family's "[int8] " tag but without the family in its id sat in the record's evidence with a median
15x off: the tag names the family (citation._mentions), and such a spelling is the record's summary elsewhere.
A profile row of 0 calls or 0 runs and a model of 0 weight bytes ('0 KiB') were accepted: counts >= 1 now.

Data set (5 of 11 failed): only the run where a new level appeared carried the flag, so a second forged run
repeating it (or a plain copy of the newest run) was current and unflagged: the flag now stays on every later
record at that level until an accepted run measures it; every number, true/false and profile class a page
may print is a level (an INT8 error 100x smaller, a model 20x smaller, every kernel relabelled 'integer'); a
label's share of a profile's time is compared (QLinearConv 86.4 % -> 3.8 %, the total kept).

Site set (1 of 10 failed, one weak): a placeholder chained 3000 deep ('x.a.a...', 'x and x ...', '|indent'
repeated) parsed (Jinja reads chains in a loop) and every walk of its tree after ran out of stack: 'reportgen
broke'; 250 tab-nested list items or 400 nested '<div markdown>' passed every source bound and ran
Python-Markdown out of stack.

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
import shutil
from types import SimpleNamespace

from conftest import ROOT
from test_hostile_round4 import _expect
from test_hostile_round35_data import _changed, _Run

MUTATIONS = {}
SPECIAL = {case: None for case in ("confirm_only_accepted", "confirming_list_sealed", "new_case_changed_code",
                                   "share_moved_changed_code", "threshold_changed_code", "template_depth",
                                   "markdown_nesting", "summary_tag_names_family", "profile_counts_positive",
                                   "level_repeated_later", "printed_claims_level", "profile_shares_compared",
                                   "profile_labels_level")}


def test_only_an_accepted_run_confirms_a_new_level():
    from reportgen.data.words import W
    from reportgen.pages import history
    runs = [_Run("r1", 1.0, "a" * 64), _Run("r2", 0.4, "b" * 64, commit="b" * 40),
            _Run("r3", 0.4, "b" * 64, commit="b" * 40)]   # a second run at the forged run's commit
    both = {("r2", "numpy_gemm/n=1"), ("r3", "numpy_gemm/n=1")}   # the level flagged wherever it stands
    assert history.unconfirmed(runs, _changed) == both
    assert history.unconfirmed(runs, _changed, confirming={"r3"}) == set()
    assert history.unconfirmed(runs, _changed, confirming={"r1"}) == both   # not a later run
    copy = runs[:2] + [_Run("r3", 0.4, "b" * 64, commit="b" * 40), _Run("r4", 0.4, "c" * 64, commit="c" * 40)]
    assert ("r4", "numpy_gemm/n=1") in history.unconfirmed(copy, _changed)   # a copy at any code repeats it
    assert _expect("confirm_only_accepted") in W("history.jumps.changed", n=1, factor=2, share=0.02, single=10,
                                                   unconfirmed=1)


def test_the_list_of_confirming_runs_is_sealed_by_the_runs_bytes(tmp_path):
    from reportgen.data import runlists
    run_dir = sorted((ROOT / "results" / "runs").iterdir())[-1]
    results = tmp_path / "results"
    shutil.copytree(run_dir, results / "runs" / run_dir.name)
    (tmp_path / "archive").mkdir()
    listed = runlists.sealed_list(results, runlists.CONFIRMING)
    run = SimpleNamespace(run_id=run_dir.name, path=results / "runs" / run_dir.name)
    assert runlists.confirming(results, [run]) == (set(), [])   # no list: no run confirms
    listed.write_text(f"# accepted\n{run.run_id} {runlists.manifest_sha256(run.path)}\n")
    assert runlists.confirming(results, [run]) == ({run.run_id}, [])
    manifest = run.path / "run.json"
    manifest.write_bytes(manifest.read_bytes().replace(b'"profile"', b' "profile"', 1))   # edited after it was accepted
    accepted, said = runlists.confirming(results, [run])
    assert accepted == set() and said[0].startswith(str(manifest)) and _expect("confirming_list_sealed") in said[0]
    listed.write_text(f"{run.run_id}\n")
    assert any("runs-confirming.txt:1:" in p for p in runlists.confirming(results, [run])[1])
    listed.write_text(f"{run.run_id} {'0' * 64}\n{run.run_id} {'0' * 64}\n")   # each run once
    assert any("runs-confirming.txt:2:" in p for p in runlists.confirming(results, [run])[1])
    assert runlists.confirming(results, [])[0] == set()   # a line of a run results/ does not hold confirms nothing


def _with(run, **extra):
    run.records[0].update(extra)
    return run


def test_a_new_case_over_changed_code_is_a_new_level():
    from reportgen.pages import history
    first = _Run("r1", 1.0, "a" * 64)
    later = _Run("r2", 1.0, "b" * 64, commit="b" * 40)
    later.records.append(dict(later.records[0], id="numpy_gemm/n=2"))
    for run in (first, later):
        run.records = [dict(r, experiment="numpy_gemm") for r in run.records]
        run.manifest.update(profile="standard", experiments={"numpy_gemm": {"status": "ok"}})
    found = history.all_jumps([first, later], _changed)
    assert [(j[0], j[4], j[5]) for j in found] == [("numpy_gemm/n=2", True, _expect("new_case_changed_code"))]
    assert history.unconfirmed([first, later], _changed, found) == {("r2", "numpy_gemm/n=2")}


def test_a_printed_share_or_a_check_threshold_moved_over_changed_code_is_a_new_level():
    from reportgen.pages import history
    for key, before, after, case in (("extra", {"agreement_set": {"top1_agree": 0.86}},
                                      {"agreement_set": {"top1_agree": 0.41}}, "share_moved_changed_code"),
                                     ("check", {"max_rel_err": 0.1, "threshold": 0.5},
                                      {"max_rel_err": 5.0, "threshold": 1e300}, "threshold_changed_code")):
        runs = [_with(_Run("r1", 1.0, "a" * 64), **{key: before}),
                _with(_Run("r2", 1.0, "b" * 64, commit="b" * 40), **{key: after})]
        found = history.all_jumps(runs, _changed)
        assert found and found[0][4], found   # listed over changed code
        assert history.unconfirmed(runs, _changed, found) == {("r2", "numpy_gemm/n=1")}, case
        assert _expect(case) in history._level_moved.__doc__
        # the same claims with a tail that moved only: listed, no level
        tail = [_with(_Run("r1", 1.0, "a" * 64), **{key: before}), _with(_Run("r2", 1.0, "b" * 64, commit="b" * 40),
                                                                          **{key: before})]
        tail[1].records[0]["stats"] = {"p50": 1.0, "p99": 9.0}
        tail[0].records[0]["stats"] = {"p50": 1.0, "p99": 1.0}
        assert history.unconfirmed(tail, _changed) == set()


def test_a_placeholder_nested_deep_is_refused_before_any_walk_of_its_tree():
    from reportgen.publish import plugin
    env = plugin._sandbox()
    for payload in ("{{ x" + ".a" * 3000 + " }}", "{{ x" + " and x" * 600 + " }}", "{{ x" + "|indent(2)" * 600 + " }}"):
        assert plugin._deep_node(env.parse("a\n\n" + payload)) is not None
    for page in (ROOT / "docs").rglob("*.md"):   # the project's pages nest at most 9 deep
        assert plugin._deep_node(env.parse(page.read_text(encoding="utf-8"))) is None, page
    import inspect
    assert _expect("template_depth") in inspect.getsource(plugin.ReportgenPlugin.on_page_markdown)


def test_a_page_nested_deeper_than_markdown_bears_is_refused():
    from reportgen.publish import pagecontent
    lists = "a\n\n" + "".join("\t" * k + "- a\n" for k in range(250))
    said = pagecontent.source_problem("docs/x.md", lists)
    assert said.startswith("docs/x.md:28:") and _expect("markdown_nesting") in said
    divs = "".join("<div markdown>\n\n" for _ in range(400))
    said = pagecontent.source_problem("docs/x.md", divs)
    assert said.startswith("docs/x.md:") and "block elements nested" in said
    assert pagecontent.source_problem("docs/x.md", "<div>\n\n" * 30 + "</div>\n\n" * 30) is None


def test_a_line_naming_the_case_after_its_family_s_tag_is_a_statement_about_it():
    from study import citation
    rec = {"id": "int8/model=resnet18_v1/size=224/engine=tvm_fp32/batch=1/threads=2", "experiment": "int8",
           "status": "ok", "stats": {"p50": 1.514}, "samples": [1.514] * 6,
           "case": {"model": "resnet18_v1", "size": 224, "engine": "tvm_fp32", "batch": 1, "threads": 2}}
    odd = "[int8] model=resnet18_v1/engine=tvm_fp32/threads=2: p50 100.0 ms over 7 samples"
    own = citation.summary(rec["id"], "ok", rec["samples"], 1.514)
    said = citation.statement_problems(rec, [odd, "[int8] " + own])
    assert said and _expect("summary_tag_names_family") in said[0]
    assert citation.statement_problems(rec, ["[int8] " + own]) == []
    assert citation.statement_problems(rec, ["[e2e] model=resnet18_v1/engine=tvm_fp32: p50 9 ms over 7 samples"]) == []
    found = citation.summaries(["[int8] " + own, odd])   # outside the cited range: a second summary of it
    assert citation.summarised(found, rec, {rec["id"]}) == [1, 2]


def test_a_profile_row_s_calls_and_a_model_s_weights_are_never_zero():
    from study import work
    for extra in ({"weights_bytes": 0}, {"fp32_weights_bytes": 0},
                  {"kernel_profile": [{"op": "k", "kind": "integer", "calls": 0, "runs": 1, "seconds": 0.001}]},
                  {"kernel_profile": [{"op": "k", "kind": "integer", "calls": 1, "runs": 0, "seconds": 0.001}]}):
        rec = {"extra": extra, "experiment": "int8", "status": "ok", "case": {}, "samples": []}
        said = work.extra_problems(rec)
        assert said and _expect("profile_counts_positive") in said[0], (extra, said)
    rec = {"extra": {"weights_bytes": 2048, "kernel_profile": [{"op": "k", "kind": "integer", "calls": 1, "runs": 1,
                                                                "seconds": 0.001}]},
           "experiment": "int8", "status": "ok", "case": {}, "samples": []}
    assert work.extra_problems(rec) == []


def _rec(run_id, commit, **extra):
    run = _Run(run_id, 1.0, commit[0] * 64, commit=commit)
    run.records[0]["extra"] = extra
    return run


def test_a_later_run_repeating_an_unconfirmed_level_carries_its_flag():
    from reportgen.pages import history
    runs = [_Run("r1", 1.0, "a" * 64), _Run("r2", 0.4, "b" * 64, commit="b" * 40),
            _Run("r3", 0.4, "b" * 64, commit="b" * 40)]
    assert ("r3", "numpy_gemm/n=1") in history.unconfirmed(runs, _changed)
    assert _expect("level_repeated_later") in history.unconfirmed.__doc__


def test_every_printed_number_over_changed_code_is_a_level():
    from reportgen.pages import history
    for before, after in (({"score": {"max_rel_err": 0.099}}, {"score": {"max_rel_err": 0.00089}}),
                          ({"weights_bytes": 2105956}, {"weights_bytes": 105956})):
        runs = [_rec("r1", "a" * 40, **before), _rec("r2", "b" * 40, **after)]
        assert history.unconfirmed(runs, _changed) == {("r2", "numpy_gemm/n=1")}, before
    runs = [_rec("r1", "a" * 40, model_files={"sha256": "1" * 64}), _rec("r2", "b" * 40, model_files={"sha256": "2" * 64})]
    assert history.unconfirmed(runs, _changed) == set()   # a text that changed with the code: listed, no level
    assert _expect("printed_claims_level") in history.claims.level_jump.__doc__


def _profile(int_s, float_s, operands=("integer", "float")):
    return [{"op": f"k{i}", "kind": "kernel", "operands": operands[i], "calls": 1, "runs": 1, "seconds": s}
            for i, s in enumerate((int_s, float_s))]


def test_a_label_s_share_of_a_profile_is_compared():
    from reportgen.data import claims
    a = {"extra": {"kernel_profile": _profile(0.9, 0.1)}}
    b = {"extra": {"kernel_profile": _profile(0.1, 0.9)}}   # the same total, the time moved between classes
    moved = claims.profile_share_jump(a, b)
    assert moved and _expect("profile_shares_compared") in moved[1]
    assert claims.profile_share_jump(a, {"extra": {"kernel_profile": _profile(0.85, 0.15)}}) is None
    runs = [_rec("r1", "a" * 40, kernel_profile=_profile(0.9, 0.1)), _rec("r2", "a" * 40, kernel_profile=_profile(0.1, 0.9))]
    assert _changed(*runs) is False and claims.jump(runs[0].records[0], runs[1].records[0], 2.0)   # same code: a jump


def test_profile_classes_relabelled_over_changed_code_are_a_level():
    from reportgen.data import claims
    from reportgen.pages import history
    a = {"extra": {"kernel_profile": _profile(0.9, 0.1)}}
    b = {"extra": {"kernel_profile": _profile(0.9, 0.1, operands=("integer", "integer"))}}
    moved = claims.level_jump(a, b, 2.0)
    assert moved and _expect("profile_labels_level") in moved[1]
    runs = [_rec("r1", "a" * 40, **a["extra"]), _rec("r2", "b" * 40, **b["extra"])]
    assert history.unconfirmed(runs, _changed) == {("r2", "numpy_gemm/n=1")}


def test_a_later_record_that_moves_unseen_by_the_jumps_keeps_the_level_s_flag():
    from reportgen.pages import history
    runs = [_rec("r1", "a" * 40, weights_bytes=1000), _rec("r2", "b" * 40, weights_bytes=1000),
            _rec("r3", "b" * 40, weights_bytes=100)]
    runs[1].records[0]["stats"] = runs[2].records[0]["stats"] = {"p50": 0.4}
    runs[2].manifest["profile"] = "full"   # another profile: its claims are not compared with the level's
    found = history.all_jumps(runs, _changed)
    assert [j[2] for j in found] == ["r2"]
    assert ("r3", "numpy_gemm/n=1") in history.unconfirmed(runs, _changed, found, confirming={"r3"})
