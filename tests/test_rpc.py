"""Retests through a real TVM RPC tracker and servers on loopback, including a device lost mid-run."""
import json
import os
import signal
import socket
import subprocess
import sys
import time

import pytest
import yaml

from reportgen.data import load
from reportgen.commands import retest
from reportgen.errors import ReportError

pytest.importorskip("tornado")
KEY = "study-loopback"


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start(args, cwd, log):
    env = dict(os.environ, PYTHONPATH=str(cwd))
    return subprocess.Popen([sys.executable, "-m", *args], cwd=cwd, env=env, stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True)


def _stop(proc):
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait()


def _wait(predicate, timeout_s, what):
    deadline = time.time() + timeout_s
    while time.time() < deadline:
        if predicate():
            return
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


@pytest.fixture
def tracker(project, tmp_path):
    port = _free_port()
    with open(tmp_path / "tracker.log", "w") as log:
        proc = _start(["tvm.exec.rpc_tracker", "--host", "127.0.0.1", "--port", str(port),
                       "--port-end", str(port + 1)], project, log)
    address = f"127.0.0.1:{port}"

    def up():
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return True
        except OSError:
            return False
    _wait(up, 30, "the tracker")
    yield address
    _stop(proc)


def _server(project, tmp_path, address, name):
    from experiments import remote
    before = remote.free_servers(address, KEY)
    with open(tmp_path / f"{name}.log", "w") as log:
        proc = _start(["experiments.rpc_server", "--tracker", address, "--key", KEY, "--host", "127.0.0.1",
                       "--port", str(_free_port())], project, log)
    _wait(lambda: remote.free_servers(address, KEY) > before, 60, f"server {name} to register")
    return proc


def _small_rpc_profile(project):
    path = project / "experiments" / "configs" / "quick.yaml"
    config = yaml.safe_load(path.read_text(encoding="utf-8"))
    config["families"]["gemm_tvm"].update(
        shapes=[[96, 96, 96], [64, 64, 64], [48, 48, 48]], threads=[1], repeat=5, min_repeat=5,
        min_sample_s=0.02, budget_s=1, tune={"trials": 0, "shapes": [], "threads": []})
    path.write_text(yaml.dump(config, sort_keys=False), encoding="utf-8")


@pytest.mark.slow
def test_retest_through_rpc_survives_a_lost_device(project, tracker, tmp_path):
    _small_rpc_profile(project)
    first = _server(project, tmp_path, tracker, "server-a")
    with open(tmp_path / "retest.log", "w") as log:
        run = subprocess.Popen([sys.executable, "-m", "reportgen.cli", "--root", str(project), "retest",
                                "--only", "gemm_tvm", "--rpc-tracker", tracker, "--rpc-key", KEY],
                               cwd=project, stdout=log, stderr=subprocess.STDOUT)
    parts = project / "results" / "runs"
    _wait(lambda: any(p.stat().st_size for p in parts.glob(".tmp-*/parts/gemm_tvm.jsonl")), 120,
          "the first record measured through RPC")
    second = _server(project, tmp_path, tracker, "server-b")
    _stop(first)
    assert run.wait(timeout=300) == 0, (tmp_path / "retest.log").read_text()
    _stop(second)
    [published] = [r for r in load.read_runs(project / "results") if r.manifest["environment"].get("rpc")]
    records = published.records
    lost = [r for r in records if r["status"] == "run_failed"]
    assert lost and all("lost" in r["error"] for r in lost)
    after = records.index(lost[-1]) + 1
    assert any(r["status"] == "ok" for r in records[after:]), "the run did not go on after the loss"
    assert all(r["case"]["via"] == f"rpc:{KEY}" for r in records)
    env = published.manifest["environment"]
    assert env["rpc"]["key"] == KEY and env["machine_id"]
    json.dumps(env)


def test_unreachable_tracker_is_a_clear_error(project):
    port = _free_port()
    with pytest.raises(ReportError) as err:
        retest.retest(project, "quick", only=("gemm_tvm",), rpc_tracker=f"127.0.0.1:{port}", rpc_key=KEY)
    assert str(err.value).startswith(f"RPC tracker 127.0.0.1:{port} unreachable")


def test_no_device_for_the_key(project, tracker):
    with pytest.raises(ReportError) as err:
        retest.retest(project, "quick", only=("gemm_tvm",), rpc_tracker=tracker, rpc_key="no-such-board")
    assert "no device registered with key 'no-such-board'" in str(err.value)


def test_rpc_options_are_checked(project):
    with pytest.raises(ReportError, match="--rpc-tracker needs --rpc-key"):
        retest.retest(project, "quick", rpc_tracker="127.0.0.1:1")
    with pytest.raises(ReportError, match="--rpc-key needs --rpc-tracker"):
        retest.retest(project, "quick", rpc_key=KEY)


