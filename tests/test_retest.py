"""Integration: retest → build → verify on a project copy, and the failure paths.

Timings here are real but never asserted: only structure, checks and statuses.
"""
import json
import subprocess
import sys
import textwrap

import pytest
import yaml

from reportgen.commands import build, retest
from reportgen.data import load
from reportgen.publish import verify
from reportgen.errors import ReportError


def _small_quick(project):
    """Shrink the quick profile further so the integration test stays fast."""
    path = project / "experiments" / "configs" / "quick.yaml"
    config = yaml.safe_load(path.read_text(encoding="utf-8"))
    config["families"]["numpy_gemm"].update(sizes=[32, 64], repeat=3, min_repeat=3, budget_s=0.2)
    config["families"]["machine_peak"].update(iters=200000, repeat=3)
    config["families"]["gemm_hand"].update(sizes=[16, 33], repeat=3, min_repeat=3, budget_s=0.2)
    config["families"]["gemm_tvm"].update(
        shapes=[[32, 32, 32], [17, 33, 9]], artifact_shape=[32, 32, 32], stages=["baseline", "parallel"],
        threads=[1], tune={"trials": 0, "shapes": [], "threads": []}, repeat=3, min_repeat=3, budget_s=0.2)
    config["families"]["e2e_tune"].update(jobs=[{"model": "resnet18_v1", "batch": 1, "budget": 8}],
                                          input_size=32, n_check=1)
    config["families"]["e2e"].update(engines=["tf", "tvm_c", "tvm_d"], input_size=32, n_check=1, repeat=3,
                                     budget_s=0.2, batches=[1, 2], batch_engines=["tf"])
    config["families"]["int8"].update(
        methods=["percentile"], engines=["tvm_fp32", "tvm_int8", "ort_qdq", "tvm_int8_tuned"], epochs=3,
        min_fp32_accuracy=0.3, n_layer={"default": 2}, repeat=3, budget_s=0.2)
    path.write_text(yaml.dump(config, sort_keys=False), encoding="utf-8")


def _add_family(project, name, body, timeout_s):
    """A family of its own: one module declaring it, and its (empty) params in the quick profile."""
    timeouts = {profile: timeout_s for profile in ("quick", "standard", "full")}
    (project / "experiments" / f"{name}.py").write_text(
        f"from study.family import Family\nFAMILY = Family(name={name!r}, timeout_s={timeouts!r})\n"
        + textwrap.dedent(body), encoding="utf-8")
    path = project / "experiments" / "configs" / "quick.yaml"
    config = yaml.safe_load(path.read_text(encoding="utf-8"))
    config["families"][name] = {}
    path.write_text(yaml.dump(config, sort_keys=False), encoding="utf-8")


