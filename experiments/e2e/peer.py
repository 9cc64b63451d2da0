"""A peer engine timed in a process of its own.

ONNX Runtime's and TVM's thread pools both keep spinning for tens of milliseconds after a call;
timed in one process, each slows the other (up to 1.9x on 2 cores).  So the e2e family checks a
peer's logits in its own process (correctness needs the reference there) but times it here: a
fresh interpreter that loads the same model file, runs the same single-call sampling
(:func:`experiments.harness.sample_requests` with the run's parameters) on the same input, and
writes the samples as JSON.  No TVM is imported in this process.

    python -m experiments.e2e.peer SPEC.json OUT.json

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


def main(argv=None) -> int:
    from experiments import harness
    from experiments.e2e import engines
    spec_path, out_path = (argv or sys.argv[1:])[:2]
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
