# 当前版本建议写法（TVM 0.27）：代替 tvm.lower + tvm.build(target='c')——同一个 PrimFunc 生成 C 与 LLVM 代码，
# 并列出本机 TVM 注册的 target 种类和 wheel 编进的运行时（编译器视角一页的目标表由此核对）。
import tvm
from tvm import te

M = K = N = 64                                         # 原文 1024；小形状只为快
k = te.reduce_axis((0, K), "k")
A = te.placeholder((M, K), name="A")
B = te.placeholder((K, N), name="B")
C = te.compute((M, N), lambda x, y: te.sum(A[x, k] * B[k, y], axis=k), name="C")
ir_m = tvm.IRModule({"mmult": te.create_prim_func([A, B, C]).with_attr("global_symbol", "mmult")})
print(ir_m.script())                                   # 代替 tvm.lower(..., simple_mode=True) 的打印

rt_c = tvm.compile(ir_m, tvm.target.Target({"kind": "c"}))
c_source = rt_c.mod.inspect_source()                   # 代替 rt_m.get_source()
print("C source defines mmult:", "mmult" in c_source)
rt_llvm = tvm.compile(ir_m, tvm.target.Target({"kind": "llvm"}))
print("LLVM IR defines mmult:", "define" in rt_llvm.mod.inspect_source("ll"))

kinds = set(tvm.target.Target.list_kinds())
for kind in ("c", "llvm", "cuda", "opencl", "opengl", "metal", "vulkan"):
    print(f"target kind {kind}: {'yes' if kind in kinds else 'no'}")
info = tvm.support.libinfo()
print("runtimes in this wheel:", {key: info.get(key) for key in ("USE_CUDA", "USE_OPENCL", "USE_METAL", "USE_VULKAN")})

# 期望输出（tests/test_snippets.py 逐行核对）：
# C source defines mmult: True
# LLVM IR defines mmult: True
# target kind opencl: yes
# target kind opengl: no
# target kind vulkan: yes
# runtimes in this wheel: {'USE_CUDA': 'ON', 'USE_OPENCL': 'OFF', 'USE_METAL': 'OFF', 'USE_VULKAN': 'OFF'}
