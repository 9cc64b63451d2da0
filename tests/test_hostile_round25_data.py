"""The twenty-fifth round of the hostile corpus (issue #29), attack only, then fixed (the data side):
two spellings of one case were both current and the oldest won the lookups by case field; a run
dated before study.citation.NAMED_FROM escaped the citation rule whatever its commit; a truncated
log's marker named lines the copy did not show; the statement check read only the text after the
record's id; a docs page's power was computed by Jinja's constant folding before any check.

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
import pytest
from helpers import ENV, record, write_run
from test_hostile_round4 import _expect

from reportgen.data import frame, load, merge, queries
from reportgen.errors import ReportError
from study import citation, identity

MUTATIONS = {}
MID = identity.machine_id(ENV)
E2E_CASE = {"model": "resnet18_v1", "engine": "tvm_c", "batch": 1, "threads": 1, "input_size": 224, "seed": 0}


def _e2e(run_id, case_id, seconds):
    return record(run_id, case_id=case_id, experiment="e2e", samples=(seconds,) * 3, case=dict(E2E_CASE), extra={})


@pytest.mark.parametrize("case, older, newer", [
    ("e2e_permuted_id_older_wins", "e2e/engine=tvm_c/model=resnet18_v1/batch=1/threads=1",
     "e2e/model=resnet18_v1/engine=tvm_c/batch=1/threads=1"),
    ("e2e_optional_field_older_wins", "e2e/model=resnet18_v1/size=224/engine=tvm_c/batch=1/threads=1",
     "e2e/model=resnet18_v1/engine=tvm_c/batch=1/threads=1"),
])
def test_the_newest_record_of_a_case_stands_whatever_its_ids_spelling(tmp_path, case, older, newer):
    """Round 25 #1, #2: current_records kept one record per id text, so a case spelled twice had two
    current records, and frame.first / frame.grid took the one inserted first: the oldest run's."""
    from reportgen.pages import e2e as e2e_page
    env = dict(ENV, machine_id=MID)
    old, new = f"20261201T000000Z-standard-{MID}", f"20261204T000000Z-standard-{MID}"
    write_run(tmp_path, old, [_e2e(old, older, 0.0001)], profile="standard", environment=env)
    write_run(tmp_path, new, [_e2e(new, newer, 0.01)], profile="standard", environment=env)
    current = merge.current_records(load.read_runs(tmp_path))
    assert [cur.run.run_id for cur in current.values()] == [new], _expect(case)
    assert e2e_page._get(current, "resnet18_v1", "tvm_c").run.run_id == new
    assert queries.e2e(current, "resnet18_v1", "tvm_c").stat("p50") == 0.01
    grid = frame.grid(frame.select(current, "e2e"), model=["resnet18_v1"], engine=["tvm_c"], batch=[1])
    assert [cur.run.run_id for cur in frame.currents(grid)] == [new]


@pytest.mark.parametrize("spelled", ["e2e/engine=tvm_c/model=resnet18_v1/size=224/batch=1/threads=1",
                                     "e2e/model=resnet18_v1/engine=tvm_c/batch=1/threads=1"])
def test_a_bound_run_writes_the_one_spelling_of_its_case(tmp_path, spelled):
    run_id = f"{citation.NAMED_FROM}-standard-{MID}"
    write_run(tmp_path, run_id, [_e2e(run_id, spelled, 0.01)], profile="standard",
              environment=dict(ENV, machine_id=MID))
    with pytest.raises(ReportError) as err:
        load.read_runs(tmp_path)
    assert any(_expect("e2e_canonical_id") in p and "e2e/model=resnet18_v1/size=224/engine=tvm_c" in p
               for p in err.value.problems), err.value.problems


def _committed(root, when):
    """A git repository at ``root`` with one commit made at ``when`` (ISO); its hash."""
    import os
    import subprocess
    env = dict({k: v for k, v in os.environ.items() if not k.startswith("GIT_")}, GIT_AUTHOR_NAME="a",
               GIT_AUTHOR_EMAIL="a@b", GIT_COMMITTER_NAME="a", GIT_COMMITTER_EMAIL="a@b",
               GIT_AUTHOR_DATE=when, GIT_COMMITTER_DATE=when)
    subprocess.run(["git", "init", "-q", str(root)], check=True, env=env)
    (root / "f.txt").write_text("x")
    subprocess.run(["git", "-C", str(root), "add", "f.txt"], check=True, env=env)
    subprocess.run(["git", "-C", str(root), "commit", "-qm", "c"], check=True, env=env)
    return subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True,
                          check=True, env=env).stdout.strip()


@pytest.mark.parametrize("finished, said", [
    (None, "committed after it"),   # ten minutes after its id's start, days before the commit
    ("2026-12-05T14:00:00Z", "backdated run id"),   # finished after the commit, its id before NAMED_FROM
])
def test_a_run_dated_before_its_commit_is_refused(tmp_path, finished, said):
    """Round 25 #4: a run id dated before NAMED_FROM switched the statement and summary checks off,
    though its git.commit was made days after the start it claimed."""
    import json
    from reportgen.data import runfacts
    commit = _committed(tmp_path, "2026-12-05T13:00:00Z")
    run_id = f"20261201T000000Z-standard-{MID}"
    run = write_run(tmp_path / "results", run_id, [record(run_id)], profile="standard",
                    environment=dict(ENV, machine_id=MID), finished_at=finished)
    manifest = json.loads((run / "run.json").read_text())
    manifest["git"]["commit"] = commit
    (run / "run.json").write_text(json.dumps(manifest))
    runs = load.read_runs(tmp_path / "results")
    with pytest.raises(ReportError) as err:
        runfacts.standing(tmp_path, runs)
    assert [p for p in err.value.problems if "run.json: git.commit: " in p and said in p] == err.value.problems
    assert said != "backdated run id" or _expect("backdated_run_unchecked_evidence") in err.value.problems[0]


