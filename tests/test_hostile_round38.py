"""The thirty-eighth round of the hostile corpus (issue #29), and what round 37 left.

Data set: a jump was flagged only on the run where it happened (a second forged run at the same level
passed against the first), a quick run carried a forged level into the standard runs, the tails (p95,
p99) could move tenfold under a steady median, graph ids in another field order were a second case,
three hundred copies of one record under invented ids padded a thin machine past the published one,
and two readers took run -2 as newer than -10.  Site set: pdf stopped in an internal error on an
unreadable mkdocs.yml; an alias under extra: reused in nav: expanded to 10^5 pages (build and pdf ran
for minutes); every build without a trusted cache left 9 MB in /tmp.

Round 39 (data set, on the fixes above): a jumped record carried over by a later run lost its chart
flag (merge keyed it by the carrying run), the peak's claimed accumulators multiplied its GFLOPS with
no timing moved, an e2e record's tuning summary was not its tuning record's, and a campaign step could
name a kept run that tuned nothing for it.

- A figure resting on a jumped record carried the flag on its page and in the CSV downloads, but
  numbers.json said nothing and its chart point looked like any other: numbers.json entries now
  carry ``jumped``, and a chart's flagged points carry the flag in their tooltip and the chart a
  subtitle counting them.

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
from dataclasses import replace
from pathlib import Path

import pytest
from helpers import record
from test_hostile_round4 import _expect

from reportgen.data import merge
from reportgen.render import charts
from reportgen.render.figures import FigureBook

MUTATIONS = {}
SPECIAL = {case: None for case in (
    "jump_in_chart_and_index", "jump_level_kept", "jump_profile_apart", "graph_spelling", "machine_padding", "jump_tail",
    "order_numbered_runs", "pdf_config_unreadable", "tmp_left_behind", "pdf_page_name", "machine_change_said",
    "jump_other_familys_change", "jump_reused_chart", "jump_work_claim", "tuning_claim", "campaign_step_no_record",
    "jinja_nested_loops", "jinja_render_time", "scratch_left_behind")}


class _Run:
    def __init__(self, run_id, rec):
        self.run_id, self.records, self.machine = run_id, [rec], "m"
        self.manifest = {"profile": "standard", "run_id": run_id, "finished_at": "2026-12-01T00:00:00Z"}


def test_a_jumped_record_is_flagged_in_the_index_and_its_chart(monkeypatch):
    rec = record()
    monkeypatch.setattr(merge.runfacts, "order_key", lambda run: run.run_id)
    current = merge.current_records([_Run(rec["run_id"], rec)], {(rec["run_id"], rec["id"])})
    [cur] = current.values()
    assert cur.jumped
    assert not merge.current_records([_Run(rec["run_id"], rec)])[rec["id"]].jumped
    book = FigureBook()
    book.set_page("gemm.md")
    book.jumped = {(rec["run_id"], rec["id"])}
    book.current("f", "1.0", "ms", cur)
    assert book.index()[0]["jumped"] is True
    plain = FigureBook()   # a book told of no jump: the Current's own mark flags it (merge.fastest marks a choice so)
    plain.set_page("gemm.md")
    plain.current("f", "1.0", "ms", cur)
    plain.current("g", "1.0", "ms", replace(cur, jumped=False))
    assert [e["jumped"] for e in plain.index()] == [True, False]
    spec = charts.flagged(charts.numpy_gflops(_Table(), current, None).to_dict())
    assert "subtitle" in spec["title"], _expect("jump_in_chart_and_index")
    tips = [n["encoding"]["tooltip"] for n in charts._walk(spec) if isinstance(n.get("encoding"), dict)
            and isinstance(n["encoding"].get("tooltip"), list)]
    assert tips and all(t[-1]["field"] == charts.FLAG for t in tips)
    unflagged = charts.flagged(charts.numpy_gflops(_Table(), merge.current_records([_Run(rec["run_id"], rec)]), None).to_dict())
    assert not isinstance(unflagged["title"], dict) or "subtitle" not in unflagged["title"]


class _Table:
    rows, columns = [], []


def _calls(src):
    import re
    for m in re.finditer(r"(book\.current|\.fig|(?<![\w.])percent|(?<![\w.])times)\(", src):
        i, depth = m.end(), 1
        while depth and i < len(src):
            depth += {"(": 1, ")": -1}.get(src[i], 0)
            i += 1
        yield m.start(), src[m.start():i]


def _others(call):
    """lookup.percent and lookup.times name the other records as arguments after the figure's own four."""
    import ast
    try:
        node = ast.parse(call.strip(), mode="eval").body
    except SyntaxError:
        return False
    name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
    return name in ("percent", "times") and len(node.args) > 4


