"""The CUDA target path of gemm_tvm: measured where a GPU exists, recorded as skipped where none does."""
import json

import pytest

from reportgen.data import load
from reportgen.commands import retest
from reportgen.errors import ReportError

CUDA = json.dumps({"kind": "cuda"})


def _has_gpu():
    import tvm
    return bool(tvm.cuda(0).exist)


def _run(project, final):
    [run] = [r for r in load.read_runs(project / "results") if r.run_id == final.name]
    return run


@pytest.mark.slow  # runs the gemm_tvm family through retest
def test_without_a_gpu_every_cuda_case_is_skipped_with_the_reason(project):
    if _has_gpu():
        pytest.skip("this machine has a CUDA GPU: the skip path is for machines without one")
    records = _run(project, retest.retest(project, "quick", only=("gemm_tvm",), target_json=CUDA)).records
    assert records and all(r["status"] == "skipped" and "tvm.cuda(0).exist is False" in r["error"] for r in records)
    assert all(r["case"]["impl"] == "tvm_cuda" and r["case"]["target_kind"] == "cuda" for r in records)
    assert all(r["case"]["target"]["kind"] == "cuda" for r in records)


@pytest.mark.slow  # runs the gemm_tvm family through retest
def test_on_a_gpu_the_gemm_is_checked_and_timed(project):
    if not _has_gpu():
        pytest.skip("no CUDA GPU on this machine (tvm.cuda(0).exist is False)")
    records = _run(project, retest.retest(project, "quick", only=("gemm_tvm",), target_json=CUDA)).records
    assert records and all(r["status"] == "ok" and r["check"]["passed"] for r in records)
    assert all(r["case"]["target_kind"] == "cuda" and r["samples"] for r in records)


def test_a_local_target_must_be_cuda_and_families_must_accept_it(project):
    with pytest.raises(ReportError, match="for a local CUDA GPU"):
        retest.retest(project, "quick", only=("gemm_tvm",), target_json=json.dumps({"kind": "llvm"}))
    with pytest.raises(ReportError, match="numpy_gemm cannot compile for a CUDA target"):
        retest.retest(project, "quick", only=("numpy_gemm", "gemm_tvm"), target_json=CUDA)


def test_cuda_records_stay_out_of_the_cpu_tables():
    from helpers import record

    from reportgen.data import load, merge
    from reportgen.pages import gemm
    from reportgen.render.figures import FigureBook
    case = {"impl": "tvm_cuda", "stage": "dlight_matmul", "m": 32, "n": 32, "k": 32, "dtype": "float32",
            "threads": None, "target_kind": "cuda", "target": {"kind": "cuda"}}
    rec = record("r1", case_id="gemm_tvm/impl=tvm_cuda/stage=dlight_matmul/m=32/n=32/k=32/target=cuda", case=case)
    run = load.Run(__import__("pathlib").Path("r1"), {"run_id": "r1", "profile": "quick", "finished_at": "r1",
                                                      "environment": {}}, [rec])
    current = merge.current_records([run])
    book = FigureBook()
    book.set_page("gemm.md")
    assert gemm.tvm_shapes(book, current, 2) == "（尚无记录）"
    assert gemm.tvm_codegen(book, current, "data") == "（尚无记录）"
