"""Where a tuning campaign is heading: the measured network latency of group D at each
cumulative trial count it was timed at (one point per run), and a power-law projection of the
trials it would need to reach a peer's latency.  The projection is a trend, not a measurement:
the pages say so, and show it only when at least two runs timed the campaign at different
trial counts and the latency fell between them."""
import math

from reportgen.data import merge, runfacts

MAX_PROJECTED_TRIALS = 1e12
"""A projection past this many trials is no trend the campaign could follow (and past about 1e308 no
double holds it): projection() then gives None, as for a latency that does not fall."""


def measured_points(runs, machine_id, model, engine="tvm_d", batch=1, input_size=None, jumped=frozenset(),
                    threads=None):
    """(cumulative trials, p50 seconds, record id, run id) of every ok group-D timing of one model
    (at one input size and thread count, if given) on one machine, oldest run first; one point per trial count (the
    newest run's, if repeated).  A record of ``jumped`` ({(run id, record id)}: history.flagged) is no
    point: an earlier run's flagged timing moved the projection's figures, flagged only where the
    current record was."""
    points = {}
    for run in runfacts.order(merge.runs_of(runs, machine_id)):   # -10 after -2, as every reader orders runs
        for rec in run.records:
            case = rec.get("case") or {}
            if rec.get("experiment") != "e2e" or rec.get("status") != "ok" or case.get("model") != model \
                    or case.get("engine") != engine or case.get("batch", 1) != batch \
                    or (input_size is not None and case.get("input_size") != input_size) \
                    or (threads is not None and case.get("threads") != threads) \
                    or (run.run_id, rec.get("id")) in jumped:
                continue
            trials = ((rec.get("extra") or {}).get("tuning") or {}).get("cumulative_trials")
            if trials:
                points[int(trials)] = (int(trials), float(rec["stats"]["p50"]), rec["id"], run.run_id)
    return [points[t] for t in sorted(points)]


def projection(points, target_s):
    """Fit p50 = a * trials**b (least squares in log-log) and solve for the trials at which p50
    would reach ``target_s``.  None unless there are two or more trial counts and b < 0."""
    if len(points) < 2 or target_s <= 0:
        return None
    xs = [math.log(p[0]) for p in points]
    ys = [math.log(p[1]) for p in points]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    if sxx == 0:
        return None
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx
    if b >= 0:
        return None
    log_a = my - b * mx
    log_needed = (math.log(target_s) - log_a) / b
    if not log_needed <= math.log(MAX_PROJECTED_TRIALS):   # a slope of -1e-8: overflow, not a figure
        return None
    a, needed = math.exp(log_a), math.exp(log_needed)
    last_trials, last_s = points[-1][0], points[-1][1]
    return {"exponent": b, "trials": needed, "last_trials": last_trials, "last_s": last_s,
            "factor": last_s / target_s, "per_doubling": 2 ** b, "points": len(points)}


def unverified_steps(steps, run_ids):
    """The steps of a campaign (dicts with run_id and trials) whose run is not in results/runs/: their
    trials are in the campaign's count and its database, but no run's log or record backs them."""
    return [step for step in steps if isinstance(step, dict) and step.get("run_id") not in run_ids]


def step_machine(run_id, machines):
    """The machine of a step's run: the loaded run's (``machines``: {run id: machine id}), else the one
    its id names (study.schema: <UTC time>-<profile>-<machine>[-<n>]); None for an id of no such form, or
    one stamped by the rule before identity.LEGACY_BEFORE (that id is not comparable with today's)."""
    from study import identity, schema
    if run_id in machines:
        return machines[run_id]
    match = schema._RUN_ID.match(run_id) if isinstance(run_id, str) else None
    return match.group(3).split("-")[0] if match and match.group(1) >= identity.LEGACY_BEFORE else None


def other_machine_steps(steps, machine, machines):
    """The steps of a campaign whose run is of another machine than ``machine``: their trials are in the
    campaign's count and its database, but were measured on other hardware."""
    return [step for step in steps if isinstance(step, dict)
            and step_machine(step.get("run_id"), machines) not in (None, machine)]