def test_a_figure_dividing_two_records_names_both():
    """A figure computed from two records' figures (a ratio, a share of a peak) passes the other record
    (also=) or its derivation (derived=): else a jump of the other record leaves it unflagged.  Read
    from the source: a division between two records' stat()/gflops() in the call, or in a name
    assigned from one a few lines above it."""
    import re
    from pathlib import Path
    root = Path(__file__).resolve().parents[1] / "reportgen"
    bare = []
    for path in sorted([*root.glob("pages/*.py"), *root.glob("render/*.py")]):
        src = path.read_text(encoding="utf-8")
        assigned = [(m.start(), m.group(1)) for m in re.finditer(r"^\s*(\w+) = (.*)$", src, re.M)
                    if "/" in m.group(2) and len(set(re.findall(r"(\w+)\.(?:stat|gflops)\(", m.group(2)))) > 1]
        for at, call in _calls(src):
            if "also=" in call or "derived=" in call or _others(call):
                continue
            near = [name for where, name in assigned if 0 < at - where < 600 and re.search(rf"\b{name}\b", call)]
            if len(set(re.findall(r"(\w+)\.(?:stat|gflops)\(", call))) > 1 or near:
                bare.append(f"{path.name}:{src[:at].count(chr(10)) + 1}")
    assert bare == [], bare


# -- round 38, data set ------------------------------------------------------------------------------

class _Rec:
    """A run of one record of the case numpy_gemm/n=1 (history reads run_id, records, manifest, machine)."""

    def __init__(self, run_id, p50, p95=None, p99=None, profile="standard", commit="a" * 40):
        self.run_id, self.machine = run_id, "m"
        self.manifest = {"git": {"commit": commit, "dirty": False}, "profile": profile}
        stats = {"p50": p50, "p95": p95 or p50 * 1.1, "p99": p99 or p50 * 1.2}
        self.records = [{"id": "numpy_gemm/n=1", "status": "ok", "stats": stats, "reused_from": None,
                         "fingerprint": "f" * 64, "run_id": run_id}]


def _same(_a, _b, _family=None):   # runfacts.code_changed where git shows no change between any two runs
    return False


def test_a_second_run_at_the_jumped_level_is_flagged_too():
    from reportgen.pages import history
    runs = [_Rec("r1", 1.0), _Rec("r2", 0.1), _Rec("r3", 0.1), _Rec("r4", 1.0)]
    found = history.flagged(runs, _same)
    assert ("r3", "numpy_gemm/n=1") in found, _expect("jump_level_kept")
    assert found == {("r2", "numpy_gemm/n=1"), ("r3", "numpy_gemm/n=1")}   # back at the level: not flagged


def test_a_jump_over_changed_code_starts_a_new_level():
    from reportgen.pages import history
    runs = [_Rec("r1", 1.0), _Rec("r2", 0.1, commit="b" * 40), _Rec("r3", 0.1, commit="b" * 40)]
    for rec in runs[1].records + runs[2].records:
        rec["fingerprint"] = "e" * 64
    changed = lambda a, b, _f=None: a.manifest["git"]["commit"] != b.manifest["git"]["commit"]   # noqa: E731
    assert history.flagged(runs, changed) == set()
    assert [j[2] for j in history.jumps(runs, changed=True, code_changed=changed)] == ["r2"]


def test_a_quick_run_does_not_carry_a_level_into_standard_runs():
    from reportgen.pages import history
    runs = [_Rec("r1", 1.0), _Rec("r2", 0.4, profile="quick"), _Rec("r3", 0.4)]
    found = history.flagged(runs, _same)
    # the quick run is flagged (never shown), and the standard run after it is compared with the last
    # record that was not flagged, not with the quick one it agrees with
    assert found == {("r2", "numpy_gemm/n=1"), ("r3", "numpy_gemm/n=1")}, _expect("jump_profile_apart")


def test_a_tail_that_jumps_under_a_steady_median_is_a_jump():
    from reportgen.pages import history
    runs = [_Rec("r1", 1.0), _Rec("r2", 1.0, p95=1.2, p99=12.0)]
    assert history.flagged(runs, _same) == {("r2", "numpy_gemm/n=1")}
    assert _expect("jump_tail") in history.jumps_text(runs, _same)


