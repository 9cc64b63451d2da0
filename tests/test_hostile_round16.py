"""The sixteenth round of the hostile corpus (issue #29), an attack-only verification round whose
failures are fixed here: a committed results/campaigns link (a campaign commit removed and wrote
files in the folder it named); an artifact reference into a hidden runs/.x folder (copied a planted
link's target into the new run); mkdocs.yml's INHERIT and !ENV (settings and environment values
published unreviewed); a .tmp-<id> folder a retest never made, or one that fails the cross-run
checks, put into place by the next retest's clean_stale; a stale folder's name printed with its
newline (a forged status line).

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
import os
import shutil
import subprocess

import pytest
from conftest import ROOT
from test_hostile_round4 import _expect, _one_line
from test_hostile_round15_rules import CASE, HOST, NAMED, NEW, _run

from reportgen.commands import build, retest
from reportgen.data import load
from reportgen.errors import ReportError

MUTATIONS = {}


def test_retest_commits_no_campaign_through_a_linked_campaigns_folder(tmp_path):
    shutil.copytree(ROOT / "experiments", tmp_path / "experiments", ignore=shutil.ignore_patterns("__pycache__"))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "results" / "runs").mkdir(parents=True)
    (tmp_path / "results" / "campaigns").symlink_to(elsewhere)
    with pytest.raises(ReportError) as err:
        retest.retest(tmp_path, "quick", only=("numpy_gemm",))
    assert _expect("campaigns_folder_link") in _one_line(err.value)
    assert str(tmp_path / "results" / "campaigns") in str(err.value) and list(elsewhere.iterdir()) == []


def test_an_artifact_reference_into_a_hidden_runs_folder_is_refused(tmp_path):
    from experiments import harness
    h = harness.Harness.__new__(harness.Harness)
    h.run_id, h.results_root = "20261201T000000Z-standard-f6ab9f827cfd", tmp_path / "results"
    for ref in ("runs/.x/artifacts/db", "runs/.tmp-20261201T000000Z-quick-aaaaaaaaaaaa/artifacts/db"):
        with pytest.raises(ValueError) as err:
            h.artifact_path(ref)
        assert _expect("artifact_ref_hidden_run") in str(err.value)


@pytest.mark.parametrize("ref", ["runs/../../etc/artifacts/x", f"runs/{NEW}/artifacts/../../../etc/passwd",
                                 f"runs/{NEW}/artifacts/a\\..\\b", "/etc/passwd", f"runs/{NEW}/artifacts"])
def test_a_record_naming_an_artifact_outside_the_runs_is_refused_at_load(tmp_path, ref):
    """Refused where it was followed before (harness.artifact_path, load.read_artifact); now a record
    holding one is refused when its run is read, naming the field (the same rule, study.ids)."""
    from helpers import record, write_run
    results = tmp_path / "results"
    rec = record(run_id=NEW, case_id=CASE, extra={"artifacts": {"tir": ref}})
    rec["log"]["lines"] = [1, 1]
    write_run(results, NEW, [rec], log_text=NAMED, environment=HOST)
    with pytest.raises(ReportError) as err:
        load.read_runs(results)
    [problem] = err.value.problems
    assert "records.jsonl:1: extra.artifacts.tir: " in problem and _expect("artifact_ref_hidden_run") in problem


@pytest.mark.parametrize("text, what", [("INHERIT: ../outside.yml", "INHERIT"),
                                        ("site_description: !ENV HOME", "!ENV"),
                                        ("site_description: !relative $config_dir", "!relative")])
def test_mkdocs_yml_takes_no_inherited_file_and_no_tag(text, what, tmp_path):
    import re
    source = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    changed = text + "\n" + source if what == "INHERIT" else re.sub(r"(?m)^site_description: .*$", text, source)
    (tmp_path / "mkdocs.yml").write_text(changed, encoding="utf-8")
    with pytest.raises(ReportError) as err:
        build._config_problems(tmp_path)
    assert what in _one_line(err.value) and _expect("mkdocs_yml_inherit_env") in str(err.value)


def _stale(tmp_path, lock=True):
    results = _run(tmp_path, NEW, NAMED)
    runs = results / "runs"
    tmp = runs / f".tmp-{NEW}"
    os.rename(runs / NEW, tmp)
    if lock:
        (runs / f".tmp-{NEW}.lock").write_text("")
    return results, runs, tmp


def test_a_stale_folder_no_retest_made_is_never_published(tmp_path):
    """A committed .tmp-<id> (git add -f; hidden from git status and from the pull request's build) was
    published by the next retest: only a folder with its retest's lock beside it and nothing tracked."""
    results, runs, tmp = _stale(tmp_path, lock=False)
    assert retest.clean_stale(runs) == [tmp] and not os.path.lexists(runs / NEW)
    results, runs, tmp = _stale(tmp_path / "git")
    subprocess.run(["git", "init", "-q", str(tmp_path / "git")], check=True)
    subprocess.run(["git", "-C", str(tmp_path / "git"), "add", "-f", "."], check=True)
    # round 20: a committed folder is left in place (removing it deleted tracked files), never published
    assert retest.clean_stale(runs) == [] and tmp.is_dir() and not os.path.lexists(runs / NEW)
    assert _expect("stale_run_not_made_by_retest")


def test_a_stale_run_failing_the_cross_run_checks_is_not_published(tmp_path, capsys):
    """read_run checked it alone; a build also checks it against the other runs and then refused every
    build until it was removed by hand."""
    results, runs, tmp = _stale(tmp_path)
    from helpers import record, write_run
    other = NEW[:9] + "120000Z-standard-" + HOST["machine_id"]   # the same second, another profile
    rec = record(run_id=other, case_id="numpy_gemm/dtype=float32/n=64/threads=1/blas=configured")
    rec["log"]["lines"] = [1, 1]
    write_run(results, other, [rec],
              log_text="[numpy_gemm] numpy_gemm/dtype=float32/n=64/threads=1/blas=configured: p50 1.1 ms over 3 samples\n",
              environment=HOST, profile="standard")
    with pytest.raises(ReportError):   # the two runs together are refused (which ran first?)
        os.rename(tmp, runs / NEW)
        try:
            load.read_runs(results)
        finally:
            os.rename(runs / NEW, tmp)
    assert retest.clean_stale(runs) == [tmp] and not os.path.lexists(runs / NEW)
    assert _expect("stale_run_cross_checks") in capsys.readouterr().out


def test_a_stale_folder_name_is_printed_on_one_line(tmp_path, capsys):
    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / ".tmp-x\npublished 20990101T000000Z-standard-aaaaaaaaaaaa").mkdir()
    retest.clean_stale(runs)
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and _expect("stale_name_one_line") in out


def test_a_document_named_with_a_trailing_dot_is_read_for_scripts(tmp_path):
    from reportgen.publish import sitecheck
    (tmp_path / "b.html.").write_text("<p>x</p><script>alert(1)</script>", encoding="utf-8")
    (tmp_path / "notes").write_text("<script>plain text without a type</script>", encoding="utf-8")
    found = sitecheck.other_markup_problems(tmp_path, lambda rel: False)
    assert len(found) == 1 and "b.html." in found[0] and _expect("document_trailing_dot") in found[0]


SPECIAL = {case: None for case in (
    "campaigns_folder_link", "artifact_ref_hidden_run", "mkdocs_yml_inherit_env", "stale_run_not_made_by_retest",
    "stale_run_cross_checks", "stale_name_one_line", "document_trailing_dot")}
