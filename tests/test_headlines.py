"""Every headline ratio, recomputed from the raw records by this test's own code (not reportgen's):
the operands come from one machine and one run, each side is the fastest candidate of its kind in
that run (a "best" is the minimum), and the page prints the value the records give.

The headlines are the figures of the home page's answers and the topic pages' findings; a new kind
of headline ratio must get a recomputation here (the last test fails until it does)."""
import json
import statistics

import pytest
from conftest import ROOT

PAGES = ("index.md", "int8.md", "gemm-ladder.md", "e2e.md", "retrospective.md", "credibility.md")
TVM_E2E = ("tvm_b", "tvm_c", "tvm_d", "tvm_d_prepack", "tvm_rules", "tvm_rules_tuned")
INT8_TVM = ("tvm_int8", "tvm_int8_tuned", "tvm_int8_rules")
FP32_TVM = ("tvm_fp32", "tvm_fp32_tuned", "tvm_fp32_rules")


@pytest.fixture(scope="module")
def records():
    """{run id: [record, ...]} of every committed run, read as plain JSON lines."""
    out = {}
    for path in sorted((ROOT / "results" / "runs").glob("*/records.jsonl")):
        out[path.parent.name] = [json.loads(line) for line in path.read_text(encoding="utf-8").split("\n") if line.strip()]
    return out


def _p50(rec):
    return statistics.median(rec["samples"])


def _ok(rec):
    return rec["status"] == "ok" and rec["samples"]


def _run_records(records, entry):
    run = records[entry["run"]]
    [rec] = [r for r in run if r["id"] == entry["record"]]
    return run, rec


def _fastest(run, family, engines, **case):
    found = [r for r in run if r["experiment"] == family and _ok(r) and r["case"].get("engine") in engines
             and all(r["case"].get(k) == v for k, v in case.items())]
    return min(found, key=_p50)


def _best_vs_ort(records, entry):
    """e2e: the fastest TVM of the run for the model, against ORT timed in alternating blocks."""
    run, rec = _run_records(records, entry)
    case = rec["case"]
    best = _fastest(run, "e2e", TVM_E2E, model=case["model"], batch=case["batch"])
    assert best["id"] == rec["id"], f"{entry['id']}: not the fastest TVM of its run ({best['id']} is)"
    pp = rec["extra"]["paired_peer"]
    n = pp["calls_per_block"]
    blocks = [statistics.median(pp["samples"][i:i + n]) / statistics.median(pp["peer_samples"][i:i + n])
              for i in range(0, len(pp["samples"]), n)]
    return statistics.median(blocks)


def _int8_best(records, entry):
    run, rec = _run_records(records, entry)
    model = rec["case"]["model"]
    int8 = _fastest(run, "int8", INT8_TVM, model=model)
    assert int8["id"] == rec["id"], f"{entry['id']}: not the fastest INT8 TVM network of its run ({int8['id']} is)"
    return run, rec, model


def _best_fp32_over_int8(records, entry):
    run, rec = _run_records(records, entry)
    fp32 = _fastest(run, "int8", FP32_TVM, model=rec["case"]["model"])
    return _p50(fp32) / _p50(rec)


def _vs_best_fp32(records, entry):
    run, rec, model = _int8_best(records, entry)
    return _p50(_fastest(run, "int8", FP32_TVM, model=model)) / _p50(rec)


def _vs_ort_qdq(records, entry):
    """Timed in alternating blocks with ORT QDQ: the median block ratio, recomputed from the blocks'
    own samples; else p50 / p50 of the two records."""
    run, rec = _run_records(records, entry)
    pp = rec["extra"].get("paired_peer")
    if pp and pp["engine"] == "ort_qdq":
        n = pp["calls_per_block"]
        blocks = [statistics.median(pp["samples"][i:i + n]) / statistics.median(pp["peer_samples"][i:i + n])
                  for i in range(0, len(pp["samples"]), n)]
        return statistics.median(blocks)
    return _p50(rec) / _p50(_fastest(run, "int8", ("ort_qdq",), model=rec["case"]["model"]))


def _speed_vs_best_numpy(records, entry):
    """GEMM: the NumPy peer of the run at the kernel's shape and threads, the faster BLAS set-up."""
    run, rec = _run_records(records, entry)
    c = rec["case"]
    peers = [r for r in run if r["experiment"] == "gemm_tvm" and _ok(r) and r["case"].get("impl") == "numpy"
             and all(r["case"].get(k) == c[k] for k in ("m", "n", "k", "threads"))]
    return min(_p50(r) for r in peers) / _p50(rec)


def _best_tvm_over_tf(records, entry):
    run, rec = _run_records(records, entry)
    case = rec["case"]
    best = _fastest(run, "e2e", TVM_E2E, model=case["model"], batch=case["batch"])
    assert best["id"] == rec["id"], f"{entry['id']}: not the fastest TVM of its run ({best['id']} is)"
    return _p50(rec) / _p50(_fastest(run, "e2e", ("tf",), model=case["model"], batch=case["batch"]))


RECOMPUTE = {"best_vs_ort": _best_vs_ort, "best_fp32_over_int8": _best_fp32_over_int8,
             "vs_best_fp32": _vs_best_fp32, "vs_ort_qdq": _vs_ort_qdq,
             "speed_vs_best_numpy": _speed_vs_best_numpy, "best_tvm_over_tf": _best_tvm_over_tf}
# headline kinds: a ratio on PAGES whose key names a best-of comparison
HEADLINE = ("best_", "vs_best", "vs_ort_qdq")


def _headlines(built_site):
    numbers = json.loads((built_site / "site" / "numbers.json").read_text(encoding="utf-8"))
    return [e for e in numbers if e["kind"] == "current" and e["page"] in PAGES and e["unit"] == "×"
            and e["id"].split("#")[-1].startswith(HEADLINE) or (e["kind"] == "current" and e["page"] == "index.md")]


def test_every_headline_ratio_recomputes_from_its_records(built_site, records):
    checked = 0
    for entry in _headlines(built_site):
        key = entry["id"].split("#")[-1]
        if key not in RECOMPUTE or entry["machine"] is None:
            continue
        value = RECOMPUTE[key](records, entry)
        printed = float(entry["value"].rstrip("×"))
        digits = len(entry["value"].rstrip("×").split(".")[-1])
        assert abs(printed - value) <= 0.5 * 10 ** -digits + 1e-9, f"{entry['id']}: page {printed}, records {value:.4f}"
        checked += 1
    assert checked >= 5


def test_every_headline_kind_has_a_recomputation(built_site):
    kinds = {e["id"].split("#")[-1] for e in _headlines(built_site)} - {"gflops_p50", "p50"}
    ratios = {k for k in kinds if any(e["id"].endswith("#" + k) and e["unit"] == "×" for e in _headlines(built_site))}
    assert ratios <= set(RECOMPUTE), f"headline ratios without a recomputation: {sorted(ratios - set(RECOMPUTE))}"
