"""A peer engine timed in a process of its own.

ONNX Runtime's and TVM's thread pools both keep spinning for tens of milliseconds after a call;
timed in one process, each slows the other (up to 1.9x on 2 cores).  So the e2e family checks a
peer's logits in its own process (correctness needs the reference there) but times it here: a
fresh interpreter that loads the same model file, runs the same single-call sampling
(:func:`experiments.harness.sample_requests` with the run's parameters) on the same input, and
writes the samples as JSON.  No TVM is imported in this process.

    python -m experiments.e2e.peer SPEC.json OUT.json
    python -m experiments.e2e.peer --serve SPEC.json    (Server: paired blocks with TVM)

SPEC: {"engine": "ort" | "tflite", "model": path, "input": path of an .npy batch, "threads": n,
"params": {"warmup", "repeat", "budget_s", "min_repeat"}}.  OUT: {"samples": [s, ...], "pid",
"engine": runner metadata, "logits_sha256": of the output of the last call}.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

ENGINES = ("ort", "tflite")
KEYS = ("warmup", "repeat", "budget_s", "min_repeat")


def time_in_child(engine: str, model_path, batch: np.ndarray, threads: int, params: dict, workdir) -> dict:
    """Run this module in a child process for one peer; returns its OUT dict (raises with the
    child's last stderr line when it fails)."""
    if engine not in ENGINES:
        raise ValueError(f"peer: engine {engine!r} is not one of {ENGINES}")
    workdir = Path(workdir)
    np.save(workdir / "peer-input.npy", np.ascontiguousarray(batch, dtype=np.float32))
    spec = {"engine": engine, "model": str(model_path), "input": str(workdir / "peer-input.npy"),
            "threads": int(threads), "params": {k: params[k] for k in KEYS}}
    (workdir / "peer-spec.json").write_text(json.dumps(spec), encoding="utf-8")
    out = workdir / "peer-out.json"
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    root = Path(__file__).resolve().parents[2]
    proc = subprocess.run([sys.executable, "-m", "experiments.e2e.peer", str(workdir / "peer-spec.json"), str(out)],
                          cwd=root, env=env, capture_output=True, text=True, timeout=1800)
    if proc.returncode != 0 or not out.exists():
        tail = (proc.stderr.strip().splitlines() or ["no output"])[-1][:300]
        raise RuntimeError(f"peer process for {engine} exited {proc.returncode}: {tail}")
    return json.loads(out.read_text(encoding="utf-8"))


class Server:
    """A peer kept alive in its own process for paired timing: ``run(n)`` times ``n`` single calls
    there and returns their seconds.  Started by :func:`serve`; ``close()`` ends it."""

    def __init__(self, engine: str, model_path, batch: np.ndarray, threads: int, workdir):
        if engine not in ENGINES:
            raise ValueError(f"peer: engine {engine!r} is not one of {ENGINES}")
        workdir = Path(workdir)
        np.save(workdir / "peer-input.npy", np.ascontiguousarray(batch, dtype=np.float32))
        spec = {"engine": engine, "model": str(model_path), "input": str(workdir / "peer-input.npy"),
                "threads": int(threads)}
        (workdir / "peer-spec.json").write_text(json.dumps(spec), encoding="utf-8")
        env = dict(os.environ, OMP_NUM_THREADS=str(threads))
        root = Path(__file__).resolve().parents[2]
        self.proc = subprocess.Popen([sys.executable, "-m", "experiments.e2e.peer", "--serve",
                                      str(workdir / "peer-spec.json")], cwd=root, env=env, text=True,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        hello = json.loads(self._line())
        self.pid, self.engine = hello["pid"], hello["engine"]

    def _line(self) -> str:
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"peer server exited ({self.proc.poll()})")
        return line

    def run(self, calls: int) -> list[float]:
        self.proc.stdin.write(f"run {int(calls)}\n")
        self.proc.stdin.flush()
        return [float(s) for s in json.loads(self._line())["samples"]]

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                self.proc.stdin.write("quit\n")
                self.proc.stdin.flush()
                self.proc.wait(timeout=30)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _serve(spec_path) -> int:
    """The server side of :class:`Server`: prepare, say hello, then time ``run N`` requests."""
    import time
    from experiments.e2e import engines
    spec = json.loads(Path(spec_path).read_text(encoding="utf-8"))
    engine, threads = spec["engine"], int(spec["threads"])
    if engine not in ENGINES:
        raise SystemExit(f"{spec_path}: engine: {engine!r} is not one of {ENGINES}")
    batch = np.load(spec["input"])
    runner = engines.prepare_ort(spec["model"], threads) if engine == "ort" \
        else engines.prepare_tflite(spec["model"], threads)
    runner(batch)   # the first call allocates
    print(json.dumps({"pid": os.getpid(), "engine": runner.metadata()}), flush=True)
    for line in sys.stdin:
        words = line.split()
        if not words or words[0] == "quit":
            break
        samples = []
        for _ in range(max(0, min(int(words[1]), 100000))):
            t0 = time.perf_counter()
            runner(batch)
            samples.append(time.perf_counter() - t0)
        print(json.dumps({"samples": samples}), flush=True)
    return 0


def paired_blocks(call, server: Server, blocks: int, calls: int, gap_s: float = 0.1) -> dict:
    """``call`` (timed here) and the peer (timed in its process) in alternating blocks of ``calls``
    single calls, the order flipped every block, ``gap_s`` of quiet before each block (the other
    side's thread pool stops spinning).  Drift of the machine hits both sides alike; the ratio of
    each block's medians is one paired observation."""
    import time
    ours, theirs, ratios = [], [], []
    for k in range(blocks):
        got = {}
        for side in (("ours", "peer") if k % 2 == 0 else ("peer", "ours")):
            time.sleep(gap_s)
            if side == "peer":
                got[side] = server.run(calls)
            else:
                call()   # one warm-up call after the pause
                block = []
                for _ in range(calls):
                    t0 = time.perf_counter()
                    call()
                    block.append(time.perf_counter() - t0)
                got[side] = block
        ours += got["ours"]
        theirs += got["peer"]
        ratios.append(float(np.median(got["ours"]) / np.median(got["peer"])))
    return {"samples": ours, "peer_samples": theirs, "block_ratios": ratios, "blocks": blocks,
            "calls_per_block": calls, "gap_s": gap_s}


def timing_process(out: dict) -> dict:
    """What a record says of a peer timed by :func:`time_in_child` (its ``out``): which process."""
    return {"own_process": True, "pid": out["pid"], "parent_pid": os.getpid(),
            "why": "thread pools of the engines in one process slow each other: a peer is checked "
                   "in the family's process and timed in a fresh process of its own on the same model file and input",
            "logits_sha256": out["logits_sha256"]}


def main(argv=None) -> int:
    from experiments import harness
    from experiments.e2e import engines
    args = argv or sys.argv[1:]
    if args and args[0] == "--serve":
        return _serve(args[1])
    spec_path, out_path = args[:2]
    spec = json.loads(Path(spec_path).read_text(encoding="utf-8"))
    engine, threads = spec["engine"], int(spec["threads"])
    if engine not in ENGINES:
        raise SystemExit(f"{spec_path}: engine: {engine!r} is not one of {ENGINES}")
    params = {k: spec["params"][k] for k in KEYS}
    batch = np.load(spec["input"])
    runner = engines.prepare_ort(spec["model"], threads) if engine == "ort" \
        else engines.prepare_tflite(spec["model"], threads)
    last = {}

    def call():
        last["out"] = runner(batch)

    samples = harness.sample_requests(call, params)
    Path(out_path).write_text(json.dumps({
        "samples": [float(s) for s in samples], "pid": os.getpid(), "engine": runner.metadata(),
        "logits_sha256": hashlib.sha256(np.ascontiguousarray(last["out"], np.float32).tobytes()).hexdigest()}),
        encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
