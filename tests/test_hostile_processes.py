"""Hostile faults, process side: a killed or terminated retest leaves no process and no litter."""
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


def test_stale_tmp_folders_are_removed_live_ones_kept(tmp_path, capsys):
    runs = tmp_path / "runs"
    stale = runs / ".tmp-20260101T000000Z-quick-x"
    (stale / "logs").mkdir(parents=True)
    (runs / ".tmp-20260101T000000Z-quick-x.lock").write_text("12345\n")
    live = runs / ".tmp-20260102T000000Z-quick-x"
    live.mkdir()
    fd = retest._hold_lock(retest._lock_path(live))
    try:
        removed = retest.clean_stale(runs)
    finally:
        os.close(fd)
    assert removed == [stale] and not stale.exists() and live.exists()
    assert not (runs / ".tmp-20260101T000000Z-quick-x.lock").exists()
    assert "removed .tmp-20260101T000000Z-quick-x: left by a retest that is no longer running" in capsys.readouterr().out
