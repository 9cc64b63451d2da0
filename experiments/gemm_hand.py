"""Does each step of the hand-optimization ladder (seed §22) still pay on this CPU?

Our own C re-creation of the historical ladder (experiments/gemm/hand_kernels.c),
FP64 like the original table, plus rows the original could not have (AVX2
8×6 micro-kernel, AVX-512 where the CPU has it). Every kernel is checked
against NumPy before it is timed; its machine code is searched for vector FMA
instructions so "uses FMA" is shown, not assumed.
"""
from pathlib import Path

import numpy as np

from experiments import harness
from experiments.gemm import hand


def _evidence(built, name):
    return hand.count_vector_fma(hand.disassemble(built, name))


def _skipped(h, row, n, reason):
    case = {"kernel": row["name"], "dtype": "float64", "n": n, "threads": 1}
    h.emit_unmeasured(case_id=f"gemm_hand/kernel={row['name']}/n={n}", case=case, status="skipped", error=reason,
                      extra={"historical_row": row["historical_row"], "optimizations": row["optimizations"],
                             "flops_per_call": 2 * n ** 3})


def run(h):
    p = h.params
    built = hand.build(Path(p.get("build_dir", ".cache/build")) / "hand")
    h.say(f"built {built.so_path.name} with {built.compiler}; skipped: {built.skipped or 'none'}")
    for row in hand.LADDER:
        name = row["name"]
        evidence = _evidence(built, name) if name in built.available else None
        for n in p["sizes"]:
            if name not in built.available:
                _skipped(h, row, n, built.skipped[name])
                continue
            case = {"kernel": name, "dtype": "float64", "n": n, "threads": 1}
            case_id = f"gemm_hand/kernel={name}/n={n}"
            old = h.reusable(case_id, case)
            if old:
                h.emit_reused(old)
                continue
            first = h.line() + 1
            check = dict(hand.check(built, name, n, n, n, p["seed"]), reference="NumPy float64 C0 + A@B")
            rng = np.random.default_rng(p["seed"])
            a, b = rng.standard_normal((n, n)), rng.standard_normal((n, n))
            c = np.zeros((n, n))
            call = lambda: hand.run(built, name, a, b, c)  # noqa: E731
            samples, number = harness.sample(call, p) if check["passed"] else ([], 0)
            gflops = 2 * n ** 3 / sorted(samples)[len(samples) // 2] / 1e9 if samples else 0
            h.say(f"{case_id}: ~{gflops:.2f} GFLOPS, rel err {check['max_rel_err']:.1e}")
            h.emit(case_id=case_id, case=case, metric="time_per_call", unit="s", samples=samples,
                   warmup=p["warmup"] if samples else 0, number=number, check=check, first_line=first,
                   status="ok" if check["passed"] else "check_failed",
                   error=None if check["passed"] else "kernel result differs from NumPy",
                   extra={"flops_per_call": 2 * n ** 3, "historical_row": row["historical_row"],
                          "optimizations": row["optimizations"], "compile_flags": built.flags[name],
                          "compiler": built.compiler, "vector_fma_instructions": evidence})


if __name__ == "__main__":
    harness.main(run)
