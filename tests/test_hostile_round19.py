"""The nineteenth round of the hostile corpus (issue #29), attack only, then fixed. Most of its
failures were round 18's citation rule read too narrowly: a failure said after punctuation, later in
the line or in Chinese; a median in other words or units (a Greek mu was a KeyError that stopped
every build); another statistic; a summary holding two figures. Also: a committed publishing marker
moved a published run aside; an attribute given twice (browsers keep the first, the checks read the
last); blank lookalike characters in one-line fields; a plugin that builds nested sites.

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
import subprocess

import pytest
from helpers import record, write_run
from test_hostile_round4 import _expect
from test_hostile_round15_rules import CASE, HOST, NEW
from test_hostile_round18 import _refused

MUTATIONS = {}
SUMMARY = f"[numpy_gemm] {CASE}: p50 0.0011 ms over 3 samples\n"


@pytest.mark.parametrize("line", [f"{CASE}. FAILED", f"{CASE} (check) FAILED", f"{CASE} -> FAILED",
                                  f"[{CASE}] FAILED", f"{CASE}: ok, but result differs", f"{CASE}: status=FAILED",
                                  f"{CASE}: result INCORRECT, NaN", f"{CASE}: \u7ed3\u679c\u9519\u8bef"])
def test_a_failure_said_anywhere_after_the_id_is_refused(tmp_path, line):
    _refused(tmp_path, line + "\n", "a cited line")


@pytest.mark.parametrize("line", ["p50 9.99 milliseconds", "p50 \u2248 9.99 ms", "p50 of 9.99 ms", "p50 (ms) 9.99",
                                  "p\u200b50 9.99 ms", "p50 9,99 ms", "mean 9.99 ms", "p50 9.99 \u03bcs",
                                  "p50 9.99 \u039cs", "p50 9.99 \u017f", "numpy_gemm/n= p50 9.99 ms"])
def test_a_statistic_in_other_words_or_units_is_read_and_compared(tmp_path, line):
    """9.99 in any unit is not the record's 1.1 us; a Greek mu or a long s was a KeyError (internal error)."""
    _refused(tmp_path, f"[numpy_gemm] {CASE}: {line}\n", "a cited line")


def test_a_summary_holding_two_figures_is_not_a_summary(tmp_path):
    _refused(tmp_path, f"[numpy_gemm] {CASE}: p50 0.0011/9.99 ms over 3 samples\n",
             "does not state the record's median and count", whole=True)


def test_a_committed_publishing_marker_moves_no_run(tmp_path, capsys):
    """Round 19 #15: a pull request committing .publishing-<R> and .tmp-<R>.lock made the next retest
    move the published run R aside (and keep it there while any other run failed the check)."""
    from reportgen.commands import retest
    results = tmp_path / "results"
    rec = record(run_id=NEW, case_id=CASE)
    rec["log"]["lines"] = [1, 1]
    write_run(results, NEW, [rec], log_text=SUMMARY, environment=HOST)
    runs = results / "runs"
    (runs / f".publishing-{NEW}").write_bytes(b"")
    (runs / f".tmp-{NEW}.lock").write_bytes(b"")
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    subprocess.run(["git", "-C", str(tmp_path), "add", "-f", f"results/runs/.publishing-{NEW}",
                    f"results/runs/.tmp-{NEW}.lock"], check=True)
    retest.clean_stale(runs)
    assert (runs / NEW / "run.json").is_file() and not (runs / f".tmp-{NEW}").exists()
    assert _expect("committed_publishing_marker") in capsys.readouterr().err


@pytest.mark.parametrize("name, text", [
    ("p.htm", '<script type="text/javascript" type="application/json">alert(1)</script>'),
    ("i.svg", '<svg xmlns="http://www.w3.org/2000/svg"><a href="x" href="javascript:alert(1)">x</a></svg>'),
])
def test_an_attribute_given_twice_is_refused(tmp_path, name, text):
    """Round 19 #16, #18: browsers keep the first of a repeated attribute, the checks kept the last."""
    _site_file_refused(tmp_path, name, text, "attribute_given_twice")


def _site_file_refused(tmp_path, name, text, case):
    """A site file ``name`` holding ``text`` is refused by the markup check with the case's words."""
    from reportgen.publish import sitecheck
    (tmp_path / name).write_text(text, encoding="utf-8")
    found = sitecheck.other_markup_problems(tmp_path, lambda rel: False)
    assert any(_expect(case) in p for p in found), found


@pytest.mark.parametrize("char", ["\u2800", "\u00a0", "\u2007", "\u3000", "\u0600", "\u06dd", "\U00013430"])
def test_a_blank_lookalike_in_a_one_line_field_is_refused(char):
    """Round 19 #20: 'AMD\\u2800EPYC' looked like 'AMD EPYC' (two machines, one name)."""
    from study import schema
    assert not schema._VISIBLE.match("AMD" + char + "EPYC"), _expect("blank_lookalike")


def test_only_the_plugins_the_project_uses_are_accepted(tmp_path):
    """Round 19 #23: material/projects builds nested mkdocs.yml files that no check reads."""
    from conftest import ROOT
    from reportgen.commands import build
    from reportgen.errors import ReportError
    text = (ROOT / "mkdocs.yml").read_text(encoding="utf-8").replace("  - offline\n", "  - offline\n  - material/projects\n")
    (tmp_path / "mkdocs.yml").write_text(text, encoding="utf-8")
    with pytest.raises(ReportError) as err:
        build._config_problems(tmp_path)
    assert "material/projects" in str(err.value) and _expect("snippets_base_path_root") in str(err.value)


def test_a_percent_escape_in_an_artifact_reference_is_refused():
    from study import ids
    assert "not an artifact reference" in ids.artifact_ref_problem(f"runs/{NEW}/artifacts/%2e%2e/%2e%2e/x")


SPECIAL = {case: None for case in ("committed_publishing_marker", "attribute_given_twice", "blank_lookalike")}
