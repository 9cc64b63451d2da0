"""Integer conv2d / dense in the layout AVX-512 VNNI's ``vpdpbusd`` needs, for MetaSchedule to tensorize.

``vpdpbusd`` (the ``dot_16x4_vnni`` tensor intrinsic) computes 16 int32 sums of 4 u8 x s8
products: ``C[i] += A[k] * B[i, k]`` for i < 16, k < 4, with ``A`` 4 contiguous bytes, ``B`` 64
contiguous bytes (16 output channels x 4 input channels) and ``C`` 16 contiguous int32.
MetaSchedule's "vnni" rule set (chosen when the target has avx512vnni) tiles a reduction block
onto that description, but the postprocessor can only tensorize when the buffers really are laid
out that way.  The operators Relax legalizes (NCHW / NHWC conv2d, plain matmul) are not, so the
integer path emits its own kernels where the layout fits:

* activations channels-last (NHWC; :func:`experiments.int8.quantize.channels_last` converts the float module before
  calibration, so every conv, add, ReLU and pool runs NHWC and only the network's edges transpose):
  the 4 input channels of one ``A`` and the 16 output channels of one ``C`` are contiguous;
* weights packed at compile time to 16 x 4 blocks: conv ``[OC/16, KH, KW, IC/4, 16, 4]``
  (:func:`pack_conv`), dense ``[N/16, K/4, 16, 4]`` (:func:`pack_dense`), output channels padded
  to a multiple of 16 with zero weights (the extra outputs are sliced off).

The intrinsic multiplies unsigned by signed bytes.  A conv whose input is int8 (the first conv,
fed by the normalized image) runs the same kernel on ``x + 128`` (every int8 value moved to the
uint8 byte 128 above it, padding included, since the padded zero becomes 128 too); the kernel then
adds ``-128 * sum(w)`` per output channel (:func:`shift_correction`), which is exact:
``sum((x + 128) * w) = sum(x * w) + 128 * sum(w)``.  Input channels that are not a multiple of 4
(3 for an RGB image) are padded with zero weights.  The dense kernel needs a reduction length that
is a multiple of 4.  Nothing here depends on the host: the kernels are plain TE computes,
tensorized only when MetaSchedule tunes them for a VNNI target.
"""

from __future__ import annotations

import numpy as np

BLOCK_OC = 16     # output channels per vpdpbusd (16 int32 lanes)
BLOCK_IC = 4      # input channels per lane (4 bytes)
INPUT_SHIFT = 128  # int8 x + 128 is the uint8 byte vpdpbusd reads


