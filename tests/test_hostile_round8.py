"""The eighth round of the hostile corpus (issue #29): git facts of the wrong type or shape (a commit
that is a number, null, or holds a newline that shifts `git cat-file --batch-check`'s answers for
every later run; dirty as a string), environment fields the environment table reads but no rule
required, a 1 MB log line shipped whole in every excerpt that cites it, words files that are not
plain UTF-8 files of bounded size (a FIFO, a link outside the project, invalid UTF-8, 3 GB), docs/
and archive/ entries that are links to outside the project (MkDocs copies what a link points to),
a folder listing under `serve`, and a numbers.json figure text that is not text.

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
import json
import os
import shutil
import signal
import socket
import subprocess
import threading
from types import SimpleNamespace

import pytest
from conftest import ROOT
from helpers import record, write_run
from test_hostile_round2 import _manifest
from test_hostile_round4 import CASES, RUN, _expect

from reportgen.commands import serve
from reportgen.data import archive, load, logtext, plainfile, runfacts, words
from reportgen.errors import ReportError
from reportgen.publish import sitecheck
from reportgen.publish import plugin, verify


MUTATIONS = {
    "git_commit_int": _manifest(lambda m: m["git"].update(commit=12345)),
    "git_commit_null": _manifest(lambda m: m["git"].update(commit=None)),
    "git_commit_newline": _manifest(lambda m: m["git"].update(commit="0\n0")),
    "git_dirty_string": _manifest(lambda m: m["git"].update(dirty="no")),
    "env_blas_env_missing": _manifest(lambda m: m["environment"].pop("blas_env")),
    "env_cpu_mhz_missing": _manifest(lambda m: m["environment"].pop("cpu_mhz")),
    "env_physical_cores_missing": _manifest(lambda m: m["environment"].pop("physical_cores")),
    "env_cpu_family_model_missing": _manifest(lambda m: m["environment"].pop("cpu_family_model")),
}


@pytest.mark.parametrize("case", sorted(MUTATIONS))
def test_round8_run_json_is_refused_in_one_line_naming_the_file_and_field(case, tmp_path):
    """Before round 8 each of these loaded, and the runs table (commit[:10]) or the environment
    table (env["blas_env"]) stopped the build with an internal TypeError or KeyError."""
    results = tmp_path / "results"
    results.mkdir()
    MUTATIONS[case](results)
    with pytest.raises(ReportError) as err:
        load.read_runs(results)
    lines, field = err.value.problems, CASES[case].get("field", "")
    assert any(p.startswith(str(results)) and field in p and _expect(case) in p for p in lines), lines
    assert not [p for p in lines if "\n" in p]


def test_the_committed_runs_and_the_test_environment_hold_to_the_round8_rules(tmp_path):
    assert load.read_runs(ROOT / "results")
    write_run(tmp_path, RUN, [record(RUN)])
    assert load.read_runs(tmp_path)


def test_a_commit_with_a_newline_never_shifts_the_answers_for_other_runs():
    """git cat-file --batch-check reads one commit a line: "0\\n0" was two lines, and the answer
    for this checkout's HEAD was read against the wrong line, so a genuine run was 'unknown'."""
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True,
                          check=True).stdout.strip()
    runs = [SimpleNamespace(run_id=rid, manifest={"git": {"commit": commit}})
            for rid, commit in (("forged", "0\n0"), ("genuine", head))]
    assert runfacts.unknown_commits(ROOT, runs) == {"forged": "0\n0"}, _expect("git_commit_newline_shift")


def test_a_cited_line_of_a_megabyte_ships_cut(tmp_path):
    """Another machine's records ship their cited lines (data/logs/...): a 1 MB line shipped whole
    once per record that cites it (the provenance page already cut it)."""
    write_run(tmp_path, RUN, [record(RUN)], log_text="x" * 1_000_000 + "\nline two\n")
    rec = load.read_runs(tmp_path)[0].records[0]
    text = logtext.excerpt_text(tmp_path, rec)
    assert len(text) < 3 * logtext.EXCERPT_LINE_CHARS and "more characters of this line left out" in text, \
        _expect("log_line_1mb_excerpt")
    assert text.endswith("line two\n")