def step_lines(campaigns, runs):
    """One build line per campaign step of results/campaigns/ whose run is not in results/runs/, or is
    of another machine than the campaign's newest step's (the machine whose database the campaign now is)."""
    machines = {run.run_id: run.machine for run in runs}
    out = []
    for key, state in sorted(campaigns.items()):
        steps = state["steps"]
        own = step_machine(steps[-1]["run_id"], machines) if steps else None
        missing = {id(step) for step in unverified_steps(steps, machines)}
        elsewhere = {id(step) for step in other_machine_steps(steps, own, machines)}
        for number, step in enumerate(steps):
            head = f"campaign {key}: step {number} names run {step['run_id']}"
            if id(step) in missing:
                out.append(f"{head}, which is not in results/runs/; its {step['trials']} trials are counted as the "
                           "campaign says, unverifiable")
            if id(step) in elsewhere:
                out.append(f"{head} of machine {step_machine(step['run_id'], machines)}, not of the campaign's "
                           f"machine {own} (its newest step's); its {step['trials']} trials are counted as the "
                           "campaign says, measured on another machine")
    return out


WORKLOADS, TUNING_RECORDS = "database_workload.json", "database_tuning_record.json"
RUN_SECS = (1e-12, 1e10)
"""A tuning record's measured times, seconds: MetaSchedule's own failure marker is 1e10; a forged 1e-300
made a schedule the best the next search starts from."""


def database_problems(path, lines, state, workloads):
    """Each line of a campaign's database (``lines``: its parsed JSON values) against the campaign
    (``state``: its checked campaign.json; ``workloads``: the workload file's line count): a workload line is
    [hash, payload], two texts; a tuning record [workload index, [trace, run_secs, target, args]] of an
    index into the workload file, run_secs of times in RUN_SECS, the campaign's own target; the tuning records
    are as many as the campaign's last step says (its 256 lines repeated 4x sat under 256 trials)."""
    import json
    from study import stats, strictjson
    try:   # read as the study reads JSON: deep nesting or a text that is no JSON is a line naming it, not a crash
        target = strictjson.loads(state["parts"]["target"]) if isinstance(state["parts"].get("target"), str) else None
    except ValueError as exc:
        return [f"{path.parent / 'campaign.json'}: parts.target: not the JSON of a target ({exc})"[:400]]
    for number, value in enumerate(lines, 1):
        if path.name == WORKLOADS:
            if not (isinstance(value, list) and len(value) == 2 and all(isinstance(v, str) for v in value)):
                return [f"{path}:{number}: not a workload ([its hash, its payload], two texts)"]
            continue
        body = value[1] if isinstance(value, list) and len(value) == 2 else None
        index = value[0] if body is not None else None
        if not (isinstance(index, int) and not isinstance(index, bool) and 0 <= index < workloads
                and isinstance(body, list) and len(body) == 4 and isinstance(body[0], list) and isinstance(body[3], list)):
            return [f"{path}:{number}: not a tuning record ([a workload index below {workloads}, [trace, run_secs, "
                    "target, args]])"]
        secs = body[1]
        if not (isinstance(secs, list) and secs and all(stats.is_number(s) and RUN_SECS[0] <= s <= RUN_SECS[1] for s in secs)):
            return [f"{path}:{number}: run_secs: {str(secs)[:60]!r} is not a list of times of {RUN_SECS[0]:g} to "
                    f"{RUN_SECS[1]:g} s"]
        if body[2] != target:
            return [f"{path}:{number}: target: {json.dumps(body[2])[:80]!r} is not the campaign's (parts.target)"]
    steps = state.get("steps") or []
    if path.name == TUNING_RECORDS and steps and isinstance(steps[-1], dict) and steps[-1].get("records") != len(lines):
        return [f"{path}: {len(lines)} tuning records, but the campaign's last step says {steps[-1].get('records')!r:.20} "
                "(campaign.json steps[-1].records)"]
    if path.name == TUNING_RECORDS and isinstance(state.get("cumulative_trials"), int) and len(lines) > state["cumulative_trials"]:
        return [f"{path}: {len(lines)} tuning records, more than the campaign's {state['cumulative_trials']} trials "
                "(a trial commits at most one)"]
    return []
