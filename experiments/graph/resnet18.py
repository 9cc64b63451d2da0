"""ResNet-18 v1 for the graph study (§29/§30 on a real network; split from
:mod:`experiments.graph.relax_study`, whose convolution unit it reuses): ImageNet layout, batch 1,
(1,3,224,224) -> (1,1000), weights from a seed bound as constants, and a float64 NumPy reference.
Builds and checks; records and times nothing.
"""
from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable

import numpy as np
import tvm
from tvm import relax
from tvm.relax import transform as rt

from experiments.graph.relax_study import PARAM_NAMES, conv_bn_values, make_module, np_batch_norm, np_conv2d


@dataclasses.dataclass(frozen=True)
class ResNetSpec:
    """ResNet-18 v1 in the ImageNet layout (NCHW / OIHW).

    Stem: 7x7/2 conv (pad 3) + BN + ReLU, then 3x3/2 max pool (pad 1).
    ``stages`` lists ``(channels, stride of the first block)``; each stage has
    ``blocks_per_stage`` BasicBlocks (two 3x3 conv + BN, ReLU after the add);
    a block that changes stride or width gets a 1x1/stride conv + BN shortcut.
    Then global average pool, flatten and a dense layer to ``num_classes``.
    """

    data_shape: tuple[int, int, int, int] = (1, 3, 224, 224)
    stem_channels: int = 64
    stages: tuple[tuple[int, int], ...] = ((64, 1), (128, 2), (256, 2), (512, 2))
    blocks_per_stage: int = 2
    num_classes: int = 1000
    epsilon: float = 1e-5
    dtype: str = "float32"

    @property
    def out_shape(self) -> tuple[int, int]:
        """Shape of the logits: ``(batch, num_classes)``."""
        return (self.data_shape[0], self.num_classes)


@dataclasses.dataclass(frozen=True)
class BasicBlock:
    """One BasicBlock: parameter-name prefix, input and output channels, first stride."""

    name: str
    in_channels: int
    channels: int
    stride: int

    @property
    def has_shortcut_conv(self) -> bool:
        """Whether the shortcut needs a 1x1 conv + BN (stride or width changes)."""
        return self.stride != 1 or self.in_channels != self.channels


def resnet_blocks(spec: ResNetSpec | None = None) -> list[BasicBlock]:
    """The BasicBlocks in network order, named ``layer{stage}_{block}``."""
    spec = spec or ResNetSpec()
    blocks, c_in = [], spec.stem_channels
    for s, (c, stride) in enumerate(spec.stages, start=1):
        for b in range(spec.blocks_per_stage):
            blocks.append(BasicBlock(f"layer{s}_{b}", c_in, c, stride if b == 0 else 1))
            c_in = c
    return blocks


def resnet_conv_layers(spec: ResNetSpec | None = None) -> list[tuple[str, tuple[int, int, int, int]]]:
    """``(prefix, OIHW weight shape)`` of every conv + BN pair, in network order."""
    spec = spec or ResNetSpec()
    layers = [("conv1", (spec.stem_channels, spec.data_shape[1], 7, 7))]
    for blk in resnet_blocks(spec):
        layers.append((f"{blk.name}_conv1", (blk.channels, blk.in_channels, 3, 3)))
        layers.append((f"{blk.name}_conv2", (blk.channels, blk.channels, 3, 3)))
        if blk.has_shortcut_conv:
            layers.append((f"{blk.name}_down", (blk.channels, blk.in_channels, 1, 1)))
    return layers


def resnet18_param_shapes(spec: ResNetSpec | None = None) -> dict[str, tuple[int, ...]]:
    """Parameter name -> shape, in the order the parameters are drawn and bound.

    Per conv: ``{prefix}_weight`` and ``{prefix}_{gamma,beta,moving_mean,moving_var}``;
    then ``fc_weight`` (num_classes, C) and ``fc_bias`` (num_classes,).
    """
    spec = spec or ResNetSpec()
    shapes: dict[str, tuple[int, ...]] = {}
    for prefix, w in resnet_conv_layers(spec):
        shapes[f"{prefix}_weight"] = w
        shapes.update({f"{prefix}_{k}": (w[0],) for k in PARAM_NAMES[1:]})
    shapes["fc_weight"] = (spec.num_classes, spec.stages[-1][0])
    shapes["fc_bias"] = (spec.num_classes,)
    return shapes


def resnet18_params(seed: int = 0, spec: ResNetSpec | None = None) -> dict[str, np.ndarray]:
    """Deterministic ResNet-18 weights from ``seed``.

    Every conv + BN pair is drawn by :func:`conv_bn_values` (He-normal weight,
    non-trivial statistics with positive variance); the dense layer has
    weight ~ N(0, 1/C) and bias ~ N(0, 0.01^2).
    """
    spec = spec or ResNetSpec()
    rng = np.random.default_rng([seed, 2])
    values: dict[str, np.ndarray] = {}
    for prefix, shape in resnet_conv_layers(spec):
        values.update({f"{prefix}_{k}": v for k, v in conv_bn_values(rng, shape).items()})
    c = spec.stages[-1][0]
    values["fc_weight"] = rng.standard_normal((spec.num_classes, c)) / np.sqrt(c)
    values["fc_bias"] = rng.normal(0.0, 0.01, spec.num_classes)
    return {k: v.astype(spec.dtype) for k, v in values.items()}


def resnet18_input(seed: int = 0, spec: ResNetSpec | None = None) -> np.ndarray:
    """A deterministic ResNet-18 input (standard normal, ``spec.data_shape``)."""
    spec = spec or ResNetSpec()
    return np.random.default_rng([seed, 3]).standard_normal(spec.data_shape).astype(spec.dtype)


