"""The data contracts: run records (records.jsonl) and run manifests (run.json).

Each field is declared once, with a one-line doc. The harness validates before it
writes and reportgen validates after it reads, with the same functions.
"""
import json
import math
import re

from study import ids, manifest, stats as _stats, work as _work
from study.letters import drawn_over, foreign_letter, mixed_script
from study.strictjson import MAX_DEPTH, dumps, loads   # noqa: F401 - schema.loads, as every reader calls it

SCHEMA_VERSION = 1

STATUSES = ("ok", "compile_failed", "run_failed", "timeout", "check_failed", "skipped")
"""Failure categories of seed §14: a failed case is recorded and shown as failed, never as a time."""

RECORD_FIELDS = {
    "schema_version": (int, "contract version; must equal SCHEMA_VERSION"),
    "id": (str, "stable case id, e.g. numpy_gemm/dtype=float32/n=1024/threads=1/blas=configured"),
    "run_id": (str, "run that measured this record (a reused record keeps its original run)"),
    "experiment": (str, "experiment family, e.g. numpy_gemm"),
    "case": (dict, "case parameters: model, shape, dtype, target, threads, ..."),
    "metric": (str, "what the samples measure, e.g. time_per_call; 'evidence' = a checked fact without timing"),
    "unit": (str, "unit of samples and stats, e.g. s"),
    "samples": (list, "every raw measurement, unaggregated (empty only when status != ok)"),
    "warmup": (int, "untimed calls before the first sample"),
    "repeat": (int, "number of samples"),
    "number": (int, "calls averaged inside one sample"),
    "stats": ((dict, type(None)), "min, p50, p95, p99, max, mean, std, n of samples"),
    "check": (dict, "numeric validation against a reference: reference, max_abs_err, max_rel_err, threshold, passed"),
    "status": (str, "one of STATUSES"),
    "error": ((str, type(None)), "what went wrong when status != ok"),
    "log": (dict, "path (relative to results/), lines [first, last] and sha256 of the log"),
    "fingerprint": (str, "sha256 of case config + experiment code + environment; equal means reusable"),
    "reused_from": ((str, type(None)), "run id whose measurement this record carries over, if any"),
    "extra": (dict, "family-specific context (flops, BLAS kernel, formulas)"),
}

RUN_FIELDS = {
    "schema_version": (int, "contract version; must equal SCHEMA_VERSION"),
    "run_id": (str, "unique id: <UTC time>-<profile>-<machine id>"),
    "profile": (str, "quick | standard | full"),
    "started_at": (str, "ISO 8601 UTC"),
    "finished_at": (str, "ISO 8601 UTC"),
    "command": (list, "argv that produced the run"),
    "git": (dict, "project commit and whether the tree was dirty"),
    "environment": (dict, "host environment (seed §11 checklist), see ENV_REQUIRED"),
    "experiments": (dict, "per family: status, exit code, duration, log, record count"),
    "files": (dict, "sha256 of every file in the run directory except run.json"),
}

ENV_REQUIRED = (
    "machine_id", "os", "kernel", "python_version", "cpu_model", "cpu_vendor", "logical_cores",
    "simd_flags", "caches", "numpy_version", "blas", "tvm_version", "llvm_version",
    "tvm_target", "tvm_num_threads", "affinity", "memory_bytes",
)
"""Environment fields that must be present and non-empty: without them a figure is not comparable."""

EVIDENCE = "evidence"
"""Metric of records that prove a structural fact (an IR change, an API that resolves):
they carry a check, never samples."""
METRICS = ("time_per_call", EVIDENCE, "none")
"""What a record's samples measure: a call's time, a checked fact, or nothing (a failure).  'gflops_per_s' with
unit s was printed in a provenance entry beside the figure."""
MAX_REFERENCE_CHARS = 200

CHECK_FIELDS = ("reference", "max_abs_err", "max_rel_err", "threshold", "passed")
LOG_FIELDS = ("path", "lines", "sha256")
STATS_FIELDS = _stats.STAT_KEYS
"""The nested objects of a record are closed: a key outside these lists is refused."""

TIME_UNITS = ("s", "ms", "us", "ns")
"""Units of durations: every sample and statistic in them is a finite number > 0."""

UNIT_SECONDS = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9}
DURATION_RANGE_S = (_work.MIN_DURATION_S, 1e6)
"""A plausible duration, in seconds: a picosecond (below it a figure such as GFLOPS overflows) to
about eleven days (no case runs that long; 1e200 s is a broken or forged record)."""

PROFILES = ("quick", "standard", "full")
"""The profiles a run may name (an unknown profile must not count as a thorough run)."""

