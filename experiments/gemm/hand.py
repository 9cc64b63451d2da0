"""Hand-optimised FP64 GEMM ladder (our re-creation of "how to optimize GEMM").

Library only: build the C kernels, call them on NumPy arrays, check them,
and inspect their machine code.  No timing harness lives here.

Layout: every C kernel is column-major ``C += A @ B`` (see hand_kernels.c).
``run`` accepts either all-C-order (NumPy default) or all-F-order arrays.
C-order arrays are passed with zero copies through the identity
``(A B)^T = B^T A^T``: a row-major matrix read column-major is its transpose.

Compilation: hand_kernels.c is compiled once per ISA group ("unit"), each
with its own flags, and the objects are linked into one shared library.
All units use ``-fno-tree-vectorize -fno-tree-slp-vectorize`` (GCC >= 12
vectorizes at -O2, which would silently turn the scalar rows into SIMD rows)
and ``-ffp-contract=off`` (no compiler-made FMA), so SIMD and FMA appear
only where the source spells them with intrinsics.
"""

from __future__ import annotations

import ctypes
import hashlib
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

SOURCE = Path(__file__).with_name("hand_kernels.c")

# Ordered ladder.  historical_row is the row name in seed §22 (None = new row); what each kernel
# optimizes is said on the page, in docs/words/gemm.yaml under its name.
LADDER = [
    {"name": "MMult0", "historical_row": "MMult0", "requires": []},
    {"name": "MMult_1x4_5", "historical_row": "MMult_1x4_5", "requires": []},
    {"name": "MMult_1x4_9", "historical_row": "MMult_1x4_9", "requires": []},
    {"name": "MMult_4x4_5", "historical_row": "MMult_4x4_5", "requires": []},
    {"name": "MMult_4x4_9", "historical_row": "MMult_4x4_9", "requires": []},
    {"name": "MMult_4x4_10", "historical_row": "MMult_4x4_10", "requires": ["sse2"]},
    {"name": "MMult_4x4_10_1", "historical_row": "MMult_4x4_10_1", "requires": ["avx", "fma"]},
    {"name": "MMult_4x4_11_1", "historical_row": "MMult_4x4_11_1", "requires": ["avx", "fma"]},
    {"name": "MMult_4x4_15_1", "historical_row": "MMult_4x4_15_1", "requires": ["avx", "fma"]},
    {"name": "MMult_8x6_avx2", "historical_row": None, "requires": ["avx2", "fma"]},
    {"name": "MMult_16x8_avx512", "historical_row": None, "requires": ["avx512f"]},
]

# Flags shared by every unit (see module docstring for why).
COMMON_FLAGS = ["-O2", "-std=c11", "-fPIC", "-Wall", "-march=x86-64",
                "-mtune=native", "-fno-tree-vectorize",
                "-fno-tree-slp-vectorize", "-ffp-contract=off"]

# Compilation units: (group macro, ISA flags added to COMMON_FLAGS, kernels).
UNITS = [
    ("HK_GROUP_SCALAR", [], ["MMult0", "MMult_1x4_5", "MMult_1x4_9",
                             "MMult_4x4_5", "MMult_4x4_9"]),
    ("HK_GROUP_SSE2", [], ["MMult_4x4_10"]),          # SSE2 is in x86-64
    ("HK_GROUP_FMA128", ["-mavx", "-mfma"],
     ["MMult_4x4_10_1", "MMult_4x4_11_1", "MMult_4x4_15_1"]),
    ("HK_GROUP_AVX2", ["-mavx2", "-mfma"], ["MMult_8x6_avx2"]),
    ("HK_GROUP_AVX512", ["-mavx512f"], ["MMult_16x8_avx512"]),
]

_ROW = {row["name"]: row for row in LADDER}
_DOUBLE_P = ctypes.POINTER(ctypes.c_double)
_ARGTYPES = [ctypes.c_int, ctypes.c_int, ctypes.c_int,
             _DOUBLE_P, ctypes.c_int, _DOUBLE_P, ctypes.c_int,
             _DOUBLE_P, ctypes.c_int]


@dataclass
class Built:
    """Result of ``build``: what was compiled, how, and what is callable."""
    so_path: Path
    compiler: str                 # first line of `cc --version`
    commands: list                # exact argv lists, in execution order
    flags: dict                   # kernel name -> compile flags of its unit
    available: list               # kernel names in LADDER order
    skipped: dict                 # kernel name -> reason
    cpu_flags_source: str
    lib: ctypes.CDLL = field(repr=False, compare=False, default=None)


def cpu_flags() -> set:
    """CPU feature flags of this machine, from /proc/cpuinfo (empty if unknown)."""
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return set()
    match = re.search(r"^flags\s*:\s*(.*)$", text, re.MULTILINE)
    return set(match.group(1).split()) if match else set()


