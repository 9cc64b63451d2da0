"""`reportgen retest`: run experiment families as subprocesses and store one run atomically.

The run is written under results/runs/.tmp-<run-id>/ and renamed into place only
when it is complete, so a killed or failed retest never touches earlier runs or
the published site.  A SIGTERM publishes the cases finished so far (the stopped family is
marked ``stopped``, the families after it are not run); a SIGKILL publishes nothing.
"""
import datetime as _dt
import functools
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from study import environment

from study import cases, citation, identity, leftovers, schema
from study import family as family_code
from study.spec import Spec
from reportgen.data import familyfacts, load, runfacts
from reportgen.commands import stops
from reportgen.commands.stale import _hold_lock, _is_live, _lock_path, clean_stale  # noqa: F401 - retest's names
from reportgen.errors import ReportError, broken_check, debugging
from reportgen.render import cells

PACKAGES = family_code.PACKAGES   # the repository's own code: what a fingerprint follows


# the profile files' contract and reader live with the data (the history compares runs of two profiles)
from reportgen.data.profiles import PROFILE_FIELDS, read_profile  # noqa: E402,F401 - retest's names


def _sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def import_closure(root, module):
    """study.family.import_closure (kept here: retest's fingerprint is its first reader)."""
    return family_code.import_closure(root, module)


def code_files(root, family):
    """What a family's fingerprint covers: its module's import closure inside the repository
    (found from the code, so no dependency can be forgotten) plus the non-Python files the
    profile lists under ``depends:`` (C kernels it compiles, data it reads)."""
    return family_code.code_files(root, family["module"], family.get("depends", []))


def code_hash(root, family):
    """sha256 over every file of ``code_files``."""
    h = hashlib.sha256()
    try:
        for rel in code_files(root, family):
            h.update(rel.encode())
            h.update(family_code.read_bytes(Path(root, rel)))   # plain files only: a committed link is refused
    except (ValueError, SyntaxError) as exc:
        raise ReportError(f"{family['module']}: its code cannot be fingerprinted: {str(exc).splitlines()[0][:200]}") from None
    return h.hexdigest()


def _git(root):
    def out(*args):
        try:
            return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True,
                                  timeout=20).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return ""
    # results/ changes with every run (campaigns): "dirty" is about the code that measures
    return {"commit": out("rev-parse", "HEAD") or "unknown",
            "dirty": bool(out("status", "--porcelain", "--untracked-files=no", "--", ".", ":!results"))}


def _now(up=False):
    """This second, UTC; ``up``: the next whole second unless this is one (a finish time: with the start
    cut to its second, a run of half a second still finishes after it starts, as schema requires)."""
    now = _dt.datetime.now(_dt.timezone.utc)
    if up and now.microsecond:
        now = now.replace(microsecond=0) + _dt.timedelta(seconds=1)
    return now.strftime("%Y-%m-%dT%H:%M:%SZ")


@functools.lru_cache(maxsize=None)
def _valid_runs(runs_dir):
    """The published runs that pass a build's checks, newest first (once per retest)."""
    valid = []
    for path in load.run_dirs(runs_dir):
        try:
            valid.append(load.read_run(Path(runs_dir).parent, path))
        except ReportError as exc:
            print(cells.visible(f"retest: not reusing records from {path.name}: {exc.problems[0]}"), file=sys.stderr)
        except Exception as exc:  # noqa: BLE001 - a check broke on this run: name it, as a build does
            if debugging():
                raise
            print(cells.visible(f"retest: not reusing records from {path.name}: {broken_check(path, exc)}"),
                  file=sys.stderr)
    valid = _standing_together(Path(runs_dir).parent, runfacts.order(valid))
    loaded = {run.run_id: run for run in valid}
    valid, _unknown = runfacts.standing(Path(runs_dir).parent.parent, valid)   # as a build leaves them out
    _TRIMMED.clear()
    _TRIMMED.update(run.path for run in valid if run is not loaded[run.run_id])
    return list(reversed(runfacts.order(valid)))   # by the checked time of the run id, as a build orders


