# 当前版本建议写法（TVM 0.27）：Hello Relax——用 BlockBuilder 构造 x + 1，打印 IR，编译，查看生成代码
import numpy as np
import tvm
from tvm import relax

x = relax.Var("x", relax.TensorType((), "int64"))
bb = relax.BlockBuilder()
with bb.function("main", [x]):
    add = bb.emit(relax.op.add(x, relax.const(1, "int64")))
    bb.emit_func_output(add)
mod = bb.get()                                         # 代替 relay.Module.from_expr(func)
print(mod.script())                                    # 代替 mod.astext(show_meta_data=False)

executable = tvm.compile(mod, tvm.target.Target({"kind": "llvm"}))   # 代替 relay.build：没有 graph/params 三元组
print(executable.as_text())                            # VM 字节码：代替 print(graph)
llvm = [m for m in executable.mod.imports if m.kind == "llvm"][0]
print("LLVM IR lines:", len(llvm.inspect_source("ll").splitlines()) > 0)   # 代替 lib.get_source()

vm = relax.VirtualMachine(executable, tvm.cpu())
print("main(41) =", vm["main"](tvm.runtime.tensor(np.array(41, dtype="int64"))).numpy())

# 期望输出（tests/test_snippets.py 逐行核对）：
# R.add(x, R.const(1, "int64"))
# LLVM IR lines: True
# main(41) = 42
