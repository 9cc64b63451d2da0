"""The typed facts of a run manifest (run.json) beyond its top-level fields: what each value of the
environment is, what each family's entry holds, and how long the run lasted.

Pages read these values (the environment table, the runs table, the machine card, the history), so a
value of the wrong type must stop the build with a line naming run.json and the field, never with an
internal TypeError, and a figure a page counts with (a family's records, its duration) must be one.
"""
import re

from study.stats import is_number

TEXT, COUNT, FLAG = (str,), "a count >= 0", (bool,)
ENVIRONMENT_TYPES = {
    "os": TEXT, "kernel": TEXT, "python_version": TEXT, "python_executable": TEXT, "cpu_model": TEXT,
    "cpu_vendor": TEXT, "cpu_family_model": TEXT, "numpy_version": TEXT, "compiler": TEXT,
    "tvm_num_threads": TEXT, "machine_uuid": TEXT, "tvm_version": TEXT, "llvm_version": TEXT,
    "tvm_ffi_version": TEXT, "machine_id": TEXT, "isa_level": TEXT,
    "logical_cores": COUNT, "physical_cores": "a count >= 0 or null", "memory_bytes": COUNT, "hypervisor": FLAG,
    "cpu_mhz": (dict,), "caches": (dict,), "blas_env": (dict,), "tvm_target": (dict,),
    "simd_flags": (list, str), "affinity": "a list of CPU numbers >= 0", "blas": (list, dict),
}
"""What each environment field capture() writes must be: a type, or (list, type of each item).
Fields it does not write (a device's own, say) are left to the string and length checks."""

EXPERIMENT_TYPES = {"status": TEXT, "exit_code": "an exit status from -255 to 255 or null", "duration_s": "seconds",
                    "log": TEXT, "records": COUNT, "reused": COUNT, "load_average": "load"}

MAX_MHZ = 1e5
"""The highest clock a CPU of the study may report, in MHz (cpu_mhz.value; 100 GHz)."""
MAX_SECONDS = 1e6
"""A family runs at most this long (about eleven days, schema.DURATION_RANGE_S)."""
CLOCK_SLACK_S = 1.0
"""started_at and finished_at are whole seconds: the families' durations may exceed their
difference by less than one second."""


def _ok(value, want):
    if want == COUNT:
        return isinstance(value, int) and not isinstance(value, bool) and value >= 0
    if want == "a count >= 0 or null":
        return value is None or _ok(value, COUNT)
    if want == "a list of CPU numbers >= 0":
        return isinstance(value, list) and all(_ok(v, COUNT) for v in value)
    if want == EXPERIMENT_TYPES["exit_code"]:   # what Popen gives: 0-255, or minus the signal's number
        return value is None or (_ok(value, (int,)) and -255 <= value <= 255)
    if want == "seconds":
        return is_number(value) and 0 <= value <= MAX_SECONDS
    if want == "load":
        return isinstance(value, list) and len(value) == 2 and all(is_number(v) and v >= 0 for v in value)
    if isinstance(want, tuple) and len(want) == 2 and want[0] is list:
        return isinstance(value, list) and all(isinstance(v, want[1]) and not isinstance(v, bool) for v in value)
    if int in want and isinstance(value, bool):
        return False
    return isinstance(value, want)


def _name(want):
    if isinstance(want, str):
        return want
    if len(want) == 2 and want[0] is list:
        return f"a list of {want[1].__name__}"
    return " or ".join("null" if t is type(None) else t.__name__ for t in want)


def _typed(obj, types, where):
    return [f"{where}.{name}: expected {_name(want)}, got {type(obj[name]).__name__} {obj[name]!r:.40}"
            for name, want in types.items() if name in obj and not _ok(obj[name], want)]


MAX_CORES = 4096
"""The most logical CPUs a machine of the study may report (logical_cores, physical_cores, and each
CPU number of affinity below it): the pages run and label their all-core cases with it."""
MAX_MEMORY_BYTES = 2**50
"""The most memory a machine may report (1 PiB; the largest servers hold some tens of TB)."""
MAX_ITEMS = 8192
"""Entries (list items and mapping keys, at any depth) run.json's environment, command and
experiments may hold in all: an affinity of a million CPUs made a 7.9 MB environment table."""


def size_problems(run):
    """The environment's counts within a machine's bounds, and environment, command and experiments
    each of at most MAX_ITEMS entries."""
    env = run["environment"]
    out = [f"environment.{name}: {env[name]!r:.40} is more than the {MAX_CORES} CPUs a machine may have"
           for name in ("logical_cores", "physical_cores") if _ok(env.get(name), COUNT) and env[name] > MAX_CORES]
    out += [f"environment.{name}: 0: a machine that ran the study has {what}"
            for name, what in (("logical_cores", "a CPU"), ("memory_bytes", "memory")) if env.get(name) == 0]
    if _ok(env.get("memory_bytes"), COUNT) and env["memory_bytes"] > MAX_MEMORY_BYTES:
        out.append(f"environment.memory_bytes: {env['memory_bytes']!r:.40} is more than the {MAX_MEMORY_BYTES} "
                   "bytes (1 PiB) a machine may have")
    if _ok(env.get("affinity"), "a list of CPU numbers >= 0") and any(c >= MAX_CORES for c in env["affinity"][:MAX_ITEMS]):
        out.append(f"environment.affinity: a CPU number of {MAX_CORES} or more (a machine has at most {MAX_CORES})")
    for name in ("environment", "command", "experiments"):
        count, stack = 0, [run[name]]
        while stack and count <= MAX_ITEMS:
            item = stack.pop()
            if isinstance(item, (list, dict)):
                count += len(item)
                stack.extend(item.values() if isinstance(item, dict) else item)
        if count > MAX_ITEMS:
            out.append(f"{name}: more than the {MAX_ITEMS} entries (list items and keys, at any depth) a run "
                       "may hold there")
    return out


