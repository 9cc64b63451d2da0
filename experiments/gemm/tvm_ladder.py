"""TVM GEMM optimisation ladder (the classic "How to optimize GEMM on CPU" stages),
re-implemented for TVM 0.27 (TensorIR + ``tvm.s_tir.Schedule`` + MetaSchedule).

Computes ``C[M, N] = A[M, K] @ B[K, N]`` (row-major, float32 by default).

This module is a library: it builds, inspects, checks and tunes kernels, but it
records nothing and runs no benchmark by itself.

Stage ladder (each stage adds one idea to the previous one, as in the tutorial):

    baseline -> blocking -> vectorization -> loop_permutation -> packing
             -> write_cache -> parallel -> microkernel

``microkernel`` is not in the historical table: a BLIS-style kernel (packed B, K blocks
of KC, an MR x NR register tile sized from the target's SIMD width), see its section.

Non-divisible shapes
--------------------
* M and N that are not multiples of the tile (bm, bn) are handled by **padding**
  (``Schedule.pad_einsum``), not by guarded splits.  Reason (verified on 0.27):
  a guarded split puts ``j < N`` into the block predicate, the predicate depends
  on the vectorised loop, ``VectorizeLoop`` then scalarises the whole loop and
  the ``LoopPartition`` pass does not peel it (the predicate is not marked
  ``likely``) -- at 1000^3 the guarded ladder emitted zero FMA instructions.
  Padding details:
    - A's zero rows are inlined as a guard ``i < M`` on the A load (invariant in
      the vectorised j loop, so vectorisation survives);
    - B's zero columns are a padded copy (stages before ``packing``) or are
      folded into the packed copy (``packing`` and later);
    - C is computed into a padded buffer and copied back (stages before
      ``write_cache``) or written back from the local tile with a guard
      (``write_cache`` and later).
  When M and N divide the tiles no padding code is generated at all.
* K that is not a multiple of ``bk`` uses a guarded split (``k < K``); that guard
  does not involve the vectorised loop, so it costs little.
* ``baseline`` is the unscheduled function and needs neither.

API
---
``STAGES``, ``build_stage`` -> ``StageBuild``, ``c_source``, ``codegen_evidence``,
``check`` / ``error_report``, ``time_module``, ``tune`` -> ``TuneResult``,
``configure_threads``, ``host_target``.

TVM 0.27 traps handled here
---------------------------
* Targets must be dicts with ``mcpu`` (``host_target``); plain "llvm" gives generic x86-64.
* ``decompose_reduction`` must be the last primitive (vectorize/parallel/unroll on the
  decomposed loops raise ScheduleError).
* Block read regions are ``TensorRegion`` with ``.source`` (no ``.buffer``).
* TVM's default thread count on x86 is half the logical CPUs (1 here): see
  ``configure_threads``.
* The "c" target cannot print vector types and prints parallel loops serially: see
  ``c_source``.
* MetaSchedule: needs ``cloudpickle`` (not a dependency of apache-tvm) for its worker pools;
  its JSON database keeps no failed trials and no timestamps (hence ``ladder_trials.jsonl``);
  its default build function re-imports ``tvm.s_tir.tensor_intrin`` (~30 s) in fresh
  workers every batch (hence ``_local_builder``); ``TuneContext`` pays that import once
  per process.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import re
import time
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import tvm
import tvm_ffi
from tvm import s_tir, te

from experiments import targets
from experiments.gemm.check import error_report  # noqa: F401 - part of this module's API

# What each stage's schedule does (the page's words about the stages are in docs/gemm-ladder.md).
STAGES: list[dict[str, str]] = [
    {
        "name": "baseline",
        "historical_name": "baseline",
        "description": "the default triple loop i, j, k, unscheduled (TensorIR's default loops, "
        "init inside the k loop)",
    },
    {
        "name": "blocking",
        "historical_name": "blocking",
        "description": "i and j split by bm x bn (default 32x32), k by bk (default 4), "
        "loop order io, jo, ko, ki, ii, ji, so a block's data stays in cache",
    },
    {
        "name": "vectorization",
        "historical_name": "vectorization",
        "description": "blocking, with the innermost ji loop vectorised (ymm FMA under AVX2)",
    },
    {
        "name": "loop_permutation",
        "historical_name": "loop permutation",
        "description": "loops reordered to io, jo, ko, ii, ki, ji, so the innermost accesses to B and C are contiguous",
    },
    {
        "name": "packing",
        "historical_name": "packing",
        "description": "B packed into a contiguous [N/bn, K, bn] layout (cache_read + transform_layout); the packing "
        "loop is vectorised as in the tutorial and parallel over its outer loop",
    },
    {
        "name": "write_cache",
        "historical_name": "write cache",
        "description": "a bm x bn block of C accumulated in a local buffer (cache_write) and written back to C after "
        "the k loop; the inner ki loop unrolled",
    },
    {
        "name": "parallel",
        "historical_name": "parallel",
        "description": "write cache, with the outermost io loop parallel (threads from TVM_NUM_THREADS)",
    },
    {
        "name": "microkernel",
        "historical_name": None,  # not in the historical table: added by this study
        "description": "BLIS-style: B packed into [N/NR, K, NR] inside the timed function, K blocked by KC (rfactor "
        "gives each KC block's partial sum, on an MR x NR register tile), MR and the inner k unrolled, NR "
        "vectorised to the target's SIMD width, M blocks parallel across cores",
    },
]

_STAGE_RANK = {stage["name"]: rank for rank, stage in enumerate(STAGES)}
_BLOCKING, _VECTORIZE, _PERMUTE, _PACK, _WRITE_CACHE, _PARALLEL, _MICROKERNEL = range(1, 8)

FAILED_RUN_SECS = 1e8  # MetaSchedule stores 1e9 s for failed trials; anything this large is a failure


# --------------------------------------------------------------------------- targets / workload


host_target = targets.host_target        # the one host target (experiments/targets.py)
with_num_cores = targets.with_num_cores


def gemm_prim_func(m: int, n: int, k: int, dtype: str = "float32") -> tvm.tirx.PrimFunc:
    """The unscheduled GEMM as a TensorIR PrimFunc with params (A, B, C) and block "C"."""
    a = te.placeholder((m, k), dtype=dtype, name="A")
    b = te.placeholder((k, n), dtype=dtype, name="B")
    r = te.reduce_axis((0, k), name="k")
    c = te.compute((m, n), lambda i, j: te.sum(a[i, r] * b[r, j], axis=r), name="C")
    return te.create_prim_func([a, b, c])


def default_tiles() -> dict[str, int]:
    """Tile sizes of the classic tutorial: 32x32 output tiles, k split by 4."""
    return {"bm": 32, "bn": 32, "bk": 4}


configure_threads = targets.configure   # sets TVM_NUM_THREADS and sizes the pool


# --------------------------------------------------------------------------- the ladder schedules


def _stage_rank(stage: str) -> int:
    if stage not in _STAGE_RANK:
        raise ValueError(f"unknown stage {stage!r}; expected one of {list(_STAGE_RANK)}")
    return _STAGE_RANK[stage]


def _named_blocks(sch: s_tir.Schedule, blocks: list) -> dict[str, Any]:
    return {sch.get(block).name_hint: block for block in blocks}


def _read_index(sch: s_tir.Schedule, block, buffer_prefix: str) -> int:
    """Index of the read buffer of ``block`` whose name starts with ``buffer_prefix``."""
    names = [region.source.name for region in sch.get(block).reads]  # 0.27: TensorRegion.source
    for index, name in enumerate(names):
        if name.startswith(buffer_prefix):
            return index
    raise ValueError(f"no read buffer starting with {buffer_prefix!r} in {names}")


def _pad_spatial(sch: s_tir.Schedule, block, m: int, n: int, tiles: dict[str, int]) -> bool:
    """Pad M, N up to tile multiples; inline A's padding as a row guard. Returns True if padded."""
    if m % tiles["bm"] == 0 and n % tiles["bn"] == 0:
        return False
    sch.pad_einsum(block, [tiles["bm"], tiles["bn"], 1])
    producers = _named_blocks(sch, sch.get_producers(block))
    if "A_pad" in producers:
        sch.compute_inline(producers["A_pad"])
    return True