def _standing_together(results_dir, runs):
    """``runs`` less every run a problem against the others names (load.across: a clock 1.4x the machine's first
    run's was refused by the build and its records reused by retest, which read each run alone), or an engine the
    pages cannot name; none at all when a problem names no run."""
    from reportgen.render import labels
    while True:   # the run checks a build applies (plugin.run_problems): against one another, and the engines
        problems = load.across(results_dir, runs) + labels.engine_problems(runs)
        if not problems:
            return runs
        named = {run.run_id for run in runs if any(run.run_id in p for p in problems)}
        if not named:
            print(cells.visible(f"retest: reusing no records: {problems[0]}"), file=sys.stderr)
            return []
        for run_id in sorted(named):
            said = next(p for p in problems if run_id in p)
            print(cells.visible(f"retest: not reusing records from {run_id}: {said}"), file=sys.stderr)
        runs = [run for run in runs if run.run_id not in named]


def _runs_that_measured(runs_dir, machine_id, family):
    """Run folders on this machine whose manifest lists family, newest first (by the checked
    start time), each validated as a build would validate it: records are reused only from a
    run that passes (a run dated 2999, or one with edited records, is skipped, and said so)."""
    for found in _valid_runs(str(runs_dir)):
        run, manifest = found.path, found.manifest
        entry = manifest.get("experiments", {}).get(family)
        # a stopped family's records are the cases it finished: not a whole run to reuse from
        if (identity.machine_id(manifest.get("environment", {})) == machine_id
                and isinstance(entry, dict) and entry.get("status") != STOPPED):
            yield run


_TRIMMED = set()
"""Folders of the valid runs that carry records of a run left out (filled by _valid_runs)."""


def _records_file(runs_dir, path, tmp):
    """The records of the run at ``path`` a family may read: its records.jsonl, or, when the run
    carries records of a run left out (runfacts.standing), a copy without them in this retest's parts/."""
    run = next(r for r in _valid_runs(str(runs_dir)) if r.path == path)
    if path not in _TRIMMED:
        return path / "records.jsonl"
    kept = tmp / "parts" / f"standing-{run.run_id}.jsonl"
    kept.write_text("".join(schema.dumps(rec) + "\n" for rec in run.records), encoding="utf-8")
    return kept


def _previous_records(runs_dir, tmp, machine_id, family):
    """The records of the newest complete run on this machine that measured family."""
    run = next(_runs_that_measured(runs_dir, machine_id, family), None)
    return _records_file(runs_dir, run, tmp) if run is not None else None


def _upstream_records(runs_dir, tmp, machine_id, families):
    """Record files of the families a family uses, newest first: this run's, then earlier runs'."""
    return {family: [str(tmp / "parts" / f"{family}.jsonl")]
            + [str(_records_file(runs_dir, run, tmp)) for run in _runs_that_measured(runs_dir, machine_id, family)]
            for family in families}


def _echo_progress(log_path, name, stop):
    """Print the family's progress lines ([family] ...) while it runs; @progress lines become a bar."""
    from study.progress import Bar, parse
    bar = Bar(name)
    pos = 0
    while not stop.is_set():
        time.sleep(0.5)
        try:
            with open(log_path, "rb") as fh:
                fh.seek(pos)
                chunk = fh.read()
        except OSError:
            continue
        complete = chunk.rfind(b"\n") + 1
        pos += complete
        for line in chunk[:complete].decode("utf-8", "replace").splitlines():
            if line.startswith(f"[{name}]"):
                fields = parse(line)
                if fields is not None:
                    bar.update(fields)
                else:
                    bar.line(line)


def _killpg(pgid):
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _run_family(root, name, family, spec_path, log_path, env):
    """Run one family with a timeout; return (status, exit code, seconds).

    The family runs under reportgen.commands.guard, leader of its own process group: a timeout, a
    SIGTERM or the death of this process (even by SIGKILL) takes the whole group down.
    """
    started = time.monotonic()
    stop = threading.Event()
    echo = threading.Thread(target=_echo_progress, args=(log_path, name, stop), daemon=True)
    command = [sys.executable, "-m", "reportgen.commands.guard", str(os.getpid()), "--",
               sys.executable, "-u", "-m", family["module"], "--spec", str(spec_path)]
    with open(log_path, "wb") as log:
        # stdin: a pipe only this process holds; the guard reads its end-of-file as our death
        proc = subprocess.Popen(command, cwd=root, stdin=subprocess.PIPE, stdout=log,
                                stderr=subprocess.STDOUT, env=env, start_new_session=True)
        echo.start()
        try:
            code = proc.wait(timeout=family["timeout_s"])
            status = "ok" if code == 0 else "run_failed"
        except subprocess.TimeoutExpired:
            _killpg(proc.pid)
            code = proc.wait()
            status = "timeout"
        except BaseException:
            _killpg(proc.pid)
            proc.wait()
            raise
        finally:
            _killpg(proc.pid)   # workers the family left behind
            proc.stdin.close()
            stop.set()
            echo.join()
    return status, code, time.monotonic() - started