RUN_FILE_TYPES = (".json", ".jsonl", ".log", ".txt", ".py", ".s", ".ll", ".c", ".h", ".csv")
"""What a run folder may hold: records, logs, TIR/Relax text (.py), assembly, LLVM IR, C source,
tables. Never HTML, SVG, scripts or images: the site copies run data verbatim."""

MAX_RUN_RECORDS = 2_000
"""The most records one run may hold (the committed runs: at most 324): 3000 forged cases built for minutes and
stopped naming a generated page, not the run."""
MAX_SAMPLES = 10_000
"""Samples one record may carry: ten times the most any profile asks for (full: repeat 1000; the committed
records hold 200 at most).  A million built a 92 MB page; 100 000 cost every interval the pages print
12 s and 3.3 GB (reportgen.data.compare.ratio_interval resamples 2000 times as many)."""

_TIME = "%Y-%m-%dT%H:%M:%SZ"
_RUN_ID = ids.RUN_ID
FUTURE_SLACK_S = 600   # as runfacts.COMMIT_SLACK_S: a day let a run dated ahead outrank every genuine one
"""A run may not be dated later than now plus this (clocks differ a little; a run dated 9999 must not win)."""

GIT_FIELDS = ("commit", "dirty")
EXPERIMENT_FIELDS = ("status", "exit_code", "duration_s", "log", "records", "reused")
EXPERIMENT_OPTIONAL = ("load_average",)
"""run.json's nested objects are closed too (load_average came later: optional)."""

_INVISIBLE = ("\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2028\u2029"
              "\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufffb\x80-\x9f\U0001bca0-\U0001bca3"
              "\U0001d173-\U0001d17a\U000e0000-\U000e0fff\u0600-\u0605\u06dd\u070f\u0890\u0891\u08e2\u2800"
              "\U000110bd\U000110cd\U00013430-\U0001343f")
"""Default-ignorable code points (zero-width, bidi, soft hyphen, variation selectors, fillers, tags), the
other format characters, the blank braille cell, C1 controls: each makes two strings look the same or
hides what a reader sees (a list picked one by one missed U+00AD, U+206A-F, U+FE0F, U+2800...). Labels
(ids, case values, units) refuse them, markup and Markdown specials; one-line texts, spaces but U+0020.
\\Z, never $: $ also matches before a final newline, so "id\\n" would pass every pattern here."""
_SAFE_TEXT = re.compile(r"^[^<>&\"'`\[\]{}|\\\x00-\x1f\x7f" + _INVISIBLE + r"]*\Z")
_VISIBLE = re.compile(r"^[^\x00-\x08\x0a-\x1f\x7f\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000" + _INVISIBLE + r"]*\Z")
_ID = re.compile(r"^[A-Za-z0-9_.+\-]+(/[A-Za-z0-9_.+\-]+(=[A-Za-z0-9_.+\-x]+)?)*\Z")
_SHA = re.compile(r"^[0-9a-f]{64}\Z")
_FAMILY = re.compile(r"^[a-z][a-z0-9_]*\Z")
_UTC = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z\Z")
"""A time as retest writes it (strptime alone also takes 2026-1-1T0:0:0z, which sorts wrongly as text)."""
_FILE_NAME = re.compile(r"^[A-Za-z0-9_+=\-][A-Za-z0-9_.+=\-]*(/[A-Za-z0-9_+=\-][A-Za-z0-9_.+=\-]*)*\Z")
"""A file of a run, relative to its folder: ASCII names (never a newline, an escape sequence or a
letter that another spelling normalizes to) of no hidden part."""


MAX_INTEGER = 2**53   # past it a JSON reader keeps no integer exact; no count a run measures comes near (10^25 bytes were published)


def _finite(value, where, out, integers=False):
    """Append a problem for every NaN/inf (``integers``: integer beyond MAX_INTEGER) reachable inside value."""
    if integers and isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_INTEGER:
        out.append(f"{where}: the integer {str(value)[:30]} is beyond 2^53 ({MAX_INTEGER}): no count or size is that "
                   "large, and a JSON reader does not keep it exact")
    elif not integers and isinstance(value, float) and not math.isfinite(value):
        out.append(f"{where}: not a finite number ({value!r})")
    elif isinstance(value, dict):
        for k, v in value.items():
            _finite(v, f"{where}.{k}", out, integers)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            _finite(v, f"{where}[{i}]", out, integers)


def _strings(value, where, out, pattern, problem):
    """Append ``problem(bad characters)`` for every string (key or value) inside value that
    ``pattern`` does not match."""
    for text, at in _texts(value, where):
        if not pattern.match(text):
            out.append(f"{at}: {problem(sorted({c for c in text if not pattern.match(c)}))}")


def _safe_strings(value, where, out):
    """Strings end up in pages: refuse markup and control characters outright, and marks drawn over the text."""
    _strings(value, where, out, _SAFE_TEXT, lambda bad: f"contains characters not allowed in labels {bad!r}")
    _overlaid(value, where, out, _SAFE_TEXT)


