"""The small shared harness every experiment family uses: time, check, emit.

An experiment script is started by `reportgen retest` as
    python -m experiments.<family> --spec SPEC.json
with its stdout and stderr redirected to the family's log file. SPEC.json says
where to write records, which log file to cite, the family's parameters, the
code/environment fingerprint, and the previous records that may be reused.

The contract of a family: declare it once (``FAMILY = Family(...)`` at module level, see
:mod:`study.family`; retest reads it without importing the module), and hand every case to
the harness:

* :meth:`Harness.measure` -- a timed case: reuse of the previous record, the log range,
  build (an exception is ``compile_failed``), the numeric check *before* timing (a failed
  check is ``check_failed`` and nothing is timed), timing with the family's params, the
  record;
* :meth:`Harness.evidence` -- a checked fact without samples (tuning, IR changes);
* :meth:`Harness.skip` -- a case that is not run, with the reason.

A step raises :class:`CaseFailed` to record another status (``run_failed`` for a lost
device, ``skipped`` found only after building, ...).
"""
import argparse
import dataclasses
import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from study import cases, citation, ids, schema, stats
from study.spec import Spec


NONE_CHECK = {"reference": "none", "max_abs_err": None, "max_rel_err": None, "threshold": None, "passed": None}
"""The check of a case that produced no output to compare (skipped, or failed before running)."""

TIME = "time_per_call"

ROLE = "HARNESS_ROLE"
"""Environment variable naming the part of a family a child process runs (:meth:`Harness.child`)."""


class CaseFailed(Exception):
    """Raised by a case's step to record it with ``status`` and ``error`` instead of a time."""

    def __init__(self, status, error, extra=None):
        super().__init__(error)
        self.status, self.error, self.extra = status, error, extra


@dataclasses.dataclass
class Outcome:
    """What :meth:`Harness.measure` learned about a case, for its summary line."""
    built: object
    check: dict
    samples: list
    number: int
    extra: dict

    def p50(self):
        """Median seconds per call -- the record's own p50 (study.stats), so that the summary line
        of the log carries the figure the record and the site show (with an even count the upper
        middle sample differed: 4.17 vs 3.68 ms on a bimodal TFLite INT8) --, or NaN when nothing
        was timed."""
        return stats.percentile(sorted(float(v) for v in self.samples), 50) if self.samples else float("nan")


