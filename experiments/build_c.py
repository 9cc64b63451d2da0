"""Compile a C file of ours into a shared library, cached by source and flags."""
import ctypes
import hashlib
import subprocess
from functools import lru_cache
from pathlib import Path


@lru_cache(maxsize=None)
def private_dir():
    """A fresh folder of this process only (mode 0700) for the libraries it compiles.  It was
    .cache/build in the checkout: a pull request may commit a file there (`git add -f`) or a .cache
    link (.gitignore's ``.cache/`` matches folders only), so a planted library under the name the
    cache computes was loaded as ours (the machine peak from foreign code), and a link sent the
    compiler's output outside the project.  Removed when the process ends, and by the next family's
    run when a killed one left it (study.leftovers.scratch: every run of the peak left one for good)."""
    from study import leftovers
    return Path(leftovers.scratch("build", at_exit=True))


def compiler_version(cc="cc"):
    out = subprocess.run([cc, "--version"], capture_output=True, text=True, check=True)
    return out.stdout.splitlines()[0]


def build_shared(source, flags, build_dir, cc="cc"):
    """Build source with flags into build_dir; return (ctypes.CDLL, argv used)."""
    source = Path(source)
    key = hashlib.sha256(source.read_bytes() + " ".join([cc, *flags]).encode()).hexdigest()[:16]
    build_dir = Path(build_dir)
    build_dir.mkdir(parents=True, exist_ok=True)
    target = build_dir / f"{source.stem}-{key}.so"
    argv = [cc, *flags, "-shared", "-fPIC", str(source), "-o", str(target)]
    if not target.exists():
        tmp = target.with_suffix(".tmp.so")
        subprocess.run([*argv[:-1], str(tmp)], check=True, capture_output=True, text=True)
        tmp.rename(target)
    return ctypes.CDLL(str(target)), argv


def disassemble(library_path, symbol):
    """objdump -d of one symbol of a shared library (evidence of the instructions used)."""
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", f"--disassemble={symbol}",
                          str(library_path)], capture_output=True, text=True, check=True)
    return out.stdout
