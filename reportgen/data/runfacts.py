"""What a run's manifest says checked against its records, and against the other runs.

run.json counts each family's records; the history compares runs of one machine in the order they
ran. Both are figures a page shows or decides with, so both are checked facts: a count that is not
the records' count, a machine id naming two different hardwares, or two runs of one machine that
started in the same second (which ran first?) are refused, naming the file and the field; a run
whose git commit this repository does not hold is known (unknown_commits) and left off the site.
"""
import re
from collections import Counter
from pathlib import Path

from study import cases, citation, identity, stats
from reportgen.data import familyfacts, runlists
from reportgen.errors import ReportError

_NUMBERED = re.compile(r"^(.*)-([2-9]|[1-9]\d{1,3})$")
"""<id>-2, <id>-3, ...: what retest names a second run started within the same second."""


def count_problems(run_path, manifest, records):
    """Each family's entry in run.json counts its records and reused records in records.jsonl, and
    every family with records has an entry."""
    where = run_path / "run.json"
    counted = Counter(rec["experiment"] for rec in records)
    reused = Counter(rec["experiment"] for rec in records if rec["reused_from"] is not None)
    out = [f"{where}: experiments: no entry for {family!r}, whose {counted[family]} records are in records.jsonl"
           for family in sorted(set(counted) - set(manifest["experiments"]))]
    for family, entry in manifest["experiments"].items():
        own = f"runs/{run_path.name}/logs/{family}.log"   # as retest writes it: the family's log of this run
        if isinstance(entry, dict) and entry.get("log") != own:
            out.append(f"{where}: experiments.{family}.log: {entry.get('log')!r:.80} is not the family's log "
                       f"of this run ({own})")
        for name, found in (("records", counted[family]), ("reused", reused[family])):
            if isinstance(entry, dict) and entry.get(name) != found:
                out.append(f"{where}: experiments.{family}.{name}: {entry.get(name)!r:.40} but records.jsonl "
                           f"holds {found} of the family's records{' reused' if name == 'reused' else ''}")
        if isinstance(entry, dict):
            out.extend(f"{where}: experiments.{family}.{p}"
                       for p in familyfacts.status_problems(family, entry, records, manifest))
    return out


def _start(run):
    """(the second a run id names, the retest number within that second: 1 for the first)."""
    stamped = run.manifest["environment"].get("machine_id") or ""   # a loaded run always has one
    numbered = _NUMBERED.match(run.run_id)
    number = int(numbered.group(2)) if numbered and not run.run_id.endswith("-" + stamped) else 1
    return run.run_id.split("-", 1)[0], number


def order_key(run):
    """A run's place among the runs: the second its id names, then retest's number within it."""
    return _start(run), run.run_id


def order(runs):
    """Runs oldest first: by the second their id names, then by retest's number within it (-10 after -2)."""
    return sorted(runs, key=order_key)


def overlap_problems(run):
    """A run started at or after study.citation.NAMED_FROM cites, for the records it measured, ranges
    of a log that do not overlap: the harness starts each range after the last one ends. Nested
    ranges would show one line as the evidence of many records, and make every check read it again
    (40 failed records over one 16 MiB line took a build a minute).  A family's own record (scope=family:
    it stopped, timed out or exited early) cites its whole log, as retest writes it: one per family."""
    if not citation.bound(run.run_id):
        return []
    ranges = {}
    for index, rec in enumerate(run.records):
        if rec["reused_from"] is None and rec["id"] != cases.case_id(rec["experiment"], scope="family"):
            first, last = rec["log"]["lines"]
            ranges.setdefault(rec["log"]["path"], []).append((first, last, index))
    out = []
    for path, spans in ranges.items():
        spans.sort()
        end, owner = 0, None
        for first, last, index in spans:
            if first <= end:
                out.append(f"{run.where(index)}: log.lines: lines {first}-{last} of {path} overlap lines "
                           f"cited by {run.records[owner]['id']!r} ({run.where(owner)}); runs from "
                           f"{citation.NAMED_FROM} on cite one range of their log per record")
            if last > end:
                end, owner = last, index
    return out


COPIED_MIN = 3
"""Samples a record needs for its list to count as a measurement's own (no two real timings of three
calls or more repeat to the last bit)."""


