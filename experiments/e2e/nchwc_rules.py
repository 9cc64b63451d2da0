"""Group D by rule, step 3: a schedule for every fused kernel of a network that
:func:`experiments.e2e.nchwc.fuse_rules` blocked and fused -- no search.

A kernel with a packed convolution gets :func:`schedule_conv` (the GEMM micro-kernel's register
tile, bias/ReLU/residual add fused after the tile), a depthwise one :func:`schedule_depthwise`,
every other kernel :func:`schedule_generic` (outer loops parallel, the channel block vectorised).
:func:`conv_tiles` chooses the tile from the target's vector registers and the shape;
:func:`tune_network` times each conv kernel alone over :func:`knob_grid` (the ``_tuned`` variant).

Nothing here times a network; ``experiments/e2e_models.py`` does.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

from experiments.e2e.nchwc import (CONV_BLOCK, DW_BLOCK, DW_PAD_BLOCK, PAD_BLOCK, fuse_rules, lanes_of,
                                   vector_registers)
from study import stats as study_stats

MAX_PIXEL_TILE = 14   # pixels per tile of the default: 2 x 14 + 2 = 30 of the 32 zmm (AVX2: 2 x 7 + 2 = 16 ymm)
TILE_WEIGHTS_IN_L2 = 512 * 1024   # bytes of one tile's weights above which the rule loops input blocks outermost
GENERIC_MIN_TASKS = 16   # parallel tasks the outer loops of a generic kernel must give on their own


# --------------------------------------------------------------------------- tiles


@dataclasses.dataclass(frozen=True)
class ConvShape:
    """What the rule reads of one packed convolution."""

    oc_blocks: int   # O / c
    ic_blocks: int   # C / c
    oh: int
    ow: int
    kh: int
    kw: int
    lanes: int
    ic_lanes: int = 0   # input lanes per block (the stem's NCHW input: 1)


def _divisors(n: int) -> list[int]:
    return [d for d in range(1, n + 1) if n % d == 0]


def conv_tiles(shape: ConvShape, registers: int, knobs: dict[str, int] | None = None,
               threads: int = 2) -> dict[str, int]:
    """The rule's register tile for one convolution: ``oc_tile`` channel blocks x ``ow_tile``
    output pixels, with ``oc_tile * ow_tile + oc_tile`` <= registers (accumulators plus the
    weight vectors of one step; the input is broadcast from memory).

    Default: 2 channel blocks, then the widest pixel tile up to ``MAX_PIXEL_TILE`` that
    divides OW and fits (on AVX-512 2 x 7 or 2 x 14; on AVX2's 16 registers 2 x 7).  MLAS's
    AVX-512 kernel holds 4 filter blocks x 6 pixels; on Zen 5 (ResNet-18's 3x3 convolutions,
    each timed alone, 2 threads) 2 blocks x 7-14 pixels was the fastest tile of the knob grid
    on 8 of 10 kernels.  ``knobs`` overrides (the tuned variant samples them)."""
    knobs = dict(knobs or {})
    oc = knobs.get("oc_tile") or max(d for d in _divisors(shape.oc_blocks) if d <= 2)
    fit = [d for d in _divisors(shape.ow) if d <= MAX_PIXEL_TILE and oc * d + oc <= registers]
    ow = knobs.get("ow_tile") or max(fit or [1])
    # MLAS's order (one input block at a time over the pixels) when the tile's weights would not
    # stay in L2 across a row: 512 channels at 7x7 ran 1.29 -> 0.71 ms on Zen 5 with it, while
    # layers with few input blocks lose by it (the tile is loaded and stored once per block)
    weight_bytes = shape.ic_blocks * shape.kh * shape.kw * shape.ic_lanes * oc * shape.lanes * 4
    ic_outer = int(knobs.get("ic_outer", weight_bytes > TILE_WEIGHTS_IN_L2))
    # row blocks: just enough parallel tasks (4 per thread) -- each row block re-reads the
    # tile's weights, which for the deep layers (512 channels at 7x7) is what costs
    oc_tasks = shape.oc_blocks // oc
    rows = int(knobs.get("row_tasks", 0)) or min(
        [d for d in _divisors(shape.oh) if oc_tasks * d >= 4 * threads] or [shape.oh])
    return {"oc_tile": int(oc), "ow_tile": int(ow), "unroll_kw": int(knobs.get("unroll_kw", 0)),
            "ic_outer": ic_outer, "row_tasks": rows}


# --------------------------------------------------------------------------- schedules


def _block_names(sch) -> list[str]:
    """Names of the kernel's blocks under its root, in program order."""
    return [sch.get(b).name_hint for b in sch.get_child_blocks(sch.get_sblock("root"))]


def conv_shape(func, lanes: int) -> ConvShape | None:
    """The packed convolution of a kernel, or None when it has none."""
    import tvm
    from tvm import s_tir
    sch = s_tir.Schedule(tvm.IRModule({"main": func}))
    if CONV_BLOCK not in _block_names(sch):
        return None
    block = sch.get_sblock(CONV_BLOCK)
    loops = sch.get_loops(block)
    ext = [int(sch.get(l).extent) for l in loops]
    _n, oc, oh, ow, ob, ric, kh, kw = ext[:8]
    if ob != lanes:
        return None
    return ConvShape(oc_blocks=oc, ic_blocks=ric, oh=oh, ow=ow, kh=kh, kw=kw, lanes=lanes,
                     ic_lanes=ext[8] if len(ext) > 8 else 1)


def schedule_conv(sch, lanes: int, registers: int, knobs: dict[str, int] | None = None) -> dict[str, Any]:
    """The register-tiled direct convolution, in place on ``sch`` (a fused kernel with one
    ``CONV_BLOCK``).  Returns the tiles used.

    Loops: parallel over (batch, channel-block groups, output rows); then pixel tiles; then the
    whole reduction (input blocks, kernel rows and columns, input lanes); inside, the tile:
    ``ow_tile`` pixels x ``oc_tile`` blocks unrolled, the output lanes vectorised.  The tile is
    a local buffer (registers); the elementwise tail of the kernel (bias, ReLU, residual add)
    is inlined into one block placed after each tile, so the tile is written once, finished."""
    block = sch.get_sblock(CONV_BLOCK)
    n, oc, oh, ow, ob, ric, rkh, rkw, *rib = sch.get_loops(block)   # rib: none for the stem
    shape = ConvShape(oc_blocks=int(sch.get(oc).extent), ic_blocks=int(sch.get(ric).extent),
                      oh=int(sch.get(oh).extent), ow=int(sch.get(ow).extent),
                      kh=int(sch.get(rkh).extent), kw=int(sch.get(rkw).extent), lanes=lanes,
                      ic_lanes=int(sch.get(rib[0]).extent) if rib else 1)
    tiles = conv_tiles(shape, registers, knobs)
    names = _block_names(sch)
    # the elementwise tail: inline all but the last block into it
    tail = [b for b in names[names.index(CONV_BLOCK) + 1:]]
    for name in tail[:-1]:
        sch.compute_inline(sch.get_sblock(name))
    if tiles["ic_outer"]:
        init_block, init_at = _ic_outer_nest(sch, block, tail, tiles)
    else:
        oco, oci = sch.split(oc, [None, tiles["oc_tile"]])
        owo, owi = sch.split(ow, [None, tiles["ow_tile"]])
        sch.reorder(n, oco, oh, owo, ric, rkh, rkw, *rib, owi, oci, ob)
        sch.parallel(sch.fuse(n, oco, oh))
        _write_tile(sch, block, tail, owo)
        sch.unroll(owi)
        sch.unroll(oci)
        if tiles["unroll_kw"]:
            sch.unroll(rkw)
        sch.vectorize(ob)
        init_block, init_at = block, ric
    if PAD_BLOCK in names:
        pad = sch.get_sblock(PAD_BLOCK)
        p_loops = sch.get_loops(pad)
        sch.parallel(sch.fuse(*p_loops[:3]))   # N, C(/c), H
        sch.vectorize(p_loops[-1])
    sch.decompose_reduction(init_block, init_at)
    return {**tiles, "oc_blocks": shape.oc_blocks, "ic_blocks": shape.ic_blocks, "ic_lanes": shape.ic_lanes, "oh": shape.oh,
            "ow": shape.ow, "kh": shape.kh, "kw": shape.kw}


def depthwise_tile(ow: int, taps: int, registers: int, knobs: dict[str, int] | None = None) -> int:
    """Output pixels per depthwise tile: the widest divisor of OW up to ``MAX_PIXEL_TILE`` whose
    accumulators fit beside the kernel's taps (one weight vector each) and one input vector."""
    if knobs and knobs.get("ow_tile"):
        return int(knobs["ow_tile"])
    fit = [d for d in _divisors(ow) if d <= MAX_PIXEL_TILE and d + taps + 1 <= registers]
    return max(fit or [1])


def schedule_depthwise(sch, lanes: int, registers: int, knobs: dict[str, int] | None = None) -> dict[str, Any]:
    """The depthwise rule, in place: parallel over (batch, channel blocks, output rows); a tile of
    pixels of one row accumulated in registers over the kernel's taps (unrolled), the lanes
    vectorised; the elementwise tail (batch norm, clip) applied as the tile is written; the
    padded input computed per task, only the rows that task reads."""
    block = sch.get_sblock(DW_BLOCK)
    n, c, oh, ow, v, rkh, rkw = sch.get_loops(block)
    shape = {"channel_blocks": int(sch.get(c).extent), "oh": int(sch.get(oh).extent),
             "ow": int(sch.get(ow).extent), "kh": int(sch.get(rkh).extent), "kw": int(sch.get(rkw).extent)}
    tile = depthwise_tile(shape["ow"], shape["kh"] * shape["kw"], registers, knobs)
    names = _block_names(sch)
    tail = names[names.index(DW_BLOCK) + 1:]
    for name in tail[:-1]:
        sch.compute_inline(sch.get_sblock(name))
    owo, owi = sch.split(ow, [None, tile])
    sch.reorder(n, c, oh, owo, rkh, rkw, owi, v)
    outer = sch.fuse(n, c, oh)
    sch.parallel(outer)
    _write_tile(sch, block, tail, owo)
    for loop in (rkh, rkw, owi):
        sch.unroll(loop)
    sch.vectorize(v)
    if DW_PAD_BLOCK in names:
        pad = sch.get_sblock(DW_PAD_BLOCK)
        sch.compute_at(pad, outer)
        sch.vectorize(sch.get_loops(pad)[-1])
    sch.decompose_reduction(block, rkh)
    return {"ow_tile": tile, **shape}


def _ic_outer_nest(sch, block, tail, tiles):
    """MLAS's order, as the GEMM micro-kernel does it for KC blocks: the reduction split into
    input-channel blocks with ``rfactor``; per block, the tile's partial sum over (kernel rows,
    columns, input lanes) lives in registers and is added into the output tile once; the block
    loop runs over all pixels of a row block, so its weights (KH*KW*c*oc_tile*c floats) stay in
    L1 while the pixels go by.  The elementwise tail runs once per task, after every block.
    Returns (block, loop) for the partial sum's init."""
    partial = sch.rfactor(sch.get_loops(block)[5], 0)   # partial[ric, n, oc, oh, ow, c]
    n, oc, oh, ow, ob, ric, rkh, rkw, *rib = sch.get_loops(partial)
    oco, oci = sch.split(oc, [None, tiles["oc_tile"]])
    oho, ohi = sch.split(oh, [tiles["row_tasks"], None])
    owo, owi = sch.split(ow, [None, tiles["ow_tile"]])
    sch.reorder(n, oco, oho, ric, ohi, owo, rkh, rkw, *rib, owi, oci, ob)
    sch.set_scope(partial, 0, "local")
    sch.reverse_compute_at(block, owo)   # out[tile] += partial[tile], once per input block
    outer = sch.fuse(n, oco, oho)
    sch.parallel(outer)
    for loop in (owi, oci):
        sch.unroll(loop)
    if tiles["unroll_kw"]:
        sch.unroll(rkw)
    sch.vectorize(ob)
    _finish_tile(sch, block, owo)
    if tail:
        last = sch.get_sblock(tail[-1])
        sch.reverse_compute_at(last, outer)
        *_, t_ob = sch.get_loops(last)
        sch.vectorize(t_ob)
    return partial, rkh


def _write_tile(sch, block, tail, at) -> None:
    """The accumulator tile of ``block`` in registers (a local buffer), written back under ``at``
    by the kernel's elementwise tail (its last block, the rest inlined into it) or by a plain copy
    when the kernel has none."""
    if tail:
        last = sch.get_sblock(tail[-1])
        sch.reverse_compute_at(last, at)
        sch.set_scope(block, 0, "local")
    else:
        last = sch.cache_write(block, 0, "local")
        sch.reverse_compute_at(last, at)
    _finish_tile(sch, last, at)


def _finish_tile(sch, block, at) -> None:
    """The loops of a block placed at ``at`` (a tile's write-back): the channel lanes
    vectorised, the rest (the tile's pixels and channel blocks, unit loops dropped by
    ``reverse_compute_at``) unrolled -- found by depth, never by position from the end."""
    loops = sch.get_loops(block)
    depth = [sch.get(l).same_as(sch.get(at)) for l in loops].index(True) + 1
    inner = loops[depth:]
    if not inner:
        return
    sch.vectorize(inner[-1])
    for loop in inner[:-1]:
        sch.unroll(loop)


def schedule_generic(sch, lanes: int) -> None:
    """Every other kernel (pools, layout transforms, the elementwise tails left alone, dense,
    global mean): elementwise stages inlined into their consumer where they can be, then each
    remaining block gets its data-parallel loops fused and parallel, and its innermost
    data-parallel loop -- when it is a whole number of vectors -- split, moved below the
    reduction (a vector of outputs accumulates over the reduction) and vectorised; a reduction
    keeps up to five such vectors side by side (unrolled) where enough parallel tasks remain."""
    from tvm import tirx
    names = _block_names(sch)
    for name in names[:-1]:
        try:
            sch.compute_inline(sch.get_sblock(name))
        except Exception:   # noqa: BLE001 - a reduction or a multi-consumer stage stays a stage
            pass
    for name in _block_names(sch):
        block = sch.get_sblock(name)
        loops = sch.get_loops(block)
        kinds = [iv.iter_type for iv in sch.get(block).iter_vars]
        if not loops or len(kinds) != len(loops):   # a nest already reshaped: leave it
            continue
        spatial = [l for l, k in zip(loops, kinds) if k == tirx.IterVar.DataPar]
        reduce = [l for l, k in zip(loops, kinds) if k != tirx.IterVar.DataPar]
        if not spatial or loops[:len(spatial)] != spatial:
            continue
        vec = None
        last = int(sch.get(spatial[-1]).extent)
        width = next((w for w in (lanes, lanes // 2, lanes // 4) if w >= 4 and last % w == 0), 0)
        unrolled = None
        if width:
            # a reduction accumulates each vector of outputs in one register: one dependent chain of
            # FMAs, and one short read per weight row of a GEMV.  A few vectors side by side (while
            # the outer loops still give enough tasks) are independent chains and read longer runs:
            # the classifier's 1x1024 @ 1024x1000 took 0.18 ms cold with one vector, 0.11 with five (Zen 5)
            rows = math.prod(int(sch.get(l).extent) for l in spatial[:-1]) * (last // width)
            side = next((u for u in (5, 4, 3, 2) if reduce and (last // width) % u == 0
                         and rows // u >= GENERIC_MIN_TASKS), 1)
            if side > 1:
                outer, unrolled, vec = sch.split(spatial[-1], [None, side, width])
            else:
                outer, vec = sch.split(spatial[-1], [None, width])
            spatial = spatial[:-1] + [outer]
            sch.reorder(*spatial, *reduce, *([unrolled] if unrolled is not None else []), vec)
        # without a vector loop, the innermost loop stays serial and only the outer ones are
        # fused and parallel (when they alone give enough tasks): a loop fused through the
        # innermost axis pays int64 div/mod per element -- the integer program's dequantize +
        # transpose + pad kernel (64 x 114 x 114) took 1.0 ms of ResNet-18's 2.8 that way on Zen 5
        outer_only = vec is None and len(spatial) > 2 and \
            math.prod(int(sch.get(l).extent) for l in spatial[:-1]) >= GENERIC_MIN_TASKS
        par = spatial[:-1] if outer_only else spatial
        fused = sch.fuse(*par) if len(par) > 1 else par[0]
        if int(sch.get(fused).extent) > 1:
            sch.parallel(fused)
        if vec is not None:
            sch.vectorize(vec)
        if unrolled is not None:
            sch.unroll(unrolled)
        if reduce:
            sch.decompose_reduction(block, reduce[0])


def schedule_func(func, target, knobs: dict[str, int] | None = None, rules=None):
    """One fused kernel scheduled by rule: (scheduled PrimFunc, what was done).

    ``rules``: more rules, {block name: (rule name, schedule(sch, lanes, registers, knobs))},
    tried first (the integer program's VNNI conv: experiments/int8/vnni_rules.py)."""
    import tvm
    from tvm import s_tir
    lanes, regs = lanes_of(target), vector_registers(target)
    sch = s_tir.Schedule(tvm.IRModule({"main": func}))
    names = _block_names(sch)
    extra = next(((name, rule) for name, rule in (rules or {}).items() if name in names), None)
    if extra is not None:
        rule_name, rule = extra[1]
        info = {"rule": rule_name, **rule(sch, lanes, regs, knobs)}
    elif CONV_BLOCK in names:
        info = {"rule": "conv", **schedule_conv(sch, lanes, regs, knobs)}
    elif DW_BLOCK in names:
        info = {"rule": "depthwise", **schedule_depthwise(sch, lanes, regs, knobs)}
    else:
        schedule_generic(sch, lanes)
        info = {"rule": "generic"}
    info["dtypes"] = [str(param.dtype) for param in func.params]   # inputs, then the output
    return sch.mod["main"], info


def schedule_module(mod, target, knobs_for=None, rules=None):
    """Every PrimFunc of a fused Relax module scheduled by rule; returns (module, per-kernel info).

    ``knobs_for(name, shape)`` may return tile overrides for a conv kernel (the tuned variant)."""
    import tvm
    lanes = lanes_of(target)
    funcs, info = {}, {}
    for gv, func in mod.functions.items():
        if not isinstance(func, tvm.tirx.PrimFunc):
            continue
        # knobs_for sees every kernel; its shape is None where it is not an NCHWc conv (the
        # integer program's packed convs are matched by name)
        knobs = knobs_for(gv.name_hint, conv_shape(func, lanes)) if knobs_for is not None else None
        scheduled, info[gv.name_hint] = schedule_func(func, target, knobs, rules)
        funcs[gv] = scheduled.with_attr("tirx.is_scheduled", True)
    out = mod.clone()   # the input module stays unscheduled (the tuned variant builds it twice)
    for gv, func in funcs.items():
        out.update_func(gv, func)
    return out, info


def build_rules(fused, target, knobs_for=None, rules=None):
    """A fused module scheduled by rule and built: (VM executable, per-kernel info)."""
    import tvm
    from tvm import relax
    from experiments.e2e import tuning
    with target:
        mod, info = schedule_module(fused, target, knobs_for, rules)
        mod = tvm.transform.Sequential(tuning.back_passes(target))(mod)
    return relax.build(mod, target), info


def compile_rules(mod, target, knobs_for=None):
    """The network compiled by rule: (VM executable, per-kernel info)."""
    return build_rules(fuse_rules(mod, target), target, knobs_for)


def tune_network(fused, target, threads: int, limit: int = 32) -> dict[str, Any]:
    """The tuned variant's search: every conv kernel of the fused network timed alone over
    :func:`knob_grid` (at most ``limit`` candidates, the rule's default first), the fastest
    correct one kept.  Returns {"knobs": {kernel: knobs}, "tasks": [per kernel: trials, default
    and best seconds], "trials", "seconds"}."""
    import time
    import tvm
    lanes, regs = lanes_of(target), vector_registers(target)
    t0 = time.perf_counter()
    knobs, tasks = {}, []
    for gv, func in mod_functions(fused):
        shape = conv_shape(func, lanes)
        if shape is None:
            continue
        grid = knob_grid(shape, regs, threads, limit)
        result = tune_kernel(func, target, grid)
        knobs[gv] = result["best"]
        tasks.append({"kernel": gv, "candidates": len(grid),
                      "valid": sum(1 for t in result["trials"] if "seconds" in t),
                      "default_s": result["default_seconds"], "best_s": result["best_seconds"],
                      "best": result["best"], "default": result["default"],
                      "errors": sorted({t["error"] for t in result["trials"] if "error" in t})[:3]})
    del tvm
    return {"knobs": knobs, "tasks": tasks, "trials": sum(t["candidates"] for t in tasks),
            "seconds": time.perf_counter() - t0, "limit": limit}


def faster_network(tuned, default, threads, shape, calls=40, alpha=study_stats.SIGN_ALPHA):
    """Which of two executables of one network to keep: both called in turns on one seeded input
    of ``shape`` (the order flipped every round), paired by round.  "tuned" only when it won
    significantly more rounds than it lost -- a one-sided sign test at ``alpha`` -- and its
    median is lower; a tie or a noise-level lead keeps the rule's default (study.stats.faster_of)."""
    import time
    import numpy as np
    import tvm
    from experiments.e2e import engines
    engines.configure_tvm_threads(threads)
    mains = [engines.tvm_vm(tuned)["main"], engines.tvm_vm(default)["main"]]
    data = tvm.runtime.tensor(np.random.default_rng(0).standard_normal(shape).astype("float32"))
    times = [[], []]
    for i in range(calls + 2):
        for k in ((0, 1) if i % 2 == 0 else (1, 0)):
            t0 = time.perf_counter()
            mains[k](data)
            if i >= 2:   # two warm-up rounds
                times[k].append(time.perf_counter() - t0)
    return dict(study_stats.faster_of(times[0], times[1], alpha), tuned_samples_s=times[0], default_samples_s=times[1])


def mod_functions(mod):
    """(name, PrimFunc) of a module's kernels, in name order (stable across runs)."""
    import tvm
    return sorted(((gv.name_hint, f) for gv, f in mod.functions.items() if isinstance(f, tvm.tirx.PrimFunc)),
                  key=lambda item: item[0])


# --------------------------------------------------------------------------- the rule's knobs


def knob_grid(shape: ConvShape, registers: int, threads: int, limit: int = 32) -> list[dict[str, int]]:
    """The tuned variant's candidates for one convolution: the rule's default first, then its
    neighbours -- channel blocks per tile (1, 2, 4, 8 that divide), pixel tiles that fit the
    registers (the widest three), input blocks inner or outer, and for the outer order twice
    the row tasks -- at most ``limit``, so a task's budget is stated and bounded."""
    default = conv_tiles(shape, registers, threads=threads)
    grid = [default]
    ocs = [d for d in (1, 2, 4, 8) if shape.oc_blocks % d == 0 and d * 2 + d <= registers]
    for oc in ocs:
        fit = sorted((d for d in _divisors(shape.ow) if oc * d + oc <= registers and oc * d >= 8),
                     reverse=True)[:3]
        for ow in fit:
            for ico in (0, 1):
                knobs = {"oc_tile": oc, "ow_tile": ow, "ic_outer": ico}
                cand = conv_tiles(shape, registers, knobs, threads=threads)
                grid.append(cand)
                if ico:
                    rows = [d for d in _divisors(shape.oh) if d > cand["row_tasks"]][:1]
                    grid += [conv_tiles(shape, registers, {**knobs, "row_tasks": r}, threads=threads) for r in rows]
    unique = []
    for cand in grid:
        if cand not in unique:
            unique.append(cand)
    return unique[:limit]


def _random_args(func, seed: int = 0):
    import numpy as np
    import tvm
    rng = np.random.default_rng(seed)
    args = []
    for param in func.params:   # 0.27: a PrimFunc's params are its buffers
        shape, dtype = [int(d) for d in param.shape], str(param.dtype)
        # integers in a range no product of two of them overflows: bytes, accumulators alike
        value = rng.integers(0, 100, size=shape) if dtype.startswith(("int", "uint")) else rng.standard_normal(shape)
        args.append(tvm.runtime.tensor(value.astype(dtype)))
    return args


def tune_kernel(func, target, candidates: list[dict[str, int]], number: int = 1, repeat: int = 15,
                tolerance: float = 1e-4, rules=None) -> dict[str, Any]:
    """Time every candidate schedule of one conv kernel (compiled alone, random inputs, the
    output compared with the first candidate's), keep the fastest correct one.

    Returns {"best": knobs, "trials": [{knobs, seconds (median of ``repeat``), error}], ...}."""
    import numpy as np
    import tvm
    args = _random_args(func)
    reference, trials = None, []
    for knobs in candidates:
        entry = {"knobs": knobs}
        try:
            scheduled, _info = schedule_func(func, target, knobs, rules)
            lib = tvm.compile(tvm.IRModule({"main": scheduled.with_attr("global_symbol", "main")}),
                              target=target).jit()
            out = [tvm.runtime.tensor(np.zeros([int(d) for d in a.shape], str(a.dtype))) for a in args[-1:]]
            call_args = args[:-1] + out
            lib["main"](*call_args)
            got = out[0].numpy().astype("float64")   # integer outputs compared without wrapping
            if reference is None:
                reference = got
            err = float(np.max(np.abs(got - reference)) / max(1e-30, float(np.max(np.abs(reference)))))
            entry["max_rel_err"] = err
            if err > tolerance:
                entry["error"] = f"output differs from the default schedule's (max rel err {err:.1e})"
            else:
                # every argument but the input flushed from the caches before each repeat, as in
                # the network: weights come from memory, the input from the layer before
                timer = lib.time_evaluator("main", tvm.cpu(), number=number, repeat=repeat,
                                           f_preproc="cache_flush_cpu_non_first_arg")
                entry["samples"] = [float(t) for t in timer(*call_args).results]
                entry["seconds"] = float(np.median(entry["samples"]))
        except Exception as exc:   # noqa: BLE001 - a candidate that does not build is a failed trial
            entry["error"] = str(exc).strip().splitlines()[-1][:300] if str(exc).strip() else type(exc).__name__
        trials.append(entry)
    timed = [t for t in trials if "seconds" in t]
    if not timed:
        raise RuntimeError("no candidate schedule of this kernel built and ran: " + trials[0].get("error", "?"))
    best = min(timed, key=lambda t: t["seconds"])
    return {"best": best["knobs"], "default": candidates[0], "trials": trials,
            "default_seconds": trials[0].get("seconds"), "best_seconds": best["seconds"]}
