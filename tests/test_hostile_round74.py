"""The seventy-fourth round of the hostile corpus (issue #29): attack only, then fixed.

Data set (4 of 12 failed, one cause, one weak): the claims and the pages read the convolution tables' inputs in two
ways (sorted dims and the first 4-d input against dims and the weight by position; 'conv' in a rule's name against
rule == 'conv'), so an ORT node's dims permuted, its weight moved, or a rule renamed 'convx' moved a row 2-4x
unflagged.  Site set (2 of 10 failed, one weak): stray end tags lowered the nesting count; the footer's length was
measured after its <code> tags were stripped.

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
import copy

from test_hostile_round4 import _expect

MUTATIONS = {}
SPECIAL = {case: None for case in ("conv_rows_one_reader", "rule_names_listed", "nesting_stray_end_tags",
                                   "footer_as_written")}


def _ort():
    from test_hostile_round66 import _committed
    return _committed("ort", "node_profile")


def test_a_node_the_table_stops_reading_leaves_its_row():
    from reportgen.data import claims, convs
    before = _ort()
    shares = {k: v for k, v in claims.conv_row_shares(before).items() if k[0] == "node_profile"}
    nodes = [n for n in before["extra"]["node_profile"] if convs.ort_conv(n)]
    assert nodes
    label = max(shares, key=shares.get)
    moved = [n["node"] for n in nodes if claims._node_shape(n) == label[1]]
    for how in ("permute", "weight"):
        after = copy.deepcopy(before)
        for node in after["extra"]["node_profile"]:
            if node["node"] in moved:
                if how == "permute":
                    y = node["outputs"][0]
                    node["outputs"][0] = [y[0], y[2], y[1], *y[3:]]
                else:
                    node["inputs"] = [node["inputs"][0], [1], *node["inputs"][1:]]
        found = claims.level_jump(before, after, 2.0)
        assert found is not None and "node_profile" in found[1], how
    assert _expect("conv_rows_one_reader") in convs.__doc__


def test_a_rule_is_one_of_the_projects():
    from study import work
    said = work._nested_problems({"rules": {"lanes": 16, "kernels": {"k": {"rule": "convx"}}}})
    assert said and said[0].startswith("extra.rules.kernels['k'].rule:") and _expect("rule_names_listed") in said[0]
    assert not work._nested_problems({"rules": {"lanes": 16, "kernels": {"k": {"rule": "generic"}}}})


def test_a_stray_end_tag_closes_nothing():
    from reportgen.publish import nesting
    said = nesting.nesting_problem("docs/a.md", "# t\n\n" + '<div markdown="1">\n</ul>\n\n' * 300)
    assert said and said.startswith("docs/a.md:") and _expect("nesting_stray_end_tags") in said
    assert nesting.nesting_problem("docs/a.md", "# t\n\n" + '<div markdown="1">x</div>\n\n' * 300) is None


def test_the_footer_is_measured_as_written(monkeypatch):
    from reportgen.publish import plugin
    from test_hostile_round57 import _on_config
    real = plugin.W
    text = "<code>" * 600 + "{commit}{date}{machine}"
    monkeypatch.setattr(plugin, "W", lambda k, **kw: text.format(**kw) if k == "plugin.footer.text" else real(k, **kw))
    said = _on_config()
    assert _expect("footer_as_written") in said and "docs/words/plugin.yaml" in said
