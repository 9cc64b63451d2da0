"""Which machine a figure belongs to: a hardware id and an ISA label, from an environment dict.

Pure functions of the environment that `study.environment.capture()` records, used on
both sides: experiments stamp them into run.json, reportgen recomputes them from any manifest
(runs recorded before this rule included), so one machine has one id whichever code wrote it.

VM images share their DMI / machine-id uuid, and CPUs of different generations may all call
themselves "AMD EPYC", so the id is built from the CPU's vendor, model name, family/model, ISA
flags, core count and memory (rounded to GiB; the exact byte count moves with kernel
reservations).  Names, uuids and times do not enter it.
"""
import hashlib
import json

MACHINE_FIELDS = ("cpu_vendor", "cpu_model", "cpu_family_model", "simd_flags", "logical_cores")


def memory_gib(env):
    memory = env.get("memory_bytes")
    return round(memory / 2**30) if isinstance(memory, (int, float)) else None


def machine_id(env):
    """12 hex digits that change whenever the hardware does."""
    key = {k: env.get(k) for k in MACHINE_FIELDS}
    key["memory_gib"] = memory_gib(env)
    return hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:12]


LEGACY_BEFORE = "20261201T000000Z"
"""Runs started before this second (their id's time) may carry legacy_machine_id; later ones never do."""


def legacy_machine_id(env):
    """The id runs recorded before the rule above (1 Dec 2026) were stamped with: CPU model, cores,
    caches, exact memory and the VM's machine uuid."""
    key = json.dumps([env.get("cpu_model"), env.get("logical_cores"), env.get("caches"),
                      env.get("memory_bytes"), env.get("machine_uuid")], sort_keys=True)
    return hashlib.sha256(key.encode()).hexdigest()[:12]


def stamped_ids(env):
    """The ids a run of this environment may be stamped with (its run id's machine part, and its
    environment.machine_id): today's rule, or the one older runs were written under."""
    return machine_id(env), legacy_machine_id(env)


def isa_level(env):
    """The widest vector ISA the CPU offers: avx512-vnni, avx512, avx2-vnni, avx2 or sse."""
    flags = set(env.get("simd_flags") or [])
    if "avx512f" in flags:
        return "avx512-vnni" if "avx512_vnni" in flags else "avx512"
    if {"avx2", "fma"} <= flags:
        return "avx2-vnni" if "avx_vnni" in flags else "avx2"
    return "sse"


def cpu_name(env):
    """A readable CPU name: the model string plus the LLVM CPU name TVM compiles for."""
    mcpu = (env.get("tvm_target") or {}).get("mcpu")
    model = env.get("cpu_model") or "unknown CPU"
    return f"{model} ({mcpu})" if mcpu and mcpu not in model else model


# OpenBLAS kernel names (threadpoolctl's "architecture") and the vector ISA their GEMM uses.
BLAS_ISA = {"skylakex": "avx512", "cooperlake": "avx512", "sapphirerapids": "avx512",
            "haswell": "avx2", "zen": "avx2", "sandybridge": "avx", "nehalem": "sse", "core2": "sse",
            "prescott": "sse"}


def kernel_isa(extra):
    """The vector ISA a measured kernel actually ran, from its record's ``extra``, or None.

    In order: an explicit ``isa``; the BLAS kernel NumPy used; the widest register of the packed
    FMAs counted in its machine code (``vector_fma_instructions`` / ``codegen.fma_packed``).
    """
    if extra.get("isa"):
        return str(extra["isa"])
    blas = extra.get("blas_kernel") or {}
    if blas.get("architecture"):
        return BLAS_ISA.get(str(blas["architecture"]).lower())
    counts = extra.get("vector_fma_instructions") or (extra.get("codegen") or {}).get("fma_packed") or {}
    for reg, isa in (("zmm", "avx512"), ("ymm", "avx2")):
        if any(reg in str(k) and v for k, v in counts.items()):
            return isa
    return None
