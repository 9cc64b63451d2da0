# 当前版本建议写法（TVM 0.27）：代替 te.create_schedule——在 TensorIR 上用 tvm.s_tir.Schedule 分块与重排
import numpy as np
import tvm
from tvm import s_tir, te

M, N, K = 64, 64, 64
tile_m, tile_n, tile_k = 16, 16, 8
A = te.placeholder((M, K), name="A")
B = te.placeholder((K, N), name="B")
k = te.reduce_axis((0, K), name="k")
C = te.compute((M, N), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")

sch = s_tir.Schedule(te.create_prim_func([A, B, C]))
block = sch.get_sblock("C")
i, j, kk = sch.get_loops(block)
yo, yi = sch.split(i, factors=[None, tile_m])
xo, xi = sch.split(j, factors=[None, tile_n])
ko, ki = sch.split(kk, factors=[None, tile_k])
sch.reorder(yo, xo, ko, yi, ki, xi)                    # 原文是 (yo, xo, ko, yi, xi, ki)；把 xi 放最内层以便向量化
sch.vectorize(xi)
print(sch.trace)                                       # 调度轨迹：每个原语及其参数

lib = tvm.compile(sch.mod, tvm.target.Target({"kind": "llvm"}))
a = np.random.default_rng(0).standard_normal((M, K)).astype("float32")
b = np.random.default_rng(1).standard_normal((K, N)).astype("float32")
c = tvm.runtime.tensor(np.zeros((M, N), dtype="float32"))
lib["main"](tvm.runtime.tensor(a), tvm.runtime.tensor(b), c)
np.testing.assert_allclose(c.numpy(), a @ b, rtol=1e-4, atol=1e-4)
print("loops after split:", len(sch.get_loops(block)), "matches NumPy:", True)

# 期望输出（tests/test_snippets.py 逐行核对）：
# sch.reorder
# loops after split: 6 matches NumPy: True
