"""The sixty-third round of the hostile corpus (issue #29), site set: attack only, then fixed.

Site set (3 of 10 failed, two weak): theme.logo and theme.favicon in mkdocs.yml were written raw into every
page's header and head (a typed figure, a link away, a download= link, robots and referrer meta), the
palette's colours and theme.direction into <body>'s attributes: the theme's settings are an allow-list now.
Lists nested on one line ('- - - ... x', 500 long) passed the nesting bound and ran Markdown out of stack.
A reseal that could not write SHA256SUMS named its temporary file; a page could hold 28 000 tables (as many
CSV files); runlists --confirm said '(ReportError)' for a linked run.json.

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
import pytest

from conftest import ROOT
from reportgen.errors import ReportError
from test_hostile_round4 import _expect

MUTATIONS = {}
SPECIAL = {case: None for case in ("theme_settings_listed", "one_line_list_nesting", "seal_write_named",
                                   "tables_per_page")}


@pytest.mark.parametrize("setting", ["  logo: 'x\"><b>12.3 ms</b>'\n", "  favicon: x.png\n", "  direction: 'rtl\" x'\n",
                                     "  font:\n    text: Roboto\n", "  icon:\n    logo: x\n"])
def test_the_theme_s_settings_are_an_allow_list(tmp_path, setting):
    from reportgen.commands import build
    text = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    text = text.replace("  font: false\n", setting) if setting.startswith("  font") else \
        text.replace("  language: zh\n", "  language: zh\n" + setting)
    (tmp_path / "mkdocs.yml").write_text(text, encoding="utf-8")
    with pytest.raises(ReportError) as err:
        build._config_problems(tmp_path)
    assert "theme." in str(err.value) and _expect("theme_settings_listed") in str(err.value)


def test_the_theme_s_palette_colours_are_names(tmp_path):
    from reportgen.commands import build
    text = (ROOT / "mkdocs.yml").read_text(encoding="utf-8").replace("    primary: indigo\n",
                                                                      '    primary: \'indigo" onload="x\'\n')
    (tmp_path / "mkdocs.yml").write_text(text, encoding="utf-8")
    with pytest.raises(ReportError) as err:
        build._config_problems(tmp_path)
    assert "theme.primary" in str(err.value)


def test_lists_nested_on_one_line_are_bounded():
    from reportgen.publish import pagecontent
    for line in ("- " * 500 + "x", "1. " * 500 + "x", "> " * 40 + "x"):
        said = pagecontent.source_problem("docs/x.md", "a\n\n" + line + "\n")
        assert said.startswith("docs/x.md:3:") and _expect("one_line_list_nesting") in said
    assert pagecontent.source_problem("docs/x.md", "a\n\n- a\n  - b\n    1. c\n") is None


def test_a_seal_that_cannot_be_written_is_named_as_itself(tmp_path, monkeypatch, capsys):
    from reportgen.data import archive, plainfile
    (tmp_path / "archive" / "SHA256SUMS").mkdir(parents=True)
    (tmp_path / "archive" / "a.txt").write_text("x\n")
    monkeypatch.chdir(tmp_path)
    assert archive.main(["--reseal", "archive"]) == 1
    said = capsys.readouterr().err
    assert "archive/SHA256SUMS: cannot write the seal" in said and ".tmp" not in said, said
    assert not list(tmp_path.glob(".archive-*"))
    assert _expect("seal_write_named") in open(plainfile.__file__, encoding="utf-8").read()


def test_a_page_holds_at_most_so_many_tables():
    from reportgen.publish import csvs
    table = "<table><tr><th>a</th></tr><tr><td>b</td></tr></table>"
    with pytest.raises(ReportError) as err:
        csvs.attach(table * (csvs.MAX_TABLES + 1), "x", "CSV")
    assert _expect("tables_per_page") in str(err.value)
    assert len(csvs.attach(table * 3, "x", "CSV")[1]) == 3