def _emit_conv_bn(bb: relax.BlockBuilder, x: relax.Expr, w: dict[str, relax.Var], prefix: str,
                  stride: int, padding: int, epsilon: float, relu: bool = True) -> relax.Expr:
    """conv2d -> batch_norm(training=False)[0] (-> relu) with the ``prefix`` parameters."""
    conv = bb.emit(relax.op.nn.conv2d(x, w[f"{prefix}_weight"], strides=stride, padding=padding))
    stats = [w[f"{prefix}_{k}"] for k in PARAM_NAMES[1:]]
    bn = bb.emit(relax.op.nn.batch_norm(conv, *stats, axis=1, epsilon=epsilon, training=False))
    out = bb.emit(relax.TupleGetItem(bn, 0))
    return bb.emit(relax.op.nn.relu(out)) if relu else out


def _emit_basic_block(bb: relax.BlockBuilder, x: relax.Expr, w: dict[str, relax.Var],
                      blk: BasicBlock, epsilon: float) -> relax.Expr:
    """relu(conv_bn(relu(conv_bn(x))) + shortcut(x)) for one BasicBlock."""
    y = _emit_conv_bn(bb, x, w, f"{blk.name}_conv1", blk.stride, 1, epsilon)
    y = _emit_conv_bn(bb, y, w, f"{blk.name}_conv2", 1, 1, epsilon, relu=False)
    if blk.has_shortcut_conv:
        x = _emit_conv_bn(bb, x, w, f"{blk.name}_down", blk.stride, 0, epsilon, relu=False)
    return bb.emit(relax.op.nn.relu(bb.emit(relax.op.add(y, x))))


def resnet18_unbound(spec: ResNetSpec | None = None) -> tvm.IRModule:
    """ResNet-18 as one Relax ``main(data, *params)``; parameters named as in
    :func:`resnet18_param_shapes`, every batch norm with ``training=False``."""
    spec = spec or ResNetSpec()
    shapes = resnet18_param_shapes(spec)
    inputs = [("data", spec.data_shape, spec.dtype)] + [(n, s, spec.dtype) for n, s in shapes.items()]

    def body(bb, data, *weights):
        w = dict(zip(shapes, weights, strict=True))
        x = _emit_conv_bn(bb, data, w, "conv1", 2, 3, spec.epsilon)
        x = bb.emit(relax.op.nn.max_pool2d(x, pool_size=3, strides=2, padding=1))
        for blk in resnet_blocks(spec):
            x = _emit_basic_block(bb, x, w, blk, spec.epsilon)
        x = bb.emit(relax.op.nn.adaptive_avg_pool2d(x, output_size=1))
        x = bb.emit(relax.op.reshape(x, (spec.data_shape[0], spec.stages[-1][0])))
        return bb.emit(relax.op.linear(x, w["fc_weight"], w["fc_bias"]))

    return make_module(inputs, body)


def np_max_pool2d(x: np.ndarray, size: int, stride: int, padding: int) -> np.ndarray:
    """NCHW max pooling with -inf padding (square window)."""
    n, c, h, w = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (padding, padding), (padding, padding)), constant_values=-np.inf)
    oh, ow = (h + 2 * padding - size) // stride + 1, (w + 2 * padding - size) // stride + 1
    out = np.full((n, c, oh, ow), -np.inf, dtype=x.dtype)
    for i in range(size):
        for j in range(size):
            out = np.maximum(out, xp[:, :, i:i + stride * oh:stride, j:j + stride * ow:stride])
    return out


def resnet18_reference(data: np.ndarray, params: dict[str, np.ndarray],
                       spec: ResNetSpec | None = None) -> np.ndarray:
    """Pure-NumPy ResNet-18 (im2col convs, inference BN), float64 math, float32 result."""
    spec = spec or ResNetSpec()

    def conv_bn(x, prefix, stride, padding, relu=True):
        y = np_conv2d(x, params[f"{prefix}_weight"], (stride, stride), (padding, padding))
        y = np_batch_norm(y, params, spec.epsilon, prefix=f"{prefix}_")
        return np.maximum(y, 0.0) if relu else y

    x = np_max_pool2d(conv_bn(data.astype(np.float64), "conv1", 2, 3), 3, 2, 1)
    for blk in resnet_blocks(spec):
        y = conv_bn(conv_bn(x, f"{blk.name}_conv1", blk.stride, 1), f"{blk.name}_conv2", 1, 1, relu=False)
        shortcut = conv_bn(x, f"{blk.name}_down", blk.stride, 0, relu=False) if blk.has_shortcut_conv else x
        x = np.maximum(y + shortcut, 0.0)
    logits = x.mean(axis=(2, 3)) @ params["fc_weight"].astype(np.float64).T + params["fc_bias"]
    return logits.astype(spec.dtype)


def resnet18(seed: int = 0, spec: ResNetSpec | None = None
             ) -> tuple[tvm.IRModule, Callable[[np.ndarray], np.ndarray]]:
    """ResNet-18 with its weights (:func:`resnet18_params`) bound by ``BindParams``.

    Returns ``(mod, reference)``: ``mod.main`` takes only ``data`` and returns
    ``(1, num_classes)`` logits; ``reference(data)`` is :func:`resnet18_reference`
    on the same weights (float64 NumPy).  The per-step study checks the
    imported step against ``reference`` and every later step against the
    imported step's compiled output (same input), so a step is judged by what
    its passes changed, not by float32-vs-float64 drift.
    """
    spec = spec or ResNetSpec()
    params = resnet18_params(seed, spec)
    bound = {k: tvm.runtime.tensor(v) for k, v in params.items()}
    mod = rt.BindParams("main", bound)(resnet18_unbound(spec))
    return mod, functools.partial(resnet18_reference, params=params, spec=spec)
