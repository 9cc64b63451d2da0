"""The float64 check of a float32 GEMM, without TVM.

NumPy peers are timed in a process that never imports TVM (TVM's thread pool must not share the
cores with OpenBLAS's), and they are checked with the same bound as TVM's kernels.
"""
from typing import Any

import numpy as np


def error_report(c: np.ndarray, a: np.ndarray, b: np.ndarray) -> dict[str, Any]:
    """Compare ``c`` with float64 ``a @ b`` using the bound |C - ref| <= K * eps32 * (|A| @ |B|).

    ``max_rel_err`` is max |C - ref| / (|A| @ |B|) (error relative to the magnitude bound,
    elementwise; where the bound is 0 the error must be 0), ``threshold`` is K * eps(float32).
    """
    k = a.shape[1]
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    reference = a64 @ b64
    bound = np.abs(a64) @ np.abs(b64)
    error = np.abs(c.astype(np.float64) - reference)
    threshold = k * float(np.finfo(np.float32).eps)
    finite = bool(np.all(np.isfinite(c)))
    scaled = np.divide(error, bound, out=np.where(error > 0, np.inf, 0.0), where=bound > 0)
    max_rel = float(np.max(scaled)) if finite else float("inf")
    return {
        "max_abs_err": float(np.max(error)) if finite else float("inf"),
        "max_rel_err": max_rel,
        "threshold": threshold,
        "passed": finite and max_rel <= threshold,
    }
