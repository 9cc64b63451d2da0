"""The third round of the hostile corpus (issue #29): writes that follow links, hard links,
pages without the content policy, run ids that lie about their start, invisible characters in
excerpts, numbers and YAML beyond every limit, jumps in the history, a browser that dies, and a
results folder that is a link.

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every
entry has a test here or in the earlier rounds.
"""
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from conftest import ROOT
from helpers import record, write_run

from reportgen.commands import build, pdf, retest, trace
from reportgen.data import archive, load, safeyaml
from reportgen.errors import ReportError
from reportgen.publish import sitecheck
from reportgen.pages import history
from reportgen.publish import nofollow, plugin, verify
from reportgen.render import provenance
from study import stats

CASES = {c["id"]: c for c in yaml.safe_load(
    (ROOT / "tests" / "data" / "hostile" / "cases.yaml").read_text(encoding="utf-8"))["cases"]}
RUN = "20260101T000000Z-quick-f6ab9f827cfd"
LATER = "20260102T000000Z-quick-f6ab9f827cfd"


def _expect(case):
    return CASES[case]["expect"]


def _one_line(err):
    text = str(err)
    assert "\n" not in text.strip() and "Traceback" not in text, text
    return text


# -- results refused by load: hard links, lying run ids, huge numbers, linked folders ------------

def _hard_link(rel):
    def mutate(tmp):
        run = write_run(tmp, RUN, [record(RUN)])
        if rel.startswith("artifacts/"):
            (run / "artifacts").mkdir()
            (run / rel).write_text("ir\n")
            from test_hostile import _reseal_run
            _reseal_run(run)
        os.link(run / rel, tmp / "elsewhere.bin")   # a second name, outside the run
    return mutate


def _manifest(change):
    def mutate(tmp):
        run = write_run(tmp, RUN, [record(RUN)])
        manifest = json.loads((run / "run.json").read_text())
        change(manifest)
        (run / "run.json").write_text(json.dumps(manifest))
    return mutate


def _raw_run_json(transform):
    def mutate(tmp):
        run = write_run(tmp, RUN, [record(RUN)])
        path = run / "run.json"
        path.write_text(transform(path.read_text()))
    return mutate


def _raw_records(transform):
    def mutate(tmp):
        run = write_run(tmp, RUN, [record(RUN)])
        path = run / "records.jsonl"
        path.write_text(transform(path.read_text()))
        from test_hostile import _reseal_run
        _reseal_run(run)
    return mutate


def _linked(folder):
    def mutate(tmp):
        real = tmp.parent / f"{tmp.name}-elsewhere"
        write_run(real, RUN, [record(RUN)])
        if folder == "results":
            tmp.rmdir()
            tmp.symlink_to(real)
        else:
            (tmp / "runs").symlink_to(real / "runs")
    return mutate


HUGE = "9" * 5000   # 10**5000 - 1: over Python's 4300-digit limit for reading an int

MUTATIONS = {
    "path_run_file_hard_link": _hard_link("records.jsonl"),
    "path_log_hard_link": _hard_link("logs/numpy_gemm.log"),
    "path_artifact_hard_link": _hard_link("artifacts/ir.txt"),
    "order_started_at_not_run_id": _manifest(lambda m: m.update(started_at="2025-12-31T23:00:00Z")),
    "order_started_at_one_second_off": _manifest(lambda m: m.update(started_at="2026-01-01T00:00:01Z")),
    "lim_huge_int_records": _raw_records(lambda t: t.replace('"warmup": 1', f'"warmup": {HUGE}', 1)),
    "lim_huge_int_run_json": _raw_run_json(lambda t: t.replace('"duration_s": 1.0', f'"duration_s": {HUGE}', 1)),
    "lim_float_1e999": _raw_records(lambda t: t.replace('"threshold": 1e-05', '"threshold": 1e999', 1)),
    "lim_lone_surrogate_record": _raw_records(lambda t: t.replace('"dtype": "float32"', '"dtype": "float\\ud80032"', 1)),
    "link_results_symlink": _linked("results"),
    "link_runs_symlink": _linked("runs"),
}


