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
import math

from reportgen.data import plainfile
from reportgen.data.logtext import safe_path
from reportgen.errors import ReportError, broken_check, debugging
from study import asm, citation, schema, searchlog, stats, tails, work


def problems(results_dir, runs):
    """Every measured (not reused) ok record's search and assembly account against its run's files,
    each as '<records.jsonl>:<line>: extra.<field>: why'.  Each file is read and parsed once however
    many records cite it (a thousand records citing one 14 MB trial log read it a thousand times)."""
    by_id = {run.run_id: run for run in runs}
    out = []
    _READ.clear()
    try:
        for run in runs:
            cited = {}   # one program per listing: two records citing one assembly show one program as two
            for index, rec in enumerate(run.records):
                ref = ((rec.get("extra") or {}).get("artifacts") or {}).get("asm")
                if isinstance(ref, str) and cited.setdefault(ref, rec["id"]) != rec["id"]:
                    out.append(f"{run.where(index)}: extra.artifacts.asm: {ref[-120:]!r} is the listing another record "
                               f"cites ({cited[ref][:120]!r}): each record's program is its own")
                if rec["reused_from"] is not None:   # every status: a failed search printed 5000 trials of 128
                    continue
                check = CHECKS.get(rec["experiment"])
                try:   # a field of a kind no contract typed names its record here, not 'internal error' for the build
                    out.extend(f"{run.where(index)}: extra.{p}" for p in (check(results_dir, rec, by_id) if check else ()))
                except (TypeError, ValueError, KeyError, AttributeError, IndexError, RecursionError) as exc:
                    if debugging():
                        raise
                    out.append(broken_check(run.where(index), exc))
    finally:
        _READ.clear()
    return out


_READ = {}
"""(what, path) -> what one check pass read from a file: its trial rows, its line count, its counts."""


def _once(results_dir, rec, ref, name, what, parse):
    """parse(text, shown name) of a file of the record's own run (``ref``, or ``name`` inside the folder
    ``ref``), read once per check pass: (value, None), or (None, why) when the path is not a plain file
    of that run, cannot be read or parse refuses it (ValueError)."""
    try:
        if not isinstance(ref, str):
            raise ReportError(f"{ref!r:.80} is not a path of the run")
        shown = f"{ref}/{name}" if name else ref
        path = safe_path(results_dir, shown, run_id=rec["run_id"], what="evidence")
    except ReportError as exc:
        return None, "; ".join(exc.problems)
    key = (what, str(path))
    if key not in _READ:
        try:
            _READ[key] = parse(plainfile.read_text(path), shown), None
        except ReportError as exc:
            _READ[key] = None, "; ".join(exc.problems)
        except (OSError, UnicodeDecodeError) as exc:
            _READ[key] = None, f"{path}: cannot be read: {exc}"
        except ValueError as exc:
            _READ[key] = None, str(exc)
    return _READ[key]


def _trial_rows(results_dir, rec, ref, name):
    """(rows of the search's trial log, None) or (None, why)."""
    return _once(results_dir, rec, ref, name, "trials", searchlog.trials)


def _summary_problems(summary, rows, names):
    """A search summary's counts (``names``: (its field, searchlog.summary's)) and its seconds against the
    rows of its trial log, each as 'field: why'."""
    found = searchlog.summary(rows)
    out = [f"{name}: {summary.get(name)!r:.40}, but the search's trial log ({len(rows)} trials) says {found[key]!r:.60}"
           for name, key in names if name in summary and summary[name] != found[key]]
    seconds = searchlog.seconds_problem(summary.get("seconds"), rows)
    return out + ([f"seconds: {seconds}"] if seconds else [])


def _lines(results_dir, rec, ref, name):
    """(non-empty lines of a file, None) or (None, why)."""
    return _once(results_dir, rec, ref, name, "lines", lambda text, _shown: sum(1 for line in text.split("\n") if line.strip()))


def _int8(results_dir, rec, by_id):
    extra = rec.get("extra") or {}
    out = _paired_problems(rec, by_id)
    rules = extra.get("rules")
    if isinstance(rules, dict):
        tuning = rules.get("tuning") if isinstance(rules.get("tuning"), dict) else {}
        out += [f"rules.{p}" for p in _rules_problems(rec, dict(tuning, trials=rules.get("trials"), limit=rules.get("limit")))]
    if isinstance(extra.get("tuning"), dict):
        out += [f"tuning.{p}" for p in _int8_tuning(results_dir, rec, extra["tuning"], by_id)]
    if isinstance(extra.get("asm"), dict):
        out += [f"asm.{p}" for p in _asm(results_dir, rec, extra["asm"])]
    return out


VARIANTS = {"tvm_int8_tuned": "int8", "tvm_fp32_tuned": "fp32"}
"""The INT8 family's tuned engines and the variant each searches (its database folder, tune-<model>-<variant>)."""
SOURCES = ("int8 family", "e2e_tune")
"""Where an INT8 record's tuning comes from: its own search, or group D's search of the FP32 network."""


