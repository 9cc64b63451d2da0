"""The seventeenth round of the hostile corpus (issue #29), attack only; the failures fixed here are
those of mkdocs.yml as a reviewed input (a !!python tag ran a command when MkDocs loaded the file,
hooks: ran a file from anywhere, docs_dir and theme.custom_dir named folders outside the project,
hidden characters reached every page title), of the words files (an alias holding itself was a
RecursionError, aliases of aliases a walk of 10^9 strings), and of the citation rule (a cited line
naming its record could state another median or a failure).

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
import os
import re
import time

import pytest
from conftest import ROOT
from test_hostile_round4 import _expect, _one_line

from reportgen.commands import build
from reportgen.data import load, words
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




def test_an_iframe_srcdoc_is_an_inline_script(tmp_path):
    from reportgen.publish import sitecheck
    (tmp_path / "x.htm").write_text('<iframe srcdoc="&lt;script&gt;alert(1)&lt;/script&gt;"></iframe>', encoding="utf-8")
    found = sitecheck.other_markup_problems(tmp_path, lambda rel: False)
    assert any("srcdoc" in p and _expect("iframe_srcdoc") in p for p in found)   # (and, since round 21, the iframe)


@pytest.mark.parametrize("name, text, said", [
    ("a.html.map", "<script>alert(1)</script>", "an inline script"),            # round 17 #12: Apache types it HTML
    ("b.htm.jsonl", "<body onload=alert(1)>", "an event attribute"),
    ("x.htm", '<script src="https://evil.example/x.js"></script>', "content policy"),   # no CSP on .htm
    ("i.svg", '<svg xmlns="http://www.w3.org/2000/svg"><script src="//e.example/x.js"/></svg>', "content policy"),
])
def test_a_document_without_the_pages_policy_runs_no_script(tmp_path, name, text, said):
    from reportgen.publish import sitecheck
    (tmp_path / name).write_text(text, encoding="utf-8")
    (tmp_path / "bundle.f55a23d4.min.js").write_text('var s = "<script>";', encoding="utf-8")   # inert: script
    [found] = sitecheck.other_markup_problems(tmp_path, lambda rel: False)
    assert found.startswith(str(tmp_path / name)) and said in found
    if said == "content policy":
        assert _expect("document_without_policy") in found


@pytest.mark.parametrize("line", ["  results_dir: /", "  base_path: ../..", "  results_dir: ~/elsewhere"])
def test_mkdocs_yml_names_no_path_outside_the_project(line, tmp_path):
    (tmp_path / "mkdocs.yml").write_text(SOURCE.replace("extra:\n", "extra:\n" + line.replace(":", "_x:", 1) + "\n", 1),
                                         encoding="utf-8")
    with pytest.raises(ReportError) as err:
        build._config_problems(tmp_path)
    assert _expect("mkdocs_yml_path_outside") in _one_line(err.value)


def test_a_stop_during_the_stale_run_check_is_held_not_dropped(tmp_path):
    """In a process of its own (a test worker's signal setup is not a command's): the check of the
    leftover sends itself a Ctrl-C; the run is kept in place, then the stop lands."""
    import os
    import subprocess
    import sys
    from test_hostile_round16 import _stale
    results, runs, tmp = _stale(tmp_path)
    script = (
        "import os, signal, sys\n"
        "signal.signal(signal.SIGINT, signal.default_int_handler)   # as a command has it: a test worker ignores it\n"
        "from reportgen.commands import retest\n"
        "real, calls = retest.load.read_runs, []\n"
        "def check(results_dir):\n"
        "    calls.append(1)\n"
        "    if len(calls) == 2:   # the check with the run in place (the first is of the published runs)\n"
        "        signal.raise_signal(signal.SIGINT)   # to this thread: os.kill let a BLAS thread take it late\n"
        "        print('checked', flush=True)\n"
        "    return real(results_dir)\n"
        "retest.load.read_runs = check\n"
        "try:\n"
        "    retest.clean_stale(__import__('pathlib').Path(sys.argv[1]))\n"
        "except KeyboardInterrupt:\n"
        "    print('stopped', flush=True)\n")
    out = subprocess.run([sys.executable, "-c", script, str(runs)], capture_output=True, text=True, timeout=120,
                         env=dict(os.environ, PYTHONPATH=str(ROOT)), cwd=ROOT).stdout
    assert out.split() == ["checked", "stopped"], (out, _expect("stale_check_signal_held"))
    assert os.path.isdir(runs / tmp.name[len(".tmp-"):]) and not os.path.lexists(tmp)


def test_a_link_in_the_theme_folder_is_refused_and_pdf_prints_only_docs_pages(tmp_path, monkeypatch):
    import os
    from types import SimpleNamespace
    from reportgen.commands import pdf
    from reportgen.publish import plugin
    theme = tmp_path / "theme"
    theme.mkdir()
    (tmp_path / "key").write_text("secret")
    os.symlink(tmp_path / "key", theme / "key.txt")
    config = SimpleNamespace(config_file_path=str(ROOT / "mkdocs.yml"), docs_dir=str(ROOT / "docs"),
                             theme=SimpleNamespace(custom_dir=str(theme)))
    with pytest.raises(ReportError) as err:
        plugin.ReportgenPlugin.on_config(plugin.ReportgenPlugin.__new__(plugin.ReportgenPlugin), config)
    assert "key.txt" in str(err.value) and _expect("theme_link_nav_outside") in str(err.value)
    (tmp_path / "mkdocs.yml").write_text("nav:\n  - A: index.md\n  - B: /tmp/o/page.md\n  - C: ../x.md\n",
                                         encoding="utf-8")
    assert pdf.nav_pages(tmp_path)[0] == [("A", "index.md")]


def test_records_reused_from_a_run_of_unknown_commit_never_stand_for_a_case(tmp_path):
    """Run B carried unchanged the records of run A, which the build leaves out (its commit is not in
    the repository): A's figures became current through B, and retest would reuse them too."""
    import subprocess
    from helpers import record, write_run
    from reportgen.commands import retest
    from reportgen.data import runfacts
    a, b = "20261130T000000Z-quick-f6ab9f827cfd", "20261130T010000Z-quick-f6ab9f827cfd"
    own = record(run_id=b, case_id="numpy_gemm/dtype=float32/n=64/threads=1/blas=configured")
    carried = dict(record(run_id=a), reused_from=a)
    runs = [load_run(tmp_path, a, [record(run_id=a)]), load_run(tmp_path, b, [own, carried])]
    kept = runfacts.without_reused_from(runs[1], {a: "0" * 40})
    assert [r["id"] for r in kept.records] == [own["id"]], _expect("reused_from_unknown_commit")
    assert runfacts.without_reused_from(runs[0], {}) is runs[0]
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)   # the runs' all-zero commit is unknown here
    retest._valid_runs.cache_clear()
    assert retest._valid_runs(str(tmp_path / "results" / "runs")) == []
    retest._valid_runs.cache_clear()


