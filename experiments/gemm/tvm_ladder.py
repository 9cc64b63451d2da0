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
``check`` / ``error_report``, ``time_module``, ``configure_threads``, ``host_target``;
MetaSchedule's ``tune`` -> ``TuneResult`` lives in :mod:`experiments.gemm.ms_tune`.

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
* MetaSchedule's traps: see :mod:`experiments.gemm.ms_tune`.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Any

import numpy as np
import tvm
from tvm import s_tir, te

from experiments import targets
from study import tails
from study.asm import fma_isa, codegen_evidence  # noqa: F401 - part of this module's API (the report counts with it too)
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
    params["tail_handling"] = tails.ladder(stage, m, n, k, tiles)
    _agrees(params["tail_handling"], padded)
    return sch, params


def _schedule_microkernel(m, n, k, dtype, tiles, target):
    lanes = simd_lanes(target, dtype)
    t = microkernel_tiles(m, n, k, {**microkernel_defaults(target), **(tiles or {})}, lanes)
    sch = s_tir.Schedule(gemm_prim_func(m, n, k, dtype))
    padded = _apply_microkernel(sch, m, n, k, t)
    params: dict[str, Any] = {**t, "isa": target_isa(target)}
    params["tail_handling"] = tails.microkernel(m, n, k, t["mr"], t["nr"], t["kc"])
    _agrees(params["tail_handling"], padded)
    return sch, params


def _agrees(tail: str, padded: bool) -> None:
    """The text the report decides again (study.tails) says 'pad' exactly when the schedule padded."""
    if tail.startswith("pad") != padded:
        raise RuntimeError(f"study.tails says {tail!r} but the schedule {'padded' if padded else 'did not pad'}")


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
    """ISA the generated code actually used for its FMAs (zmm: avx512, ymm: avx2): study.asm.fma_isa, the rule
    the report holds a record's extra.isa to."""
    return fma_isa(evidence.get("fma_packed", {}))


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


def microkernel_tiles(m: int, n: int, k: int, tiles: dict[str, int], lanes: int) -> dict[str, int]:
    """Effective tiles for one shape: KC evened out over the K blocks (less zero padding),
    a multiple of ``ku``; NR a multiple of the vector width; MC a multiple of MR."""
    t = dict(tiles)
    if t["nr"] % lanes:
        raise ValueError(f"NR={t['nr']} is not a multiple of the SIMD width {lanes}")
    t.update(tails.fitted(k, t))   # KC evened out over the K blocks, MC a multiple of MR (the report checks it)
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
