"""An engine timed in a process of its own.

ONNX Runtime's and TVM's thread pools both keep spinning for tens of milliseconds after a call;
timed in one process, each slows the other (up to 1.9x on 2 cores).  And the family's own process
is no clean place either: it has built Keras models and checked every engine, and a TVM network
timed there ran slower than the same library loaded in a fresh interpreter.  So every engine the
e2e and int8 families compare is checked in the family's process (correctness needs the reference
there) but timed here: a fresh interpreter that loads the same model file -- an ONNX or TFLite
model, or the TVM library the family compiled and exported -- runs the same single-call sampling
(:func:`experiments.harness.sample_requests` with the run's parameters) on the same input, and
writes the samples as JSON.  This process imports only the engine it times.

    python -m experiments.e2e.peer SPEC.json OUT.json
    python -m experiments.e2e.peer --serve SPEC.json    (Server: paired blocks of two engines)

SPEC: {"engine": "ort" | "tflite" | "tvm", "model": path, "input": path of an .npy batch, "threads": n,
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

from study import stats as study_stats, work

WARM_S = 1.0   # seconds of untimed calls a server makes before it says hello
ENGINES = ("ort", "tflite", "tvm")   # "tvm": a library exported by export_library
KEYS = ("warmup", "repeat", "budget_s", "min_repeat")


def _runner(engine: str, model: str, threads: int):
    """The engine's runner in this process (TVM: the exported library on a fresh VM)."""
    from experiments.e2e import engines
    if engine == "ort":
        return engines.prepare_ort(model, threads)
    if engine == "tflite":
        return engines.prepare_tflite(model, threads)
    import tvm
    return engines.prepare_tvm(tvm.runtime.load_module(model), threads, "exported")


def _env(engine: str, threads: int) -> dict:
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    if engine == "tvm":
        env["TVM_NUM_THREADS"] = str(threads)
    return env


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
    env = _env(engine, threads)
    root = Path(__file__).resolve().parents[2]
    proc = subprocess.run([sys.executable, "-m", "experiments.e2e.peer", str(workdir / "peer-spec.json"), str(out)],
                          cwd=root, env=env, capture_output=True, text=True, timeout=1800)
    if proc.returncode != 0 or not out.exists():
        tail = (proc.stderr.strip().splitlines() or ["no output"])[-1][:300]
        raise RuntimeError(f"peer process for {engine} exited {proc.returncode}: {tail}")
    return json.loads(out.read_text(encoding="utf-8"))