def test_graph_ids_in_another_order_are_one_case():
    from study import cases
    forged = "graph/pipeline=decompose/model=resnet18/step=08-DeadCodeElimination"
    assert cases.canonical_id(forged, {}).startswith(_expect("graph_spelling"))
    assert cases.case_problems("graph/case=hello/x=1", {}) != []   # a field graph ids do not have
    assert cases.case_problems("graph/model=resnet18/pipeline=decompose/step=08-DeadCodeElimination", {}) == []


def test_one_measurement_under_two_ids_is_refused():
    import copy
    from reportgen.data import runfacts

    class Run:
        def __init__(self, run_id, records):
            self.run_id, self.records = run_id, records

        def where(self, index):
            return f"{self.run_id}/records.jsonl:{index + 1}"
    rec = record()
    rec["samples"] = [0.1, 0.2, 0.3, 0.4]
    twin = copy.deepcopy(rec)
    twin["id"] = rec["id"].replace("n=32", "n=33")
    a, b = "20261206T010000Z-standard-m", "20261206T020000Z-standard-m"
    [problem] = runfacts.copied_problems([Run(a, [rec]), Run(b, [twin])])
    assert problem.startswith(f"{b}/records.jsonl:1: samples:") and _expect("machine_padding") in problem
    reused = dict(copy.deepcopy(rec), reused_from=a)
    assert runfacts.copied_problems([Run(a, [rec]), Run(b, [reused])]) == []
    older = "20261201T020000Z-standard-m"   # before the citation rule: published with its marker
    assert runfacts.copied_problems([Run("20261201T010000Z-standard-m", [rec]), Run(older, [twin])]) == []


def test_numbered_runs_of_one_second_are_ordered_as_runfacts_orders_them():
    from types import SimpleNamespace
    from reportgen.data import campaigns

    def run(rid, p50):
        rec = {"experiment": "e2e", "status": "ok", "id": "e2e/model=m/size=224/engine=tvm_d/batch=1/threads=2",
               "case": {"model": "m", "engine": "tvm_d", "batch": 1, "input_size": 224},
               "extra": {"tuning": {"cumulative_trials": 500}}, "stats": {"p50": p50}}
        return SimpleNamespace(run_id=rid, machine="6b7b274cee60", records=[rec],
                               manifest={"profile": "standard", "environment": {"machine_id": "6b7b274cee60"}})
    a, b = run("20261206T040000Z-standard-6b7b274cee60-2", 0.010), run("20261206T040000Z-standard-6b7b274cee60-10", 0.020)
    [point] = campaigns.measured_points([a, b], "6b7b274cee60", "m")
    assert point[3].endswith(_expect("order_numbered_runs"))


# -- round 38, site set ------------------------------------------------------------------------------

@pytest.mark.parametrize("tail", [b"\n# \xff\n", b"\nextra_css: [\n"])
def test_pdf_names_an_unreadable_mkdocs_yml(tmp_path, tail):
    from reportgen.commands import pdf
    from reportgen.errors import ReportError
    (tmp_path / "mkdocs.yml").write_bytes(b"site_name: x\nnav:\n  - index.md\n" + tail)
    with pytest.raises(ReportError) as err:
        pdf.nav_pages(tmp_path)
    assert str(err.value).startswith(str(tmp_path / "mkdocs.yml")) and _expect("pdf_config_unreadable") in str(err.value)


def test_pdf_refuses_a_page_name_it_cannot_carry(tmp_path):
    from reportgen.commands import pdf
    from reportgen.errors import ReportError
    (tmp_path / "mkdocs.yml").write_text('nav:\n  - x: \'a" onmouseover="b.md\'\n', encoding="utf-8")
    with pytest.raises(ReportError) as err:
        pdf.nav_pages(tmp_path)
    assert _expect("pdf_page_name") in str(err.value)


def test_the_builds_own_word_folder_is_removed_when_it_ends(tmp_path):
    import subprocess
    import sys
    code = ("import os; os.environ['REPORTGEN_CACHE'] = ''\n"
            "from reportgen.publish import wordsplit; print(wordsplit._folder())")
    env = dict(__import__("os").environ, TMPDIR=str(tmp_path), REPORTGEN_CACHE="")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True,
                         cwd=Path(__file__).resolve().parents[1]).stdout.strip()
    assert _expect("tmp_left_behind") in out and out.startswith(str(tmp_path))
    assert not Path(out).exists()


