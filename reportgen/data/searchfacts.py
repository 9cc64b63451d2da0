"""A record's account of its search and of the code it compiled, held to the files its run keeps.

The INT8, e2e_tune and gemm_tvm records say how many trials their MetaSchedule search measured, how
many built and ran, what failed and how long it took, and the INT8 records how many VNNI instructions
the hottest kernel holds.  Pages print each of these as a current figure.  The run keeps the evidence
beside them, sha256-listed in run.json: the search's trial log and database (study.searchlog), and
the hottest kernel's assembly.  A record whose account is not its evidence's is refused naming the
record and field: a run claiming 5000 trials and 27 of 27 tensorized tasks for a search whose log holds
117 trials and names 12 was published as the network's current figure, as was a GEMM search claiming
100 times its trials and seconds.

Counts that only the whole compiled module shows (instructions over all kernels, kernels holding one)
have no file to be read back from; they are held to what they must satisfy with the hottest kernel's
(no fewer in all kernels than in the hottest, no more kernels holding one than instructions).
"""
from reportgen.data import plainfile
from reportgen.data.logtext import safe_path
from reportgen.errors import ReportError
from study import searchlog


def problems(results_dir, runs):
    """Every measured (not reused) ok record's search and assembly account against its run's files,
    each as '<records.jsonl>:<line>: extra.<field>: why'."""
    by_id = {run.run_id: run for run in runs}
    out = []
    for run in runs:
        for index, rec in enumerate(run.records):
            if rec["status"] != "ok" or rec["reused_from"] is not None:
                continue
            check = CHECKS.get(rec["experiment"])
            if check is not None:
                out.extend(f"{run.where(index)}: extra.{p}" for p in check(results_dir, rec, by_id))
    return out


def _read(results_dir, rec, ref, name=None):
    """Text of a file of the record's own run: ``ref`` (relative to results/), or ``name`` inside the
    folder ``ref``.  ReportError naming the path when it is not a plain file of that run."""
    if not isinstance(ref, str):
        raise ReportError(f"{ref!r:.80} is not a path of the run")
    path = safe_path(results_dir, f"{ref}/{name}" if name else ref, run_id=rec["run_id"], what="evidence")
    try:
        return plainfile.read_text(path)
    except (OSError, UnicodeDecodeError) as exc:
        raise ReportError(f"{path}: cannot be read: {exc}") from None


def _trial_rows(results_dir, rec, ref, name):
    """(rows of the search's trial log, None) or (None, why)."""
    try:
        text = _read(results_dir, rec, ref, name)
        return searchlog.trials(text, f"{ref}/{name}"), None
    except ReportError as exc:
        return None, "; ".join(exc.problems)
    except ValueError as exc:
        return None, str(exc)


def _lines(results_dir, rec, ref, name):
    try:
        return sum(1 for line in _read(results_dir, rec, ref, name).split("\n") if line.strip()), None
    except ReportError as exc:
        return None, "; ".join(exc.problems)


def _int8(results_dir, rec, by_id):
    extra = rec.get("extra") or {}
    out = []
    if isinstance(extra.get("tuning"), dict):
        out += [f"tuning.{p}" for p in _int8_tuning(results_dir, rec, extra["tuning"], by_id)]
    if isinstance(extra.get("asm"), dict):
        out += [f"asm.{p}" for p in _asm(results_dir, rec, extra["asm"])]
    return out


SOURCES = ("int8 family", "e2e_tune")
"""Where an INT8 record's tuning comes from: its own search, or group D's search of the FP32 network."""


def _int8_tuning(results_dir, rec, tuning, by_id):
    source = tuning.get("source")
    if source not in SOURCES:
        return [f"source: {source!r:.40} is not one of {', '.join(SOURCES)}"]
    if source == "e2e_tune":
        return _borrowed_tuning(tuning, rec, by_id)
    rows, why = _trial_rows(results_dir, rec, tuning.get("database"), searchlog.TRIAL_LOG)
    if rows is None:
        return [f"database: the search's trial log: {why}"]
    found = searchlog.summary(rows)
    out = [f"{name}: {tuning.get(name)!r:.40}, but the search's trial log ({len(rows)} trials) says {found[key]!r:.60}"
           for name, key in (("trials", "measured"), ("valid", "valid"), ("failures", "failures"))
           if name in tuning and tuning[name] != found[key]]
    seconds = searchlog.seconds_problem(tuning.get("seconds"), rows)
    out += [f"seconds: {seconds}"] if seconds else []
    tasks = {row.get("task") for row in rows}
    workloads, why = _lines(results_dir, rec, tuning.get("database"), searchlog.WORKLOADS)
    if workloads is None:
        out.append(f"database: the search's workloads: {why}")
    elif tuning.get("tasks") is not None and tuning["tasks"] != workloads:
        out.append(f"tasks: {tuning['tasks']!r:.40}, but the search's database holds {workloads} workloads")
    tens = tuning.get("tensorized")
    if isinstance(tens, dict):
        named = tens.get("tasks")
        if not isinstance(named, list) or not all(isinstance(t, str) for t in named) or len(set(named)) != len(named):
            out.append(f"tensorized.tasks: {named!r:.60} is not a list of distinct task names")
        elif not set(named) <= tasks:
            out.append(f"tensorized.tasks: {sorted(set(named) - tasks)[0]!r:.120} is no task of the search's trial log")
        elif tens.get("count") != len(named):
            out.append(f"tensorized.count: {tens.get('count')!r:.40}, but it names {len(named)} tensorized tasks")
        if tens.get("tuned_tasks") != len(tasks):
            out.append(f"tensorized.tuned_tasks: {tens.get('tuned_tasks')!r:.40}, but the search's trial log "
                       f"tunes {len(tasks)} tasks")
    return out