class Server:
    """An engine kept alive in its own process for paired timing: ``run(n)`` makes one untimed
    call, then times ``n`` single calls there and returns their seconds.  ``close()`` ends it.
    ``name`` keeps the files of two servers in one folder apart."""

    def __init__(self, engine: str, model_path, batch: np.ndarray, threads: int, workdir, name: str = "peer"):
        if engine not in ENGINES:
            raise ValueError(f"peer: engine {engine!r} is not one of {ENGINES}")
        workdir = Path(workdir)
        np.save(workdir / f"{name}-input.npy", np.ascontiguousarray(batch, dtype=np.float32))
        spec = {"engine": engine, "model": str(model_path), "input": str(workdir / f"{name}-input.npy"),
                "threads": int(threads)}
        (workdir / f"{name}-spec.json").write_text(json.dumps(spec), encoding="utf-8")
        root = Path(__file__).resolve().parents[2]
        self.proc = subprocess.Popen([sys.executable, "-m", "experiments.e2e.peer", "--serve",
                                      str(workdir / f"{name}-spec.json")], cwd=root, env=_env(engine, threads), text=True,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        hello = json.loads(self._line())
        self.pid, self.engine, self.warm_calls = hello["pid"], hello["engine"], hello.get("warm_calls", 0)

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
    spec = json.loads(Path(spec_path).read_text(encoding="utf-8"))
    engine, threads = spec["engine"], int(spec["threads"])
    if engine not in ENGINES:
        raise SystemExit(f"{spec_path}: engine: {engine!r} is not one of {ENGINES}")
    batch = np.load(spec["input"])
    runner = _runner(engine, spec["model"], threads)
    runner(batch)   # the first call allocates
    warm, t_end = 0, time.perf_counter() + WARM_S
    while time.perf_counter() < t_end:   # a fresh process: its first seconds of calls are not timed
        runner(batch)
        warm += 1
    print(json.dumps({"pid": os.getpid(), "engine": runner.metadata(), "warm_calls": warm}), flush=True)
    for line in sys.stdin:
        words = line.split()
        if not words or words[0] == "quit":
            break
        samples = []
        runner(batch)   # one untimed call after the pause, on either side of a pair
        for _ in range(max(0, min(int(words[1]), 100000))):
            t0 = time.perf_counter()
            runner(batch)
            samples.append(time.perf_counter() - t0)
        print(json.dumps({"samples": samples}), flush=True)
    return 0


def paired_blocks(ours: Server, peer: Server, blocks: int, calls: int, gap_s: float = 0.1) -> dict:
    """Two engines, each in its own process, timed in alternating blocks of ``calls`` single calls
    (each block after one untimed call), the order flipped every block, ``gap_s`` of quiet before
    each block (the other side's thread pool stops spinning).  Drift of the machine hits both
    sides alike; the ratio of each block's medians is one paired observation."""
    import time
    got_ours, got_peer, steal = [], [], {"ours": [], "peer": []}
    for k in range(blocks):
        got = {}
        for side, server in (((("ours", ours), ("peer", peer)) if k % 2 == 0 else (("peer", peer), ("ours", ours)))):
            time.sleep(gap_s)
            before = steal_ticks()
            got[side] = server.run(calls)
            after = steal_ticks()
            steal[side].append(after - before if None not in (before, after) else None)
        if not len(got["ours"]) == len(got["peer"]) == calls:
            raise RuntimeError(f"block {k}: {len(got['ours'])} and {len(got['peer'])} samples, not {calls} each")
        got_ours += got["ours"]
        got_peer += got["peer"]
    # each block's ratio by the study's rule, which the report recomputes from the samples
    ratios = study_stats.block_ratios(got_ours, got_peer, calls)
    return {"samples": got_ours, "peer_samples": got_peer, "block_ratios": ratios, "blocks": blocks,
            "calls_per_block": calls, "gap_s": gap_s, "pid": ours.pid, "peer_pid": peer.pid,
            "warm_calls": [ours.warm_calls, peer.warm_calls], "warm_s": WARM_S,
            # CPU time the hypervisor gave to others during each block (USER_HZ ticks of /proc/stat, all
            # CPUs): a block with steal was timed on a machine that was not all ours
            "steal_ticks": steal["ours"], "peer_steal_ticks": steal["peer"]}


def steal_ticks():
    """The machine's cumulative 'steal' time (ticks of /proc/stat's cpu line), or None where the
    kernel does not report it."""
    try:
        with open("/proc/stat", encoding="ascii") as fh:
            fields = fh.readline().split()
        return int(fields[8]) if fields and fields[0] == "cpu" and len(fields) > 8 else None
    except (OSError, ValueError):
        return None


paired_summary = study_stats.paired_summary
"""Medians of both sides of :func:`paired_blocks`, the median block ratio and its bootstrap 95 % interval
(the rule is the study's: the report recomputes it from the record's samples)."""


PAIRED_TRIES = 3
"""How many times the blocks are timed while the peer's median is beyond work.PAIRED_PEER_SPREAD of its own
timing in the run (a machine busy with other work: 7.6x, which the build refuses as a forged peer)."""


def paired_with(library, peer: str, peer_model, batch: np.ndarray, threads: int, blocks: int, calls: int,
                workdir, own_p50_s=None) -> dict:
    """A TVM library and a peer engine (``ort`` or ``tflite`` on ``peer_model``), each served from a
    process of its own, timed by :func:`paired_blocks` and summarized (:func:`paired_summary`).  With the
    peer's own median of the run (``own_p50_s``), the blocks are timed again (PAIRED_TRIES in all) while the
    peer's paired median is beyond work.PAIRED_PEER_SPREAD of it; still beyond, the case fails, named."""
    with Server("tvm", library, batch, threads, workdir, name="ours") as ours, \
            Server(peer, peer_model, batch, threads, workdir) as theirs:
        for tries in range(1, PAIRED_TRIES + 1):
            got = paired_blocks(ours, theirs, blocks, calls)
            summary = paired_summary(got)
            spread = summary["peer_p50_s"] / own_p50_s if own_p50_s else 1.0
            if 1 / work.PAIRED_PEER_SPREAD <= spread <= work.PAIRED_PEER_SPREAD:
                break
        else:
            raise RuntimeError(f"the paired {peer}'s median stayed {spread:.2f}x its own timing of the run "
                               f"({own_p50_s * 1e3:.4g} ms) over {PAIRED_TRIES} tries (at most "
                               f"{work.PAIRED_PEER_SPREAD:g}x): the machine is too busy for a paired timing")
    return {**got, **summary, "tries": tries}


def paired_peer(peer_engine: str, paired: dict) -> dict:
    """What a record keeps of :func:`paired_with`'s result (its ``extra.paired_peer``)."""
    return {"engine": peer_engine, **paired,
            "why": f"the rule engine and {peer_engine}, each in a process of its own, timed in alternating "
                   "blocks, so that the machine's drift hits both alike"}


def paired_line(case_id: str, peer_engine: str, paired: dict) -> str:
    """The context line that prints a paired timing's medians and ratio (study.citation.context: the
    case's own median is its summary line's; the ratio is the median block ratio with its 95 % interval)."""
    from study import citation
    return citation.context(paired_with=peer_engine, blocks=int(paired["blocks"]),
                            calls_per_block=int(paired["calls_per_block"]), tvm_p50_ms=paired["p50_s"] * 1e3,
                            peer_p50_ms=paired["peer_p50_s"] * 1e3, ratio=float(paired["ratio"]),
                            ratio_lo=float(paired["ratio_ci"][0]), ratio_hi=float(paired["ratio_ci"][1]))


def timing_process(out: dict) -> dict:
    """What a record says of an engine timed by :func:`time_in_child` (its ``out``): which process."""
    return {"own_process": True, "pid": out["pid"], "parent_pid": os.getpid(),
            "why": "engines in one process slow each other (thread pools, the family's own imports): an engine is "
                   "checked in the family's process and timed in a fresh process of its own on the same model file "
                   "and input",
            "logits_sha256": out.get("logits_sha256")}


def main(argv=None) -> int:
    from experiments import harness
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
    runner = _runner(engine, spec["model"], threads)
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
