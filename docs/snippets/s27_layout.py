# 实验封装示意（本项目的目录）：原文建议的 benchmarks/tvm/ 脚本，各自在本项目里由哪个文件承担
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ROLES = {
    "run_baseline.py": "experiments/e2e_models.py",
    "run_relay.py": "experiments/graph_passes.py",
    "run_gemm.py": "experiments/gemm_tvm.py",
    "run_quantization.py": "experiments/int8_quant.py",
    "validate_outputs.py": "experiments/harness.py",
    "summarize_results.py": "reportgen/commands/build.py",
    "configs/cpu-fp32.json": "experiments/configs/standard.yaml",
}
for old, new in ROLES.items():
    assert (ROOT / new).is_file(), new
    print(f"{old:24} -> {new}")
print("all", len(ROLES), "roles exist:", True)

# 期望输出（tests/test_snippets.py 逐行核对）：
# run_gemm.py              -> experiments/gemm_tvm.py
# all 7 roles exist: True
