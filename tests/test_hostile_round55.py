"""The fifty-fifth round of the hostile corpus (issue #29).

Data set (5 of 10 probes failed; two fixed here, two left declared in the issue's note): ORT's conv
nodes multiplied by 40 made TVM '0.03x' of ORT on that convolution while the profile added up to 9.7x
the very call it profiles (a kernel or node profile adds up to within 3x of its record's median call;
the committed ones 0.72x-1.64x); a tvm_d record at another thread count took a point of the tuning
projection (the points are of the current record's thread count).

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
from test_hostile_round4 import _expect

MUTATIONS = {}
SPECIAL = {case: None for case in ("profile_latency", "projection_threads")}


def test_a_profile_adds_up_to_its_own_call():
    from study import work
    rows = [{"node": f"n{i}", "op": "Conv", "inputs": [[1]], "outputs": [[1]], "seconds": s}
            for i, s in enumerate((4e-3, 3e-3, 1e-3))]
    rec = {"stats": {"p50": 8.5e-3}, "extra": {"node_profile": rows}}
    assert work._profile_latency_problems(rec) == []
    for factor in (40, 1 / 40):
        forged = {"stats": {"p50": 8.5e-3}, "extra": {"node_profile": [dict(r, seconds=r["seconds"] * factor)
                                                                       for r in rows]}}
        said = work._profile_latency_problems(forged)
        assert said and said[0].startswith("extra.node_profile:") and _expect("profile_latency") in said[0]


def test_the_projection_s_points_are_of_one_thread_count(monkeypatch):
    import inspect
    from types import SimpleNamespace
    from reportgen.data import campaigns

    def run(run_id, threads, p50):
        rec = {"id": f"e2e/model=resnet18_v1/size=224/engine=tvm_d/batch=1/threads={threads}", "experiment": "e2e",
               "status": "ok", "case": {"model": "resnet18_v1", "engine": "tvm_d", "batch": 1, "threads": threads},
               "stats": {"p50": p50}, "extra": {"tuning": {"cumulative_trials": 268}}}
        return SimpleNamespace(run_id=run_id, records=[rec], manifest={"environment": {"machine_id": "m"}})
    runs = [run("r1", 2, 0.040), run("r2", 1, 0.076)]
    monkeypatch.setattr(campaigns.merge, "runs_of", lambda rs, mid: rs)
    assert [p[3] for p in campaigns.measured_points(runs, "m", "resnet18_v1")] == ["r2"]   # keyed by trials alone
    assert [p[3] for p in campaigns.measured_points(runs, "m", "resnet18_v1", threads=2)] == ["r1"]
    assert _expect("projection_threads") in inspect.getdoc(campaigns.measured_points)