@pytest.mark.slow
def test_quick_retest_build_verify_and_reuse(project):
    _small_quick(project)
    before = {p.name for p in (project / "results" / "runs").iterdir()}
    first = retest.retest(project, "quick")
    assert first.name not in before
    runs = {r.run_id: r for r in load.read_runs(project / "results")}
    recs = runs[first.name].records
    ids = {r["id"] for r in recs}
    assert "numpy_gemm/dtype=float64/n=64/threads=1/blas=best" in ids
    assert "gemm_tvm/impl=tvm/stage=parallel/m=17/n=33/k=9/threads=1" in ids
    assert "gemm_tvm/impl=numpy/stage=any/m=32/n=32/k=32/threads=1/blas=best" in ids
    e2e = [r for r in recs if r["experiment"] == "e2e"]
    assert {(r["case"]["engine"], r["case"]["batch"]) for r in e2e} == {("tf", 1), ("tvm_c", 1), ("tvm_d", 1), ("tf", 2)}
    assert all(r["status"] == "ok" and r["extra"]["agreement"]["top1_agree"] == 1.0 for r in e2e)
    assert all(r["number"] == 1 for r in e2e)   # one request per sample: p99 is a request latency
    tune = next(r for r in recs if r["experiment"] == "e2e_tune")
    assert tune["metric"] == "evidence" and tune["check"]["passed"]
    assert sum(a["trials"] for a in tune["extra"]["allocation"]) == 8
    d = next(r for r in e2e if r["case"]["engine"] == "tvm_d")
    assert d["extra"]["tuned"] and d["extra"]["tuning"]["record"] == tune["id"]
    assert d["extra"]["tuning"]["scheduled"] >= 1
    assert (project / "results" / d["extra"]["tuning"]["database"] / "database_tuning_record.json").is_file()
    int8 = {r["id"]: r for r in recs if r["experiment"] == "int8"}
    assert int8["int8/model=digits_cnn/train"]["metric"] == "evidence"
    quant = int8["int8/model=digits_cnn/size=8/quant=percentile-uint8"]
    assert quant["extra"]["rewrite"]["quantized_ops"]["conv2d"] == 3 and quant["extra"]["layers"]
    e = next(r for r in int8.values() if r["case"].get("engine") == "tvm_int8")
    assert e["status"] == "ok" and e["extra"]["asm"]["all_kernels"]
    f = next(r for r in int8.values() if r["case"].get("engine") == "tvm_int8_tuned")
    assert f["extra"]["tuned"] and f["extra"]["tuning"]["scheduled"] >= 1
    tvm_rec = next(r for r in recs if r["id"] == "gemm_tvm/impl=tvm/stage=parallel/m=32/n=32/k=32/threads=1")
    assert tvm_rec["case"]["target"]["mcpu"] and tvm_rec["case"]["target"]["kind"] == "llvm"
    for ref in tvm_rec["extra"]["artifacts"].values():
        assert (project / "results" / ref).is_file()
    assert all(r["status"] == "ok" and r["check"]["passed"] for r in recs if r["status"] != "skipped")
    skipped = [r for r in recs if r["status"] == "skipped"]
    assert all(r["error"] and not r["samples"] for r in skipped)
    assert all(r["extra"]["blas_kernel"]["internal_api"] for r in recs if r["experiment"] == "numpy_gemm")
    manifest = runs[first.name].manifest
    assert manifest["experiments"]["numpy_gemm"]["status"] == "ok"
    site = build.build(project, project / "site")
    assert verify.verify(project, site)

    second = retest.retest(project, "quick", only=("numpy_gemm",))
    again = load.read_jsonl(second / "records.jsonl")
    assert again and all(r["reused_from"] == first.name for r in again)
    forced = retest.retest(project, "quick", only=("numpy_gemm",), force=True)
    assert all(r["reused_from"] is None for r in load.read_jsonl(forced / "records.jsonl"))


def test_timeout_and_crash_are_recorded_and_earlier_runs_survive(project):
    _add_family(project, "sleepy", "import time\nprint('[sleepy] sleeping', flush=True)\ntime.sleep(30)\n", 2)
    _add_family(project, "crashy", "raise SystemExit('boom: no such model')\n", 30)
    before = {p.name: (p / "records.jsonl").read_bytes() for p in (project / "results" / "runs").iterdir()}
    run = retest.retest(project, "quick", only=("sleepy", "crashy"))
    recs = {r["id"]: r for r in load.read_jsonl(run / "records.jsonl")}
    assert recs["sleepy/scope=family"]["status"] == "timeout"
    assert recs["sleepy/scope=family"]["error"] == "family timed out after 2 s"
    assert recs["crashy/scope=family"]["status"] == "run_failed"
    assert "boom: no such model" in recs["crashy/scope=family"]["error"]
    for name, data in before.items():
        assert (project / "results" / "runs" / name / "records.jsonl").read_bytes() == data
    load.read_runs(project / "results")   # still valid, failures included


def test_killed_retest_leaves_no_run(project):
    _add_family(project, "sleepy", "import time\ntime.sleep(60)\n", 120)
    before = sorted(p.name for p in (project / "results" / "runs").iterdir() if not p.name.startswith("."))
    proc = subprocess.Popen([sys.executable, "-m", "reportgen.cli", "--root", str(project), "retest",
                             "--only", "sleepy"], cwd=project)
    import time
    deadline = time.time() + 30
    while time.time() < deadline and not list((project / "results" / "runs").glob(".tmp-*")):
        time.sleep(0.2)
    proc.kill()
    proc.wait()
    after = sorted(p.name for p in (project / "results" / "runs").iterdir() if not p.name.startswith("."))
    assert after == before
    load.read_runs(project / "results")