def _visible_strings(value, where, out):
    """Environment strings are shown as text: refuse control, zero-width and bidi characters and marks drawn
    over the text (drawn_over)."""
    _strings(value, where, out, _VISIBLE, lambda bad: "contains invisible or control characters "
             + ", ".join(f"U+{ord(c):04X}" for c in bad[:5]))
    _overlaid(value, where, out, _VISIBLE)


def _overlaid(value, where, out, pattern):
    """Append a problem for every string inside value (that ``pattern`` passed) holding marks drawn over it."""
    for text, at in _texts(value, where):
        found, mixed = drawn_over(text), mixed_script(text)
        if found and pattern.match(text):
            out.append(f"{at}: combining marks drawn over the text ({', '.join(f'U+{ord(c):04X}' for c in found)}); "
                       "it is shown as plain text")
        elif mixed and pattern.match(text):
            out.append(f"{at}: the word {mixed[:40]!r} mixes Latin, Cyrillic or Greek letters (a lookalike of "
                       "another name); it is shown as plain text")
        elif foreign_letter(text) and pattern.match(text):
            out.append(f"{at}: U+{ord(foreign_letter(text)):04X} is a lookalike letter (another spelling of a Latin "
                       "letter, a digit or a Chinese character, or another script); it is shown as plain text")


