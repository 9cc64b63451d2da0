"""Does each step of the hand-optimization ladder (seed §22) still pay on this CPU?

Our own C re-creation of the historical ladder (experiments/gemm/hand_kernels.c),
FP64 like the original table, plus rows the original could not have (AVX2
8×6 micro-kernel, AVX-512 where the CPU has it). Every kernel is checked
against NumPy before it is timed; its machine code is searched for vector FMA
instructions so "uses FMA" is shown, not assumed.
"""
from pathlib import Path

import numpy as np

from experiments import build_c, harness
from experiments.gemm import hand
from study import cases
from study.family import Family

FAMILY = Family(name="gemm_hand", timeout_s={"quick": 600, "standard": 3600, "full": 7200},
                depends=["experiments/gemm/hand_kernels.c"],
                params=("budget_s", "min_repeat", "min_sample_s", "repeat", "seed", "sizes", "warmup"),
                claims_of={"warmup": [], "repeat": [], "min_repeat": [], "min_sample_s": [], "budget_s": [], "sizes": []})   # timing; which cases


def _evidence(built, name):
    return hand.count_vector_fma(hand.disassemble(built, name))


def _case(row, n):
    return cases.case_id("gemm_hand", kernel=row["name"], n=n), {"kernel": row["name"], "dtype": "float64", "n": n, "threads": 1}


def run(h):
    p = h.params
    built = hand.build(Path(p.get("build_dir") or build_c.private_dir()) / "hand")
    h.say(f"built {built.so_path.name} with {built.compiler}; skipped: {built.skipped or 'none'}")
    for row in hand.LADDER:
        name = row["name"]
        evidence = _evidence(built, name) if name in built.available else None
        for n in p["sizes"]:
            case_id, case = _case(row, n)
            extra = {"flops_per_call": 2 * n ** 3, "historical_row": row["historical_row"]}
            if name not in built.available:
                h.skip(case_id, case, built.skipped[name], extra=extra)
                continue
            rng = np.random.default_rng(p["seed"])
            a, b = rng.standard_normal((n, n)), rng.standard_normal((n, n))
            c = np.zeros((n, n))
            h.measure(case_id, case,
                      check=lambda _: dict(hand.check(built, name, n, n, n, p["seed"]),
                                                           reference="NumPy float64 C0 + A@B"),
                      call=lambda _: lambda: hand.run(built, name, a, b, c),
                      mismatch="kernel result differs from NumPy",
                      note=lambda o: {"gflops": 2 * n ** 3 / o.p50() / 1e9, "rel_err": o.check["max_rel_err"]},
                      extra=dict(extra, compile_flags=built.flags[name], compiler=built.compiler,
                                 vector_fma_instructions=evidence))


if __name__ == "__main__":
    harness.main(run)