def _int8_tuning(results_dir, rec, tuning, by_id):
    source = tuning.get("source")
    if source not in SOURCES:
        return [f"source: {source!r:.40} is not one of {', '.join(SOURCES)}"]
    if source == "e2e_tune":
        return _borrowed_tuning(tuning, rec, by_id)
    case = rec.get("case") or {}
    own = f"runs/{rec['run_id']}/artifacts/int8/tune-{case.get('model')}-{VARIANTS.get(case.get('engine'))}"
    if case.get("engine") not in VARIANTS or tuning.get("database") != own:
        return [f"database: {tuning.get('database')!r:.160} is not this record's own search ({own}): a record's "
                "search is the one its family ran for its network and variant in its run"]
    rows, why = _trial_rows(results_dir, rec, tuning.get("database"), searchlog.TRIAL_LOG)
    if rows is None:
        return [f"database: the search's trial log: {why}"]
    out = _summary_problems(tuning, rows, (("trials", "measured"), ("valid", "valid"), ("failures", "failures")))
    out += _scheduled_problems(tuning, rows)
    tasks = {row.get("task") for row in rows}
    workloads, why = _lines(results_dir, rec, tuning.get("database"), searchlog.WORKLOADS)
    if workloads is None:
        out.append(f"database: the search's workloads: {why}")
    elif tuning.get("tasks") is not None and not (isinstance(tuning["tasks"], int) and tuning["tasks"] >= max(workloads, len(tasks))):
        # every task extracted from the network; a task the budget gave no trial has no workload (quick runs)
        out.append(f"tasks: {tuning['tasks']!r:.40}, but the search's database holds {workloads} workloads and its "
                   f"trial log tunes {len(tasks)} tasks")
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


def _scheduled_problems(tuning, rows):
    """An own INT8 search's kernel counts are its trial log's: as many scheduled as tasks it holds a valid
    trial of, none of those among the unscheduled, and every task it tried and never measured among them
    (the table's 'scheduled n/N'; every committed record agrees)."""
    valid = {row["task"] for row in rows if not row.get("category") and "task" in row}
    failed = {row["task"] for row in rows if "task" in row} - valid
    named = tuning.get("unscheduled")
    named = set(map(str, named)) if isinstance(named, list) else set()
    if "scheduled" in tuning and tuning["scheduled"] != len(valid):
        return [f"scheduled: {tuning['scheduled']!r:.40}, but the search's trial log holds a valid trial of "
                f"{len(valid)} tasks"]
    if named & valid:
        return [f"unscheduled: names {sorted(named & valid)[0]!r:.60}, a task the search's trial log measured"]
    if failed - named:
        return [f"unscheduled: leaves out {sorted(failed - named)[0]!r:.60}, a task the search's trial log tried "
                "and never measured"]
    return []


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
    mine, theirs = rec.get("case") or {}, up.get("case") or {}
    if (rec.get("case") or {}).get("engine") != "tvm_fp32_tuned" or any(
            mine.get(k) != theirs.get(k) for k in ("model", "input_size", "seed")):
        return [f"record: {up['id']!r:.120} is not group D's search of this record's network, nor is this record its "
                "FP32 variant (only the FP32 network applies group D's search of the same model, size and seed)"]
    told = (up.get("extra") or {}).get("tuning") or {}
    artifacts = (up.get("extra") or {}).get("artifacts") or {}
    out = [f"{name}: {tuning.get(name)!r:.40}, but the e2e_tune record {up['id']!r:.120} says {told.get(key)!r:.40}"
           for name, key in (("trials", "measured"), ("seconds", "seconds"), ("valid", "valid"), ("failures", "failures"))
           if name in tuning and tuning[name] != told.get(key)]
    coverage = (up.get("extra") or {}).get("coverage") or {}
    if "unscheduled" in tuning and isinstance(coverage.get("unscheduled"), list) and isinstance(tuning["unscheduled"], list) \
            and sorted(map(str, tuning["unscheduled"])) != sorted(map(str, coverage["unscheduled"])):
        out.append(f"unscheduled: {len(tuning['unscheduled'])} kernels, but the e2e_tune record {up['id']!r:.120} leaves "
                   f"{len(coverage['unscheduled'])} unscheduled")
    if "database" in tuning and tuning["database"] != artifacts.get("database"):
        out.append(f"database: {tuning['database']!r:.160} is not the database of the e2e_tune record {up['id']!r:.120}")
    out += [f"{name}: a borrowed search's summary holds no {name} (group D's record does not count it)"
            for name in ("tasks", "tensorized") if name in tuning]
    return out