def _failure_record(run_id, name, status, code, log_rel, log_path, timeout_s):
    # the last line as the log's excerpts count lines, at "\n" only: splitlines also cut at a form feed,
    # \x1c or U+2028, and named a fragment ("ok: all cases passed") as the family's last line
    data = log_path.read_bytes()
    tail = [data.decode("utf-8", errors="replace").strip().rsplit("\n", 1)[-1].rstrip("\r")]
    last = tail[0][:300]
    if citation.error_problem(last):   # a record's summary as the last line: no failure's status states a median
        last = "(its last line is a record's summary; see the log)"
    error = familyfacts.failure_words(status, code) + (f"{timeout_s} s" if status == "timeout" else last)
    case_id = cases.case_id(name, scope="family")
    glue = b"" if not data or data.endswith(b"\n") else b"\n"   # never glued to an unterminated last line
    named = glue + f"[{name}] {case_id}: {status}\n".encode()   # the cited range names its record (study.citation)
    with open(log_path, "ab") as log:
        log.write(named)
    lines = (data + named).count(b"\n")
    return {
        "schema_version": schema.SCHEMA_VERSION, "id": case_id, "run_id": run_id,
        "experiment": name, "case": {"scope": "family"}, "metric": "none", "unit": "none",
        "samples": [], "warmup": 0, "repeat": 0, "number": 0, "stats": None,
        "check": {"reference": "none", "max_abs_err": None, "max_rel_err": None,
                  "threshold": None, "passed": None},
        "status": status, "error": error,
        "log": {"path": log_rel, "lines": [1, lines], "sha256": "pending"},
        "fingerprint": "0" * 64, "reused_from": None, "extra": {},
    }


class Terminated(ReportError):
    """SIGTERM reached the retest: its family was killed."""


STOPPED = "stopped"   # a family's status in run.json when SIGTERM stopped it midway


def _whole_lines(path):
    """Cut a record file back to its last complete line (a family killed mid-write); say how much went."""
    data = path.read_bytes()
    keep = data[:data.rfind(b"\n") + 1]
    if len(keep) < len(data):
        path.write_bytes(keep)
        print(f"    dropped {len(data) - len(keep)} bytes of a record cut off by the stop", flush=True)


def _sigterm_raises():
    """SIGTERM and SIGINT (Ctrl-C) become an exception, so the running family's group is killed on
    the way out and the cases it finished are published."""
    def handler(signum, _frame):
        raise Terminated(f"retest: stopped by signal {signal.Signals(signum).name}")
    return stops.handled(handler)


def _unique_run_id(runs_dir, base):
    """Two retests within the same second must not collide: add -2, -3, ..."""
    run_id, suffix = base, 1
    # lexists: a dangling link under the name is taken too (the run's final rename onto it would fail,
    # leaving the measured run in a .tmp- folder that the next retest removes)
    while os.path.lexists(runs_dir / run_id) or os.path.lexists(runs_dir / f".tmp-{run_id}"):
        suffix += 1
        run_id = f"{base}-{suffix}"
    return run_id


def _device_environment(tracker, key):
    """The device's environment, asked by `python -m experiments.remote environment` in a child
    process: the retest command launches experiments, it does not import them."""
    root = Path(__file__).resolve().parents[2]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")])))
    proc = subprocess.run([sys.executable, "-m", "experiments.remote", "environment", tracker, key], cwd=root,
                          env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["no message"])[-1]
        raise ReportError(last)   # the device side names the tracker, the key or the device
    return schema.loads(proc.stdout)