ENVIRONMENT_PRESENT = ("cpu_family_model", "physical_cores", "cpu_mhz", "blas_env")
"""Fields capture() always writes and the environment table reads, though they may be null or empty
(so not in schema.ENV_REQUIRED): a run.json without one stopped the page with a KeyError."""


def environment_problems(env):
    """Each environment field of a known type (containers included: a blas that is not a list of
    objects, a tvm_target that is not an object), and ENVIRONMENT_PRESENT present."""
    out = [f"environment.{name}: missing" for name in ENVIRONMENT_PRESENT if name not in env]
    out += _typed(env, ENVIRONMENT_TYPES, "environment")
    for i, entry in enumerate(env.get("blas") if isinstance(env.get("blas"), list) else ()):
        if isinstance(entry, dict) and not isinstance(entry.get("architecture", ""), (str, type(None))):
            out.append(f"environment.blas[{i}].architecture: expected str, got {type(entry['architecture']).__name__}")
    for name in ("caches", "blas_env", "tvm_target", "cpu_mhz"):
        value = env.get(name)
        if isinstance(value, dict):
            # null: what capture() writes for a value it could not read (a VM without cpufreq)
            out += [f"environment.{name}.{key}: expected a string, a number or null, got {type(v).__name__}"
                    for key, v in value.items() if not (v is None or isinstance(v, str) or is_number(v))]
    target = env.get("tvm_target")
    for key in ("kind", "mcpu", "mtriple", "tag"):   # names a page prints (identity.cpu_name)
        if isinstance(target, dict) and target.get(key) is not None and not isinstance(target[key], str):
            out.append(f"environment.tvm_target.{key}: expected a string, got {type(target[key]).__name__}")
    out += _clock_problems(env.get("cpu_mhz"))
    return out


def _clock_problems(clock):
    """cpu_mhz as capture() writes it: {"value": MHz or null, "source": where it was read} (the
    environment table prints both, the peak formula multiplies by the value)."""
    if not isinstance(clock, dict):
        return []
    out = [f"environment.cpu_mhz.{name}: missing" for name in ("value", "source") if name not in clock]
    value = clock.get("value")
    if "value" in clock and value is not None and not (is_number(value) and 0 < value <= MAX_MHZ):
        out.append(f"environment.cpu_mhz.value: expected a clock of 0 to {MAX_MHZ:g} MHz or null, "
                   f"got {type(value).__name__} {value!r:.40}")
    return out


COMMIT = re.compile(r"(?:[0-9a-f]{40}|[0-9a-f]{64}|unknown)\Z")
"""What retest writes as git.commit: `git rev-parse HEAD` (SHA-1, or SHA-256 in a repository of that
format), or "unknown" outside a checkout."""


def git_problems(git):
    """git.commit as retest writes it (the runs table cuts it, and `git cat-file --batch-check` reads
    one commit a line: a commit holding a newline would shift the answers for every later run) and
    git.dirty a bool (a string "no" would mark the run dirty)."""
    out = []
    if "commit" in git and not (isinstance(git["commit"], str) and COMMIT.match(git["commit"])):
        out.append(f"git.commit: expected 40 or 64 lower-case hex digits or 'unknown', got {git['commit']!r:.60}")
    if "dirty" in git and not isinstance(git["dirty"], bool):
        out.append(f"git.dirty: expected true or false, got {type(git['dirty']).__name__} {git['dirty']!r:.40}")
    return out


def experiment_problems(family, entry):
    """A family's entry: each field of its type, and no more reused records than records."""
    out = _typed(entry, EXPERIMENT_TYPES, f"experiments.{family}")
    if not out and entry.get("reused", 0) > entry.get("records", 0):
        out.append(f"experiments.{family}.reused: {entry['reused']} reused of {entry['records']} records")
    return out


def duration_problems(run, started, finished):
    """A run takes time: it finishes after it starts, and its families ran within that time."""
    if finished <= started:
        how = "is before" if finished < started else "is the same second as"
        return [f"finished_at: {run['finished_at']!r} {how} started_at {run['started_at']!r} "
                "(a run takes time: its families run one after another between the two)"]
    took = (finished - started).total_seconds()
    spent = [e.get("duration_s") for e in run["experiments"].values() if isinstance(e, dict)]
    spent = sum(s for s in spent if is_number(s))
    if spent > took + CLOCK_SLACK_S:
        return [f"experiments: the families ran {spent:.1f} s, longer than the run itself "
                f"({took:.0f} s from started_at to finished_at)"]
    return []