def _texts(value, where):
    """Every string inside value (keys too) with where it is, as _strings names it."""
    if isinstance(value, str):
        yield value, where
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _texts(k, f"{where} key")
            yield from _texts(v, f"{where}.{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _texts(v, f"{where}[{i}]")


def _types(obj, fields, out):
    for name, (types, _doc) in fields.items():
        if name not in obj:
            out.append(f"{name}: missing")
        elif isinstance(obj[name], bool) and types is int:
            out.append(f"{name}: expected int, got bool")
        elif not isinstance(obj[name], types):
            want = types.__name__ if isinstance(types, type) else "/".join(t.__name__ for t in types)
            out.append(f"{name}: expected {want}, got {type(obj[name]).__name__} {obj[name]!r:.60}")
    for name in obj:
        if name not in fields:
            out.append(f"{name}: unknown field")


MAX_ID_CHARS = 400        # a record id (and so a provenance anchor and a file name) longer than this is refused
MAX_LABEL_CHARS = 200     # a string of ``case``: a label in tables and charts
MAX_TEXT_CHARS = 100_000  # any other string of a record (IR text, notes, errors)


MAX_ENV_CHARS = 1000     # a string of run.json's environment, command or experiments (the longest today: 65)


def _long_strings(value, where, limit):
    """Problems of strings (keys included) longer than ``limit`` inside value, at most five."""
    out, stack = [], [(where, value)]
    while stack and len(out) < 5:
        here, item = stack.pop()
        if isinstance(item, str) and len(item) > limit:
            out.append(f"{here}: a string of {len(item)} characters, more than the {limit} a run may carry there")
        elif isinstance(item, dict):
            stack.extend((f"{here} key", k) for k in item)
            stack.extend((f"{here}.{k}", v) for k, v in item.items())
        elif isinstance(item, list):
            stack.extend((f"{here}[{i}]", v) for i, v in enumerate(item))
    return out


def _length_problems(rec):
    """Strings longer than a page can show: the id, the case's labels, any other text."""
    out = []
    if len(rec["id"]) > MAX_ID_CHARS:
        out.append(f"id: {len(rec['id'])} characters, more than the {MAX_ID_CHARS} an id may have")
    stack = [(name, rec[name], MAX_LABEL_CHARS if name == "case" else MAX_TEXT_CHARS)
             for name in rec if name != "id"]
    while stack and len(out) < 5:
        where, value, limit = stack.pop()
        if isinstance(value, str) and len(value) > limit:
            out.append(f"{where}: a string of {len(value)} characters, more than the {limit} a record may carry there")
        elif isinstance(value, dict):
            stack.extend((f"{where}.{k}", v, limit) for k, v in value.items())
        elif isinstance(value, list):
            stack.extend((f"{where}[{i}]", v, limit) for i, v in enumerate(value) if isinstance(v, (str, dict, list)))
    return out


def record_problems(rec, pending_log=False):
    """Every contract violation of one record, as 'field: message' strings.

    pending_log: the harness writes records before the log is closed, so the
    log's sha256 may still be the placeholder "pending".
    """
    if not isinstance(rec, dict):
        return [f"record: expected a JSON object, got {type(rec).__name__}"]
    out = []
    _types(rec, RECORD_FIELDS, out)
    if out:
        return out
    if rec["schema_version"] != SCHEMA_VERSION:
        out.append(f"schema_version: {rec['schema_version']} is not {SCHEMA_VERSION}; "
                   "re-run `reportgen retest` to regenerate this run")
    if not _ID.match(rec["id"]):
        out.append(f"id: {rec['id']!r:.80} is not of the form family/key=value/...")
    elif not rec["id"].startswith(rec["experiment"] + "/"):
        out.append(f"id: {rec['id']!r:.80} must start with the experiment name {rec['experiment']!r}")
    for name in ("id", "run_id", "experiment", "case", "metric", "unit"):
        _safe_strings(rec[name], name, out)
    out.extend(_work.size_problems(rec) or _length_problems(rec) + _work.key_problems(rec, _SAFE_TEXT, MAX_LABEL_CHARS))
    for name in ("samples", "stats", "check", "extra", "case"):
        _finite(rec[name], name, out)
    if rec["status"] not in STATUSES:
        out.append(f"status: {rec['status']!r:.40} is not one of {', '.join(STATUSES)}")
    if rec["metric"] not in METRICS:
        out.append(f"metric: {rec['metric']!r:.40} is not one of {', '.join(METRICS)}")
    out.extend(_count_problems(rec))
    if not out and rec["samples"] and rec["unit"] != SAMPLE_UNIT:
        out.append(f"unit: {rec['unit']!r:.40} is not {SAMPLE_UNIT!r}: every page computes its figures "
                   f"(GFLOPS, speed-ups) from samples in seconds")
    if not out:
        from study import cases, work
        out.extend(cases.case_problems(rec["id"], rec["case"], rec["status"]))
        out.extend(work.extra_problems(rec, campaign_problems))
    nested = [("check", CHECK_FIELDS), ("log", LOG_FIELDS)]
    if rec["stats"] is not None:
        nested.append(("stats", STATS_FIELDS))
    for obj, names in nested:
        for name in names:
            if name not in rec[obj]:
                out.append(f"{obj}.{name}: missing")
        for name in rec[obj]:
            if name not in names:
                out.append(f"{obj}.{name}: unknown field")
    if not out:
        out.extend(_log_problems(rec["log"], pending_log))
        out.extend(_sample_problems(rec))
    if not out:   # after the typed fields' own bounds, which name what a field holds: the fields no type bounds
        for name in ("case", "check", "extra"):
            _finite(rec[name], name, out, integers=True)
    return out


SAMPLE_UNIT = "s"
"""The unit of every record that carries samples (the harness times in seconds; a record that
says "ms" over the same numbers would publish figures a thousand times off)."""
MAX_CALLS = 10**9
"""Untimed warm-up calls, or calls averaged in one sample, a record may count (the committed maximum is
32768; warmup and number of 1e90 loaded, a count no harness could have made)."""


def _count_problems(rec):
    """warmup and repeat count calls and samples (>= 0); a record with samples averaged at least
    one call in each (number >= 1). warmup and number are at most MAX_CALLS, and a record without
    samples repeats at most MAX_SAMPLES (one with samples is counted by them, bounded the same)."""
    out = [f"{name}: {rec[name]!r} is negative (a count of calls or samples is >= 0)"
           for name in ("warmup", "repeat", "number") if rec[name] < 0]
    out += [f"{name}: {rec[name]!r:.40} is more than the {limit} {what} a record may count"
            for name, limit, what in (("warmup", MAX_CALLS, "calls"), ("number", MAX_CALLS, "calls"),
                                      ("repeat", MAX_SAMPLES, "samples"))
            if rec[name] > limit and (name != "repeat" or not rec["samples"])]
    if rec["samples"] and rec["number"] < 1:
        out.append(f"number: {rec['number']!r} calls per sample; a record with samples timed at least 1")
    return out


def _log_problems(log, pending_log):
    out = []
    lines = log["lines"]
    if (not isinstance(lines, list) or len(lines) != 2
            or not all(isinstance(x, int) and not isinstance(x, bool) for x in lines)
            or lines[0] < 1 or lines[1] < lines[0]):
        out.append(f"log.lines: expected [first, last] with 1 <= first <= last, got {lines!r:.60}")
    if not (pending_log and log["sha256"] == "pending") and not (
            isinstance(log["sha256"], str) and _SHA.match(log["sha256"])):
        out.append(f"log.sha256: expected 64 hex digits, got {log['sha256']!r:.80}")
    if not isinstance(log["path"], str) or log["path"].startswith("/") or ".." in log["path"]:
        out.append(f"log.path: expected a path relative to results/, got {log['path']!r:.80}")
    return out


def _sample_problems(rec):
    out = []
    samples = rec["samples"]
    if not all(isinstance(s, (int, float)) and not isinstance(s, bool) for s in samples):
        out.append("samples: expected a list of numbers")
        return out
    evidence = rec["metric"] == EVIDENCE
    if evidence and (samples or rec["stats"] is not None):
        out.append("samples: an evidence record carries no samples or stats")
    if rec["unit"] in TIME_UNITS:
        out.extend(_positive_problems(rec))
    out.extend(_check_problems(rec["check"], rec["status"]))
    if rec["status"] == "ok":
        if not evidence:
            out.extend(_timing_problems(rec))
        if rec["check"].get("passed") is not True:
            out.append("check.passed: must be true for an ok record (a wrong kernel is never a time)")
        if rec["error"] is not None:   # 'numeric check FAILED ...' was printed as an ok figure's status
            out.append(f"error: {str(rec['error'])[:60]!r} on an ok record, which has no error (null)")
        if rec["metric"] == "none":   # an ok timed record's samples measure a call ('none' is a failure's)
            out.append("metric: 'none', but an ok record measured a call's time or checked a fact")
    else:
        if not rec["error"]:
            out.append(f"error: required when status is {rec['status']!r}")
        if rec["status"] != "check_failed" and (samples or rec["stats"] is not None or any(
                rec["check"].get(n) is not None for n in ("max_abs_err", "max_rel_err"))):
            # a timeout's 200 samples 1000x faster were printed as its median, a run_failed record's error as a figure
            out.append(f"samples: a {rec['status']} record measured nothing (no samples, stats or check errors; "
                       "a check_failed one keeps the errors that failed)")
        timed = sorted(k for k in (rec.get("extra") or {}) if rec["status"] != "check_failed" and _TIMED.search(k))
        if timed:   # a skipped record kept a first call of 9 s beside its 'nothing measured'
            out.append(f"extra.{timed[0]}: a {rec['status']} record measured nothing, no time either")
    if rec["status"] == "check_failed" and rec["check"].get("passed") is not False:
        out.append("check.passed: must be false when status is check_failed")
    if rec["status"] == "check_failed" and samples:   # its stats as an ok record's: p50 1e-9 beside 21 samples
        out.extend(_timing_problems(rec))
    return out


_TIMED = re.compile(r"^(?!compile|import|build)\w*(?:seconds|_s|_ms)$")
"""An extra field that holds a duration of a call (cold_seconds, op_profile_total_s): a record that measured nothing
has none.  What it did before any call stays (a case skipped on a target without VNNI compiled as evidence)."""


def _positive_problems(rec):
    """A duration is finite and > 0: a zero or negative time is a broken timer, not a figure; and
    it lies in DURATION_RANGE_S."""
    out = [f"samples[{i}]: {v!r} is not a duration > 0 {rec['unit']}"
           for i, v in enumerate(rec["samples"]) if not v > 0]
    low, high = (bound / UNIT_SECONDS[rec["unit"]] for bound in DURATION_RANGE_S)
    out += [f"samples[{i}]: {v!r} {rec['unit']} is not a plausible duration ({low:g} to {high:g} {rec['unit']})"
            for i, v in enumerate(rec["samples"]) if v > 0 and not low <= v <= high][:3]
    if len(rec["samples"]) > MAX_SAMPLES:
        out.append(f"samples: {len(rec['samples'])} values, more than the {MAX_SAMPLES} a record may carry")
    if not out:   # plausible durations: is the work they claim to have done plausible in them?
        out.extend(_work.rate_problems(rec))
    for key, value in (rec["stats"] or {}).items():
        if key in ("std", "n") or not isinstance(value, (int, float)) or isinstance(value, bool):
            continue
        if not value > 0:
            out.append(f"stats.{key}: {value!r} is not a duration > 0 {rec['unit']}")
    return out


def _check_problems(check, status):
    """Errors and threshold are numbers (or null); an ok record's errors are within its threshold."""
    out = []
    ref = check["reference"]
    if not (isinstance(ref, str) and 0 < len(ref) <= MAX_REFERENCE_CHARS):
        out.append(f"check.reference: {ref!r:.60} is not a text of 1 to {MAX_REFERENCE_CHARS} characters naming what "
                   "the result was compared with")
    for name in ("max_abs_err", "max_rel_err", "threshold"):
        value = check[name]
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))):
            out.append(f"check.{name}: expected a number or null, got {value!r:.60}")
        elif isinstance(value, (int, float)) and value < 0:
            out.append(f"check.{name}: {value!r} is negative")
    if check["passed"] not in (True, False, None):
        out.append(f"check.passed: expected true, false or null, got {check['passed']!r:.60}")
    if out or status != "ok" or check["threshold"] is None:
        return out
    errors = [check[n] for n in ("max_abs_err", "max_rel_err") if check[n] is not None]
    if errors and min(errors) > check["threshold"]:
        out.append(f"check: error {min(errors):.3g} exceeds its own threshold {check['threshold']:.3g} "
                   "but status is ok (it must be check_failed)")
    return out


