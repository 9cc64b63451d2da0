"""The forty-eighth round of the hostile corpus (issue #29).

Data set: a record's 3 samples padded to 30 (stats unchanged) turned a verdict from 'too few samples,
p = 0.1' to 'holds, p = 3e-11'; a timed NumPy case recorded as evidence (no samples) stopped the build
with an internal error; a case this machine only ever skipped, forged ok, was not a new case.

Site set: a list of 3 million rows in a record's case (compared as claims since round 47) cost 2.3 GB;
a requirements.lock that is not UTF-8 at a run's commit stopped the build in a UnicodeDecodeError;
a case key of 300 000 characters reached four pages; an experiments/*.py git shows but Python cannot
read, or one linked to /dev/zero, was an internal error or read until memory ran out; two IR artifacts
of 25 000 lines kept the graph page's step diff past the build's time limit.

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
import copy

from test_hostile_round4 import _expect
from test_hostile_round47 import _Case, _rec, _records

MUTATIONS = {}
SPECIAL = {case: None for case in ("samples_padded", "timed_as_evidence", "skipped_then_ok", "case_size",
                                   "lock_not_utf8", "case_key_long", "family_module_unreadable", "family_module_link",
                                   "step_diff_long")}


def test_padded_samples_are_a_jump():
    from reportgen.pages import history
    same = lambda *_: False   # noqa: E731
    real = _rec(32)
    padded = copy.deepcopy(real)
    padded["samples"] = [x * (1 + 0.001 * (i % 3)) for i in range(10) for x in real["samples"]]
    [jump] = history.all_jumps([_Case("r1", [real]), _Case("r2", [padded])], same)
    assert jump[5] == _expect("samples_padded") and jump[3] >= 2
    assert history.all_jumps([_Case("r1", [real]), _Case("r2", [copy.deepcopy(real)])], same) == []


def test_a_timed_case_is_not_evidence():
    from study import schema
    [rec, *_] = _records("numpy_gemm", lambda r: "n=32/" in r["id"])
    assert schema.record_problems(rec) == []
    rec.update(metric="evidence", samples=[], stats=None, repeat=0, number=0, warmup=0, unit="")
    said = schema.record_problems(rec)
    assert said and _expect("timed_as_evidence") in said[0] and said[0].startswith("metric:")
    [quant, *_] = _records("int8", lambda r: "quant=" in r["id"])
    assert schema.record_problems(quant) == []   # evidence by its case


def test_a_case_only_ever_skipped_then_ok_is_new():
    from reportgen.pages import history
    same = lambda *_: False   # noqa: E731
    skipped = dict(_rec(64, status="skipped"))
    runs = [_Case("r1", [_rec(32), skipped]), _Case("r2", [_rec(32), _rec(64)])]
    [jump] = history.all_jumps(runs, same)
    assert jump[0] == _rec(64)["id"] and jump[5] == _expect("skipped_then_ok")
    failed = dict(_rec(64, status="timeout"))   # a failure of a measured case, fixed by a rerun: no new case
    found = history.all_jumps([_Case("r0", [_rec(32), _rec(64)]), _Case("r1", [_rec(32), failed]),
                               _Case("r2", [_rec(32), _rec(64)])], same)
    assert [(j[2], j[5].split(":")[0]) for j in found] == [("r1", "status")]


def test_a_record_s_case_counts_toward_its_values_and_its_keys_are_labels():
    from study import schema, work
    [rec, *_] = _records("numpy_gemm", lambda r: "n=32/" in r["id"])
    rec["case"]["zz_rows"] = [0] * (work.MAX_VALUES + 1)
    said = schema.record_problems(rec)
    assert said and _expect("case_size") in said[0]
    rec["case"].pop("zz_rows")
    rec["case"]["k" * 300_000] = 1
    said = schema.record_problems(rec)
    assert said and _expect("case_key_long") in said[0] and said[0].startswith("case: the key")


def test_a_lock_that_is_not_utf8_or_a_folder_is_no_lock(tmp_path):
    import subprocess
    from reportgen.data import runfacts
    git = ["git", "-C", str(tmp_path), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(git[:3] + ["init", "-q"], check=True)
    commits = []
    for body in (b"# \xe4\xb8\xad\xe6\x96\x87 " * 200 + b"\napache-tvm==0.27.0.post1\n", b"numpy==\xff\xfe\n", None):
        lock = tmp_path / "requirements.lock"
        if body is None:
            lock.unlink()
            lock.mkdir()
            (lock / "x").write_text("apache-tvm==9\n")
        else:
            lock.write_bytes(body)
        subprocess.run(git[:3] + ["add", "-A"], check=True)
        subprocess.run(git + ["commit", "-qm", "c"], check=True)
        commits.append(subprocess.run(git[:3] + ["rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip())
    locks = runfacts._locks(tmp_path, commits + ["0" * 40])
    assert locks[commits[0]]["apache-tvm"] == "0.27.0.post1"   # a long non-ASCII comment shifts nothing
    assert "numpy" in locks[commits[1]] and commits[2] not in locks   # no UnicodeDecodeError; a folder is no lock
    assert _expect("lock_not_utf8") == "no internal error"


def test_a_family_module_python_cannot_read_is_a_problem_naming_it(tmp_path):
    import os
    from reportgen.data import profiles
    from study import family
    (tmp_path / "experiments").mkdir()
    (tmp_path / "experiments" / "bad.py").write_bytes(b'x = "\xff"\n')
    (tmp_path / "experiments" / "syntax.py").write_text("def (:\n")
    (tmp_path / "experiments" / "dir.py").mkdir()
    os.symlink("/dev/zero", tmp_path / "experiments" / "zz.py")
    _found, problems = family.declared(tmp_path)
    assert len(problems) == 4 and all(p.startswith("experiments/") for p in problems), problems
    assert any(_expect("family_module_link") in p for p in problems)
    assert any(_expect("family_module_unreadable") in p for p in problems)
    assert profiles.claims_across(tmp_path)("graph", "standard", "full") is None   # no internal error


def test_a_step_diff_too_long_is_a_note_not_a_diff(tmp_path, monkeypatch):
    from reportgen.data import load
    from reportgen.pages import graph

    class Cur:
        ok = True   # steps that passed: graph.step_diffs diffs those only

        def __init__(self, step, ir):
            self.record = {"id": f"graph/unit=conv/pipeline=decompose/step={step:02d}-P{step}", "run_id": "r",
                           "case": {"unit": "conv", "pipeline": "decompose", "step": step, "pass": f"P{step}"},
                           "extra": {"artifacts": {"ir": ir}}}
    lines = [f"l{i}" for i in range(2500)]
    texts = {"a": "\n".join(lines), "b": "\n".join(lines[::2] + lines[1::2])}
    monkeypatch.setattr(load, "read_artifact", lambda _dir, ref: texts[ref])
    monkeypatch.setattr(graph, "_steps", lambda *_a: [Cur(1, "a"), Cur(2, "b")])
    monkeypatch.setattr(graph, "step_words", lambda *_a: "x")
    text = graph.step_diffs(tmp_path, {}, "decompose", "data")
    assert _expect("step_diff_long") in text and "+l" not in text
