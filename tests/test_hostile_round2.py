"""The second round of the hostile corpus (issue #29): absurd figures, forged order, files a run
may not carry, tuning campaigns, interrupted builds and a server that must not hang.

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every
entry has a test here or there.
"""
import hashlib
import json
import os
import shutil
import socket
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from conftest import ROOT
from helpers import record, write_run

from experiments import harness
from reportgen.commands import build, retest, serve
from reportgen.data import load, runfacts
from reportgen.errors import ReportError
from reportgen.publish import sitecheck
from reportgen.render import provenance
from study import schema, stats

CASES = {c["id"]: c for c in yaml.safe_load(
    (ROOT / "tests" / "data" / "hostile" / "cases.yaml").read_text(encoding="utf-8"))["cases"]}
RUN = "20260101T000000Z-quick-f6ab9f827cfd"


def _expect(case):
    return CASES[case]["expect"]


# -- records and manifests that load refuses -------------------------------------------------

def _samples(values):
    def mutate(tmp):
        rec = record(RUN, samples=values)
        write_run(tmp, RUN, [rec])
    return mutate


def _raw_record(transform):
    """Write a valid run, then rewrite records.jsonl's text (and reseal run.json) with ``transform``."""
    def mutate(tmp):
        run = write_run(tmp, RUN, [record(RUN)])
        path = run / "records.jsonl"
        path.write_text(transform(path.read_text(encoding="utf-8")), encoding="utf-8")
        _reseal(run)
    return mutate


def _reseal(run):
    from test_hostile import _reseal_run
    _reseal_run(run)


def _manifest(change):
    def mutate(tmp):
        run = write_run(tmp, RUN, [record(RUN)])
        manifest = json.loads((run / "run.json").read_text())
        change(manifest)
        (run / "run.json").write_text(json.dumps(manifest))
    return mutate


def _run_id_2999(tmp):
    rid = "29990101T000000Z-quick-f6ab9f827cfd"
    write_run(tmp, rid, [record(rid)])


def _other_family_log(tmp):
    rec = record(RUN)
    rec["log"]["path"] = f"runs/{RUN}/logs/gemm_tvm.log"
    write_run(tmp, RUN, [rec])


def _artifact(name, text):
    def mutate(tmp):
        run = write_run(tmp, RUN, [record(RUN)])
        (run / "artifacts").mkdir()
        (run / "artifacts" / name).write_text(text, encoding="utf-8")
        _reseal(run)
    return mutate


def _case_value(value):
    from test_hostile import _case_value as mutation
    return mutation(value)


def _record(change):
    """A run whose one record was changed by ``change`` before it was written (and sealed)."""
    def mutate(tmp):
        rec = record(RUN)
        change(rec)
        write_run(tmp, RUN, [rec])
    return mutate


def _deep(text):
    deep = "[" * 100_000 + "]" * 100_000
    return text.replace('"extra": {', f'"extra": {{"deep": {deep}, ', 1)


def _duplicate(text):
    return text.replace('"status": "ok"', '"status": "ok", "status": "ok"', 1)


MUTATIONS = {
    "lim_sample_huge": _samples([1e200, 1e200, 1e200]),
    "lim_sample_subnormal": _samples([5e-324, 5e-324, 5e-324]),
    "lim_too_many_samples": _samples([1e-3] * (schema.MAX_SAMPLES + 1)),
    "lim_duplicate_key": _raw_record(_duplicate),
    "lim_deep_json": _raw_record(_deep),
    "lim_id_10000_chars": _record(lambda r: r.update(id="numpy_gemm/n=" + "1" * 10_000)),
    "lim_label_200k_chars": _record(lambda r: r["case"].update(dtype="f" * 200_000)),
    "lim_text_1m_chars": _record(lambda r: r["extra"].update(notes=["x" * 1_000_000])),
    "order_finished_9999": _manifest(lambda m: m.update(finished_at="9999-01-01T00:00:00Z")),
    "order_finished_not_a_date": _manifest(lambda m: m.update(finished_at="zzz-not-a-date")),
    "order_finished_before_start": _manifest(lambda m: m.update(finished_at="2025-12-31T00:00:00Z")),
    "order_run_id_2999": _run_id_2999,
    "order_profile_unknown": _manifest(lambda m: m.update(profile="bogus")),
    "order_record_other_family_log": _other_family_log,
    "art_html_script": _artifact("report.html", "<script>alert(1)</script>"),
    "art_svg_onload": _artifact("chart.svg", '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>'),
    "inj_bidi_in_case": _case_value("resnet\u202e81"),
    "inj_zero_width_in_environment": _manifest(lambda m: m["environment"].update(cpu_model="AMD\u200b EPYC")),
}


