"""The fourth round of the hostile corpus (issue #29): derived figures from a record's own claims,
formulas in CSV cells, run ids that lie about their machine, units, caches outside the project,
FIFOs and huge files, mistyped extras, forged pages, campaigns, counts, cases and site folders.

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every
entry has a test here or in the earlier rounds.
"""
import json
import os
import time

import pytest
import yaml
from conftest import ROOT
from helpers import record, write_run

from reportgen.data import load
from reportgen.errors import ReportError

CASES = {c["id"]: c for c in yaml.safe_load(
    (ROOT / "tests" / "data" / "hostile" / "cases.yaml").read_text(encoding="utf-8"))["cases"]}
RUN = "20260101T000000Z-quick-f6ab9f827cfd"


def _expect(case):
    return CASES[case]["expect"]


def _one_line(err):
    text = str(err)
    assert "\n" not in text.strip() and "Traceback" not in text, text
    return text


def _reseal(run):
    from test_hostile import _reseal_run
    _reseal_run(run)


# -- results refused by load, naming the file and the field -----------------------------------

def _record(**change):
    def mutate(tmp):
        write_run(tmp, RUN, [record(RUN, **change)])
    return mutate


def _sparse_log(tmp):
    run = write_run(tmp, RUN, [record(RUN)])
    with open(run / "logs" / "big.txt", "wb") as fh:   # 12 GB that take no disk
        fh.truncate(12 * 2**30)
    _reseal_listing_only(run, "logs/big.txt")


def _reseal_listing_only(run, rel):
    manifest = json.loads((run / "run.json").read_text())
    manifest["files"][rel] = "0" * 64
    (run / "run.json").write_text(json.dumps(manifest))


def _renamed(machine, stamp_env=False):
    """The run written under a run id naming ``machine`` (and, with stamp_env, its environment's
    machine_id changed to match: still not the hardware it describes)."""
    def mutate(tmp):
        run_id = f"20260101T000000Z-quick-{machine}"
        run = write_run(tmp, run_id, [record(run_id)])
        if stamp_env:
            manifest = json.loads((run / "run.json").read_text())
            manifest["environment"]["machine_id"] = machine
            (run / "run.json").write_text(json.dumps(manifest))
    return mutate


def _environment(**change):
    def mutate(tmp):
        run = write_run(tmp, RUN, [record(RUN)])
        manifest = json.loads((run / "run.json").read_text())
        manifest["environment"].update(change)
        (run / "run.json").write_text(json.dumps(manifest))
    return mutate


def _nested(obj, **change):
    """The record with fields of its ``obj`` (case, extra) changed."""
    def mutate(tmp):
        rec = record(RUN)
        rec[obj].update(change)
        write_run(tmp, RUN, [rec])
    return mutate


MUTATIONS = {
    "fig_flops_per_call_inflated": _nested("extra", flops_per_call=2 * 32 ** 3 * 10 ** 6),
    "extra_type_confusion": _nested("extra", flops_per_call="lots"),
    "extra_curve_point_mistyped": _nested("extra", curve=[{"trial": 1, "best_so_far_s": "fast"}]),
    "extra_profile_row_mistyped": _nested("extra", kernel_profile=[{"op": "k", "kind": "kernel", "calls": 1,
                                                                     "seconds": "slow"}]),
    "extra_rule_tile_mistyped": _nested("extra", rules={"trials": 0, "kernels": {"k": {"rule": "vnni_conv",
                                                                                      "oc_blocks": "4"}}}),
    "extra_paired_ratio_mistyped": _nested("extra", paired_peer={"ratio": "1.0", "blocks": 8, "calls_per_block": 4,
                                                                 "peer_p50_s": 0.01, "ratio_ci": [0.9, 1.1]}),
    "lim_sparse_huge_run_file": _sparse_log,
    "run_id_machine_mismatch": _renamed("aaaaaaaaaaaa"),
    "run_id_machine_not_hardware": _renamed("aaaaaaaaaaaa", stamp_env=True),
    "fig_unit_ignored": _record(unit="ms"),
    "lim_env_string_3mb": _environment(numpy_version="2." + "9" * 3_000_003),
    "lim_negative_warmup_number": _record(warmup=-3, number=-7),
    "lim_zero_number_with_samples": _record(number=0),
    "fig_case_vs_id": _nested("case", m=8192, n=8192, k=8192),
    "fig_case_vs_id_square": _nested("case", m=8192, k=8192),
}