def padded(n: int, block: int = BLOCK_OC) -> int:
    return -(-n // block) * block


def pack_conv(w_ohwi: np.ndarray) -> np.ndarray:
    """OHWI int8 weights -> [OC/16, KH, KW, IC/4, 16, 4] (OC zero-padded to a multiple of 16, IC to 4)."""
    oc, kh, kw, ic = w_ohwi.shape
    w = np.zeros((padded(oc), kh, kw, padded(ic, BLOCK_IC)), dtype=w_ohwi.dtype)
    w[:oc, :, :, :ic] = w_ohwi
    return np.ascontiguousarray(w.reshape(-1, BLOCK_OC, kh, kw, w.shape[3] // BLOCK_IC, BLOCK_IC)
                                .transpose(0, 2, 3, 4, 1, 5))


def shift_correction(w_ohwi: np.ndarray) -> np.ndarray:
    """int32 [OC]: what the shifted kernel adds to undo ``x + 128`` on an int8 input (``-128 * sum w``)."""
    return (-INPUT_SHIFT * w_ohwi.astype(np.int64).sum(axis=(1, 2, 3))).astype(np.int32)


def pack_dense(w_kn: np.ndarray) -> np.ndarray:
    """[K, N] int8 weights (x @ W) -> [N/16, K/4, 16, 4] (N zero-padded to a multiple of 16)."""
    k, n = w_kn.shape
    if k % BLOCK_IC:
        raise ValueError(f"reduction length {k} is not a multiple of {BLOCK_IC}")
    w = np.zeros((k, padded(n)), dtype=w_kn.dtype)
    w[:, :n] = w_kn
    return np.ascontiguousarray(w.reshape(k // BLOCK_IC, BLOCK_IC, -1, BLOCK_OC).transpose(2, 0, 3, 1))


def conv_fits(x_dtype: str, attrs, w_shape) -> bool:
    """Whether a conv2d (NHWC / OHWI, weights ``w_shape``) can run as the packed VNNI kernel
    (uint8 input as it is, int8 input shifted by 128; any input channel count)."""
    return (x_dtype in ("uint8", "int8") and attrs.data_layout == "NHWC" and attrs.kernel_layout == "OHWI"
            and attrs.out_layout == "NHWC" and int(attrs.groups) == 1
            and all(int(d) == 1 for d in attrs.dilation))


def dense_fits(x_dtype: str, x_rank: int, w_shape) -> bool:
    """Whether ``x @ W`` (x 2-D uint8, W [K, N]) can run as the packed VNNI kernel."""
    return x_dtype == "uint8" and x_rank == 2 and len(w_shape) == 2 and int(w_shape[0]) % BLOCK_IC == 0


def conv2d_nhwc_packed(x, wp, strides, padding, out_channels, correction=None):
    """TE: int32 NHWC conv of ``x`` [N, H, W, IC] with packed int8 ``wp`` (zero padding).

    ``padding`` is Relax's (top, left, bottom, right).  A uint8 ``x`` is read as it is.  An int8
    ``x`` is read as ``x + 128`` (spatial padding 128, the shifted zero) and ``correction``
    ([OC/16*16] int32, :func:`shift_correction` zero-padded) is added to every output pixel, so the
    result is the plain int8 convolution.  Input channels beyond IC (up to ``wp``'s 4-multiple) are
    padded; their weights are zero.  The output keeps the padded channel count when
    ``out_channels`` is a multiple of 16, else a slice follows.
    """
    from tvm import te, topi
    n, h, w, ic = (int(d) for d in x.shape)
    oco, kh, kw, ico = (int(d) for d in wp.shape[:4])
    sh, sw = (int(s) for s in strides)
    top, left, bottom, right = (int(p) for p in padding)
    oh, ow = (h + top + bottom - kh) // sh + 1, (w + left + right - kw) // sw + 1
    shifted = str(x.dtype) == "int8"
    if shifted != (correction is not None):
        raise ValueError(f"a {x.dtype} input needs {'a' if shifted else 'no'} shift correction")
    if shifted:
        x = te.compute(x.shape, lambda *i: (x(*i).astype("int16") + INPUT_SHIFT).astype("uint8"), name="shift")
    extra_c = ico * BLOCK_IC - ic
    xp = topi.nn.pad(x, [0, top, left, 0], [0, bottom, right, extra_c], pad_value=INPUT_SHIFT if shifted else 0,
                     name="pad") if top or left or bottom or right or extra_c else x
    rh, rw = te.reduce_axis((0, kh), "rh"), te.reduce_axis((0, kw), "rw")
    rc = te.reduce_axis((0, ico * BLOCK_IC), "rc")
    out = te.compute(
        (n, oh, ow, oco * BLOCK_OC),
        lambda b, i, j, c: te.sum(
            xp[b, i * sh + rh, j * sw + rw, rc].astype("int32")
            * wp[c // BLOCK_OC, rh, rw, rc // BLOCK_IC, c % BLOCK_OC, rc % BLOCK_IC].astype("int32"),
            axis=[rh, rw, rc]),
        name="conv2d_vnni")
    if shifted:
        out = te.compute(out.shape, lambda b, i, j, c: out[b, i, j, c] + correction[c], name="unshift")
    if out_channels == oco * BLOCK_OC:
        return out
    return te.compute((n, oh, ow, out_channels), lambda b, i, j, c: out[b, i, j, c], name="slice")


def dense_packed(x, wp, out_features):
    """TE: int32 ``x @ W`` of uint8 ``x`` [M, K] with packed int8 ``wp`` [N/16, K/4, 16, 4]."""
    from tvm import te
    m, k = (int(d) for d in x.shape)
    no = int(wp.shape[0])
    r = te.reduce_axis((0, k), "k")
    out = te.compute(
        (m, no * BLOCK_OC),
        lambda i, j: te.sum(x[i, r].astype("int32")
                            * wp[j // BLOCK_OC, r // BLOCK_IC, j % BLOCK_OC, r % BLOCK_IC].astype("int32"), axis=r),
        name="dense_vnni")
    if out_features == no * BLOCK_OC:
        return out
    return te.compute((m, out_features), lambda i, j: out[i, j], name="slice")
