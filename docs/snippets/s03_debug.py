# 当前版本建议写法（TVM 0.27）：逐层打印 IR、编译、查看生成的代码（对应原文 §3 的调试路径）
import numpy as np
import tvm
from tvm import relax
from tvm.script import relax as R

@tvm.script.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 8), "float32"), y: R.Tensor((4, 8), "float32")):
        with R.dataflow():
            z = R.nn.relu(R.add(x, y))
            R.output(z)
        return z

mod = Module
print(mod.script())                                    # 代替 mod.astext()：TVMScript 文本
target = tvm.target.Target({"kind": "llvm"})
executable = tvm.compile(mod, target)                  # 代替 tvm.build / relay.build
llvm = [m for m in executable.mod.imports if m.kind == "llvm"]
asm = llvm[0].inspect_source("asm")                    # 代替 lib.get_source()；"ll" 得到 LLVM IR
print("llvm modules:", len(llvm), "asm has code:", len(asm) > 0)

vm = relax.VirtualMachine(executable, tvm.cpu())
x = np.arange(32, dtype="float32").reshape(4, 8) - 16
y = np.ones((4, 8), dtype="float32")
out = vm["main"](tvm.runtime.tensor(x), tvm.runtime.tensor(y)).numpy()
np.testing.assert_allclose(out, np.maximum(x + y, 0))
print("relu(x + y) matches NumPy:", True)

# 期望输出（tests/test_snippets.py 逐行核对）：
# R.nn.relu
# llvm modules: 1 asm has code: True
# relu(x + y) matches NumPy: True
