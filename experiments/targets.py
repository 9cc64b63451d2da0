"""The host's TVM target and thread count: built here and nowhere else.

Every family that compiles for this machine asks this module for its target: a dict target
with the CPU name LLVM detects (plain ``"llvm"`` compiles generic x86-64) and ``num-cores``
(MetaSchedule sizes parallel loops by it). Thread counts come from the profile: a family's
``threads`` param (a count, or ``"all"``; absent means all cores), resolved by
:func:`threads`. :func:`configure` sets ``TVM_NUM_THREADS`` explicitly (TVM's x86 default is
half the hardware threads) and sizes this process's pool. Nothing here assumes an ISA.
"""
import os

ALL = "all"
"""Profile value for every logical core of this machine."""


def resolve(spec):
    """One thread count from a profile value: ``"all"`` or None -> every core, else the int."""
    return os.cpu_count() if spec in (None, ALL) else int(spec)


def threads(params):
    """The thread count a family runs with: its ``threads`` param, default every core."""
    return resolve(params.get("threads"))


def thread_counts(spec):
    """Sorted distinct thread counts of a profile list such as ``[1, all]``."""
    return sorted({resolve(t) for t in spec})


def host_config(num_threads=None):
    """``{"kind": "llvm", "mcpu": <host CPU>[, "num-cores": threads]}`` as plain data."""
    import tvm
    config = {"kind": "llvm", "mcpu": tvm.target.codegen.llvm_get_system_cpu()}
    if num_threads is not None:
        config["num-cores"] = int(num_threads)
    return config


def host_target(num_threads=None):
    """The LLVM target of this CPU; ``num_threads`` sets ``num-cores``."""
    import tvm
    return tvm.target.Target(host_config(num_threads))


def with_num_cores(target, num_threads):
    """Copy of ``target`` (any kind, a device's too) with ``num-cores`` set."""
    import tvm
    config = dict(target.export()) if hasattr(target, "export") else dict(target)
    config["num-cores"] = int(num_threads)
    return tvm.target.Target(config)


def configure(num_threads):
    """Set ``TVM_NUM_THREADS`` for this process and its children and size TVM's pool now;
    return the pool size in force (the pool is sized once: call before anything runs in
    parallel)."""
    import tvm
    import tvm_ffi
    os.environ["TVM_NUM_THREADS"] = str(int(num_threads))
    big_cores_mode = 1
    tvm_ffi.get_global_func("runtime.config_threadpool")(big_cores_mode, int(num_threads))
    return int(tvm.runtime.num_threads())
