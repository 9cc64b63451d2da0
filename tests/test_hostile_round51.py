"""The fifty-first round of the hostile corpus (issue #29).

Left from round 50: the paragraph bound on the characters Markdown nests on held, but an unclosed tag
start is scanned for to the page's end, so 20 000 paragraphs of '<a ' (each one within the bound, and
two nested Jinja loops over a placeholder make them from 90 bytes) took 39 s, four times that for twice
as many.  A docs page's front matter could set any key the theme reads (``template`` picks any
template of the theme for the reviewed text): it sets a title, a description, what it hides and
whether search reads it.  An earlier run's flagged group-D timing was a point of the e2e page's tuning
projection, whose figures are flagged only where the current record is.  An own INT8 search's
scheduled and unscheduled kernels were typed, not read back from its trial log.

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
from test_hostile_round4 import _expect

MUTATIONS = {}
SPECIAL = {case: None for case in ("docs_page_nesting", "docs_front_matter_keys", "projection_flagged_point",
                                          "int8_scheduled_count")}


def test_a_docs_page_holds_at_most_max_page_marks_of_one_character():
    from reportgen.publish import pagecontent, sandbox
    said = pagecontent.source_problem("docs/x.md", "intro\n\n" + "<a \n\n" * 2001)
    assert said and said.startswith("docs/x.md: 2001 '<'") and _expect("docs_page_nesting") in said
    assert pagecontent.source_problem("docs/x.md", "intro\n\n" + "<a \n\n" * 100) is None
    env = sandbox.sandbox()   # the page as rendered: two loops over a placeholder's text
    tree = env.parse("x\n\n{% for a in X %}{% for b in X %}<a \n\n{% endfor %}{% endfor %}\n")
    out = sandbox.render(env, tree, {"X": "a" * 100}, "docs/x.md")
    said = pagecontent.source_problem("docs/x.md (as rendered)", out)
    assert said and "10000 '<' in the page" in said


def test_a_docs_page_s_front_matter_sets_known_keys_only(tmp_path):
    from reportgen.data import plainfile
    page = tmp_path / "x.md"
    for front, refused in (("title: a\nhide: [toc]\n", False), ("", False), ("template: 404.html\n", True),
                           ("title: a\nextra_css: [x.css]\n", True), ("- a\n", True)):
        page.write_text(f"---\n{front}---\n# x\n", encoding="utf-8")
        said = plainfile.front_matter_problem("docs/x.md", page)
        assert (said is not None) == refused, (front, said)
        assert not refused or (said.startswith("docs/x.md: front matter: ") and _expect("docs_front_matter_keys") in said)


def test_a_flagged_timing_is_no_point_of_the_tuning_projection(monkeypatch):
    import inspect
    from types import SimpleNamespace
    from reportgen.data import campaigns

    def run(run_id, trials, p50):
        rec = {"id": "e2e/model=resnet18_v1/size=224/engine=tvm_d/batch=1/threads=2", "experiment": "e2e",
               "status": "ok", "case": {"model": "resnet18_v1", "engine": "tvm_d", "batch": 1},
               "stats": {"p50": p50}, "extra": {"tuning": {"cumulative_trials": trials}}}
        return SimpleNamespace(run_id=run_id, records=[rec], manifest={"environment": {"machine_id": "m"}})
    runs = [run("r1", 100, 0.08), run("r2", 200, 0.001), run("r3", 400, 0.05)]
    monkeypatch.setattr(campaigns.merge, "runs_of", lambda rs, mid: rs)
    rid = runs[0].records[0]["id"]
    assert [p[3] for p in campaigns.measured_points(runs, "m", "resnet18_v1")] == ["r1", "r2", "r3"]
    assert [p[3] for p in campaigns.measured_points(runs, "m", "resnet18_v1", jumped={("r2", rid)})] == ["r1", "r3"]
    assert _expect("projection_flagged_point") in " ".join(inspect.getdoc(campaigns.measured_points).split())


def test_an_own_int8_search_s_kernel_counts_are_its_trial_log_s():
    from reportgen.data import searchfacts
    rows = [{"task": f"t{i}", "category": ""} for i in range(25)] + [{"task": "t25", "category": "build"},
                                                                     {"task": "t26", "category": "run"}]
    assert searchfacts._scheduled_problems({"scheduled": 25, "unscheduled": ["t25", "t26"]}, rows) == []
    said = searchfacts._scheduled_problems({"scheduled": 27, "unscheduled": []}, rows)
    assert said and said[0].startswith("scheduled: 27") and _expect("int8_scheduled_count") in said[0]
    assert "a task the search's trial log measured" in searchfacts._scheduled_problems(
        {"scheduled": 25, "unscheduled": ["t0", "t25", "t26"]}, rows)[0]
    assert "never measured" in searchfacts._scheduled_problems({"scheduled": 25, "unscheduled": ["t25"]}, rows)[0]
