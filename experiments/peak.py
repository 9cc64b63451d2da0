"""What is this machine's floating-point peak, computed from the CPU and measured?

Seed §21 judged NumPy against a peak computed as clock × SIMD lanes × 2 (FMA).
We compute the same formula from this CPU and also measure it with a small
vector-FMA loop of our own (experiments/kernels/fma_peak.c), on 1 thread and on
all cores. Utilization on the GEMM page is reported against both.
"""
import ctypes
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from experiments import build_c, harness, targets
from study import cases, environment
from study.work import FMA_PIPES, theoretical  # noqa: F401 - the formula is the contract's (reportgen checks it)
from study.family import Family

FAMILY = Family(name="machine_peak", timeout_s={"quick": 300, "standard": 600, "full": 900},
                depends=["experiments/kernels/fma_peak.c"],
                params=("iters", "repeat", "warmup"),
                claims_of={"iters": ["flops_per_call", "iters"], "repeat": [], "warmup": []})   # how long it is timed

SOURCE = Path(__file__).with_name("kernels") / "fma_peak.c"
ELEMENT_BYTES = {"float32": 4, "float64": 8}
# Each lane counts up by 1 per iteration; the count must stay exactly representable
# (float32 has a 24-bit significand: 2**24 + 1 rounds back to 2**24).
MAX_EXACT_ITERS = {"float32": 2 ** 23, "float64": 2 ** 52}

def vector_isas(simd_flags):
    """The vector widths this CPU can run: (name, bytes)."""
    isas = [("avx2", 32)] if "fma" in simd_flags else []
    if "avx512f" in simd_flags:
        isas.append(("avx512", 64))
    return isas


def _load(build_dir, isa, vec_bytes):
    flags = ["-O2", "-march=native", f"-DVEC_BYTES={vec_bytes}", "-ffp-contract=fast"]
    lib, argv = build_c.build_shared(SOURCE, flags, build_dir / isa)
    for name, ctype in (("peak_f32", ctypes.c_float), ("peak_f64", ctypes.c_double)):
        fn = getattr(lib, name)
        fn.restype = ctypes.c_double
        fn.argtypes = [ctypes.c_long, ctype, ctype]
    return lib, argv


def _fma_counts(lib_path, symbol):
    asm = build_c.disassemble(lib_path, symbol)
    counts = {}
    for width in ("xmm", "ymm", "zmm"):
        counts[width] = len(re.findall(rf"vfmadd\w*\s+%{width}", asm))
    return counts


def run(h):
    env = environment.capture()
    build_dir = Path(h.params.get("build_dir") or build_c.private_dir()) / "peak"
    for isa, vec_bytes in vector_isas(env["simd_flags"]):
        lib, argv = _load(build_dir, isa, vec_bytes)
        accumulators = lib.peak_accumulators()
        for dtype in ("float32", "float64"):
            symbol = "peak_f32" if dtype == "float32" else "peak_f64"
            fn = getattr(lib, symbol)
            lanes = vec_bytes // ELEMENT_BYTES[dtype]
            iters = min(int(h.params["iters"]), MAX_EXACT_ITERS[dtype])
            flops_per_call = iters * accumulators * lanes * 2
            expected = float(iters) * accumulators * lanes
            for threads in targets.thread_counts([1, targets.ALL]):
                case = {"dtype": dtype, "isa": isa, "threads": threads, "iters": iters}
                case_id = cases.case_id("machine_peak", dtype=dtype, isa=isa, threads=threads)
                results = []

                def call_all(fn=fn, iters=iters, threads=threads):
                    with ThreadPoolExecutor(threads) as pool:
                        results[:] = list(pool.map(lambda _: fn(iters, 1.0, 1.0), range(threads)))

                def check(_):   # measure() runs at once: the closures see this iteration's values
                    call_all()
                    err = max(abs(r - expected) for r in results)
                    return {"reference": "closed form: every lane ends at iters",
                            "max_abs_err": err, "max_rel_err": err / expected, "threshold": 0.0, "passed": err == 0.0}

                h.measure(case_id, case, check=check, call=lambda _: call_all, time="fixed",
                          mismatch=lambda _: f"lane sum {results} != {expected}",
                          note=lambda o: {"sum_check": "passed" if o.check["passed"] else "failed"},
                          extra=lambda _: {
                              "flops_per_call": flops_per_call * threads,
                              "accumulators": accumulators, "lanes": lanes,
                              "compile_argv": argv[:-4] + ["-shared", "-fPIC", SOURCE.name],
                              "compiler": build_c.compiler_version(),
                              "vector_fma_instructions": _fma_counts(argv[-1], symbol),
                              # none where the CPU's FMA pipes are not known (mcpu=rocketlake: LLVM's name
                              # for a VM that reports a client model number): the page says "unknown"
                              **({"theoretical": theo} if (theo := theoretical(env, dtype, vec_bytes, threads))
                                 else {})})


if __name__ == "__main__":
    harness.main(run)
