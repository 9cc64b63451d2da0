# 当前版本建议写法（TVM 0.27）：代替 relay.build(mod, target, params)——绑定参数、选流水线、tvm.compile
import numpy as np
import tvm
from tvm import relax
from tvm.script import relax as R

@tvm.script.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 16), "float32"), w: R.Tensor((16, 8), "float32"), b: R.Tensor((8,), "float32")):
        with R.dataflow():
            y = R.nn.relu(R.add(R.matmul(x, w), b))
            R.output(y)
        return y

rng = np.random.default_rng(0)
params = {"w": rng.standard_normal((16, 8)).astype("float32"), "b": rng.standard_normal(8).astype("float32")}
mod = relax.transform.BindParams("main", {k: tvm.runtime.tensor(v) for k, v in params.items()})(Module)

target = tvm.target.Target({"kind": "llvm"})
pipeline = relax.get_default_pipeline(target)          # 合法化 + FoldConstant + FuseOps + FuseTIR + 降级
with tvm.transform.PassContext(opt_level=3):
    executable = tvm.compile(mod, target, relax_pipeline=pipeline)
vm = relax.VirtualMachine(executable, tvm.cpu())       # 代替 graph runtime

x = rng.standard_normal((2, 16)).astype("float32")
out = vm["main"](tvm.runtime.tensor(x)).numpy()
np.testing.assert_allclose(out, np.maximum(x @ params["w"] + params["b"], 0), rtol=1e-5, atol=1e-5)
print("output shape:", out.shape, "matches NumPy:", True)

# 融合的证据：同一流水线在编译前的模块上，matmul、add、relu 合成了一个 PrimFunc
fused = pipeline(mod)
prims = [gv.name_hint for gv, f in fused.functions_items() if isinstance(f, tvm.tirx.PrimFunc)]
print("PrimFuncs after the default pipeline:", len(prims))

# 期望输出（tests/test_snippets.py 逐行核对）：
# output shape: (2, 8) matches NumPy: True
# PrimFuncs after the default pipeline: 1
