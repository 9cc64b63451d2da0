"""The hostile corpus (tests/data/hostile/cases.yaml): nothing executes, nothing leaks,
nothing is lost, nothing wrong is published.

Every case of the corpus is run here (the process cases in test_hostile_processes.py);
build cases also check that the published site and results/ are byte-identical afterwards.
"""
import hashlib
import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from html.parser import HTMLParser
from pathlib import Path

import markdown
import pytest
import yaml
from conftest import ROOT, copy_built
from helpers import record, write_run

from reportgen.data import archive, load
from reportgen.commands import build, serve, trace
from reportgen.render import cells, provenance
from reportgen import cli
from study import stats
from reportgen.publish import verify
from reportgen.errors import ReportError

CORPUS = yaml.safe_load((ROOT / "tests" / "data" / "hostile" / "cases.yaml").read_text(encoding="utf-8"))["cases"]
CASES = {c["id"]: c for c in CORPUS}
RUN = "20260101T000000Z-quick-f6ab9f827cfd"
OTHER = "20260102T000000Z-quick-f6ab9f827cfd"
PROCESS_TESTS = {"proc_kill_9": "test_kill_9_of_retest_leaves_no_process",
                 "proc_sigterm": "test_sigterm_of_retest_kills_family_and_says_so",
                 "proc_stale_tmp": "test_stale_tmp_folders_are_removed_live_ones_kept"}


def _ids(cls):
    return [c["id"] for c in CORPUS if c["class"] == cls and "payload" in c]


def test_corpus_is_well_formed_and_every_case_has_a_test():
    assert len(CORPUS) == len(CASES) >= 40
    assert {c["outcome"] for c in CORPUS} <= {"refused", "text", "handled"}
    import importlib
    implemented = set(_ids("injection")) | set(MUTATIONS) | set(PROCESS_TESTS) | set(SPECIAL)
    for path in sorted(Path(__file__).parent.glob("test_hostile_round*.py")):   # every later round's file
        module = importlib.import_module(path.stem)
        implemented |= set(module.MUTATIONS) | set(module.SPECIAL)
    assert implemented == set(CASES)
    import test_hostile_processes
    assert all(hasattr(test_hostile_processes, name) for name in PROCESS_TESTS.values())


# -- 1. injection: every sink renders the payload as inert text ----------------------------

EXTENSIONS = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))["markdown_extensions"]
SAFE_TAGS = {"table", "thead", "tbody", "tr", "th", "td", "code", "pre", "span", "p", "a", "br", "details",
             "summary", "h3", "strong", "div", "em"}


