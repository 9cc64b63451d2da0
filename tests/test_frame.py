"""The records as one frame: its rows and columns, its cache, and queries that find exactly the
records the dict code found before (checked against that code on the committed results)."""
from pathlib import Path

import pandas as pd
import pytest
from helpers import ENV, record

from study import identity
from reportgen.data import archive, frame, load, merge, queries
from reportgen.data.words import W
from reportgen.pages import e2e as e2e_page, gemm, int8 as int8_page
from reportgen.render.figures import FigureBook
from reportgen.render.markdown import markdown, table

ROOT = Path(__file__).resolve().parents[1]
RUN = "20260101T000000Z-standard-f6ab9f827cfd"


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
    assert queries.e2e({}, "resnet18_v1", "tf") is None and queries.e2e_models({}) == []
    assert queries.e2e_tvm({}) == [] and queries.tvm_main_shape({}) is None and merge.family({}, "e2e") == {}
    assert merge.peak({}, "float32", 1) is None and merge.isa_peak({}, "float32", 1, "avx2") is None


def test_the_frame_is_kept_until_the_records_change(current):
    assert isinstance(current, frame.Records) and frame.of(current) is frame.of(current)
    before = frame.of(current)
    extra = _e2e("vgg", "tf")
    current[extra["id"]] = merge.Current(extra, None)
    after = frame.of(current)
    assert after is not before and extra["id"] in after.index and extra["id"] not in before.index
    assert queries.e2e(current, "vgg", "tf") is current[extra["id"]]
    del current[extra["id"]]
    assert queries.e2e(current, "vgg", "tf") is None
    plain = dict(current)   # a hand-made mapping gets a fresh frame each time
    assert frame.of(plain) is not frame.of(plain) and list(frame.of(plain).index) == list(current)


def test_queries_on_the_fixture(current):
    tf = current["e2e/model=resnet18_v1/engine=tf/batch=1/threads=1"]
    assert queries.e2e(current, "resnet18_v1", "tf") is tf
    assert queries.e2e(current, "resnet18_v1", "tf", batch=8) is None
    assert queries.e2e(current, "mobilenet", "tvm_c", batch=8).record["case"]["batch"] == 8
    assert queries.e2e_models(current) == ["resnet18_v1", "mobilenet"]
    assert [c.record["case"]["engine"] for c in queries.e2e_tvm(current)] == ["tvm_c"]   # tvm_d failed
    other = merge.Current(dict(tf.record, case=dict(tf.record["case"], input_size=64)), None)
    assert queries.e2e(current, "resnet18_v1", "tvm_c", like=other) is None
    assert queries.e2e(current, "resnet18_v1", "tvm_c", like=tf) is not None
    assert list(merge.family(current, "numpy_gemm")) == [record()["id"]]


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


# The dict code the frame queries replaced, kept here as the reference they must agree with.
def _family(current, name):
    return {k: v for k, v in current.items() if v.record["experiment"] == name}


def _old_e2e(current, model, engine, batch=1, like=None, family="e2e"):
    for cur in _family(current, family).values():
        case = cur.record["case"]
        if case.get("model") == model and case.get("engine") == engine and case.get("batch", 1) == batch \
                and (like is None or queries.comparable(cur, like)):
            return cur
    return None


def _old_models(current, family):
    seen = []
    for cur in _family(current, family).values():
        model = cur.record["case"].get("model")
        if model and model not in seen:
            seen.append(model)
    return seen


def _old_first(current, family, only_ok=False, **case):
    return next((c for c in _family(current, family).values() if (c.ok or not only_ok)
                 and all(c.record["case"].get(k) == v for k, v in case.items())), None)


def _old_peak(current, dtype, threads):
    best = None
    for cur in _family(current, "machine_peak").values():
        case = cur.record["case"]
        if cur.ok and case["dtype"] == dtype and case["threads"] == threads:
            if best is None or cur.gflops("p50") > best.gflops("p50"):
                best = cur
    return best


def _old_main_shape(current):
    fam = list(_family(current, "gemm_tvm").values())
    shapes = {(c.record["case"]["m"], c.record["case"]["n"], c.record["case"]["k"]) for c in fam}
    tuned = {(c.record["case"]["m"], c.record["case"]["n"], c.record["case"]["k"]) for c in fam
             if c.record["case"]["stage"] == "autotuned"}
    return max(tuned or shapes, key=lambda s: s[0] * s[1] * s[2]) if shapes else None


@pytest.fixture(scope="module")
def committed():
    runs = load.read_runs(ROOT / "results")
    return {mid: merge.current_records(merge.runs_of(runs, mid)) for mid in merge.machines(runs)}