def _timing_problems(rec):
    """An ok timed record: samples present, counted by repeat, summarized by stats."""
    samples = rec["samples"]
    if not samples:
        return ["samples: empty, but status is ok"]
    if len(samples) != rec["repeat"]:
        return [f"samples: {len(samples)} values but repeat is {rec['repeat']}"]
    if rec["stats"] is None:
        return ["stats: missing for an ok record"]
    if type(rec["stats"].get("n")) is not int:   # 3.0 or true equal 3 and 1 in the comparison below
        return [f"stats.n: expected a count of samples, got {rec['stats'].get('n')!r:.40}"]
    try:   # one sample of 1e200: its square overflows ('reportgen broke on this input')
        return [] if _stats.same_stats(rec["stats"], _stats.summarize(samples)) else ["stats: do not match a recomputation from samples"]
    except OverflowError:
        return ["stats: cannot be recomputed from samples (a sample is out of range)"]


def run_problems(run):
    """Every contract violation of a run manifest, as 'field: message' strings."""
    if not isinstance(run, dict):
        return [f"run: expected a JSON object, got {type(run).__name__}"]
    out = []
    _types(run, RUN_FIELDS, out)
    if out:
        return out
    if run["schema_version"] != SCHEMA_VERSION:
        out.append(f"schema_version: {run['schema_version']} is not {SCHEMA_VERSION}; "
                   "re-run `reportgen retest` to regenerate this run")
    env = run["environment"]
    for name in ENV_REQUIRED:
        if env.get(name) in (None, "", [], {}):
            out.append(f"environment.{name}: missing or empty")
    for name in ("environment", "experiments"):
        _finite(run[name], name, out)
    _visible_strings(run["environment"], "environment", out)
    out.extend(manifest.environment_problems(env))
    for name in ("environment", "command", "experiments"):
        out.extend(_long_strings(run[name], name, MAX_ENV_CHARS))
    out.extend(manifest.size_problems(run))
    _safe_strings(run["run_id"], "run_id", out)
    out.extend(_time_problems(run))
    match = _RUN_ID.match(run["run_id"])
    if match and not any(p.startswith("environment.") for p in out):   # an id of a complete environment
        out.extend(_machine_problems(match.group(3), env))
    for name in GIT_FIELDS:
        if name not in run["git"]:
            out.append(f"git.{name}: missing")
    out.extend(f"git.{name}: unknown field" for name in run["git"] if name not in GIT_FIELDS)
    out.extend(manifest.git_problems(run["git"]))
    for family, entry in run["experiments"].items():
        if not isinstance(entry, dict):
            out.append(f"experiments.{family}: expected an object")
            continue
        out.extend(f"experiments.{family}.{name}: missing" for name in EXPERIMENT_FIELDS if name not in entry)
        out.extend(f"experiments.{family}.{name}: unknown field" for name in entry
                   if name not in EXPERIMENT_FIELDS + EXPERIMENT_OPTIONAL)
        if entry.get("status") not in ("ok", "run_failed", "timeout", "stopped"):
            out.append(f"experiments.{family}.status: {entry.get('status')!r} is not ok, run_failed, "
                       f"timeout or stopped")
        out.extend(manifest.experiment_problems(family, entry))
        if not _FAMILY.match(family):
            out.append(f"experiments: {family!r:.60} is not a family name (lower-case ASCII letters, digits, _)")
    for path, sha in run["files"].items():
        if not _FILE_NAME.match(path):
            out.append(f"files: {path!r:.80} is not a file name a run may hold (ASCII letters, digits, "
                       "_ . + = - and / between parts)")
        elif not isinstance(sha, str) or not _SHA.match(sha):
            out.append(f"files.{path}: expected a sha256, got {sha!r}")
    return out