def _asm(results_dir, rec, asm):
    """The hottest kernel's counts are its assembly's (the artifact the record cites); the counts over
    all kernels are no fewer, and no more kernels hold an instruction than there are of it."""
    hottest, every, holding = (asm.get(k) if isinstance(asm.get(k), dict) else {}
                               for k in ("hottest", "all_kernels", "kernels_with"))
    for part, counts in (("hottest", hottest), ("all_kernels", every), ("kernels_with", holding)):
        unknown = sorted(set(counts) - set(searchlog.INSTRUCTIONS))
        if unknown:
            return [f"{part}: {unknown[0]!r:.40} is not an instruction the family counts "
                    f"({', '.join(searchlog.INSTRUCTIONS)})"]
    out = []
    for name in sorted(set(hottest) | set(every) | set(holding)):
        hot, total, kernels = (d.get(name, 0) for d in (hottest, every, holding))
        if not all(isinstance(v, int) for v in (hot, total, kernels)):
            continue   # typed by study.work: refused there
        if hot > total:
            out.append(f"hottest.{name}: {hot}, more than all kernels hold ({total})")
        elif name in holding and (kernels > total or (kernels == 0) != (total == 0)):   # older records lack it
            out.append(f"kernels_with.{name}: {kernels} kernels, but all kernels hold {total} of it")
    if "artifact" not in asm and citation.bound(rec["run_id"]) and any(v for v in hottest.values() if isinstance(v, int)):
        out.append("artifact: missing (a run from {} on keeps the hottest kernel's assembly its counts are read "
                   "from)".format(citation.NAMED_FROM))
    if "artifact" in asm:
        read, why = _once(results_dir, rec, asm["artifact"], None, "asm",
                          lambda text, _shown: (searchlog.instruction_counts(text.split("\n"), searchlog.INSTRUCTIONS),
                                                [m.group(1) for line in text.split("\n")
                                                 if (m := searchlog.ASM_LABEL.match(line))]))
        if read is None:
            return out + [f"artifact: {why}"]
        counted, labels = read
        name = asm.get("hottest_kernel")
        if isinstance(name, str) and not (labels and all(x == name or x.startswith(name + "_compute") for x in labels)):
            # the experiment keeps the hottest kernel's functions only: 'fused_dense_pack_vnni_FAKE' was printed
            out.append(f"hottest_kernel: {name[:80]!r}, but the assembly it cites ({asm['artifact']}) is of "
                       f"{(labels or ['no function'])[0][:80]!r}")
        out += [f"hottest.{name}: {hottest[name]!r:.40}, but the hottest kernel's assembly ({asm['artifact']}) holds "
                f"{counted[name]}" for name in sorted(hottest) if hottest[name] != counted[name]]
    return out


def _e2e_tune(results_dir, rec, by_id):
    extra = rec.get("extra") or {}
    tuning, artifacts = extra.get("tuning"), extra.get("artifacts")
    if not isinstance(tuning, dict):
        return []
    if not isinstance(artifacts, dict) or "trials" not in artifacts:   # an older record: nothing to read back
        return [f"artifacts.trials: missing (a search of a run from {citation.NAMED_FROM} on names its trial log)"] \
            if citation.bound(rec["run_id"]) else []
    ref = artifacts["trials"]
    if not isinstance(ref, str) or "/" not in ref:
        return [f"artifacts.trials: {ref!r:.80} is not a path of the run"]
    folder, name = ref.rsplit("/", 1)
    rows, why = _trial_rows(results_dir, rec, folder, name)
    if rows is None:
        return [f"artifacts.trials: {why}"]
    out = [f"tuning.{p}" for p in _summary_problems(tuning, rows, ((name, name) for name in ("measured", "valid", "failures")))]
    return out + _coverage_problems(extra, rows, ref) + _snapshot_problems(results_dir, rec, folder, by_id) \
        + _allocation_problems(results_dir, rec, folder)


def _allocation_problems(results_dir, rec, folder):
    """The allocation table a record prints is its search's own file (allocation.json beside its trial log), and
    its kernel times are the untuned kernels' total the tuning table prints: the rows' seconds add up to
    untuned_kernel_seconds (or are all 0: a variant whose tasks the untuned profile does not name) and each row's
    share is its seconds over that total.  A record's rows and total forged 9.5x together, its file left alone,
    printed a C group 9.5x slower."""
    extra = rec["extra"]
    rows, total = extra.get("allocation"), extra.get("untuned_kernel_seconds")
    if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
        return []
    named = (extra.get("artifacts") or {}).get("allocation")
    written, why = _once(results_dir, rec, named if named is not None else folder, None if named is not None else
                         "allocation.json", "json", lambda text, _shown: schema.loads(text))
    if why is not None and named is not None:
        return [f"artifacts.allocation: {why[:160]}"]
    if why is None and written != rows:
        return [f"allocation: its rows are not the search's own allocation ({str(named or folder)[:80]})"]
    seconds = [r.get("seconds") for r in rows]
    if not all(stats.is_number(x) for x in seconds) or not stats.is_number(total) or total <= 0:
        return []
    if sum(seconds) and not _same(sum(seconds), total):
        return [f"untuned_kernel_seconds: {total!r:.40} s, but its allocation's kernel times add up to {sum(seconds):.6g} s"]
    odd = next((i for i, r in enumerate(rows) if not (stats.is_number(r.get("share"))
                                                       and abs(r["share"] - r["seconds"] / total) <= 1e-9)), None)
    if odd is not None:
        return [f"allocation[{odd}].share: {rows[odd].get('share')!r:.40}, but its kernel time is "
                f"{rows[odd]['seconds'] / total:.6g} of the untuned kernels' total"]
    return []


