# 当前版本建议写法（TVM 0.27）：不再从源码构建。安装预编译的 wheel（自带 LLVM），再核对装上的是什么：
#   pip install apache-tvm==0.27.0.post1 apache-tvm-ffi==0.1.14.post1
# 原文要手工把 USE_LLVM 指向 llvm-config；今天由 libinfo 报告 wheel 构建时的选项。
from importlib.metadata import version

import tvm

info = tvm.support.libinfo()
print("tvm", tvm.__version__, "| apache-tvm-ffi", version("apache-tvm-ffi"))
print("USE_LLVM:", info["USE_LLVM"], "| USE_CUDA:", info["USE_CUDA"])
assert tvm.__version__.startswith("0.27"), tvm.__version__
assert version("apache-tvm-ffi") == "0.1.14.post1", "0.1.15.post2 makes tvm.ir.save_json segfault"
assert tvm.target.Target({"kind": "llvm"}).kind.name == "llvm"
print("llvm target available:", True)

# 期望输出（tests/test_snippets.py 逐行核对）：
# tvm 0.27
# USE_LLVM: ON
# llvm target available: True
