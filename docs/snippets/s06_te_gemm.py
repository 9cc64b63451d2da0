# 当前版本建议写法（TVM 0.27）：用 te.compute 描述 GEMM，再用 te.create_prim_func 变成 TensorIR
# 原文用 1024³；这里用小形状，只为让示例几秒内跑完。
import numpy as np
import tvm
from tvm import te

M, N, K = 64, 48, 32
A = te.placeholder((M, K), name="A")
B = te.placeholder((K, N), name="B")
k = te.reduce_axis((0, K), name="k")
C = te.compute((M, N), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")

func = te.create_prim_func([A, B, C])                 # 只描述“算什么”：一个没有调度的 PrimFunc
mod = tvm.IRModule({"mmult": func.with_attr("global_symbol", "mmult")})
print(mod.script())

lib = tvm.compile(mod, tvm.target.Target({"kind": "llvm"}))
a = np.random.default_rng(0).standard_normal((M, K)).astype("float32")
b = np.random.default_rng(1).standard_normal((K, N)).astype("float32")
c = tvm.runtime.tensor(np.zeros((M, N), dtype="float32"))
lib["mmult"](tvm.runtime.tensor(a), tvm.runtime.tensor(b), c)
np.testing.assert_allclose(c.numpy(), a @ b, rtol=1e-4, atol=1e-4)
print("C = A @ B matches NumPy:", True)

# 期望输出（tests/test_snippets.py 逐行核对）：
# T.sblock("C")
# C = A @ B matches NumPy: True