def _coverage_problems(extra, rows, ref):
    """The kernels a search scheduled (extra.coverage.scheduled, the tuning table's 'scheduled n/N') are
    the tasks its trial log holds a valid trial of, and every task it tried is scheduled or not: a search
    that scheduled 21 of 21 was published as 11 of 21.  (Every committed record's coverage is its log's.)"""
    coverage = extra.get("coverage")
    if not isinstance(coverage, dict) or not isinstance(coverage.get("scheduled"), list):
        return []
    scheduled, unscheduled = set(map(str, coverage["scheduled"])), set(map(str, coverage.get("unscheduled") or []))
    valid = {row["task"] for row in rows if not row.get("category") and "task" in row}
    tried = {row["task"] for row in rows if "task" in row}
    if scheduled != valid:
        odd = sorted(scheduled ^ valid)[0]
        return [f"coverage.scheduled: {len(scheduled)} kernels, but its trial log ({ref}) holds a valid trial of "
                f"{len(valid)} tasks ({odd!r:.60} is in one and not the other)"]
    if tried - scheduled - unscheduled:
        return [f"coverage.unscheduled: leaves out {sorted(tried - scheduled - unscheduled)[0]!r:.60}, a task its "
                f"trial log ({ref}) tried"]
    tasks = extra.get("tasks")
    if isinstance(tasks, int) and not isinstance(tasks, bool) and tasks != len(scheduled | unscheduled):
        return [f"tasks: {tasks}, but its coverage names {len(scheduled | unscheduled)} kernels"]
    return []


def _snapshot_problems(results_dir, rec, folder, by_id):
    """An e2e_tune record's copy of its campaign's history (extra.campaign, the e2e page's campaign
    table) is what the runs it names measured: its own step is this search (its trials, seconds, the
    estimate its allocation gives, the records its database kept), every earlier step the own step of
    the same case's record in the run it names, and the cumulative counts add up.  A forged snapshot
    named a kept run that tuned nothing with 26532 trials, and showed a kernel time 100x faster."""
    extra = rec["extra"]
    camp = extra.get("campaign")
    if not isinstance(camp, dict):
        return []
    steps = camp.get("steps")
    if not isinstance(steps, list) or not steps or not all(isinstance(step, dict) for step in steps):
        return [f"campaign.steps: {steps!r:.60} is not a list of steps"]
    total, out = 0, []
    for index, step in enumerate(steps):
        where = f"campaign.steps[{index}]"
        trials = step.get("trials")
        if not isinstance(trials, int) or isinstance(trials, bool) or trials < 0:
            return out + [f"{where}.trials: {trials!r:.40} is not a count of trials"]
        total += trials
        if step.get("cumulative_trials") != total:
            out.append(f"{where}.cumulative_trials: {step.get('cumulative_trials')!r:.40}, but its steps add up to {total}")
        if index == len(steps) - 1:
            if step.get("run_id") != rec["run_id"]:
                out.append(f"{where}.run_id: the last step is this record's own search (run {rec['run_id']})")
                continue
            out += [f"{where}.{p}" for p in _own_step_problems(results_dir, rec, folder, step)]
            continue
        source = by_id.get(step.get("run_id"))
        if source is None:
            continue   # a step of a run not kept: the page says its trials are unverifiable
        theirs = next((r for r in source.records if r["id"] == rec["id"] and r["status"] == "ok" and r["reused_from"] is None), None)
        steps_there = (((theirs or {}).get("extra") or {}).get("campaign") or {}).get("steps")
        if not (isinstance(steps_there, list) and steps_there and steps_there[-1] == step):
            out.append(f"{where}: run {str(step.get('run_id'))[:80]} holds no search of this case whose own step this is "
                       "(a step is the search the run it names made)")
    if camp.get("cumulative_trials") != total:
        out.append(f"campaign.cumulative_trials: {camp.get('cumulative_trials')!r:.40}, but its steps add up to {total}")
    return out


