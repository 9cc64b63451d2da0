# 当前版本建议写法（TVM 0.27）：原文的 my_optimize，逐个换成 Relax 今天的对应 Pass
import numpy as np
import tvm
from tvm import relax
from tvm.script import relax as R

def my_optimize(mod):
    optimize = tvm.transform.Sequential([
        relax.transform.DecomposeOpsForInference(),      # SimplifyInference：推理 BN 拆成基本算子
        relax.transform.CanonicalizeBindings(),          # InferType 已不需要：Relax 在构造时推导类型
        relax.transform.FoldConstant(),                  # FoldConstant
        relax.transform.FoldBatchnormToConv2D(),         # FoldScaleAxis 只剩这个特例（BN 缩放折进卷积）
        relax.transform.CanonicalizeBindings(),          # CanonicalizeOps 没有直接对应，规范化绑定最接近
        relax.transform.FoldConstant(),                  # 再次 FoldConstant
    ])
    return optimize(mod)

@tvm.script.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 4, 8, 8), "float32")):
        with R.dataflow():
            w = R.const(np.random.default_rng(0).standard_normal((4, 4, 3, 3)).astype("float32"))
            g = R.const(np.full(4, 2.0, "float32"))
            b = R.const(np.zeros(4, "float32"))
            m = R.const(np.zeros(4, "float32"))
            v = R.const(np.ones(4, "float32"))
            conv = R.nn.conv2d(x, w, padding=1)
            bn = R.nn.batch_norm(conv, g, b, m, v, axis=1, training=False)
            y = R.nn.relu(bn[0])
            R.output(y)
        return y

optimized_mod = my_optimize(Module)
print(optimized_mod.script(show_meta=False))

target = tvm.target.Target({"kind": "llvm"})
x = np.random.default_rng(1).standard_normal((1, 4, 8, 8)).astype("float32")
run = lambda mod: relax.VirtualMachine(tvm.compile(mod, target), tvm.cpu())["main"](tvm.runtime.tensor(x)).numpy()
np.testing.assert_allclose(run(optimized_mod), run(relax.transform.DecomposeOpsForInference()(Module)), rtol=1e-4, atol=1e-4)
print("batch_norm left:", "batch_norm" in optimized_mod.script(), "| same output as before:", True)

# Pass 的顺序有讲究：BN 已被第一步拆开，FoldBatchnormToConv2D 找不到 batch_norm，什么也没做。
# 把它放到最前面，BN 的缩放折进卷积权重，只剩卷积、一个加法和 ReLU。
folded = tvm.transform.Sequential([relax.transform.FoldBatchnormToConv2D(), relax.transform.FoldConstant(),
                                   relax.transform.DecomposeOpsForInference(), relax.transform.FoldConstant()])(Module)
print("ops, my_optimize order:", [n for n in ("subtract", "divide", "multiply") if f"R.{n}(" in optimized_mod.script()])
print("ops, FoldBatchnormToConv2D first:", [n for n in ("subtract", "divide", "multiply") if f"R.{n}(" in folded.script()])
np.testing.assert_allclose(run(folded), run(optimized_mod), rtol=1e-4, atol=1e-4)

# 期望输出（tests/test_snippets.py 逐行核对）：
# batch_norm left: False | same output as before: True
# ops, my_optimize order: ['subtract', 'divide', 'multiply']
# ops, FoldBatchnormToConv2D first: []