def _pack_b(sch: s_tir.Schedule, block, bn: int) -> None:
    """Packing: copy B (or its zero-padded view) into layout [N/bn, K, bn] (the packing stage, and the
    micro-kernel's NR-wide panels)."""
    packed = sch.cache_read(block, _read_index(sch, block, "B"), "global")
    producers = _named_blocks(sch, sch.get_producers(packed))
    if "B_pad" in producers:
        sch.compute_inline(producers["B_pad"])
    sch.transform_layout(packed, ("write", 0), lambda kk, j: (j // bn, kk, j % bn))
    kk, j = sch.get_loops(packed)
    j_outer, j_inner = sch.split(j, [None, bn])
    sch.reorder(j_outer, kk, j_inner)
    sch.vectorize(j_inner)
    sch.parallel(j_outer)  # as in the tutorial's packing stage


def _tile(sch: s_tir.Schedule, block, tiles: dict[str, int], permuted: bool) -> dict[str, Any]:
    """Blocking: split i, j, k and reorder; ``permuted`` moves ki inside ii."""
    i, j, k = sch.get_loops(block)
    io, ii = sch.split(i, [None, tiles["bm"]])
    jo, ji = sch.split(j, [None, tiles["bn"]])
    ko, ki = sch.split(k, [None, tiles["bk"]])
    if permuted:
        sch.reorder(io, jo, ko, ii, ki, ji)
    else:
        sch.reorder(io, jo, ko, ki, ii, ji)
    return {"io": io, "jo": jo, "ko": ko, "ii": ii, "ki": ki, "ji": ji}


def _attach_write_back(sch: s_tir.Schedule, write_back, jo, padded: bool) -> None:
    """Write the local C tile back after the k loop; with padding, store only the valid part."""
    sch.reverse_compute_at(write_back, jo)
    if padded:
        consumers = _named_blocks(sch, sch.get_consumers(write_back))
        sch.reverse_compute_inline(consumers["C_pad"])


def _apply_ladder(sch: s_tir.Schedule, rank: int, m: int, n: int, tiles: dict[str, int]) -> bool:
    """Apply stages 1..rank to the GEMM block. Returns whether M/N padding was used."""
    block = sch.get_sblock("C")
    padded = _pad_spatial(sch, block, m, n, tiles)
    if rank >= _PACK:
        _pack_b(sch, block, tiles["bn"])
    write_back = sch.cache_write(block, 0, "local") if rank >= _WRITE_CACHE else None
    loops = _tile(sch, block, tiles, permuted=rank >= _PERMUTE)
    if write_back is not None:
        _attach_write_back(sch, write_back, loops["jo"], padded)
        sch.unroll(loops["ki"])
    if rank >= _VECTORIZE:
        sch.vectorize(loops["ji"])
    if rank >= _PARALLEL:
        sch.parallel(loops["io"])
    # Must come last: vectorize/parallel/unroll on the decomposed loops raise ScheduleError.
    sch.decompose_reduction(block, loops["ko"])
    return padded


def schedule_stage(
    stage: str, m: int, n: int, k: int, dtype: str = "float32", tiles: dict[str, int] | None = None,
    target: tvm.target.Target | None = None,
) -> tuple[s_tir.Schedule, dict[str, Any]]:
    """Schedule the GEMM up to ``stage``. Returns the schedule and the parameters used.

    ``target`` matters only to ``microkernel`` (its tile and vector width come from the
    target's features, default :func:`host_target`); ``tiles`` are its mr/nr/kc/ku/mc there.
    """
    rank = _stage_rank(stage)
    if rank == _MICROKERNEL:
        return _schedule_microkernel(m, n, k, dtype, tiles, target or host_target())
    tiles = {**default_tiles(), **(tiles or {})}
    sch = s_tir.Schedule(gemm_prim_func(m, n, k, dtype))
    padded = _apply_ladder(sch, rank, m, n, tiles) if rank >= _BLOCKING else False
    params: dict[str, Any] = dict(tiles) if rank >= _BLOCKING else {}
    params["tail_handling"] = _tail_handling(rank, padded, k, tiles)
    return sch, params


def _schedule_microkernel(m, n, k, dtype, tiles, target):
    lanes = simd_lanes(target, dtype)
    t = microkernel_tiles(m, n, k, {**microkernel_defaults(target), **(tiles or {})}, lanes)
    sch = s_tir.Schedule(gemm_prim_func(m, n, k, dtype))
    padded = _apply_microkernel(sch, m, n, k, t)
    params: dict[str, Any] = {**t, "isa": target_isa(target)}
    params["tail_handling"] = ("pad M/N/K to MR/NR/KC multiples (A copied, B packed with zeros, "
                               "C copied back)" if padded else "M/N/K divisible")
    return sch, params


def _tail_handling(rank: int, padded: bool, k: int, tiles: dict[str, int]) -> str:
    if rank < _BLOCKING:
        return "none (default loops)"
    parts = ["pad M/N to tile multiples" if padded else "M/N divisible"]
    parts.append("guarded k split" if k % tiles["bk"] else "K divisible")
    return ", ".join(parts)


# --------------------------------------------------------------------------- the micro-kernel stage
#
# BLIS-style: B packed to [N/NR, K, NR] inside the function, K split in KC blocks by
# ``rfactor`` (the partial sum of one KC block lives in an MR x NR local tile -- registers
# once LLVM promotes it -- and is added to C after the block: C is read and written
# once per KC block, as in BLIS), MR rows and the inner k unrolled, NR vectorised with
# the target's SIMD width, M blocks (MC rows) parallel over the cores.  Loop nest:
#
#     for kb in K/KC:                      # reduction over KC blocks (rfactor)
#       for mc in parallel(M/MC):
#         for jo in N/NR:                  # one packed B panel KC x NR
#           for mr in MC/MR:
#             acc[MR, NR] = 0; for k in KC (ku unrolled): acc += A[:, k] x Bp[jo, k, :]
#             C[MR, NR] += acc
#
# ``cache_write``/``cache_inplace`` cannot hold a tile across only part of the reduction;
# rfactor's two-stage form (partial sums per KC block, placed at the register tile) can.

_ISA_LANES_FP32 = (("avx512", "avx512f", 16), ("avx2", "avx2", 8), ("sse", "sse2", 4))


def target_isa(target: tvm.target.Target) -> str:
    """Widest x86 SIMD ISA the target (not the host) has: avx512, avx2, sse or generic."""
    if target.kind.name != "llvm":
        return "generic"
    for isa, feature, _ in _ISA_LANES_FP32:
        if tvm.target.codegen.target_has_features(feature, target):
            return isa
    return "generic"


def simd_lanes(target: tvm.target.Target, dtype: str = "float32") -> int:
    """Vector lanes of ``dtype`` in one SIMD register of ``target`` (from its features)."""
    bits = {"avx512": 512, "avx2": 256, "sse": 128}.get(target_isa(target), 128)
    return max(1, bits // tvm.runtime.DataType(dtype).bits)


def isa_from_evidence(evidence: dict[str, Any]) -> str:
    """ISA the generated code actually used for its FMAs (zmm: avx512, ymm: avx2)."""
    fma = evidence.get("fma_packed", {})
    if fma.get("zmm"):
        return "avx512"
    if fma.get("ymm"):
        return "avx2"
    if fma.get("xmm"):
        return "sse"
    return "scalar"


def microkernel_defaults(target: tvm.target.Target) -> dict[str, int]:
    """MR x NR register tile sized to the target's register file.

    AVX-512 (32 zmm): 8 x 2 vectors = 16 accumulators + 2 B vectors + broadcasts;
    AVX2 (16 ymm): 6 x 2 vectors = 12 accumulators + 2 + 1 (the classic 6x16 kernel).
    ``ku``: inner k unroll; ``mc``: rows of A per parallel M block.
    """
    lanes = simd_lanes(target)
    mr = 8 if target_isa(target) == "avx512" else 6
    return {"mr": mr, "nr": 2 * lanes, "kc": 256, "ku": 4, "mc": 8 * mr}


def microkernel_grid(target: tvm.target.Target, size: str = "small") -> list[dict[str, int]]:
    """Candidate (MR, NR, KC, MC) for ``target``: the default first, then its neighbours.

    The large grid moves one decision at a time (KC, NR, MR, MC), then combines the moves
    that pay on their own: a one-vector NR (its KC x NR panel stays in L1) with a long KC
    (C is read and written once per KC block) and a taller M block.  MC is 8 MR unless a
    candidate sets it."""
    base = microkernel_defaults(target)
    lanes, mr = simd_lanes(target), base["mr"]
    if size == "small":  # quick profile: the default and one narrower tile
        variants = [{}, {"nr": lanes}]
    else:
        variants = [{}, {"kc": 128}, {"kc": 512}, {"nr": lanes}, {"nr": 3 * lanes, "mr": mr // 2},
                    {"mr": mr - 2}, {"mr": mr + 4 if lanes == 16 else mr - 2, "nr": lanes},
                    {"mc": 16 * mr}, {"nr": lanes, "kc": 512}, {"nr": lanes, "kc": 1024},
                    {"nr": lanes, "kc": 512, "mc": 16 * mr}]
    grid = []
    for variant in variants:
        tiles = {**base, **variant}
        if "mc" not in variant:
            tiles["mc"] = 8 * tiles["mr"]
        if tiles not in grid:
            grid.append(tiles)
    return grid


GRID_KEYS = ("mr", "nr", "kc", "mc")  # what tells two grid candidates apart (their record ids carry it)


def _cdiv(a: int, b: int) -> int:
    return -(-a // b)


def microkernel_tiles(m: int, n: int, k: int, tiles: dict[str, int], lanes: int) -> dict[str, int]:
    """Effective tiles for one shape: KC evened out over the K blocks (less zero padding),
    a multiple of ``ku``; NR a multiple of the vector width; MC a multiple of MR."""
    t = dict(tiles)
    if t["nr"] % lanes:
        raise ValueError(f"NR={t['nr']} is not a multiple of the SIMD width {lanes}")
    blocks = _cdiv(k, min(t["kc"], k))
    t["kc"] = _cdiv(_cdiv(k, blocks), t["ku"]) * t["ku"]  # >= ku: K is padded up when smaller
    t["mc"] = max(1, t["mc"] // t["mr"]) * t["mr"]
    t["lanes"] = lanes
    return t


def _apply_microkernel(sch: s_tir.Schedule, m: int, n: int, k: int, t: dict[str, int]) -> bool:
    """Schedule the GEMM block "C" as the micro-kernel. Returns True if shapes were padded.

    Tails: M, N, K are padded to MR, NR, KC multiples with ``pad_einsum``; A's padded
    copy is materialised (a guard inlined into the hot loop would cost one select per
    broadcast), B's padding is folded into the packed copy, and C is copied back from the
    padded result.  Nothing of this is generated when the shape divides the tiles.
    """
    mr, nr, kc, ku, lanes = t["mr"], t["nr"], t["kc"], t["ku"], t["lanes"]
    block = sch.get_sblock("C")
    padded = bool(m % mr or n % nr or k % kc)
    if padded:
        sch.pad_einsum(block, [mr, nr, kc])
    i, j, kk = sch.get_loops(block)
    j0, _ = sch.split(j, [None, lanes])
    _pack_b(sch, block, nr)   # B -> [N/NR, K, NR] panels, inside the function
    producers = _named_blocks(sch, sch.get_producers(block))
    if "A_pad" in producers:  # zero-padded copy of A, row-parallel and vectorised
        a_i, a_k = sch.get_loops(producers["A_pad"])
        sch.parallel(a_i)
        _, a_ki = sch.split(a_k, [None, lanes])
        sch.vectorize(a_ki)
    mc_tiles = max(1, t["mc"] // mr)
    partial, ko = _microkernel_nest(sch, block, lanes, kk, [None, kc],
                                    lambda loop: _split_i(sch, loop, [None, mc_tiles, mr]),
                                    [None, nr // lanes], [None, ku])
    if padded:
        (consumer,) = sch.get_consumers(block)  # pad_einsum's copy-back into C
        c_i, c_j = sch.get_loops(consumer)
        sch.parallel(c_i)
        if n % lanes == 0:
            _, c_jv = sch.split(c_j, [None, lanes])
            sch.vectorize(c_jv)
    # Must come last: vectorize/parallel/unroll after it raise ScheduleError.
    sch.decompose_reduction(partial, ko)
    return padded


def _microkernel_nest(sch, block, lanes, kk, k_blocks, tile_i, j_factors, k_factors):
    """Split k into KC blocks, rfactor them, tile the partial sums (the register tile) and
    add each tile into C right after it.  ``block``'s loops are (i, j0, j_lanes, kk) on entry.

    Factors are ints (the stage) or sampled variables (the MetaSchedule space):
    ``k_blocks`` = [K/KC, KC] (or a function splitting k and returning the K-block loop);
    ``tile_i(loop)`` splits i and returns (M-block loop,
    MR-tile loop, [loops inside the tile]); ``j_factors`` = [N/NR, NR/lanes]; ``k_factors``
    = [KC/ku, ku] or a function sampling them on the KC loop.  The loops of the final sum
    (C += tile) come from ``reverse_compute_at``, which drops unit extents: the MR loop is
    there when MR > 1 (the space keeps MR even for that), the NR loop always.  Returns
    (partial block, its outer k loop for decompose_reduction); leaves it undecomposed.
    """
    kb = k_blocks(kk) if callable(k_blocks) else sch.split(kk, k_blocks)[0]
    partial = sch.rfactor(kb, 0)  # partial[kb, i, j] = sum over one KC block
    i, j0, jl, kb, *rest = sch.get_loops(partial)
    kr = sch.fuse(*rest) if len(rest) > 1 else rest[0]  # the KC loop
    imc, imr, tile_loops = tile_i(i)
    jo, jv = sch.split(j0, j_factors)
    ko, ki = sch.split(kr, k_factors(kr) if callable(k_factors) else k_factors)
    sch.reorder(kb, imc, jo, imr, ko, ki, *tile_loops, jv, jl)
    sch.set_scope(partial, 0, "local")
    sch.reverse_compute_at(block, imr)  # C[tile] += partial[tile] after each KC block
    for loop in (ki, *tile_loops, jv):
        sch.unroll(loop)
    sch.vectorize(jl)
    sch.parallel(imc)
    # C += tile: MR unrolled (the tile's indices must be constants for it to stay in
    # registers), NR vectorised
    *_, f_i, f_j = sch.get_loops(block)
    _, f_jl = sch.split(f_j, [None, lanes])
    sch.vectorize(f_jl)
    if len(sch.get_loops(block)) == 7:  # kb, mc, jo, mr, MR, NR/lanes, lanes
        sch.unroll(f_i)
    return partial, ko
MICROKERNEL_POPULATION = 64
KC_STEP = 8  # the space samples KC in steps of 8


def _split_i(sch, loop, factors):
    imc, imr, ii = sch.split(loop, factors)
    return imc, imr, [ii]


def _divisor_at_most(n: int, limit: int) -> int:
    return max(d for d in range(1, max(1, min(n, limit)) + 1) if n % d == 0)


def microkernel_space(target: tvm.target.Target, m: int, n: int, k: int, start: dict[str, int] | None = None,
                      max_mr: int | None = None, max_nv: int = 2, max_kc: int = 1024, max_ku: int = 8):
    """MetaSchedule space of the micro-kernel: the stage's schedule with its decisions sampled.

    ``sample_perfect_tile`` picks MR/2 and MC/MR, NR/lanes (NR a multiple of the target's
    SIMD width), KC and the k unroll.  Perfect tiles divide the shape exactly, so the space has
    no padding; it needs N % lanes == 0.  The design space is generated with ``start`` (the
    grid's chosen tiles; the stage's defaults without one), made to divide the shape, as the
    first decisions; MetaSchedule then replays the trace with sampled and mutated decisions.
    The bounds keep the search where a register tile can live: MR up to the default MR of
    the target (the grid's taller tiles are slower), NR up to
    ``max_nv`` vectors, KC up to ``max_kc``, the k unroll up to ``max_ku``.  The packed B layout keeps the
    NR of the generated design (a replay with another NR is correct, its panels just do
    not match the tile).  MR is even (2 x sampled) and KC a multiple of ``KC_STEP``, so M
    must be even and K a multiple of ``KC_STEP``.
    Use with ``ms.space_generator.ScheduleFn``.
    """
    lanes = simd_lanes(target)
    if n % lanes:
        raise ValueError(f"the micro-kernel space needs N % {lanes} == 0, got N={n}")
    if m % 2:
        raise ValueError(f"the micro-kernel space needs an even M, got M={m}")
    if k % KC_STEP:
        raise ValueError(f"the micro-kernel space needs K % {KC_STEP} == 0, got K={k}")
    base = {**microkernel_defaults(target), **(start or {})}
    max_mr = max_mr or microkernel_defaults(target)["mr"]
    mr = 2 * _divisor_at_most(m // 2, min(base["mr"], max_mr) // 2)
    mc_tiles = _divisor_at_most(m // mr, max(1, base["mc"] // base["mr"]))
    nv = _divisor_at_most(n // lanes, min(base["nr"] // lanes, max_nv))
    kc = KC_STEP * _divisor_at_most(k // KC_STEP, min(base["kc"], max_kc) // KC_STEP)
    ku = _divisor_at_most(kc, min(base["ku"], max_ku))

    def space(sch: s_tir.Schedule) -> None:
        block = sch.get_sblock("C")
        i, j, kk = sch.get_loops(block)
        j0, _ = sch.split(j, [None, lanes])
        j_factors = sch.sample_perfect_tile(j0, n=2, max_innermost_factor=max_nv,
                                            decision=[n // lanes // nv, nv])
        _pack_b(sch, block, lanes * int(sch.get(j_factors[1])))
        partial, ko = _microkernel_nest(
            sch, block, lanes, kk, lambda loop: _sampled_k(sch, loop), lambda loop: _sampled_i(sch, loop),
            j_factors,
            lambda loop: sch.sample_perfect_tile(loop, n=2, max_innermost_factor=max_ku, decision=[kc // ku, ku]))
        sch.decompose_reduction(partial, ko)

    def _sampled_k(sch, loop):
        # KC = KC_STEP x sampled: no KC too short to amortise adding the tile into C
        k0, _ = sch.split(loop, [None, KC_STEP])
        factors = sch.sample_perfect_tile(k0, n=2, max_innermost_factor=max(1, max_kc // KC_STEP),
                                          decision=[k // kc, kc // KC_STEP])
        return sch.split(k0, factors)[0]

    def _sampled_i(sch, loop):
        # MR = 2 x sampled: never 1, so the final sum always has its MR loop (a stable trace)
        i0, i2 = sch.split(loop, [None, 2])
        factors = sch.sample_perfect_tile(i0, n=3, max_innermost_factor=max(1, max_mr // 2),
                                          decision=[m // mr // mc_tiles, mc_tiles, mr // 2])
        imc, imr, ii = sch.split(i0, factors)
        return imc, imr, [ii, i2]

    return space


# --------------------------------------------------------------------------- building


@dataclasses.dataclass
class StageBuild:
    """A compiled ladder stage. ``func(a, b, c)`` runs it on ``tvm.runtime.Tensor`` arguments."""

    stage: str
    shape: tuple[int, int, int]  # (m, n, k)
    dtype: str
    target: str
    params: dict[str, Any]
    mod: tvm.IRModule  # scheduled TensorIR module
    lowered_text: str  # TVMScript of the scheduled function
    trace_text: str  # schedule trace that reproduces ``mod``
    executable: Any  # tvm.runtime.Executable
    rt_mod: Any  # runtime module (has time_evaluator)
    func: Any  # callable f(a, b, c)
    asm: str  # assembly of the host module ("" for non-LLVM targets)
    compile_seconds: float

    @property
    def prim_func(self) -> tvm.tirx.PrimFunc:
        return self.mod["main"]


def _assembly(rt_mod, target: tvm.target.Target) -> str:
    return rt_mod.inspect_source("asm") if target.kind.name == "llvm" else ""


def build_stage(
    stage: str,
    m: int,
    n: int,
    k: int,
    target: tvm.target.Target,
    dtype: str = "float32",
    tiles: dict[str, int] | None = None,
    load: bool = True,
) -> StageBuild:
    """Schedule and compile one ladder stage for ``target`` (a dict-built Target).

    ``load=False`` compiles without loading the code into this process (``rt_mod`` and
    ``func`` are None, ``asm`` is still there): for targets whose ISA this host may lack.
    """
    sch, params = schedule_stage(stage, m, n, k, dtype, tiles, target)
    start = time.perf_counter()
    executable = tvm.compile(sch.mod, target)
    rt_mod = executable.jit() if load else None
    compile_seconds = time.perf_counter() - start
    return StageBuild(
        stage=stage,
        shape=(m, n, k),
        dtype=dtype,
        target=str(target),
        params=params,
        mod=sch.mod,
        lowered_text=sch.mod.script(),
        trace_text=str(sch.trace),
        executable=executable,
        rt_mod=rt_mod,
        func=rt_mod["main"] if load else None,
        asm=_assembly(rt_mod if load else executable.mod, target),
        compile_seconds=compile_seconds,
    )


def c_source(
    m: int, n: int, k: int, stage: str = "baseline", dtype: str = "float32", tiles=None
) -> str:
    """C source of one stage from TVM's "c" target.

    Two limits of TVM 0.27's C host code generator: it cannot print vector types
    (``float32x32``), so vectorised loops are emitted as serial loops
    (``tirx.disable_vectorize``); and it prints parallel loops as plain ``for`` loops
    (no ``TVMBackendParallelLaunch``; only the LLVM backend outlines them).  Tiling,
    padding, packing and the local write cache appear as scheduled.
    """
    sch, _ = schedule_stage(stage, m, n, k, dtype, tiles)
    with tvm.transform.PassContext(config={"tirx.disable_vectorize": True}):
        executable = tvm.compile(sch.mod, tvm.target.Target({"kind": "c"}))
    return executable.mod.inspect_source()


# --------------------------------------------------------------------------- codegen evidence

_FMA_RE = re.compile(r"^vf(?:n)?m(?:add|sub|addsub|subadd)(?:132|213|231)?(ps|pd|ss|sd)$")
_REGISTER_RE = re.compile(r"%([xyz]mm)\d+")
_WIDTH_ORDER = ("xmm", "ymm", "zmm")


def _instructions(asm: str):
    """Yield (mnemonic, widest SIMD register or None) for every instruction line."""
    for line in asm.splitlines():
        text = line.split("#", 1)[0].strip()
        if not text or text.startswith(".") or text.endswith(":"):
            continue
        mnemonic, *operands = text.split(None, 1)
        registers = _REGISTER_RE.findall(operands[0] if operands else "")
        widest = max(registers, key=_WIDTH_ORDER.index) if registers else None
        yield mnemonic, widest


def codegen_evidence(asm: str) -> dict[str, Any]:
    """Static instruction counts from an x86 AT&T assembly listing.

    * ``fma_packed``: packed FMAs (``vfmadd*ps/pd``...) by widest register (xmm/ymm/zmm);
    * ``fma_scalar``: scalar FMAs (``*ss/sd``, they use xmm but do one lane);
    * ``vector_ops``: other non-scalar instructions touching SIMD registers, by widest register;
    * ``scalar_simd_ops``: other scalar-float instructions (``*ss/*sd``, e.g. vmovss, vaddss);
    * ``top_vector_mnemonics``: the most frequent of those;
    * ``widest_register``: widest SIMD register in the listing (None if none).
    Counts are of instructions in the code (static), not executions.
    """
    fma_packed = Counter({width: 0 for width in _WIDTH_ORDER})
    vector_ops = Counter({width: 0 for width in _WIDTH_ORDER})
    fma_scalar = scalar_ops = 0
    mnemonics: Counter = Counter()
    widths_seen: set[str] = set()
    for mnemonic, widest in _instructions(asm):
        if widest is None:
            continue
        widths_seen.add(widest)
        fma = _FMA_RE.match(mnemonic)
        if fma and fma.group(1) in ("ss", "sd"):
            fma_scalar += 1
        elif fma:
            fma_packed[widest] += 1
        elif mnemonic.endswith(("ss", "sd")):
            scalar_ops += 1
        else:
            vector_ops[widest] += 1
            mnemonics[f"{mnemonic}:{widest}"] += 1
    widest_register = max(widths_seen, key=_WIDTH_ORDER.index) if widths_seen else None
    return {
        "fma_packed": dict(fma_packed),
        "fma_scalar": fma_scalar,
        "vector_ops": dict(vector_ops),
        "scalar_simd_ops": scalar_ops,
        "top_vector_mnemonics": dict(mnemonics.most_common(10)),
        "widest_register": widest_register,
        "has_ymm_fma": fma_packed["ymm"] > 0,
        "has_zmm": "zmm" in widths_seen,
    }


# --------------------------------------------------------------------------- numerics


def random_operands(m: int, n: int, k: int, seed: int, dtype: str = "float32"):
    """A ~ U(-1, 1) [m, k], B ~ U(-1, 1) [k, n] as numpy arrays of ``dtype``."""
    rng = np.random.default_rng(seed)
    a = rng.uniform(-1.0, 1.0, size=(m, k)).astype(dtype)
    b = rng.uniform(-1.0, 1.0, size=(k, n)).astype(dtype)
    return a, b


def run_gemm(func, a: np.ndarray, b: np.ndarray, device=None) -> np.ndarray:
    """Run ``func(a, b, c)`` once; ``c`` starts as NaN so unwritten elements are visible."""
    device = device or tvm.cpu(0)
    c = np.full((a.shape[0], b.shape[1]), np.nan, dtype=a.dtype)
    args = [tvm.runtime.tensor(x, device) for x in (a, b, c)]
    func(*args)
    return args[2].numpy()


def check(built, m: int, n: int, k: int, seed: int) -> dict[str, Any]:
    """Numerically check a StageBuild/TuneResult (anything with ``.func``) on random data."""
    if getattr(built, "shape", (m, n, k)) != (m, n, k):
        raise ValueError(f"built for {built.shape}, asked to check {(m, n, k)}")
    a, b = random_operands(m, n, k, seed, getattr(built, "dtype", "float32"))
    return error_report(run_gemm(built.func, a, b), a, b)


# --------------------------------------------------------------------------- timing


def time_module(
    f, args, number: int = 10, repeat: int = 3, warmup: int = 1, min_repeat_ms: int = 0
) -> list[float]:
    """Per-call seconds of ``main``, one value per repeat (each the mean of ``number`` calls).

    ``f`` is a runtime module or anything with ``.rt_mod`` (StageBuild, TuneResult);
    ``args`` are ``tvm.runtime.Tensor``s.  ``warmup`` extra calls run first, untimed.
    """
    rt_mod = getattr(f, "rt_mod", f)
    for _ in range(warmup):
        rt_mod["main"](*args)
    evaluator = rt_mod.time_evaluator(
        "main", args[0].device, number=number, repeat=repeat, min_repeat_ms=min_repeat_ms
    )
    return [float(x) for x in evaluator(*args).results]


# --------------------------------------------------------------------------- MetaSchedule tuning


@dataclasses.dataclass
class TuneResult:
    """Result of :func:`tune`. ``func(a, b, c)`` runs the best schedule found.

    ``mod``/``rt_mod``/``func``/``best_*`` are None when no trial succeeded.
    """

    shape: tuple[int, int, int]
    dtype: str
    target: str
    work_dir: str
    reused: bool  # True: the database already had records, no tuning ran
    trials_done: int  # trials measured by this call (0 when reused)
    total_records: int  # valid records of this workload+target in the database
    wall_seconds: float  # whole call, including the final compile and checks
    tuning_seconds: float  # inside tune_tir only
    curve: list[dict[str, Any]]  # per trial: trial, elapsed_s, run_secs, best_so_far_s
    failures: dict[str, int | None]  # build_failed, run_failed, timeout, numeric_check_failed
    cost_model: str
    notes: list[str]
    best_run_secs: float | None = None
    best_trace: str | None = None
    best_check: dict[str, Any] | None = None
    mod: tvm.IRModule | None = None
    rt_mod: Any = None
    func: Any = None
    asm: str = ""
    executable: Any = None  # tvm.runtime.Executable of the best record (uploadable through RPC)
    runner: str = "LocalRunner"  # what measured the candidates: LocalRunner or RPCRunner


def classify_failure(build_error: str | None, run_error: str | None) -> str | None:
    """Failure category of one trial: build_failed, timeout, run_failed, or None if it ran.

    Matches MetaSchedule's messages "LocalBuilder: Timeout, killed after ..." and
    "LocalRunner: Timeout, killed after ...".
    """
    if build_error:
        return "timeout" if "Timeout" in build_error else "build_failed"
    if run_error:
        return "timeout" if "Timeout" in run_error else "run_failed"
    return None


def error_summary(message: str | None, limit: int = 300) -> str | None:
    """The line of a MetaSchedule build/run error that says what went wrong (not the traceback).

    TVM's errors end with ``<Kind>Error: <what>`` after the stack frames; that line, cut to
    ``limit`` characters, is what a reader needs to group failures.  None for no error.
    """
    if not message:
        return None
    lines = [line.strip() for line in message.splitlines() if line.strip()]
    said = [line for line in lines if re.match(r"^[A-Za-z_.]*(Error|Exception|Timeout)\b", line)
            or "Error:" in line or "Timeout" in line]
    return (said[-1] if said else lines[-1])[:limit]


def _trial_log_callback(start: float, sink: list[dict[str, Any]]):
    """A MeasureCallback appending one dict per measured trial to ``sink``."""
    from tvm.ir.utils import derived_object
    from tvm.s_tir.meta_schedule.measure_callback import PyMeasureCallback

    @derived_object
    class TrialLog(PyMeasureCallback):
        def apply(self, task_scheduler, task_id, candidates, builder_results, runner_results):
            now = time.perf_counter() - start  # callbacks fire once per measured batch
            for built, ran in zip(builder_results, runner_results):
                secs = [float(x) for x in ran.run_secs] if ran.run_secs else None
                category = classify_failure(built.error_msg, ran.error_msg)
                trial = {"elapsed_s": now, "run_secs": secs, "category": category}
                if category:
                    trial["error"] = error_summary(built.error_msg or ran.error_msg)
                sink.append(trial)

    return TrialLog()


def _local_builder(workers: int, timeout_s: float):
    """LocalBuilder whose workers skip ``import tvm.s_tir.tensor_intrin``.

    MetaSchedule's default build function imports that package, which takes ~30 s in
    0.27 (hundreds of TVMScript parses, each calling ``inspect.stack()``), and the
    builder starts fresh worker processes for every batch, so each batch paid it again.
    Candidates arrive fully scheduled, so the build needs no registered intrinsics.
    The function is a closure so that cloudpickle ships it by value to the workers.
    """
    from tvm.s_tir.meta_schedule.builder import LocalBuilder

    def build_without_tensor_intrin(mod, target, _params):
        import tvm as tvm_worker
        from tvm.s_tir.transform import RemoveWeightLayoutRewriteBlock

        mod = RemoveWeightLayoutRewriteBlock(skip_tensor_rewrite=True)(mod)
        return tvm_worker.tirx.build(mod, target=target)

    return LocalBuilder(max_workers=workers, timeout_sec=timeout_s, f_build=build_without_tensor_intrin)


def _cost_model(requested: str, notes: list[str]) -> str:
    if requested != "xgb":
        return requested
    try:
        import xgboost  # noqa: F401
    except ImportError as err:
        notes.append(f"xgb cost model unavailable ({err}); used 'random'")
        return "random"
    return "xgb"


@contextlib.contextmanager
def _environment(**values: str):
    """Temporarily set environment variables (inherited by MetaSchedule's worker processes)."""
    saved = {key: os.environ.get(key) for key in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def tuning_workload(m: int, n: int, k: int, dtype: str = "float32") -> tvm.IRModule:
    """The GEMM normalised exactly as MetaSchedule stores workloads."""
    from tvm.s_tir.meta_schedule.tune_context import _normalize_mod

    return _normalize_mod(gemm_prim_func(m, n, k, dtype))


def _mean(run_secs) -> float | None:
    """Mean run time, or None for a missing or failed (1e9 s) measurement."""
    if not run_secs:
        return None
    value = float(np.mean([float(x) for x in run_secs]))
    return None if value >= FAILED_RUN_SECS else value


def _records_for(database, workload, target) -> list:
    """Valid records (best first) of ``workload`` measured on ``target``."""
    if not database.has_workload(workload):
        return []
    records = database.get_top_k(database.commit_workload(workload), 10**9)
    return [r for r in records if str(r.target) == str(target) and _mean(r.run_secs) is not None]


def _run_tune_tir(workload, target, database, settings: dict[str, Any], runner=None):
    """Run MetaSchedule once; returns (per-trial log, seconds spent).

    ``runner`` measures the candidates (e.g. ``ms.runner.RPCRunner`` for a device behind a
    tracker); default a LocalRunner on this machine.  Candidates are always built here.
    """
    from tvm.s_tir import meta_schedule as ms

    trials: list[dict[str, Any]] = []
    start = time.perf_counter()
    workers = settings["tuning_workers"]
    if runner is None:
        runner = ms.runner.LocalRunner(
            timeout_sec=settings["run_timeout_s"],
            evaluator_config=settings["evaluator"] or ms.runner.EvaluatorConfig(),
        )
    with _environment(TVM_NUM_THREADS=str(settings["num_threads"])):
        ms.tune_tir(
            workload,
            target,
            settings["work_dir"],
            max_trials_global=settings["max_trials"],
            num_trials_per_iter=settings["trials_per_iter"],
            builder=_local_builder(workers, settings["build_timeout_s"]),
            runner=runner,
            database=database,
            cost_model=settings["cost_model"],
            measure_callbacks=[
                *ms.measure_callback.MeasureCallback.create("default"),
                _trial_log_callback(start, trials),
            ],
            num_tuning_cores=workers,
            seed=settings["seed"],
            space=settings.get("space_generator", "post-order-apply"),
            strategy=settings.get("strategy", "evolutionary"),
        )
    return trials, time.perf_counter() - start


def tuning_curve(trials: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Best-so-far curve from a per-trial log (order = measurement order)."""
    curve, best = [], float("inf")
    for index, trial in enumerate(trials, start=1):
        run = _mean(trial.get("run_secs"))
        if run is not None:
            best = min(best, run)
        curve.append({
            "trial": index,
            "elapsed_s": trial.get("elapsed_s"),
            "run_secs": run,
            "best_so_far_s": best if best < float("inf") else None,
        })
    return curve


def _workload_key(workload) -> str:
    """The workload's structural hash as an unsigned decimal string."""
    return str(int(tvm_ffi.structural_hash(workload)) % 2**64)


def _workload_hashes(workload) -> set[str]:
    """The workload's structural hash as MetaSchedule may print it (signed or unsigned)."""
    unsigned = int(_workload_key(workload))
    return {str(unsigned), str(unsigned - 2**64 if unsigned >= 2**63 else unsigned)}


def trials_from_database_file(work_dir, workload, target) -> list[dict[str, Any]]:
    """Per-trial log recovered from the JSON database files in commit order.

    The files keep order and run_secs but no timestamps, and 0.27 commits no record for
    a failed trial, so ``elapsed_s`` is None and failures are invisible here (a record
    with the 1e9 s failure value, if any, is counted as "failed (category not stored)").
    """
    work_dir = Path(work_dir)
    hashes = _workload_hashes(workload)
    with open(work_dir / "database_workload.json") as handle:
        indices = {i for i, line in enumerate(handle) if str(json.loads(line)[0]) in hashes}
    wanted = json.loads(str(target))
    trials = []
    with open(work_dir / "database_tuning_record.json") as handle:
        for line in handle:
            index, record = json.loads(line)  # record = [trace, run_secs, target, args_info]
            if index not in indices or (len(record) > 2 and record[2] != wanted):
                continue
            secs = [float(x) for x in record[1]] if record[1] else None
            category = None if _mean(secs) is not None else "failed (category not stored)"
            trials.append({"elapsed_s": None, "run_secs": secs, "category": category})
    return trials


TRIAL_LOG_NAME = "ladder_trials.jsonl"


def save_trial_log(work_dir, workload, target, trials: list[dict[str, Any]]) -> None:
    """Append this call's per-trial log to ``work_dir/ladder_trials.jsonl``.

    MetaSchedule's JSON database keeps only successful trials and no timestamps, so
    this file is what lets a reused database still report the curve's elapsed times and
    the failure categories.
    """
    key = {"workload": _workload_key(workload), "target": str(target)}
    with open(Path(work_dir) / TRIAL_LOG_NAME, "a") as handle:
        for trial in trials:
            handle.write(json.dumps({**key, **trial}) + "\n")


def load_trial_log(work_dir, workload, target) -> list[dict[str, Any]]:
    """Trials saved by :func:`save_trial_log` for this workload and target ([] if none)."""
    path = Path(work_dir) / TRIAL_LOG_NAME
    if not path.exists():
        return []
    key = {"workload": _workload_key(workload), "target": str(target)}
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    fields = ("elapsed_s", "run_secs", "category")
    return [{f: row[f] for f in fields} for row in rows
            if all(row.get(name) == value for name, value in key.items())]


def _reused_history(work_dir, workload, target, notes: list[str]):
    """(trials, failure categories known, cost model, tuning seconds) of a reused database."""
    notes.append("reused existing database records; no tuning ran")
    trials = load_trial_log(work_dir, workload, target)
    if trials:
        return trials, True, "none (reused database)", 0.0
    notes.append(f"no {TRIAL_LOG_NAME}: curve from database order, no times, failures unknown")
    trials = trials_from_database_file(work_dir, workload, target)
    return trials, False, "none (reused database)", 0.0


def _runner_name(runner) -> str:
    return "LocalRunner" if runner is None else ("RPCRunner" if hasattr(runner, "rpc_config")
                                                 else type(runner).__name__)


def _tuned_history(workload, target, database, settings: dict[str, Any], notes: list[str], runner=None):
    """Tune now; (trials, failure categories known, cost model, tuning seconds)."""
    settings = {**settings, "cost_model": _cost_model(settings["cost_model"], notes)}
    trials, tuning_seconds = _run_tune_tir(workload, target, database, settings, runner=runner)
    for trial in trials:  # saved with the log: which runner measured each trial
        trial["runner"] = _runner_name(runner)
    save_trial_log(settings["work_dir"], workload, target, trials)
    return trials, True, settings["cost_model"], tuning_seconds


def _failure_counts(trials: list[dict[str, Any]], known: bool = True) -> dict[str, int | None]:
    """Failures by category; build/run/timeout are None when the history cannot tell."""
    counts = Counter(t["category"] for t in trials if t["category"])
    if not known:
        return {"build_failed": None, "run_failed": None, "timeout": None, "numeric_check_failed": 0}
    return {"build_failed": 0, "run_failed": 0, "timeout": 0, "numeric_check_failed": 0, **counts}


def _build_record(workload, record, target):
    """Apply a record's trace to the workload and compile it: (Schedule, runtime module)."""
    sch, executable = _compile_record(workload, record, target)
    return sch, executable.jit()


def _compile_record(workload, record, target):
    """Apply a record's trace to the workload and compile it: (Schedule, Executable)."""
    sch = s_tir.Schedule(workload)
    record.trace.apply_to_schedule(sch, remove_postproc=False)
    return sch, tvm.compile(sch.mod, target)


def _count_numeric_failures(workload, records, target, operands) -> int:
    """Rebuild each record and count those failing :func:`error_report`."""
    a, b = operands
    failures = 0
    for record in records:
        _, rt_mod = _build_record(workload, record, target)
        failures += not error_report(run_gemm(rt_mod["main"], a, b), a, b)["passed"]
    return failures


def _best_remote(workload, records, target) -> dict[str, Any]:
    """Compile the best record without running it here: it runs on the device (RPC)."""
    best = records[0]
    sch, executable = _compile_record(workload, best, target)
    asm = executable.mod.inspect_source("asm") if target.kind.name == "llvm" else ""
    return {"best_run_secs": _mean(best.run_secs), "best_trace": str(best.trace), "best_check": None,
            "mod": sch.mod, "executable": executable, "asm": asm}


def _best_of(workload, records, target, operands, verify: str) -> tuple[dict[str, Any], int]:
    """Compile and check the best record. Returns (TuneResult fields, numeric failures)."""
    best = records[0]
    sch, executable = _compile_record(workload, best, target)
    rt_mod = executable.jit()
    a, b = operands
    best_check = error_report(run_gemm(rt_mod["main"], a, b), a, b)
    if verify == "all":
        numeric_failures = _count_numeric_failures(workload, records, target, operands)
    else:
        numeric_failures = int(verify == "best" and not best_check["passed"])
    fields = {
        "best_run_secs": _mean(best.run_secs),
        "best_trace": str(best.trace),
        "best_check": best_check,
        "mod": sch.mod,
        "rt_mod": rt_mod,
        "func": rt_mod["main"],
        "asm": _assembly(rt_mod, target),
        "executable": executable,
    }
    return fields, numeric_failures


def tune(
    m: int,
    n: int,
    k: int,
    target: tvm.target.Target,
    work_dir,
    max_trials: int,
    num_threads: int,
    seed: int,
    *,
    reuse: bool = True,
    dtype: str = "float32",
    trials_per_iter: int | None = None,
    cost_model: str = "xgb",
    tuning_workers: int = 1,
    build_timeout_s: float = 120.0,
    run_timeout_s: float = 60.0,
    evaluator=None,
    verify: str = "best",
    runner=None,
    space: str = "default",
    start: dict[str, int] | None = None,
) -> TuneResult:
    """MetaSchedule-tune the GEMM (``tune_tir``) with a JSON database in ``work_dir``.

    * ``reuse=True``: if the database already holds valid records of this workload for
      this target (``num-cores`` included), no tuning runs and the best record is used;
      ``reuse=False`` always tunes ``max_trials`` more trials (appending to the database).
    * ``num_threads`` becomes the target's ``num-cores`` and the measuring workers'
      ``TVM_NUM_THREADS``; threads of *this* process are set with :func:`configure_threads`.
    * ``trials_per_iter`` defaults to ``min(max_trials, 8)`` (MetaSchedule's 64 is too large
      for small budgets); the build timeout defaults to 120 s (MetaSchedule: 30 s);
      ``tuning_workers`` is the number of build/run worker processes (default 1: shared box);
      ``evaluator`` is a ``meta_schedule.runner.EvaluatorConfig`` (default: MetaSchedule's).
    * ``verify``: "best" counts a numeric failure if the best record fails :func:`error_report`;
      "all" rebuilds and checks every valid record; "none" skips the count.  The best record
      is always checked into ``best_check``.
    * ``curve``: one point per trial in measurement order; ``elapsed_s`` is seconds since the
      tuning call started when the trial's batch finished.  Each call appends its trials to
      ``work_dir/ladder_trials.jsonl``; a reused result reads its curve and failure counts
      from there (all earlier calls, each with its own time origin).
    * ``runner``: a MetaSchedule runner measuring the candidates elsewhere, e.g.
      ``ms.runner.RPCRunner`` for a device behind a tracker (candidates are still built
      here, for ``target``).  The best record is then compiled but not run here: ``func``
      and ``rt_mod`` are None, ``executable`` is uploaded by the caller, ``best_check`` is
      None and ``numeric_check_failed`` stays 0 (the caller checks on the device).
    * ``space``: "default" is MetaSchedule's own space (post-order-apply with the target's
      schedule rules); "microkernel" is :func:`microkernel_space` (the micro-kernel stage with
      sampled MR, NR, KC, k unroll), its first decisions from ``start`` (the micro-kernel grid's
      choice).  The workload is the same GEMM either way, so give each space its own
      ``work_dir`` (the database would otherwise mix their records).
    """
    from tvm.s_tir import meta_schedule as ms

    call_start = time.perf_counter()
    notes: list[str] = []
    target = with_num_cores(target, num_threads)
    workload = tuning_workload(m, n, k, dtype)
    Path(work_dir).mkdir(parents=True, exist_ok=True)
    database = ms.database.JSONDatabase(work_dir=str(work_dir))
    settings = {
        "work_dir": str(work_dir), "max_trials": max_trials, "num_threads": num_threads,
        "seed": seed, "trials_per_iter": trials_per_iter or min(max_trials, 8),
        "tuning_workers": tuning_workers, "build_timeout_s": build_timeout_s,
        "run_timeout_s": run_timeout_s, "evaluator": evaluator, "cost_model": cost_model,
    }
    if space == "microkernel":
        settings["space_generator"] = ms.space_generator.ScheduleFn(microkernel_space(target, m, n, k, start=start))
        # A handful of tile decisions: MetaSchedule's 512-candidate population replayed
        # (rfactor, layout transform) every round cost minutes per batch for nothing.
        settings["strategy"] = ms.search_strategy.EvolutionarySearch(population_size=MICROKERNEL_POPULATION)
        notes.append("search space: micro-kernel schedule with sampled MR, NR, KC, k unroll; "
                     f"evolutionary search population {MICROKERNEL_POPULATION}; first decisions from "
                     + (json.dumps(start, sort_keys=True) if start else "the stage's default tiles"))
    elif space != "default":
        raise ValueError(f"unknown tuning space {space!r}; expected 'default' or 'microkernel'")
    reused = reuse and bool(_records_for(database, workload, target))
    if reused:
        history = _reused_history(work_dir, workload, target, notes)
    else:
        history = _tuned_history(workload, target, database, settings, notes, runner=runner)
    trials, failures_known, model, tuning_seconds = history
    records = _records_for(database, workload, target)
    failures = _failure_counts(trials, failures_known)
    best_fields: dict[str, Any] = {}
    if records and runner is not None:
        best_fields = _best_remote(workload, records, target)
        notes.append(f"candidates measured by {_runner_name(runner)}; best record checked by the caller")
    elif records:
        operands = random_operands(m, n, k, seed, dtype)
        best_fields, failures["numeric_check_failed"] = _best_of(
            workload, records, target, operands, verify
        )
    else:
        notes.append("no valid tuning record: every trial failed")
    return TuneResult(
        shape=(m, n, k),
        dtype=dtype,
        target=str(target),
        work_dir=str(work_dir),
        reused=reused,
        trials_done=0 if reused else len(trials),
        total_records=len(records),
        wall_seconds=time.perf_counter() - call_start,
        tuning_seconds=tuning_seconds,
        curve=tuning_curve(trials),
        failures=failures,
        cost_model=model,
        notes=notes,
        runner=_runner_name(runner),
        **best_fields,
    )
