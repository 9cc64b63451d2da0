"""Current records of one topic from different machines or environments are flagged, not mixed silently."""
from pathlib import Path

from helpers import ENV, record

from reportgen.data import compare, load, merge
from reportgen.render import comparable
from reportgen.pages import history
from study import identity

BOARD = {"cpu_family_model": "26/2"}   # another CPU generation behind the same "AMD EPYC" name
BOARD_ID = identity.machine_id({**ENV, **BOARD})


def _run(run_id, **env):
    rec = record(run_id, case_id=f"gemm_tvm/impl=tvm/stage=baseline/m=32/threads=1/{run_id}")
    return load.Run(Path(run_id), {"run_id": run_id, "profile": "quick", "finished_at": run_id,
                                   "environment": {**ENV, **env}}, [rec])


def _current(*runs):
    return merge.current_records(list(runs))


def test_one_environment_is_comparable():
    current = _current(_run("r1"), _run("r2"))
    assert comparable.differences(current.values()) == []
    assert comparable.note(current.values()) == ""
    assert "同一环境" in history.comparability(current)


def test_other_machine_and_tvm_are_named():
    current = _current(_run("r1"), _run("r2", tvm_version="0.28.dev0", **BOARD))
    diffs = {key: values for key, _label, values in comparable.differences(current.values())}
    assert set(diffs) == {"machine_id", "tvm_version"}
    assert diffs["machine_id"][BOARD_ID] == {"runs": ["r2"], "records": 1}
    text = comparable.note(current.values())
    assert text.startswith('<span class="warn">不可比：</span>') and BOARD_ID in text and "0.28.dev0" in text
    assert comparable.by_family(current) == {"gemm_tvm": text}
    assert "gemm_tvm" in history.comparability(current)


def test_blas_kernel_is_compared_by_architecture():
    other = [dict(b, architecture="SkylakeX") for b in ENV["blas"]] or [{"architecture": "SkylakeX"}]
    current = _current(_run("r1"), _run("r2", blas=other))
    assert [key for key, _l, _v in comparable.differences(current.values())] == ["blas"]
    assert "SkylakeX" in comparable.family_note(current, ("gemm_tvm",))
    assert comparable.family_note(current, ("numpy_gemm",)) == ""


def test_compare_names_another_machine():
    a, b = _run("r1"), _run("r2", **BOARD)
    assert compare.environment_differences(a, b)[0] == ("machine_id", identity.machine_id(ENV), BOARD_ID)