def _parse_time(text):
    import datetime as _dt
    if not (isinstance(text, str) and _UTC.match(text)):
        raise ValueError(f"{text!r:.40} is not of the form 2026-01-01T00:00:00Z")
    return _dt.datetime.strptime(text, _TIME).replace(tzinfo=_dt.timezone.utc)


def _machine_problems(named, env):
    """The run id's machine part is the machine its environment records (environment.machine_id),
    and that is the id of the hardware the environment describes (study.identity): a run renamed
    ...-aaaaaaaaaaaa would otherwise publish one machine's figures under another's name."""
    from study import identity
    stamped = env.get("machine_id")
    if named != stamped and re.sub(r"-([2-9]|[1-9]\d{1,3})$", "", named) == stamped:
        named = stamped   # -2, -3: a second run started within the same second (retest._unique_run_id)
    if named != stamped:
        return [f"run_id: names machine {named!r:.70} but environment.machine_id is {stamped!r:.70}"]
    if stamped not in identity.stamped_ids(env):
        return [f"environment.machine_id: {stamped!r:.70} is not the id of the hardware the environment "
                f"describes ({identity.machine_id(env)})"]
    return []


def _time_problems(run):
    """The run's id, profile and times are checked facts: they decide which run is newest."""
    import datetime as _dt
    out = []
    if run["profile"] not in PROFILES:
        out.append(f"profile: {run['profile']!r:.40} is not one of {', '.join(PROFILES)}")
    match = _RUN_ID.match(run["run_id"])
    if not match:
        return out + [f"run_id: {run['run_id']!r:.80} is not <UTC time>-<profile>-<machine>"]
    if match.group(2) != run["profile"]:
        out.append(f"run_id: names profile {match.group(2)!r} but profile is {run['profile']!r:.40}")
    latest = _dt.datetime.now(_dt.timezone.utc) + _dt.timedelta(seconds=FUTURE_SLACK_S)
    times = {}
    for name, text in (("run_id", match.group(1)), ("started_at", run["started_at"]), ("finished_at", run["finished_at"])):
        try:
            times[name] = (_dt.datetime.strptime(text, "%Y%m%dT%H%M%SZ").replace(tzinfo=_dt.timezone.utc)
                           if name == "run_id" else _parse_time(text))
        except ValueError:
            out.append(f"{name}: {text!r:.40} is not a UTC time like 2026-01-01T00:00:00Z")
            continue
        if times[name] > latest:
            out.append(f"{name}: {text!r:.40} lies in the future")
    if "run_id" in times and "started_at" in times and times["run_id"] != times["started_at"].replace(microsecond=0):
        # the id's time orders the runs (which is newest); it is the start, to the second
        out.append(f"started_at: {run['started_at']!r:.40} differs from the time its run_id names "
                   f"({match.group(1)}); a run's id is its start time")
    if "started_at" in times and "finished_at" in times:
        out.extend(manifest.duration_problems(run, times["started_at"], times["finished_at"]))
    return out