# -- which run is current, and which drift is flagged ----------------------------------------------

def test_a_run_that_claims_to_finish_months_later_does_not_stay_current(tmp_path):
    """finished_at is the run's own claim (bounded only below by its families' durations): a run
    started on Jan 1 that says it finished on Jun 1 stayed current over a run started on Feb 1."""
    from reportgen.data import merge
    early, later = RUN, "20260201T000000Z-quick-f6ab9f827cfd"
    write_run(tmp_path, early, [record(early, samples=(1e-4,) * 3)], finished_at="2026-06-01T00:00:00Z")
    write_run(tmp_path, later, [record(later)])
    current = merge.current_records(load.read_runs(tmp_path))
    assert current[record(RUN)["id"]].run.run_id == later, _expect("time_travel_finished_late")


def test_a_staircase_of_runs_each_under_the_jump_is_flagged(tmp_path):
    """1.0, 0.55, 0.3, 0.17 ms of one code and environment: no step is a 2x jump, the whole is 5.9x."""
    from reportgen.pages import history
    ids = [f"202601{day:02d}T000000Z-quick-f6ab9f827cfd" for day in (1, 2, 3, 4)]
    for run_id, p50 in zip(ids, (1e-3, 0.55e-3, 0.3e-3, 0.17e-3)):
        write_run(tmp_path, run_id, [record(run_id, samples=(p50, p50 * 1.01, p50 * 1.02))])
    found = history.jumps(load.read_runs(tmp_path))
    # round 38: a jump of the same code is no new level, so the next step (0.17 against 0.55) is one too
    assert [(before, after) for _case, before, after, _ratio in found] == [(ids[0], ids[2]), (ids[1], ids[3])], \
        _expect("history_staircase")


# -- words files: a plain UTF-8 file of bounded size, or one line naming it --------------------------

def _plant_words(tmp_path, monkeypatch, make):
    folder = tmp_path / "docs" / "words"
    folder.mkdir(parents=True)
    monkeypatch.setattr(words, "ROOT", tmp_path)
    monkeypatch.setattr(words, "WORDS", folder)
    make(folder / "w.yaml", tmp_path)


def _sparse(path, _tmp):
    with open(path, "wb") as fh:
        fh.truncate(3 * 2**30)


def _outside(path, tmp):
    (tmp / "outside.yaml").write_text("k: SECRET FROM OUTSIDE\n", encoding="utf-8")
    path.symlink_to(tmp / "outside.yaml")


WORDS = {
    "words_invalid_utf8": lambda path, _tmp: path.write_bytes(b"k: caf\xff\n"),
    "words_fifo": lambda path, _tmp: os.mkfifo(path),
    "words_symlink_outside": _outside,
    "words_sparse_huge": _sparse,
}


@pytest.mark.parametrize("case", sorted(WORDS))
def test_a_words_file_that_is_no_plain_utf8_file_is_refused_in_one_line(case, tmp_path, monkeypatch):
    """Before round 8: invalid UTF-8 ended in 'internal error UnicodeDecodeError', a FIFO blocked the
    build for ever, a link read (and published) a file outside the project, 3 GB filled the memory."""
    _plant_words(tmp_path, monkeypatch, WORDS[case])

    def hung(*_):
        raise TimeoutError("reading the words blocked")
    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(20)
    try:
        with pytest.raises(ReportError) as err:
            words.W("w.k")
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    (line,) = err.value.problems
    assert line.startswith("docs/words/w.yaml: ") and _expect(case) in line and "\n" not in line, line


# -- docs/ and archive/: no link to outside the project -----------------------------------------------