def test_queries_find_what_the_dict_code_found_on_the_committed_results(committed):
    assert len(committed) >= 2
    for current in committed.values():
        for name in {c.record["experiment"] for c in current.values()} | {"absent"}:
            assert merge.family(current, name) == _family(current, name)
            assert list(merge.family(current, name)) == list(_family(current, name))
        for family in ("e2e", "int8"):
            assert queries.models(current, family) == _old_models(current, family)
        assert queries.e2e_models(current) == _old_models(current, "e2e")
        assert queries.tvm_main_shape(current) == _old_main_shape(current)
        assert queries.tvm_family(current) == list(_family(current, "gemm_tvm").values())
        for family in ("e2e", "int8"):
            fam = _family(current, family).values()
            engines = {c.record["case"].get("engine") for c in fam} | {"absent"}
            batches = {c.record["case"].get("batch") for c in fam} | {1, 64}
            likes = [None] + [c for c in fam if c.record["case"].get("engine") in ("tf", "tvm_fp32")]
            for model in _old_models(current, family) + ["absent"]:
                for engine in engines:
                    for batch in batches:
                        for like in likes:
                            assert queries.e2e(current, model, engine, batch, like, family) is \
                                _old_e2e(current, model, engine, batch, like, family)
                    if family == "e2e":
                        for batch in batches:
                            assert e2e_page._get(current, model, engine, batch) is \
                                _old_first(current, "e2e", model=model, engine=engine, batch=batch)
                    else:
                        assert int8_page.get(current, model, engine) is \
                            _old_first(current, "int8", model=model, engine=engine)
        for batch in (1, 8, 64):
            assert queries.e2e_tvm(current, batch) == [
                c for m in _old_models(current, "e2e")
                for c in (_old_e2e(current, m, e, batch) for e in queries.TVM_ENGINES) if queries.ok(c)]
        for c in _family(current, "machine_peak").values():
            dtype, threads, isa = (c.record["case"][k] for k in ("dtype", "threads", "isa"))
            assert merge.peak(current, dtype, threads) is _old_peak(current, dtype, threads)
            assert merge.isa_peak(current, dtype, threads, isa) is \
                _old_first(current, "machine_peak", True, dtype=dtype, threads=threads, isa=isa)


def test_a_frame_table_takes_only_finished_strings():
    cells = pd.DataFrame({"a": ["<b>1</b>", "x"], "b": ["2", "—"]}, index=["r1", "r2"], dtype=object)
    assert table(cells, ["A", "B"]) == markdown(["A", "B"], [["<b>1</b>", "2"], ["x", "—"]])
    assert table(cells).startswith("| a | b |")
    for wrong in (cells.assign(b=[1.5, "—"]), cells.reindex(["r1", "r3"]), cells.assign(b=[None, "—"])):
        with pytest.raises(TypeError, match="finished strings"):
            table(wrong)        # a number, the NaN of a missing row, a None: never stringified by pandas
    with pytest.raises(TypeError, match="1 headers for 2 columns"):
        table(cells, ["A"])


def test_grid_is_the_first_record_of_each_combination_in_the_listed_order(current):
    rows = frame.grid(frame.select(current, "e2e"), model=["mobilenet", "resnet18_v1"], engine=["tvm_c", "tf"])
    assert [(c.record["case"]["model"], c.record["case"]["engine"]) for c in frame.currents(rows)] == \
        [("mobilenet", "tvm_c"), ("resnet18_v1", "tvm_c"), ("resnet18_v1", "tf")]   # tvm_d: not listed
    assert frame.currents(frame.grid(frame.select(current, "e2e"), model=["vgg"])) == []


def test_the_throughput_pivot_keeps_rows_with_a_larger_batch(current):
    book = FigureBook()
    book.set_page("e2e.md")
    text = e2e_page.throughput_table(book, current)
    lines = text.splitlines()
    assert len(lines) == 3 and "batch 8 ÷ batch 1" in lines[0]        # one row: mobilenet, the only batch 8
    assert lines[2].startswith("| mobilenet |") and "images_per_s" in lines[2] \
        and "| nan |" not in text and ">nan<" not in text
    # its batch-1 cell is the placeholder for a missing record, not a NaN; the gain needs batch 1
    assert lines[2].split(" | ")[2] == e2e_page._ips(book, None) and lines[2].endswith("| — |")


def test_records_by_id_and_the_stages_by_shapes_grid():
    rid = "gemm_tvm/impl=tvm/stage=baseline/m=32/n=32/k=32/threads=1"
    rec = record(case_id=rid)
    rec["case"] = {"impl": "tvm", "stage": "baseline", "m": 32, "n": 32, "k": 32, "threads": 1}
    current = merge.current_records([_run([rec])])
    assert queries.tvm_id("tvm", "baseline", (32, 32, 32), 1) == rid
    assert queries.by_id(current, [rid, "absent"]) == [current[rid], None]
    book = FigureBook()
    book.set_page("gemm-ladder.md")
    lines = gemm.tvm_shapes(book, current, 1).splitlines()
    assert lines[0] == f"| {W('gemm.tvm_stages.head_stage')} | 32×32×32 |" and len(lines) == 4      # baseline, then NumPy's row (no record)
    assert lines[2].startswith('| baseline | <a class="num cur"')
    assert lines[3].endswith(f"| {gemm._gflops_cell(book, None, 'p50', '')} |")
    assert gemm.tvm_shapes(book, current, 2) == W("gemm.tvm_stages.text")


def test_a_row_table_takes_only_finished_strings_too():
    """markdown() is the table function under table(): a raw record value (a thread count, a
    number) or a row of the wrong width is refused there as well, never stringified."""
    assert markdown(["A"], [["x"]]) == "| A |\n|---|\n| x |"
    for rows in ([[2]], [[None]], [["x", "y"]]):
        with pytest.raises(TypeError, match="finished strings"):
            markdown(["A"], rows)
