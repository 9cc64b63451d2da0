"""What a compiled kernel's assembly shows: FMA instructions by precision and the widest SIMD
register they use, and the integer dot-product instructions.  Reads text only; builds nothing.

The GEMM experiment counts them when it compiles a stage (experiments.gemm.tvm_ladder re-exports
``codegen_evidence``) and the report counts them again from the assembly the record cites
(reportgen.data.searchfacts): a record's counts are its listing's."""
from __future__ import annotations

import re
from collections import Counter
from typing import Any


_FMA_RE = re.compile(r"^vf(?:n)?m(?:add|sub|addsub|subadd)(?:132|213|231)?(ps|pd|ss|sd)$")
_REGISTER_RE = re.compile(r"%([xyz]mm)\d+")
_WIDTH_ORDER = ("xmm", "ymm", "zmm")


def _instructions(asm: str):
    """Yield (mnemonic, widest SIMD register or None) for every instruction line."""
    for line in asm.splitlines():
        text = line.split("#", 1)[0].strip()
        if not text or text.startswith(".") or text.endswith(":"):
            continue
        mnemonic, *operands = text.split(None, 1)
        registers = _REGISTER_RE.findall(operands[0] if operands else "")
        widest = max(registers, key=_WIDTH_ORDER.index) if registers else None
        yield mnemonic, widest


def codegen_evidence(asm: str) -> dict[str, Any]:
    """Static instruction counts from an x86 AT&T assembly listing.

    * ``fma_packed``: packed FMAs (``vfmadd*ps/pd``...) by widest register (xmm/ymm/zmm);
    * ``fma_scalar``: scalar FMAs (``*ss/sd``, they use xmm but do one lane);
    * ``vector_ops``: other non-scalar instructions touching SIMD registers, by widest register;
    * ``scalar_simd_ops``: other scalar-float instructions (``*ss/*sd``, e.g. vmovss, vaddss);
    * ``top_vector_mnemonics``: the most frequent of those;
    * ``widest_register``: widest SIMD register in the listing (None if none).
    Counts are of instructions in the code (static), not executions.
    """
    fma_packed = Counter({width: 0 for width in _WIDTH_ORDER})
    vector_ops = Counter({width: 0 for width in _WIDTH_ORDER})
    fma_scalar = scalar_ops = 0
    mnemonics: Counter = Counter()
    widths_seen: set[str] = set()
    for mnemonic, widest in _instructions(asm):
        if widest is None:
            continue
        widths_seen.add(widest)
        fma = _FMA_RE.match(mnemonic)
        if fma and fma.group(1) in ("ss", "sd"):
            fma_scalar += 1
        elif fma:
            fma_packed[widest] += 1
        elif mnemonic.endswith(("ss", "sd")):
            scalar_ops += 1
        else:
            vector_ops[widest] += 1
            mnemonics[f"{mnemonic}:{widest}"] += 1
    widest_register = max(widths_seen, key=_WIDTH_ORDER.index) if widths_seen else None
    return {
        "fma_packed": dict(fma_packed),
        "fma_scalar": fma_scalar,
        "vector_ops": dict(vector_ops),
        "scalar_simd_ops": scalar_ops,
        "top_vector_mnemonics": dict(mnemonics.most_common(10)),
        "widest_register": widest_register,
        "has_ymm_fma": fma_packed["ymm"] > 0,
        "has_zmm": "zmm" in widths_seen,
    }


DOT_MNEMONICS = ("vpdpbusd", "vpdpbusds", "vpmaddubsw", "vpmaddwd")
"""The integer dot-product instructions a VNNI (or AVX2) INT8 kernel is built from."""


def dot_counts(asm: str) -> dict[str, int]:
    """Static counts of the integer dot-product instructions in an assembly listing."""
    counts = dict.fromkeys(DOT_MNEMONICS, 0)
    for line in asm.splitlines():
        text = line.split("#", 1)[0].strip()
        if not text:
            continue
        mnemonic = text.split(None, 1)[0]
        if mnemonic in counts:
            counts[mnemonic] += 1
    return counts


FMA_ISAS = (("zmm", "avx512"), ("ymm", "avx2"), ("xmm", "sse"))


def fma_isa(fma_packed) -> str:
    """The instruction set a kernel's FP math used: that of its widest packed FMA (zmm: avx512, ymm: avx2,
    xmm: sse), 'scalar' with none.  Not its widest register: a blocked loop whose FMAs are all ymm moves its
    data through zmm on an AVX-512 machine, and its peak is AVX2's."""
    counts = fma_packed if isinstance(fma_packed, dict) else {}
    return next((isa for register, isa in FMA_ISAS if counts.get(register)), "scalar")


def listing_base(case):
    """The name (without suffix) a GEMM case's files are written under: '<stage>-<m>x<n>x<k>-t<threads>'.  The
    experiment writes its assembly as '<base>.s' and the report holds a record's cited listing to it (a searched
    stage cited the micro-kernel's listing and copied its counts)."""
    return f"{case.get('stage')}-{case.get('m')}x{case.get('n')}x{case.get('k')}-t{case.get('threads')}"
