"""A paired timing whose peer's median strays from the peer's own timing of the run is timed again, and a case
whose peer stays beyond the bound fails with its reason (a busy machine wrote a record the build refused as a
forged peer, and `make site` stopped)."""
import contextlib

import pytest

from experiments.e2e import peer


def _fake(monkeypatch, peer_medians):
    calls = iter(peer_medians)

    @contextlib.contextmanager
    def server(*_args, **_kwargs):
        yield object()

    def blocks(_ours, _theirs, blocks, calls_per_block):
        m = next(calls)
        n = blocks * calls_per_block
        return {"samples": [0.001] * n, "peer_samples": [m] * n, "block_ratios": [0.001 / m] * blocks,
                "blocks": blocks, "calls_per_block": calls_per_block}
    monkeypatch.setattr(peer, "Server", server)
    monkeypatch.setattr(peer, "paired_blocks", blocks)


def test_the_blocks_are_timed_again_while_the_peer_strays(monkeypatch):
    _fake(monkeypatch, [0.0124, 0.0019])
    got = peer.paired_with("lib", "ort", "m.onnx", None, 2, 3, 4, "/tmp", own_p50_s=0.00163)
    assert got["tries"] == 2 and got["peer_p50_s"] == pytest.approx(0.0019)


def test_a_peer_beyond_the_bound_every_time_fails_the_case(monkeypatch):
    _fake(monkeypatch, [0.0124] * peer.PAIRED_TRIES)
    with pytest.raises(RuntimeError, match="too busy for a paired timing"):
        peer.paired_with("lib", "ort", "m.onnx", None, 2, 3, 4, "/tmp", own_p50_s=0.00163)


def test_without_the_peer_s_own_median_one_timing_stands(monkeypatch):
    _fake(monkeypatch, [0.0124])
    assert peer.paired_with("lib", "ort", "m.onnx", None, 2, 3, 4, "/tmp")["tries"] == 1
