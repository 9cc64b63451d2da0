"""Small lookups shared by the write-up pages: find a current record, quote one of its figures.

Every function returns None (or an empty list) when the record is missing, so callers can
say "not measured" instead of failing; none of them formats a whole sentence.
"""
from . import merge
from .figures import fmt_number
from .tables import _ms_cell, _tvm_get, tvm_main_shape

MODEL_ZH = {"digits_cnn": "digits CNN", "resnet18_v1": "ResNet-18", "inception_v1": "Inception v1", "mobilenet_v2": "MobileNetV2",
            "resnet50": "ResNet-50"}
ENGINE_ZH = {"tf": "TensorFlow", "ort": "ONNX Runtime", "tflite": "TFLite", "tvm_b": "TVM B 组",
             "tvm_c": "TVM C 组", "tvm_d": "TVM D 组", "tvm_d_prepack": "TVM D 组（预打包）"}
D_ENGINES = ("tvm_d", "tvm_d_prepack")   # group D in each tuning search space (default, weight prepack)
TVM_ENGINES = ("tvm_b", "tvm_c", *D_ENGINES)


def model_zh(model):
    return MODEL_ZH.get(model, model)


def engine_zh(engine):
    return ENGINE_ZH.get(engine, engine)


def ok(cur):
    return cur is not None and cur.ok


def fig(book, cur, suffix, text, unit):
    """One current figure of a record, linked to its provenance."""
    return book.current(f"{cur.record['id']}#{suffix}", text, unit, cur)


def ms(book, cur, stat="p50"):
    return _ms_cell(book, cur, stat, f"{stat}_ms")


def seconds(book, cur, suffix, value_s):
    """A duration of a record's extra field, in ms below one second, else in s.

    Give it a suffix of its own (e.g. ``compile_time``): the e2e tables use ``compile_s`` for the
    same quantity always in seconds, and one figure id should always show the same text.
    """
    if value_s < 1:
        return fig(book, cur, suffix, fmt_number(value_s * 1e3, "ms") + " ms", "ms")
    return fig(book, cur, suffix, fmt_number(value_s, "s") + " s", "s")


def times(book, cur, suffix, ratio):
    """A ratio figure ('12.3×') attached to one record."""
    return fig(book, cur, suffix, fmt_number(ratio, "×") + "×", "×")


def gflops(book, cur):
    """The p50 GFLOPS of a GEMM record (same figure id as the GEMM pages use)."""
    return fig(book, cur, "gflops_p50", fmt_number(cur.gflops(), "GFLOPS"), "GFLOPS")


def percent(book, cur, suffix, share):
    return fig(book, cur, suffix, fmt_number(share * 100, "%") + "%", "%")


SETUP = ("input_size", "threads", "seed")   # two records are comparable only when these agree


def comparable(a, b):
    """Same input size, threads and seed: a ratio of the two means something."""
    ca, cb = a.record["case"], b.record["case"]
    return all(ca.get(k) == cb.get(k) for k in SETUP)


def e2e(current, model, engine, batch=1, like=None, family="e2e"):
    """The current record of one model, engine and batch (comparable with ``like`` if given), or None."""
    for cur in merge.family(current, family).values():
        case = cur.record["case"]
        if case.get("model") == model and case.get("engine") == engine and case.get("batch", 1) == batch \
                and (like is None or comparable(cur, like)):
            return cur
    return None


def e2e_models(current):
    seen = []
    for cur in merge.family(current, "e2e").values():
        if cur.record["case"]["model"] not in seen:
            seen.append(cur.record["case"]["model"])
    return seen


def e2e_tvm(current, batch=1):
    """Every ok TVM e2e record at this batch, in model order."""
    out = []
    for model in e2e_models(current):
        out += [c for c in (e2e(current, model, e, batch) for e in TVM_ENGINES) if ok(c)]
    return out


def gemm(current, stage, shape=None, threads=None, env=None, impl="tvm", blas=None):
    """A gemm_tvm record on the main shape (default) and all cores (default)."""
    shape = shape or tvm_main_shape(current)
    if shape is None:
        return None
    if threads is None:
        if env is None:
            return None
        threads = env["logical_cores"]
    return _tvm_get(current, impl, stage, shape, threads, blas)


def hist(book, tables, table, row, col):
    """An archived figure exactly as printed, or None when the archive lacks it."""
    try:
        return book.historical(tables[table].cell(row, col))
    except KeyError:
        return None
