"""Queries on the merged current records: find one case, list a family's models, pick the main
GEMM shape.  Every function returns None (or an empty list) when the record is missing."""
from reportgen.data import merge

D_ENGINES = ("tvm_d", "tvm_d_prepack")   # group D in each tuning search space (default, weight prepack)
TVM_ENGINES = ("tvm_b", "tvm_c", *D_ENGINES)

STAGE_ORDER = ["baseline", "blocking", "vectorization", "loop_permutation", "packing", "write_cache",
               "parallel", "microkernel", "autotuned", "autotuned_microkernel"]


def tvm_family(current):
    return [c for c in merge.family(current, "gemm_tvm").values()]


def tvm_main_shape(current):
    """The shape the ladder is reported on: the largest one that was tuned (else the largest)."""
    fam = tvm_family(current)
    shapes = {(c.record["case"]["m"], c.record["case"]["n"], c.record["case"]["k"]) for c in fam}
    tuned = {s for s in shapes for c in fam
             if c.record["case"]["stage"] == "autotuned" and (c.record["case"]["m"], c.record["case"]["n"],
                                                             c.record["case"]["k"]) == s}
    pool = tuned or shapes
    return max(pool, key=lambda s: s[0] * s[1] * s[2]) if pool else None


def tvm_record(current, impl, stage, shape, threads, blas=None):
    m, n, k = shape
    key = f"gemm_tvm/impl={impl}/stage={stage}/m={m}/n={n}/k={k}/threads={threads}"
    return current.get(key + (f"/blas={blas}" if blas else ""))


def ok(cur):
    return cur is not None and cur.ok


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
    return tvm_record(current, impl, stage, shape, threads, blas)