def test_a_change_of_publication_machine_is_said(tmp_path):
    import json
    from reportgen.commands import build
    old, new = tmp_path / "site", tmp_path / "site.tmp"
    for folder, machine in ((old, "6b7b274cee60"), (new, "fc4cbf2901f7")):
        folder.mkdir()
        (folder / "machine.json").write_text(json.dumps({"publication_machine": machine}), encoding="utf-8")
    said = build._machine_change(old, new)
    assert _expect("machine_change_said") in said and "--machine 6b7b274cee60" in said
    (new / "machine.json").write_text(json.dumps({"publication_machine": "6b7b274cee60"}), encoding="utf-8")
    assert build._machine_change(old, new) is None
    assert build._machine_change(tmp_path / "none", new) is None   # a first build


def test_a_change_of_another_familys_code_is_no_change_of_this_one(tmp_path):
    """code_changed(a, b, family): only the family's own code (its module's import closure) and what
    every family shares (profiles, retest, pinned packages) count for its records."""
    import subprocess
    from types import SimpleNamespace
    from reportgen.data import runfacts

    def git(*args):
        return subprocess.run(["git", "-C", str(tmp_path), *args], check=True, capture_output=True, text=True).stdout.strip()

    def commit():
        git("add", "-A")
        git("-c", "user.email=a@b", "-c", "user.name=a", "commit", "-q", "-m", "x")
        return git("rev-parse", "HEAD")
    (tmp_path / "experiments").mkdir()
    for name, module in (("numpy_gemm", "numpy_gemm"), ("machine_peak", "peak")):
        (tmp_path / "experiments" / f"{module}.py").write_text(
            "from study.family import Family\nfrom experiments import common\n"
            f"FAMILY = Family(name={name!r}, timeout_s={{'quick': 1, 'standard': 1, 'full': 1}})\n")
    (tmp_path / "experiments" / "__init__.py").write_text("")
    (tmp_path / "experiments" / "common.py").write_text("X = 1\n")
    git("init", "-q")
    first = commit()
    (tmp_path / "experiments" / "peak.py").write_text((tmp_path / "experiments" / "peak.py").read_text() + "# tuned\n")
    second = commit()
    (tmp_path / "experiments" / "common.py").write_text("X = 2\n")
    third = commit()

    def run(sha):
        return SimpleNamespace(manifest={"git": {"commit": sha, "dirty": False}})
    changed = runfacts.code_changed(tmp_path)
    assert not changed(run(first), run(second), "numpy_gemm"), _expect("jump_other_familys_change")
    assert changed(run(first), run(second), "machine_peak") and changed(run(first), run(second))
    assert changed(run(second), run(third), "numpy_gemm")   # code both import


# -- round 39, data set ------------------------------------------------------------------------------

class _Runs:
    def __init__(self, run_id, records, profile="standard"):
        self.run_id, self.records, self.machine = run_id, records, "m"
        self.manifest = {"profile": profile, "run_id": run_id, "finished_at": "2026-12-06T00:00:00Z",
                         "git": {"commit": "a" * 40, "dirty": False}, "environment": {"machine_id": "m"}}

    def where(self, index):
        return f"{self.run_id}/records.jsonl:{index + 1}"


def test_a_reused_jumped_record_keeps_its_flag_on_the_chart(monkeypatch):
    import copy
    rec = record()
    monkeypatch.setattr(merge.runfacts, "order_key", lambda run: run.run_id)
    carried = dict(copy.deepcopy(rec), reused_from=rec["run_id"])
    current = merge.current_records([_Runs(rec["run_id"], [rec]), _Runs("z-later", [carried])],
                                    {(rec["run_id"], rec["id"])})
    [cur] = current.values()
    assert cur.run.run_id == "z-later" and cur.jumped, _expect("jump_reused_chart")


def test_a_claimed_work_per_call_that_jumps_is_a_jump():
    import copy
    from reportgen.pages import history
    peak = {"id": "machine_peak/dtype=float32/isa=avx2/threads=1", "experiment": "machine_peak", "status": "ok",
            "reused_from": None, "fingerprint": "f" * 64, "stats": {"p50": 1.0, "p95": 1.1, "p99": 1.2},
            "case": {"dtype": "float32", "isa": "avx2", "threads": 1, "iters": 1000}, "extra": {"accumulators": 12}}
    forged = copy.deepcopy(peak)
    forged["extra"]["accumulators"] = 64
    runs = [_Runs("r1", [peak]), _Runs("r2", [forged])]
    [jump] = history.all_jumps(runs, lambda *_: False)
    assert jump[2] == "r2" and jump[5] == _expect("jump_work_claim")