def _rpc_setup(rpc_tracker, rpc_key, target_json, selected):
    """Check the RPC options, ask the device for its environment, keep the families that can use it."""
    if not rpc_tracker:
        if rpc_key:
            raise ReportError("--rpc-key needs --rpc-tracker")
        return None, None, selected
    if not rpc_key:
        raise ReportError("--rpc-tracker needs --rpc-key (the device type registered with the tracker)")
    target = _target_argument(target_json, '{"kind": "llvm", "mcpu": "znver3"}') if target_json else None
    device_env = _device_environment(rpc_tracker, rpc_key)
    host = environment.capture()
    device_env["rpc"] = {"tracker": rpc_tracker, "key": rpc_key, "compiled_on": host["machine_id"],
                         "compiled_on_cpu": host["cpu_model"]}
    remote_ok = {k: v for k, v in selected.items() if v.get("rpc")}
    skipped = sorted(set(selected) - set(remote_ok))
    if not remote_ok:
        raise ReportError(f"none of {', '.join(selected)} can run through RPC (families with rpc: true in the profile)")
    if skipped:
        print(f"through RPC only: {', '.join(remote_ok)}; not run on the device: {', '.join(skipped)}", flush=True)
    rpc = {"tracker": rpc_tracker, "key": rpc_key, "target": target or device_env["tvm_target"]}
    return rpc, device_env, remote_ok


def _target_argument(text, example):
    """--target as the run will store it: JSON that a load reads back (no NaN, no repeated key, no
    deeper nesting than study.schema.MAX_DEPTH: 100000 '[' ended in an internal RecursionError) of
    visible strings only (an escape sequence or bidi control in it would make the measured run one
    that load refuses)."""
    try:
        target = schema.loads(text)
    except ValueError as exc:
        raise ReportError(f"--target: not valid JSON ({exc}); e.g. '{example}'") from None
    problems = []
    schema._visible_strings(target, "--target", problems)
    if problems:
        raise ReportError(problems[0])
    return target


def _local_target(target_json, selected):
    """--target without --rpc-tracker: a CUDA target for this machine's GPU, given to the families
    that compile for a target (rpc: true in the profile); their params carry it (and its fingerprint)."""
    if not target_json:
        return selected
    target = _target_argument(target_json, '{"kind": "cuda"}')
    if not isinstance(target, dict) or target.get("kind") != "cuda":
        raise ReportError("--target without --rpc-tracker is for a local CUDA GPU ({\"kind\": \"cuda\", ...}); "
                          "other targets are measured on their device through --rpc-tracker")
    other = sorted(k for k, v in selected.items() if not v.get("rpc"))
    if other:
        raise ReportError(f"--target: {', '.join(other)} cannot compile for a CUDA target; "
                          f"use --only with {', '.join(k for k, v in selected.items() if v.get('rpc')) or 'gemm_tvm'}")
    return {k: dict(v, params=dict(v["params"], target=target)) for k, v in selected.items()}