class Harness:
    """Writes validated records for one family, each citing its log line range."""

    def __init__(self, spec):
        spec = spec if isinstance(spec, Spec) else Spec.from_dict(spec)
        self.spec = spec
        self.experiment = spec.experiment
        self.params = spec.params
        self.run_id = spec.run_id
        self.log_file = Path(spec.log_file)
        self.log_ref = spec.log_ref
        self.records_file = Path(spec.records_file)
        self.base_fingerprint = spec.fingerprint
        self.previous = _read_previous(spec.previous_records)
        self.force = spec.force
        self.rpc = spec.rpc   # {tracker, key, target} when measuring on a remote device
        self.artifacts_dir = Path(spec.artifacts_dir)
        self.artifacts_ref = f"runs/{self.run_id}/artifacts/{self.experiment}"
        self.results_root = Path(spec.results_root or self.artifacts_dir.parents[3])
        self.upstream = spec.upstream   # family -> record files, newest first
        self._mark = (0, 0)   # (lines of the log read so far, the byte offset where they end): line() reads on from there

    # -- log positions -------------------------------------------------
    def line(self):
        """Number of lines written to this family's log so far.  Read on from where the last call
        stopped (a family's cost grows with its log, not with its log times its cases); from the
        start when the log is shorter than that (another file)."""
        count, offset = self._mark
        tail = self._log_bytes(offset)
        if tail is None:
            count, offset, tail = 0, 0, self._log_bytes()
        self._mark = (count + tail.count(b"\n"), offset + tail.rfind(b"\n") + 1)
        return self._mark[0]

    def _log_bytes(self, offset=0):
        """This family's log as written so far from byte ``offset`` (b"" before it exists), or None when
        it is shorter than that."""
        sys.stdout.flush()
        sys.stderr.flush()
        try:
            with open(self.log_file, "rb") as fh:
                if os.fstat(fh.fileno()).st_size < offset:
                    return None
                fh.seek(offset)
                return fh.read()
        except OSError:
            return b"" if offset == 0 else None

    def _since(self, first_line):
        """The log's bytes from line ``first_line`` on: read from line()'s mark when it ends there."""
        count, offset = self._mark
        tail = self._log_bytes(offset) if count == first_line - 1 else None
        if tail is not None:
            return tail
        return b"\n".join(self._log_bytes().split(b"\n")[first_line - 1:])

    def say(self, message):
        """A progress line: goes to the log, and retest echoes it to the terminal."""
        print(f"[{self.experiment}] {message}", flush=True)

    def note(self, case_id, **fields):
        """Lines about a case as the citation grammar has them (study.citation.note): ``<id>: key=value``
        with the facts its record holds (checked against it), then a context line with the others."""
        for line in citation.note(case_id, **fields):
            self.say(line)

    def progress(self, done, total, unit, **info):
        """A step of a long job: retest draws these as a progress bar (plain lines off a terminal)."""
        extra = "".join(f" {k}={str(v).replace(' ', '_')}" for k, v in info.items() if v is not None)
        self.say(f"@progress done={int(done)} total={int(total)} unit={unit}{extra}")

    # -- child processes -------------------------------------------------
    @property
    def role(self):
        """The part of the family this process runs (None in the family's first process)."""
        return os.environ.get(ROLE)

    def child(self, role, env=None, unset=()):
        """Run this family's module again in a child process as ``role``: same spec, log and
        records file, with ``env`` set and the variables in ``unset`` removed. For what must
        be fixed before a library loads (OpenBLAS's kernel choice, TVM's thread pool)."""
        child_env = {k: v for k, v in os.environ.items() if k not in unset}
        child_env.update(env or {}, **{ROLE: role})
        module = sys.modules["__main__"].__spec__.name   # started as python -m experiments.<family>
        subprocess.run([sys.executable, "-m", module, *sys.argv[1:]], env=child_env, check=True)

    # -- artifacts -----------------------------------------------------
    def artifact(self, name, text=None):
        """Path to write an artifact (or a work folder, without ``text``) and its reference relative
        to results/ (for records); a file only of the types a run may carry (schema.RUN_FILE_TYPES)."""
        if text is not None and Path(name).suffix.lower() not in schema.RUN_FILE_TYPES:
            raise ValueError(f"artifact {name!r}: a run may carry only {', '.join(schema.RUN_FILE_TYPES)} files")
        path = self.artifacts_dir / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if text is not None:
            path.write_text(text, encoding="utf-8")
        return path, f"{self.artifacts_ref}/{name}"

    def artifact_path(self, ref):
        """Where an artifact reference (``runs/RUN/artifacts/...``) lies on disk now.

        This run's artifacts are still in the run's temporary folder until it is published.
        A reference comes from a record (an upstream or earlier one, which a pull request may have
        committed): one with ``..``, or reached through a symlink, is refused (ValueError naming it),
        so no family compiles with, or copies into its run, a folder outside a run's artifacts/.
        """
        problem = ids.artifact_ref_problem(ref)   # runs/.x/artifacts: a hidden folder no build reads
        if problem:
            raise ValueError(problem)
        parts = Path(ref).parts
        if parts[1] == self.run_id:
            return self.artifacts_dir.parent.joinpath(*parts[3:])
        here = self.results_root
        for part in parts:
            here = here / part
            if here.is_symlink():
                raise ValueError(f"artifact reference {ref!r:.200}: {here} is a symlink; a run holds only plain files")
        return here

    # -- records of other families ----------------------------------------
    def upstream_record(self, family, case_id, accept=lambda rec: True):
        """Newest ok record ``case_id`` of a family this one uses (profile key ``uses``), or None.

        Looks in this run first, then in earlier runs on this machine, newest first;
        ``accept`` filters (e.g. same input size).
        """
        for path in self.upstream.get(family, []):
            if not Path(path).exists():
                continue
            for line in Path(path).read_text(encoding="utf-8").split("\n"):
                if line.strip():
                    rec = schema.loads(line)
                    if rec["id"] == case_id and rec["status"] == "ok" and accept(rec):
                        return rec
        return None

    # -- reuse ---------------------------------------------------------
    def fingerprint(self, case):
        key = json.dumps({"case": case, "base": self.base_fingerprint}, sort_keys=True)
        return hashlib.sha256(key.encode()).hexdigest()

    def _reusable(self, case_id, case):
        """The previous ok record of this case when nothing that matters changed."""
        old = self.previous.get(case_id)
        if self.force or not old or old["status"] != "ok":
            return None
        return old if old["fingerprint"] == self.fingerprint(case) else None

    # -- the case contract ----------------------------------------------
    def measure(self, case_id, case, *, check, call, build=None, extra=None, time="calls", after=None,
                mismatch="result differs from the reference", note=None, reuse=True, prefix=""):
        """One timed case, from reuse to record; returns the record written.

        * ``build()`` makes what is checked and timed (default: nothing); any exception is
          recorded as ``compile_failed``.
        * ``check(built)`` runs it once and returns the check dict; not passed -> a
          ``check_failed`` record with error ``mismatch`` (a string, or ``mismatch(check)``)
          and no samples.
        * ``call(built)`` returns the zero-argument function that is timed, as is.
        * ``time``: ``"calls"`` (:func:`sample` with the params under ``prefix``),
          ``"requests"`` (:func:`sample_requests`: one call per sample), ``"fixed"``
          (``warmup`` then ``repeat`` single calls), or ``time(built) -> (samples, number)``.
        * ``extra``: a dict (every record of the case, failures too) or ``extra(built)``,
          called after the check (records that fail before that get ``{}``).
        * ``after(built, extra)`` adds to extra once timed (op profiles, assembly).
        * ``note(outcome)`` gives the fields of a note said before the record is written
          (study.citation.note: ``<id>: key=value ...``, keys of citation.NOTE_KEYS); the record's
          summary (its median and count) always follows as the last line it cites.
        * A step raising :class:`CaseFailed` records its status, error and extra.
        """
        if reuse:
            old = self._reusable(case_id, case)
            if old:
                return self._emit_reused(old)
        first = self.line() + 1
        fixed = extra if isinstance(extra, dict) else None
        try:
            try:
                built = build() if build is not None else None
            except CaseFailed:
                raise
            except Exception as exc:  # noqa: BLE001 - a failed build is a result, recorded as such
                raise CaseFailed("compile_failed", f"{type(exc).__name__}: {exc}") from exc
            result = check(built)
            info = fixed if fixed is not None else (extra(built) if extra is not None else {})
            outcome = Outcome(built, result, [], 0, info)
            if result["passed"]:
                outcome.samples, outcome.number = self._time(time, call, built, prefix)
                if after is not None:
                    after(built, info)
        except CaseFailed as failed:
            self.say(f"{case_id}: {failed.status}: {failed.error}")
            return self._emit_unmeasured(case_id=case_id, case=case, status=failed.status, error=failed.error,
                                         first_line=first, extra=failed.extra if failed.extra is not None else fixed)
        if note is not None:
            self.note(case_id, **note(outcome))
        passed = bool(result["passed"])
        return self._emit(case_id=case_id, case=case, metric=TIME, unit="s", samples=outcome.samples,
                          warmup=self.params["warmup"] if outcome.samples else 0, number=outcome.number,
                          check=result, first_line=first, status="ok" if passed else "check_failed",
                          error=None if passed else _text(mismatch, result), extra=info)

    def _time(self, how, call, built, prefix):
        """(samples, calls per sample) of a case whose check passed."""
        if callable(how):
            return how(built)
        fn, p = call(built), self.params
        if how == "calls":
            return sample(fn, p, prefix)
        if how == "requests":
            return sample_requests(fn, p), 1
        if how == "fixed":
            return time_calls(fn, warmup=p["warmup"], repeat=p["repeat"], number=1), 1
        raise ValueError(f"time: {how!r} is not calls, requests, fixed or a function")

    def evidence(self, case_id, case, run, *, mismatch="check failed", unit="", reuse=False):
        """A checked fact without samples: ``run() -> (check, extra)``; returns the record.

        Passed -> ok, else ``check_failed`` with error ``mismatch``; :class:`CaseFailed`
        records its status. ``reuse``: carry over an unchanged previous record.
        """
        if reuse:
            old = self._reusable(case_id, case)
            if old:
                return self._emit_reused(old)
        first = self.line() + 1
        try:
            result, info = run()
        except CaseFailed as failed:
            self.say(f"{case_id}: {failed.status}: {failed.error}")
            return self._emit(case_id=case_id, case=case, metric=schema.EVIDENCE, unit=unit, samples=[], warmup=0,
                              number=0, check=NONE_CHECK, first_line=first, status=failed.status,
                              error=failed.error, extra=failed.extra)
        passed = bool(result["passed"])
        return self._emit(case_id=case_id, case=case, metric=schema.EVIDENCE, unit=unit, samples=[], warmup=0,
                          number=0, check=result, first_line=first, status="ok" if passed else "check_failed",
                          error=None if passed else _text(mismatch, result), extra=info)

    def skip(self, case_id, case, reason, *, extra=None, evidence_unit=None):
        """A case that is not run: a ``skipped`` record with the reason (an evidence record
        when ``evidence_unit`` is given)."""
        first = self.line() + 1
        self.say(f"{case_id}: skipped: {reason}")
        if evidence_unit is None:
            return self._emit_unmeasured(case_id=case_id, case=case, status="skipped", error=reason,
                                         first_line=first, extra=extra)
        return self._emit(case_id=case_id, case=case, metric=schema.EVIDENCE, unit=evidence_unit, samples=[],
                          warmup=0, number=0, check=NONE_CHECK, first_line=first, status="skipped",
                          error=reason, extra=extra)

    # -- emit ----------------------------------------------------------
    def _emit(self, *, case_id, case, metric, unit, samples, warmup, number, check,
              first_line, status="ok", error=None, extra=None):
        """Validate and append one record; raise on a contract violation."""
        spelled = cases.canonical_id(case_id, case)
        if spelled != case_id:   # load refuses a bound run's other spellings: say so here, not after the run
            raise ValueError(f"{self.records_file}: record {case_id!r}: not the spelling of its case ({spelled!r}); "
                             "make the id with study.cases.case_id")
        last_line = self._named_range(case_id, first_line, status, samples, extra, check, case)
        rec = {
            "schema_version": schema.SCHEMA_VERSION,
            "id": case_id,
            "run_id": self.run_id,
            "experiment": self.experiment,
            "case": case,
            "metric": metric,
            "unit": unit,
            "samples": list(samples),
            "warmup": warmup,
            "repeat": len(samples),
            "number": number,
            "stats": stats.summarize(samples) if samples else None,
            "check": check,
            "status": status,
            "error": error,
            "log": {"path": self.log_ref, "lines": [first_line, last_line], "sha256": "pending"},
            "fingerprint": self.fingerprint(case),
            "reused_from": None,
            "extra": extra or {},
        }
        self._write(rec)
        return rec

    def _named_range(self, case_id, first_line, status, samples=(), extra=None, check=None, case=None):
        """The last line of the range the record cites: always its summary (study.citation.summary:
        the id with the median and count of a timed ok record, the status of any other), said here
        when the case's own last line is not one. The lines are read back from the log as load reads
        them: a library's output without a line break (a progress bar's \\r) had joined the summary
        there while a clean copy passed here. A range that contradicts the record (a failure reported,
        another median) is a contract violation, as the record schema's are."""
        summary = stats.summarize(samples) if samples else None   # as the record will hold it
        p50 = float(summary["p50"]) if status == "ok" and summary else None
        rec = {"id": case_id, "experiment": self.experiment, "status": status, "samples": list(samples),
               "extra": extra or {}, "stats": summary, "check": check or {}, "case": case or {}}
        for _attempt in range(3):
            data = self._since(first_line)   # lines at "\n" only, from the record's first
            cited = data.decode("utf-8", "replace").split("\n")[:-1]   # whole lines only: the range ends at the last "\n"
            if data.endswith(b"\n") and cited and not citation.summary_problem(rec, cited[-1]):
                break
            if data and not data.endswith(b"\n"):   # end the unfinished line first, naming nothing
                self.say("(context) the output above ended without a line break")
            said = citation.summary(case_id, status, samples, p50)
            self.say(said)
            if self._since(first_line) == data:   # say() does not write this log (a harness under test): as said
                cited.append(said)
                break
        else:
            raise ValueError(f"{self.log_file}: record {case_id!r}: its summary line could not be written whole")
        problems = citation.statement_problems(rec, cited)
        if problems:
            raise ValueError(f"{self.log_file}: record {case_id!r}: " + "; ".join(problems))
        return max(first_line - 1 + data.count(b"\n"), first_line)

    def _emit_unmeasured(self, *, case_id, case, status, error, first_line=None, extra=None):
        """A timing case that produced no time: skipped or failed, with the reason, never a number."""
        return self._emit(case_id=case_id, case=case, metric=TIME, unit="s", samples=[], warmup=0,
                          number=0, check=NONE_CHECK, first_line=self.line() + 1 if first_line is None else first_line,
                          status=status, error=error, extra=extra)

    def _emit_reused(self, old):
        """Carry a previous measurement over unchanged, pointing at its original log."""
        rec = dict(old, reused_from=old["run_id"])
        self._write(rec)
        self.say(f"reused {old['id']} from run {old['run_id']}")
        return rec

    def _write(self, rec):
        problems = schema.record_problems(rec, pending_log=True)
        if problems:
            raise ValueError(f"{self.records_file}: record {rec.get('id')!r}: " + "; ".join(problems))
        with self.records_file.open("a", encoding="utf-8") as fh:
            fh.write(schema.dumps(rec) + "\n")


