"""Engines timed in a process of their own (experiments/e2e/peer.py): a TVM library exported by
the family, loaded in a fresh interpreter, gives the same output there; two servers pair their
blocks symmetrically.  No timing assertions: only counts, shapes and outputs."""
import hashlib

import numpy as np
import pytest

tvm = pytest.importorskip("tvm")


@pytest.fixture(scope="module")
def runner():
    from tvm.script import relax as R

    from experiments.e2e import engines

    @tvm.script.ir_module
    class Tiny:
        @R.function
        def main(x: R.Tensor((1, 4, 4, 3), "float32")):
            with R.dataflow():
                y = R.reshape(x, (1, 48))
                z = R.multiply(y, R.const(2.0, "float32"))
                R.output(z)
            return z

    executable = tvm.compile(Tiny, tvm.target.Target({"kind": "llvm"}))
    return engines.prepare_tvm(executable, 1, "test")


def _batch():
    return np.arange(48, dtype=np.float32).reshape(1, 4, 4, 3)


def test_a_tvm_engine_is_timed_in_a_child_on_its_exported_library(runner, tmp_path):
    import os

    from experiments.e2e import engines, peer
    library = engines.export(runner, tmp_path)
    params = {"warmup": 1, "repeat": 5, "budget_s": 1.0, "min_repeat": 3}
    out = peer.time_in_child("tvm", library, _batch(), 1, params, tmp_path)
    assert out["pid"] != os.getpid()
    assert len(out["samples"]) >= 3 and all(s > 0 for s in out["samples"])
    here = np.ascontiguousarray(runner(_batch()), np.float32)
    assert out["logits_sha256"] == hashlib.sha256(here.tobytes()).hexdigest()
    assert peer.timing_process(out)["own_process"] is True


def test_two_servers_pair_their_blocks_in_alternating_order(runner, tmp_path):
    from experiments.e2e import engines, peer
    library = engines.export(runner, tmp_path)
    with peer.Server("tvm", library, _batch(), 1, tmp_path, name="ours") as ours, \
            peer.Server("tvm", library, _batch(), 1, tmp_path, name="theirs") as theirs:
        assert ours.pid != theirs.pid
        got = peer.paired_blocks(ours, theirs, blocks=3, calls=4, gap_s=0.0)
    assert got["blocks"] == 3 and len(got["block_ratios"]) == 3
    assert len(got["samples"]) == len(got["peer_samples"]) == 12
    assert got["pid"] != got["peer_pid"]
    assert got["warm_calls"][0] >= 1 and got["warm_calls"][1] >= 1   # each server warmed before the first block
    assert len(got["steal_ticks"]) == len(got["peer_steal_ticks"]) == 3
    assert all(t is None or t >= 0 for t in got["steal_ticks"] + got["peer_steal_ticks"])


def test_export_refuses_a_runner_without_an_executable():
    from experiments.e2e import engines
    bare = engines.Runner(lambda b: b, "ort", "0", 1)
    with pytest.raises(ValueError, match="no TVM executable"):
        engines.export(bare, ".")


def test_an_unknown_engine_is_refused_before_any_process_starts(tmp_path):
    from experiments.e2e import peer
    with pytest.raises(ValueError, match="not one of"):
        peer.time_in_child("onnxruntime-gpu", tmp_path / "m", _batch(), 1, {}, tmp_path)