def copied_problems(runs):
    """Two records measured (not reused) in any runs, of any machines, with the same list of samples
    are one measurement cited twice: three hundred copies of one record under invented ids padded a
    machine's case count past the published one's, and a record copied into a run of another machine
    id stood as that machine's figure.  retest carries a record over only as a reuse (reused_from).
    A record without samples (evidence: a pass's IR counts) is one measurement when its extra is
    another case's, byte for byte (240 copies of one under invented ids padded a machine the same way;
    the same case measured again may well find the same). Checked for the records of runs bound by
    the citation rule (study.citation.NAMED_FROM), against every earlier record."""
    import json
    seen, out = {}, []
    for run in runs:
        for index, rec in enumerate(run.records):
            samples, extra = rec.get("samples"), rec.get("extra")
            if rec["reused_from"] is not None or rec["status"] != "ok":
                continue
            if isinstance(samples, list) and len(samples) >= COPIED_MIN:
                key, what, case = ("samples", tuple(samples)), f"the same {len(samples)} samples as", None
            elif not samples and isinstance(extra, dict) and extra:
                key, what = ("extra", json.dumps(extra, sort_keys=True)), "no samples and the same extra as"
                case = cases.canonical_id(rec["id"], rec.get("case"))
            else:
                continue
            first = seen.setdefault(key, (run, index))
            if first == (run, index) or not citation.bound(run.run_id):   # older runs: published with a marker
                continue
            other = first[0].records[first[1]]
            if case is not None and cases.canonical_id(other["id"], other.get("case")) == case:
                continue
            out.append(f"{run.where(index)}: {key[0]}: {what} record {other['id']!r} ({first[0].where(first[1])}): "
                       "one measurement is not two records (a record carried over is a reuse, with reused_from)")
    return out


TUNING_FIELDS = (("trials", ("tuning", "measured")), ("valid_trials", ("tuning", "valid")),
                 ("seconds", ("tuning", "seconds")), ("cumulative_trials", ("campaign", "cumulative_trials")))
"""A record's summary of the tuning it used (extra.tuning) and where the tuning record it names says it."""
TUNING_NAMES = ("record", "run_id", "trials", "seconds", "scheduled", "unscheduled")
"""What a tuned e2e record's summary holds (the e2e page prints each of them)."""


def tuning_problems(runs):
    """An e2e record that says it was tuned (an ok record of group D, or any with extra.tuning) names
    the tuning record it used (extra.tuning: record, run_id) and says what that record says: trials,
    valid trials, seconds, cumulative trials, and the kernels scheduled (the ones the tuning record's
    database schedules in the same module).  The tuning run is kept, of the same machine, and started no later.  A forged e2e
    record claiming 200 000 trials of a search whose record holds 268 was published and the page's
    advice changed with it; left without its record name, or naming another machine's run, it was
    taken on its word.  A tuning run not kept is a problem for runs bound by the citation rule."""
    from reportgen.data.queries import RULE_ENGINES
    by_id = {run.run_id: run for run in runs}
    out = []
    for run in runs:
        for index, rec in enumerate(run.records):
            extra = rec.get("extra") or {}
            claim = extra.get("tuning")
            # a rule engine's search is its rules_tuning (searchfacts); any other record saying it was tuned
            # names its MetaSchedule tuning (tuned: true on group B without one broke the e2e page)
            tuned = rec["experiment"] == "e2e" and rec["status"] == "ok" and (
                claim is not None or (extra.get("tuned") and (rec.get("case") or {}).get("engine") not in RULE_ENGINES))
            if tuned:
                out.extend(f"{run.where(index)}: extra.tuning{p}" for p in _tuning_claim_problems(run, claim, by_id))
            out.extend(f"{run.where(index)}: {p}" for p in familyfacts.tuning_case_problems(rec, claim, by_id, run.machine))   # every status
    return out


