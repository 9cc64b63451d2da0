"""The fortieth round of the hostile corpus (issue #29), attack only, then fixed.

Site set: an odd folder name in the temporary folder (/tmp/reportgen-verify-\u00b2-x, or a pid of 20
digits) stopped every serve, verify and cache-less build in an internal error; a page's two loops
writing a placeholder indented 99 spaces grew to gigabytes inside the render time limit; a docs page
that is not UTF-8 stopped MkDocs naming no file.  Data set: an e2e record's tuning summary was still
taken on its word where round 39's check did not reach (the kernels scheduled, a summary without the
tuning record's name, another machine's tuning run, a string or 10^30 kernels); the share of a forged
peak carried no flag; untimed evidence records copied under invented ids padded a thin machine.

Round 41: a peak of an ISA the machine never measured took over every peak figure; a peak record's
theoretical GFLOPS was taken on its word; the mean (and extremes) could jump under a steady median; a
numeric mcpu and string FMA counts passed validation; a {% set %} doubling a value took gigabytes; the
compiled libraries' folder stayed in /tmp for good.

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
import copy

import pytest
from helpers import record
from test_hostile_round4 import _expect

MUTATIONS = {}
SPECIAL = {case: None for case in (
    "scratch_odd_names", "render_memory", "docs_not_utf8", "tuning_scheduled", "tuning_types", "tuning_unnamed",
    "tuning_other_machine", "share_names_its_peak", "untimed_padding", "peak_isa_not_measured", "theoretical_claim",
    "jump_mean_outlier", "target_mcpu_type", "fma_counts_typed", "jinja_set_builds", "build_dir_left",
    "failed_peak_fallback", "int8_extras_typed")}


def test_odd_folder_names_do_not_stop_the_scratch_sweep(tmp_path, monkeypatch):
    import os
    import tempfile
    from study import leftovers
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    for name in ("reportgen-verify-\u00b2-x", "reportgen-verify-99999999999999999999-x", "reportgen-verify--x",
                 "reportgen-verify-\u0663-x"):
        (tmp_path / name).mkdir()
    mine = leftovers.scratch("verify")
    assert os.path.isdir(mine) and _expect("scratch_odd_names") in mine
    assert (tmp_path / "reportgen-verify-\u00b2-x").exists()   # not a pid: left alone, never a crash


def test_a_render_writing_too_much_is_stopped():
    from reportgen.errors import ReportError
    from reportgen.publish import sandbox
    env = sandbox.sandbox()
    tree = env.parse("{% for a in T %}{% for b in T %}{{ T|indent(99) }}{% endfor %}{% endfor %}")
    with pytest.raises(ReportError) as err:
        sandbox.render(env, tree, {"T": "ab\n" * 400}, "docs/history.md", limit=1_000_000)
    assert str(err.value).startswith("docs/history.md: ") and _expect("render_memory") in str(err.value)
    assert sandbox.render(env, env.parse("{{ T }}"), {"T": "x"}, "docs/x.md") == "x"


def test_a_docs_page_that_is_not_utf8_is_named(tmp_path):
    from reportgen.publish import pagecontent
    page = tmp_path / "roadmap.md"
    page.write_bytes(b"# x\n\xff\xfe\n")
    said = pagecontent.docs_file_problem("roadmap.md", str(page))
    assert said.startswith("docs/roadmap.md: ") and _expect("docs_not_utf8") in said
    page.write_bytes("# \u8def\u7ebf\n".encode())
    assert pagecontent.docs_file_problem("roadmap.md", str(page)) is None


class _Run:
    def __init__(self, run_id, records, machine="m"):
        self.run_id, self.records, self.machine = run_id, records, machine
        self.manifest = {"profile": "standard", "environment": {"machine_id": machine}}

    def where(self, index):
        return f"{self.run_id}/records.jsonl:{index + 1}"


TUNER = "20261206T010000Z-standard-m"
USER = "20261206T020000Z-standard-m"


def _pair(**change):
    tune = dict(record(), id="e2e_tune/model=m/size=224/variant=default/batch=1/threads=2", experiment="e2e_tune",
                run_id=TUNER, extra={"tasks": 21, "coverage": {"scheduled": [f"k{i}" for i in range(21)], "unscheduled": []}, "tuning": {"measured": 268, "valid": 268, "seconds": 10.0},
                                     "campaign": {"cumulative_trials": 268}})
    summary = {"record": tune["id"], "run_id": TUNER, "trials": 268, "valid_trials": 268, "cumulative_trials": 268,
               "seconds": 10.0, "scheduled": 21, "unscheduled": []}
    summary.update(change)
    e2e = dict(record(), id="e2e/model=m/size=224/engine=tvm_d/batch=1/threads=2", experiment="e2e", run_id=USER,
               case={"model": "m", "engine": "tvm_d", "batch": 1, "threads": 2, "input_size": 224},
               extra={"tuned": True, "tuning": {k: v for k, v in summary.items() if v is not None}})
    return [_Run(TUNER, [tune]), _Run(USER, [e2e])]


def _problems(runs):
    from reportgen.data import runfacts
    return runfacts.tuning_problems(runs)


def test_a_tuned_records_whole_summary_is_its_tuning_records(monkeypatch):
    from reportgen.data import runfacts
    monkeypatch.setattr(runfacts, "order_key", lambda run: run.run_id)
    assert _problems(_pair()) == []
    [said] = _problems(_pair(scheduled=3))
    assert said.startswith(f"{USER}/records.jsonl:1: extra.tuning.scheduled:") and _expect("tuning_scheduled") in said
    [said] = _problems(_pair(record=None, run_id=None))
    assert _expect("tuning_unnamed") in said
    runs = _pair()
    runs[1].records[0]["extra"].pop("tuning")
    assert _expect("tuning_unnamed") in _problems(runs)[0]
    runs = _pair()
    runs[0].machine = "other"
    assert _expect("tuning_other_machine") in _problems(runs)[0]


@pytest.mark.parametrize("field, value", [("scheduled", "21"), ("scheduled", 10 ** 30), ("scheduled", -21),
                                          ("unscheduled", 5), ("scheduled", 2.5)])
def test_a_tuning_summarys_counts_are_typed(field, value):
    from study import work
    extra = {"tuning": {field: value}}
    found = [p for p in work._nested_problems(extra) if p]
    assert found and found[0].startswith(f"extra.tuning.{field}:")
    if field == "scheduled":
        assert _expect("tuning_types") in found[0]


def test_the_share_of_a_peak_flags_a_jump_of_the_peak():
    from reportgen.data.merge import Current
    from reportgen.render import lookup
    from reportgen.render.figures import FigureBook
    best, peak = Current(record(), None), Current(record(case_id="numpy_gemm/dtype=float32/n=64/threads=1/blas=configured"), None)
    book = FigureBook()
    book.set_page("retrospective.md")
    book.jumped = {(peak.record["run_id"], peak.record["id"])}
    assert _expect("share_names_its_peak") in lookup.percent(book, best, "share_of_isa_peak", 0.225, peak)


def test_untimed_records_copied_under_other_ids_are_refused():
    from reportgen.data import runfacts
    base = dict(record(), id="graph/case=hello", experiment="graph", samples=[], stats=None, case={},
                extra={"output": 3, "stats": {"n_calls": 5}})
    pad = dict(copy.deepcopy(base), id="graph/case=pad0001")
    again = copy.deepcopy(base)   # the same case measured again finds the same: not a copy
    [said] = runfacts.copied_problems([_Run(TUNER, [base]), _Run(USER, [pad, again])])
    assert said.startswith(f"{USER}/records.jsonl:1: extra:") and _expect("untimed_padding") in said


# -- round 41 ----------------------------------------------------------------------------------------

def _peak(isa="avx2", **theo):
    env = {"simd_flags": ["fma", "avx2"], "cpu_mhz": {"value": 2596.122, "source": "x"},
           "tvm_target": {"kind": "llvm", "mcpu": "znver5"}}
    from study import work
    want = work.theoretical(env, "float32", work.VECTOR_BYTES.get(isa, 32), 1)
    rec = {"experiment": "machine_peak", "status": "ok", "case": {"dtype": "float32", "isa": isa, "threads": 1},
           "extra": {"theoretical": dict(want, **theo) if want else None}}
    return rec, env


def test_a_peak_is_of_a_loop_its_machine_runs_and_its_theory_the_formula():
    from study import work
    rec, env = _peak()
    assert work.peak_problems(rec, env) == []
    [said] = work.peak_problems(*_peak(isa="avx"))
    assert said.startswith("case.isa:") and _expect("peak_isa_not_measured") in said
    rec, env = _peak(gflops=8.3)
    [said] = work.peak_problems(rec, env)
    assert said.startswith("extra.theoretical:") and _expect("theoretical_claim") in said
    rec["extra"]["theoretical"].pop("formula")
    assert work.peak_problems(rec, env)   # a theoretical peak without its formula broke the GEMM page


def test_a_mean_that_jumps_under_a_steady_median_is_a_jump():
    from reportgen.pages import history

    class R:
        def __init__(self, run_id, mean):
            self.run_id, self.machine = run_id, "m"
            self.manifest = {"git": {"commit": "a" * 40}}
            self.records = [{"id": "e2e/model=m/size=224/engine=tf/batch=1/threads=2", "status": "ok", "reused_from": None,
                             "fingerprint": "f" * 64, "experiment": "e2e", "case": {},
                             "stats": {"p50": 1.0, "p95": 1.1, "p99": 1.2, "mean": mean, "min": 0.9, "max": 1.3}}]
    [jump] = history.all_jumps([R("r1", 1.0), R("r2", 16.0)], lambda *_: False)
    assert jump[5] == _expect("jump_mean_outlier")


def test_a_targets_names_are_text_and_fma_counts_are_counts():
    from study import manifest, work
    said = manifest.environment_problems({"tvm_target": {"kind": "llvm", "mcpu": 5}})
    assert any(_expect("target_mcpu_type") in p for p in said)
    [said] = [p for p in work._nested_problems({"vector_fma_instructions": {"zmm": "0", "ymm": 12}}) if p]
    assert said.startswith(_expect("fma_counts_typed"))


def test_a_set_that_builds_a_value_is_refused():
    import jinja2
    from reportgen.publish import pagecontent
    env = jinja2.Environment()
    for text in ('{% set a = b ~ b %}', '{% set a = b|join("----") %}'):
        found = pagecontent.template_problem(env.parse(text))
        assert found is not None and _expect("jinja_set_builds") in found.what
    assert pagecontent.template_problem(env.parse('{% set f = finding() if measured("x") else None %}')) is None


def test_the_compiled_libraries_folder_goes_with_its_process(tmp_path):
    import os
    import subprocess
    import sys
    from pathlib import Path
    code = "from experiments import build_c; print(build_c.private_dir())"
    env = dict(os.environ, TMPDIR=str(tmp_path))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True,
                         cwd=Path(__file__).resolve().parents[1]).stdout.strip()
    assert _expect("build_dir_left") in out and out.startswith(str(tmp_path)) and not Path(out).exists()


# -- round 42 ----------------------------------------------------------------------------------------

def test_a_failed_isa_peak_gives_no_share_rather_than_a_narrower_one():
    from reportgen.data import frame, merge
    from reportgen.data.merge import Current

    def peak(isa, status, p50):
        rec = dict(record(case_id=f"machine_peak/dtype=float32/isa={isa}/threads=1"), experiment="machine_peak",
                   status=status, case={"dtype": "float32", "isa": isa, "threads": 1, "iters": 1000},
                   extra={"accumulators": 12})
        rec["stats"] = dict(rec["stats"], p50=p50)
        return Current(rec, None)
    current = frame.Records((c.record["id"], c) for c in (peak("avx2", "ok", 1.0), peak("avx512", "run_failed", 1.0)))
    assert merge.peak(current, "float32", 1, "avx512") is None, _expect("failed_peak_fallback")
    assert merge.peak(current, "float32", 1, "avx2").record["case"]["isa"] == "avx2"


@pytest.mark.parametrize("extra", [{"rewrite": {"vnni_packed": {"conv": "3"}}}, {"asm": {"kernels_with": "x"}},
                                   {"asm": {"hottest": []}}])
def test_int8_extras_are_typed(extra):
    from study import work
    found = [p for p in work._nested_problems(extra) if p]
    assert found and _expect("int8_extras_typed") in found[0]
