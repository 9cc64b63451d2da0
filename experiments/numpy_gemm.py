"""How fast is NumPy's GEMM on this machine, and which BLAS kernel does it run?

Seed §21 measured NumPy at sizes 32 … 10240, FP32 and FP64, on one and four
cores. We repeat it on one core and on all cores, and twice: with the BLAS
environment as configured (OPENBLAS_CORETYPE may pin an older kernel), and in a
child process with OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE unset, which lets
OpenBLAS pick the machine's best kernel. threadpoolctl says which kernel ran.
"""
import os

import numpy as np
from threadpoolctl import threadpool_info, threadpool_limits

from experiments import harness, targets
from study import cases
from study.family import Family

FAMILY = Family(name="numpy_gemm", timeout_s={"quick": 600, "standard": 3600, "full": 14400},
                params=("blas_env", "budget_s", "dtypes", "min_repeat", "min_sample_s", "repeat", "seed",
                        "sizes", "warmup"),
                claims_of={"warmup": [], "repeat": [], "min_repeat": [], "min_sample_s": [], "budget_s": [], "sizes": [], "dtypes": []})   # timing; which cases

PINNING_VARS = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
CHECK_ROWS = 64  # rows of C checked against float64 when n is large


def _kernel():
    """The BLAS library and kernel architecture NumPy is using right now."""
    for info in threadpool_info():
        if info.get("user_api") == "blas":
            return {k: info.get(k) for k in ("internal_api", "version", "architecture", "prefix")}
    return {"internal_api": "none"}


def check_gemm(a, b, c, rng):
    """Compare (sampled rows of) C with a float64 product.

    Threshold: the classical bound |fl(AB) - AB| <= K·u·(|A||B|) elementwise,
    with u = eps/2 of the computed dtype; we allow K·eps.
    """
    n = a.shape[0]
    rows = np.arange(n) if n <= 1024 else np.sort(rng.choice(n, CHECK_ROWS, replace=False))
    a64, b64 = a[rows].astype(np.float64), b.astype(np.float64)
    ref = a64 @ b64
    bound = np.abs(a64) @ np.abs(b64)
    err = np.abs(c[rows].astype(np.float64) - ref)
    rel = float(np.max(err / np.maximum(bound, np.finfo(np.float64).tiny)))
    threshold = a.shape[1] * float(np.finfo(a.dtype).eps)
    return {"reference": f"float64 matmul of {'all' if len(rows) == n else len(rows)} rows",
            "max_abs_err": float(err.max()), "max_rel_err": rel,
            "threshold": threshold, "passed": bool(rel <= threshold)}


def measure(h, blas_env):
    p = h.params
    kernel = _kernel()
    h.say(f"blas_env={blas_env}: {kernel}")
    for dtype in p["dtypes"]:
        for n in p["sizes"]:
            rng = np.random.default_rng(p["seed"])
            a = rng.uniform(-1, 1, (n, n)).astype(dtype)
            b = rng.uniform(-1, 1, (n, n)).astype(dtype)
            c = np.empty((n, n), dtype=dtype)
            call = lambda: np.matmul(a, b, out=c)  # noqa: E731

            def check(_):   # measure() runs at once: the closures see this iteration's values
                call()
                return check_gemm(a, b, c, rng)

            for threads in targets.thread_counts([1, targets.ALL]):
                case = {"dtype": dtype, "m": n, "n": n, "k": n, "threads": threads,
                        "blas_env": blas_env, "seed": p["seed"]}
                case_id = cases.case_id("numpy_gemm", dtype=dtype, n=n, threads=threads, blas=blas_env)
                with threadpool_limits(limits=threads, user_api="blas"):
                    h.measure(case_id, case, check=check, call=lambda _: call,
                              mismatch="result differs from float64 reference",
                              note=lambda o: {"gflops": 2.0 * n ** 3 / o.p50() / 1e9,
                                              "rel_err": o.check["max_rel_err"]},
                              extra={"flops_per_call": 2 * n ** 3, "blas_kernel": kernel,
                                     "blas_env_vars": {v: os.environ.get(v, "unset") for v in PINNING_VARS}})


def run(h):
    if h.role == "best":
        return measure(h, "best")
    variants = h.params["blas_env"]
    if "configured" in variants:
        measure(h, "configured")
    if "best" in variants:
        # A child process: OpenBLAS reads these variables once, at load time.
        h.child("best", unset=PINNING_VARS)


if __name__ == "__main__":
    harness.main(run)