@pytest.mark.parametrize("case", sorted(MUTATIONS))
def test_round2_results_are_refused_naming_the_file(case, tmp_path):
    MUTATIONS[case](tmp_path)
    with pytest.raises(ReportError) as err:
        load.read_runs(tmp_path)
    text = "\n".join(err.value.problems)
    assert _expect(case) in text
    assert str(tmp_path) in text, "the message names the file"


def test_line_separator_inside_a_string_keeps_the_record_whole(tmp_path):
    # lim_line_separator_in_string: U+2028 is a line break to str.splitlines, not to JSON lines
    rec = record(RUN, error=None)
    rec["extra"]["note"] = "a\u2028b"
    write_run(tmp_path, RUN, [rec])
    [run] = load.read_runs(tmp_path)
    assert run.records[0]["extra"]["note"] == "a\u2028b", _expect("lim_line_separator_in_string")


# -- order: retest, commits, evidence lines ---------------------------------------------------

def test_retest_reuses_only_from_runs_that_validate(tmp_path, capsys):
    # order_reuse_skips_invalid_run: a run dated 2999 must not lend its records to a new run
    good = write_run(tmp_path / "results", RUN, [record(RUN)])
    forged = "29990101T000000Z-quick-f6ab9f827cfd"
    write_run(tmp_path / "results", forged, [record(forged, samples=(1e-5, 1e-5, 1e-5))])
    retest._valid_runs.cache_clear()
    from study import identity
    machine = identity.machine_id(json.loads((good / "run.json").read_text())["environment"])
    found = list(retest._runs_that_measured(tmp_path / "results" / "runs", machine, "numpy_gemm"))
    assert found == [good]
    assert _expect("order_reuse_skips_invalid_run") in capsys.readouterr().err


def test_a_forged_commit_is_known_as_such(tmp_path):
    # order_forged_commit: an all-zero commit names no code of this repository
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    if not head:
        pytest.skip("not a git checkout")
    write_run(tmp_path, RUN, [record(RUN)])
    other = "20260102T000000Z-quick-f6ab9f827cfd"
    path = write_run(tmp_path, other, [record(other)])
    manifest = json.loads((path / "run.json").read_text())
    manifest["git"]["commit"] = head
    (path / "run.json").write_text(json.dumps(manifest))
    runs = load.read_runs(tmp_path)
    assert runfacts.unknown_commits(ROOT, runs) == {RUN: "0" * 40}
    assert "is not a commit of this repository" in _expect("order_forged_commit")


def test_log_excerpt_counts_lines_by_newline_only(tmp_path):
    # order_log_carriage_return: a progress bar's \r must not shift the cited lines
    rec = record(RUN)
    rec["log"]["lines"] = [3, 3]
    write_run(tmp_path, RUN, [rec], log_text="one\rtwo\rthree\nfake evidence\nthe real line\n")
    [run] = load.read_runs(tmp_path)
    assert provenance.log_excerpt(tmp_path, run.records[0]) == "the real line"
    assert _expect("order_log_carriage_return")


def test_a_log_over_the_ship_limit_is_published_truncated_and_checked(tmp_path):
    # lim_log_over_ship_limit: a 3 MB log ships as its head, a line naming the whole, and its tail
    from reportgen.publish import verify
    lines = [f"[numpy_gemm] progress line {i:07d} " + "x" * 20 for i in range(1, 60001)]
    text = "\n".join(lines) + "\n"
    rec = record(RUN)
    write_run(tmp_path, RUN, [rec], log_text=text)
    [run] = load.read_runs(tmp_path)
    rel = "logs/numpy_gemm.log"
    whole = (run.path / rel).read_bytes()
    shipped = load.shipped_bytes(run, rel)
    assert len(whole) > load.SHIP_LIMIT_BYTES and len(shipped) < 0.8 * load.SHIP_LIMIT_BYTES
    head, marker, tail = shipped.decode().partition(_expect("lim_log_over_ship_limit"))
    kept = head.splitlines()
    assert kept[-1] == "[reportgen: " and len(kept) > 1000 and kept[:-1] == lines[:len(kept) - 1]
    marker_line = (marker + tail).split("\n", 1)[0]
    tail_lines = (marker + tail).split("\n")[1:-1]
    assert hashlib.sha256(whole).hexdigest() in marker_line and f"{len(whole)} bytes and 60000 lines" in marker_line
    first = int(marker_line.split(" and ")[-1].split("-")[0])
    assert tail_lines == lines[first - 1:] and tail_lines[-1] == lines[-1]
    # a small file and a JSON file ship whole
    assert load.shipped_bytes(run, "records.jsonl") == (run.path / "records.jsonl").read_bytes()
    # verify: the truncated copy is the run's file as published; one changed byte is not
    site = tmp_path / "site"
    (site / "data" / "runs" / RUN / "logs").mkdir(parents=True)
    copy = site / "data" / "runs" / RUN / rel
    copy.write_bytes(shipped)
    assert verify._published_data_problems(site, [run]) == []
    copy.write_bytes(shipped.replace(b"progress line 0000001", b"progress line 9999999"))
    [problem] = verify._published_data_problems(site, [run])
    assert _expect("lim_truncated_copy_altered") in problem and str(copy) in problem


