"""The fifty-fifth round of the hostile corpus (issue #29).

Data set (5 of 10 probes failed; two fixed here, two left declared in the issue's note): ORT's conv
nodes multiplied by 40 made TVM '0.03x' of ORT on that convolution while the profile added up to 9.7x
the very call it profiles (a kernel or node profile adds up to within 3x of its record's median call;
the committed ones 0.72x-1.64x); a tvm_d record at another thread count took a point of the tuning
projection (the points are of the current record's thread count).

Site set (3 of 11 failed): the coverage check's archive inputs (items, their requirements, passages,
the content map's rules, formulas) were untyped (a 5 ended the build in an internal TypeError); a
docs page's front matter values were untyped (search: 5 was blamed on mkdocs.yml); a cache write cut
short printed jieba's traceback and kept partial temporaries in the cache folder.

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
from test_hostile_round4 import _expect

MUTATIONS = {}
SPECIAL = {case: None for case in ("profile_latency", "projection_threads", "archive_shapes", "front_matter_values",
                                   "cache_partial_writes")}


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


def test_the_coverage_archive_is_typed(tmp_path):
    import pytest
    import yaml
    from reportgen.data import seed
    from reportgen.errors import ReportError
    item = {"id": "x", "article": "a", "content": "c", "seed_sections": ["1"], "page": "p.md", "anchor": "a",
            "require": {"terms": 5}}
    (tmp_path / "coverage.yaml").write_text(yaml.safe_dump({"items": [item], "rules": []}), encoding="utf-8")
    with pytest.raises(ReportError) as err:
        seed.read_items(tmp_path)
    assert "items[0].require.terms: expected a list of texts" in str(err.value)
    assert _expect("archive_shapes") in str(err.value)
    passage = {"id": "p", "kind": "prose", "page": "p.md", "facts": 5}
    (tmp_path / "content_map.yaml").write_text(yaml.safe_dump({"passages": [passage], "rules": {}}), encoding="utf-8")
    with pytest.raises(ReportError) as err:
        seed.read_content_map(tmp_path)
    assert "passages[0].facts: expected a list of texts" in str(err.value)
    (tmp_path / "code.yaml").write_text(yaml.safe_dump({"snippets": [], "formulas": [{"id": "f", "text": 5}]}),
                                        encoding="utf-8")
    with pytest.raises(ReportError) as err:
        seed.read_code(tmp_path)
    assert "formulas[0].text: expected a text" in str(err.value)


def test_front_matter_values_are_of_the_theme_s_shapes(tmp_path):
    from reportgen.data import plainfile
    page = tmp_path / "x.md"
    for front, refused in (("search: 5", True), ("hide: 5", True), ("search: {boost: .inf}", True), ("title: [a]", True),
                           ("hide: [toc]", False), ("search: {exclude: true}", False), ("title: ok", False)):
        page.write_text(f"---\n{front}\n---\n# x\n", encoding="utf-8")
        said = plainfile.front_matter_problem("docs/x.md", page)
        assert (said is not None) == refused, (front, said)
        assert not refused or _expect("front_matter_values") in said
    page.write_text('---\ndescription: "0;url=https://evil.example/\\" http-equiv=\\"refresh"\n---\n# x\n',
                    encoding="utf-8")
    assert "markup in a value" in plainfile.front_matter_problem("docs/x.md", page)   # a quote leaves the meta tag


def test_a_cache_write_cut_short_leaves_nothing(tmp_path, monkeypatch):
    import inspect
    import os
    from reportgen.data import load
    from reportgen.publish import wordsplit
    real = os.replace
    monkeypatch.setattr(os, "replace", lambda *_a: (_ for _ in ()).throw(OSError(28, "No space left on device")))
    load._write_cache(tmp_path / "hashes" / "run.json", "x" * 1000)
    monkeypatch.setattr(os, "replace", real)
    assert [p.name for p in (tmp_path / "hashes").iterdir()] == []
    assert _expect("cache_partial_writes") in inspect.getsource(load._write_cache)
    assert "jieba.setLogLevel(logging.CRITICAL)" in inspect.getsource(wordsplit.prepare)
