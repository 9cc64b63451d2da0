"""The per-trial logs a MetaSchedule search leaves beside its database, read one way by the
experiments that write them and by the report that holds a record's tuning summary to them.

A record says how many trials its search measured, how many built and ran, what failed and how long
it took; the trial log in the record's own run says the same thing trial by trial.  The record is a
claim, the log is the evidence (it is in run.json's sha256 list like every file of the run): a
record claiming 5000 trials of a search whose log holds 117 was published as the current figure.
"""
import math
import re

from study import schema

TRIAL_LOG = "trials.jsonl"
"""The e2e and int8 searches' log (experiments.e2e.tuning): one line per measured trial, with its task."""
LADDER_LOG = "ladder_trials.jsonl"
"""The GEMM searches' log (experiments.gemm.ms_tune): one line per measured trial of every call."""
DATABASE = "database_tuning_record.json"
WORKLOADS = "database_workload.json"


def json_lines(text, where):
    """(line number, value) of each non-empty line of ``text``; a line that is not JSON (a line cut by a
    stopped write, say), or JSON that study.schema.loads refuses (a key given twice, NaN, nesting without
    bound), is a ValueError naming ``where`` and the line: a trial logged as {"category": "timeout",
    "category": null} counted as valid, the last key winning."""
    out = []
    for number, line in enumerate(text.split("\n"), 1):
        if line.strip():
            try:
                out.append((number, schema.loads(line)))
            except (ValueError, RecursionError) as exc:
                raise ValueError(f"{where}:{number}: not a JSON line ({str(exc)[:120]})") from None
    return out


MAX_TRIALS = 100_000
"""The most trials one search's log may hold (the committed searches hold up to 500; a campaign's
whole history a few thousand): three million lines took 18 s and 710 MiB to read."""


def trials(text, where):
    """The trials of a trial log, each checked: an object whose ``category`` is null (it built and
    ran) or a failure's name, and whose ``elapsed_s`` is null or finite seconds >= 0.  ValueError
    naming the file, line and field otherwise, or when it holds more than MAX_TRIALS lines."""
    if text.count("\n") > MAX_TRIALS:
        raise ValueError(f"{where}: more than {MAX_TRIALS} trials (one search's log holds a few thousand at most)")
    out = []
    for number, row in json_lines(text, where):
        if not isinstance(row, dict):
            raise ValueError(f"{where}:{number}: a trial is an object, not {type(row).__name__}")
        category, elapsed = row.get("category"), row.get("elapsed_s")
        if category is not None and not (isinstance(category, str) and 0 < len(category) <= 80):
            raise ValueError(f"{where}:{number}: category: {category!r:.40} is neither null nor a failure's name")
        if elapsed is not None and (isinstance(elapsed, bool) or not isinstance(elapsed, (int, float))
                                    or not math.isfinite(elapsed) or elapsed < 0):
            raise ValueError(f"{where}:{number}: elapsed_s: {elapsed!r:.40} is not seconds >= 0")
        if "task" in row and not isinstance(row["task"], str):
            raise ValueError(f"{where}:{number}: task: {row['task']!r:.40} is not a task's name")
        out.append(row)
    return out


def summary(rows):
    """Counts of measured, valid and failed trials (by category) of a trial log's rows."""
    failures = {}
    for row in rows:
        if row.get("category"):   # a trial without one was built and ran (trials() reads it so)
            failures[row["category"]] = failures.get(row["category"], 0) + 1
    return {"measured": len(rows), "valid": len(rows) - sum(failures.values()), "failures": failures}


def last_elapsed(rows):
    """Seconds from the search's start to its last trial (0 when no trial says)."""
    return max((row["elapsed_s"] for row in rows if row.get("elapsed_s") is not None), default=0.0)


FAILED_RUN_SECS = 1e8
"""A trial's mean time at or above this is a failure (MetaSchedule stores 1e9 s for a failed trial)."""


def mean_secs(run_secs):
    """A trial's mean time in seconds, or None when it has none, failed, or is not a list of numbers."""
    if not isinstance(run_secs, (list, tuple)) or not run_secs or not all(
            isinstance(x, (int, float)) and not isinstance(x, bool) for x in run_secs):
        return None
    mean = math.fsum(run_secs) / len(run_secs)
    return None if not math.isfinite(mean) or mean >= FAILED_RUN_SECS else mean


def curve(rows):
    """The best-so-far curve of a search's trials in measurement order: per trial its number, when it
    finished (``elapsed_s``), its mean time and the best mean so far.  The GEMM experiment charts it
    and the report rebuilds it from the trial log to hold the record's curve to the log."""
    out, best = [], None
    for index, row in enumerate(rows, start=1):
        mean = mean_secs(row.get("run_secs"))
        best = mean if best is None or (mean is not None and mean < best) else best
        out.append({"trial": index, "elapsed_s": row.get("elapsed_s"), "run_secs": mean, "best_so_far_s": best})
    return out


SECONDS_SLACK_S = 60.0
SECONDS_SLACK_SHARE = 0.05
"""How far a search's seconds may run past its last trial: the work after it (reading the task's
log, writing the allocation) took under 10 s in every committed search; a minute and 5 % more."""


def seconds_problem(claimed, rows):
    """Why a search's claimed seconds cannot be its trial log's, or None: no less than its last trial's
    time, and no more than that plus SECONDS_SLACK."""
    if rows and (isinstance(claimed, bool) or not isinstance(claimed, (int, float))):
        return f"{claimed!r:.40} is not seconds"
    last = last_elapsed(rows)
    if rows and not last - 1.0 <= claimed <= last * (1 + SECONDS_SLACK_SHARE) + SECONDS_SLACK_S:
        return f"{claimed!r:.40} s, but the search's trial log ends at {last:.1f} s"
    return None


INSTRUCTIONS = ("vpdpbusd", "vpdpbusds", "vpdpwssd", "vpmaddubsw", "vpmaddwd", "vfmadd", "vpmulld")
"""The instructions the INT8 family counts in a compiled network (its records' extra.asm): VNNI's dot
products, their AVX2 and AVX-512 fallbacks, the FP32 FMA and the 32-bit multiply.  A record counts
these and no other (any other name is refused: a thousand invented names made reading an assembly
of a million lines take minutes)."""

ASM_LABEL = re.compile(r"^([A-Za-z_][\w.$]*):")
"""A function's label in LLVM's assembly (a local label starts with a dot and is not matched)."""


def instruction(line):
    """The mnemonic of one line of assembly, or None for a label, a directive or an empty line."""
    if ASM_LABEL.match(line):
        return None
    parts = line.split()
    return parts[0] if parts and not parts[0].startswith(".") else None


def instruction_counts(lines, names):
    """{name: lines whose mnemonic starts with it} over ``lines`` of assembly (vpdpbusd counts
    vpdpbusd and its {k}-masked and suffixed forms, as the INT8 family counts them)."""
    counts = dict.fromkeys(names, 0)
    for line in lines:
        mnemonic = instruction(line)
        if mnemonic:
            for name in names:
                if mnemonic.startswith(name):
                    counts[name] += 1
    return counts