def _own_step_problems(results_dir, rec, folder, step):
    extra, tuning = rec["extra"], rec["extra"].get("tuning") or {}
    out = []
    for name, value in (("trials", tuning.get("measured")), ("seconds", tuning.get("seconds")),
                        ("estimated_kernel_s", extra.get("estimated_kernel_s"))):
        if not (value is None and name == "estimated_kernel_s") and not _same(step.get(name), value):
            out.append(f"{name}: {step.get(name)!r:.40}, but this record says {value!r:.40}")
    allocation, why = _once(results_dir, rec, folder, "allocation.json", "json", lambda text, _shown: schema.loads(text))
    if why is not None:
        return out + [f"estimated_kernel_s: the search's allocation cannot be read ({why[:160]})"]
    rows = allocation if isinstance(allocation, list) else []
    typed = rows and all(isinstance(r, dict) and isinstance(r.get("weight"), int) and not isinstance(r["weight"], bool)
                         and (r.get("best_s") is None or isinstance(r["best_s"], (int, float))) for r in rows)
    if not typed:   # a float weight skipped the estimate's check instead of failing it
        out.append("estimated_kernel_s: the search's allocation is not a list of rows with an integer weight "
                   "and a best time (or null)")
    else:   # None while a task has no valid record (experiments.e2e.tuning.estimated_seconds)
        estimate = None if any(r.get("best_s") is None for r in rows) else sum(r["weight"] * r["best_s"] for r in rows)
        if not _same(step.get("estimated_kernel_s"), estimate):
            shown = "none (a task has no valid record)" if estimate is None else f"{estimate:.6g} s"
            out.append(f"estimated_kernel_s: {step.get('estimated_kernel_s')!r:.40}, but the search's allocation "
                       f"estimates {shown}")
    records, why = _lines(results_dir, rec, folder, searchlog.DATABASE)
    if records is not None and step.get("records") != records:
        out.append(f"records: {step.get('records')!r:.40}, but the search's database holds {records}")
    return out


def _compiled_problems(results_dir, rec):
    """A GEMM stage's FMA counts (extra.codegen) and VNNI instruction counts (extra.dot_instructions) are
    the assembly's it cites (extra.artifacts.asm), counted again by the rule the experiment counted with
    (study.asm): a vectorized stage's 64 zmm FMAs forged to '64 scalar, no vector FMA' reached the
    codegen page, and a VNNI row read 'vpdpbusd 0' beside an assembly holding 32."""
    extra = rec["extra"]
    ref = (extra.get("artifacts") or {}).get("asm")
    if ref is None or not ({"codegen", "dot_instructions"} & set(extra)):
        return []
    case = rec.get("case") or {}
    own = f"{asm.listing_base(case)}.s"
    if rec.get("experiment") == "gemm_tvm" and str(ref).rsplit("/", 1)[-1] != own:
        # a searched stage cited the micro-kernel's listing and copied its counts: printed as the search's program
        return [f"artifacts.asm: {str(ref)[-120:]!r} is not the listing the experiment writes for this case ({own!r})"]
    counted, why = _once(results_dir, rec, ref, None, "compiled",
                         lambda text, _shown: (asm.codegen_evidence(text), asm.dot_counts(text)))
    if counted is None:
        return [f"artifacts.asm: {why}"]
    out = []
    for field, counts in zip(("codegen", "dot_instructions"), counted):
        claimed = extra.get(field)
        if isinstance(claimed, dict):
            out += [f"{field}.{key!s:.40}: {claimed.get(key)!r:.60}, but the assembly it cites ({ref}) shows "
                    f"{counts.get(key)!r:.60}" for key in sorted(set(claimed) | set(counts), key=str)
                    if claimed.get(key) != counts.get(key)][:1]
    return out


TILES = ("mr", "nr", "ku")
"""The register tile a grid record is timed at (its case's ``tiles``) and a stage is built with (the cache
blocks KC and MC are fitted to each shape: K=1000 builds KC=1000 from a grid record's 1024)."""


def _tiles_problems(rec, by_id):
    """A micro-kernel stage built with the tiles the fastest of its grid chose (extra.tiles_chosen_by)
    holds that grid record's tiles, and that record is the fastest ok one (the least sample) of the grid
    it lists: a row at 92 % of peak published with 1x1 tiles."""
    extra = rec["extra"]
    chosen, grid = extra.get("tiles_chosen_by"), extra.get("grid")
    if not (isinstance(chosen, str) and "/" in chosen):
        return []
    run = by_id.get(rec["run_id"])
    records = {r["id"]: r for r in (run.records if run is not None else ())}
    if not isinstance(grid, list) or chosen not in grid or chosen not in records:
        return [f"tiles_chosen_by: {chosen!r:.120} is not a grid record of its run that extra.grid lists"]
    timed = [(r["stats"]["min"], gid) for gid in grid if isinstance(gid, str) and (r := records.get(gid))
             and r["status"] == "ok" and isinstance(r.get("stats"), dict) and stats.is_number(r["stats"].get("min"))]
    pick = records[chosen]
    if pick["status"] != "ok" or (timed and min(timed)[0] < (pick.get("stats") or {}).get("min", math.inf)):
        best = min(timed)[1] if timed else None
        return [f"tiles_chosen_by: {chosen!r:.120} is not the fastest ok record of the grid ({best!r:.120} is)"]
    tiles, params = (pick.get("case") or {}).get("tiles"), extra.get("schedule_params")
    if not (isinstance(tiles, dict) and isinstance(params, dict)):
        return []
    out = [f"schedule_params.{k}: {params.get(k)!r:.40}, but the grid record it names was timed at "
           f"{k}={tiles.get(k)!r:.40}" for k in TILES if k in tiles and params.get(k) != tiles.get(k)][:1]
    k = (rec.get("case") or {}).get("k")
    if not out and _counts(tiles, ("kc", "ku", "mc", "mr")) and _counts({"k": k}, ("k",)):
        # the cache blocks the table prints beside them are fitted to the shape from the grid's (study.tails)
        want = tails.fitted(k, tiles)
        out = [f"schedule_params.{name}: {params.get(name)!r:.40}, but K={k} fits the grid record's tiles to "
               f"{name}={value}" for name, value in want.items() if params.get(name) != value][:1]
    return out


