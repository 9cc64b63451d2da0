"""The thirty-sixth round of the hostile corpus (issue #29), data side, attack only, then fixed.

- A forged machine_peak 3.3x faster carried the jump flag, but the shares of it did not: a figure's
  flag now follows every record it rests on (its derivation's operands, a ratio's other records).
- A 'dirty' claim, or one edited environment field, with another fingerprint moved a 10x jump off the
  figure into the history page's second table: a jump counts as a change of code only when git shows
  the code changed between two clean commits (runfacts.code_changed, tested in round 35's file).
- A new machine id (a copied environment with more memory) that ran one case of each family tied the
  real machine on families and won on its newer runs: only machines with at least half the cases of
  the most measured one take part in the choice of the publication machine.

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
from test_hostile_round4 import _expect

from reportgen.data import load, merge
from reportgen.data.merge import Current
from reportgen.render import lookup
from reportgen.render.figures import FigureBook, derive, operand

MUTATIONS = {}
SPECIAL = {"machine_takeover": None}


def _book(jumped):
    book = FigureBook()
    book.set_page("gemm.md")
    book.jumped = jumped
    return book


def test_a_figure_resting_on_a_record_that_jumped_is_flagged():
    from helpers import record
    best, peak = Current(record(), None), Current(record(case_id="machine_peak/dtype=float32/isa=avx2/threads=1"), None)
    key = (peak.record["run_id"], peak.record["id"])
    share = derive("a / b", operand("a", best, "1", "GFLOPS"), operand("b", peak, "2", "GFLOPS"))
    flagged = _book({key}).current(f"{best.record['id']}#util_measured", "27.0%", "%", best, derived=share)
    assert 'href="history.html#jumps"' in flagged
    assert 'history.html#jumps' in lookup.times(_book({key}), best, "vs_peak", 0.5, peak)
    assert 'history.html#jumps' not in lookup.times(_book({key}), best, "vs_peak", 0.5)


def test_a_new_machine_with_one_case_a_family_does_not_take_over_the_site(tmp_path):
    from helpers import ENV, record, write_run
    results = tmp_path / "results"
    real = "20260101T000000Z-standard-f6ab9f827cfd"
    write_run(results, real, [record(run_id=real, case_id=f"numpy_gemm/dtype=float32/n={n}/threads=1/blas=configured")
                              for n in range(1, 21)], profile="standard", environment=ENV)
    runs = load.read_runs(results)
    chosen = merge.publication_machine(runs)[0]
    other = dict(ENV, memory_bytes=ENV["memory_bytes"] + 2 ** 31)
    from study import identity
    other["machine_id"] = identity.machine_id(other)
    later = f"20260102T000000Z-standard-{other['machine_id']}"
    write_run(results, later, [record(run_id=later)], profile="standard", environment=other)
    runs = load.read_runs(results)
    assert len(merge.machines(runs)) == 2
    machine, reason = merge.publication_machine(runs)
    assert machine == chosen and _expect("machine_takeover") in reason