def _tuning_claim_problems(run, claim, by_id):
    """What is wrong with one record's tuning summary, each as '.field: why' (or ': why')."""
    if not isinstance(claim, dict):
        return [f": {claim!r:.40}: a tuned record names the tuning it used (record, run_id, trials, seconds, scheduled)"]
    missing = [name for name in TUNING_NAMES if claim.get(name) is None]
    if missing:
        return [f".{missing[0]}: missing (a tuned record names the tuning it used: {', '.join(TUNING_NAMES)})"]
    if not (isinstance(claim["record"], str) and isinstance(claim["run_id"], str)):
        return [".record: expected the tuning record's id and run id as text"]
    tuner = by_id.get(claim["run_id"])
    if tuner is None:
        return [f".run_id: run {claim['run_id']!r:.80} is not in results/runs (the tuning a record used is a record "
                "of a kept run)"] if citation.bound(run.run_id) else []
    if tuner.machine != run.machine or order_key(tuner) > order_key(run):
        return [f".run_id: run {claim['run_id']!r:.80} is {'of machine ' + str(tuner.machine) if tuner.machine != run.machine else 'later than this run'}"
                " (a record uses a search of its own machine, made before it)"]
    tune = next((r for r in tuner.records if r["id"] == claim["record"]), None)
    if tune is None or tune["status"] != "ok":
        return [f".record: run {claim['run_id']!r:.80} holds no ok record {claim['record']!r:.120}"]
    extra, out = tune.get("extra") or {}, []
    for name, (part, key) in TUNING_FIELDS:
        source = extra.get(part) if isinstance(extra.get(part), dict) else {}
        if name in claim and key in source and claim[name] != source[key]:
            out.append(f".{name}: {claim[name]!r:.40} but the tuning record {claim['record']!r:.120} of run "
                       f"{claim['run_id']} says {source[key]!r:.40}")
    coverage = extra.get("coverage") if isinstance(extra.get("coverage"), dict) else {}
    scheduled = coverage.get("scheduled")   # the kernels its database schedules in the same module
    if isinstance(scheduled, list) and claim["scheduled"] != len(scheduled):
        out.append(f".scheduled: {claim['scheduled']!r:.40} kernels, but the database of the tuning record "
                   f"{claim['record']!r:.120} schedules {len(scheduled)}")
    unscheduled = coverage.get("unscheduled")   # the summary's 'n/N kernels scheduled' reads its length
    if isinstance(unscheduled, list) and sorted(map(str, claim["unscheduled"])) != sorted(map(str, unscheduled)):
        out.append(f".unscheduled: {len(claim['unscheduled'])} kernels, but the tuning record {claim['record']!r:.120} "
                   f"leaves {len(unscheduled)} unscheduled")
    return out


def unnamed_problems(run, lines_of):
    """A run started at or after study.citation.NAMED_FROM cites, for each record it measured, log
    lines that name the record (the harness writes such a line when a case printed none); older runs
    are published with a marker on the record's evidence instead. The lines also agree with it: none
    about an ok record reports a failure or another median, and the last is the record's summary
    (citation.statement_problems, summary_problem), and the log holds no other summary of it
    (citation.summaries: a record reported twice, the second median outside its cited range).
    ``lines_of(rec)``: its log's lines."""
    if not citation.bound(run.run_id):
        return []
    out, logs, said, ids = [], {}, {}, {rec["id"] for rec in run.records}
    for index, rec in enumerate(run.records):
        if rec["reused_from"] is not None:   # checked with the run it was measured in
            continue
        path, (first, last) = rec["log"]["path"], rec["log"]["lines"]
        if path not in logs:
            logs[path] = lines_of(rec)
            said[path] = citation.summaries(logs[path])
        cited = logs[path][first - 1:last]
        every = citation.summarised(said[path], rec, ids)
        elsewhere = [n for n in every if not first <= n <= last]
        if elsewhere:
            out.append(f"{run.where(index)}: log.lines: line {elsewhere[0]} of {path}, outside the cited lines "
                       f"{first}-{last}, is a summary of the record too (a log reports each record once)")
            continue
        if len(every) > 1:   # one measurement reported as two, both inside the cited lines
            out.append(f"{run.where(index)}: log.lines: lines {every[0]} and {every[1]} of {path}, inside the cited "
                       f"lines {first}-{last}, are both summaries of the record (a log reports each record once)")
            continue
        if not citation.names_record(rec["id"], "\n".join(cited)):
            out.append(f"{run.where(index)}: log.lines: lines {first}-{last} of {path} do not name the record "
                       f"{rec['id']!r} (runs from {citation.NAMED_FROM} on cite lines about their own record)")
            continue
        problems = [p for p in citation.statement_problems(rec, cited) + [citation.summary_problem(rec, cited[-1])] if p]
        out.extend(f"{run.where(index)}: log.lines: lines {first}-{last} of {path}: {problem} (runs from "
                   f"{citation.NAMED_FROM} on cite lines that agree with their record)" for problem in problems)
        # an ok record's figure is published, its excerpt beside it (a failure's range is the family's whole log)
        stray = citation.stray_median(cited[:-1]) if not problems and rec["status"] == "ok" else None
        if stray is not None:
            out.append(f"{run.where(index)}: log.lines: line {first + stray} of {path}, inside the cited lines "
                       f"{first}-{last}, states a median in a summary's words or is spelled with lookalike letters, but "
                       f"the record's summary is its last line (the harness writes that phrase only there, and its "
                       f"lines in Latin letters)")
    return out + _summarised_elsewhere(run, said, ids)


