"""Run-level checks: logs exist and hash right, ids are unique, manifests are complete."""
import json

import pytest
from helpers import record, write_run

from reportgen.data import load
from reportgen.errors import ReportError

RUN = "20260101T000000Z-quick-f6ab9f827cfd"


def _problems(results):
    with pytest.raises(ReportError) as err:
        load.read_runs(results)
    return err.value.problems


def test_good_run_loads(tmp_path):
    write_run(tmp_path, RUN, [record(RUN)])
    runs = load.read_runs(tmp_path)
    assert [r.run_id for r in runs] == [RUN]
    assert runs[0].records[0]["id"].startswith("numpy_gemm/")


def test_missing_log(tmp_path):
    run = write_run(tmp_path, RUN, [record(RUN)])
    (run / "logs" / "numpy_gemm.log").unlink()
    assert _problems(tmp_path) == [
        f"{run / 'logs' / 'numpy_gemm.log'}: listed in run.json files but missing",
        f"{run / 'records.jsonl'}:1: log.path: runs/{RUN}/logs/numpy_gemm.log does not exist"]


def test_altered_log(tmp_path):
    run = write_run(tmp_path, RUN, [record(RUN)])
    with open(run / "logs" / "numpy_gemm.log", "a") as fh:
        fh.write("edited by hand\n")
    manifest_problem, problem = _problems(tmp_path)
    assert manifest_problem.startswith(f"{run / 'logs' / 'numpy_gemm.log'}: sha256 ")
    assert problem.startswith(f"{run / 'records.jsonl'}:1: log.sha256: runs/{RUN}/logs/numpy_gemm.log was altered")


def test_log_lines_beyond_end(tmp_path):
    run = write_run(tmp_path, RUN, [record(RUN, log={"path": f"runs/{RUN}/logs/numpy_gemm.log",
                                                      "lines": [1, 99], "sha256": "pending"})])
    [problem] = _problems(tmp_path)
    assert problem == f"{run / 'records.jsonl'}:1: log.lines: [1, 99] beyond the end of runs/{RUN}/logs/numpy_gemm.log (3 lines)"


def test_duplicate_ids(tmp_path):
    run = write_run(tmp_path, RUN, [record(RUN), record(RUN)])
    assert _problems(tmp_path) == [
        f"{run / 'records.jsonl'}:2: id: duplicate id "
        "'numpy_gemm/dtype=float32/n=32/threads=1/blas=configured' (first at line 1)"]


def test_manifest_missing_environment_field(tmp_path):
    run = write_run(tmp_path, RUN, [record(RUN)])
    manifest = json.loads((run / "run.json").read_text())
    manifest["environment"]["cpu_model"] = ""
    (run / "run.json").write_text(json.dumps(manifest))
    assert _problems(tmp_path) == [f"{run / 'run.json'}: environment.cpu_model: missing or empty"]


def test_temporary_runs_are_ignored(tmp_path):
    write_run(tmp_path, RUN, [record(RUN)])
    (tmp_path / "runs" / f".tmp-{RUN}x").mkdir()
    assert len(load.read_runs(tmp_path)) == 1
