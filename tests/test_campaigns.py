"""The campaign projection: a power law through the measured group-D points, or nothing."""
import math
from types import SimpleNamespace

import pytest

from reportgen.data import campaigns


def _run(run_id, trials, p50, machine="m1", engine="tvm_d"):
    rec = {"id": f"e2e/model=resnet18_v1/size=224/engine={engine}/batch=1/threads=2", "experiment": "e2e",
           "status": "ok", "case": {"model": "resnet18_v1", "engine": engine, "batch": 1},
           "stats": {"p50": p50}, "extra": {"tuning": {"cumulative_trials": trials}}}
    env = {"machine_id": machine}
    return SimpleNamespace(run_id=run_id, records=[rec], manifest={"environment": env, "profile": "standard"})


def test_points_follow_the_runs_of_one_machine(monkeypatch):
    runs = [_run("r2", 400, 0.050), _run("r1", 100, 0.080), _run("r3", 800, 0.040, machine="other")]
    monkeypatch.setattr(campaigns.merge, "runs_of", lambda rs, mid: [r for r in rs
                                                                      if r.manifest["environment"]["machine_id"] == mid])
    points = campaigns.measured_points(runs, "m1", "resnet18_v1")
    assert [(p[0], p[1], p[3]) for p in points] == [(100, 0.080, "r1"), (400, 0.050, "r2")]


def test_projection_solves_the_power_law():
    # p50 = 1.0 * trials ** -0.5: 100 -> 0.1 s, 400 -> 0.05 s; 0.025 s needs 1600 trials
    points = [(100, 0.1, "a", "r1"), (400, 0.05, "b", "r2")]
    proj = campaigns.projection(points, 0.025)
    assert proj["exponent"] == pytest.approx(-0.5)
    assert proj["trials"] == pytest.approx(1600)
    assert proj["per_doubling"] == pytest.approx(2 ** -0.5)
    assert proj["factor"] == pytest.approx(2.0)


@pytest.mark.parametrize("points", [
    [(100, 0.1, "a", "r1")],                          # one point: no trend
    [(100, 0.1, "a", "r1"), (100, 0.09, "b", "r2")],  # one trial count
    [(100, 0.1, "a", "r1"), (400, 0.12, "b", "r2")],  # slower with more trials: not converging
])
def test_no_projection_without_a_falling_trend(points):
    assert campaigns.projection(points, 0.02) is None


def test_projection_is_finite_for_real_looking_points():
    proj = campaigns.projection([(148, 0.0723, "a", "r1"), (540, 0.0500, "b", "r2")], 0.0217)
    assert proj is not None and math.isfinite(proj["trials"]) and proj["trials"] > 540