def _summarised_elsewhere(run, said, ids):
    """A record's summary in a log of its run other than its own (a run reports each record once, in its family's
    log): a 7x median of a NumPy case appended to the hand kernels' log was published beside the real one, in a
    log no check read for it."""
    for index, rec in enumerate(run.records):
        if rec["reused_from"] is not None:
            continue
        other = next(((path, lines) for path, found in said.items() if path != rec["log"]["path"]
                      for lines in [citation.summarised(found, rec, ids)] if lines), None)
        if other is not None:
            return [f"{run.where(index)}: log.lines: line {other[1][0]} of {other[0]} is a summary of the record, "
                    f"which its own log {rec['log']['path']} reports (a run reports each record once, in its family's log)"]
    failed = {rec["log"]["path"] for rec in run.records if "scope=family" in rec["id"]}
    for path, found in said.items():   # and reports only its own records: a 999 ms summary of another run's record
        if path in failed:   # a family that failed as a whole kept none of the records its log reported
            continue
        reported = {n for rec in run.records for n in citation.summarised(found, rec, ids)}
        stray = sorted(n for numbers in found.values() for n in numbers if n not in reported)
        if stray:
            return [f"results/{path}: line {stray[0]} is the summary of a record this run does not hold (a run's logs "
                    "report its own records)"]
    return []


# the reviewed lists of runs (archive/): their readers live in runlists, named here as before
SEALED, manifest_sha256, sealed_list, sealed_problems = (runlists.SEALED, runlists.manifest_sha256, runlists.sealed_list,
                                                    runlists.sealed_problems)


def spelling_problems(run):
    """A run bound by the citation rule (from study.citation.NAMED_FROM on) writes each record's id as
    cases.case_id spells its case (cases.canonical_id): another spelling of one case (fields in another
    order, an optional field its case holds left out) made two current records of it."""
    if not citation.bound(run.run_id):
        return []
    out = []
    for index, rec in enumerate(run.records):
        wanted = cases.canonical_id(rec["id"], rec["case"])
        if wanted != rec["id"]:
            out.append(f"{run.where(index)}: id: {rec['id']!r:.160} is not the spelling of its case "
                       f"({wanted!r:.160}, fields in declared order; runs from {citation.NAMED_FROM} on)")
    return out


HARDWARE = ("caches", "physical_cores", "tvm_target", "isa_level", "affinity", "hypervisor",
            "python_version", "tvm_num_threads", "blas", "blas_env")
"""What one machine's runs report alike beside its id's fields, its hardware and the setup the study holds
fixed (the venv's Python, TVM's threads, NumPy's OpenBLAS and its environment): a one-record run reporting
8K of L1 and 512K of L3, one CPU of affinity and mcpu haswell, or OpenBLAS 0.2.20 on one thread and Python
3.6, made the environment page its own.  The OS, its kernel and the compiler may change (updates)."""
MHZ_SPREAD = 0.10
"""How far a machine's reported clock may move between its runs (the committed runs: 0.001 %)."""
MEMORY_SPREAD = 0.01
"""How far a machine's memory may move between its runs (the committed runs: 0.001 %; the machine id rounds
it to whole GiB, so 24.5 GiB was shown for 23.5 under one id)."""


def _mhz(env):
    mhz = env.get("cpu_mhz")
    value = mhz.get("value") if isinstance(mhz, dict) else mhz
    return value if stats.is_number(value) and value > 0 else None


def _memory(env):
    value = env.get("memory_bytes")
    return value if stats.is_number(value) and value > 0 else None


def _mhz_source(env):
    return env["cpu_mhz"].get("source") if isinstance(env.get("cpu_mhz"), dict) else None


def _hardware_field(env, was):
    """The first field of HARDWARE, the clock's source, the clock or the memory in which ``env`` is not ``was``."""
    field = next((k for k in HARDWARE if env.get(k) != was.get(k)), None)
    if field is None and _mhz_source(env) != _mhz_source(was):
        return "cpu_mhz.source"
    for name, value, spread in (("cpu_mhz", _mhz, MHZ_SPREAD), ("memory_bytes", _memory, MEMORY_SPREAD)):
        a, b = value(was), value(env)
        if field is None and a is not None and (b is None or abs(b - a) > spread * a):
            return name
    return field