def test_the_harness_writes_no_html_artifact(tmp_path):
    # art_harness_refuses_html
    spec = {"experiment": "fam", "params": {}, "run_id": RUN, "log_file": str(tmp_path / "f.log"),
            "log_ref": "x", "records_file": str(tmp_path / "r.jsonl"), "fingerprint": "f",
            "artifacts_dir": str(tmp_path / "runs" / RUN / "artifacts" / "fam"), "results_root": str(tmp_path)}
    h = harness.Harness(spec)
    with pytest.raises(ValueError, match=_expect("art_harness_refuses_html")):
        h.artifact("page.html", "<script>alert(1)</script>")
    assert h.artifact("tune-work")[1].endswith("tune-work")   # a work folder, not a file: allowed


# -- campaigns ---------------------------------------------------------------------------------

PARTS = {"model": "resnet18_v1", "batch": 1, "input_size": 224, "seed": 0, "variant": "default", "target": "{}",
         "tvm_version": "0.27"}
KEY = schema.campaign_key(PARTS)   # resnet18_v1-b1-s224-default-<digest of the parts>


def _campaign(tmp, **change):
    folder = tmp / "campaigns" / KEY
    folder.mkdir(parents=True)
    state = {"key": KEY, "parts": dict(PARTS),
             "cumulative_trials": 8,
             "steps": [{"run_id": RUN, "trials": 8, "seconds": 1.5, "cumulative_trials": 8,
                        "estimated_kernel_s": 0.01, "records": 8}]}
    state.update(change)
    (folder / "campaign.json").write_text(json.dumps(state), encoding="utf-8")
    (folder / "database_workload.json").write_text('["w", "payload"]\n', encoding="utf-8")
    # one tuning record a trial, of the campaign's target (parts.target "{}")
    (folder / "database_tuning_record.json").write_text('[0, [[], [0.001], {}, []]]\n' * 8, encoding="utf-8")
    return folder


def _camp_symlink(tmp):
    folder = _campaign(tmp)
    (folder / "database_tuning_record.json").unlink()
    (folder / "database_tuning_record.json").symlink_to("/etc/passwd")


def _camp_planted(tmp):
    (_campaign(tmp) / "notes.html").write_text("<script>alert(1)</script>")


def _camp_corrupt(tmp):
    (_campaign(tmp) / "database_workload.json").write_text('["w", 1]\n{not json\n')


CAMPAIGNS = {
    "camp_symlink_database": _camp_symlink,
    "camp_planted_file": _camp_planted,
    "camp_inflated_trials": lambda tmp: _campaign(tmp, cumulative_trials=10 ** 6),
    "camp_corrupt_database": _camp_corrupt,
    "camp_wrong_types": lambda tmp: _campaign(tmp, cumulative_trials="864"),
}
MUTATIONS.update({})   # campaigns are read by read_campaigns, below


def test_a_valid_campaign_loads(tmp_path):
    _campaign(tmp_path)
    assert list(load.read_campaigns(tmp_path)) == [KEY]


@pytest.mark.parametrize("case", sorted(CAMPAIGNS))
def test_hostile_campaigns_are_refused_naming_the_file(case, tmp_path):
    CAMPAIGNS[case](tmp_path)
    with pytest.raises(ReportError) as err:
        load.read_campaigns(tmp_path)
    text = "\n".join(err.value.problems)
    assert _expect(case) in text and str(tmp_path) in text
    assert "root:" not in text   # /etc/passwd is never read into a message


def test_a_campaign_step_must_agree_with_its_run(tmp_path):
    rec = record(RUN)
    rec["extra"]["campaign"] = {   # a whole snapshot, as tuning writes it (round 12 checks its shape)
        "key": KEY, "parts": dict(PARTS), "cumulative_trials": 4,
        "steps": [{"run_id": RUN, "trials": 4, "seconds": 1.5, "cumulative_trials": 4, "estimated_kernel_s": 0.01,
                   "records": 4}]}
    write_run(tmp_path, RUN, [rec])
    _campaign(tmp_path)
    with pytest.raises(ReportError, match="measured 4 for this campaign"):
        load.read_campaigns(tmp_path, load.read_runs(tmp_path))


