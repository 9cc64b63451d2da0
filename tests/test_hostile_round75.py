"""The seventy-fifth round of the hostile corpus (issue #29): attack only, then fixed.

Site set (3 of 11 failed, two from one weakness): bare '<li>' inside an element carrying markdown escaped the
nesting count (200 deep built, 990 deep ran MkDocs out of stack); titles read the same with curly and straight
quotes, a middle dot or an ideographic full stop for '.', a lone Chinese 'one' for a dash, times for x.

Data set (1 of 9 failed): a rule kernel renamed without 'conv' stayed in its printed row while the claims picked rows
by name, and its seconds x5.9 moved the row 2.6x unflagged.

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
import pytest
from test_hostile_round4 import _expect

MUTATIONS = {}
SPECIAL = {case: None for case in ("nesting_inside_markdown", "quote_dot_times_titles", "conv_rows_picked_as_read")}


def test_every_element_inside_markdown_counts():
    from reportgen.publish import nesting
    said = nesting.nesting_problem("docs/a.md", '# t\n\n<div markdown="1">\n' + "<li>x\n" * 200 + "</div>\n")
    assert said and said.startswith("docs/a.md:") and _expect("nesting_inside_markdown") in said
    flat = '# t\n\n<div markdown="1">\n' + "<p>x</p><br><img src=a>\n" * 200 + "</div>\n"
    assert nesting.nesting_problem("docs/a.md", flat) is None


@pytest.mark.parametrize("a, b", [("TVM\u2019s \u8def\u7ebf", "TVM's \u8def\u7ebf"), ("0\u00b719", "0.19"),
                                  ("0\u300219", "0.19"), ("GEMM \u4e00 \u57fa\u7ebf", "GEMM \u2014 \u57fa\u7ebf"),
                                  ("512\u00d7512", "512x512"), ("\u2018TVM\u2019 \u8def\u7ebf", "'TVM' \u8def\u7ebf")])
def test_titles_that_read_the_same_are_one(a, b):
    from test_hostile_round57 import _on_config
    said = _on_config(nav=[{a: "index.md"}, {b: "gemm.md"}])
    assert _expect("quote_dot_times_titles") in said, said


def test_a_row_is_picked_as_the_table_reads_it():
    import copy

    from reportgen.data import claims
    from test_hostile_round66 import _committed
    before = _committed("tvm_rules", "kernel_profile")
    kernels = before["extra"]["rules"]["kernels"]
    rows = before["extra"]["kernel_profile"]
    big = max((r for r in rows if claims._kernel_shape(kernels.get(r["op"]))), key=lambda r: r["seconds"])
    after = copy.deepcopy(before)
    new = big["op"].replace("conv2d_", "").replace("conv", "")
    assert "conv" not in new
    for row in after["extra"]["kernel_profile"]:
        if row["op"] == big["op"]:
            row["op"], row["seconds"] = new, row["seconds"] * 5.9
    after["extra"]["rules"]["kernels"] = {new if k == big["op"] else k: v for k, v in kernels.items()}
    labels = {label for label in claims.conv_row_shares(after) if label[0] == "kernel_profile"}
    assert ("kernel_profile", claims._kernel_shape(kernels[big["op"]])) in labels
    assert claims.level_jump(before, after, 2.0) is not None
    from reportgen.data import claims as module
    assert _expect("conv_rows_picked_as_read") in open(module.__file__, encoding="utf-8").read()