def hardware_problems(runs):
    """Runs of one machine report its hardware alike (HARDWARE and the clock's source, the clock within MHZ_SPREAD
    and the memory within MEMORY_SPREAD of its first run): a later run that differs is refused, naming the field
    and the run it differs from."""
    first, out = {}, []
    for run in runs:
        env = run.manifest["environment"]
        other = first.setdefault(run.machine, run)
        if other is run:
            continue
        was = other.manifest["environment"]
        field = _hardware_field(env, was)
        if field is not None:
            shown = _mhz_source if field == "cpu_mhz.source" else (lambda e: e.get(field))
            out.append(f"{run.path / 'run.json'}: environment.{field}: {str(shown(env))!r:.60} differs from run "
                       f"{other.run_id} of the same machine {run.machine!r} ({str(shown(was))!r:.60}): one machine, "
                       "one hardware and setup")
    return out


def machine_problems(runs):
    """The machine a run id names is a checked fact: runs named for one machine describe one
    hardware (an id of the rule before today's covers fewer fields, and one of its runs edited in
    the others would leave its machine's history), and only runs recorded before today's rule
    carry such an id."""
    first, out = {}, []
    for run in runs:
        env = run.manifest["environment"]
        stamped, where = env["machine_id"], run.path / "run.json"
        if stamped != run.machine and run.run_id[:len(identity.LEGACY_BEFORE)] >= identity.LEGACY_BEFORE:
            out.append(f"{where}: environment.machine_id: {stamped!r} is an id of the rule before "
                       f"{identity.LEGACY_BEFORE}, but the run is later (today's rule names it {run.machine!r})")
        other = first.setdefault(stamped, run)
        if run.machine != other.machine:
            env_other = other.manifest["environment"]
            field = next((k for k in identity.MACHINE_FIELDS + ("memory_bytes",) if env.get(k) != env_other.get(k)),
                         "machine_id")
            out.append(f"{where}: environment.{field}: differs from run {other.run_id}, which names the same "
                       f"machine {stamped!r}: one machine id, two hardwares")
    return out


def same_second_problems(runs):
    """One machine's runs start in different seconds, unless retest numbered them (<id>, <id>-2):
    two runs of other profiles in one second leave which ran first to chance."""
    seen, out = {}, []
    for run in runs:
        second, _number = _start(run)
        base = f"{second}-{run.manifest['profile']}-{run.manifest['environment']['machine_id']}"
        other = seen.setdefault((second, run.machine), (run, base))
        if other[0] is not run and other[1] != base:
            out.append(f"{run.path / 'run.json'}: run_id: {run.run_id!r} started in the same second as "
                       f"{other[0].run_id!r} of the same machine (which ran first is unknown; a machine runs "
                       "one retest at a time, and a second one within a second is <id>-2)")
    return out


def anchor(text):
    """The HTML anchor of an id on a provenance page, and the stem of its shipped file
    (anchor): lower-case letters and digits, runs of anything else one hyphen."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def anchor_problems(runs):
    """Two record ids that differ only by case or punctuation (blas=configured, blas=Configured,
    n=32 and n-32) are one provenance anchor and one entry name (render.figures.slug): a figure of the
    one would link to the other's entry, so the second id is refused, naming its line."""
    first, out = {}, []
    for run in runs:
        for index, rec in enumerate(run.records):
            other = first.setdefault(anchor(rec["id"]), rec["id"])
            if other != rec["id"]:
                where = run.where(index) if hasattr(run, "where") else f"{run.path / 'records.jsonl'}:{index + 1}"
                out.append(f"{where}: id: {rec['id']!r} has the anchor of "
                           f"{other!r} (ids that differ only by case or punctuation name one entry)")
    return out


def reuse_problems(runs):
    """A reused record must be exactly the record of the run it came from (nothing edited on the way),
    an earlier run of the same machine (retest reuses only so): a record carried into another
    machine's run would stand as that machine's figure, one carried back into an earlier run would
    date a measurement before it was made."""
    by_run = {run.run_id: {rec["id"]: rec for rec in run.records} for run in runs}
    runs_by_id = {run.run_id: run for run in runs}
    out, newest_of = [], {}
    for run in runs:
        for index, rec in enumerate(run.records):
            if rec["reused_from"] is None:
                continue
            where = run.where(index)
            origin = by_run.get(rec["reused_from"])
            if origin is None:
                out.append(f"{where}: reused_from: run {rec['reused_from']!r} is not in results/runs")
                continue
            source = runs_by_id[rec["reused_from"]]
            if source.machine != run.machine:
                out.append(f"{where}: reused_from: run {rec['reused_from']!r} is of machine {source.machine}, not of "
                           f"this run's machine {run.machine} (a record is reused only on the machine that measured it)")
                continue
            if order_key(source) >= order_key(run):
                out.append(f"{where}: reused_from: run {rec['reused_from']!r} did not start before this run "
                           "(a record is reused only from an earlier run)")
                continue
            original = origin.get(rec["id"])
            if original is None or dict(original, reused_from=rec["reused_from"]) != rec:
                out.append(f"{where}: reused_from: differs from record {rec['id']!r} of run "
                           f"{rec['reused_from']!r} (a reused record is carried over unchanged)")
                continue
            out.extend(f"{where}: reused_from: {problem}" for problem in _reuse_rule_problems(run, rec, source, runs, by_run, newest_of))
    return out


