"""The only module that reads result files: runs, records and their logs, validated."""
import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

from . import schema
from .errors import ReportError


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
    path = Path(results_dir) / log["path"]
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
    runs, problems, seen, cache = [], [], {}, {}
    for run_path in run_dirs(results_dir / "runs"):
        manifest_path = run_path / "run.json"
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
        try:
            records = read_jsonl(run_path / "records.jsonl")
        except ReportError as exc:
            problems.extend(exc.problems)
            continue
        for number, rec in enumerate(records, 1):
            where = f"{run_path / 'records.jsonl'}:{number}"
            key = (run_path.name, rec["id"])
            if key in seen:
                problems.append(f"{where}: id: duplicate id {rec['id']!r} (first at line {seen[key]})")
            seen[key] = number
            problems.extend(_log_problems(results_dir, rec, where, cache))
        runs.append(Run(run_path, manifest, records))
    if problems:
        raise ReportError(problems, hint="fix or remove the offending run, or re-run `reportgen retest`")
    return runs


def read_artifact(results_dir, ref):
    """Text of a run artifact cited by a record (path relative to results/)."""
    path = Path(results_dir) / ref
    if ".." in Path(ref).parts or Path(ref).is_absolute():
        raise ReportError(f"{ref}: artifact path must stay inside {results_dir}")
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
