"""The seventeenth round of the hostile corpus (issue #29), attack only; the failures fixed here are
those of mkdocs.yml as a reviewed input (a !!python tag ran a command when MkDocs loaded the file,
hooks: ran a file from anywhere, docs_dir and theme.custom_dir named folders outside the project,
hidden characters reached every page title) and of the words files (an alias holding itself was a
RecursionError, aliases of aliases a walk of 10^9 strings). The other failures of the round are in
the issue's note.

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
import re
import time

import pytest
from conftest import ROOT
from test_hostile_round4 import _expect, _one_line

from reportgen.commands import build
from reportgen.data import words
from reportgen.errors import ReportError

MUTATIONS = {}
SOURCE = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")


@pytest.mark.parametrize("change, said", [
    (lambda s: re.sub(r"(?m)^site_description: .*$", "site_description: !!python/object/apply:os.system [touch x]", s),
     "!!python"),
    (lambda s: "hooks:\n  - /tmp/h.py\n" + s, "'hooks'"),
    (lambda s: s.replace("docs_dir: docs", "docs_dir: /tmp/o"), "docs_dir: '/tmp/o'"),
    (lambda s: s.replace("custom_dir: reportgen/publish/theme", "custom_dir: ../../theme"), "theme: '../../theme'"),
    (lambda s: s.replace("site_name: ", "site_name: \u202e", 1), "U+202E"),
])
def test_mkdocs_yml_is_read_as_reviewed_data_only(change, said, tmp_path):
    (tmp_path / "mkdocs.yml").write_text(change(SOURCE), encoding="utf-8")
    with pytest.raises(ReportError) as err:
        build._config_problems(tmp_path)
    assert said in _one_line(err.value) and _expect("mkdocs_yml_runs_or_reads_elsewhere") in str(err.value)


@pytest.mark.parametrize("text", ["a: &x [*x]\n",
                                  "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
                                  + "".join(f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 10)}]\n"
                                            for i in range(9))])
def test_a_words_file_of_aliases_is_walked_once(text):
    started = time.monotonic()
    found = list(words._texts(words.safeyaml.loads(text, aliases=True)))
    assert time.monotonic() - started < 5 and len(found) <= 10, _expect("words_alias_loop")


SPECIAL = {case: None for case in ("mkdocs_yml_runs_or_reads_elsewhere", "words_alias_loop")}