def test_unknown_family_is_a_clear_error(project):
    with pytest.raises(ReportError) as err:
        retest.retest(project, "quick", only=("nope",))
    assert str(err.value).startswith("--only: unknown family nope; known: machine_peak, numpy_gemm")


def test_failed_build_keeps_published_site(built_copy):
    site = built_copy / "site"   # published by the session's build
    marker = (site / "index.html").read_bytes()
    (built_copy / "docs" / "gemm.md").write_text("{{ no_such_placeholder }}\n{% if x %}{{ chart(y) }}{% endif %}\n"
                                                 "{% set z = 'a' %}{{ z }}\n", encoding="utf-8")
    with pytest.raises(ReportError) as err:
        build.build(built_copy, built_copy / "site")
    # every unknown name of the page at once; names the template sets itself are not placeholders
    assert ("docs/gemm.md: unknown placeholders: no_such_placeholder, x, y (not defined by any "
            "reportgen/pages module)") in str(err.value)
    assert (site / "index.html").read_bytes() == marker


@pytest.mark.slow   # a whole build
def test_a_placeholder_no_page_uses_fails_the_build(built_copy):
    site = built_copy / "site"
    marker = (site / "index.html").read_bytes()
    page = built_copy / "docs" / "gemm-ladder.md"
    page.write_text(page.read_text(encoding="utf-8").replace("{{ microkernel_grid() | indent(4) }}", ""), encoding="utf-8")
    with pytest.raises(ReportError) as err:
        build.build(built_copy, built_copy / "site")
    assert "placeholder used by no page in docs/: microkernel_grid (remove it from reportgen/pages" in str(err.value), err.value
    assert (site / "index.html").read_bytes() == marker


def test_cli_reports_errors_without_traceback(project):
    (project / "results" / "runs").mkdir(exist_ok=True)
    bad = next(p for p in (project / "results" / "runs").iterdir() if not p.name.startswith("."))
    with open(bad / "records.jsonl", "a", encoding="utf-8") as fh:
        fh.write('{"id": 1}\n')
    out = subprocess.run([sys.executable, "-m", "reportgen.cli", "--root", str(project), "verify"],
                         capture_output=True, text=True)
    assert out.returncode == 1
    assert "Traceback" not in out.stderr
    assert f"{bad / 'records.jsonl'}:" in out.stderr and "schema_version: missing" in out.stderr
    json.dumps(out.stderr)


def test_run_ids_never_collide(tmp_path):
    (tmp_path / "20260101T000000Z-quick-f6ab9f827cfd").mkdir()
    (tmp_path / ".tmp-20260101T000000Z-quick-f6ab9f827cfd-2").mkdir()
    assert retest._unique_run_id(tmp_path, "20260101T000000Z-quick-f6ab9f827cfd") == "20260101T000000Z-quick-f6ab9f827cfd-3"


def test_a_standard_run_from_uncommitted_code_is_refused(tmp_path):
    """What the site publishes names a commit: a standard run from a tree with a modified tracked
    file is refused before anything runs (results/ may change: campaigns are updated by runs)."""
    root = tmp_path / "proj"
    (root / "experiments" / "configs").mkdir(parents=True)
    (root / "experiments" / "code.py").write_text("x = 1\n")
    (root / "results").mkdir()
    (root / "results" / "campaign.json").write_text("{}\n")
    git = lambda *a: subprocess.run(["git", *a], cwd=root, check=True, capture_output=True)  # noqa: E731
    git("init", "-q")
    git("-c", "user.email=t@t", "-c", "user.name=t", "add", ".")
    git("-c", "user.email=t@t", "-c", "user.name=t", "commit", "-q", "-m", "init")
    (root / "results" / "campaign.json").write_text('{"steps": 1}\n')
    assert retest._git(root)["dirty"] is False          # results/ does not make the code dirty
    (root / "experiments" / "code.py").write_text("x = 2\n")
    assert retest._git(root)["dirty"] is True
    with pytest.raises(ReportError) as err:
        retest.retest(root, "standard")
    assert "uncommitted" in str(err.value) and "--allow-dirty" in err.value.hint