def _text(message, check):
    """An error message given as text or as a function of the failed check."""
    return message(check) if callable(message) else message


def _read_previous(path):
    if not path or not Path(path).exists():
        return {}
    out = {}
    for line in Path(path).read_text(encoding="utf-8").split("\n"):
        if line.strip():
            rec = schema.loads(line)
            out[rec["id"]] = rec
    return out


def time_calls(fn, *, warmup, repeat, number):
    """Run fn warmup times untimed, then repeat samples of number calls each.

    Returns per-call seconds for every sample (raw, unaggregated).
    """
    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        samples.append((time.perf_counter() - start) / number)
    return samples


def calls_per_sample(fn, min_sample_s, cap=100000):
    """Smallest power-of-two number of calls whose sample lasts at least min_sample_s."""
    number = 1
    while number < cap:
        start = time.perf_counter()
        for _ in range(number):
            fn()
        if time.perf_counter() - start >= min_sample_s:
            return number
        number *= 2
    return cap


def repeats_within(seconds_per_call, number, repeat, budget_s, min_repeat):
    """Reduce repeat so that one case stays near budget_s, never below min_repeat."""
    affordable = int(budget_s / max(seconds_per_call * number, 1e-9))
    return max(min_repeat, min(repeat, affordable))


def sample(call, p, prefix=""):
    """Raw samples of call() sized by a family's params; returns (samples, calls per sample).

    One sample lasts at least p["min_sample_s"]; repeat is cut to keep the case
    near p[prefix + "budget_s"] but never below p[prefix + "min_repeat"].
    """
    number = calls_per_sample(call, p["min_sample_s"])
    once = time_calls(call, warmup=0, repeat=1, number=number)[0]
    repeat = repeats_within(once, number, p[f"{prefix}repeat"], p[f"{prefix}budget_s"], p[f"{prefix}min_repeat"])
    return time_calls(call, warmup=p["warmup"], repeat=repeat, number=number), number


def sample_requests(call, p):
    """Single-call samples (one request each): up to p["repeat"] within p["budget_s"], at least p["min_repeat"]."""
    once = time_calls(call, warmup=0, repeat=1, number=1)[0]
    repeat = repeats_within(once, 1, p["repeat"], p["budget_s"], p["min_repeat"])
    return time_calls(call, warmup=p["warmup"], repeat=repeat, number=1)


def main(run_family):
    """Entry point shared by the family scripts: parse --spec, run, exit non-zero on error."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--spec", required=True, help="JSON spec written by reportgen retest")
    args = parser.parse_args()
    harness = Harness(Spec.read(args.spec))
    harness.say(f"start run={harness.run_id} params={json.dumps(harness.params, sort_keys=True)}")
    run_family(harness)
    harness.say("done")
