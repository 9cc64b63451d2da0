"""Capture the host environment (seed §11 reproduction checklist) as plain data."""
import hashlib
import json
import os
import platform
import subprocess
import sys
from pathlib import Path

from study.identity import isa_level, machine_id

SIMD_FLAGS = ("sse4_2", "avx", "avx2", "fma", "avx512f", "avx512bw", "avx512vl",
              "avx512_vnni", "avx512_bf16", "avx_vnni", "amx_int8")

# Fields that change performance; anything else (time, hostname) does not
# invalidate a reusable measurement.
FINGERPRINT_FIELDS = ("cpu_model", "cpu_family_model", "logical_cores", "simd_flags", "caches",
                      "python_version", "numpy_version", "blas", "tvm_version", "llvm_version",
                      "tvm_target", "compiler", "kernel")


def _cpuinfo():
    fields = {}
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return fields
    for line in text.splitlines():
        if ":" in line:
            key, _, value = line.partition(":")
            fields.setdefault(key.strip(), value.strip())
    return fields


def _caches():
    """Per-level cache sizes of cpu0 from sysfs, e.g. {'L1d': '32K', 'L2': '512K'}."""
    out = {}
    for index in sorted(Path("/sys/devices/system/cpu/cpu0/cache").glob("index*")):
        try:
            level = (index / "level").read_text().strip()
            kind = (index / "type").read_text().strip()
            size = (index / "size").read_text().strip()
        except OSError:
            continue
        name = f"L{level}" + {"Data": "d", "Instruction": "i"}.get(kind, "")
        out[name] = size
    return out


def _max_mhz():
    path = Path("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq")
    try:
        return {"value": int(path.read_text()) / 1000.0, "source": str(path)}
    except (OSError, ValueError):
        pass
    mhz = _cpuinfo().get("cpu MHz")
    if mhz:
        return {"value": float(mhz), "source": "/proc/cpuinfo 'cpu MHz' (no cpufreq in this VM)"}
    return {"value": None, "source": "unknown"}


def _blas():
    """The BLAS libraries NumPy loaded (threadpoolctl), not whatever else this process has loaded.

    SciPy ships its own OpenBLAS and loads it lazily (reportgen's Mann-Whitney test does), so
    listing every loaded library made the environment -- and with it every fingerprint -- depend
    on what the calling process had done before.  Libraries outside NumPy's install are dropped
    when NumPy's own is among them (a NumPy linked to a system BLAS keeps the full list).
    """
    from pathlib import Path

    import numpy
    from threadpoolctl import threadpool_info
    keep = ("user_api", "internal_api", "prefix", "version", "architecture", "num_threads",
            "threading_layer")
    infos = threadpool_info()
    site = Path(numpy.__file__).resolve().parent.parent
    own = [i for i in infos if Path(i.get("filepath", "")).resolve().parent.name in ("numpy.libs", "numpy")
           and Path(i.get("filepath", "")).resolve().parent.parent == site]
    return [{k: str(info.get(k)) for k in keep if info.get(k) is not None} for info in (own or infos)]


def _compiler():
    try:
        out = subprocess.run(["cc", "--version"], capture_output=True, text=True, timeout=10)
        return out.stdout.splitlines()[0]
    except (OSError, IndexError, subprocess.SubprocessError):
        return "unavailable"


def _tvm():
    try:
        import tvm
        from tvm.target import codegen
    except ImportError as exc:  # reported, not hidden: later families need TVM
        return {"tvm_version": f"unavailable: {exc}", "llvm_version": "unavailable",
                "tvm_target": {}}
    cpu = codegen.llvm_get_system_cpu()
    return {
        "tvm_version": tvm.__version__,
        "llvm_version": f"{codegen.llvm_version_major()} (major)",
        "tvm_target": {"kind": "llvm", "mcpu": cpu},
        "tvm_ffi_version": _version("tvm_ffi"),
    }


def _version(module):
    try:
        from importlib.metadata import version
        return version(module.replace("_", "-") if module != "tvm_ffi" else "apache-tvm-ffi")
    except Exception:  # noqa: BLE001 - a missing optional package is just 'absent'
        return "absent"


def hardware():
    """The fields the machine id is computed from (identity.MACHINE_FIELDS, memory), without
    importing NumPy or TVM: what `reportgen machines` needs to say which machine this is."""
    import psutil

    info = _cpuinfo()
    flags = set(info.get("flags", "").split())
    return {
        "cpu_model": info.get("model name", platform.processor() or "unknown"),
        "cpu_vendor": info.get("vendor_id", "unknown"),
        "cpu_family_model": f"{info.get('cpu family', '?')}/{info.get('model', '?')}",
        "logical_cores": os.cpu_count(),
        "simd_flags": [f for f in SIMD_FLAGS if f in flags] or ["none"],
        "memory_bytes": psutil.virtual_memory().total,
        "hypervisor": "hypervisor" in flags,
    }


def capture():
    """Everything seed §11 asks to record, as a JSON-able dict."""
    import numpy
    import psutil

    hw = hardware()
    env = {
        "os": f"{platform.system()} {_os_release()}",
        "kernel": platform.release(),
        "python_version": platform.python_version(),
        "python_executable": sys.executable,
        "cpu_model": hw["cpu_model"],
        "cpu_vendor": hw["cpu_vendor"],
        "cpu_family_model": hw["cpu_family_model"],
        "cpu_mhz": _max_mhz(),
        "logical_cores": hw["logical_cores"],
        "physical_cores": psutil.cpu_count(logical=False),
        "simd_flags": hw["simd_flags"],
        "caches": _caches(),
        "memory_bytes": hw["memory_bytes"],
        "hypervisor": hw["hypervisor"],
        "numpy_version": numpy.__version__,
        "blas": _blas(),
        "compiler": _compiler(),
        "affinity": sorted(os.sched_getaffinity(0)),
        "tvm_num_threads": os.environ.get("TVM_NUM_THREADS", "unset (TVM default)"),
        "blas_env": {k: os.environ.get(k, "unset") for k in
                     ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "OPENBLAS_NUM_THREADS",
                      "OMP_NUM_THREADS")},
        "machine_uuid": _machine_uuid(),
    }
    env.update(_tvm())
    env["machine_id"] = machine_id(env)
    env["isa_level"] = isa_level(env)
    return env


def _machine_uuid():
    for path in ("/etc/machine-id", "/var/lib/dbus/machine-id"):
        try:
            return Path(path).read_text().strip()
        except OSError:
            continue
    return "none"


def _os_release():
    try:
        for line in Path("/etc/os-release").read_text().splitlines():
            if line.startswith("PRETTY_NAME="):
                return line.split("=", 1)[1].strip('"')
    except OSError:
        pass
    return platform.version()


def fingerprint(env):
    """sha256 of the performance-relevant environment fields."""
    key = {k: env.get(k) for k in FINGERPRINT_FIELDS}
    return hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()


if __name__ == "__main__":
    print(json.dumps(capture(), indent=2, ensure_ascii=False))