@pytest.mark.parametrize("case", sorted(MUTATIONS))
def test_round3_results_are_refused_naming_the_file(case, tmp_path):
    results = tmp_path / "results"
    results.mkdir()
    MUTATIONS[case](results)
    started = time.monotonic()
    with pytest.raises(ReportError) as err:
        load.read_runs(results)
    assert time.monotonic() - started < 10
    text = "\n".join(err.value.problems)
    assert _expect(case) in text
    assert str(results) in text, "the message names the file"
    assert all("\n" not in p for p in err.value.problems) and len(text) < 2000
    if case.startswith("order_started_at"):
        assert "run.json: started_at:" in text


def test_the_id_and_start_of_a_run_agree_in_the_builders():
    # the fixture runs stay valid: write_run starts each run at the time its id names
    from helpers import started_at
    assert started_at("20261203T210503Z-quick-f6ab9f827cfd") == "2026-12-03T21:05:03Z"


def test_retest_writes_no_run_through_a_linked_results_folder(tmp_path):
    # link_retest_results_symlink: results/ a link to a folder elsewhere
    shutil.copytree(ROOT / "experiments", tmp_path / "experiments", ignore=shutil.ignore_patterns("__pycache__"))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "results").symlink_to(elsewhere)
    with pytest.raises(ReportError) as err:
        retest.retest(tmp_path, "quick", only=("numpy_gemm",))
    assert _expect("link_retest_results_symlink") in _one_line(err.value)
    assert str(tmp_path / "results") in str(err.value) and list(elsewhere.iterdir()) == []


# -- writes into the site follow no link ------------------------------------------------------

