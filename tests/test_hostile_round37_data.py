"""The thirty-seventh round of the hostile corpus (issue #29), data side, attack only, then fixed.

- Jumps were found by the id as written: a forged run spelling a case the standard way after runs
  that spelled it the old way was compared with nothing.  Jumps now follow the case (cases.canonical_id).
- A conclusion whose verdict a new run flipped wrote <span data-flipped=...>, which the page allow-list
  did not hold: any run changing a verdict stopped every build (naming the page, not the run).
- A commit touching only the site's code counted as a change of code (reportgen/ whole): code_changed
  now reads the experiments, the contracts, retest and the pinned packages.
- Ratios on the e2e, int8, GEMM ladder and machines pages named one record: their other record now
  flags them too (also=).

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
from test_hostile_round4 import _expect

from reportgen.pages import history
from reportgen.publish import pagecontent

MUTATIONS = {}
SPECIAL = {"jump_other_spelling": None}


class _Run:
    def __init__(self, run_id, p50, case_id):
        self.run_id, self.machine = run_id, "m"
        self.manifest = {"git": {"commit": "a" * 40, "dirty": False}}
        self.records = [{"id": case_id, "status": "ok", "stats": {"p50": p50}, "reused_from": None,
                         "fingerprint": "f" * 64, "run_id": run_id,
                         "case": {"model": "resnet18_v1", "input_size": 224, "engine": "tf", "batch": 1, "threads": 2}}]


def test_a_jump_is_found_across_two_spellings_of_one_case():
    old = "e2e/model=resnet18_v1/engine=tf/batch=1/threads=2"
    new = "e2e/model=resnet18_v1/size=224/engine=tf/batch=1/threads=2"
    from study import cases
    assert cases.canonical_id(old, _Run("r", 1, old).records[0]["case"]) == new
    found = history.flagged([_Run("r1", 1.0, old), _Run("r2", 0.2, new)])
    assert found == {("r2", new)}, _expect("jump_other_spelling")


def test_a_flipped_verdict_is_markup_the_build_writes():
    html = '<p>x<br><span class="warn" data-flipped="numpy_near_peak">\u6b64\u524d\u4e3a\u652f\u6301</span></p>'
    assert pagecontent.content_problem("docs/retrospective.md", html) is None


def test_a_ratio_flags_the_jump_of_its_other_record():
    from helpers import record
    from reportgen.data.merge import Current
    from reportgen.pages import gemm, gemm_ladder
    from reportgen.render.figures import FigureBook
    num, den = Current(record(), None), Current(record(case_id="numpy_gemm/dtype=float32/n=64/threads=1/blas=configured"), None)
    for cell in (gemm._ratio_cell, gemm_ladder._vs):
        book = FigureBook()
        book.set_page("gemm.md")
        book.jumped = {(den.record["run_id"], den.record["id"])}
        assert "history.html#jumps" in cell(book, num, den, "ratio")
