"""Activation calibration for the INT8 rewrite (:mod:`experiments.int8.quantize`): one threshold per
tensor from calibration values, the :class:`ActQuant` each quantized tensor gets, and the per-layer
comparison of FP32 and dequantized INT8 values the int8 family records as evidence."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

METHODS = ("minmax", "percentile", "mse")
SCHEMES = ("int8", "uint8")
PERCENTILE = 99.99
MSE_CANDIDATES = (99.0, 99.9, 99.99, 99.999, 100.0)


def _quant_error(values: np.ndarray, threshold: float, levels: int) -> float:
    scale = threshold / levels
    q = np.clip(np.round(values / scale), -levels, levels) * scale
    return float(np.mean((q - values) ** 2))


def threshold(values: np.ndarray, method: str, unsigned: bool) -> float:
    """Calibrated clipping threshold of one tensor (always > 0)."""
    mags = np.abs(values).ravel()
    if method == "minmax":
        t = float(mags.max())
    elif method == "percentile":
        t = float(np.percentile(mags, PERCENTILE))
    elif method == "mse":
        levels = 255 if unsigned else 127
        sample = mags if mags.size <= 1_000_000 else mags[:: mags.size // 1_000_000 + 1]
        signed = values.ravel()[:: max(1, values.size // sample.size)]
        cands = [float(np.percentile(sample, q)) for q in MSE_CANDIDATES]
        cands = [c for c in cands if c > 0] or [1.0]
        t = min(cands, key=lambda c: _quant_error(signed, c, levels))
    else:
        raise ValueError(f"unknown calibration method {method!r}; expected one of {METHODS}")
    return t if t > 0 else 1.0


@dataclasses.dataclass(frozen=True)
class ActQuant:
    """How one activation tensor is quantized."""

    scale: float
    dtype: str        # "int8" or "uint8"
    lo: int
    hi: int
    # the calibration set's mean of the tensor (batch axis averaged), for bias correction
    mean: np.ndarray | None = dataclasses.field(default=None, compare=False, repr=False)

    @classmethod
    def make(cls, t: float, unsigned: bool, mean=None) -> "ActQuant":
        return cls(t / 255, "uint8", 0, 255, mean) if unsigned else cls(t / 127, "int8", -127, 127, mean)


def calibrate(taps: dict[str, np.ndarray], method: str, scheme: str) -> dict[str, ActQuant]:
    """Per-tensor activation quantization from calibration values (name -> ActQuant)."""
    if scheme not in SCHEMES:
        raise ValueError(f"unknown scheme {scheme!r}; expected one of {SCHEMES}")
    out = {}
    for name, values in taps.items():
        if name == "__output__" or not np.issubdtype(values.dtype, np.floating):
            continue
        unsigned = scheme == "uint8" and float(values.min()) >= 0.0
        out[name] = ActQuant.make(threshold(values, method, unsigned), unsigned, values.mean(axis=0, keepdims=True))
    return out


def layer_report(fp32: dict[str, np.ndarray], int8: dict[str, np.ndarray], acts: dict[str, ActQuant],
                 order: list[str]) -> list[dict[str, Any]]:
    """FP32 vs dequantized INT8 per quantized group output, in network order.

    Each row: layer, FP32 min/max/mean/var, INT8 mean/var, max abs error,
    relative error (max error / max|FP32|), saturation (share of FP32 values
    beyond the clipping range of that tensor; 0 for float outputs).
    """
    rows = []
    for name in order:
        ref, got = fp32[name].astype(np.float64), int8[name].astype(np.float64)
        err = np.abs(got - ref)
        q = acts.get(name)
        sat = 0.0
        if q is not None:
            hi, lo = q.hi * q.scale, (0 if q.dtype == "uint8" else q.lo) * q.scale
            sat = float(np.mean((ref > hi) | (ref < lo)))
        scale = float(np.max(np.abs(ref))) or 1.0
        rows.append({"layer": name, "fp32_min": float(ref.min()), "fp32_max": float(ref.max()),
                     "fp32_mean": float(ref.mean()), "fp32_var": float(ref.var()),
                     "int8_mean": float(got.mean()), "int8_var": float(got.var()),
                     "max_abs_err": float(err.max()), "rel_err": float(err.max()) / scale,
                     "mean_abs_err": float(err.mean()), "saturation": sat,
                     "dtype": q.dtype if q else "float32", "scale": q.scale if q else None})
    return rows
