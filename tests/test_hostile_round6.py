"""The sixth round of the hostile corpus (issue #29): values that slip past a literal markup match
in W (character references, controls in a scheme, markup split over two values, Markdown links and
attribute lists), run.json environments the environment table cannot print, a campaign projection
that overflows, and archived tables of the wrong shape.

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
import json
import shutil
from html.parser import HTMLParser

import markdown
import pytest
import yaml
from conftest import ROOT
from helpers import record, write_run
from test_hostile_round4 import CASES, RUN, _expect

from reportgen.data import archive, campaigns, load, words
from reportgen.errors import ReportError

# -- W: a value holding markup is filled in as text, however it is spelled -----------------------

VALUES = {
    "w_entity_href": {"v": '<a href="&#106;avascript:alert(1)">x</a>'},
    "w_tab_in_scheme": {"v": '<a href="java\tscript:alert(1)">x</a>'},
    "w_c0_before_scheme": {"v": '<a href="\x01javascript:alert(1)">x</a>'},
    "w_colon_entity": {"v": '<a href="javascript&colon;alert(1)">x</a>'},
    "w_split_tag": {"a": "<", "b": "img src=x onerror=alert(1)>"},
    "w_split_attr": {"a": '<a href="x" ', "b": "onclick=alert(1)>y</a>"},
    "w_md_link": {"v": "[x](&#106;avascript:alert(1))"},
    "w_md_refdef": {"v": "[x][r]\n\n[r]: javascript:alert(1)"},
    "w_md_image": {"v": "![x](data:image/svg+xml,a)"},
    "w_md_attr_list": {"v": 'x\n{: onclick="alert(1)"}'},
}


def _filled(case):
    values = VALUES[case]
    text = "{a}{b}" if "a" in values else "{v}"
    return words._fill("docs/words/test.yaml", "test.key", text, values)


class _Elements(HTMLParser):
    """The elements and attributes a browser would build from the rendered text (inert text
    that merely spells ``onclick=`` builds none)."""

    def __init__(self):
        super().__init__()
        self.found = []

    def handle_starttag(self, tag, attrs):
        self.found.append((tag, [name for name, _ in attrs]))


@pytest.mark.parametrize("case", sorted(VALUES))
def test_a_value_w_fills_in_is_text_however_its_markup_is_spelled(case):
    out = markdown.markdown(_filled(case), extensions=["attr_list", "md_in_html", "tables"])
    parser = _Elements()
    parser.feed(out)
    assert all(tag == "p" and not attrs for tag, attrs in parser.found), (_expect(case), out)
    if len(VALUES[case]) == 1 and case.startswith("w_md_"):
        assert words.markup_problem(VALUES[case]["v"]) == _expect(case)


def test_the_markup_and_links_the_code_builds_still_pass():
    figure = '<a class="num cur" data-num="x#p50" href="p.html#x" title="a: b">1.0</a>'
    link = "[gemm](../gemm.md#peak) {: .ok}"
    escaped = "&#91;x&#93;(javascript:alert(1))"   # cells.text of a hostile string: inert already
    for value in (figure, link, escaped, "<code>ymm</code> a < b"):
        assert words.markup_problem(value) is None, value
        assert words._fill("w", "k", "{a} and {b}", {"a": value, "b": figure}) == f"{value} and {figure}"


# -- run.json: the environment the environment table prints ---------------------------------------

def _environment(**change):
    def mutate(tmp):
        run = write_run(tmp, RUN, [record(RUN)])
        manifest = json.loads((run / "run.json").read_text())
        manifest["environment"].update(change)
        (run / "run.json").write_text(json.dumps(manifest))
    return mutate


MUTATIONS = {
    "env_physical_cores_negative": _environment(physical_cores=-4),
    "env_affinity_negative": _environment(affinity=[-1, 10 ** 30]),
    "env_cpu_mhz_empty": _environment(cpu_mhz={}),
    "env_cpu_mhz_huge": _environment(cpu_mhz={"value": 1e308, "source": "/proc/cpuinfo"}),
}


@pytest.mark.parametrize("case", sorted(MUTATIONS))
def test_round6_environments_are_refused_naming_the_file_and_field(case, tmp_path):
    results = tmp_path / "results"
    results.mkdir()
    MUTATIONS[case](results)
    with pytest.raises(ReportError) as err:
        load.read_runs(results)
    named = [p for p in err.value.problems if p.startswith(str(results)) and CASES[case]["field"] in p]
    assert any(_expect(case) in p for p in named), err.value.problems
    assert not [p for p in err.value.problems if "\n" in p]


def test_an_unknown_clock_and_no_physical_core_count_still_load(tmp_path):
    _environment(cpu_mhz={"value": None, "source": "unknown"}, physical_cores=None)(tmp_path)
    assert len(load.read_runs(tmp_path)) == 1


# -- a campaign's projection -----------------------------------------------------------------------

def test_a_projection_of_a_barely_falling_latency_is_none_not_an_overflow():
    points = [(1, 0.0100000001, "a", "r1"), (2, 0.01, "b", "r2")]
    assert campaigns.projection(points, 0.001) is None, _expect("camp_projection_overflow")
    assert campaigns.projection([(8, 0.02, "a", "r1"), (16, 0.01, "b", "r2")], 0.005)["trials"] == pytest.approx(32)


# -- archived tables of the wrong shape ------------------------------------------------------------

ARCHIVE = {
    "arch_columns_string": lambda r: r.update(columns="ab"),
    "arch_rows_int": lambda r: r.update(rows=5),
    "arch_row_not_mapping": lambda r: r["rows"].__setitem__(0, ["8", "x"]),
    "arch_column_no_kind": lambda r: r["columns"][0].pop("kind"),
    "arch_row_key_missing": lambda r: r["rows"][0].pop("key"),
    "arch_label_list": lambda r: r["rows"][0].__setitem__("label", ["<b>x</b>"]),
    "arch_figure_overflow": lambda r: r["rows"][0].__setitem__("cells", ["9" * 400, "x"]),
    "arch_figure_arabic_digits": lambda r: r["rows"][0].__setitem__("cells", ["\u0668", "x"]),
}


@pytest.mark.parametrize("reseal", [True, False])
@pytest.mark.parametrize("case", sorted(ARCHIVE))
def test_round6_archive_tables_are_refused_naming_the_file_and_field(case, reseal, tmp_path):
    folder = tmp_path / "archive"
    shutil.copytree(ROOT / "archive", folder)
    path = folder / "tables" / "prose_numbers.yaml"
    raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    ARCHIVE[case](raw)
    path.write_text(yaml.safe_dump(raw, allow_unicode=True), encoding="utf-8")
    if reseal:
        archive.reseal(folder)
    with pytest.raises(ReportError) as err:
        archive.read_archive(folder)
    lines = err.value.problems
    if reseal:
        assert any(p.startswith(f"{path}: {CASES[case]['field']}") and _expect(case) in p for p in lines), lines
    else:   # the shape or the seal: one line naming the file either way, never a traceback
        assert all(p.startswith(str(folder)) for p in lines), lines
    assert not [p for p in lines if "\n" in p] and sum(map(len, lines)) < 2000


SPECIAL = {**{case: None for case in VALUES}, "camp_projection_overflow": None, **{case: None for case in ARCHIVE}}