def _borrowed_tuning(tuning, rec, by_id):
    """An INT8 record that applies group D's search (the FP32 network) says what that search's
    record says: of a kept run of its machine, started no later."""
    from reportgen.data.runfacts import order_key
    run, tuner = by_id.get(rec["run_id"]), by_id.get(tuning.get("run_id"))
    if tuner is None or not isinstance(tuning.get("record"), str):
        return [f"run_id: {tuning.get('run_id')!r:.80} with record {tuning.get('record')!r:.120} is no kept run's "
                "e2e_tune record (the search a record applies is a record of a kept run)"]
    if run is not None and (tuner.machine != run.machine or order_key(tuner) > order_key(run)):
        return [f"run_id: {tuning['run_id']!r:.80} is not an earlier run of this record's machine"]
    up = next((r for r in tuner.records if r["id"] == tuning["record"] and r["experiment"] == "e2e_tune"
               and r["status"] == "ok"), None)
    if up is None:
        return [f"record: run {tuning['run_id']!r:.80} holds no ok e2e_tune record {tuning['record']!r:.120}"]
    told = (up.get("extra") or {}).get("tuning") or {}
    return [f"{name}: {tuning.get(name)!r:.40}, but the e2e_tune record {up['id']!r:.120} says {told.get(key)!r:.40}"
            for name, key in (("trials", "measured"), ("seconds", "seconds"))
            if name in tuning and tuning[name] != told.get(key)]


def _asm(results_dir, rec, asm):
    """The hottest kernel's counts are its assembly's (the artifact the record cites); the counts over
    all kernels are no fewer, and no more kernels hold an instruction than there are of it."""
    hottest, every, holding = (asm.get(k) if isinstance(asm.get(k), dict) else {}
                               for k in ("hottest", "all_kernels", "kernels_with"))
    out = []
    for name in sorted(set(hottest) | set(every) | set(holding)):
        hot, total, kernels = (d.get(name, 0) for d in (hottest, every, holding))
        if not all(isinstance(v, int) for v in (hot, total, kernels)):
            continue   # typed by study.work: refused there
        if hot > total:
            out.append(f"hottest.{name}: {hot}, more than all kernels hold ({total})")
        elif name in holding and (kernels > total or (kernels == 0) != (total == 0)):   # older records lack it
            out.append(f"kernels_with.{name}: {kernels} kernels, but all kernels hold {total} of it")
    if "artifact" in asm:
        try:
            text = _read(results_dir, rec, asm["artifact"])
        except ReportError as exc:
            return out + [f"artifact: {'; '.join(exc.problems)}"]
        counted = searchlog.instruction_counts(text.split("\n"), sorted(hottest))
        out += [f"hottest.{name}: {hottest[name]!r:.40}, but the hottest kernel's assembly ({asm['artifact']}) holds "
                f"{counted[name]}" for name in sorted(hottest) if hottest[name] != counted[name]]
    return out


def _e2e_tune(results_dir, rec, by_id):
    extra = rec.get("extra") or {}
    tuning, artifacts = extra.get("tuning"), extra.get("artifacts")
    if not isinstance(tuning, dict) or not isinstance(artifacts, dict) or "trials" not in artifacts:
        return []   # an older record without its trial log named: nothing to read back
    ref = artifacts["trials"]
    if not isinstance(ref, str) or "/" not in ref:
        return [f"artifacts.trials: {ref!r:.80} is not a path of the run"]
    folder, name = ref.rsplit("/", 1)
    rows, why = _trial_rows(results_dir, rec, folder, name)
    if rows is None:
        return [f"artifacts.trials: {why}"]
    found = searchlog.summary(rows)
    out = [f"tuning.{name}: {tuning.get(name)!r:.40}, but the search's trial log ({len(rows)} trials) says {found[name]!r:.60}"
           for name in ("measured", "valid", "failures") if name in tuning and tuning[name] != found[name]]
    seconds = searchlog.seconds_problem(tuning.get("seconds"), rows)
    return out + ([f"tuning.seconds: {seconds}"] if seconds else [])


def _gemm_tvm(results_dir, rec, by_id):
    """A GEMM search's trials are its trial log's (every call of the search appends to it; a reused
    database measured none), its records no more than its database holds, its seconds its log's."""
    extra = rec.get("extra") or {}
    if not extra.get("database") or "trials_done" not in extra:
        return []
    rows, why = _trial_rows(results_dir, rec, extra["database"], searchlog.LADDER_LOG)
    if rows is None:
        return [f"database: the search's trial log: {why}"]
    out, done = [], extra.get("trials_done")
    if not isinstance(done, int) or isinstance(done, bool) or not 0 <= done <= len(rows):
        out.append(f"trials_done: {done!r:.40}, but the search's trial log holds {len(rows)} trials")
    elif done and isinstance(extra.get("curve"), list) and len(extra["curve"]) != done:
        out.append(f"curve: {len(extra['curve'])} points for {done} trials")
    records, why = _lines(results_dir, rec, extra["database"], searchlog.DATABASE)
    if records is None:
        out.append(f"database: {why}")
    elif not isinstance(extra.get("total_records"), int) or not 0 <= extra["total_records"] <= records:
        out.append(f"total_records: {extra.get('total_records')!r:.40}, but the search's database holds {records} records")
    if done:
        seconds = searchlog.seconds_problem(extra.get("tuning_seconds"), rows[-done:])   # this call's trials
        out += [f"tuning_seconds: {seconds}"] if seconds else []
    return out


CHECKS = {"int8": _int8, "e2e_tune": _e2e_tune, "gemm_tvm": _gemm_tvm}
