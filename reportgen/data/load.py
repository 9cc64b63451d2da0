"""The only module that reads result files: runs, records and their logs, validated.

Results come from other machines and pull requests, so nothing in them is trusted: every
path a record cites must stay inside its own run directory, without symlinks or `..`,
and every file of a run must hash to the sha256 its run.json lists.
"""
import hashlib
import json
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from study import schema
from reportgen.errors import ReportError


@dataclass
class Run:
    """One published retest: its manifest and its records."""

    path: Path
    manifest: dict
    records: list = field(default_factory=list)

    @property
    def run_id(self):
        return self.manifest["run_id"]


def run_dirs(runs_dir):
    """Published run directories (temporary .tmp-* ones are not runs yet)."""
    runs_dir = Path(runs_dir)
    if not runs_dir.is_dir():
        return []
    return sorted(p for p in runs_dir.iterdir()
                  if p.is_dir() and not p.name.startswith(".") and (p / "run.json").exists())


def _candidate_dirs(runs_dir):
    """Every entry of results/runs that claims to be a run (all but hidden .tmp-* folders)."""
    runs_dir = Path(runs_dir)
    if not runs_dir.is_dir():
        return []
    return sorted(p for p in runs_dir.iterdir() if not p.name.startswith("."))


def safe_path(results_dir, ref, run_id=None, what="path"):
    """results_dir/ref, refused unless it stays inside results/runs/<run> with no symlink.

    ref is relative to results/ (``runs/<run>/logs/x.log``); run_id, when given, is the run
    the reference must belong to. Raises ReportError naming the reference.
    """
    results_dir = Path(results_dir)
    parts = Path(ref).parts if isinstance(ref, str) else ()
    if not isinstance(ref, str) or not ref or Path(ref).is_absolute() or ".." in parts or "\x00" in ref:
        raise ReportError(f"{ref!r} is refused: {what} must be a relative path inside results/runs/<run>/")
    if len(parts) < 3 or parts[0] != "runs" or (run_id is not None and parts[1] != run_id):
        want = f"runs/{run_id}/" if run_id else "runs/<run>/"
        raise ReportError(f"{ref} is refused: {what} must lie under {want}")
    path = results_dir
    for part in parts:
        path = path / part
        try:
            mode = os.lstat(path).st_mode
        except OSError as exc:
            raise ReportError(f"{ref} does not exist") from exc
        if stat.S_ISLNK(mode):
            raise ReportError(f"{ref} is refused: {path.relative_to(results_dir)} is a symlink "
                              "(a run holds only plain files)")
    if not stat.S_ISREG(mode):
        raise ReportError(f"{ref} is not a plain file")
    return path


def read_log(results_dir, rec):
    """Text of the log a record cites, through safe_path."""
    try:
        path = safe_path(results_dir, rec["log"]["path"], rec["run_id"], "log.path")
    except ReportError as exc:
        raise ReportError(f"{rec['id']}: log.path: {exc}") from exc
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise ReportError(f"{path}: log cited by {rec['id']} cannot be read: {exc}") from exc


def _tree(run_path):
    """(files relative to the run, symlinks and odd entries) of one run directory, never following links."""
    files, bad = {}, []
    for top, dirs, names in os.walk(run_path, followlinks=False):
        for name in sorted(dirs + names):
            path = Path(top) / name
            mode = os.lstat(path).st_mode
            rel = path.relative_to(run_path).as_posix()
            if stat.S_ISLNK(mode):
                bad.append(f"{path}: is a symlink (to {os.readlink(path)!r}); a run holds only plain files")
            elif stat.S_ISREG(mode):
                files[rel] = path
            elif not stat.S_ISDIR(mode):
                bad.append(f"{path}: is not a plain file or folder")
        dirs[:] = [d for d in dirs if not (Path(top) / d).is_symlink()]
    return files, bad


def _manifest_problems(run_path, manifest, files):
    """run.json's `files`: every file of the run listed, each with its sha256."""
    listed = manifest["files"]
    out = []
    actual = {rel: path for rel, path in files.items() if rel != "run.json"}
    for rel in sorted(set(listed) - set(actual)):
        out.append(f"{run_path / rel}: listed in run.json files but missing")
    for rel in sorted(set(actual) - set(listed)):
        out.append(f"{run_path / rel}: not listed in run.json files (added after the run)")
    for rel in sorted(set(listed) & set(actual)):
        sha = hashlib.sha256(actual[rel].read_bytes()).hexdigest()
        if sha != listed[rel]:
            out.append(f"{run_path / rel}: sha256 {sha[:12]}… differs from run.json files "
                       f"({str(listed[rel])[:12]}…): altered after the run")
    return out


def read_jsonl(path, pending_log=False):
    """Records of one JSONL file; every problem reported as path:line: field: message."""
    path = Path(path)
    records, problems = [], []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise ReportError(f"{path}: cannot read: {exc}") from exc
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            rec = schema.loads(line)
        except ValueError as exc:
            problems.append(f"{path}:{number}: invalid JSON: {exc}")
            continue
        found = schema.record_problems(rec, pending_log=pending_log)
        problems.extend(f"{path}:{number}: {p}" for p in found)
        if not found:
            records.append(rec)
    if problems:
        raise ReportError(problems)
    return records


