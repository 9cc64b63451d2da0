"""The sixty-eighth round of the hostile corpus (issue #29): attack only, then fixed.

Site set (6 of 11 failed, two weak): a page's title taken from its front matter or first heading (a nav entry
without a title) was held to its length only: an enclosing mark and 200 marks on one letter, or ideographic
spaces, stood in every page's navigation and <title>; an empty nav title passed; index.md/ and index.md//. are
index.md to MkDocs, past the 'listed once' rule; archive row and column keys with markup were refused by the
page check, which blamed docs/archive.md; lookalike letters (a Cyrillic e and C in a CPU's name, a nav title
given twice) passed.

Data set: 10 probes, none failed.

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
from types import SimpleNamespace

import pytest

from conftest import ROOT
from reportgen.errors import ReportError
from test_hostile_round4 import _expect
from test_hostile_round64 import _config

MUTATIONS = {}
SPECIAL = {case: None for case in ("settled_title_checked", "nav_target_normal", "archive_keys_named",
                                   "lookalike_letters")}


@pytest.mark.parametrize("title", ["x\u20dd" + "\u0301" * 200, "\u3000\u3000", "", "X\u0435on"])
def test_every_settled_title_is_checked(title):
    from reportgen.publish.plugin import ReportgenPlugin
    page = SimpleNamespace(src_uri="index.md", page=SimpleNamespace(title=title))
    with pytest.raises(ReportError) as err:
        ReportgenPlugin().on_env(None, None, SimpleNamespace(documentation_pages=lambda: [page]))
    assert str(err.value).startswith("docs/index.md: its title") and _expect("settled_title_checked") in str(err.value)


@pytest.mark.parametrize("target", ["index.md/", "index.md//", "compiler.md/.", "./index.md", "index"])
def test_a_nav_target_is_written_one_way(tmp_path, target):
    entry = "  - \u53c2\u8003\u8d44\u6599: "
    said = _config(tmp_path, entry + "references.md\n", entry + target + "\n")
    assert "nav:" in said and _expect("nav_target_normal") in said


@pytest.mark.parametrize("value", ["<b>x</b>", "s21 \u3000 lanes"])
def test_archive_keys_are_names(tmp_path, value):
    import shutil
    from reportgen.data import archive
    shutil.copytree(ROOT / "archive", tmp_path / "archive")
    table = tmp_path / "archive" / "tables" / "prose_numbers.yaml"
    text = table.read_text(encoding="utf-8")
    row = "\n- {key: s23b_accuracy_drop,"
    assert row in text
    table.write_text(text.replace(row, f"\n- {{key: {value!r}, label: x, cells: []}}{row}", 1), encoding="utf-8")
    archive.reseal(tmp_path / "archive")
    with pytest.raises(ReportError) as err:
        archive.read_archive(tmp_path / "archive")
    assert "prose_numbers.yaml: rows[" in str(err.value) and _expect("archive_keys_named") in str(err.value)


def test_lookalike_letters_are_refused():
    from study import schema
    out = []
    schema._visible_strings({"cpu_model": "Intel(R) X\u0435on(R) Gold 6348 \u0421PU"}, "environment", out)
    assert out and out[0].startswith("environment.cpu_model:") and _expect("lookalike_letters") in out[0]
    assert schema.mixed_script("10 \u03bcs, caf\u00e9, GEMM \u57fa\u7ebf, \u041f\u0440\u0438\u0432\u0435\u0442") == ""
    config = SimpleNamespace(config_file_path="mkdocs.yml", docs_dir=str(ROOT / "docs"), site_name="x",
                             nav=[{"A": "index.md"}, {"A": "compiler.md"}], theme=SimpleNamespace(custom_dir=None))
    from reportgen.publish import configcheck
    with pytest.raises(ReportError) as err:
        configcheck.config_problems(config, ROOT, SimpleNamespace(results_dir="results", archive_dir="archive"))
    assert "two nav titles are the same" in str(err.value)
