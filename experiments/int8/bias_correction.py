"""Bias correction of 8-bit weights (the empirical form of Nagel et al., "Data-Free Quantization",
2019): rounding each weight to 8 bits moves every output channel's mean by ``E[x] . (W - W_q)``.

A linear operator is linear in its input, so that mean shift is the operator applied to the input's
mean over the calibration set -- one map, no extra run of the network -- averaged over the output
positions of the channel.  The rewrite adds it to the bias before the bias is rounded to int32, so
the integer program keeps the FP32 output's mean per channel; what is left of the rounding is the
zero-mean part that depends on each input.
"""

from __future__ import annotations

import numpy as np


def conv_shift(mean_x: np.ndarray, delta_w: np.ndarray, attrs) -> np.ndarray | None:
    """Per output channel, the mean over output positions of ``conv2d(mean_x, delta_w)`` with the
    operator's own layouts, strides and padding (None when groups or dilation are not 1: not needed
    for the networks here, and the caller then leaves the bias as it is)."""
    if int(attrs.groups) != 1 or any(int(d) != 1 for d in attrs.dilation):
        return None
    data, kernel = str(attrs.data_layout), str(attrs.kernel_layout)
    if sorted(data) != sorted("NCHW") or sorted(kernel) != sorted("OIHW") or mean_x.ndim != 4:
        return None
    x = np.transpose(mean_x, [data.index(c) for c in "NCHW"])[0].astype(np.float64)
    w = np.transpose(delta_w, [kernel.index(c) for c in "OIHW"]).astype(np.float64)
    top, left, bottom, right = (int(p) for p in attrs.padding)
    xp = np.pad(x, ((0, 0), (top, bottom), (left, right)))
    sh, sw = (int(s) for s in attrs.strides)
    windows = np.lib.stride_tricks.sliding_window_view(xp, w.shape[2:], axis=(1, 2))[:, ::sh, ::sw]
    patch = windows.mean(axis=(1, 2))                        # (C, KH, KW): the mean window
    return np.einsum("ockl,ckl->o", w, patch)


def matmul_shift(mean_x: np.ndarray, delta_w: np.ndarray) -> np.ndarray | None:
    """Per output column, the mean over rows of ``mean_x @ delta_w`` (a 2-D weight only)."""
    if delta_w.ndim != 2 or mean_x.shape[-1] != delta_w.shape[0]:
        return None
    rows = mean_x.reshape(-1, mean_x.shape[-1]).astype(np.float64)
    return (rows @ delta_w.astype(np.float64)).mean(axis=0)