def _log_problems(results_dir, rec, where, cache):
    """Does the cited log exist, hash to the recorded sha256, and hold the cited lines?"""
    log = rec["log"]
    try:
        path = safe_path(results_dir, log["path"], rec["run_id"], "log.path")
    except ReportError as exc:
        return [f"{where}: log.path: {p}" for p in exc.problems]
    if path not in cache:
        try:
            data = path.read_bytes()
            lines = data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
            cache[path] = (hashlib.sha256(data).hexdigest(), lines)
        except OSError:
            cache[path] = None
    if cache[path] is None:
        return [f"{where}: log.path: {log['path']} does not exist"]
    sha, lines = cache[path]
    out = []
    if sha != log["sha256"]:
        out.append(f"{where}: log.sha256: {log['path']} was altered "
                   f"(sha256 {sha[:12]}…, record says {log['sha256'][:12]}…)")
    if log["lines"][1] > lines:
        out.append(f"{where}: log.lines: {log['lines']} beyond the end of {log['path']} ({lines} lines)")
    return out


def read_runs(results_dir):
    """Every published run under results_dir/runs, fully validated, oldest first."""
    results_dir = Path(results_dir)
    if not results_dir.is_dir():
        raise ReportError(f"{results_dir}: no results folder",
                          hint="run `reportgen retest --profile quick` to create one, or pass --root")
    runs, problems, seen, cache = [], [], {}, {}
    for run_path in _candidate_dirs(results_dir / "runs"):
        manifest_path = run_path / "run.json"
        if run_path.is_symlink() or not run_path.is_dir():
            problems.append(f"{run_path}: not a run folder (runs are plain folders, never symlinks or files)")
            continue
        files, bad = _tree(run_path)
        if bad:
            problems.extend(bad)
            continue
        if "run.json" not in files:
            problems.append(f"{manifest_path}: missing: a run folder without its manifest is not a run "
                            "(restore it or remove the folder)")
            continue
        try:
            manifest = schema.loads(manifest_path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            problems.append(f"{manifest_path}: invalid JSON: {exc}")
            continue
        found = schema.run_problems(manifest)
        if found:
            problems.extend(f"{manifest_path}: {p}" for p in found)
            continue
        if manifest["run_id"] != run_path.name:
            problems.append(f"{manifest_path}: run_id: {manifest['run_id']!r} does not match "
                            f"its directory {run_path.name!r}")
        problems.extend(_manifest_problems(run_path, manifest, files))
        if "records.jsonl" not in files:
            problems.append(f"{run_path / 'records.jsonl'}: missing: a run without records is not a run")
            continue
        try:
            records = read_jsonl(run_path / "records.jsonl")
        except ReportError as exc:
            problems.extend(exc.problems)
            continue
        if not records:
            problems.append(f"{run_path / 'records.jsonl'}: empty: a run without records is not a run "
                            "(remove the folder, or re-run `reportgen retest`)")
            continue
        for number, rec in enumerate(records, 1):
            where = f"{run_path / 'records.jsonl'}:{number}"
            key = (run_path.name, rec["id"])
            if key in seen:
                problems.append(f"{where}: id: duplicate id {rec['id']!r} (first at line {seen[key]})")
            seen[key] = number
            problems.extend(_owner_problems(run_path.name, rec, where))
            problems.extend(_log_problems(results_dir, rec, where, cache))
        runs.append(Run(run_path, manifest, records))
    problems.extend(_reuse_problems(runs))
    if problems:
        raise ReportError(problems, hint="fix or remove the offending run, or re-run `reportgen retest`")
    return runs


def _owner_problems(run_name, rec, where):
    """A record belongs to its run; a reused one names the run it was measured in."""
    if rec["reused_from"] is None:
        if rec["run_id"] != run_name:
            return [f"{where}: run_id: {rec['run_id']!r} differs from its run {run_name!r}"]
        return []
    if rec["reused_from"] != rec["run_id"]:
        return [f"{where}: reused_from: {rec['reused_from']!r} must equal the record's run_id {rec['run_id']!r}"]
    if rec["reused_from"] == run_name:
        return [f"{where}: reused_from: a record cannot be reused from its own run"]
    return []


def _reuse_problems(runs):
    """A reused record must be exactly the record of the run it came from (nothing edited on the way)."""
    by_run = {run.run_id: {rec["id"]: rec for rec in run.records} for run in runs}
    out = []
    for run in runs:
        for number, rec in enumerate(run.records, 1):
            if rec["reused_from"] is None:
                continue
            where = f"{run.path / 'records.jsonl'}:{number}"
            origin = by_run.get(rec["reused_from"])
            if origin is None:
                out.append(f"{where}: reused_from: run {rec['reused_from']!r} is not in results/runs")
                continue
            original = origin.get(rec["id"])
            if original is None or dict(original, reused_from=rec["reused_from"]) != rec:
                out.append(f"{where}: reused_from: differs from record {rec['id']!r} of run "
                           f"{rec['reused_from']!r} (a reused record is carried over unchanged)")
    return out


def read_artifact(results_dir, ref):
    """Text of a run artifact cited by a record (path relative to results/), through safe_path."""
    try:
        path = safe_path(results_dir, ref, what="artifact")
    except ReportError as exc:
        raise ReportError(f"artifact: {exc}") from exc
    if Path(ref).parts[2] != "artifacts":
        raise ReportError(f"{ref}: artifact must lie under runs/<run>/artifacts/")
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ReportError(f"{path}: artifact cited by a record cannot be read: {exc}") from exc


def read_manifest_json(path):
    """A JSON file with a readable error naming the file."""
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ReportError(f"{path}: {exc}") from exc