def _counts(mapping, names):
    return all(isinstance(mapping.get(n), int) and not isinstance(mapping.get(n), bool) and mapping[n] > 0
               for n in names)


def _gemm_tvm(results_dir, rec, by_id):
    """A GEMM stage's instruction counts are its assembly's and its tiles its grid's; a GEMM search's
    trials are its trial log's (every call of the search appends to it; a reused database measured
    none), its records no more than its database holds, its seconds its log's."""
    extra = rec.get("extra") or {}
    compiled = _compiled_problems(results_dir, rec) + _tiles_problems(rec, by_id)
    if "trials_done" not in extra:
        return compiled
    return compiled + _search_problems(results_dir, rec, extra)


def _search_problems(results_dir, rec, extra):
    if not extra.get("database"):
        return [f"database: missing (a search of a run from {citation.NAMED_FROM} on names its database and trial "
                "log)"] if citation.bound(rec["run_id"]) else []
    rows, why = _trial_rows(results_dir, rec, extra["database"], searchlog.LADDER_LOG)
    if rows is None:
        return [f"database: the search's trial log: {why}"]
    out, done = [], extra.get("trials_done")
    if not isinstance(done, int) or isinstance(done, bool) or not 0 <= done <= len(rows):
        out.append(f"trials_done: {done!r:.40}, but the search's trial log holds {len(rows)} trials")
    elif done and isinstance(extra.get("curve"), list):
        out += [f"curve{p}" for p in _curve_problems(extra["curve"], rows[-done:])]
    records, why = _lines(results_dir, rec, extra["database"], searchlog.DATABASE)
    if records is None:
        out.append(f"database: {why}")
    elif not isinstance(extra.get("total_records"), int) or not 0 <= extra["total_records"] <= records:
        out.append(f"total_records: {extra.get('total_records')!r:.40}, but the search's database holds {records} records")
    if isinstance(done, int) and not isinstance(done, bool) and 0 <= done <= len(rows):
        # this call's trials (none of a reused database): its seconds, and its failures by category (the
        # tuning table's column; 'numeric_check_failed 61' of 128 trials the log measured all valid)
        seconds = searchlog.seconds_problem(extra.get("tuning_seconds"), rows[-done:]) if done else None
        out += [f"tuning_seconds: {seconds}"] if seconds else []
        failures, found = extra.get("failures"), searchlog.summary(rows[-done:] if done else [])["failures"]
        if isinstance(failures, dict) and {k: v for k, v in failures.items() if v} != found:
            out.append(f"failures: {failures!r:.80}, but the search's trial log ({done} trials) says {found!r:.80}")
    return out


def _same(a, b):
    if a is None or b is None:
        return a is None and b is None
    return isinstance(a, (int, float)) and not isinstance(a, bool) and abs(a - b) <= 1e-9 * max(abs(a), abs(b))


def _curve_problems(curve, rows):
    """The tuning curve a GEMM record charts (each trial's time, the best so far, when it finished) is
    its trial log's, point by point (study.searchlog.curve, which the experiment charts): a forged curve
    reached the tuning chart as the search's progress."""
    if len(curve) != len(rows):
        return [f": {len(curve)} points for the {len(rows)} trials of the search's trial log"]
    for index, (point, want) in enumerate(zip(curve, searchlog.curve(rows))):
        if not isinstance(point, dict) or not all(_same(point.get(k), want[k]) for k in ("run_secs", "best_so_far_s", "elapsed_s")):
            return [f"[{index}]: not trial {index + 1} of the search's trial log (its time {want['run_secs']!r:.12}, "
                    f"best so far {want['best_so_far_s']!r:.12}, finished at {want['elapsed_s']!r:.12} s)"]
    return []


def _e2e(results_dir, rec, by_id):
    tuning = (rec.get("extra") or {}).get("rules_tuning")
    out = [f"rules_tuning.{p}" for p in _rules_problems(rec, tuning)] if isinstance(tuning, dict) else []
    return out + _paired_problems(rec, by_id)


MAX_PAIRED = 10_000
"""The most samples a side of a paired timing (or a rule engine's paired rounds) may hold: the
significance test's cost grows with the square and more (16 000 rounds took 14 s to check)."""


