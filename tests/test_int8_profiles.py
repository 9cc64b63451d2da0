"""Where the integer network's time goes: kernel classes by operand type, and TVM's packed
convolutions paired with ONNX Runtime's QLinearConv nodes of the same convolution."""
from types import SimpleNamespace

from experiments.int8 import profiles
from reportgen.pages import int8_rules


def test_a_kernel_is_integer_only_when_every_buffer_is():
    assert profiles.operands(["uint8", "int8", "int32", "uint8"]) == profiles.INTEGER
    assert profiles.operands(["float32", "float32"]) == profiles.FLOAT
    assert profiles.operands(["float32", "int8"]) == profiles.MIXED   # the input's quantize
    assert profiles.operands(["uint8", "float32"]) == profiles.MIXED  # a dequantize


def _rule(kernels):
    info = {op: {"rule": "vnni_conv", "oc_blocks": o // 16, "ic": i, "kh": k, "kw": k, "oh": s, "ow": s}
            for op, (o, i, k, s, _calls, _sec) in kernels.items()}
    info["max_pool2d"] = {"rule": "generic"}
    profile = [{"op": op, "kind": "kernel", "calls": c, "seconds": sec} for op, (*_, c, sec) in kernels.items()]
    profile.append({"op": "max_pool2d", "kind": "kernel", "calls": 1, "seconds": 1e-5})
    return SimpleNamespace(record={"extra": {"rules": {"kernels": info}, "kernel_profile": profile}})


def _node(name, o, i, k, s, sec, nhwc=True):
    """A QLinearConv row as ORT's profiler gives it: no weight among the inputs (it is prepacked),
    the per-channel weight scale and zero point and the bias of length O."""
    out = [1, s, s, o] if nhwc else [1, o, s, s]
    x = [1, s, s, i] if nhwc else [1, i, s, s]
    return {"node": name, "op": "QLinearConv", "inputs": [x, [], [], [o], [o], [], [], [o]],
            "outputs": [out], "seconds": sec}


def test_convolutions_pair_by_shape_padding_included_and_no_node_counts_twice():
    rule = _rule({"stem": (64, 4, 7, 112, 1, 3e-4), "c56": (64, 64, 3, 56, 2, 4e-4), "c7": (512, 512, 3, 7, 1, 2e-4),
                  "down3": (128, 64, 3, 28, 1, 1e-4), "down1": (128, 64, 1, 28, 1, 2e-5)})
    ort = SimpleNamespace(record={"extra": {"node_profile": [
        _node("n_stem", 64, 3, 7, 112, 9e-4),                  # RGB: 3 input channels, TVM pads to 4
        _node("n_a", 64, 64, 3, 56, 1e-4), _node("n_b", 64, 64, 3, 56, 1.5e-4, nhwc=False),
        _node("n_c", 64, 64, 3, 56, 5e-5),                     # a third node of that shape: TVM called it twice
        _node("n_d3", 128, 64, 3, 28, 8e-5), _node("n_d1", 128, 64, 1, 28, 1e-5),
        {"node": "pool", "op": "MaxPool", "inputs": [[1, 112, 112, 64]], "outputs": [[1, 56, 56, 64]], "seconds": 1e-4}]}})
    rows = dict(int8_rules.conv_rows(rule, ort))
    assert set(rows) == {(64, 3, 112, 112), (64, 64, 56, 56), (512, 512, 7, 7), (128, 64, 28, 28)}
    assert rows[(64, 3, 112, 112)]["nodes"] == {"n_stem": 9e-4}
    assert rows[(64, 64, 56, 56)]["nodes"] == {"n_a": 1e-4, "n_b": 1.5e-4}
    assert rows[(64, 64, 56, 56)]["count"] == 2
    assert rows[(512, 512, 7, 7)]["nodes"] == {}          # no ORT node of that shape: shown as "—"
    # ORT's profile has no kernel sizes: the 3x3 and 1x1 convs of one shape share a row, both sides summed
    assert rows[(128, 64, 28, 28)]["nodes"] == {"n_d3": 8e-5, "n_d1": 1e-5}
    assert rows[(128, 64, 28, 28)]["sizes"] == ["3×3", "1×1"] and rows[(128, 64, 28, 28)]["count"] == 2
