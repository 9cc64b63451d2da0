"""INT8 by rule: the FP32 rule library's register tile, with ``vpdpbusd`` as its multiply-add.

The integer program (:mod:`experiments.int8.quantize` with ``vnni=True``) runs every conv as
:func:`experiments.int8.vnni_ops.conv2d_nhwc_packed`: NHWC uint8 activations, weights packed
``[OC/16, KH, KW, IC/4, 16, 4]``.  One ``vpdpbusd`` adds 4 input channels x 16 output channels into
16 int32 lanes -- the FP32 micro-kernel's FMA, four channels deep.  The rule is the FP32 one
(:mod:`experiments.e2e.nchwc`) and MLAS's "ConvSym" kernel: a tile of ``oc_tile`` blocks of 16 output
channels x ``ow_tile`` pixels of one output row held in registers over the whole reduction (kernel
rows, columns, input channels in steps of 4), the input's 4 bytes broadcast, each weight block
loaded once per step and used by every pixel of the tile; requantization (and ReLU, the residual
add) fused where the tile is written.  Parallel over (batch, channel-block groups, output rows).
No search: :func:`vnni_tiles` picks the tile from the target's registers and the shape.

Every other kernel of the program gets the generic rule of the FP32 library.
"""

from __future__ import annotations

from typing import Any

CONV_BLOCK = "conv2d_vnni"   # the block of vnni_ops.conv2d_nhwc_packed
LANES = 16                   # int32 lanes of one vpdpbusd (zmm)
DEPTH = 4                    # input channels per lane


def vnni_tiles(oc_blocks: int, ow: int, registers: int = 32, knobs: dict[str, int] | None = None) -> dict[str, int]:
    """``oc_tile`` blocks of 16 channels x ``ow_tile`` pixels: the largest tile whose accumulators,
    one weight vector per block and the broadcast input fit the registers (MLAS: 4 x 6 = 24 + 4 + 1),
    the pixels a divisor of OW (no guarded tail inside the tensorized loop)."""
    from experiments.e2e.nchwc_rules import MAX_PIXEL_TILE, _divisors
    knobs = dict(knobs or {})
    best = None
    for oc in [d for d in (4, 2, 1) if oc_blocks % d == 0]:
        fit = [d for d in _divisors(ow) if d <= MAX_PIXEL_TILE and oc * d + oc + 1 <= registers]
        if not fit and oc > 1:   # not even one pixel of this many blocks fits: fewer blocks
            continue
        tile = (oc * max(fit or [1]), oc, max(fit or [1]))
        best = tile if best is None or tile[0] > best[0] else best
    oc = int(knobs.get("oc_tile") or best[1])
    owt = int(knobs.get("ow_tile") or best[2])
    return {"oc_tile": oc, "ow_tile": owt}


def schedule_vnni_conv(sch, lanes: int, registers: int, knobs: dict[str, int] | None = None,
                       intrin: str | None = None) -> dict[str, Any]:
    """The integer conv rule, in place on ``sch`` (a fused kernel with one ``CONV_BLOCK``);
    ``intrin`` the tensor intrinsic of the 16 x 4 block (default: VNNI's)."""
    from experiments.e2e.nchwc_rules import _block_names, _finish_tile
    from experiments.gemm import vnni
    intrin = intrin or vnni.INTRIN
    block = sch.get_sblock(CONV_BLOCK)
    b, i, j, c, rh, rw, rc = sch.get_loops(block)
    shape = {"oc_blocks": int(sch.get(c).extent) // LANES, "oh": int(sch.get(i).extent),
             "ow": int(sch.get(j).extent), "kh": int(sch.get(rh).extent), "kw": int(sch.get(rw).extent),
             "ic": int(sch.get(rc).extent)}
    tiles = vnni_tiles(shape["oc_blocks"], shape["ow"], registers, knobs)
    names = _block_names(sch)
    at = names.index(CONV_BLOCK)
    # the input side: shift (int8 input read as uint8) inlined into the pad, the pad computed
    # whole, parallel over rows; the output side: every elementwise step inlined into the last
    for name in names[:at]:
        # the shift folds into the pad; without a pad it stays a stage of its own (inlined into
        # the conv it would put an add inside the tensorized load)
        if name != "pad" and "pad" in names:
            sch.compute_inline(sch.get_sblock(name))
        elif name != "pad":
            loops = sch.get_loops(sch.get_sblock(name))
            sch.parallel(sch.fuse(*loops[:2]))
    tail = names[at + 1:]
    for name in tail[:-1]:
        sch.compute_inline(sch.get_sblock(name))
    co, ci = sch.split(c, [None, LANES])
    cot, coi = sch.split(co, [None, tiles["oc_tile"]])
    jo, ji = sch.split(j, [None, tiles["ow_tile"]])
    rco, rci = sch.split(rc, [None, DEPTH])
    sch.reorder(b, cot, i, jo, rh, rw, rco, ji, coi, ci, rci)
    sch.parallel(sch.fuse(b, cot, i))
    if tail:   # the tile's int32 buffer lives only inside the pixel tile (compacted to its size)
        last = sch.get_sblock(tail[-1])
    else:      # "local" does not match the intrinsic's buffer (see experiments/gemm/vnni.py)
        last = sch.cache_write(block, 0, "global")
    sch.reverse_compute_at(last, jo)
    _finish_tile(sch, last, jo)
    init = sch.decompose_reduction(block, rh)
    *_, init_c = sch.get_loops(init)
    sch.vectorize(init_c)
    sch.unroll(ji)
    sch.unroll(coi)
    sch.tensorize(ci, intrin)
    if "pad" in names:
        pad = sch.get_sblock("pad")
        loops = sch.get_loops(pad)
        sch.parallel(sch.fuse(*loops[:2]))   # N, H
    return {**tiles, **shape}