@pytest.mark.parametrize("case", sorted(MUTATIONS))
def test_round4_results_are_refused_naming_the_file(case, tmp_path):
    results = tmp_path / "results"
    results.mkdir()
    MUTATIONS[case](results)
    started = time.monotonic()
    with pytest.raises(ReportError) as err:
        load.read_runs(results)
    assert time.monotonic() - started < 10
    text = "\n".join(err.value.problems)
    assert _expect(case) in text, text
    assert str(results) in text, "the message names the file"
    assert all("\n" not in p for p in err.value.problems) and len(text) < 2000
    assert CASES[case]["field"] in text, "the message names the field"


def test_gflops_come_from_the_case_not_from_extra():
    from reportgen.data import merge
    rec = record(RUN, samples=(0.002, 0.002, 0.002))
    del rec["extra"]["flops_per_call"]
    cur = merge.Current(rec, None)
    assert cur.gflops() == pytest.approx(2 * 32 ** 3 / 0.002 / 1e9)


def test_the_peak_loop_work_is_iters_accumulators_lanes_and_threads():
    from study import work
    rec = {"experiment": "machine_peak", "case": {"dtype": "float32", "isa": "avx2", "iters": 10, "threads": 2},
           "extra": {"accumulators": 12}}
    assert work.flops_per_call(rec) == 10 * 12 * 8 * 2 * 2
    rec["extra"]["accumulators"] = 10 ** 6   # more chains than registers: no work defined, so no figure
    assert work.flops_per_call(rec) is None


def test_a_run_numbered_within_its_second_keeps_its_machine(tmp_path):
    # retest._unique_run_id: a second run started in the same second is <id>-2
    run_id = f"20260101T000000Z-quick-{json.loads((ROOT / 'tests' / 'data' / 'env.json').read_text())['machine_id']}-2"
    write_run(tmp_path, run_id, [record(run_id)])
    assert [r.run_id for r in load.read_runs(tmp_path)] == [run_id]


def test_every_committed_run_names_its_own_machine():
    from study import identity
    for run_json in sorted((ROOT / "results" / "runs").glob("*/run.json")):
        manifest = json.loads(run_json.read_text())
        env = manifest["environment"]
        assert manifest["run_id"].endswith("-" + env["machine_id"]) and env["machine_id"] in identity.stamped_ids(env)


# -- CSV cells a spreadsheet would run -------------------------------------------------------

@pytest.mark.parametrize("cell, guarded", [("-1 +1+cmd|' /C calc'!A0", True), ("-1.41 / -1.41", True),
                                           ("=1+1", True), ("@SUM(A1)", True), ("\t=1", True), ("\r=1", True),
                                           ("-", True), ("-1.5", False), ("+3e-4", False), ("1,234", False),
                                           ("12.5 ms", False), ("plain", False)])
def test_a_csv_cell_that_is_not_a_whole_number_is_guarded(cell, guarded):
    from reportgen.publish import csvs
    out = csvs.to_csv([["head"], [cell]]).split("\n", 1)[1]
    assert out.lstrip('"').startswith("'") is guarded, (_expect("csv_formula_leading_number"), cell, out)


# -- archive files that are not plain files ------------------------------------------------------

@pytest.fixture
def archive_copy(tmp_path):
    import shutil
    dest = tmp_path / "archive"
    shutil.copytree(ROOT / "archive", dest)
    return dest


def test_a_fifo_in_the_archive_is_refused_not_read(archive_copy):
    from reportgen.data import archive
    path = archive_copy / "tables" / "s21_peak.yaml"
    path.unlink()
    os.mkfifo(path)
    started = time.monotonic()
    with pytest.raises(ReportError) as err:
        archive.read_archive(archive_copy)
    assert time.monotonic() - started < 10
    assert _expect("fifo_in_archive") in _one_line(err.value) and str(path) in str(err.value)


