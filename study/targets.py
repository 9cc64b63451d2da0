"""What a record says it was compiled for: the TVM target kind and the instruction set (study.work checks them)."""
import json

from study import asm


ISAS = frozenset({"scalar", "generic", "sse", "avx", "avx2", "avx_vnni", "avx512", "avx512_vnni"})
"""The instruction sets a kernel's record may name (experiments.gemm.tvm_ladder.target_isa and the ladder's own
stages): the pages look its peak up by it, and 'avx1024' hid the above-peak warning ('no peak for this ISA')."""


ISA_FROM = "20261201T000000Z"
"""From this run start on, a record that counts its code states the ISA it used (the runs of 2026-11-29 do not): one
left out made the peak goal read 'not measured' and hid the above-peak warning."""


def isa_problems(extra, run_id=""):
    """extra.isa one of ISAS, and the one its code shows where the record counts its code (extra.codegen): the
    ISA of its widest packed FMA (study.asm.fma_isa), or a VNNI one where it counts dot-product instructions.
    A micro-kernel of 64 zmm FMAs relabelled 'scalar' turned the peak goal to 'not measured'."""
    isa, counted = extra.get("isa"), isinstance(extra.get("codegen"), dict)
    if isa is None and counted and str(run_id)[:16] >= ISA_FROM:
        return ["extra.isa: missing (a record that counts its code, extra.codegen, states the ISA of its widest "
                "packed FMA)"]
    if not isinstance(isa, str):
        return []
    if isa not in ISAS:
        return [f"extra.isa: {isa!r:.40} is not an instruction set the study names ({', '.join(sorted(ISAS))})"]
    codegen, dots = extra.get("codegen"), extra.get("dot_instructions")
    if not (isinstance(codegen, dict) and isinstance(codegen.get("fma_packed"), dict)):
        return []
    if isinstance(dots, dict) and any(isinstance(v, int) and v > 0 for v in dots.values()):
        return [] if isa in VNNI else [f"extra.isa: {isa!r}, but the code it counts holds dot-product instructions "
                                       f"({', '.join(sorted(VNNI))})"]
    want = asm.fma_isa(codegen["fma_packed"])
    return [] if isa == want else [f"extra.isa: {isa!r}, but the widest packed FMA of the code it counts "
                                   f"(extra.codegen.fma_packed) is {want!r}'s"]


VNNI = frozenset({"avx512_vnni", "avx_vnni"})


CPU_TARGETS = frozenset({"llvm", "c"})
"""The TVM target kinds a record may name: the harness compiles for the machine's CPU (a GPU kind would be another
device, which run.json's environment does not describe)."""


def _target_value(target):
    """A target as a record writes it, read as the study reads JSON: the object, or None (not JSON)."""
    from study import strictjson
    if target.lstrip()[:1] in "{[":
        try:
            return strictjson.loads(target)
        except ValueError:
            return None
    return None


def target_kind(target):
    """The kind of a TVM target as a record writes it (a JSON object, or 'kind -opt ...'), or None.  Read as the study
    reads JSON (study.strictjson): a key twice ('"kind": "cuda", ..., "kind": "llvm"' printed the CUDA text while
    the check read the last) or 990 nested '[' (a RecursionError in the check itself) is no kind at all."""
    if target.lstrip()[:1] in "{[":
        value = _target_value(target)
        if not isinstance(value, dict):
            return None
    else:
        value = None
    if isinstance(value, dict):
        return str(value.get("kind"))
    return target.split()[0] if target.split() else None


GPU_GEMM = ("gemm_tvm", "tvm_cuda", "cuda")
"""(family, impl, kind): the one case the study runs on another device kind than the CPU, the CUDA GEMM
(experiments.gemm_tvm.run_cuda); every other record's case names a CPU target if it names one."""