CAMPAIGN_FILES = ("campaign.json", "database_workload.json", "database_tuning_record.json")
"""What a campaign folder (results/campaigns/<key>/) may hold: its state and MetaSchedule's two
JSON-lines databases, as plain files."""

def campaign_folder_problems(folder):
    """Problems of a campaign folder's entries, never following a link: the folder itself must be
    a plain folder and hold only CAMPAIGN_FILES as plain files of one name each (a hard link is a
    second name of a file elsewhere). One rule for the build (reportgen) and for the retest that
    seeds a tuning job from the folder (experiments)."""
    import os
    import stat
    from pathlib import Path
    folder = Path(folder)
    if not stat.S_ISDIR(os.lstat(folder).st_mode):
        return [f"{folder}: not a campaign folder (a plain folder, never a symlink or a file)"]
    return [f"{folder / name}: a campaign holds only the plain files {', '.join(CAMPAIGN_FILES)}, "
            "each of one name (no symlink or hard link)"
            for name in sorted(os.listdir(folder))
            if name not in CAMPAIGN_FILES or not stat.S_ISREG(os.lstat(folder / name).st_mode)
            or os.lstat(folder / name).st_nlink > 1]   # a hard link: a second name of a file elsewhere


CAMPAIGN_FIELDS = {
    "key": (str, "the folder's name: <model>-b<batch>-s<size>-<variant>-<digest of parts>"),
    "parts": (dict, "what the database is valid for: model, batch, input_size, seed, variant, target, tvm_version"),
    "cumulative_trials": (int, "trials measured into the database over all steps"),
    "steps": (list, "one per retest that continued the campaign, oldest first"),
}
CAMPAIGN_STEP_FIELDS = ("run_id", "trials", "seconds", "cumulative_trials", "estimated_kernel_s", "records")
MAX_TRIALS = _work.MAX_TRIALS   # trials (and records) a campaign may count, in a step and in all


CAMPAIGN_PARTS = ("model", "batch", "input_size", "seed", "variant", "target", "tvm_version")


def campaign_key(parts):
    """A campaign's key (its folder's name) from its parts: <model>-b<batch>-s<size>-<variant>-<digest>;
    the digest covers every part, so parts edited after the fact no longer match the key."""
    import hashlib
    digest = hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()[:10]
    return f"{parts['model']}-b{parts['batch']}-s{parts['input_size']}-{parts['variant']}-{digest}"