def test_a_fifo_elsewhere_in_the_archive_fails_the_seal(archive_copy):
    from reportgen.data import archive
    os.mkfifo(archive_copy / "planted.yaml")
    problems = archive.seal_problems(archive_copy)
    assert any(str(archive_copy / "planted.yaml") in p and "not a plain file" in p for p in problems)


def test_a_fifo_or_huge_file_read_through_plainfile_is_one_line(tmp_path):
    from reportgen.data import plainfile
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(ReportError) as err:
        plainfile.read_bytes(fifo)
    assert "is not a plain file" in _one_line(err.value)
    big = tmp_path / "big.log"
    with open(big, "wb") as fh:
        fh.truncate(2000)
    assert len(plainfile.read_bytes(big, 2000)) == 2000
    with pytest.raises(ReportError) as err:
        plainfile.read_bytes(big, 1999)
    assert "2000 bytes, more than the 1999" in _one_line(err.value)
    (tmp_path / "link").symlink_to(big)
    with pytest.raises(ReportError) as err:
        plainfile.read_bytes(tmp_path / "link")
    assert "is a symlink" in _one_line(err.value)


def test_the_largest_committed_run_file_is_well_inside_the_limit():
    from reportgen.data import plainfile
    largest = max(p.stat().st_size for p in (ROOT / "results").rglob("*") if p.is_file())
    assert largest * 4 < plainfile.MAX_RUN_FILE_BYTES


# -- campaigns: steps of real-looking runs, parts that match the key ------------------------------

def _step(**change):
    from test_hostile_round2 import _campaign, RUN as STEP_RUN
    step = {"run_id": STEP_RUN, "trials": 8, "seconds": 1.5, "cumulative_trials": 8, "estimated_kernel_s": 0.01,
            "records": 8}
    return lambda tmp: _campaign(tmp, steps=[dict(step, **change)])


def _parts(**change):
    from test_hostile_round2 import _campaign, PARTS
    return lambda tmp: _campaign(tmp, parts=dict(PARTS, **change))


CAMPAIGNS = {
    "camp_forged_steps_parts": _parts(target='{"kind":"cuda"}'),
    "camp_parts_markup": _parts(tvm_version="0.27<img src=x onerror=alert(1)>"),
    "camp_step_run_in_future": _step(run_id="20991231T000000Z-standard-zzzzzzzzzzzz"),
    "camp_step_run_not_an_id": _step(run_id="R1"),
    "camp_step_seconds_1e300": _step(seconds=1e300),
}


@pytest.mark.parametrize("case", sorted(CAMPAIGNS))
def test_round4_campaigns_are_refused_naming_the_file_and_field(case, tmp_path):
    CAMPAIGNS[case](tmp_path)
    with pytest.raises(ReportError) as err:
        load.read_campaigns(tmp_path)
    text = "\n".join(err.value.problems)
    assert _expect(case) in text and f"campaign.json: {CASES[case]['field']}" in text, text


def test_the_committed_campaigns_match_their_keys():
    from study import schema
    for path in sorted((ROOT / "results" / "campaigns").glob("*/campaign.json")):
        state = json.loads(path.read_text())
        assert schema.campaign_key(state["parts"]) == state["key"] == path.parent.name


# -- a fact a record carries that the words file has no text for -------------------------------