@pytest.mark.slow
def test_metaschedule_measures_on_the_device_through_rpc(project, tracker, tmp_path):
    """A tiny GEMM tuned with MetaSchedule's RPCRunner; the best kernel is checked and timed on the device."""
    path = project / "experiments" / "configs" / "quick.yaml"
    config = yaml.safe_load(path.read_text(encoding="utf-8"))
    config["families"]["gemm_tvm"].update(
        shapes=[[32, 32, 32]], stages=["baseline"], threads=[1], repeat=3, min_repeat=3, min_sample_s=0.005,
        budget_s=1, tune={"trials": 4, "shapes": [[32, 32, 32]], "threads": [1], "rpc_timeout_s": 60})
    path.write_text(yaml.dump(config, sort_keys=False), encoding="utf-8")
    server = _server(project, tmp_path, tracker, "server-tune")
    try:
        out = subprocess.run([sys.executable, "-m", "reportgen.cli", "--root", str(project), "retest",
                              "--only", "gemm_tvm", "--rpc-tracker", tracker, "--rpc-key", KEY],
                             cwd=project, capture_output=True, text=True, timeout=300)
    finally:
        _stop(server)
    assert out.returncode == 0, out.stdout + out.stderr
    [published] = [r for r in load.read_runs(project / "results") if r.manifest["environment"].get("rpc")]
    [tuned] = [r for r in published.records if r["case"]["stage"] == "autotuned"]
    assert tuned["status"] == "ok", tuned.get("error")
    assert tuned["case"]["via"] == f"rpc:{KEY}" and tuned["extra"]["tuned"] is True
    assert tuned["extra"]["runner"] == "RPCRunner" and tuned["extra"]["trials_done"] > 0
    assert tuned["check"]["passed"] is True and tuned["samples"]
    # the per-trial log kept with the database says which runner measured each trial
    work_dir = published.path / "artifacts" / "gemm_tvm" / "tune-32x32x32-t1"
    trials = [json.loads(line) for line in (work_dir / "ladder_trials.jsonl").read_text().splitlines()]
    assert trials and all(t["runner"] == "RPCRunner" for t in trials)
    assert sum(1 for t in trials if t["run_secs"]) > 0
    assert (work_dir / "database_tuning_record.json").read_text().strip()


def test_a_trial_without_a_device_fails_fast_not_hangs(tracker, tmp_path):
    """MetaSchedule's RPC runner pool has no timeout: our session factory must fail a trial whose
    device is gone (run_failed), and a tuning where every trial failed is a failed record."""
    from tvm.s_tir import meta_schedule as ms

    from experiments import gemm_tvm, remote
    from experiments.gemm import ms_tune, tvm_ladder
    runner = remote.tuning_runner(tracker, "gone-board", threads=1, timeout_s=3)
    args = ms.arg_info.ArgInfo.from_prim_func(tvm_ladder.gemm_prim_func(16, 16, 16))
    [future] = runner.run([ms.runner.RunnerInput(str(tmp_path / "missing.so"), "cpu", args)])
    result = future.result()
    assert result.run_secs is None and "no device registered with key 'gone-board'" in result.error_msg
    assert ms_tune.classify_failure(None, result.error_msg) == "run_failed"
    assert gemm_tvm._all_failed_status({"build_failed": 0, "run_failed": 2, "timeout": 0}) == "run_failed"
    assert gemm_tvm._all_failed_status({"build_failed": 0, "run_failed": 0, "timeout": 2}) == "timeout"


def test_a_trial_waiting_on_a_busy_device_times_out(project, tracker, tmp_path):
    """The only device is held by another session: the trial's request is bounded, category timeout."""
    from tvm.s_tir import meta_schedule as ms

    from experiments import remote
    from experiments.gemm import ms_tune, tvm_ladder
    server = _server(project, tmp_path, tracker, "server-busy")
    holder = remote.Device(tracker, KEY)
    try:
        holder.session()
        runner = remote.tuning_runner(tracker, KEY, threads=1, timeout_s=3)
        args = ms.arg_info.ArgInfo.from_prim_func(tvm_ladder.gemm_prim_func(16, 16, 16))
        [future] = runner.run([ms.runner.RunnerInput(str(tmp_path / "missing.so"), "cpu", args)])
        result = future.result()
    finally:
        holder.drop()
        _stop(server)
    assert result.run_secs is None and "Timeout" in result.error_msg
    assert ms_tune.classify_failure(None, result.error_msg) == "timeout"
