"""read_jsonl's memory of validated files: a hit only for the same bytes under the same rules,
kept outside the project, and nothing it holds can make a bad file pass."""
import json

import pytest
from reportgen.data import load
from reportgen.errors import ReportError
from study import schema

from helpers import record


def good_record():
    rec = record()
    rec["log"]["sha256"] = "a" * 64
    return rec


@pytest.fixture
def cache(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    monkeypatch.setenv("REPORTGEN_CACHE", str(folder))
    return folder


def _write(path, records):
    path.write_text("".join(schema.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def _counting(monkeypatch):
    calls = []
    real = schema.record_problems

    def spy(rec, pending_log=False):
        calls.append(rec["id"])
        return real(rec, pending_log=pending_log)
    monkeypatch.setattr(schema, "record_problems", spy)
    return calls


def test_the_same_bytes_are_validated_once(tmp_path, cache, monkeypatch):
    path = _write(tmp_path / "records.jsonl", [good_record()])
    calls = _counting(monkeypatch)
    first = load.read_jsonl(path)
    second = load.read_jsonl(path)
    assert first == second and len(calls) == 1
    assert len(list((cache / "validated").iterdir())) == 1


def test_one_changed_byte_is_validated_again_and_refused(tmp_path, cache):
    path = _write(tmp_path / "records.jsonl", [good_record()])
    load.read_jsonl(path)
    bad = good_record()
    bad["samples"] = [-1.0]
    _write(path, [bad])
    with pytest.raises(ReportError, match="samples"):
        load.read_jsonl(path)


def test_a_change_of_the_rules_forgets_every_entry(tmp_path, cache, monkeypatch):
    path = _write(tmp_path / "records.jsonl", [good_record()])
    load.read_jsonl(path)
    calls = _counting(monkeypatch)
    monkeypatch.setattr(load, "_rules_fingerprint", lambda: "other rules")
    load.read_jsonl(path)
    assert len(calls) == 1


def test_a_pending_log_validation_is_no_final_one(tmp_path, cache, monkeypatch):
    path = _write(tmp_path / "records.jsonl", [good_record()])
    load.read_jsonl(path, pending_log=True)
    calls = _counting(monkeypatch)
    load.read_jsonl(path)
    assert len(calls) == 1


@pytest.mark.parametrize("plant", ["wrong_text", "symlink"])
def test_an_entry_that_is_not_what_the_cache_writes_is_ignored(tmp_path, cache, monkeypatch, plant):
    path = _write(tmp_path / "records.jsonl", [good_record()])
    key = load._validated_key(path.read_bytes(), False)
    entries = cache / "validated"
    entries.mkdir(parents=True)
    if plant == "wrong_text":
        (entries / key).write_text("valid", encoding="ascii")
    else:
        (tmp_path / "elsewhere").write_text(key, encoding="ascii")
        (entries / key).symlink_to(tmp_path / "elsewhere")
    calls = _counting(monkeypatch)
    load.read_jsonl(path)
    assert len(calls) == 1


def test_the_cache_lives_outside_the_project_and_can_be_turned_off(tmp_path, monkeypatch):
    from conftest import ROOT
    monkeypatch.delenv("REPORTGEN_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert load.cache_dir().is_relative_to(tmp_path / "xdg")
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert not load.cache_dir().resolve().is_relative_to(ROOT.resolve())
    monkeypatch.setenv("REPORTGEN_CACHE", "")
    path = _write(tmp_path / "records.jsonl", [good_record()])
    calls = _counting(monkeypatch)
    load.read_jsonl(path)
    load.read_jsonl(path)
    assert len(calls) == 2


def test_an_unwritable_cache_costs_only_time(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    monkeypatch.setenv("REPORTGEN_CACHE", str(blocker / "cache"))
    path = _write(tmp_path / "records.jsonl", [good_record()])
    assert load.read_jsonl(path) == load.read_jsonl(path)
    assert json.loads(path.read_text())["id"] == good_record()["id"]


def test_a_file_is_hashed_again_when_it_changed_even_with_its_old_size_and_mtime(tmp_path, cache):
    """The hash memory is keyed by the file's stat facts with ctime, which the kernel sets on every
    change: restoring size and mtime after an edit does not make an altered log look unchanged."""
    import os

    from helpers import write_run
    run_id = "20260101T000000Z-quick-f6ab9f827cfd"
    rec = record(run_id)
    write_run(tmp_path, run_id, [rec], log_text="line one\nline two\nline three\n")
    load.read_runs(tmp_path)                     # hashes every file and remembers them
    memory = list((cache / "hashes").glob("*.json"))
    assert len(memory) == 1 and "logs/numpy_gemm.log" in json.loads(memory[0].read_text())
    assert load.read_runs(tmp_path)              # the remembered hashes agree with run.json
    log = tmp_path / "runs" / run_id / "logs" / "numpy_gemm.log"
    before = os.stat(log)
    log.write_text("line one\nline TWO\nline three\n", encoding="utf-8")   # same size
    os.utime(log, ns=(before.st_atime_ns, before.st_mtime_ns))
    with pytest.raises(ReportError, match="altered after the run"):
        load.read_runs(tmp_path)


def test_a_planted_hash_memory_entry_of_the_wrong_shape_is_ignored(tmp_path, cache):
    from helpers import write_run
    run_id = "20260101T000000Z-quick-f6ab9f827cfd"
    write_run(tmp_path, run_id, [record(run_id)])
    load.read_runs(tmp_path)
    [memory] = list((cache / "hashes").glob("*.json"))
    memory.write_text(json.dumps({"logs/numpy_gemm.log": ["not facts", "0" * 64, 3]}), encoding="utf-8")
    assert load.read_runs(tmp_path)              # re-hashed: the file still matches run.json
    memory.write_text("[not a mapping", encoding="utf-8")
    assert load.read_runs(tmp_path)


def test_a_database_is_checked_once_per_bytes_and_never_passes_as_records(cache, tmp_path, monkeypatch):
    """A 64 MiB campaign database took 70 s to check at every build: its bytes are remembered like a
    records file's, under a key of their own (a database holds JSON lines that are no records)."""
    db = tmp_path / "database_tuning_record.json"
    db.write_text('{"a": 1}\n[2, 3]\n', encoding="utf-8")
    parsed = []
    real = schema.loads
    monkeypatch.setattr(schema, "loads", lambda text: parsed.append(text) or real(text))
    assert load._database_problems(db) == ([], 2) and len(parsed) == 2
    assert load._database_problems(db) == ([], 2) and len(parsed) == 2   # remembered
    with pytest.raises(ReportError):                                  # the same bytes read as records
        load.read_jsonl(db)
    db.write_text('{"a": 1}\n[2, 3\n', encoding="utf-8")
    assert "invalid JSON" in load._database_problems(db)[0][0]