def test_an_unknown_reason_code_is_blamed_on_the_record(tmp_path):
    import shutil
    from reportgen.data import merge
    from reportgen.pages import int8
    from reportgen.render.figures import FigureBook
    name = "20261204T172631Z-standard-6b7b274cee60"
    run = tmp_path / "runs" / name
    shutil.copytree(ROOT / "results" / "runs" / name, run)
    lines = (run / "records.jsonl").read_text(encoding="utf-8").splitlines()
    at = next(i for i, line in enumerate(lines) if '"reason_code": "shape_only"' in line
              and '"id": "int8/model=digits_cnn/size=8/quant=minmax-int8"' in line)
    lines[at] = lines[at].replace('"reason_code": "shape_only"', '"reason_code": "shape_only <img src=x>"', 1)
    (run / "records.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    _reseal(run)
    current = merge.current_records(load.read_runs(tmp_path))
    with pytest.raises(ReportError) as err:
        int8.float_ops(FigureBook(), current, "digits_cnn", "minmax", "int8")
    text = _one_line(err.value)
    assert str(run / "records.jsonl") in text and _expect("extra_value_as_words_key") in text
    assert not text.startswith("docs/words"), text


# -- a site edited after its build: verify refuses it, pdf prints nothing -----------------------

FORGED = '<p>FORGED: <span class=fig>99999</span> GFLOPS <img src=file:///tmp/atk-secret.txt></p>'


def _tamper(site):
    page = site / "gemm.html"
    text = page.read_text(encoding="utf-8")
    page.write_text(text.replace("</article>", FORGED + "</article>", 1), encoding="utf-8")
    return page


def test_verify_refuses_a_forged_figure_and_a_file_load(built_copy):
    from reportgen.publish import verify
    page = _tamper(built_copy / "site")
    with pytest.raises(ReportError) as err:
        verify.verify(built_copy, built_copy / "site")
    text = "\n".join(err.value.problems)
    assert f"{page}: <span class='fig'>: {_expect('verify_forged_figure_span')}" in text
    assert f"{page}: <img src='file:///tmp/atk-secret.txt'>: {_expect('verify_file_scheme_in_page')}" in text


def test_verify_refuses_a_current_figure_shown_with_other_digits(built_copy):
    import re
    from reportgen.publish import verify
    page = built_copy / "site" / "gemm.html"
    text = page.read_text(encoding="utf-8")
    match = re.search(r'(<a class="num cur" data-num="([^"]+)"[^>]*>)([^<]+)</a>', text)
    page.write_text(text.replace(match.group(0), f"{match.group(1)}99999</a>", 1), encoding="utf-8")
    with pytest.raises(ReportError) as err:
        verify.verify(built_copy, built_copy / "site")
    assert f"shows '99999' but {_expect('verify_figure_text_altered')} {match.group(3)!r}" in str(err.value)


def test_pdf_prints_no_site_that_does_not_verify(built_copy, tmp_path, monkeypatch):
    pytest.importorskip("playwright")
    from reportgen.commands import pdf
    _tamper(built_copy / "site")
    ran = tmp_path / "browser-ran"
    exe = tmp_path / "fake-chromium"
    exe.write_text(f"#!/bin/sh\ntouch {ran}\nexit 1\n")
    exe.chmod(0o755)
    monkeypatch.setenv("REPORTGEN_CHROMIUM", str(exe))
    with pytest.raises(ReportError) as err:
        pdf.write_pdf(built_copy, built_copy / "site", quiet=True)
    assert _expect("pdf_refuses_unverified_site") in str(err.value)
    assert not ran.exists() and not (built_copy / "site" / pdf.PDF_NAME).exists()


def test_the_printing_browser_loads_only_the_served_site():
    from reportgen.commands import pdf
    origin = "http://127.0.0.1:4321"
    assert pdf.allowed(origin + "/print.html", origin) and pdf.allowed("data:image/png;base64,AA", origin)
    for url in ("file:///tmp/atk-secret.txt", "file:///etc/passwd", "http://127.0.0.1:4321@evil.example/",
                "http://127.0.0.1:43210/x", "https://example.com/x.js", "javascript:alert(1)"):
        assert not pdf.allowed(url, origin), (_expect("pdf_browser_loads_only_the_site"), url)


# -- a site folder inside the project's own folders ----------------------------------------------

@pytest.mark.parametrize("folder", ["study/out", ".ci/site", ".venv/site", "study", ".hidden/site"])
def test_a_site_inside_a_project_folder_is_refused(tmp_path, folder):
    from reportgen.commands import build
    root = tmp_path / "root"
    (root / "study").mkdir(parents=True)
    with pytest.raises(ReportError) as err:
        build.check_site_dir(root, root / folder)
    assert _expect("site_dir_in_study").replace("study", folder.split("/")[0]) in _one_line(err.value)
    assert [p.name for p in root.rglob("*")] == ["study"]   # nothing written


def test_a_site_inside_a_folder_git_tracks_is_refused(tmp_path):
    import subprocess
    from reportgen.commands import build
    root = tmp_path / "root"
    (root / "notes").mkdir(parents=True)
    (root / "notes" / "plan.md").write_text("plan\n")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    subprocess.run(["git", "-C", str(root), "add", "notes/plan.md"], check=True)
    with pytest.raises(ReportError, match="lies in notes/"):
        build.check_site_dir(root, root / "notes" / "site")
    assert build.check_site_dir(root, root / "site") == (root / "site").resolve()
    assert build.check_site_dir(root, root / "out" / "site") == (root / "out" / "site").resolve()


# -- the search's word cache: the project's cache folder, never the shared $TMPDIR -------------

WORDS = "\u4e2d\u6587\u641c\u7d22"   # four Chinese characters for the splitter


def test_the_word_cache_lives_in_the_cache_folder_and_a_planted_one_is_rebuilt(tmp_path, monkeypatch):
    import marshal
    jieba = pytest.importorskip("jieba")
    from reportgen.publish import wordsplit
    shared, cache = tmp_path / "shared-tmp", tmp_path / "cache"
    shared.mkdir()
    (shared / "jieba.cache").write_bytes(marshal.dumps(({"\u7684": 1}, 0)))   # planted by another user
    monkeypatch.setenv("TMPDIR", str(shared))
    monkeypatch.setenv("REPORTGEN_CACHE", str(cache))
    for name, value in (("initialized", False), ("tmp_dir", None), ("cache_file", None), ("FREQ", {}), ("total", 0)):
        monkeypatch.setattr(jieba.dt, name, value)   # jieba.lcut is bound to this splitter: reset, then restored
    folder = wordsplit.prepare()
    assert folder == cache / "jieba" and jieba.dt.tmp_dir == str(folder)
    assert jieba.lcut(WORDS)   # the planted cache made this ValueError: math domain error
    assert (folder / "jieba.cache").is_file() and wordsplit.sound(marshal.loads((folder / "jieba.cache").read_bytes()))
    # a corrupt cache in our own folder is removed and rebuilt, not an internal error
    (folder / "jieba.cache").write_bytes(marshal.dumps(({"\u7684": 1}, 0)))
    wordsplit.prepare()
    assert not jieba.dt.initialized and jieba.lcut(WORDS)
    assert wordsplit.sound(marshal.loads((folder / "jieba.cache").read_bytes()))
    assert [p.name for p in shared.iterdir()] == ["jieba.cache"], _expect("jieba_cache_outside_project")
    assert marshal.loads((shared / "jieba.cache").read_bytes()) == ({"\u7684": 1}, 0)


def test_the_build_prepares_the_word_cache_before_mkdocs():
    import inspect
    from reportgen.commands import build
    source = inspect.getsource(build._build)
    assert source.index("wordsplit.prepare()") < source.index("mk_build.build(config)")


SPECIAL = {"csv_formula_leading_number", "fifo_in_archive", "extra_value_as_words_key",
           "site_dir_in_study", "jieba_cache_outside_project", *CAMPAIGNS,
           "verify_forged_figure_span", "verify_file_scheme_in_page", "verify_figure_text_altered",
           "pdf_refuses_unverified_site", "pdf_browser_loads_only_the_site"}


def test_fields_a_family_writes_as_null_are_accepted():
    """Typing extra must not refuse what the families write: e2e_tune without a campaign (the quick
    profile) writes ``campaign: null``, and the int8 FP32-tuned engine ``rewrite: null``."""
    from study import work
    rec = {"experiment": "e2e_tune", "case": {}, "extra": {"campaign": None, "rewrite": None, "tuning": {"trials": 16}}}
    assert work.extra_problems(rec) == []
    assert work.extra_problems(dict(rec, extra={"campaign": "x"}))   # and a wrong type is still refused


def test_the_id_target_is_the_cases_target_kind():
    """gemm_tvm's CUDA cases: the id says ``target=cuda`` and the case holds the whole target dict
    beside ``target_kind`` -- the kind is what the two must agree on (the slow CUDA skip test lost
    its records to this check)."""
    from study import cases
    rid = cases.case_id("gemm_tvm", impl="tvm_cuda", stage="dlight_matmul", m=128, n=128, k=128, target="cuda")
    case = {"impl": "tvm_cuda", "stage": "dlight_matmul", "m": 128, "n": 128, "k": 128, "target": {"kind": "cuda"},
            "target_kind": "cuda"}
    assert cases.case_problems(rid, case) == []
    assert cases.case_problems(rid, dict(case, target_kind="llvm"))
