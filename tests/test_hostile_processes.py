"""Hostile faults, process side: a killed or terminated retest leaves no process and no litter."""
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import psutil
import pytest
import yaml

from reportgen.commands import retest

ROOT = Path(__file__).resolve().parents[1]

FAMILY = """
    import os, subprocess, sys, time
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    with open(os.environ["PIDS_FILE"] + ".part", "w") as fh:
        fh.write(f"{os.getppid()} {os.getpid()} {child.pid}\\n")
    os.rename(os.environ["PIDS_FILE"] + ".part", os.environ["PIDS_FILE"])
    print("[fake] sleeping", flush=True)
    time.sleep(120)
"""


@pytest.fixture
def mini_root(tmp_path, monkeypatch):
    """A project with one fake family that starts a sleeping grandchild."""
    root = tmp_path / "mini"
    (root / "experiments" / "configs").mkdir(parents=True)
    (root / "experiments" / "__init__.py").write_text("", encoding="utf-8")
    (root / "experiments" / "configs" / "quick.yaml").write_text(yaml.dump(
        {"profile": "quick", "families": {"fake": {}}}), encoding="utf-8")
    (root / "experiments" / "fake_family.py").write_text(
        "from study.family import Family\n"
        "FAMILY = Family(name='fake', timeout_s={'quick': 300, 'standard': 300, 'full': 300})\n"
        + textwrap.dedent(FAMILY), encoding="utf-8")
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    monkeypatch.setenv("PIDS_FILE", str(tmp_path / "pids"))
    return root


