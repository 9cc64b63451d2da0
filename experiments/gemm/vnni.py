"""INT8 GEMM (u8 x s8 -> s32) tensorized with AVX-512 VNNI ``vpdpbusd``.

TVM 0.27 ships ``dot_16x4_vnni`` in ``tvm.s_tir.tensor_intrin.x86``, but its
implementation passes ``<16 x i32>`` operands to ``llvm.x86.avx512.vpdpbusd.512``, which
LLVM 22 declares with ``<64 x i8>`` operands; the build then fails with "Call parameter
type does not match function signature!".  This module registers the same description
with an implementation that reinterprets the operands as ``uint8x64`` / ``int8x64``:

* :data:`INTRIN` (``dot_16x4_vnni_bytes``), registered on import -- a new name, so a later
  ``import tvm.s_tir.tensor_intrin`` (which registers the shipped name) still works;
* :func:`override_shipped` re-registers the shipped name ``dot_16x4_vnni`` with the same
  implementation (``override=True``), for code (e.g. tuning records) that refers to it.

The GEMM (:func:`int8_prim_func`, :func:`schedule_int8`) packs B to [N/16, K/4, 16, 4]
inside the function, tiles C in MR x (16*NV) blocks whose accumulator is a *global*-scope
``cache_write`` (a local one does not match the intrinsic's buffer), tensorizes the
16 x 4 inner block, and runs the M blocks in parallel.  K must be a multiple of 4 and N
of 16 (the intrinsic's block); MR and NV shrink to divisors of M and N/16 (no guards:
a predicate on the tensorized block does not match the intrinsic).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import tvm
from tvm import s_tir, te
from tvm.s_tir import TensorIntrin
from tvm.script import tirx as T

INTRIN = "dot_16x4_vnni_bytes"
SHIPPED_INTRIN = "dot_16x4_vnni"
from study.asm import DOT_MNEMONICS, dot_counts  # noqa: E402,F401 - counted where the report counts them too


@T.prim_func(s_tir=True)
def _dot_16x4_desc(
    A: T.Buffer((4,), "uint8", offset_factor=1),
    B: T.Buffer((16, 4), "int8", offset_factor=1),
    C: T.Buffer((16,), "int32", offset_factor=1),
) -> None:
    # the same description as tvm.s_tir.tensor_intrin.x86.dot_product_16x4_u8i8i32_desc
    with T.sblock("root"):
        T.reads(C[0:16], A[0:4], B[0:16, 0:4])
        T.writes(C[0:16])
        for i in T.serial(0, 16):
            for k in T.serial(0, 4):
                with T.sblock("update"):
                    vi, vk = T.axis.remap("SR", [i, k])
                    C[vi] = C[vi] + T.cast(A[vk], "int32") * T.cast(B[vi, vk], "int32")


@T.prim_func(s_tir=True)
def _dot_16x4_vnni_bytes(
    A: T.Buffer((4,), "uint8", offset_factor=1),
    B: T.Buffer((16, 4), "int8", offset_factor=1),
    C: T.Buffer((16,), "int32", offset_factor=1),
) -> None:
    with T.sblock("root"):
        T.reads(C[0:16], A[0:4], B[0:16, 0:4])
        T.writes(C[0:16])
        A_u8x4 = A.vload([0], "uint8x4")
        A_i32 = T.reinterpret(A_u8x4, dtype="int32")
        A_u8x64 = T.reinterpret(T.broadcast(A_i32, 16), dtype="uint8x64")  # 4 bytes, 16 times
        B_i8x64 = B.vload([0, 0], dtype="int8x64")
        C_i32x16 = C.vload([0], dtype="int32x16")
        C[T.ramp(T.int32(0), 1, 16)] = T.call_llvm_pure_intrin(
            T.llvm_lookup_intrinsic_id("llvm.x86.avx512.vpdpbusd.512"),
            C_i32x16,
            A_u8x64,
            B_i8x64,
            dtype="int32x16",
        )


TensorIntrin.register(INTRIN, _dot_16x4_desc, _dot_16x4_vnni_bytes, override=True)


def override_shipped() -> None:
    """Make the shipped name ``dot_16x4_vnni`` use the byte-operand implementation."""
    import tvm.s_tir.tensor_intrin.x86  # noqa: F401 - registers the shipped (broken) one first

    TensorIntrin.register(SHIPPED_INTRIN, _dot_16x4_desc, _dot_16x4_vnni_bytes, override=True)


# --------------------------------------------------------------------------- targets


VNNI_FALLBACK_TARGET = {"kind": "llvm", "mcpu": "znver4"}  # compiled for when the host lacks VNNI


def target_has_vnni(target: tvm.target.Target) -> bool:
    return target.kind.name == "llvm" and bool(
        tvm.target.codegen.target_has_features("avx512vnni", target))


def host_has_vnni(flags: set[str] | None = None) -> bool:
    """Whether this CPU runs AVX-512 VNNI (``avx512_vnni`` in /proc/cpuinfo)."""
    if flags is None:
        from pathlib import Path
        try:
            text = Path("/proc/cpuinfo").read_text()
        except OSError:
            return False
        flags = next((set(line.split(":", 1)[1].split()) for line in text.splitlines()
                      if line.startswith("flags")), set())
    return "avx512_vnni" in flags


# --------------------------------------------------------------------------- the GEMM


def int8_prim_func(m: int, n: int, k: int) -> tvm.tirx.PrimFunc:
    """C[m, n] (int32) = A[m, k] (uint8) @ B[k, n] (int8); B packed to [n/16, k/4, 16, 4] inside."""
    if n % 16 or k % 4:
        raise ValueError(f"VNNI GEMM needs N % 16 == 0 and K % 4 == 0, got N={n}, K={k}")
    a = te.placeholder((m, k), dtype="uint8", name="A")
    b = te.placeholder((k, n), dtype="int8", name="B")
    packed = te.compute((n // 16, k // 4, 16, 4), lambda jo, ko, ji, ki: b[ko * 4 + ki, jo * 16 + ji],
                        name="B_packed")
    r = te.reduce_axis((0, k), name="k")
    c = te.compute(
        (m, n),
        lambda i, j: te.sum(a[i, r].astype("int32")
                            * packed[j // 16, r // 4, j % 16, r % 4].astype("int32"), axis=r),
        name="C")
    return te.create_prim_func([a, b, c])


def default_tiles() -> dict[str, int]:
    """8 rows x 2 vectors of 16 int32 = 16 zmm accumulators (as the FP32 micro-kernel)."""
    return {"mr": 8, "nv": 2}


def schedule_int8(m: int, n: int, k: int, tiles: dict[str, int] | None = None,
                  intrin: str = INTRIN) -> s_tir.Schedule:
    t = {**default_tiles(), **(tiles or {})}
    mr, nv = t["mr"], t["nv"]
    while m % mr:  # a guarded M tail would put a predicate on the tensorized block
        mr -= 1
    while n % (16 * nv):
        nv -= 1
    sch = s_tir.Schedule(int8_prim_func(m, n, k))
    block = sch.get_sblock("C")
    pack = sch.get_sblock("B_packed")
    p_jo, p_ko, p_ji, p_ki = sch.get_loops(pack)
    sch.parallel(p_jo)
    # Unrolled byte copies: 4 B rows -> one 16 x 4 block. On Zen 4 this was clearly faster
    # than vectorising the fused 64-byte block (LLVM makes a gather of it); it matters at
    # small M, where packing B is a large share of the work.
    sch.unroll(p_ki)
    sch.unroll(p_ji)
    acc = sch.cache_write(block, 0, "global")  # "local" does not match the intrinsic's buffer
    i, j, kk = sch.get_loops(block)
    io, ii = sch.split(i, [None, mr])
    jo, jv, ji = sch.split(j, [None, nv, 16])
    ko, ki = sch.split(kk, [None, 4])
    sch.reorder(io, jo, ko, ii, jv, ji, ki)
    sch.reverse_compute_at(acc, jo)
    sch.unroll(ii)
    sch.unroll(jv)
    sch.parallel(io)
    _, w_j = sch.get_loops(acc)[-2:]
    _, w_jl = sch.split(w_j, [None, 16])
    sch.vectorize(w_jl)
    init = sch.decompose_reduction(block, ko)
    _, i_jl = sch.split(sch.get_loops(init)[-1], [None, 16])
    sch.vectorize(i_jl)
    sch.tensorize(ji, intrin)
    return sch


def int8_operands(m: int, n: int, k: int, seed: int):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 256, size=(m, k), dtype=np.uint8)
    b = rng.integers(-128, 128, size=(k, n), dtype=np.int8)
    return a, b


def reference(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return a.astype(np.int32) @ b.astype(np.int32)


def exact_check(c: np.ndarray, a: np.ndarray, b: np.ndarray) -> dict[str, Any]:
    """Integer GEMM: the result must equal NumPy's int32 product exactly."""
    diff = np.abs(c.astype(np.int64) - reference(a, b).astype(np.int64))
    return {"max_abs_err": float(diff.max()) if diff.size else 0.0, "max_rel_err": None,
            "threshold": 0.0, "passed": bool(diff.size == 0 or diff.max() == 0)}


def build_int8(m: int, n: int, k: int, target: tvm.target.Target, tiles=None, load: bool = True):
    """Compile the VNNI GEMM: (schedule, executable, runtime module or None, asm, seconds)."""
    sch = schedule_int8(m, n, k, tiles)
    start = time.perf_counter()
    executable = tvm.compile(sch.mod, target)
    rt_mod = executable.jit() if load else None
    seconds = time.perf_counter() - start
    asm = (rt_mod if load else executable.mod).inspect_source("asm")
    return sch, executable, rt_mod, asm, seconds


def run_int8(func, a: np.ndarray, b: np.ndarray, device=None) -> np.ndarray:
    device = device or tvm.cpu(0)
    c = np.full((a.shape[0], b.shape[1]), -(2**31), dtype=np.int32)
    args = [tvm.runtime.tensor(x, device) for x in (a, b, c)]
    func(*args)
    return args[2].numpy()