def retest(root, profile, only=(), force=False, argv=(), rpc_tracker=None, rpc_key=None, target_json=None,
           allow_dirty=False):
    """Run the profile's families (or only some) and publish one new run directory.

    A standard/full run is what the site publishes, so it must name the code that measured it:
    from a tree whose tracked code has uncommitted changes it is refused unless ``allow_dirty``
    (then run.json says dirty, as always)."""
    root = Path(root).resolve()
    _valid_runs.cache_clear()   # runs published since the last retest of this process count too
    if profile != "quick" and not allow_dirty and _git(root)["dirty"]:
        raise ReportError(f"{root}: the code has uncommitted changes; a {profile} run would publish figures "
                          f"no commit can reproduce",
                          hint="commit first (git status), or pass --allow-dirty to mark the run as dirty")
    families = read_profile(root, profile)
    unknown = [name for name in only if name not in families]
    if unknown:
        raise ReportError(f"--only: unknown famil{'y' if len(unknown) == 1 else 'ies'} "
                          f"{', '.join(unknown)}; known: {', '.join(families)}")
    selected = {k: v for k, v in families.items() if not only or k in only}
    rpc, device_env, selected = _rpc_setup(rpc_tracker, rpc_key, target_json, selected)
    if rpc is None:
        selected = _local_target(target_json, selected)
    runs_dir = root / "results" / "runs"
    # a new run is never written through a link, nor a campaign committed through one
    for folder in (runs_dir.parent, runs_dir, runs_dir.parent / "campaigns"):
        if folder.is_symlink():
            raise ReportError(f"{folder}: is a symlink; a retest writes its run only into a plain folder "
                              "of the project")
    try:
        runs_dir.mkdir(parents=True, exist_ok=True)
        # a new file of a random name (O_EXCL): Path.touch of the guessable .tmp-probe-<pid>.lock followed
        # a link planted under that name and created (or touched) its target, anywhere on the machine
        fd, probe = tempfile.mkstemp(prefix=".tmp-probe-", suffix=".lock", dir=runs_dir)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise ReportError(f"{runs_dir}: cannot write a new run here ({exc.strerror})",
                          hint="make results/ writable, or pass --root to a writable copy") from exc
    clean_stale(runs_dir)
    leftovers.sweep(leftovers.EXPERIMENT)   # the scratch of experiments killed in an earlier retest

    env = dict(os.environ)
    env.setdefault("TVM_NUM_THREADS", str(os.cpu_count()))
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(root), env.get("PYTHONPATH")]))
    os.environ["TVM_NUM_THREADS"] = env["TVM_NUM_THREADS"]
    host = device_env or environment.capture()
    started = _now()
    run_id = _unique_run_id(runs_dir, f"{started.replace('-', '').replace(':', '')}-{profile}-{host['machine_id']}")
    tmp = runs_dir / f".tmp-{run_id}"
    lock = _hold_lock(_lock_path(tmp))   # before the folder exists: no window for clean_stale
    try:
        with _sigterm_raises():
            return _retest_into(root, profile, families, selected, force, argv, rpc, host, started,
                                run_id, runs_dir, tmp, env)
    except Terminated as exc:
        raise ReportError(exc.problems, hint=f"the family's processes were killed; nothing was published "
                                             f"({tmp.name} is removed by the next retest)") from exc
    except _StoppedAfterPublishing as exc:
        raise ReportError(exc.problems, hint=exc.hint) from None
    finally:
        os.close(lock)
        if not tmp.exists():
            _lock_path(tmp).unlink(missing_ok=True)


class _StoppedAfterPublishing(ReportError):
    """SIGTERM stopped a family; the cases finished before it were published as a run."""