def compiler_version(cc: str = "cc") -> str:
    """First line of `cc --version`."""
    out = subprocess.run([cc, "--version"], capture_output=True, text=True,
                         check=True).stdout
    return out.splitlines()[0].strip()


def _sh(argv: list) -> None:
    """Run one build command; raise with its stderr if it fails."""
    res = subprocess.run(argv, capture_output=True, text=True)
    if res.returncode != 0:
        raise RuntimeError(f"build step failed: {' '.join(argv)}\n{res.stderr}")


def _missing_flags(kernels: list, have: set) -> list:
    need = {f for name in kernels for f in _ROW[name]["requires"]}
    return sorted(need - have)


def build(build_dir: Path, cc: str = "cc", *, cpu_flags_override: set | None = None) -> Built:
    """Compile every unit the CPU can run and link them into one .so.

    Units whose kernels need CPU flags this machine lacks are not compiled;
    their kernels go to ``skipped`` with the reason.  ``cpu_flags_override``
    replaces the /proc/cpuinfo flags (for testing the skip logic).
    """
    build_dir = Path(build_dir)
    build_dir.mkdir(parents=True, exist_ok=True)
    have = cpu_flags() if cpu_flags_override is None else set(cpu_flags_override)
    source_desc = "/proc/cpuinfo" if cpu_flags_override is None else "override"
    commands, flags, skipped, objects = [], {}, {}, []
    for macro, isa, kernels in UNITS:
        missing = _missing_flags(kernels, have)
        if missing:
            reason = f"CPU lacks {', '.join(missing)} (flags from {source_desc}); not compiled"
            skipped.update({name: reason for name in kernels})
            continue
        unit_flags = COMMON_FLAGS + isa + [f"-D{macro}"]
        obj = build_dir / f"{macro.lower()}.o"
        commands.append([cc, *unit_flags, "-c", str(SOURCE), "-o", str(obj)])
        flags.update({name: unit_flags for name in kernels})
        objects.append(obj)
    digest = hashlib.sha256(SOURCE.read_bytes() + repr(commands).encode()).hexdigest()[:12]
    so_path = build_dir / f"libhand_{digest}.so"   # unique name: no stale dlopen cache
    commands.append([cc, "-shared", "-o", str(so_path), *map(str, objects)])
    for argv in commands:
        _sh(argv)
    available = [row["name"] for row in LADDER if row["name"] in flags]
    lib = ctypes.CDLL(str(so_path))
    for name in available:
        fn = getattr(lib, name)
        fn.argtypes, fn.restype = _ARGTYPES, ctypes.c_int
    return Built(so_path, compiler_version(cc), commands, flags, available,
                 skipped, source_desc, lib)


def _validate(a, b, c) -> str:
    """Check run()'s arguments; return the common order 'C' or 'F'."""
    for label, x in (("a", a), ("b", b), ("c", c)):
        if not isinstance(x, np.ndarray):
            raise ValueError(f"{label} must be a numpy.ndarray, got {type(x).__name__}")
        if x.dtype != np.float64:
            raise ValueError(f"{label} must have dtype float64, got {x.dtype}")
        if x.ndim != 2:
            raise ValueError(f"{label} must be 2-D, got ndim={x.ndim}")
        if max(x.shape) >= 2**31:
            raise ValueError(f"{label} is too large for int dimensions: {x.shape}")
    (m, k), (k2, n) = a.shape, b.shape
    if k != k2 or c.shape != (m, n):
        raise ValueError(f"shape mismatch: a{a.shape} @ b{b.shape} -> c{c.shape}")
    if not c.flags.writeable:
        raise ValueError("c must be writeable")
    if np.may_share_memory(c, a) or np.may_share_memory(c, b):
        raise ValueError("c must not overlap a or b")
    if all(x.flags.c_contiguous for x in (a, b, c)):
        return "C"
    if all(x.flags.f_contiguous for x in (a, b, c)):
        return "F"
    raise ValueError("a, b, c must all be C-contiguous or all F-contiguous "
                     f"(got C={[x.flags.c_contiguous for x in (a, b, c)]}, "
                     f"F={[x.flags.f_contiguous for x in (a, b, c)]})")


def run(built: Built, name: str, a: np.ndarray, b: np.ndarray, c: np.ndarray) -> None:
    """c += a @ b in place with kernel ``name`` (zero-copy via ctypes)."""
    if name not in built.available:
        why = built.skipped.get(name, "unknown kernel")
        raise ValueError(f"kernel {name!r} is not available: {why}")
    order = _validate(a, b, c)
    (m, k), n = a.shape, b.shape[1]
    pa, pb, pc = (x.ctypes.data_as(_DOUBLE_P) for x in (a, b, c))
    fn = getattr(built.lib, name)
    if order == "F":       # column-major already: C += A B
        rc = fn(m, n, k, pa, max(1, m), pb, max(1, k), pc, max(1, m))
    else:                  # row-major: C^T += B^T A^T
        rc = fn(n, m, k, pb, max(1, n), pa, max(1, k), pc, max(1, n))
    if rc != 0:
        raise MemoryError(f"{name}: packing buffer allocation failed (rc={rc})")


