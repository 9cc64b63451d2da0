"""Queries on the merged current records as operations on their frame (reportgen.data.frame): find
one case, list a family's models, pick the main GEMM shape.  Every function returns None (or an
empty list) when the record is missing; a record is found by id through the mapping itself (the
frame's index is the same id)."""
from reportgen.data import frame
from study import cases

D_ENGINES = ("tvm_d", "tvm_d_prepack")   # group D in each tuning search space (default, weight prepack)
RULE_ENGINES = ("tvm_rules", "tvm_rules_tuned")   # group D by rule: NCHWc micro-kernels, default tiles / knob grid
TVM_ENGINES = ("tvm_b", "tvm_c", *D_ENGINES, *RULE_ENGINES)

STAGE_ORDER = ["baseline", "blocking", "vectorization", "loop_permutation", "packing", "write_cache",
               "parallel", "microkernel", "autotuned", "autotuned_microkernel"]


def tvm_family(current):
    return frame.currents(frame.select(current, "gemm_tvm"))


def tvm_main_shape(current):
    """The shape the ladder is reported on: the largest one that was tuned (else the largest; of two
    shapes of one size, the larger (m, n, k))."""
    fam = frame.select(current, "gemm_tvm")
    tuned = frame.where(fam, stage="autotuned")
    pool = tuned if len(tuned) else fam
    shapes = set(zip(frame.case(pool, "m"), frame.case(pool, "n"), frame.case(pool, "k")))
    return max(shapes, key=lambda s: (s[0] * s[1] * s[2], s)) if shapes else None


def tvm_id(impl, stage, shape, threads, blas=None):
    """The record id of one gemm_tvm case."""
    m, n, k = shape
    return cases.case_id("gemm_tvm", impl=impl, stage=stage, m=m, n=n, k=k, threads=threads, blas=blas or None)


def tvm_record(current, impl, stage, shape, threads, blas=None):
    return current.get(tvm_id(impl, stage, shape, threads, blas))


def numpy_peer(current, shape, threads):
    """gemm_tvm's NumPy peer on one shape: the fastest (lowest p50) NumPy record of the run at that
    shape and thread count, whichever BLAS environment ("best": OpenBLAS pinning variables unset;
    "configured": as set) and whichever stage it was timed beside, so that a TVM kernel is compared
    with the best of the other side, never with a slow draw of it. Runs that timed only "best" have
    one candidate."""
    found = [tvm_record(current, "numpy", stage, shape, threads, blas)
             for stage in ("any", *STAGE_ORDER) for blas in ("best", "configured")]
    ok = [c for c in found if c is not None and c.ok]
    if ok:
        return frame.fastest(ok)
    return found[0]


def numpy_id(dtype, n, threads, blas):
    """The record id of one numpy_gemm case."""
    return cases.case_id("numpy_gemm", dtype=dtype, n=n, threads=threads, blas=blas)


def by_id(current, ids):
    """The Current of each id, None where there is none: one lookup on the frame's index."""
    found = frame.of(current)["current"].reindex(list(ids))
    return found.astype(object).where(found.notna(), None).tolist()


def ok(cur):
    return cur is not None and cur.ok


SETUP = ("input_size", "threads", "seed")   # two records are comparable only when these agree


def comparable(a, b):
    """Same input size, threads and seed: a ratio of the two means something."""
    ca, cb = a.record["case"], b.record["case"]
    return all(ca.get(k) == cb.get(k) for k in SETUP)


def _e2e_rows(current, family, batch, like=None, **case):
    """Rows of one e2e-like family at one batch (a record without a batch is batch 1) with the given
    case fields; ``like``: only rows comparable with that record (same SETUP fields)."""
    rows = frame.select(current, family, **case)
    rows = rows[(frame.case(rows, "batch", default=1) == batch).to_numpy()]
    if like is not None:
        rows = frame.where(rows, **{k: like.record["case"].get(k) for k in SETUP})
    return rows


def e2e(current, model, engine, batch=1, like=None, family="e2e"):
    """The current record of one model, engine and batch (comparable with ``like`` if given), or None."""
    return frame.first(_e2e_rows(current, family, batch, like, model=model, engine=engine))


def models(current, family="e2e"):
    """The models of a family in record order (a family-level record without a model has none)."""
    return [m for m in frame.case(frame.select(current, family), "model").dropna().unique() if m]


def e2e_models(current):
    return models(current, "e2e")


def e2e_tvm(current, batch=1):
    """Every ok TVM e2e record at this batch, in model order (the record e2e() finds for each model
    and engine, when it is ok)."""
    rows = frame.grid(_e2e_rows(current, "e2e", batch), model=e2e_models(current), engine=TVM_ENGINES)
    return frame.currents(rows[(rows["status"] == "ok").to_numpy()])


def gemm(current, stage, shape=None, threads=None, env=None, impl="tvm", blas=None):
    """A gemm_tvm record on the main shape (default) and all cores (default)."""
    shape = shape or tvm_main_shape(current)
    if shape is None:
        return None
    if threads is None:
        if env is None:
            return None
        threads = env["logical_cores"]
    if impl == "numpy" and blas == "best":   # "best" is the faster of the two environments
        return numpy_peer(current, shape, threads)
    return tvm_record(current, impl, stage, shape, threads, blas)