# Without VNNI the 16 x 4 block is two ymm halves, each of vpmaddubsw, vpmaddwd and vpaddd
# (experiments/int8/avx2_dot.py): a block of 16 channels holds two ymm, its accumulators two, and
# the ones vector and the pair sums take registers of their own.  In blocks of 16 channels the
# tile's budget is then 16 ymm // 2 - 1 = 7 (tile + weights + broadcast <= 7).
AVX2_BLOCK_REGISTERS = 7


def schedule_avx2_conv(sch, lanes: int, registers: int, knobs: dict[str, int] | None = None) -> dict[str, Any]:
    """The integer conv rule with the AVX2 sequence as its multiply-add (7-bit weights)."""
    from experiments.int8 import avx2_dot
    return schedule_vnni_conv(sch, lanes, AVX2_BLOCK_REGISTERS, knobs, intrin=avx2_dot.INTRIN)


def rules_for(target):
    """The extra rules :func:`experiments.e2e.nchwc_rules.build_rules` dispatches on for the integer
    program: the conv with ``vpdpbusd`` where the target has VNNI, with ``vpmaddubsw``/``vpmaddwd``
    where it has AVX2 only (else the generic rule, as for any kernel)."""
    from experiments.gemm import vnni
    from experiments.int8 import avx2_dot
    if vnni.target_has_vnni(target):
        return {CONV_BLOCK: ("vnni_conv", schedule_vnni_conv)}
    if avx2_dot.target_has_avx2(target):
        return {CONV_BLOCK: ("avx2_conv", schedule_avx2_conv)}
    return {}


# --------------------------------------------------------------------------- the rule's knobs

MAX_GRID_PIXELS = 28   # the widest pixel tile a candidate may have (one block: 28 + 1 + 1 registers)


def knob_grid(oc_blocks: int, ow: int, registers: int, limit: int = 16) -> list[dict[str, int]]:
    """The tuned variant's candidates for one packed conv: the rule's default first, then every
    count of channel blocks per tile (1, 2, 4, 8 that divide) with the widest three pixel tiles
    that divide the row and fit the registers -- at most ``limit``, so the budget is stated."""
    from experiments.e2e.nchwc_rules import _divisors
    grid = [vnni_tiles(oc_blocks, ow, registers)]
    for oc in (d for d in (1, 2, 4, 8) if oc_blocks % d == 0):
        fit = sorted((d for d in _divisors(ow) if d <= MAX_GRID_PIXELS and oc * d + oc + 1 <= registers),
                     reverse=True)[:3]
        grid += [{"oc_tile": oc, "ow_tile": d} for d in fit]
    unique = []
    for cand in grid:
        if cand not in unique:
            unique.append(cand)
    return unique[:limit]


def tune_network(fused, target, limit: int = 16) -> dict[str, Any]:
    """Every packed conv kernel of the fused integer network timed alone over :func:`knob_grid`
    (:func:`experiments.e2e.nchwc_rules.tune_kernel`: the output of each candidate compared with
    the default's, exact for integers), the fastest kept.  Returns {"knobs": {kernel: knobs},
    "tasks": [per kernel: candidates, valid, default and best seconds], "trials", "seconds"}."""
    import time
    from experiments.e2e.nchwc_rules import _block_names, mod_functions, schedule_func, tune_kernel, vector_registers
    from experiments.gemm import vnni
    from tvm import s_tir
    import tvm
    rules = rules_for(target)
    registers = vector_registers(target) if vnni.target_has_vnni(target) else AVX2_BLOCK_REGISTERS
    t0 = time.perf_counter()
    knobs, tasks = {}, []
    for gv, func in mod_functions(fused):
        if CONV_BLOCK not in _block_names(s_tir.Schedule(tvm.IRModule({"main": func}))):
            continue
        _, info = schedule_func(func, target, None, rules)
        grid = knob_grid(info["oc_blocks"], info["ow"], registers, limit)
        result = tune_kernel(func, target, grid, rules=rules, tolerance=0.0)
        knobs[gv] = result["best"]
        tasks.append({"kernel": gv, "candidates": len(grid),
                      "valid": sum(1 for t in result["trials"] if "seconds" in t),
                      "default_s": result["default_seconds"], "best_s": result["best_seconds"],
                      "best": result["best"], "default": result["default"],
                      "errors": sorted({t["error"] for t in result["trials"] if "error" in t})[:3]})
    return {"knobs": knobs, "tasks": tasks, "trials": sum(t["candidates"] for t in tasks),
            "seconds": time.perf_counter() - t0, "limit": limit}
