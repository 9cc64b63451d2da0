"""What a record says it was compiled for: the TVM target kind and the instruction set (study.work checks them)."""
import json


ISAS = frozenset({"scalar", "generic", "sse", "avx", "avx2", "avx_vnni", "avx512", "avx512_vnni"})
"""The instruction sets a kernel's record may name (experiments.gemm.tvm_ladder.target_isa and the ladder's own
stages): the pages look its peak up by it, and 'avx1024' hid the above-peak warning ('no peak for this ISA')."""


def isa_problems(extra):
    """extra.isa one of ISAS.  (Not tied to the code's registers: on a Sapphire Rapids machine the ladder's target
    reads as AVX2 while LLVM writes 512-bit registers, a real run; a relabel over changed code is a level, TEXT_LEVELS.)"""
    isa = extra.get("isa")
    if isinstance(isa, str) and isa not in ISAS:
        return [f"extra.isa: {isa!r:.40} is not an instruction set the study names ({', '.join(sorted(ISAS))})"]
    return []


CPU_TARGETS = frozenset({"llvm", "c"})
"""The TVM target kinds a record may name: the harness compiles for the machine's CPU (a GPU kind would be another
device, which run.json's environment does not describe)."""


def target_kind(target):
    """The kind of a TVM target as a record writes it (a JSON object, or 'kind -opt ...'), or None."""
    try:
        value = json.loads(target)
    except ValueError:
        value = None
    if isinstance(value, dict):
        return str(value.get("kind"))
    return target.split()[0] if target.split() else None
