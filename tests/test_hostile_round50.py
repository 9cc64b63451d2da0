"""The fiftieth round of the hostile corpus (issue #29).

Data set: a one-record run reporting OpenBLAS 0.2.20 on one thread, OPENBLAS_CORETYPE=SkylakeX,
TVM_NUM_THREADS 1 and Python 3.6 made the environment page its own.  Site set: round 49's bound on
the characters Markdown nests on held per line, but its cost grows with the paragraph (60 lines of
200 '[' took 36 s); C0 control characters in a docs page reached the built page.

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
from test_hostile_round4 import _expect

MUTATIONS = {}
SPECIAL = {case: None for case in ("setup_changed", "docs_paragraph_nesting", "docs_controls")}


def test_one_machine_s_runs_report_one_setup():
    from pathlib import Path
    from reportgen.data import runfacts

    class Run:
        def __init__(self, run_id, **env):
            self.run_id, self.machine, self.path = run_id, "m", Path("results/runs") / run_id
            self.manifest = {"environment": {"python_version": "3.11.7", "tvm_num_threads": "2",
                                             "blas": [{"version": "0.3.31", "num_threads": "2"}],
                                             "blas_env": {"OPENBLAS_CORETYPE": "Haswell"}, **env}}
    assert runfacts.hardware_problems([Run("a"), Run("b", kernel="6.18", os="Debian 13", compiler="cc 14")]) == []
    for env in ({"python_version": "3.6.8"}, {"tvm_num_threads": "1"}, {"blas": [{"version": "0.2.20", "num_threads": "1"}]},
                {"blas_env": {"OPENBLAS_CORETYPE": "SkylakeX"}}):
        said = runfacts.hardware_problems([Run("a"), Run("b", **env)])
        assert said and f"environment.{next(iter(env))}" in said[0] and _expect("setup_changed") in said[0]


def test_a_docs_paragraph_holds_at_most_max_marks_of_one_character():
    from reportgen.publish import pagecontent
    said = pagecontent.source_problem("docs/x.md", "intro\n\n" + ("[" * 200 + "\n") * 100)
    assert said and said.startswith("docs/x.md:3: 20000 '['") and _expect("docs_paragraph_nesting") in said
    assert pagecontent.source_problem("docs/x.md", "a\n\n" + ("[" * 150 + "\n\n") * 6) is None   # paragraph by paragraph


def test_a_docs_page_holds_no_control_character():
    from reportgen.data import plainfile
    said = plainfile.hidden_text_problem("docs/x.md", "ok\nback\x08space", controls=True)
    assert said and said.startswith("docs/x.md:2:") and _expect("docs_controls") in said
    assert plainfile.hidden_text_problem("docs/x.md", "tab\there\r\n", controls=True) is None
