"""The records as one frame: its rows and columns, its cache, and the archive's cells as a frame."""
from pathlib import Path

import pytest
from helpers import ENV, record

from study import identity
from reportgen.data import archive, frame, load, merge

ROOT = Path(__file__).resolve().parents[1]
RUN = "20260101T000000Z-standard-x"


def _e2e(model, engine, batch=1, status="ok", **case):
    rec = record(RUN, case_id=f"e2e/model={model}/engine={engine}/batch={batch}/threads=1",
                 experiment="e2e", status=status)
    rec["case"] = {"model": model, "engine": engine, "batch": batch, "threads": 1, "input_size": 224, "seed": 0,
                   **case}
    if status != "ok":
        rec.update(stats=None, samples=[], error="lost")
        rec["check"] = dict(rec["check"], passed=None, max_abs_err=None, max_rel_err=None)
    return rec


def _run(records, run_id=RUN, profile="standard", finished="2026-01-01T00:10:00Z"):
    return load.Run(Path(run_id), {"run_id": run_id, "profile": profile, "finished_at": finished,
                                   "environment": dict(ENV)}, records)


@pytest.fixture
def current():
    gemm = record(RUN)
    return merge.current_records([_run([gemm, _e2e("resnet18_v1", "tf"), _e2e("resnet18_v1", "tvm_c"),
                                        _e2e("resnet18_v1", "tvm_d", status="run_failed"),
                                        _e2e("mobilenet", "tvm_c", batch=8)])])


def test_one_row_per_current_record_with_its_fields(current):
    f = frame.records_frame(current)
    assert list(f.index) == list(current) and f.index.name == "id"
    row = f.loc["e2e/model=resnet18_v1/engine=tvm_c/batch=1/threads=1"]
    assert (row["family"], row["status"], row["run"], row["profile"], row["finished_at"]) == \
        ("e2e", "ok", RUN, "standard", "2026-01-01T00:10:00Z")
    assert row["machine"] == identity.machine_id(ENV)
    assert row["case.model"] == "resnet18_v1" and row["case.batch"] == 1 and type(row["case.batch"]) is int
    assert row["stats.p50"] == current[row.name].stat("p50") and row["check.passed"] is True
    assert row["log.path"] == current[row.name].record["log"]["path"]
    assert row["current"] is current[row.name]          # the record itself, for the FigureBook
    gemm = f.loc[record()["id"]]
    assert gemm["case.model"] is None and gemm["case.dtype"] == "float32"   # a field the record lacks is None
    failed = f.loc["e2e/model=resnet18_v1/engine=tvm_d/batch=1/threads=1"]
    assert failed["status"] == "run_failed" and failed["stats.p50"] != failed["stats.p50"]   # NaN: no stats
    assert {f"stats.{k}" for k in ("p50", "p95", "mean", "n")} <= set(f.columns)
    assert {c for c in f.columns if c.startswith("case.")} == {f"case.{k}" for r in current.values() for k in r.record["case"]}


def test_an_empty_mapping_is_an_empty_frame():
    f = frame.records_frame({})
    assert f.empty and {"family", "status", "machine", "current", "stats.p50"} <= set(f.columns)
    assert frame.first(frame.select({}, "e2e", model="resnet18_v1")) is None and frame.currents(f) == []


def test_the_frame_is_kept_until_the_records_change(current):
    assert isinstance(current, frame.Records) and frame.of(current) is frame.of(current)
    before = frame.of(current)
    extra = _e2e("vgg", "tf")
    current[extra["id"]] = merge.Current(extra, None)
    after = frame.of(current)
    assert after is not before and extra["id"] in after.index and extra["id"] not in before.index
    assert frame.first(frame.select(current, "e2e", model="vgg")) is current[extra["id"]]
    del current[extra["id"]]
    assert frame.first(frame.select(current, "e2e", model="vgg")) is None
    plain = dict(current)   # a hand-made mapping gets a fresh frame each time
    assert frame.of(plain) is not frame.of(plain) and list(frame.of(plain).index) == list(current)


def test_archive_frame_keeps_every_printed_string():
    tables, _envs = archive.read_archive(ROOT / "archive")
    f = frame.archive_frame(tables)
    cells = {c.id: c for t in tables.values() for r in t.rows for c in r["cells"].values()}
    assert list(f.index) == list(cells) and set(f["text"].map(type)) == {str}
    assert all(f.loc[i, "text"] == c.text and f.loc[i, "cell"] is c for i, c in cells.items())
    assert (f["text"].dtype, f["join.n"].dtype) == (object, object)
    row = f.loc["s21_numpy/single_fp32/1024"]
    assert (row["table"], row["row"], row["column"], row["join.n"]) == ("s21_numpy", "single_fp32", "1024", 1024)
    assert row["text"] == tables["s21_numpy"].cell("single_fp32", "1024").text