class _Markup(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.bad, self.text = [], []

    def handle_starttag(self, tag, attrs):
        if tag not in SAFE_TAGS:
            self.bad.append(f"<{tag}>")
        for name, value in attrs:
            if name.startswith("on") or (value or "").strip().lower().startswith(("javascript:", "data:")):
                self.bad.append(f"<{tag} {name}={value!r}>")

    def handle_data(self, data):
        self.text.append(data)


def _md(source):
    ext, config = [], {}
    for item in EXTENSIONS:
        if isinstance(item, dict):
            (name, conf), = item.items()
            ext.append(name)
            config[name] = conf
        else:
            ext.append(item)
    return markdown.markdown(source, extensions=ext, extension_configs=config)


def _markup(html_text):
    parser = _Markup()
    parser.feed(html_text)
    return parser


class _Book:
    def failed(self, cur):
        from reportgen.render.figures import FigureBook
        book = FigureBook()
        book.set_page("e2e.md")
        return book.failed(cur)


class _Cur:
    def __init__(self, rec, run):
        self.record, self.run = rec, run


def _sinks(payload, tmp_path):
    """The payload in every kind of place a record string reaches a page."""
    rec = record(RUN, status="run_failed", error=payload,
                 check={"reference": "none", "max_abs_err": None, "max_rel_err": None, "threshold": None,
                        "passed": None})
    rec.update(samples=[], stats=None, repeat=0)
    run_path = write_run(tmp_path / "results", RUN, [rec], log_text=f"start\n{payload}\nend\n")
    [run] = load.read_runs(tmp_path / "results")
    cur = _Cur(run.records[0], run)
    return {
        "table cell": f"| a | b |\n|---|---|\n| {cells.text(payload)} | x |\n",
        "sentence + attr_list": f"本次 {cells.text(payload)}\n\n{cells.text(payload)}\n{{: .ok}}\n",
        "code span in table": f"| a |\n|---|\n| {cells.code_span(payload)} |\n",
        "admonition title + block": f'??? note "{cells.text(payload)}"\n' + cells.code_block(payload, "diff", "    "),
        "code block": cells.code_block(payload, "text") + "\n\nafter the block <- must stay outside\n",
        "failed figure title": f"| a |\n|---|\n| {_Book().failed(cur)} |\n",
        "provenance entry": provenance.entry(tmp_path / "results", cur, "../data"),
        "_run": run_path,
    }


@pytest.mark.parametrize("case", _ids("injection"))
def test_injection_is_rendered_as_text(case, tmp_path):
    payload = CASES[case]["payload"]
    sinks = _sinks(payload, tmp_path)
    sinks.pop("_run")
    for where, source in sinks.items():
        html_text = _md(source)
        parsed = _markup(html_text)
        assert parsed.bad == [], f"{case} in {where}: live markup {parsed.bad}\n{html_text}"
        assert "<script" not in html_text.lower() and "<img" not in html_text.lower(), where
    block = _md(cells.code_block(payload, "text") + "\n\nafter\n")
    assert "<p>after</p>" in block, f"{case}: the code block did not stay closed"


# -- 2-3. paths and figures: mutations of a valid results folder -------------------------

def _good(tmp_path, **overrides):
    return write_run(tmp_path, RUN, [record(RUN, **overrides)])


def _symlink_log(tmp):
    run = _good(tmp)
    log = run / "logs" / "numpy_gemm.log"
    log.unlink()
    log.symlink_to("/etc/passwd")


def _symlink_logs_dir(tmp):
    run = _good(tmp)
    shutil.rmtree(run / "logs")
    (run / "logs").symlink_to("/etc")


def _symlink_artifact(tmp):
    run = _good(tmp)
    (run / "artifacts").mkdir()
    (run / "artifacts" / "ir.txt").symlink_to("/etc/passwd")


def _symlink_run(tmp):
    real = _good(tmp / "elsewhere")
    (tmp / "runs").mkdir()
    (tmp / "runs" / RUN).symlink_to(real)


def _log_path(path):
    def mutate(tmp):
        log = {"path": path, "lines": [1, 1], "sha256": "0" * 64}
        write_run(tmp, RUN, [record(RUN, log=log)])
    return mutate


def _log_other_run(tmp):
    write_run(tmp, OTHER, [record(OTHER)])
    write_run(tmp, RUN, [record(RUN, log={"path": f"runs/{OTHER}/logs/numpy_gemm.log", "lines": [1, 2],
                                          "sha256": "pending"})])


def _samples(first):
    def mutate(tmp):
        samples = [first, 0.0011, 0.0012]
        rec = record(RUN, samples=samples)
        rec["stats"] = stats.summarize(samples)
        write_run(tmp, RUN, [rec])
    return mutate


def _check(**change):
    def mutate(tmp):
        rec = record(RUN)
        rec["check"].update(change)
        write_run(tmp, RUN, [rec])
    return mutate


def _record_edited(tmp):
    run = _good(tmp)
    rec = json.loads((run / "records.jsonl").read_text())
    rec["samples"] = [s / 10 for s in rec["samples"]]   # faster, and stats recomputed to match
    rec["stats"] = stats.summarize(rec["samples"])
    (run / "records.jsonl").write_text(json.dumps(rec) + "\n")


def _file_added(tmp):
    (_good(tmp) / "logs" / "extra.log").write_text("planted\n")


def _reseal_run(run):
    """Recompute run.json's files as retest would (so only the defect made afterwards is left)."""
    manifest = json.loads((run / "run.json").read_text())
    manifest["files"] = {p.relative_to(run).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
                         for p in sorted(run.rglob("*")) if p.is_file() and p.name != "run.json"}
    (run / "run.json").write_text(json.dumps(manifest))


def _file_deleted(tmp):
    run = _good(tmp)
    (run / "artifacts").mkdir()
    (run / "artifacts" / "ir.txt").write_text("ir\n")
    _reseal_run(run)
    (run / "artifacts" / "ir.txt").unlink()


def _record_run_id(tmp):
    rec = record(OTHER)
    rec["log"]["path"] = f"runs/{RUN}/logs/numpy_gemm.log"
    write_run(tmp, RUN, [rec])


def _manifest_run_id(tmp):
    run = _good(tmp)
    manifest = json.loads((run / "run.json").read_text())
    manifest.update(run_id=OTHER, started_at="2026-01-02T00:00:00Z", finished_at="2026-01-02T00:10:00Z")
    (run / "run.json").write_text(json.dumps(manifest))


def _nested(obj, key, value):
    def mutate(tmp):
        rec = record(RUN)
        rec[obj][key] = value
        write_run(tmp, RUN, [rec])
    return mutate


def _manifest(fn):
    def mutate(tmp):
        run = _good(tmp)
        manifest = json.loads((run / "run.json").read_text())
        fn(manifest)
        (run / "run.json").write_text(json.dumps(manifest))
    return mutate


def _run_json_deleted(tmp):
    (_good(tmp) / "run.json").unlink()


def _records_empty(tmp):
    write_run(tmp, RUN, [])


def _records_deleted(tmp):
    run = _good(tmp)
    (run / "records.jsonl").unlink()


def _reused(tamper, keep_origin=True):
    def mutate(tmp):
        write_run(tmp, RUN, [record(RUN)])
        original = json.loads((tmp / "runs" / RUN / "records.jsonl").read_text())
        carried = dict(original, reused_from=RUN)
        if tamper:
            carried["samples"] = [s / 2 for s in carried["samples"]]
            carried["stats"] = stats.summarize(carried["samples"])
        write_run(tmp, OTHER, [carried])
        if not keep_origin:
            shutil.rmtree(tmp / "runs" / RUN)
    return mutate


def _nan(tmp):
    run = _good(tmp)
    text = (run / "records.jsonl").read_text().replace('"samples": [0.001', '"samples": [NaN', 1)
    (run / "records.jsonl").write_text(text)


def _truncated(tmp):
    run = _good(tmp)
    text = (run / "records.jsonl").read_text()
    (run / "records.jsonl").write_text(text[: len(text) // 2] + "\n")


def _case_value(value):
    def mutate(tmp):
        rec = record(RUN)
        rec["case"]["model"] = value
        write_run(tmp, RUN, [rec])
    return mutate


MUTATIONS = {
    "inj_case_label_link": _case_value("[x](javascript:alert(1))"),
    "inj_case_label_attr_list": _case_value("resnet{: onclick=alert(1)}"),
    "path_log_symlink": _symlink_log,
    "path_logs_dir_symlink": _symlink_logs_dir,
    "path_artifact_symlink": _symlink_artifact,
    "path_run_dir_symlink": _symlink_run,
    "path_log_dotdot": _log_path(f"runs/{RUN}/logs/../../../../etc/passwd"),
    "path_log_absolute": _log_path("/etc/passwd"),
    "path_log_other_run": _log_other_run,
    "fig_negative_sample": _samples(-0.001),
    "fig_zero_sample": _samples(0.0),
    "fig_ok_check_failed": _check(passed=False),
    "fig_error_above_threshold": _check(max_abs_err=0.5, max_rel_err=0.2, threshold=1e-5),
    "fig_check_error_not_number": _check(max_abs_err="tiny"),
    "fig_record_edited": _record_edited,
    "fig_file_added": _file_added,
    "fig_file_deleted": _file_deleted,
    "fig_record_run_id": _record_run_id,
    "fig_manifest_run_id": _manifest_run_id,
    "fig_unknown_check_key": _nested("check", "note", "trust me"),
    "fig_unknown_log_key": _nested("log", "url", "http://example.com/log"),
    "fig_unknown_stats_key": _nested("stats", "p999", 0.002),
    "fig_unknown_git_key": _manifest(lambda m: m["git"].update(signed_by="someone trusted")),
    "fig_family_status_bogus": _manifest(lambda m: m["experiments"]["numpy_gemm"].update(status="fine")),
    "fig_run_json_deleted": _run_json_deleted,
    "fig_records_empty": _records_empty,
    "fig_records_deleted": _records_deleted,
    "fig_reused_tampered": _reused(tamper=True),
    "fig_reused_origin_missing": _reused(tamper=False, keep_origin=False),
    "fig_nan_sample": _nan,
    "fig_truncated_line": _truncated,
}


@pytest.mark.parametrize("case", [c for c in MUTATIONS])
def test_hostile_results_are_refused_naming_the_file(case, tmp_path):
    MUTATIONS[case](tmp_path)
    with pytest.raises(ReportError) as err:
        load.read_runs(tmp_path)
    text = "\n".join(err.value.problems)
    assert CASES[case]["expect"] in text
    assert str(tmp_path) in text, "the message names the file"
    assert "/etc/passwd" not in text.replace("'/etc/passwd'", "").replace("/etc/passwd'", "") or "symlink" in text


def test_the_unmutated_run_loads(tmp_path):
    _good(tmp_path)
    assert len(load.read_runs(tmp_path)) == 1


def test_reused_record_carried_unchanged_loads(tmp_path):
    _reused(tamper=False)(tmp_path)
    assert [r.run_id for r in load.read_runs(tmp_path)] == [RUN, OTHER]


def _artifact(tmp_path, ref):
    _good(tmp_path)
    with pytest.raises(ReportError) as err:
        load.read_artifact(tmp_path, ref)
    return str(err.value)


def test_artifact_dotdot(tmp_path):
    assert CASES["path_artifact_dotdot"]["expect"] in _artifact(tmp_path, f"runs/{RUN}/artifacts/../../../../etc/passwd")


def test_artifact_outside_artifacts(tmp_path):
    assert CASES["path_artifact_outside_artifacts"]["expect"] in _artifact(tmp_path, f"runs/{RUN}/run.json")


def test_trace_never_prints_a_symlinked_log(tmp_path):
    _symlink_log(tmp_path / "results")
    with pytest.raises(ReportError) as err:
        trace.trace(tmp_path, "numpy_gemm/dtype=float32/n=32/threads=1/blas=configured")
    assert CASES["path_trace_symlink"]["expect"] in str(err.value)
    assert "root:" not in str(err.value)


def test_trace_sends_no_control_characters_to_the_terminal(tmp_path):
    rec = record(RUN, status="run_failed", error="\x1b]0;pwned\x07\x1b[2J boom",
                 check={"reference": "none", "max_abs_err": None, "max_rel_err": None, "threshold": None,
                        "passed": None})
    rec.update(samples=[], stats=None, repeat=0)
    write_run(tmp_path / "results", RUN, [rec], log_text="\x1b[31mred\x1b[0m\nline two\x1b[2J\nthree\n")
    out = trace.trace(tmp_path, rec["id"])
    assert "boom" in out and "red" in out
    assert not any(ord(c) < 32 and c not in "\n\t" for c in out), CASES["path_trace_terminal_escape"]["expect"]


# -- 4. history: the sealed archive ---------------------------------------------------------

@pytest.fixture
def archive_copy(tmp_path):
    dest = tmp_path / "archive"
    shutil.copytree(ROOT / "archive", dest)
    return dest


def _archive_problem(archive_dir):
    with pytest.raises(ReportError) as err:
        archive.read_archive(archive_dir)
    assert len(err.value.problems) >= 1 and all("\n" not in p for p in err.value.problems)
    return "\n".join(err.value.problems)


def test_archive_one_digit(archive_copy):
    path = archive_copy / "tables" / "s21_numpy.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("1.82", "1.83", 1), encoding="utf-8")
    text = _archive_problem(archive_copy)
    assert CASES["hist_one_digit"]["expect"] in text and archive.RESEAL in text and "s21_numpy.yaml" in text


def test_archive_table_deleted(archive_copy):
    (archive_copy / "tables" / "s31_int8.yaml").unlink()
    assert CASES["hist_table_deleted"]["expect"] in _archive_problem(archive_copy)


def test_archive_environments_deleted(archive_copy):
    (archive_copy / "environments.yaml").unlink()
    assert CASES["hist_environments_deleted"]["expect"] in _archive_problem(archive_copy)


def test_archive_tables_dir_deleted(archive_copy):
    shutil.rmtree(archive_copy / "tables")
    assert CASES["hist_tables_dir_deleted"]["expect"] in _archive_problem(archive_copy)


def test_archive_seal_deleted(archive_copy):
    (archive_copy / archive.SEAL).unlink()
    assert CASES["hist_seal_deleted"]["expect"] in _archive_problem(archive_copy)


def test_archive_file_added(archive_copy):
    (archive_copy / "tables" / "notes.txt").write_text("planted\n")
    assert CASES["hist_file_added"]["expect"] in _archive_problem(archive_copy)


def test_committed_archive_is_sealed_and_reseal_is_deliberate(archive_copy):
    assert archive.seal_problems(ROOT / "archive") == []
    path = archive_copy / "environments.yaml"
    path.write_text(path.read_text(encoding="utf-8") + "\n# a deliberate note\n", encoding="utf-8")
    assert archive.seal_problems(archive_copy)
    assert archive.main(["--reseal", str(archive_copy)]) == 0
    assert archive.seal_problems(archive_copy) == []


# -- builds: refused before anything is published, site and results byte-identical ----------

def _digest(folder):
    h = hashlib.sha256()
    for path in sorted(Path(folder).rglob("*")):
        h.update(path.relative_to(folder).as_posix().encode())
        if path.is_file():
            h.update(path.read_bytes())
    return h.hexdigest()


@pytest.fixture(scope="module")
def published(built_site, tmp_path_factory):
    """A project copy with a built site, shared by the build cases (each mutates its own copy).
    Copied from the session's built site: the same build, without building it again."""
    return copy_built(built_site, tmp_path_factory.mktemp("hostile") / "project")


@pytest.fixture
def project_copy(published, tmp_path):
    dest = tmp_path / "project"
    shutil.copytree(published, dest, symlinks=True)
    return dest


def _refused_build(project, expect):
    site, results = _digest(project / "site"), _digest(project / "results")
    with pytest.raises(ReportError) as err:
        build.build(project, project / "site")
    assert expect in str(err.value)
    assert "the published site was left unchanged" in str(err.value)
    assert _digest(project / "site") == site and _digest(project / "results") == results
    with pytest.raises(ReportError):
        verify.verify(project, project / "site")


def test_build_refuses_an_edited_record(project_copy):
    # the first timed record of the newest run (an evidence record has no samples to edit)
    run = sorted((project_copy / "results" / "runs").iterdir())[-1]
    path = run / "records.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    at = next(i for i, line in enumerate(lines) if json.loads(line)["samples"])
    rec = json.loads(lines[at])
    rec["samples"] = [s / 10 for s in rec["samples"]]
    rec["stats"] = stats.summarize(rec["samples"])
    lines[at] = json.dumps(rec, sort_keys=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    _refused_build(project_copy, CASES["fig_build_refuses_edit"]["expect"])


def test_build_refuses_one_archived_digit(project_copy):
    path = project_copy / "archive" / "tables" / "s21_numpy.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("1.82", "1.83", 1), encoding="utf-8")
    _refused_build(project_copy, CASES["hist_build_refuses_digit"]["expect"])


def test_build_refuses_a_symlinked_log_and_copies_nothing(project_copy):
    run = sorted((project_copy / "results" / "runs").iterdir())[-1]
    log = next((run / "logs").iterdir())
    log.unlink()
    log.symlink_to("/etc/passwd")
    _refused_build(project_copy, "is a symlink")
    assert "root:" not in "".join(p.read_text(errors="replace") for p in (project_copy / "site").rglob("*.log"))


def test_site_dir_refusals(published, tmp_path):
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "thesis.tex").write_text("years of work\n")
    for case, target in (("site_dir_results", published / "results"), ("site_dir_archive", published / "archive"),
                         ("site_dir_docs", published / "docs"), ("site_dir_root", published),
                         ("site_dir_ancestor", published.parent), ("site_dir_foreign", foreign)):
        before = _digest(target)
        with pytest.raises(ReportError) as err:
            build.build(published, target)
        assert CASES[case]["expect"] in str(err.value), case
        assert _digest(target) == before, case


def test_second_concurrent_build_is_refused(published):
    site = published / "site"
    lock = build._Lock(site.resolve(), 0)
    with lock:
        before = _digest(site)
        with pytest.raises(ReportError) as err:
            build.build(published, site, wait_s=0)
        assert CASES["conc_second_build"]["expect"] in str(err.value)
        assert _digest(site) == before


def test_published_site_has_its_marker(published):
    assert (published / "site" / build.MARKER).is_file()


# -- 7. CLI -----------------------------------------------------------------------------------

def _cli(args, cwd, **kw):
    return subprocess.run([sys.executable, "-m", "reportgen.cli", *args], cwd=cwd, capture_output=True,
                          text=True, env=dict(os.environ, PYTHONPATH=str(ROOT)), **kw)


def test_serve_busy_port(published):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        out = _cli(["--root", str(published), "serve", "--port", str(port)], published, timeout=60)
    assert out.returncode == 1 and "Traceback" not in out.stderr
    assert CASES["cli_port_busy"]["expect"] in out.stderr


def test_serve_invalid_port(published):
    out = _cli(["--root", str(published), "serve", "--port", "70000"], published, timeout=60)
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert CASES["cli_port_invalid"]["expect"] in out.stderr


def test_serve_port_zero_prints_the_real_port_and_sends_logs_as_text(published):
    httpd = serve.open_server(published / "site", 0)
    port = httpd.server_address[1]
    assert port != 0
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        site = published / "site"
        # the site ships cited logs (whole, or a machine's cited lines as .txt), never records.jsonl
        texts = sorted(site.glob("data/runs/*/logs/*.log"))[:1] + sorted(site.glob("data/logs/*/*.txt"))[:1]
        assert texts and not list(site.glob("data/runs/*/records.jsonl"))
        for path in texts:
            rel = path.relative_to(site).as_posix()
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/{rel}", timeout=10) as resp:
                assert resp.headers["Content-Type"] == CASES["cli_serve_text_types"]["expect"], rel
    finally:
        httpd.shutdown()
        httpd.server_close()
    proc = subprocess.Popen([sys.executable, "-m", "reportgen.cli", "--root", str(published), "serve", "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ, PYTHONPATH=str(ROOT)))
    try:
        line = proc.stdout.readline()
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    assert CASES["cli_port_zero"]["expect"] in line and ":0/" not in line and "http://127.0.0.1:" in line


def test_cli_from_a_subdirectory_finds_the_root(published):
    out = _cli(["verify"], published / "docs", timeout=300)
    assert out.returncode == 0, out.stderr
    assert CASES["cli_subdirectory"]["expect"] in out.stdout


def test_cli_outside_the_project_is_a_message(tmp_path):
    out = _cli(["verify"], tmp_path, timeout=60)
    assert out.returncode == 1 and "Traceback" not in out.stderr
    assert CASES["cli_outside_project"]["expect"] in out.stderr


def test_cli_missing_results_is_a_message(tmp_path):
    shutil.copy(ROOT / "mkdocs.yml", tmp_path / "mkdocs.yml")
    out = _cli(["trace", "numpy_gemm/x=1"], tmp_path, timeout=60)
    assert out.returncode == 1 and "Traceback" not in out.stderr
    assert CASES["cli_results_missing"]["expect"] in out.stderr


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores file permissions")
def test_cli_read_only_results_is_a_message(tmp_path):
    _read_only_case(tmp_path)


def _read_only_case(tmp_path):
    root = tmp_path / "ro"
    shutil.copytree(ROOT / "experiments", root / "experiments", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "mkdocs.yml", root / "mkdocs.yml")
    (root / "results").mkdir()
    (root / "results").chmod(0o555)
    try:
        out = _cli(["retest", "--only", "numpy_gemm"], root, timeout=60)
    finally:
        (root / "results").chmod(0o755)
    assert out.returncode == 1 and "Traceback" not in out.stderr
    assert CASES["cli_results_read_only"]["expect"] in out.stderr


def test_read_only_results_message_as_root_too(tmp_path, monkeypatch):
    """Root can write anywhere: simulate the refusal the kernel gives other users."""
    import tempfile
    from reportgen.commands import retest
    real_mkstemp = tempfile.mkstemp

    def refuse(*a, **k):   # the probe is a new file of a random name (round 12: never a planted link)
        if k.get("prefix") == ".tmp-probe-":
            raise PermissionError(13, "Permission denied", str(k.get("dir")))
        return real_mkstemp(*a, **k)
    monkeypatch.setattr(tempfile, "mkstemp", refuse)
    shutil.copytree(ROOT / "experiments", tmp_path / "experiments", ignore=shutil.ignore_patterns("__pycache__"))
    with pytest.raises(ReportError) as err:
        retest.retest(tmp_path, "quick", only=("numpy_gemm",))
    assert CASES["cli_results_read_only"]["expect"] in str(err.value)


def test_cli_oserror_is_one_line(tmp_path, monkeypatch, capsys):
    def boom(*_a, **_k):
        raise PermissionError(13, "Permission denied", "/x/results/runs")
    monkeypatch.setattr(load, "read_runs", boom)
    monkeypatch.setattr(sys, "argv", ["reportgen", "--root", str(tmp_path), "trace", "x"])
    with pytest.raises(SystemExit) as exit_:
        cli.main()
    assert exit_.value.code == 1
    assert capsys.readouterr().err.strip() == "error: /x/results/runs: Permission denied"


SPECIAL = {"path_planted_site_data", "path_site_symlink", "path_trace_terminal_escape", "path_artifact_dotdot", "path_artifact_outside_artifacts", "path_trace_symlink",
           "hist_one_digit", "hist_table_deleted", "hist_environments_deleted", "hist_tables_dir_deleted",
           "hist_seal_deleted", "hist_file_added", "hist_build_refuses_digit", "fig_build_refuses_edit",
           "conc_second_build", "site_dir_results", "site_dir_archive", "site_dir_docs", "site_dir_root",
           "site_dir_ancestor", "site_dir_foreign", "cli_port_busy", "cli_port_invalid", "cli_port_zero",
           "cli_subdirectory", "cli_outside_project", "cli_results_missing", "cli_results_read_only",
           "cli_serve_text_types"}


def test_credibility_page_counts_the_corpus(published):
    page = (published / "site" / "credibility.html").read_text(encoding="utf-8")
    outcomes = [c["outcome"] for c in CORPUS]
    assert f"共尝试 {len(CORPUS)} 个恶意输入，其中 {outcomes.count('refused')} 个被拒绝" in page
    assert f"{outcomes.count('text')} 个只作为纯文本" in page and "可执行内容或错误数字的：0 个" in page


def test_verify_refuses_planted_site_data(project_copy):
    run = sorted((project_copy / "site" / "data" / "runs").iterdir())[-1]
    (run / "logs").mkdir(exist_ok=True)   # a run may ship only its run.json (nothing of it cited)
    (run / "logs" / "passwd.log").write_text("root:x:0:0:root:/root:/bin/bash\n")
    with pytest.raises(ReportError) as err:
        verify.verify(project_copy, project_copy / "site")
    assert CASES["path_planted_site_data"]["expect"] in str(err.value)


def test_verify_refuses_a_symlink_in_the_site(project_copy):
    (project_copy / "site" / "passwd.html").symlink_to("/etc/passwd")
    with pytest.raises(ReportError) as err:
        verify.verify(project_copy, project_copy / "site")
    assert CASES["path_site_symlink"]["expect"] in str(err.value)


def test_a_second_build_waits_for_the_first(tmp_path, capsys):
    site = tmp_path / "site"
    first = build._Lock(site, 0)
    first.__enter__()
    threading.Timer(0.8, first.__exit__, (None, None, None)).start()
    started = time.monotonic()
    with build._Lock(site, 30):
        waited = time.monotonic() - started
    assert waited > 0.3   # structure, not timing: it did wait for the release
    assert "waiting for another build" in capsys.readouterr().out


@pytest.mark.parametrize("planted", ["symlink", "fifo"])
def test_a_planted_lock_file_is_refused_and_its_target_untouched(tmp_path, planted):
    """A checkout may carry .site.lock (git add -f): a symlink to a file of the user, or a FIFO.
    The build refuses it by name and writes nothing through it; a retest's stale-lock sweep
    treats a planted lock as not held."""
    import os
    from reportgen.commands import lockfile, retest
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    site = tmp_path / "project" / "site"
    site.parent.mkdir()
    lock_path = site.with_name(".site.lock")
    if planted == "symlink":
        lock_path.symlink_to(victim)
    else:
        os.mkfifo(lock_path)
    with pytest.raises(ReportError) as err:
        with build._Lock(site, 0):
            pass
    assert str(lock_path) in str(err.value) and "lock file" in str(err.value)
    assert victim.read_text() == "precious\n"
    assert retest._is_live(lock_path) is False
    with pytest.raises(ReportError):
        lockfile.open_lock(lock_path, create=False)