def _reuse_rule_problems(run, rec, source, runs, by_run, newest_of=None):
    """Why a record a run carries over is not one retest would have reused: retest reuses an ok
    record of the newest earlier run of the machine whose family was not stopped, and only from a run of
    the same profile (its parameters, in the record's fingerprint, are the profile's).  A hand-made reuse
    made an older record of older code current again over a later measurement, or a quick run's record
    the machine's standard figure."""
    if rec.get("status") != "ok":
        return [f"record {rec['id']!r} is {rec.get('status')!r:.20} (retest reuses only ok records)"]
    if source.manifest.get("profile") != run.manifest.get("profile"):
        return [f"run {source.run_id!r} is a {source.manifest.get('profile')!r:.20} run, this one a "
                f"{run.manifest.get('profile')!r:.20} run (retest reuses only a record measured with the same profile)"]
    family = rec["experiment"]
    newest_of = {} if newest_of is None else newest_of   # {(run id, family): that run}, asked once per pair
    if (run.run_id, family) not in newest_of:
        before = [r for r in runs if r.machine == run.machine and order_key(r) < order_key(run)
                  and (r.manifest.get("experiments") or {}).get(family, {}).get("status") not in (None, "stopped")]
        newest_of[run.run_id, family] = max(before, key=order_key, default=None)
    newest = newest_of[run.run_id, family]
    if newest is None:
        return []
    held = by_run[newest.run_id].get(rec["id"])
    if held is None or dict(held, reused_from=rec["reused_from"]) != rec:
        return [f"run {newest.run_id!r}, the newest earlier run of this machine that measured {family}, does not hold "
                f"this record (retest reuses only from that run)"]
    return []


def git_env():
    """The environment for asking git about the checkout, without GIT_DIR, GIT_INDEX_FILE and the
    other GIT_* variables: GIT_INDEX_FILE=<missing> made git list nothing, so a committed folder read as
    a build's or a retest's own leftover (and was published, or removed)."""
    import os
    return {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}


def _git(root, args, stdin=""):
    """git's output in the checkout ``root``, or None when git cannot answer."""
    import subprocess
    try:
        return subprocess.run(["git", "-C", str(Path(root)), *args], capture_output=True, text=True, timeout=60,
                              check=True, input=stdin, env=git_env()).stdout
    except (OSError, subprocess.SubprocessError):
        return None


CODE_PATHS = ("experiments", "study", "reportgen/commands/retest.py", "pyproject.toml", "requirements.lock", "Makefile")
SHARED_PATHS = ("experiments/configs", "reportgen/commands/retest.py", "pyproject.toml", "requirements.lock", "Makefile")
"""What every family's measurements share beside its own code: the profiles (its parameters), retest
and the pinned packages.  A jump of one family over commits that changed only another family's code
(or a contract its module does not import) is a jump of the same code: code_changed(a, b, family)."""
"""What a run's measurements depend on in the repository: the experiments, the contracts, retest (its
profiles) and the pinned packages; not the site's code (a commit touching only pages changed no figure)."""


def code_changed(root):
    """(run a, run b, family=None) -> True when the repository shows that the code changed between the
    two runs: two commits it holds, with a change between them under the family's own code and
    SHARED_PATHS (under CODE_PATHS when no family is named).  A record's fingerprint, a dirty
    flag and an environment are the run's own claims: a jump between records claiming two fingerprints
    is a change of code only when git says so (pages.history).  None outside a git checkout, as
    unknown_commits knows nothing there."""
    if not (Path(root) / ".git").exists():
        return None   # a release tarball or a copy: nothing is known, the fingerprints' claims are taken
    from study.manifest import COMMIT
    answers, paths = {}, {}

    def family_paths(family):
        """A family's own code (its module's import closure and declared files, as the repository has
        them now) and what every family's measurements share; CODE_PATHS for a family not declared."""
        if family not in paths:
            from study import family as family_code
            try:
                declared = family_code.declared(root)[0].get(family)
                own = family_code.code_files(root, declared.module, declared.depends) if declared else None
            except (OSError, SyntaxError, ValueError):
                own = None
            paths[family] = tuple(sorted(set(own) | set(SHARED_PATHS))) if own else CODE_PATHS
        return paths[family]

    def changed(a, b, family=None):
        ga, gb = a.manifest.get("git") or {}, b.manifest.get("git") or {}
        commits = tuple(sorted((str(ga.get("commit")), str(gb.get("commit")))))
        if commits[0] == commits[1] or not all(COMMIT.match(c) and c != "unknown" for c in commits):
            return False   # a dirty flag tells nothing either way: the commits decide
        where = family_paths(family) if family else CODE_PATHS
        if (commits, where) not in answers:   # None when git cannot tell: not shown to have changed
            out = _git(root, ["diff", "--name-only", *commits, "--", *where])
            answers[commits, where] = bool(out and out.strip())
        return answers[commits, where]
    return changed