def _docs(tmp_path, plant):
    docs = tmp_path / "docs"
    (docs / "assets").mkdir(parents=True)
    (docs / "index.md").write_text("# x\n", encoding="utf-8")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("id_rsa\n", encoding="utf-8")
    plant(docs, outside)
    (tmp_path / "mkdocs.yml").write_text("site_name: x\n", encoding="utf-8")
    return SimpleNamespace(docs_dir=str(docs), config_file_path=str(tmp_path / "mkdocs.yml"),
                           theme=SimpleNamespace(custom_dir=None))


DOCS = {
    "docs_page_symlink_outside": lambda docs, out: (docs / "leak.md").symlink_to(out / "secret.md"),
    "docs_folder_symlink_outside": lambda docs, out: (docs / "assets" / "leak").symlink_to(out),
    "docs_fifo": lambda docs, out: os.mkfifo(docs / "page.md"),
}


@pytest.mark.parametrize("case", sorted(DOCS))
def test_the_build_refuses_a_docs_entry_that_is_no_plain_file_before_mkdocs_reads_it(case, tmp_path):
    """MkDocs follows links in docs/ and copies (or renders) what they point to: a committed
    docs/leak.md -> ~/.ssh/id_rsa was published by `make site`; a FIFO page hung the build."""
    config = _docs(tmp_path, DOCS[case])
    with pytest.raises(ReportError) as err:
        plugin.ReportgenPlugin().on_config(config)   # refused before the results are even read
    assert any(p.startswith(config.docs_dir) and _expect(case) in p for p in err.value.problems), err.value.problems


def test_the_project_docs_folder_holds_only_plain_files():
    assert plainfile.tree_problems(ROOT / "docs", "docs/") == []


def test_an_archive_folder_that_is_a_link_is_refused(tmp_path):
    """archive/ -> a sealed archive elsewhere: every table of it was read and published."""
    shutil.copytree(ROOT / "archive", tmp_path / "elsewhere")
    (tmp_path / "archive").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(ReportError) as err:
        archive.read_archive(tmp_path / "archive")
    (line,) = err.value.problems
    assert line.startswith(str(tmp_path / "archive")) and _expect("archive_dir_symlink") in line


# -- serve: no folder listing --------------------------------------------------------------------------

def test_serve_lists_no_folder(tmp_path):
    site = tmp_path / "site"
    (site / "data" / "runs").mkdir(parents=True)
    (site / "index.html").write_text("<html>home</html>", encoding="utf-8")
    (site / "404.html").write_text("<html>not here</html>", encoding="utf-8")
    (site / "data" / "runs" / "a.log").write_text("x\n", encoding="utf-8")
    sitecheck.write_manifest(site)   # serve answers only what a build listed
    httpd = serve.open_server(site, 0)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        with socket.create_connection(("127.0.0.1", httpd.server_address[1]), timeout=10) as conn:
            conn.sendall(b"GET /data/runs/ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            data = b""
            while chunk := conn.recv(65536):
                data += chunk
    finally:
        httpd.shutdown()
        httpd.server_close()
    assert data.startswith(b"HTTP/1.0 404") and b"a.log" not in data, _expect("serve_dir_listing")
    assert b"X-Content-Type-Options: nosniff" in data


# -- verify: a figure's text in numbers.json is text ----------------------------------------------------

def test_verify_refuses_a_figure_value_that_is_no_text(tmp_path):
    """A list as a figure's value ended in 'internal error TypeError: unhashable type'."""
    (tmp_path / "numbers.json").write_text(json.dumps(
        [{"id": "x/y", "page": "index.md", "kind": "historical", "value": [1]}]), encoding="utf-8")
    problems = verify._check_site(tmp_path, {}, {})
    assert any(p.startswith(str(tmp_path / "numbers.json")) and _expect("verify_numbers_value_list") in p
               for p in problems), problems


SPECIAL = {**{case: None for case in WORDS}, **{case: None for case in DOCS},
           "git_commit_newline_shift": None, "log_line_1mb_excerpt": None, "archive_dir_symlink": None,
           "serve_dir_listing": None, "verify_numbers_value_list": None,
           "time_travel_finished_late": None, "history_staircase": None}