def _step_run_problems(where, run_id):
    """A step names a run by a well-formed id, not dated in the future."""
    import datetime as _dt
    match = _RUN_ID.match(run_id) if isinstance(run_id, str) else None
    if not match:
        return [f"{where}.run_id: {run_id!r:.80} is not a run id (<UTC time>-<profile>-<machine>)"]
    try:
        when = _dt.datetime.strptime(match.group(1), "%Y%m%dT%H%M%SZ").replace(tzinfo=_dt.timezone.utc)
    except ValueError:
        return [f"{where}.run_id: {run_id!r:.80} does not name a UTC time"]
    if when > _dt.datetime.now(_dt.timezone.utc) + _dt.timedelta(seconds=FUTURE_SLACK_S):
        return [f"{where}.run_id: {run_id!r:.80} lies in the future"]
    return []


def _parts_problems(parts, key):
    out = [f"parts.{name}: missing" for name in CAMPAIGN_PARTS if name not in parts]
    out += [f"parts.{name}: unknown field" for name in parts if name not in CAMPAIGN_PARTS]
    _visible_strings(parts, "parts", out)
    out += _long_strings(parts, "parts", MAX_ENV_CHARS)
    if not out and campaign_key(parts) != key:
        out.append(f"parts: do not match the key {key!r:.80} (its digest is of other parts: "
                   f"{campaign_key(parts)!r:.80})")
    return out


def campaign_problems(state, folder_name):
    """Every contract violation of a campaign.json, as 'field: message' strings; the cumulative
    trial count must be the sum of the steps' trials (an inflated count is refused)."""
    if not isinstance(state, dict):
        return [f"campaign: expected a JSON object, got {type(state).__name__}"]
    out = []
    _types(state, CAMPAIGN_FIELDS, out)
    if out:
        return out
    _safe_strings(state["key"], "key", out)
    _finite(state, "campaign", out)
    if state["key"] != folder_name:
        out.append(f"key: {state['key']!r:.80} is not its folder's name {folder_name!r:.80}")
    out.extend(_parts_problems(state["parts"], state["key"]))
    total, runs = 0, {}
    if len(state["steps"]) > _work.MAX_CAMPAIGN_STEPS:   # one per retest; checked linearly below (runs)
        return out + [f"steps: {len(state['steps'])}, more than the {_work.MAX_CAMPAIGN_STEPS} steps a campaign holds"]
    for i, step in enumerate(state["steps"]):
        where = f"steps[{i}]"
        if not isinstance(step, dict):
            out.append(f"{where}: expected an object")
            continue
        out.extend(f"{where}.{name}: missing" for name in CAMPAIGN_STEP_FIELDS if name not in step)
        out.extend(f"{where}.{name}: unknown field" for name in step if name not in CAMPAIGN_STEP_FIELDS)
        out.extend(_step_run_problems(where, step.get("run_id")) or _work.step_order_problems(where, step, runs))
        runs.update({step["run_id"]: i} if isinstance(step.get("run_id"), str) and step["run_id"] not in runs else {})
        for name in ("trials", "cumulative_trials", "records"):
            if name in step and not _stats.is_count(step[name]):
                out.append(f"{where}.{name}: expected a count >= 0, got {step[name]!r:.40}")
            elif name in step and step[name] > MAX_TRIALS:
                out.append(f"{where}.{name}: {step[name]!r:.40} is more than the {MAX_TRIALS} a campaign may count")
        seconds = step.get("seconds")
        if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not 0 <= seconds <= DURATION_RANGE_S[1]:
            out.append(f"{where}.seconds: expected a duration of 0 to {DURATION_RANGE_S[1]:g} s, got {seconds!r:.40}")
        estimate = step.get("estimated_kernel_s")
        if estimate is not None and (isinstance(estimate, bool) or not isinstance(estimate, (int, float))
                                     or not DURATION_RANGE_S[0] <= estimate <= DURATION_RANGE_S[1]):
            out.append(f"{where}.estimated_kernel_s: expected a duration of {DURATION_RANGE_S[0]:g} to "
                       f"{DURATION_RANGE_S[1]:g} s or null, got {estimate!r:.40}")
        if _stats.is_count(step.get("trials")):
            total += step["trials"]
            if _stats.is_count(step.get("cumulative_trials")) and step["cumulative_trials"] != total:
                out.append(f"{where}.cumulative_trials: {step['cumulative_trials']} is not the sum of the "
                           f"steps' trials so far ({total})")
    if not _stats.is_count(state["cumulative_trials"]):
        out.append(f"cumulative_trials: expected a count >= 0, got {state['cumulative_trials']!r:.40}")
    elif state["cumulative_trials"] > MAX_TRIALS:
        out.append(f"cumulative_trials: {state['cumulative_trials']!r:.40} is more than the {MAX_TRIALS} a campaign "
                   "may count")
    elif not out and state["cumulative_trials"] != total:
        out.append(f"cumulative_trials: {state['cumulative_trials']} is not the sum of its steps' trials ({total})")
    return out