def _tuned(trials=268):
    tune = dict(record(), id="e2e_tune/model=m/size=224/variant=default/batch=1/threads=2", experiment="e2e_tune",
                run_id="d1", extra={"tasks": 21, "tuning": {"measured": 268, "valid": 268, "seconds": 10.0},
                                    "campaign": {"cumulative_trials": 268}})
    e2e = dict(record(), id="e2e/model=m/size=224/engine=tvm_d/batch=1/threads=2", experiment="e2e", run_id="e1",
               extra={"tuning": {"record": tune["id"], "run_id": "d1", "trials": trials, "valid_trials": 268,
                                 "cumulative_trials": trials, "seconds": 10.0, "scheduled": 21, "unscheduled": []}})
    return [_Runs("d1", [tune]), _Runs("e1", [e2e])]


def test_a_records_tuning_summary_is_its_tuning_records():
    from reportgen.data import runfacts
    assert runfacts.tuning_problems(_tuned()) == []
    problems = runfacts.tuning_problems(_tuned(200000))
    assert len(problems) == 2 and all(_expect("tuning_claim") in p and p.startswith("e1/records.jsonl:1: extra.tuning.")
                                      for p in problems)
    gone = _tuned()[1:]   # the tuning run is not kept: a bound run may not name it
    gone[0].run_id = "20261206T010000Z-standard-m"
    assert "is not in results/runs" in runfacts.tuning_problems(gone)[0]


def test_a_campaign_step_names_a_run_that_tuned_for_it(tmp_path, monkeypatch):
    import json
    from reportgen.data import load
    folder = tmp_path / "campaigns" / "k"
    folder.mkdir(parents=True)
    (folder / "campaign.json").write_text(json.dumps({"key": "k", "steps": [{"run_id": "kept", "trials": 5}]}))
    monkeypatch.setattr(load.schema, "campaign_problems", lambda *_: [])
    monkeypatch.setattr(load.schema, "campaign_folder_problems", lambda *_: [])
    problems = []
    load._read_campaign(tmp_path / "campaigns", folder, {}, problems, {"kept"})
    assert problems and _expect("campaign_step_no_record") in problems[0] and "steps[0].run_id" in problems[0]
    problems.clear()
    load._read_campaign(tmp_path / "campaigns", folder, {("kept", "k"): 5}, problems, {"kept"})
    assert problems == []


# -- round 39, site set ------------------------------------------------------------------------------

def test_loops_nested_three_deep_are_refused():
    import jinja2
    from reportgen.publish import pagecontent
    env = jinja2.Environment()
    deep = env.parse("{% for a in t %}{% for b in a %}{% for c in b %}{{ c }}{% endfor %}{% endfor %}{% endfor %}")
    found = pagecontent.template_problem(deep)
    assert found is not None and _expect("jinja_nested_loops") in found.what
    assert pagecontent.template_problem(env.parse("{% for a in t %}{% for b in a %}{{ b }}{% endfor %}{% endfor %}")) is None


def test_a_render_that_runs_too_long_is_stopped():
    from reportgen.errors import ReportError
    from reportgen.publish import sandbox
    with pytest.raises(ReportError) as err:
        with sandbox.time_limit(1, "docs/x.md"):
            while True:
                pass
    assert str(err.value).startswith("docs/x.md: ") and _expect("jinja_render_time") in str(err.value)


def test_a_killed_commands_scratch_folder_goes_at_the_next_one(tmp_path, monkeypatch):
    import os
    import tempfile
    from study import leftovers
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    free = next(pid for pid in range(4_194_000, 4_194_300) if not leftovers._alive(pid))
    dead = tmp_path / f"reportgen-verify-{free}-abc"   # no such process
    dead.mkdir()
    (dead / "site").mkdir()
    alive = tmp_path / f"reportgen-verify-{os.getppid()}-abc"
    alive.mkdir()
    mine = leftovers.scratch("verify")
    assert not dead.exists() and alive.exists(), _expect("scratch_left_behind")
    assert os.path.basename(mine).startswith(f"reportgen-verify-{os.getpid()}-")