def _numbers(values):
    return isinstance(values, list) and all(stats.is_number(x) for x in values)


PAIRED_PEER_SPREAD = work.PAIRED_PEER_SPREAD   # one bound for the experiments and the build
_PEER_CASE = ("model", "batch", "threads", "input_size")


def _peer_problems(rec, paired, by_id):
    """The paired peer's median against its engine's own record of the run (same model, batch, threads,
    input size): that record is required, and within PAIRED_PEER_SPREAD of it."""
    engine, case = paired.get("engine"), rec["case"]
    run = by_id.get(rec["run_id"])
    peers = [r for r in (run.records if run is not None else ()) if r["experiment"] == rec["experiment"]
             and r["case"].get("engine") == engine and all(r["case"].get(k) == case.get(k) for k in _PEER_CASE)
             and r["status"] == "ok" and r.get("samples")]
    if not peers:
        return [f"paired_peer: the run holds no ok record of its peer {engine!r:.40} for the same model, batch and "
                "threads (the paired peer's median is held to that record)"]
    own = float(peers[0]["stats"]["p50"])
    ratio = float(paired["peer_p50_s"]) / own
    if not 1 / PAIRED_PEER_SPREAD <= ratio <= PAIRED_PEER_SPREAD:
        return [f"paired_peer.peer_p50_s: {paired['peer_p50_s'] * 1e3:.4g} ms, {ratio:.2f}x the p50 of {engine}'s own "
                f"record of the run ({own * 1e3:.4g} ms; at most {PAIRED_PEER_SPREAD:g}x either way)"]
    return []


def _paired_problems(rec, by_id):
    """A paired timing (extra.paired_peer: the rule engine and its peer timed in alternating blocks) is its
    samples': each block's ratio, both medians, the median ratio and its seeded bootstrap interval are
    recomputed (study.stats.paired_summary), and the record's samples are its side's.  A forged ratio of
    0.60 (0.57-0.63) beside medians of 8.94 and 9.04 ms turned the e2e page's headline from par to ahead."""
    paired = (rec.get("extra") or {}).get("paired_peer")
    if paired is None:
        return []
    where = "paired_peer"
    if not isinstance(paired, dict):
        return [f"{where}: expected an object"]
    ours, theirs, calls = paired.get("samples"), paired.get("peer_samples"), paired.get("calls_per_block")
    if not (_numbers(ours) and _numbers(theirs) and ours and len(ours) == len(theirs) <= MAX_PAIRED
            and isinstance(calls, int) and not isinstance(calls, bool) and calls > 0 and len(ours) % calls == 0):
        return [f"{where}: its samples, peer_samples and calls_per_block are not two equal lists of at most "
                f"{MAX_PAIRED} times in whole blocks"]
    out = []
    if rec.get("samples") != ours:
        out.append(f"{where}.samples: not the record's own samples")
    ratios = stats.block_ratios(ours, theirs, calls)
    for name in ("steal_ticks", "peer_steal_ticks"):   # the page counts the blocks with steal ('1' > 0 broke it)
        ticks = paired.get(name)
        if ticks is not None and not (isinstance(ticks, list) and len(ticks) == len(ratios) and all(
                t is None or (isinstance(t, int) and not isinstance(t, bool) and t >= 0) for t in ticks)):
            out.append(f"{where}.{name}: not one count of ticks (>= 0, or null) per block ({len(ratios)} blocks)")
    if not (_numbers(paired.get("block_ratios")) and len(paired["block_ratios"]) == len(ratios)
            and all(_same(a, b) for a, b in zip(paired["block_ratios"], ratios))) or paired.get("blocks") != len(ratios):
        return out + [f"{where}.block_ratios: not each block's median over the peer's ({len(ratios)} blocks)"]
    found = stats.paired_summary(paired)
    for name, value in found.items():
        claimed = paired.get(name)
        same = (all(_same(a, b) for a, b in zip(claimed, value)) and len(claimed) == len(value)
                if isinstance(claimed, list) and isinstance(value, list) else _same(claimed, value))
        if not same:
            out.append(f"{where}.{name}: {claimed!r:.60}, but its samples give {value!r:.60}")
    return out or _peer_problems(rec, paired, by_id)