def _victim(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    return victim


def test_a_planted_lock_symlink_is_refused_and_its_target_untouched(tmp_path):
    victim = _victim(tmp_path)
    site = tmp_path / "project" / "site"
    site.parent.mkdir()
    site.with_name(".site.lock").symlink_to(victim)
    with pytest.raises(ReportError) as err:
        build.build(site.parent, site, wait_s=0)
    assert _expect("link_lock_symlink") in _one_line(err.value)
    assert victim.read_text() == "precious\n"


def test_a_hard_linked_lock_is_refused_and_its_other_name_untouched(tmp_path):
    victim = _victim(tmp_path)
    site = tmp_path / "project" / "site"
    site.parent.mkdir()
    os.link(victim, site.with_name(".site.lock"))
    with pytest.raises(ReportError) as err:
        build.build(site.parent, site, wait_s=0)
    assert _expect("link_lock_hard_link") in _one_line(err.value)
    assert victim.read_text() == "precious\n"


def test_serve_follows_no_link_planted_in_the_site(tmp_path):
    from reportgen.commands import serve
    import threading
    import urllib.error
    import urllib.request
    secret = tmp_path / "secret.txt"
    secret.write_text("SECRET-OUTSIDE")
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text("<p>home</p>")
    (site / "leak.txt").symlink_to(secret)
    (site / "outside").symlink_to(tmp_path)
    sitecheck.write_manifest(site)   # serve answers only what a build listed
    server = serve.open_server(site, 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        base = f"http://127.0.0.1:{server.server_address[1]}"
        assert urllib.request.urlopen(base + "/index.html", timeout=5).status == 200
        for path in ("/leak.txt", "/outside/", "/outside/secret.txt"):
            with pytest.raises(urllib.error.HTTPError) as err:
                urllib.request.urlopen(base + path, timeout=5)
            assert str(err.value.code) == _expect("serve_symlink_out_of_site")
            assert b"SECRET" not in err.value.read()
    finally:
        server.shutdown()
        server.server_close()


def test_site_writes_refuse_a_planted_file_link(tmp_path):
    victim = _victim(tmp_path)
    site = tmp_path / "site.tmp"
    site.mkdir()
    (site / "numbers.json").symlink_to(victim)
    with pytest.raises(ReportError) as err:
        nofollow.write_text(site, "numbers.json", "[]")
    assert _expect("link_site_file_symlink") in _one_line(err.value) and str(site / "numbers.json") in str(err.value)
    assert victim.read_text() == "precious\n"
    nofollow.write_text(site, "data/runs/x/run.json", "{}")   # a plain path is written, folders made
    assert (site / "data" / "runs" / "x" / "run.json").read_text() == "{}"


def test_site_writes_refuse_a_planted_hard_link(tmp_path):
    victim = _victim(tmp_path)
    site = tmp_path / "site"
    site.mkdir()
    os.link(victim, site / "study.pdf")
    with pytest.raises(ReportError) as err:
        nofollow.write_bytes(site, "study.pdf", b"%PDF")
    assert _expect("link_site_file_hard_link") in _one_line(err.value) and str(site / "study.pdf") in str(err.value)
    assert victim.read_text() == "precious\n"


def test_site_writes_refuse_a_planted_folder_link(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    site = tmp_path / "site.tmp"
    site.mkdir()
    (site / "data").symlink_to(elsewhere)
    with pytest.raises(ReportError) as err:
        nofollow.write_text(site, "data/tuning-databases.json", "[]")
    assert _expect("link_site_folder_symlink") in _one_line(err.value) and str(site / "data") in str(err.value)
    assert list(elsewhere.iterdir()) == []


def test_the_plugin_writes_every_site_file_through_nofollow():
    import inspect
    source = inspect.getsource(plugin.ReportgenPlugin.on_post_build)
    assert ".write_text(" not in source.replace("nofollow.write_text(", "")
    assert ".write_bytes(" not in source.replace("nofollow.write_bytes(", "")
    assert "nofollow.write_text(tmp, MARKER" in Path(build.__file__).read_text(encoding="utf-8")


def _fake_browser(tmp_path, body="exit 1"):
    exe = tmp_path / "fake-chromium"
    exe.write_text(f"#!/bin/sh\n{body}\n")
    exe.chmod(0o755)
    return exe


def _small_site(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text('<!doctype html><html><head><link rel="stylesheet" href="assets/a.css"></head>'
                                     '<body><article class="md-content__inner md-typeset"><p>x</p></article></body></html>')
    return site


@pytest.mark.parametrize("case, name", [("link_pdf_symlink", pdf.PDF_NAME),
                                        ("link_print_page_symlink", "print.html")])
def test_pdf_refuses_a_planted_output_link(case, name, tmp_path, monkeypatch):
    pytest.importorskip("playwright")
    victim = _victim(tmp_path)
    site = _small_site(tmp_path)
    (site / name).symlink_to(victim)
    monkeypatch.setenv("REPORTGEN_CHROMIUM", str(_fake_browser(tmp_path)))
    with pytest.raises(ReportError) as err:
        pdf.write_pdf(ROOT, site, quiet=True)
    assert _expect(case) in _one_line(err.value) and str(site / name) in str(err.value)
    assert victim.read_text() == "precious\n"


@pytest.mark.parametrize("case, body", [("cli_pdf_browser_fails", "exit 1"),
                                        ("cli_pdf_browser_crashes", "kill -SEGV $$")])
def test_pdf_with_a_dying_browser_is_one_line(case, body, tmp_path, built_copy):
    pytest.importorskip("playwright")
    site = built_copy / "site"   # a site that verifies: pdf prints nothing that does not
    env = dict(os.environ, PYTHONPATH=str(ROOT), REPORTGEN_CHROMIUM=str(_fake_browser(tmp_path, body)))
    out = subprocess.run([sys.executable, "-m", "reportgen.cli", "--root", str(built_copy), "pdf", "--site-dir", str(site)],
                         capture_output=True, text=True, env=env, timeout=300)   # pdf verifies the site first: a
    # whole fresh build, over 120 s on a 2-core machine with other builds beside it
    assert out.returncode == 1 and "Traceback" not in out.stderr and "internal error" not in out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and _expect(case) in lines[0], out.stderr
    assert not (site / pdf.PDF_NAME).exists()


# -- every page declares the content policy ----------------------------------------------------

def test_every_page_of_the_site_declares_the_policy(built_site):
    site = built_site / "site"
    pages = sorted(site.rglob("*.html"))
    assert site / "404.html" in pages
    assert [p for p in pages if plugin.CSP_META not in p.read_text(encoding="utf-8")] == []
    assert _expect("csp_every_page") in (site / "404.html").read_text(encoding="utf-8")
    pages_, name = pdf.nav_pages(built_site)
    assert plugin.CSP_META in pdf.assemble(site, pages_, name)


def test_verify_refuses_a_page_without_the_policy(built_copy):
    page = built_copy / "site" / "404.html"
    page.write_text(page.read_text(encoding="utf-8").replace(plugin.CSP_META, ""), encoding="utf-8")
    with pytest.raises(ReportError) as err:
        verify.verify(built_copy, built_copy / "site")
    assert f"{page}: {_expect('csp_page_without_policy')}" in str(err.value)


# -- invisible characters and long lines in excerpts ---------------------------------------------

INVISIBLE = "\x85\x9b\u202e\u2066\u200b\u200d\ufeff"


class _Cur:
    def __init__(self, rec, run):
        self.record, self.run = rec, run


def _failed_run(tmp_path, error, log_text):
    rec = record(RUN, status="run_failed", error=error,
                 check={"reference": "none", "max_abs_err": None, "max_rel_err": None, "threshold": None,
                        "passed": None})
    rec.update(samples=[], stats=None, repeat=0)
    rec["log"]["lines"] = [1, 3]
    write_run(tmp_path / "results", RUN, [rec], log_text=log_text)
    [run] = load.read_runs(tmp_path / "results")
    return _Cur(run.records[0], run)


def _shows_no_invisible(text):
    return not any(c in text for c in INVISIBLE)


@pytest.mark.parametrize("case, line", [("inj_c1_in_log_excerpt", "price\x85\x9b31m red"),
                                        ("inj_bidi_in_log_excerpt", "ok \u202etxt.exe\u2066 \u200bzero\ufeff")])
def test_invisible_characters_in_an_excerpt_are_escaped(case, line, tmp_path):
    cur = _failed_run(tmp_path, "boom", f"start\n{line}\nend\n")
    entry = provenance.entry(tmp_path / "results", cur, "../data")
    assert _shows_no_invisible(entry), _expect(case)
    escaped = ("\\x85", "\\x9b") if "\x85" in line else ("\\u202e", "\\u2066", "\\u200b", "\\ufeff")
    assert all(e in entry for e in escaped)


def test_invisible_characters_never_reach_the_terminal_from_trace(tmp_path):
    # inj_c1_in_trace: C1 CSI (\x9b) is an escape sequence to many terminals
    cur = _failed_run(tmp_path, "bad\x9b2J\u202eerror", "a\x9b2J\nb\u202ec\nd\x85\n")
    out = trace.trace(tmp_path, cur.record["id"])
    assert _shows_no_invisible(out) and "\\x9b2J" in out and "\\u202e" in out
    assert not any(ord(c) < 32 and c not in "\n\t" for c in out), _expect("inj_c1_in_trace")


def test_a_zero_width_character_in_an_error_is_escaped_on_the_page(tmp_path):
    # inj_zero_width_in_error: the status line shows the record's error text
    cur = _failed_run(tmp_path, "pay\u200bpal\u202e", "a\nb\nc\n")
    entry = provenance.entry(tmp_path / "results", cur, "../data")
    assert _shows_no_invisible(entry) and "&#92;u200b" in entry, _expect("inj_zero_width_in_error")


def test_a_10_mb_log_line_is_cut_on_the_page_and_kept_whole_in_the_log(tmp_path):
    # lim_excerpt_line_10mb
    long_line = "progress " + "#" * 10_000_000
    cur = _failed_run(tmp_path, "boom", f"start\n{long_line}\nend\n")
    excerpt = provenance.log_excerpt(tmp_path / "results", cur.record)
    first, cut, last = excerpt.split("\n")
    assert first == "start" and last == "end"
    assert cut.startswith(long_line[:provenance.MAX_LINE_CHARS]) and len(cut) < provenance.MAX_LINE_CHARS + 200
    assert _expect("lim_excerpt_line_10mb") in cut and str(len(long_line)) in cut
    entry = provenance.entry(tmp_path / "results", cur, "../data")
    assert len(entry) < 20_000
    log = tmp_path / "results" / cur.record["log"]["path"]
    assert long_line in log.read_text()   # the repository keeps the log whole


# -- YAML beyond the limits -------------------------------------------------------------------

BOMB = ("a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
        + "".join(f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 9)}]\n" for i in range(8))
        + "j: [*i, *i, *i, *i, *i, *i, *i, *i, *i]\n")   # 9**10 strings once expanded
DEEP = "x: " + "[" * 100_000 + "]" * 100_000 + "\n"


@pytest.fixture
def archive_copy(tmp_path):
    dest = tmp_path / "archive"
    shutil.copytree(ROOT / "archive", dest)
    return dest


@pytest.mark.parametrize("case, text", [("lim_yaml_alias_bomb_archive", BOMB), ("lim_yaml_deep_archive", DEEP)])
def test_archive_yaml_beyond_the_limits_is_one_line(case, text, archive_copy):
    path = archive_copy / "tables" / "s21_numpy.yaml"
    path.write_text(text, encoding="utf-8")
    assert archive.main(["--reseal", str(archive_copy)]) == 0   # sealed as it is: the parse must refuse it
    started = time.monotonic()
    with pytest.raises(ReportError) as err:
        archive.read_archive(archive_copy)
    assert time.monotonic() - started < 10
    assert _expect(case) in _one_line(err.value) and str(path) in str(err.value)


def test_a_profile_with_an_alias_bomb_is_one_line(tmp_path):
    # lim_yaml_alias_bomb_profile
    shutil.copytree(ROOT / "experiments", tmp_path / "experiments", ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "experiments" / "configs" / "quick.yaml").write_text(BOMB, encoding="utf-8")
    with pytest.raises(ReportError) as err:
        retest.read_profile(tmp_path, "quick")
    assert _expect("lim_yaml_alias_bomb_profile") in _one_line(err.value)
    assert "experiments/configs/quick.yaml" in str(err.value)


def test_plain_yaml_still_loads():
    assert safeyaml.loads("a: [1, {b: 2}]\nc: text\n") == {"a": [1, {"b": 2}], "c": "text"}


# -- a run far faster than its machine's history is flagged ----------------------------------

def test_a_run_20x_faster_than_the_same_code_before_is_a_jump(tmp_path, capsys):
    slow = (0.002, 0.0021, 0.002)
    write_run(tmp_path, RUN, [record(RUN, samples=slow)])
    write_run(tmp_path, LATER, [record(LATER, samples=tuple(s / 20 for s in slow))])
    runs = load.read_runs(tmp_path)
    [(case_id, before, after, ratio)] = history.jumps(runs)
    assert (before, after) == (RUN, LATER) and ratio <= 1 / 20 * 1.06
    assert 20 >= history.JUMP   # a 20-fold jump is flagged whatever the factor below 20
    assert case_id.split("/")[0] in history.jumps_text(runs)
    plugin._say_jumps(runs)
    assert _expect("hist_jump_20x_flagged") in capsys.readouterr().out


def test_a_forged_20x_run_is_flagged_by_the_build_and_on_the_site(built_copy, capsys):
    """A quick run of the newest run's code, every figure 25x faster: the standard runs stay the
    site's figures, and the build and the history page both say it jumped.  The source is the
    newest run of all (in CI `make site` has just added a quick one), so that no later run of the
    same case with other params stands between the forged run and the one it copies."""
    runs_dir = built_copy / "results" / "runs"
    source = max((p for p in runs_dir.iterdir() if not p.name.startswith(".")), key=lambda p: p.name)
    recs = [json.loads(line) for line in (source / "records.jsonl").read_text().splitlines() if line.strip()]
    rec = next(r for r in recs if r["status"] == "ok" and r["samples"] and r["reused_from"] is None
               and "runs/" not in json.dumps(r["extra"]) and "asm" not in r["extra"])   # naming no file of its run
    now = time.time()
    when = time.gmtime(now - 2)   # newer than every run, not in the future
    new_id = time.strftime("%Y%m%dT%H%M%SZ", when) + "-quick-" + source.name.split("-", 2)[2]
    run = runs_dir / new_id
    (run / "logs").mkdir(parents=True)
    family_log = f"logs/{rec['experiment']}.log"
    from study import citation
    said = citation.summaries((source / family_log).read_text(encoding="utf-8").split("\n"))
    every = {n for numbers in said.values() for n in numbers}   # a run's log reports its own records only (round 80)
    kept = [x for n, x in enumerate((source / family_log).read_text(encoding="utf-8").split("\n"), 1) if n not in every]
    (run / family_log).write_text("\n".join(kept), encoding="utf-8")   # a log reports a record once: the forged summary only
    rec.update(run_id=new_id, samples=[s / 25 for s in rec["samples"]])
    rec["stats"] = stats.summarize(rec["samples"])
    with open(run / family_log, "a", encoding="utf-8") as fh:   # a forger's lines agree with the forgery
        fh.write(f"[{rec['experiment']}] {citation.summary(rec['id'], 'ok', rec['samples'], rec['stats']['p50'])}\n")
    line = (run / family_log).read_text(encoding="utf-8").count("\n")
    rec["log"]["lines"] = [line, line]
    rec["log"]["sha256"] = hashlib.sha256((run / family_log).read_bytes()).hexdigest()
    rec["log"]["path"] = f"runs/{new_id}/{family_log}"
    (run / "records.jsonl").write_text(json.dumps(rec, sort_keys=True) + "\n")
    manifest = json.loads((source / "run.json").read_text())
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", when)
    entry = dict(manifest["experiments"][rec["experiment"]], records=1, reused=0, log=f"runs/{new_id}/{family_log}",
                 duration_s=1.0)
    manifest.update(run_id=new_id, profile="quick", started_at=stamp,
                    finished_at=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(now - 1)),
                    experiments={rec["experiment"]: entry},
                    files={rel: hashlib.sha256((run / rel).read_bytes()).hexdigest()
                           for rel in ("records.jsonl", family_log)})
    (run / "run.json").write_text(json.dumps(manifest, indent=1))
    build.build(built_copy, built_copy / "site")
    said = capsys.readouterr().out
    assert _expect("hist_jump_20x_flagged") in said and rec["id"] in said and new_id in said
    page = (built_copy / "site" / "history.html").read_text(encoding="utf-8")
    jumps = page[page.index('id="jumps"'):]
    assert new_id in jumps and rec["id"] in jumps


SPECIAL = {"link_retest_results_symlink", "link_lock_symlink", "link_site_file_symlink", "link_site_file_hard_link",
           "link_site_folder_symlink",
           "link_pdf_symlink", "link_print_page_symlink", "cli_pdf_browser_fails", "cli_pdf_browser_crashes",
           "csp_every_page", "csp_page_without_policy", "inj_c1_in_log_excerpt", "inj_bidi_in_log_excerpt",
           "inj_c1_in_trace", "inj_zero_width_in_error", "lim_excerpt_line_10mb", "lim_yaml_alias_bomb_archive",
           "lim_yaml_deep_archive", "lim_yaml_alias_bomb_profile", "hist_jump_20x_flagged",
           "link_lock_hard_link", "serve_symlink_out_of_site"}
