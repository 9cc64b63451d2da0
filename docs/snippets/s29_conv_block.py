# 当前版本建议写法（TVM 0.27）：原文的 conv_block（卷积 + 推理 BN + ReLU），用 Relax 的 BlockBuilder 表达
import numpy as np
import tvm
from tvm import relax

def conv_block(bb, data, name, channels, in_channels, kernel_size=(3, 3),
               strides=(1, 1), padding=(1, 1), epsilon=1e-5):
    params = {name + "_weight": relax.Var(name + "_weight", relax.TensorType((channels, in_channels, *kernel_size), "float32"))}
    for suffix in ("_gamma", "_beta", "_moving_mean", "_moving_var"):
        params[name + suffix] = relax.Var(name + suffix, relax.TensorType((channels,), "float32"))
    conv = bb.emit(relax.op.nn.conv2d(data, params[name + "_weight"], strides=strides, padding=padding,
                                      data_layout="NCHW"))
    bn = bb.emit(relax.op.nn.batch_norm(conv, *list(params.values())[1:], axis=1, epsilon=epsilon,
                                        training=False))   # 默认 training=True，推理必须关掉
    return bb.emit(relax.op.nn.relu(bb.emit(relax.TupleGetItem(bn, 0)))), params

data = relax.Var("data", relax.TensorType((1, 3, 224, 224), "float32"))
bb = relax.BlockBuilder()
with bb.function("main"):
    with bb.dataflow():
        act, params = conv_block(bb, data, "graph", 32, 3, strides=(2, 2))
        out = bb.emit_output(act)
    bb.emit_func_output(out, params=[data, *params.values()])
mod = bb.get()
print("output type:", mod["main"].ret_ty)

rng = np.random.default_rng(0)
values = {"graph_weight": rng.standard_normal((32, 3, 3, 3)).astype("float32") * 0.1,
          "graph_gamma": rng.uniform(0.5, 1.5, 32).astype("float32"),
          "graph_beta": rng.standard_normal(32).astype("float32"),
          "graph_moving_mean": rng.standard_normal(32).astype("float32"),
          "graph_moving_var": rng.uniform(0.5, 2.0, 32).astype("float32")}
mod = relax.transform.BindParams("main", {k: tvm.runtime.tensor(v) for k, v in values.items()})(mod)
mod = relax.transform.DecomposeOpsForInference()(mod)   # 推理模式的 BN 拆成基本算子（Relay 的 SimplifyInference）
vm = relax.VirtualMachine(tvm.compile(mod, tvm.target.Target({"kind": "llvm"})), tvm.cpu())
x = rng.standard_normal((1, 3, 224, 224)).astype("float32")
y = vm["main"](tvm.runtime.tensor(x)).numpy()
print("output shape:", y.shape, "| ReLU output non-negative:", bool((y >= 0).all()))

# 期望输出（tests/test_snippets.py 逐行核对）：
# output type: R.Tensor((1, 32, 112, 112), dtype="float32")
# output shape: (1, 32, 112, 112) | ReLU output non-negative: True