@pytest.mark.parametrize("page", ["{{ 9**(9**9) }}", "{{ 99999**(99999**2) }}", "{{ 'ab' * 2000000000 }}",
                                  "{% set x = 9 %}{{ x ** (x ** x) }}", "{{ '%02000000000d' % 1 }}",
                                  "{{ 'a\\nb'|indent(2000000000) }}", "{{ 'x'.ljust(99999999) }}"])
def test_a_docs_pages_arithmetic_is_refused_before_jinja_folds_it(monkeypatch, page):
    """Round 25 #13: jinja2.meta.find_undeclared_variables compiles the page, and Jinja's code
    generator folds constant expressions: 9**(9**9) ran for minutes inside the placeholder check."""
    import threading
    from types import SimpleNamespace
    import jinja2.sandbox
    from conftest import ROOT
    from reportgen.publish import plugin
    monkeypatch.setattr(plugin, "Templates", lambda *_a: SimpleNamespace(names=dict))
    me = plugin.ReportgenPlugin.__new__(plugin.ReportgenPlugin)
    me.book = SimpleNamespace(set_page=lambda _uri: None)
    me.data, me.names_used, me.generated = None, set(), set()
    me.jinja = jinja2.sandbox.ImmutableSandboxedEnvironment(undefined=jinja2.StrictUndefined,
                                                            comment_start_string="{##", comment_end_string="##}")
    me.jinja.globals.clear()
    where = SimpleNamespace(file=SimpleNamespace(src_uri="gemm.md", abs_src_path=str(ROOT / "docs" / "gemm.md")), meta={})
    found = []

    def check():
        try:
            me.on_page_markdown(f"# GEMM\n\n{page}\n", where, None, None)
        except ReportError as exc:
            found.append(str(exc))
    worker = threading.Thread(target=check, daemon=True)   # without the check it would not return
    worker.start()
    worker.join(20)
    assert found and found[0].startswith("docs/gemm.md:3: ") and "\n" not in found[0], found
    assert _expect("docs_jinja_pow_hang") in found[0]


CASE = "numpy_gemm/dtype=float32/n=32/threads=1/blas=configured"


@pytest.mark.parametrize("line, said", [
    (f"[numpy_gemm] FAILED (result differs, max_rel_err 0.5): {CASE}", "a cited line"),
    (f"[numpy_gemm] p50 9.99 ms over 3 samples <- {CASE}", "a cited line"),
    (f"[numpy_gemm] FAILED numpy_gemm/n=1=1 {CASE}", "a cited line"),   # another id before it ends nothing
])
def test_a_statement_before_the_records_id_is_read(line, said):
    """Round 25 #6: the statement check read only the text after the id, so a failure or a median
    written before it on the line naming the record passed under a title saying it was checked."""
    rec = record(f"{citation.NAMED_FROM}-standard-{MID}", samples=(0.0011,) * 3)
    problems = citation.statement_problems(rec, [line, "[numpy_gemm] " + citation.summary(
        rec["id"], "ok", rec["samples"], rec["stats"]["p50"])])
    assert problems and all(said in p for p in problems), problems
    assert _expect("statement_before_id") in problems[0]


def test_the_harness_summary_and_a_paired_peer_after_it_still_pass():
    rec = record(f"{citation.NAMED_FROM}-standard-{MID}", samples=(0.0011,) * 3)
    lines = ["[numpy_gemm] (context) paired_with=ort tvm_p50_ms=1.1 peer_p50_ms=9.99",   # the peer's figures
             "[numpy_gemm] " + citation.summary(rec["id"], "ok", rec["samples"], rec["stats"]["p50"])]
    assert citation.statement_problems(rec, lines) == []


@pytest.mark.parametrize("data, shown", [
    (b"start\n" + b"x" * 100 + b"\n" + b"p" * 2_100_000 + b" <id>: p50 1.1 ms", "lines 1-2 above and no line below"),
    (b"start\n" + b"y" * 1_600_000 + b"\n" + b"p" * 600_000 + b"\n", "lines 1-1 above and no line below"),
    (b"a\rb\r" * 1_200_000, "no line above and no line below"),
    (b"line\n" * 500_000, "lines 1-200000 above and 400002-500000 below"),
])
def test_a_truncated_logs_marker_names_the_lines_it_shows(tmp_path, data, shown):
    """Round 25 #5: a last line longer than a quarter of the limit left the copy's tail empty, and the
    marker still named it ("3-3 below", "4-3 below", "1-0 above")."""
    from types import SimpleNamespace
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "x.log").write_bytes(data)
    out = load.shipped_bytes(SimpleNamespace(path=tmp_path, run_id="R"), "logs/x.log")
    head, marker, tail = out.partition(b"[reportgen: this copy is truncated.")
    marker, _nl, tail = tail.partition(b"\n")
    assert f"shown here: {shown} this line]" in marker.decode(), (marker[-80:], _expect("shipped_log_marker_wrong_lines"))
    above, below = shown.split(" above and ")
    above = above.replace("lines ", "")
    assert head.count(b"\n") == (0 if above == "no line" else int(above.split("-")[1]))
    assert tail.count(b"\n") == (0 if below == "no line below" else 99999)


SPECIAL = {case: None for case in (
    "e2e_permuted_id_older_wins", "e2e_optional_field_older_wins", "e2e_canonical_id",
    "backdated_run_unchecked_evidence", "docs_jinja_pow_hang",
    "statement_before_id", "shipped_log_marker_wrong_lines",
)}