def _rules_problems(rec, tuning):
    """A rule engine's search (its candidates per kernel, the trials and limit the pages print) adds up,
    and its choice between the searched and the default network is the sign test's over the paired rounds
    it keeps (study.stats.faster_of): a forged 9 000 000 trials and a "tuned" kept against its own test
    reached the INT8 rules table."""
    out, tasks, trials, limit = [], tuning.get("tasks"), tuning.get("trials"), tuning.get("limit")
    if isinstance(tasks, list) and all(isinstance(t, dict) and isinstance(t.get("candidates"), int) for t in tasks):
        if trials is not None and trials != sum(t["candidates"] for t in tasks):
            out.append(f"trials: {trials!r:.40}, but its kernels' candidates add up to {sum(t['candidates'] for t in tasks)}")
        if isinstance(limit, int) and limit > 0 and any(t["candidates"] > limit for t in tasks):
            out.append(f"limit: {limit}, but a kernel was searched over {max(t['candidates'] for t in tasks)} candidates")
    elif trials:
        out.append(f"trials: {trials!r:.40}, but it names no kernel's search (tasks) to count them from")
    check = tuning.get("network_check")
    if not isinstance(check, dict):
        return out
    tuned, default = check.get("tuned_samples_s"), check.get("default_samples_s")
    if isinstance(tuned, list) and isinstance(default, list) and max(len(tuned), len(default)) > MAX_PAIRED:
        return out + [f"network_check: more than {MAX_PAIRED} paired rounds (the experiments time 40)"]
    if not (_numbers(tuned) and _numbers(default) and tuned and default):
        if citation.bound(rec["run_id"]):
            return out + ["network_check: its paired rounds (tuned_samples_s, default_samples_s) are missing"]
        if check.get("kept") == "tuned" and not _less(check.get("tuned_ms"), check.get("default_ms")):
            out.append("network_check.kept: 'tuned', but the searched network was not faster")
        return out
    found = stats.faster_of(tuned, default)
    out += [f"network_check.{name}: {check.get(name)!r:.40}, but its paired rounds give {found[name]!r:.40}"
            for name in ("tuned_ms", "default_ms", "calls", "tuned_wins", "p_value", "alpha", "kept")
            if not (check.get(name) == found[name] or _same(check.get(name), found[name]))]
    return out


def _less(a, b):
    return all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in (a, b)) and a < b


def _graph(results_dir, rec, by_id):
    """A pass demonstration's IR before and after (the texts its page diffs) are the artifacts it cites,
    and it changed the IR exactly when they differ: an emptied diff under "IR changed, same output"
    was published as the pass's demonstration."""
    extra = rec.get("extra") or {}
    artifacts = extra.get("artifacts") if isinstance(extra.get("artifacts"), dict) else {}
    out = [p for stats, side in (("stats", "ir"), ("before_stats", "before"), ("after_stats", "after"))
           for p in _ir_stats_problems(results_dir, rec, stats, artifacts.get(side))]
    if "before_text" not in extra and "after_text" not in extra:
        return out
    for side in ("before", "after"):
        text, why = _once(results_dir, rec, artifacts.get(side), None, "text", lambda t, _shown: t)
        if text is None:
            out.append(f"artifacts.{side}: {why}")
        elif extra.get(f"{side}_text") != text:
            out.append(f"{side}_text: not the IR of the artifact it cites ({artifacts[side]})")
    if not out and extra.get("changed") != (extra["before_text"] != extra["after_text"]):
        out.append(f"changed: {extra.get('changed')!r:.10}, but the IR before and after are "
                   f"{'different' if extra['before_text'] != extra['after_text'] else 'the same'}")
    return out


def _callee(name):
    """How the IR text calls what an IR summary names: 'call_tir:f' as R.call_tir(cls.f, ...), 'call:f' as cls.f(...),
    'relax.nn.conv2d' as R.nn.conv2d(...); None for a name of no such kind."""
    kind, _, rest = name.partition(":")
    if kind == "call_tir" and rest:
        return f"cls.{rest},"
    if kind == "call" and rest:
        return f"cls.{rest}("
    return f"R.{name[len('relax.'):]}(" if name.startswith("relax.") and len(name) > len("relax.") else None


def _ir_stats_problems(results_dir, rec, name, ref):
    """A graph step's IR summary (extra.stats; a pass's before_stats/after_stats) is the IR it cites: as many Relax
    and TIR functions as the text defines, and each call it names one the text makes.  Calls renamed to
    'call_tir:winograd_conv2d_avx512_vnni' were printed in the step table beside an IR holding fused_conv2d_add_relu."""
    stats = (rec.get("extra") or {}).get(name)
    if not isinstance(stats, dict) or ref is None:
        return []
    text, why = _once(results_dir, rec, ref, None, "text", lambda t, _shown: t)
    if text is None:
        return [f"artifacts: {why}"]
    for key, marker in (("n_relax_funcs", "@R.function"), ("n_tir_funcs", "@T.prim_func")):
        if stats.get(key) != text.count(marker):
            return [f"{name}.{key}: {stats.get(key)!r:.20}, but the IR it cites ({ref}) defines {text.count(marker)}"]
    names = sorted({k for field in ("calls", "calls_all") if isinstance(stats.get(field), dict) for k in stats[field]},
                   key=str)
    missing = next((k for k in names if not (isinstance(k, str) and _callee(k) and _callee(k) in text)), None)
    if missing is not None:
        return [f"{name}.calls: {str(missing)[:80]!r}, a call the IR it cites ({ref}) does not make"]
    return []


CHECKS = {"int8": _int8, "e2e_tune": _e2e_tune, "gemm_tvm": _gemm_tvm, "e2e": _e2e, "graph": _graph}
