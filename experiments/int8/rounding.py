"""Weight rounding with error feedback (GPTQ: Frantar et al., 2022, the layer-wise "optimal brain
quantization" of Frantar and Alistarh, applied to 8 bits).

Rounding every weight to its nearest int8 level minimises each weight's own error, not the error of
the layer's output.  With ``H = E[x xᵀ]`` over the layer's input patches on the calibration set,
the output error of a row ``w`` rounded to ``q`` is ``(w - q)ᵀ H (w - q)``; GPTQ rounds one column
(one input position of the patch) at a time and moves its rounding error onto the columns not yet
rounded, weighted by ``H⁻¹`` (through its Cholesky factor), so the later columns absorb what the
earlier ones lost.  The grid stays the rewrite's: per output channel, ``s = max|w| / weight_max``
from the original weights; the int8 values and those scales go to
:func:`experiments.int8.quantize.rewrite` (``rounded=``), whose bias correction then absorbs the mean
shift of these roundings as it does for the nearest ones.

Only convolutions in NHWC / OHWI with one group and no dilation, and 2-D matmuls, are rounded so;
others keep rounding to nearest.  Nothing here runs the network: the inputs are the calibration
taps the family already holds.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from experiments.int8 import quantize as Q

# H + DAMP * mean(diag H) * I: keeps H invertible where inputs are collinear or dead (the GPTQ default)
DAMP = 0.01
# columns rounded together before the remaining ones are updated with one matrix product
BLOCK = 128


@dataclasses.dataclass
class Rounded:
    """What :func:`round_weights` did: layers rounded, and the median and largest ratio of each
    layer's output error (on its calibration inputs) to that of rounding to nearest."""

    layers: int
    error_ratio_median: float
    error_ratio_max: float

    def as_dict(self) -> dict:
        return dataclasses.asdict(self)


def _patches(x: np.ndarray, attrs, kh: int, kw: int) -> np.ndarray:
    """Every output position's input patch of one NHWC image, as rows in (kh, kw, c) order."""
    top, left, bottom, right = (int(p) for p in attrs.padding)
    sh, sw = (int(s) for s in attrs.strides)
    padded = np.pad(x.astype(np.float64), ((top, bottom), (left, right), (0, 0)))
    windows = np.lib.stride_tricks.sliding_window_view(padded, (kh, kw), axis=(0, 1))[::sh, ::sw]
    return windows.transpose(0, 1, 3, 4, 2).reshape(-1, kh * kw * x.shape[-1])


def hessian(rows_of) -> np.ndarray:
    """``E[x xᵀ]`` over the input rows that ``rows_of`` yields (one array of rows per image)."""
    total, n = None, 0
    for rows in rows_of:
        part = rows.T @ rows
        total = part if total is None else total + part
        n += rows.shape[0]
    return total / max(n, 1)


def gptq(w: np.ndarray, h: np.ndarray, scale: np.ndarray, top: int) -> np.ndarray:
    """Integer levels (rows x columns, |q| <= top) for weights ``w`` with per-row ``scale``."""
    w = w.astype(np.float64).copy()
    h = h.astype(np.float64).copy()
    cols = w.shape[1]
    dead = np.diag(h) == 0
    h[dead, dead] = 1.0
    w[:, dead] = 0.0
    h += DAMP * float(np.mean(np.diag(h))) * np.eye(cols)
    upper = np.linalg.cholesky(np.linalg.inv(h)).T
    s = scale.astype(np.float64)
    q = np.zeros_like(w)
    for i1 in range(0, cols, BLOCK):
        i2 = min(i1 + BLOCK, cols)
        block, errors, hb = w[:, i1:i2].copy(), np.zeros((w.shape[0], i2 - i1)), upper[i1:i2, i1:i2]
        for j in range(i2 - i1):
            level = np.clip(np.round(block[:, j] / s), -top, top)
            q[:, i1 + j] = level
            e = (block[:, j] - level * s) / hb[j, j]
            block[:, j:] -= np.outer(e, hb[j, j:])
            errors[:, j] = e
        w[:, i2:] -= errors @ upper[i1:i2, i2:]
    return q


def _output_error(w, levels, s, h) -> float:
    d = w - levels * s[:, None]
    return float(np.einsum("ok,kl,ol->", d, h, d))


def round_weights(mod, taps: dict[str, np.ndarray], weight_max: int = 127, images: int = 64):
    """``({binding name: (int8 levels in the weight's shape, per-channel scales)}, Rounded)`` for
    every convolution and 2-D matmul of ``mod`` whose input has calibration values in ``taps``."""
    out, ratios = {}, []
    for var, value in Q.bindings(mod):
        name = Q._op_name(value)
        if name not in Q.LINEAR_KINDS or not Q._is_const(value.args[1]) or value.args[0].name not in taps:
            continue
        w = Q._const_array(value.args[1]).astype(np.float64)
        x = taps[value.args[0].name][:images]
        if name == "relax.nn.conv2d":
            a = value.attrs
            if not (str(a.data_layout) == "NHWC" and str(a.kernel_layout) == "OHWI" and int(a.groups) == 1
                    and all(int(d) == 1 for d in a.dilation)) or x.ndim != 4:
                continue
            o, kh, kw, _ = w.shape
            rows = w.reshape(o, -1)
            h = hessian(_patches(img, a, kh, kw) for img in x)
        elif w.ndim == 2 and x.ndim >= 2:
            rows = w.T
            h = hessian(iter([x.reshape(-1, x.shape[-1]).astype(np.float64)]))
        else:
            continue
        s = Q.weight_scales(rows, 1, weight_max)
        levels = gptq(rows, h, s, int(weight_max))
        nearest = np.clip(np.round(rows / s[:, None]), -weight_max, weight_max)
        base = _output_error(rows, nearest, s, h)
        ratios.append(_output_error(rows, levels, s, h) / base if base > 0 else 1.0)
        shaped = levels.reshape(w.shape) if name == "relax.nn.conv2d" else levels.T
        out[var.name] = (shaped.astype(np.int8), s)
    if not ratios:
        return out, Rounded(0, 1.0, 1.0)
    return out, Rounded(len(out), float(np.median(ratios)), float(np.max(ratios)))
