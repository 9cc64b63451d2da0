"""The integer multiply-add for targets without VNNI: ``vpmaddubsw`` + ``vpmaddwd`` on ymm (AVX2).

:data:`INTRIN` has the description of ``dot_16x4_vnni`` (16 int32 sums of 4 u8 x s8 products, the
same packed ``16o x 4i`` weight block), so the integer conv rule and its packing stay as they are;
only the instruction sequence changes.  Each half of the block (8 output channels, 32 bytes of
weights) takes three instructions:

* ``vpmaddubsw``: 32 u8 x s8 products, adjacent pairs summed into 16 int16 -- *with signed
  saturation*;
* ``vpmaddwd`` by a vector of ones: adjacent int16 pairs summed into 8 int32 (exact);
* ``vpaddd`` into the accumulator.

The saturation is why this module also fixes the weight range.  A pair sum is at most
``2 * 255 * |w|``; with ``|w| <= 63`` (:data:`WEIGHT_MAX`, 7-bit weights) that is 32130, below
int16's 32767, so the sequence is exact.  8-bit weights (``|w|`` up to 127) could reach 64770 and
clip: the kernel would be fast and wrong.  ONNX Runtime's documented remedy for the same instruction
(MLAS's AVX2 U8S8 kernels) is the same: quantize weights with ``reduce_range`` (7 bits).  The
integer program therefore quantizes the weights of these kernels to +-63 when the target has no
VNNI (:func:`weight_max`); on a VNNI target (``vpdpbusd`` accumulates in int32, no saturation) they
keep +-127.
"""

from __future__ import annotations

from tvm.s_tir import TensorIntrin
from tvm.script import tirx as T

INTRIN = "dot_16x4_avx2_u8s7"
WEIGHT_MAX = 63          # |w| that keeps 2 * 255 * |w| inside int16
VNNI_WEIGHT_MAX = 127    # vpdpbusd sums in int32: the full int8 range
INT16_MAX = 32767

assert 2 * 255 * WEIGHT_MAX <= INT16_MAX


@T.prim_func(s_tir=True)
def _dot_16x4_desc(
    A: T.Buffer((4,), "uint8", offset_factor=1),
    B: T.Buffer((16, 4), "int8", offset_factor=1),
    C: T.Buffer((16,), "int32", offset_factor=1),
) -> None:
    with T.sblock("root"):
        T.reads(C[0:16], A[0:4], B[0:16, 0:4])
        T.writes(C[0:16])
        for i in T.serial(0, 16):
            for k in T.serial(0, 4):
                with T.sblock("update"):
                    vi, vk = T.axis.remap("SR", [i, k])
                    C[vi] = C[vi] + T.cast(A[vk], "int32") * T.cast(B[vi, vk], "int32")


@T.prim_func(s_tir=True)
def _dot_16x4_avx2(
    A: T.Buffer((4,), "uint8", offset_factor=1),
    B: T.Buffer((16, 4), "int8", offset_factor=1),
    C: T.Buffer((16,), "int32", offset_factor=1),
) -> None:
    with T.sblock("root"):
        T.reads(C[0:16], A[0:4], B[0:16, 0:4])
        T.writes(C[0:16])
        A_i32 = T.reinterpret(A.vload([0], "uint8x4"), dtype="int32")
        A_u8x32 = T.reinterpret(T.broadcast(A_i32, 8), dtype="uint8x32")   # 4 bytes, 8 times
        ones = T.broadcast(T.int16(1), 16)
        C[T.ramp(T.int32(0), 1, 8)] = C.vload([0], dtype="int32x8") + T.call_llvm_pure_intrin(
            T.llvm_lookup_intrinsic_id("llvm.x86.avx2.pmadd.wd"),
            T.call_llvm_pure_intrin(T.llvm_lookup_intrinsic_id("llvm.x86.avx2.pmadd.ub.sw"),
                                    A_u8x32, B.vload([0, 0], dtype="int8x32"), dtype="int16x16"),
            ones, dtype="int32x8")
        C[T.ramp(T.int32(8), 1, 8)] = C.vload([8], dtype="int32x8") + T.call_llvm_pure_intrin(
            T.llvm_lookup_intrinsic_id("llvm.x86.avx2.pmadd.wd"),
            T.call_llvm_pure_intrin(T.llvm_lookup_intrinsic_id("llvm.x86.avx2.pmadd.ub.sw"),
                                    A_u8x32, B.vload([8, 0], dtype="int8x32"), dtype="int16x16"),
            ones, dtype="int32x8")


TensorIntrin.register(INTRIN, _dot_16x4_desc, _dot_16x4_avx2, override=True)


def target_has_avx2(target) -> bool:
    import tvm
    return target.kind.name == "llvm" and bool(tvm.target.codegen.target_has_features("avx2", target))


def weight_max(target) -> int:
    """The largest |weight| the target's integer kernels take exactly: 127 with VNNI, 63 without."""
    from experiments.gemm import vnni
    return VNNI_WEIGHT_MAX if vnni.target_has_vnni(target) else WEIGHT_MAX