def _start(root, tmp_path):
    proc = subprocess.Popen([sys.executable, "-m", "reportgen.cli", "--root", str(root), "retest", "--only", "fake"],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 60
    while time.time() < deadline and not (tmp_path / "pids").exists():
        if proc.poll() is not None:
            pytest.fail(f"retest ended early: {proc.communicate()}")
        time.sleep(0.1)
    guard, family, grandchild = map(int, (tmp_path / "pids").read_text().split())
    return proc, [guard, family, grandchild]


def _alive(pids):
    out = []
    for pid in pids:
        try:
            if psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
                out.append(pid)
        except psutil.NoSuchProcess:
            pass
    return out


def _gone_within(pids, seconds):
    deadline = time.time() + seconds
    while time.time() < deadline and _alive(pids):
        time.sleep(0.05)
    return _alive(pids)


def test_kill_9_of_retest_leaves_no_process(mini_root, tmp_path):
    proc, pids = _start(mini_root, tmp_path)
    try:
        proc.kill()
        proc.wait()
        assert _gone_within(pids, 2.0) == []
    finally:
        for pid in _alive(pids):
            os.kill(pid, signal.SIGKILL)


def test_sigterm_of_retest_kills_family_and_says_so(mini_root, tmp_path):
    proc, pids = _start(mini_root, tmp_path)
    try:
        proc.send_signal(signal.SIGTERM)
        _out, err = proc.communicate(timeout=30)
        assert proc.returncode == 1
        assert "retest: stopped by signal SIGTERM" in err and "Traceback" not in err
        assert "nothing was published" in err
        assert _gone_within(pids, 2.0) == []
        runs = mini_root / "results" / "runs"
        assert [p.name for p in runs.iterdir() if not p.name.startswith(".")] == []
    finally:
        for pid in _alive(pids):
            os.kill(pid, signal.SIGKILL)


FINISHING_FAMILY = """
    import json, os, sys, time
    spec = json.load(open(sys.argv[sys.argv.index("--spec") + 1]))
    print("[fake] fake/n=1: p50 1.1 ms over 3 samples", flush=True)
    print("[fake] still going", flush=True)
    record = json.loads(os.environ["RECORD_JSON"])
    record.update(run_id=spec["run_id"], log={"path": spec["log_ref"], "lines": [1, 1], "sha256": "pending"})
    with open(spec["records_file"], "a") as fh:
        fh.write(json.dumps(record) + "\\n")
        fh.write('{"id": "cut off mid-wri')   # the stop lands in the middle of the next record
    with open(os.environ["PIDS_FILE"] + ".part", "w") as fh:
        fh.write(f"{os.getppid()} {os.getpid()} {os.getpid()}\\n")
    os.rename(os.environ["PIDS_FILE"] + ".part", os.environ["PIDS_FILE"])
    time.sleep(120)
"""


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT])
def test_a_stop_publishes_the_cases_a_family_finished(mini_root, tmp_path, monkeypatch, stop):
    """Hours of tuning are not lost to a stop: finished records are published, the family says stopped."""
    from helpers import record
    from reportgen.data import load

    (mini_root / "experiments" / "fake_family.py").write_text(
        "from study.family import Family\n"
        "FAMILY = Family(name='fake', timeout_s={'quick': 300, 'standard': 300, 'full': 300})\n"
        + textwrap.dedent(FINISHING_FAMILY), encoding="utf-8")
    (mini_root / "experiments" / "later_family.py").write_text(
        "from study.family import Family\n"
        "FAMILY = Family(name='later', timeout_s={'quick': 300, 'standard': 300, 'full': 300})\n",
        encoding="utf-8")
    (mini_root / "experiments" / "configs" / "quick.yaml").write_text(yaml.dump(
        {"profile": "quick", "families": {"fake": {}, "later": {}}}), encoding="utf-8")
    monkeypatch.setenv("RECORD_JSON", json.dumps(record(case_id="fake/n=1", experiment="fake")))
    proc = subprocess.Popen([sys.executable, "-m", "reportgen.cli", "--root", str(mini_root), "retest"],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 60
    while time.time() < deadline and not (tmp_path / "pids").exists():
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.1)
    proc.send_signal(stop)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 1, (out, err)
    assert f"retest: stopped by signal {stop.name}" in err and "Traceback" not in err
    runs = [p for p in (mini_root / "results" / "runs").iterdir() if not p.name.startswith(".")]
    assert len(runs) == 1 and f"published results/runs/{runs[0].name} with the 1 case fake had finished; " \
                               f"not run: later" in err
    manifest = json.loads((runs[0] / "run.json").read_text())
    assert manifest["experiments"]["fake"]["status"] == "stopped"
    assert "later" not in manifest["experiments"]
    recs = [json.loads(line) for line in (runs[0] / "records.jsonl").read_text().splitlines()]
    assert [(r["id"], r["status"]) for r in recs] == [("fake/n=1", "ok"), ("fake/scope=family", "run_failed")]
    torn = len('{"id": "cut off mid-wri')
    assert f"dropped {torn} bytes of a record cut off by the stop" in out
    [published] = load.read_runs(mini_root / "results")   # logs, shas and records all check out
    assert [r["id"] for r in published.records] == ["fake/n=1", "fake/scope=family"]


def test_stale_tmp_folders_are_removed_live_ones_kept(tmp_path, capsys):
    runs = tmp_path / "runs"
    stale = runs / ".tmp-20260101T000000Z-quick-f6ab9f827cfd"
    (stale / "logs").mkdir(parents=True)
    (runs / ".tmp-20260101T000000Z-quick-f6ab9f827cfd.lock").write_text("12345\n")
    live = runs / ".tmp-20260102T000000Z-quick-f6ab9f827cfd"
    live.mkdir()
    fd = retest._hold_lock(retest._lock_path(live))
    try:
        removed = retest.clean_stale(runs)
    finally:
        os.close(fd)
    assert removed == [stale] and not stale.exists() and live.exists()
    assert not (runs / ".tmp-20260101T000000Z-quick-f6ab9f827cfd.lock").exists()
    assert "removed .tmp-20260101T000000Z-quick-f6ab9f827cfd: left by a retest that is no longer running" in capsys.readouterr().out
