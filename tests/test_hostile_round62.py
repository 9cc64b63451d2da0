"""The sixty-second round of the hostile corpus (issue #29): attack only, then fixed.

Data set (4 of 10 failed, three causes): a new level's flag followed the level to later records but ended at
any record that 'moved away': a second forged run with its check threshold raised by 1.0000001 (a move no
jump lists) or a decoy run of the same code at 0.12x (a jump that leaves the baseline where it was) ended it,
and the next forged run at the level was current and unflagged (the INT8 headline 7.26x for 3.27x).  A
label's share of a profile's time was compared by an absolute bound only (ORT's Transpose 0.17 % -> 19.7 %).

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
from test_hostile_round4 import _expect
from test_hostile_round35_data import _changed, _Run

MUTATIONS = {}
SPECIAL = {case: None for case in ("level_ends_only_listed", "level_survives_decoy", "profile_share_relative")}


def _at(run_id, p50, commit, **check):
    run = _Run(run_id, p50, commit[0] * 64, commit=commit)
    run.records[0]["check"] = dict({"max_rel_err": 0.1, "threshold": 0.5}, **check)
    return run


def test_a_move_no_jump_lists_does_not_end_a_level_s_flag():
    from reportgen.pages import history
    runs = [_at("r1", 1.0, "a" * 40), _at("r2", 0.4, "b" * 40), _at("r3", 0.4, "b" * 40, threshold=0.50000005)]
    found = history.all_jumps(runs, _changed)
    assert [j[2] for j in found] == ["r2"]   # the threshold moved under the jumps' factor: nothing lists r3
    assert ("r3", "numpy_gemm/n=1") in history.unconfirmed(runs, _changed, found)
    assert _expect("level_ends_only_listed") in open(history.__file__, encoding="utf-8").read()


def test_a_decoy_jump_of_the_same_code_does_not_end_a_level_s_flag():
    from reportgen.pages import history
    runs = [_at("r1", 1.0, "a" * 40), _at("r2", 0.4, "b" * 40), _at("r3", 0.12, "b" * 40), _at("r4", 0.4, "b" * 40)]
    found = history.all_jumps(runs, _changed)
    assert ("r3", "numpy_gemm/n=1") in history.flagged(runs, _changed, found)   # the decoy: a same-code jump
    assert ("r4", "numpy_gemm/n=1") in history.unconfirmed(runs, _changed, found)
    assert _expect("level_survives_decoy") in open(history.__file__, encoding="utf-8").read()


def test_a_label_s_share_of_a_profile_is_compared_by_a_factor_too():
    from reportgen.data import claims

    def profile(transpose):
        rows = [("QLinearConv", 0.8 - transpose), ("Transpose", transpose), ("Add", 0.2)]
        return {"extra": {"node_profile": [{"node": n, "op": n, "inputs": [], "outputs": [], "seconds": s}
                                           for n, s in rows]}}
    moved = claims.profile_share_jump(profile(0.0017), profile(0.197))
    assert moved and "Transpose" in moved[1]
    assert _expect("profile_share_relative") in open(claims.__file__, encoding="utf-8").read()
    assert claims.profile_share_jump(profile(0.01), profile(0.04)) is None   # 4x: within the committed runs' 4.3x
