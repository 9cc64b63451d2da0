"""The fifty-eighth round of the hostile corpus (issue #29): attack only, then fixed.

Data set (2 of 11 failed): a run naming an older commit that an earlier run of the machine had measured,
its records given new fingerprints, moved ResNet-18 0.4x: git shows the code changed between the run
and the one before it, so the jump was listed as one over changed code and published unflagged (now a
jump over changed code is also held to the newest earlier record measured with the family's code as
this run has it); an INT8 record's weights of 10^25 bytes loaded and reached the methods table (an
integer beyond 2^53 is refused).

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
import inspect

import pytest

from test_hostile_round4 import _expect
from test_hostile_round35_data import _changed, _Run

MUTATIONS = {}
SPECIAL = {case: None for case in ("jump_back_to_older_code", "integer_beyond_2_53")}


def test_a_run_back_at_older_code_is_held_to_that_code_s_records():
    from reportgen.pages import history
    runs = [_Run("r1", 1.0, "a" * 64), _Run("r2", 1.1, "b" * 64, commit="b" * 40),
            _Run("r3", 0.4, "c" * 64)]   # back at commit a, whose record said 1.0
    assert history.flagged(runs, _changed) == {("r3", "numpy_gemm/n=1")}
    [(_, earlier, later, ratio)] = history.jumps(runs, code_changed=_changed)
    assert (earlier, later) == ("r1", "r3") and ratio == pytest.approx(0.4)
    steady = [_Run("r1", 1.0, "a" * 64), _Run("r2", 0.4, "b" * 64, commit="b" * 40), _Run("r3", 1.05, "c" * 64)]
    assert history.flagged(steady, _changed) == set()   # r2's new level is changed code; r3 is r1's level again
    assert _expect("jump_back_to_older_code") in inspect.getdoc(history._same_code_hit)


def test_an_integer_beyond_2_53_is_refused():
    from helpers import record
    from study import schema
    for extra in ({"calibration": {"weights_bytes": 10**25}}, {"op_profile": [{"calls": -10**20}]}):
        rec = record("20261206T000000Z-quick-f6ab9f827cfd")
        rec["extra"].update(extra)
        said = [p for p in schema.record_problems(rec) if "2^53" in p]
        assert said and said[0].startswith("extra.") and _expect("integer_beyond_2_53") in said[0]
    out = []
    schema._finite({"n": 2**53}, "extra", out)
    assert out == []
