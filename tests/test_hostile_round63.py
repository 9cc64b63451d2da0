"""The sixty-third round of the hostile corpus (issue #29): attack only, then fixed.

Data set (2 of 10 failed, one weak): ORT's time moved between its QLinearConv nodes, the class's share kept,
turned one row of the INT8 per-convolution table from TVM / ORT 0.94x to 3.78x (a row's share was compared
nowhere); QLinearMatMul's share shrank 1000x (0.7 % -> 0.0 %) under the relative test's floor of 1 %.

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
from test_hostile_round4 import _expect

MUTATIONS = {}
SPECIAL = {case: None for case in ("conv_row_share", "small_label_share")}


def _nodes(*rows):
    return {"extra": {"node_profile": [{"node": n, "op": op, "inputs": [[1, 64 * (i + 1), 56, 56]], "outputs": [],
                                        "seconds": s} for i, (n, op, s) in enumerate(rows)]}}


def test_a_convolution_s_row_share_is_compared():
    from reportgen.data import claims
    before = _nodes(("conv_1", "QLinearConv", 0.529), ("conv_2", "QLinearConv", 0.40), ("add", "Add", 0.07))
    after = _nodes(("conv_1", "QLinearConv", 0.132), ("conv_2", "QLinearConv", 0.797), ("add", "Add", 0.07))
    moved = claims.profile_share_jump(before, after)
    assert moved and '"1", "56", "56", "64"' in moved[1] and _expect("conv_row_share") in moved[1]   # its dimensions
    renamed = _nodes(("x_1", "QLinearConv", 0.132), ("x_2", "QLinearConv", 0.797), ("y", "Add", 0.07))
    assert claims.profile_share_jump(before, renamed)   # rows are the table's: by operator and shapes, not names
    kept = _nodes(("conv_1", "QLinearConv", 0.45), ("conv_2", "QLinearConv", 0.479), ("add", "Add", 0.07))
    assert claims.profile_share_jump(before, kept) is None   # 1.2x: within the committed rows' 1.8x


def test_a_small_label_s_share_is_compared_by_its_factor():
    from reportgen.data import claims
    before = _nodes(("conv", "QLinearConv", 2.7), ("mm", "QLinearMatMul", 0.0195))
    after = _nodes(("conv", "QLinearConv", 2.7), ("mm", "QLinearMatMul", 0.0000195))
    moved = claims.profile_share_jump(before, after)
    assert moved and "QLinearMatMul" in moved[1]
    assert _expect("small_label_share") in open(claims.__file__, encoding="utf-8").read()