def _commits(root, runs):
    """({commit this repository holds: its committer time, seconds UTC}, every well-formed commit the
    runs name), or None outside a git checkout (a release tarball) or when git cannot tell."""
    if not (Path(root) / ".git").exists():
        return None
    from study.manifest import COMMIT   # one commit a line: a newline in one would shift every later answer
    commits = sorted(c for c in {str(run.manifest["git"].get("commit")) for run in runs} if COMMIT.match(c))
    out = _git(root, ["cat-file", "--batch-check"], "".join(f"{c}^{{commit}}\n" for c in commits))
    if out is None:
        return None
    known = [c for c, line in zip(commits, out.split("\n")) if line.split()[:2] == [c, "commit"]]
    times = _git(root, ["show", "-s", "--format=%H %ct", *known]) if known else ""
    found = dict(line.split() for line in (times or "").splitlines() if len(line.split()) == 2)
    return {c: int(found[c]) if found.get(c, "").isdigit() else None for c in known}, commits


def unknown_commits(root, runs, facts=False):
    """{run id: commit} of the runs whose git commit is not in this repository's history: the code
    that measured them cannot be checked out (a forged or all-zero commit, or one lost to a
    rewritten branch). Outside a git checkout (a release tarball) nothing is known: {}.
    ``facts``: _commits(root, runs) when the caller asked git already."""
    facts = _commits(root, runs) if facts is False else facts
    if facts is None:
        return {}
    return {run.run_id: str(run.manifest["git"].get("commit")) for run in runs
            if str(run.manifest["git"].get("commit")) not in facts[0]}


COMMIT_SLACK_S = 600
"""How far a commit's time may lie after the finish of a run that names it: the clock of the machine that
made the commit against the one that ran (days, as a backdated run id claims, are refused)."""


def backdated_problems(runs, facts):
    """A run ran code that existed: retest reads git.commit as the run finishes, so the commit was made
    by finished_at, and a run of code committed from study.citation.NAMED_FROM on started then too. A
    run id dated before NAMED_FROM escaped the citation rule whatever code it ran (its id alone said
    when it started). ``facts``: _commits(root, runs); commits this repository does not hold are
    unknown_commits' (left off the site)."""
    import datetime as _dt
    from study import schema
    out = []
    for run in runs if facts else ():
        commit = str(run.manifest["git"].get("commit"))
        made = facts[0].get(commit)
        if made is None:
            continue
        when = _dt.datetime.fromtimestamp(made, _dt.timezone.utc)
        where = f"{run.path / 'run.json'}: git.commit: {commit[:12]} was committed at {when:%Y%m%dT%H%M%SZ}"
        if when > schema._parse_time(run.manifest["finished_at"]) + _dt.timedelta(seconds=COMMIT_SLACK_S):
            out.append(f"{where}, after the run's finished_at {run.manifest['finished_at']!r:.40}: a run "
                       "cannot have measured code committed after it (retest reads the commit as it finishes)")
        elif f"{when:%Y%m%dT%H%M%SZ}" >= citation.NAMED_FROM and not citation.bound(run.run_id):
            out.append(f"{where}, but run_id names a start before {citation.NAMED_FROM}: a run of code from "
                       "then on is bound by the citation rule (a backdated run id)")
    return out


LOCKED = {"tvm_version": "apache-tvm", "tvm_ffi_version": "apache-tvm-ffi", "numpy_version": "numpy"}
"""The environment fields a run reports of software requirements.lock pins (field: package)."""


MAX_LOCK_BYTES = 1 << 20
"""The most bytes of a requirements.lock read (the committed one holds 2 KB)."""


