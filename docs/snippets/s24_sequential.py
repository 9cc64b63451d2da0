# 当前版本建议写法（TVM 0.27）：用 Sequential 串起 Relax 的 Pass，并保存每个阶段的 IRModule
import tvm
from tvm import relax
from tvm.script import relax as R

@tvm.script.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 8), "float32")):
        with R.dataflow():
            c = R.add(R.const(1.0, "float32"), R.const(2.0, "float32"))   # 只依赖常量：可以折叠
            y = R.nn.relu(R.multiply(R.add(x, c), x))
            R.output(y)
        return y

stages = {}

@tvm.transform.module_pass(opt_level=0, name="Snapshot")
def snapshot(mod, ctx):
    stages[f"{len(stages)}"] = mod.script()            # 每个 Pass 之后留一份文本 IR
    return mod

seq = tvm.transform.Sequential([
    relax.transform.LegalizeOps(), snapshot,            # Relax 的 Pass 作用在 TensorIR 之前要先合法化
    relax.transform.FoldConstant(), snapshot,
    relax.transform.AnnotateTIROpPattern(),
    relax.transform.FuseOps(), snapshot,
    relax.transform.FuseTIR(), snapshot,
])
with tvm.transform.PassContext(opt_level=3):
    optimized = seq(Module)
print(optimized.script())

prims = lambda m: sum(isinstance(f, tvm.tirx.PrimFunc) for _, f in m.functions_items())
print("snapshots:", len(stages), "| PrimFuncs:", prims(relax.transform.LegalizeOps()(Module)), "->", prims(optimized))
print("constant folded:", "R.const(3" in stages["1"])

# 期望输出（tests/test_snippets.py 逐行核对）：
# snapshots: 4 | PrimFuncs: 4 -> 1
# constant folded: True