def test_tuning_never_seeds_from_a_planted_campaign(tmp_path):
    # camp_seed_refuses_symlink: the retest checks the folder before copying from it
    from experiments.e2e import tuning
    parts = {"model": "resnet18_v1", "batch": 1, "input_size": 224, "seed": 0, "variant": "default",
             "target": "{}", "tvm_version": "0.27"}
    key = tuning.Campaign(tmp_path, parts).key
    folder = tmp_path / "campaigns" / key
    folder.mkdir(parents=True)
    (folder / "campaign.json").write_text(json.dumps({"key": key, "parts": parts, "cumulative_trials": 0,
                                                      "steps": []}))
    (folder / "database_workload.json").symlink_to("/etc/passwd")
    with pytest.raises(ValueError, match=_expect("camp_seed_refuses_symlink")):
        tuning.Campaign(tmp_path, parts)


SPECIAL = {"lim_line_separator_in_string", "order_reuse_skips_invalid_run", "order_forged_commit",
           "order_log_carriage_return", "art_harness_refuses_html", "camp_seed_refuses_symlink",
           "build_stale_tmp_removed", "build_read_only_old", "serve_nul_in_path",
           "serve_idle_connection_closed", "lim_log_over_ship_limit", "lim_truncated_copy_altered",
           *CAMPAIGNS}


# -- builds and the server ------------------------------------------------------------------

def test_a_stale_site_tmp_of_ours_is_removed(tmp_path, capsys):
    # build_stale_tmp_removed: a build killed half-way left site.tmp with only the marker and junk
    site = tmp_path / "site"
    tmp = tmp_path / "site.tmp"
    tmp.mkdir()
    (tmp / build.MARKER).write_text("x")
    (tmp / "half.html").write_text("<p>half")
    assert build.check_site_dir(tmp_path / "root", site) == site.resolve()
    build._remove(tmp)
    assert not tmp.exists()
    source = Path(build.__file__).read_text(encoding="utf-8")
    assert _expect("build_stale_tmp_removed") in source


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root ignores file permissions")
def test_a_read_only_leftover_is_one_line(tmp_path):
    # build_read_only_old
    old = tmp_path / "site.old"
    (old / "sub").mkdir(parents=True)
    (old / "sub" / "page.html").write_text("x")
    os.chmod(old / "sub", stat.S_IRUSR | stat.S_IXUSR)
    try:
        with pytest.raises(ReportError, match=_expect("build_read_only_old")):
            build._remove(old)
    finally:
        os.chmod(old / "sub", stat.S_IRWXU)


def _server(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text("<p>home</p>")
    (site / "404.html").write_text("<p>not here</p>")
    sitecheck.write_manifest(site)   # serve answers only what a build listed
    server = serve.open_server(site, 0)
    import threading
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def test_serve_answers_a_nul_path_with_400_and_no_traceback(tmp_path, capsys):
    server = _server(tmp_path)
    try:
        port = server.server_address[1]
        with socket.create_connection(("127.0.0.1", port), timeout=5) as conn:
            conn.sendall(b"GET /%00 HTTP/1.0\r\n\r\n")
            reply = conn.recv(200).decode("latin-1")
        assert reply.split()[1] == _expect("serve_nul_in_path")
        with socket.create_connection(("127.0.0.1", port), timeout=5) as conn:
            conn.sendall(b"GET /missing HTTP/1.0\r\n\r\n")
            reply = b""
            while chunk := conn.recv(4096):
                reply += chunk
        assert b" 404 " in reply.split(b"\r\n")[0] and b"not here" in reply
        assert b"Content-Security-Policy" in reply
    finally:
        server.shutdown()
        server.server_close()
    assert "Traceback" not in capsys.readouterr().err


def test_serve_closes_an_idle_connection(tmp_path, monkeypatch):
    monkeypatch.setattr(serve.Handler, "timeout", 0.5)
    server = _server(tmp_path)
    try:
        with socket.create_connection(("127.0.0.1", server.server_address[1]), timeout=5) as conn:
            conn.sendall(b"GET / HTTP/1.1\r\n")   # never finishes its request
            start = time.monotonic()
            assert conn.recv(100) == b"", _expect("serve_idle_connection_closed")
            assert time.monotonic() - start < 4
    finally:
        server.shutdown()
        server.server_close()