def load_run(tmp_path, run_id, records):
    from helpers import write_run
    write_run(tmp_path / "results", run_id, records)
    return load.read_run(tmp_path / "results", tmp_path / "results" / "runs" / run_id)


SPECIAL = {case: None for case in ("mkdocs_yml_runs_or_reads_elsewhere", "words_alias_loop", "iframe_srcdoc",
                                   "mkdocs_yml_path_outside", "stale_check_signal_held", "theme_link_nav_outside",
                                   "reused_from_unknown_commit", "cited_line_contradicts_record",
                                   "stale_run_unknown_engine", "document_without_policy")}


@pytest.mark.parametrize("line, said", [
    ("p50 1.1 ms over 3 samples", "states another p50"),   # the record's p50 is 1.1 us
    ("FAILED result differs (max_rel_err 0.5)", "a cited line"),
    ("check_failed: differs", "a cited line reports 'check_failed'"),
    ("done", "does not state the record's median and count"),
])
def test_a_bound_record_citing_a_line_that_contradicts_it_is_refused(tmp_path, line, said):
    """Round 17 #16, #17: the citation rule checked that a cited line names the record, not that it
    agrees with it; a run under the rule is now refused when a line naming an ok record reports a
    failure or another median, or when no cited line prints a timed record's median."""
    from helpers import record, write_run
    from test_hostile_round15_rules import CASE, HOST, NEW
    results = tmp_path / "results"
    rec = record(run_id=NEW, case_id=CASE, samples=[1.1e-6, 1.1e-6, 1.1e-6])
    rec["log"]["lines"] = [1, 1]
    write_run(results, NEW, [rec], log_text=f"[numpy_gemm] {CASE}: {line}\n", environment=HOST)
    with pytest.raises(ReportError) as err:
        load.read_runs(results)
    problems = err.value.problems
    assert all("records.jsonl:1: log.lines" in p and _expect("cited_line_contradicts_record") in p for p in problems)
    assert any(said in p for p in problems)


def test_a_bound_record_whose_line_states_its_median_loads(tmp_path):
    from helpers import record, write_run
    from test_hostile_round15_rules import CASE, HOST, NEW
    results = tmp_path / "results"
    rec = record(run_id=NEW, case_id=CASE, samples=[1.1e-6, 1.1e-6, 1.1e-6])
    rec["log"]["lines"] = [1, 1]
    rec["log"]["lines"] = [1, 2]
    write_run(results, NEW, [rec], log_text=f"[numpy_gemm] {CASE}: p50_us=1.1 max_err=1e-06\n"
              f"[numpy_gemm] {CASE}: p50 0.0011 ms over 3 samples\n", environment=HOST)
    assert [r.run_id for r in load.read_runs(results)] == [NEW]


def test_a_stale_run_the_build_would_refuse_is_not_published(tmp_path, capsys):
    """Round 17 #18: clean_stale published a leftover run that passed load.read_runs but named an
    unknown engine, which the build refuses; every build then stopped until it was removed by hand.
    Both now apply plugin.checked_runs."""
    from helpers import record, write_run
    from test_hostile_round15_rules import HOST, NEW
    from reportgen.commands import retest
    case_id = "e2e/model=resnet18_v1/size=224/engine=zz/batch=1/threads=2"
    rec = record(NEW, case_id=case_id, case={"model": "resnet18_v1", "input_size": 224, "engine": "zz",
                                             "batch": 1, "threads": 2}, extra={})
    rec["log"]["lines"] = [1, 1]
    results = tmp_path / "results"
    write_run(results, NEW, [rec], log_text=f"[e2e] {case_id}: p50 1.1 ms over 3 samples\n", environment=HOST)
    assert load.read_runs(results)   # valid alone: only the build's engine check refuses it
    runs = results / "runs"
    os.rename(runs / NEW, runs / f".tmp-{NEW}")
    (runs / f".tmp-{NEW}.lock").write_text("")
    assert retest.clean_stale(runs) == [runs / f".tmp-{NEW}"]
    assert not os.path.lexists(runs / NEW) and _expect("stale_run_unknown_engine") in capsys.readouterr().out
