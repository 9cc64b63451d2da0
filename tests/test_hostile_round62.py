"""The sixty-second round of the hostile corpus (issue #29): attack only, then fixed.

Data set (4 of 10 failed, three causes): a new level's flag followed the level to later records but ended at
any record that 'moved away': a second forged run with its check threshold raised by 1.0000001 (a move no
jump lists) or a decoy run of the same code at 0.12x (a jump that leaves the baseline where it was) ended it,
and the next forged run at the level was current and unflagged (the INT8 headline 7.26x for 3.27x).  A
label's share of a profile's time was compared by an absolute bound only (ORT's Transpose 0.17 % -> 19.7 %).

Site set (5 of 12 failed): the maintainer's commands (runlists --confirm, archive --reseal) wrote through a
committed 'archive' link; docs/gemm/ladder.md took gemm-ladder.md's table download (csv/gemm-ladder-1.csv);
the typed-figure scan of tables was quadratic ('a|b' / '-|-' repeated: the build hung, verify took hours);
the words of the navigation and the footer reached every page unchecked.

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
import os
import subprocess
import sys

import pytest

from conftest import ROOT
from reportgen.errors import ReportError
from test_hostile_round4 import _expect
from test_hostile_round35_data import _changed, _Run

MUTATIONS = {}
SPECIAL = {case: None for case in ("level_ends_only_listed", "level_survives_decoy", "profile_share_relative",
                                   "maintainer_commands_no_link", "csv_names_unique", "typed_tables_linear",
                                   "words_theme_plain")}


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


def test_the_maintainer_s_commands_write_through_no_link(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    project = tmp_path / "project"
    (project / "results" / "runs").mkdir(parents=True)
    (project / "archive").symlink_to(outside)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    for args in (["reportgen.data.runlists", "--confirm", "20261129T171403Z-standard-f6ab9f827cfd"],
                 ["reportgen.data.archive", "--reseal"]):
        done = subprocess.run([sys.executable, "-m", *args], cwd=project, env=env, capture_output=True, text=True)
        assert done.returncode == 1 and _expect("maintainer_commands_no_link") in done.stderr, done.stderr
    assert list(outside.iterdir()) == []


def test_two_pages_never_share_a_table_download():
    from types import SimpleNamespace
    from reportgen.publish import plugin
    me = plugin.ReportgenPlugin.__new__(plugin.ReportgenPlugin)
    me.csv_files, me.csv_owner, me.pages_html = {}, {}, {}
    me.data = SimpleNamespace(specs={})
    table = "<table><tr><th>a</th></tr><tr><td>b</td></tr></table>"
    page = lambda uri: SimpleNamespace(file=SimpleNamespace(src_uri=uri))   # noqa: E731
    me.on_page_content(table, page("gemm-ladder.md"), None, None)
    with pytest.raises(ReportError) as err:
        me.on_page_content(table, page("gemm/ladder.md"), None, None)
    assert "docs/gemm/ladder.md" in str(err.value) and _expect("csv_names_unique") in str(err.value)


def test_the_typed_figure_scan_of_tables_is_linear():
    import time
    from reportgen.publish import pagecontent
    started = time.process_time()
    assert pagecontent._typed_in_tables("a|b\n-|-\n" * 20000) == []
    assert time.process_time() - started < 30   # quadratic: hours (a bound no machine of ours nears, not a timing)
    found = pagecontent._typed_in_tables("| GFLOPS | x |\n|---|---|\n| 206.4 | a |\na|b\n-|-\n| 5.0 | y |\n")
    assert found == [(3, "206.4 (GFLOPS)"), (6, "5.0 (GFLOPS)")]   # read under the table's header still
    assert _expect("typed_tables_linear") in pagecontent._typed_in_tables.__doc__


def test_the_words_the_theme_writes_into_every_page_are_plain(monkeypatch):
    from reportgen.publish import plugin
    from test_hostile_round57 import _on_config
    real = plugin.W
    for key, text in (("plugin.on_config.nav_provenance", "\u6eaf\u6e90<s>"),
                      ("plugin.footer.text", '<div class="md-dialog md-dialog--active">x</div>{commit}{date}{machine}')):
        monkeypatch.setattr(plugin, "W", lambda k, _key=key, _text=text, **kw: _text.format(**kw) if k == _key else real(k, **kw))
        said = _on_config()
        assert _expect("words_theme_plain") in said and "docs/words/plugin.yaml" in said, said