def _locks(root, commits):
    """{commit: {package: version}} of requirements.lock at each commit, read as bytes (a lock that is not
    UTF-8, or a folder at that commit, stopped the build in a UnicodeDecodeError, and a long non-ASCII
    comment counted in characters shifted the next commit's lock out of reach), and only when git says it
    is a file of at most MAX_LOCK_BYTES (a lock of 2 GiB of zeros, 2 MB in the repository, was read whole:
    4.5 GB of memory).  A commit without such a lock is not in the answer."""
    import subprocess

    def cat(option, names):
        try:
            return subprocess.run(["git", "-C", str(Path(root)), "cat-file", option], capture_output=True, timeout=60,
                                  check=True, env=git_env(), input="".join(f"{n}\n" for n in names).encode()).stdout
        except (OSError, subprocess.SubprocessError):
            return b""
    sizes = [line.split() for line in cat("--batch-check", [f"{c}:requirements.lock" for c in commits]).split(b"\n")]
    small = [(c, parts[0].decode()) for c, parts in zip(commits, sizes) if len(parts) == 3 and parts[1] == b"blob"
             and parts[2].isdigit() and int(parts[2]) <= MAX_LOCK_BYTES]
    out, locks = cat("--batch", [oid for _c, oid in small]), {}
    for commit, _oid in small:
        head, _, out = out.partition(b"\n")
        parts = head.split()
        if len(parts) != 3 or not parts[2].isdigit():
            break
        body, out = out[:int(parts[2])], out[int(parts[2]) + 1:]
        text = body.decode("utf-8", "replace")
        locks[commit] = dict(line.strip().split("==", 1) for line in text.splitlines() if line.count("==") == 1)
    return locks


def environment_problems(root, runs, facts):
    """A run reports the software its commit's requirements.lock pins (TVM, tvm-ffi, NumPy), and the LLVM
    every run of its TVM reports (the wheel bundles it): a one-record run claiming TVM 0.8.0 and LLVM 9
    became the newest environment, and every page named the site's software by it.  ``facts``:
    _commits(root, runs); runs of commits this repository does not hold are unknown_commits'."""
    if not facts:
        return []
    known = sorted({str(run.manifest["git"].get("commit")) for run in runs} & set(facts[0]))
    locks, out, llvm = _locks(root, known) if known else {}, [], {}
    for run in runs:
        env, commit = run.manifest["environment"], str(run.manifest["git"].get("commit"))
        if commit in facts[0] and not locks.get(commit):
            out.append(f"{run.path / 'run.json'}: git.commit: {commit[:12]} holds no requirements.lock of at most "
                       f"{MAX_LOCK_BYTES} bytes pinning its software (a run's environment is held to it)")
            continue
        for field, package in LOCKED.items():
            pinned = locks.get(commit, {}).get(package)
            if pinned is not None and isinstance(env.get(field), str) and env[field] != pinned:   # "unavailable" too
                out.append(f"{run.path / 'run.json'}: environment.{field}: {env[field]!r:.40}, but requirements.lock "
                           f"of its commit {commit[:12]} pins {package}=={pinned}")
        tvm, version = env.get("tvm_version"), env.get("llvm_version")
        if isinstance(tvm, str) and isinstance(version, str) and not tvm.startswith("unavailable"):
            first = llvm.setdefault(tvm, (version, run))
            if first[0] != version:
                out.append(f"{run.path / 'run.json'}: environment.llvm_version: {version!r:.40}, but TVM {tvm!r:.40} "
                           f"bundles LLVM {first[0]!r:.40} (run {first[1].run_id})")
    return out


def without_reused_from(run, excluded):
    """``run`` without the records it carries over from an ``excluded`` run (one whose commit this
    repository does not hold): a later run reusing them unchanged made the excluded run's figures
    current again. The run itself when it carries none."""
    import dataclasses
    keep = [i for i, rec in enumerate(run.records) if rec["reused_from"] not in excluded]
    if len(keep) == len(run.records):
        return run
    return dataclasses.replace(run, records=[run.records[i] for i in keep],
                               line_numbers=[run.line_numbers[i] for i in keep if i < len(run.line_numbers)])


def standing(root, runs):
    """(runs, {run id: commit}): the runs that may stand for a case, as every command decides it
    (the build, retest's reuse, trace, machines): those whose commit this repository holds, each
    without the records it carries from one that it does not (without_reused_from)."""
    facts = _commits(root, runs)
    backdated = backdated_problems(runs, facts)
    if backdated:
        raise ReportError(backdated, hint="a run's id is the second it started: fix or remove the run")
    software = environment_problems(root, runs, facts)
    if software:
        raise ReportError(software, hint="a run's environment is the software its commit pins: fix or remove the run")
    unknown = unknown_commits(root, runs, facts)
    return [without_reused_from(run, unknown) for run in runs if run.run_id not in unknown], unknown
