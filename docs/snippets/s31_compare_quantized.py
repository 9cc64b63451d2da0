# 实验封装示意（TVM 0.27）：原文 compare_quantized 的结构，三个封装函数在这里都有一个能运行的最小实现。
# 模型只是一层全连接；真正的整数路径（卷积、残差、定点重量化）在 experiments/int8/quantize.py。
import numpy as np
import tvm
from tvm import relax

TARGET = tvm.target.Target({"kind": "llvm"})

def dense_module(x_dtype, w, out_dtype):
    x = relax.Var("x", relax.TensorType((4, w.shape[0]), x_dtype))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        y = bb.emit(relax.op.matmul(x, relax.const(w), out_dtype=out_dtype))
        bb.emit_func_output(y)
    return bb.get()

def quantize_with_calibration(w, calibration_data):
    """权重每个输出通道一个对称 int8 尺度；激活一个尺度，取校准数据的最大绝对值。"""
    w_scale = np.abs(w).max(axis=0) / 127.0
    x_scale = float(np.abs(calibration_data).max()) / 127.0
    w_q = np.clip(np.round(w / w_scale), -127, 127).astype("int8")
    return dense_module("int8", w_q, "int32"), x_scale, w_scale

def build_and_benchmark(mod, inputs, number=20):
    vm = relax.VirtualMachine(tvm.compile(mod, TARGET), tvm.cpu())
    args = [tvm.runtime.tensor(a) for a in inputs]
    seconds = vm.time_evaluator("main", tvm.cpu(), number=number, repeat=3)(*args).median
    return vm["main"](*args).numpy(), seconds

def compare_outputs(reference, other):
    return float(np.abs(reference - other).max() / np.abs(reference).max())

def compare_quantized(w, calibration_data, x):
    fp32_out, fp32_s = build_and_benchmark(dense_module("float32", w, "float32"), [x])
    int8_mod, x_scale, w_scale = quantize_with_calibration(w, calibration_data)
    x_q = np.clip(np.round(x / x_scale), -127, 127).astype("int8")
    acc, int8_s = build_and_benchmark(int8_mod, [x_q])
    int8_out = acc.astype("float32") * x_scale * w_scale           # int32 累加值反量化
    return {"fp32_seconds": fp32_s, "int8_seconds": int8_s, "error": compare_outputs(fp32_out, int8_out),
            "int8_mod": int8_mod}

rng = np.random.default_rng(0)
w = rng.standard_normal((64, 32)).astype("float32")
result = compare_quantized(w, rng.standard_normal((16, 64)).astype("float32"), rng.standard_normal((4, 64)).astype("float32"))
print("int8 matmul accumulates in int32:", 'out_dtype="int32"' in result["int8_mod"].script())
print("max relative error below 0.05:", result["error"] < 0.05)
print("timed both:", result["fp32_seconds"] > 0 and result["int8_seconds"] > 0)

# 期望输出（tests/test_snippets.py 逐行核对）：
# int8 matmul accumulates in int32: True
# max relative error below 0.05: True
# timed both: True
