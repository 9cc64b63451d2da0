"""The fifty-ninth round of the hostile corpus (issue #29): attack only, then fixed.

Data set (5 of 13 failed, one gap): a jump over code git shows changed is a new level, and was published
unflagged; a run naming any commit that touched the family's code (a comment line, dated back) made
ResNet-18 0.4x current.  A new median of changed code now carries a flag of its own until a later run of
the same code measures the case again (history.unconfirmed).

Site set (4 of 10 failed): theme.custom_dir could name a folder of the built site, where a docs page became
the theme's main.html and ran a command outside the project (pinned to reportgen/publish/theme);
extra_javascript could name any published file as a script (held to the pinned scripts); a page's own Jinja
that failed was 'reportgen broke, please report it' (named at its line; include, extends and import
refused); mkdocs.yml was unbounded (64 KiB, 500 nav titles, 300 characters a title or setting).

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
import pytest

from conftest import ROOT
from reportgen.errors import ReportError
from test_hostile_round4 import _expect
from test_hostile_round35_data import _changed, _Run
from test_hostile_round57 import _on_config

MUTATIONS = {}
SPECIAL = {case: None for case in ("new_level_unconfirmed", "custom_dir_pinned", "scripts_listed_pinned",
                                   "page_jinja_fails_named", "page_jinja_include", "config_size")}


def test_a_new_level_over_changed_code_is_flagged_until_the_same_code_measures_it_again():
    from reportgen.data.merge import Current
    from reportgen.data.words import W
    from reportgen.pages import history
    from reportgen.render.figures import FigureBook
    runs = [_Run("r1", 1.0, "a" * 64), _Run("r2", 0.4, "b" * 64, commit="b" * 40)]   # git shows the code changed
    assert history.flagged(runs, _changed) == set()
    assert history.unconfirmed(runs, _changed) == {("r2", "numpy_gemm/n=1")}
    again = runs + [_Run("r3", 0.41, "b" * 64, commit="b" * 40)]   # the same code measured it again
    # only a run a maintainer accepted confirms it (round 61: a second forged run at the commit did), and a
    # later run that repeats the level unaccepted carries the flag too
    assert history.unconfirmed(again, _changed) == {("r2", "numpy_gemm/n=1"), ("r3", "numpy_gemm/n=1")}
    assert history.unconfirmed(again, _changed, confirming={"r3"}) == set()
    other = runs + [_Run("r3", 1.0, "c" * 64, commit="c" * 40)]   # an accepted run that moved away: no confirmation
    assert ("r2", "numpy_gemm/n=1") in history.unconfirmed(other, _changed, confirming={"r3"})
    book = FigureBook()
    book.set_page("gemm.md")
    book.new_level = {("r2", "numpy_gemm/n=1")}
    rec = dict(runs[1].records[0], experiment="numpy_gemm", log={"path": "runs/r2/logs/x.log", "lines": [1, 1], "sha256": "0" * 64})
    shown = book.current("x#p50", "0.4 ms", "ms", Current(rec, None))
    assert W(_expect("new_level_unconfirmed"), href="\0").split("\0")[0] in shown
    assert book.index()[0]["new_level"] is True and book.index()[0]["jumped"] is False


def test_the_theme_folder_is_the_project_s(tmp_path):
    from reportgen.commands import build
    text = (ROOT / "mkdocs.yml").read_text(encoding="utf-8").replace("custom_dir: reportgen/publish/theme",
                                                                      "custom_dir: site/tpl")
    assert "custom_dir: site/tpl" in text
    (tmp_path / "mkdocs.yml").write_text(text, encoding="utf-8")
    with pytest.raises(ReportError) as err:
        build._config_problems(tmp_path)
    assert "theme.custom_dir" in str(err.value) and _expect("custom_dir_pinned") in str(err.value)


def test_only_the_pinned_scripts_are_listed():
    said = _on_config(extra_javascript=["snippets/evil.py"])
    assert _expect("scripts_listed_pinned") in said
    said = _on_config(extra={"polyfills": ["assets/vendor/LICENSE.vega"]})
    assert _expect("scripts_listed_pinned") in said


def test_a_page_s_failing_jinja_is_named_at_its_line():
    from reportgen.publish import pagecontent, sandbox
    env = sandbox.sandbox()
    for source, line in (("a\nb\n{% if 'a' in false %}x{% endif %}", 3), ("x\n{% for a in true %}{{ a }}{% endfor %}", 2)):
        with pytest.raises(ReportError) as err:
            sandbox.render(env, env.parse(source), {}, "docs/x.md")
        assert str(err.value).startswith(f"docs/x.md:{line}:") and _expect("page_jinja_fails_named") in str(err.value)
    for source in ("{% include 'a.md' %}", "{% extends 'a.md' %}", "{% import 'a.md' as a %}"):
        found = pagecontent.template_problem(env.parse(source))
        assert found is not None and _expect("page_jinja_include") in found.what


def test_mkdocs_yml_is_bounded(tmp_path):
    from reportgen.commands import build
    assert _expect("config_size") in _on_config(site_name="x" * 1_200_000)
    assert _expect("config_size") in _on_config(nav=[{f"p{i}": "index.md"} for i in range(600)])
    (tmp_path / "mkdocs.yml").write_text((ROOT / "mkdocs.yml").read_text(encoding="utf-8")
                                         + "# " + "x" * build.MAX_CONFIG_BYTES + "\n", encoding="utf-8")
    with pytest.raises(ReportError) as err:
        build._config_problems(tmp_path)
    assert "mkdocs.yml" in str(err.value)