def _retest_into(root, profile, families, selected, force, argv, rpc, host, started, run_id, runs_dir, tmp, env):
    """The body of retest: run every selected family into tmp, then publish it as runs/<run_id>.

    A SIGTERM kills the running family's process group; the records it had finished (each one
    complete, checked and with its log) are still published, with the family marked ``stopped``
    and the families after it not run, so hours of tuning are not lost to a stop.  With no
    finished record at all nothing is published.  Further SIGTERMs while publishing are ignored;
    a SIGKILL then leaves the run unpublished (the rename into place is atomic).
    """
    (tmp / "logs").mkdir(parents=True)
    (tmp / "parts").mkdir()
    print(f"retest {run_id}: {len(selected)} famil{'y' if len(selected) == 1 else 'ies'} "
          f"({profile} profile) into {tmp}", flush=True)

    experiments, records, stopped, not_run = {}, [], None, []
    for index, (name, family) in enumerate(selected.items(), 1):
        print(f"[{index}/{len(selected)}] {name} (timeout {family['timeout_s']} s)", flush=True)
        log_rel = f"runs/{run_id}/logs/{name}.log"
        log_path = tmp / "logs" / f"{name}.log"
        part = tmp / "parts" / f"{name}.jsonl"
        base = hashlib.sha256(json.dumps(
            [family["params"], code_hash(root, family), environment.fingerprint(host)],
            sort_keys=True).encode()).hexdigest()
        previous = _previous_records(runs_dir, tmp, host["machine_id"], name)
        spec = Spec(experiment=name, run_id=run_id, params=family["params"],
                    log_file=str(log_path), log_ref=log_rel, records_file=str(part),
                    artifacts_dir=str(tmp / "artifacts" / name), fingerprint=base,
                    previous_records=str(previous) if previous else None, force=bool(force), rpc=rpc,
                    results_root=str(runs_dir.parent),
                    upstream=_upstream_records(runs_dir, tmp, host["machine_id"], family.get("uses", [])),
                    # what this profile asks of those families, so a case can say why it found nothing
                    upstream_params={f: families[f]["params"] for f in family.get("uses", [])})
        spec_path = tmp / "parts" / f"{name}.spec.json"
        spec.write(spec_path)
        load_before = os.getloadavg()
        family_start = time.monotonic()
        try:
            status, code, seconds = _run_family(root, name, family, spec_path, log_path, env)
        except Terminated as exc:
            stopped = exc
            status, code, seconds = STOPPED, -signal.SIGTERM, time.monotonic() - family_start
            stops.ignored()   # publishing takes a moment; kill -9 still stops it, publishing nothing
            if part.exists():
                _whole_lines(part)
        fam_records = load.read_jsonl(part, pending_log=True) if part.exists() else []
        if status == STOPPED:
            not_run = list(selected)[index:]
            if not any(rec["status"] == "ok" for rec in records + fam_records):
                raise stopped
            with open(log_path, "a", encoding="utf-8") as log:
                log.write(f"[{stopped.problems[0]}] {name} after {seconds:.0f} s; "
                          f"{len(fam_records)} finished records kept\n")
        if status != "ok":   # the family's own record; a stopped family's says run_failed
            fam_records.append(_failure_record(run_id, name, "run_failed" if status == STOPPED else status,
                                               code, log_rel, log_path, family["timeout_s"]))
        sha = _sha256(log_path)
        for rec in fam_records:
            if rec["log"]["sha256"] == "pending":
                rec["log"]["sha256"] = sha
        records.extend(fam_records)
        experiments[name] = {"status": status, "exit_code": code, "duration_s": round(seconds, 3),
                             "log": log_rel, "records": len(fam_records),
                             "reused": sum(1 for r in fam_records if r["reused_from"]),
                             # 1-minute load average before and after: a busy machine is visible here
                             "load_average": [round(load_before[0], 2), round(os.getloadavg()[0], 2)]}
        print(f"    {status}: {len(fam_records)} records in {seconds:.1f} s "
              f"({experiments[name]['reused']} reused)", flush=True)
        if status == STOPPED:
            break

    problems = [f"{tmp / 'records.jsonl'}: {rec['id']}: {p}"
                for rec in records for p in schema.record_problems(rec)]
    if problems:
        raise ReportError(problems, hint=f"the run was left in {tmp} for inspection and not published "
                                            "(the next retest removes it)")
    with open(tmp / "records.jsonl", "w", encoding="utf-8") as fh:
        for rec in records:
            fh.write(schema.dumps(rec) + "\n")
    shutil.rmtree(tmp / "parts")
    manifest = {
        "schema_version": schema.SCHEMA_VERSION, "run_id": run_id, "profile": profile,
        "started_at": started, "finished_at": _now(up=True), "command": list(argv) or ["reportgen", "retest"],
        "git": _git(root), "environment": host, "experiments": experiments,
        "files": {str(p.relative_to(tmp)): _sha256(p) for p in sorted(tmp.rglob("*")) if p.is_file()},
    }
    problems = [f"{tmp / 'run.json'}: {p}" for p in schema.run_problems(manifest)]
    if problems:
        raise ReportError(problems, hint=f"the run was left in {tmp} for inspection and not published "
                                            "(the next retest removes it)")
    (tmp / "run.json").write_text(json.dumps(manifest, indent=1, ensure_ascii=False) + "\n",
                                  encoding="utf-8")
    final = runs_dir / run_id
    tmp.rename(final)
    failed = [n for n, e in experiments.items() if e["status"] not in ("ok", STOPPED)]
    print(f"published {final.relative_to(root)}"
          + (f"; failed families: {', '.join(failed)}" if failed else ""), flush=True)
    if stopped is not None:
        name = next(reversed(experiments))
        finished = experiments[name]["records"] - 1   # the family's own stop record aside
        raise _StoppedAfterPublishing(
            stopped.problems,
            hint=f"published {final.relative_to(root)} with the {finished} case{'' if finished == 1 else 's'} "
                 f"{name} had finished" + (f"; not run: {', '.join(not_run)}" if not_run else ""))
    return final