def error_threshold(k: int) -> float:
    """Bound on |C - ref| / (|C0| + |A||B|) for two correct FP64 results.

    Each of kernel and reference computes C0 + sum of k products, i.e. k+1
    rounded additions in some order, so each is within gamma_{k+1} =
    (k+1)u / (1-(k+1)u), u = eps/2, of the exact value relative to
    |C0| + |A||B| (Higham, Accuracy and Stability, §3.5).  Their difference is
    therefore within 2*gamma_{k+1}; this holds for any summation order,
    blocking, or FMA use.
    """
    u = np.finfo(np.float64).eps / 2
    g = (k + 1) * u / (1 - (k + 1) * u)
    return 2 * g


def check(built: Built, name: str, m: int, n: int, k: int, seed: int) -> dict:
    """Run ``name`` on random C-order inputs and compare with NumPy."""
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((m, k))
    b = rng.standard_normal((k, n))
    c0 = rng.standard_normal((m, n))
    c = c0.copy()
    run(built, name, a, b, c)
    ref = c0 + a @ b
    err = np.abs(c - ref)
    scale = np.abs(c0) + np.abs(a) @ np.abs(b)
    rel = np.divide(err, scale, out=np.zeros_like(err), where=scale > 0)
    rel[(scale == 0) & (err > 0)] = np.inf
    threshold = error_threshold(k)
    max_rel = float(rel.max()) if rel.size else 0.0
    return {"max_abs_err": float(err.max()) if err.size else 0.0,
            "max_rel_err": max_rel,
            "threshold": threshold,
            "passed": bool(max_rel <= threshold)}


def _objdump_functions(so_path: Path) -> dict:
    """objdump -d of the library as {address: (symbol, disassembly text)}.

    Keyed by address because static helpers of different units may share a
    name (e.g. two ``edge_tile.constprop.0``).
    """
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", str(so_path)],
                         capture_output=True, text=True, check=True).stdout
    funcs, current = {}, None
    for line in out.splitlines():
        header = re.match(r"^([0-9a-f]+) <([^>]+)>:$", line)
        if header:
            current = int(header.group(1), 16)
            funcs[current] = (header.group(2), [line])
        elif current is not None and line.strip():
            funcs[current][1].append(line)
    return {addr: (sym, "\n".join(lines)) for addr, (sym, lines) in funcs.items()}


def disassemble(built: Built, name: str) -> str:
    """Disassembly of kernel ``name`` plus the local functions it calls.

    Static helpers the compiler kept out of line (e.g. the packed
    micro-kernel) are followed through direct calls and tail jumps;
    PLT calls (malloc, memset, ...) and indirect calls are not.
    """
    funcs = _objdump_functions(built.so_path)
    starts = [addr for addr, (sym, _) in funcs.items() if sym == name]
    if not starts:
        raise ValueError(f"symbol {name!r} not found in {built.so_path}")
    order, todo = [], starts
    while todo:
        addr = todo.pop(0)
        if addr in order or addr not in funcs:
            continue
        order.append(addr)
        targets = re.findall(r"\b(?:call|j[a-z]+)\s+([0-9a-f]+) <[^>@+]+>",
                             funcs[addr][1])
        todo += [int(t, 16) for t in targets]
    return "\n\n".join(funcs[addr][1] for addr in order)


_FMA_RE = re.compile(r"^\s*[0-9a-f]+:\s+(vf(?:n)?m(?:add|sub)\w*?(pd|ps|sd|ss))\s+(.*)$",
                     re.MULTILINE)


def count_vector_fma(asm: str) -> dict:
    """Count FMA instructions (vfmadd*, vfmsub*, vfnmadd*, ...) in ``asm``.

    Packed forms are counted by register width (xmm = 128, ymm = 256,
    zmm = 512 bit); scalar forms (sd/ss, which also name xmm registers)
    are counted separately as ``scalar``.
    """
    counts = {"xmm": 0, "ymm": 0, "zmm": 0, "scalar": 0}
    for _mnemonic, suffix, operands in _FMA_RE.findall(asm):
        if suffix in ("sd", "ss"):
            counts["scalar"] += 1
            continue
        width = re.search(r"%([xyz]mm)\d+", operands)
        if width:
            counts[width.group(1)] += 1
    return counts