def device_problems(rec, environment):
    """What a record's case says of where it ran, against the study and its run: a target kind (case.target_kind, or
    the kind of case.target) the CPU's unless it is the CUDA GEMM's, and a device reached through RPC (case.via
    'rpc:<key>') the one its run's environment names (environment.rpc.key).  An INT8 record's case forged to
    'target_kind': 'cuda' made the platforms page say the site holds a GPU measurement; 'via': 'rpc:pixel7' that one
    record was measured on a phone; a target_kind of 5 stopped the page in a sort."""
    case = rec.get("case") if isinstance(rec.get("case"), dict) else {}
    out = []
    target = case.get("target")
    kinds = [("case.target_kind", case["target_kind"])] if "target_kind" in case else []
    if isinstance(target, dict):
        kinds.append(("case.target", target.get("kind")))
    elif isinstance(target, str):
        kinds.append(("case.target", target_kind(target)))
    for where, kind in kinds:
        allowed = CPU_TARGETS | ({GPU_GEMM[2]} if (rec.get("experiment"), case.get("impl")) == GPU_GEMM[:2] else set())
        if kind not in allowed:
            out.append(f"{where}: {kind!r:.40} is not a target kind this record's case runs on "
                       f"({', '.join(sorted(allowed))}; only the CUDA GEMM, impl tvm_cuda, runs on a GPU)")
    via = case.get("via")
    if via is not None:
        rpc = (environment or {}).get("rpc") if isinstance(environment, dict) else None
        key = rpc.get("key") if isinstance(rpc, dict) else None
        if not (isinstance(via, str) and key is not None and via == f"rpc:{key}"):
            out.append(f"case.via: {str(via)[:60]!r} is not the device its run reached through RPC "
                       f"(run.json environment.rpc.key: {key!r:.60})")
    return out


AVX2_ONLY = frozenset({"haswell", "broadwell", "skylake", "alderlake", "raptorlake", "meteorlake", "gracemont",
                       "znver1", "znver2", "znver3"})
"""LLVM CPU names with AVX2 and FMA but no AVX-512: what an INT8 record's AVX2 program (extra.avx2_target) may be
compiled for.  'sapphirerapids' was printed as 'the AVX2 target (no AVX-512)'."""


def _mcpu(target):
    """The -mcpu a record's extra.target names (JSON object or 'kind -mcpu=x ...'), or None."""
    value = _target_value(target) if target.lstrip()[:1] in "{[" else None
    if isinstance(value, dict):
        return value.get("mcpu") if isinstance(value.get("mcpu"), str) else None
    found = [w.split("=", 1)[1] for w in target.split() if w.startswith("-mcpu=")]
    return found[0] if len(found) == 1 else None


def extra_problems(extra):
    """What a record's extra says it was compiled or linked for: extra.target a CPU target as TVM writes one; the AVX2
    program's mcpu (extra.avx2_target.mcpu) an AVX2-only CPU and the one its extra.target names; the BLAS kernel
    NumPy used (extra.blas_kernel.architecture) one whose ISA the study knows (study.identity.BLAS_ISA).  An mcpu of
    [1, {...}] was printed as its Python text, and an empty kernel name divided by the peak of 'ISA ?'."""
    from study.identity import BLAS_ISA
    out = []
    target = extra.get("target")
    kind = target_kind(target) if isinstance(target, str) else None
    if isinstance(target, str) and kind is None:
        out.append("extra.target: not a target as TVM writes one (a JSON object, each key once, or 'kind -options')")
    elif kind is not None and kind not in CPU_TARGETS:   # a 'cuda' target on a CPU run: 'the site holds GPU results'
        out.append(f"extra.target: kind {kind!r:.30}, but the study compiles for the CPU it runs on "
                   f"({', '.join(sorted(CPU_TARGETS))}): a record of another device is no record of this machine")
    avx2 = extra.get("avx2_target")
    if isinstance(avx2, dict):
        mcpu, compiled = avx2.get("mcpu"), _mcpu(target) if isinstance(target, str) else None
        if not (isinstance(mcpu, str) and mcpu in AVX2_ONLY):
            out.append(f"extra.avx2_target.mcpu: {mcpu!r:.40} is not an AVX2 CPU without AVX-512 "
                       f"({', '.join(sorted(AVX2_ONLY))})")
        elif mcpu != compiled:
            out.append(f"extra.avx2_target.mcpu: {mcpu!r}, but the record's program was compiled for "
                       f"{compiled!r:.40} (extra.target's mcpu)")
    blas = extra.get("blas_kernel")
    if isinstance(blas, dict):
        arch = blas.get("architecture")
        if not (isinstance(arch, str) and arch.lower() in BLAS_ISA):
            out.append(f"extra.blas_kernel.architecture: {arch!r:.40} is not an OpenBLAS kernel the study knows "
                       f"the ISA of ({', '.join(sorted(BLAS_ISA))}, any case)")
    return out
