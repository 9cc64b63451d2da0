"""A record's log as evidence: the path it cites (inside its own run, no symlink, no ..), its lines
counted as the harness counts them (by "\n" only), the cited range, and the excerpt shipped with
the site. Logs come from other machines and pull requests: nothing in them is trusted."""
import os
import stat
from pathlib import Path

from reportgen.data import plainfile
from reportgen.errors import ReportError


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
            st = os.lstat(path)
        except OSError as exc:
            raise ReportError(f"{ref} does not exist") from exc
        mode = st.st_mode
        if stat.S_ISLNK(mode):
            raise ReportError(f"{ref} is refused: {path.relative_to(results_dir)} is a symlink "
                              "(a run holds only plain files)")
    if not stat.S_ISREG(mode):
        raise ReportError(f"{ref} is not a plain file")
    too_big = plainfile.size_problem(ref, st, plainfile.MAX_RUN_FILE_BYTES)
    if too_big:
        raise ReportError(too_big)
    return path


def _log_path(results_dir, rec):
    try:
        return safe_path(results_dir, rec["log"]["path"], rec["run_id"], "log.path")
    except ReportError as exc:
        raise ReportError(f"{rec['id']}: log.path: {exc}") from exc


def read_log(results_dir, rec):
    """Text of the log a record cites, through safe_path."""
    path = _log_path(results_dir, rec)
    try:   # bytes, not read_text: universal newlines would turn a progress bar's \r into a line
        return plainfile.read_bytes(path).decode("utf-8", errors="replace")
    except OSError as exc:
        raise ReportError(f"{path}: log cited by {rec['id']} cannot be read: {exc}") from exc


_SPLIT_LOGS = {}
"""The last two logs log_lines split, by (path, inode, size, mtime, ctime): a page, a check and the
excerpt file each ask for every record's lines, and a run of a thousand records over one 64 MiB log
read and split it once per record (the build's time grew with records x log size)."""


def log_lines(results_dir, rec):
    """The lines of the log a record cites, counted as the harness counts them: by "\n" only."""
    path = _log_path(results_dir, rec)
    try:
        st = os.lstat(path)
        key = (str(path), st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
    except OSError:
        key = None
    if key is None or key not in _SPLIT_LOGS:
        lines = read_log(results_dir, rec).split("\n")
        if key is None:
            return lines
        while len(_SPLIT_LOGS) >= 2:
            _SPLIT_LOGS.pop(next(iter(_SPLIT_LOGS)))
        _SPLIT_LOGS[key] = lines
    return _SPLIT_LOGS[key]


def cited_lines(lines, rec, context=0):
    """The record's cited range of its log's ``lines`` (1-based, inclusive), ``context`` lines around."""
    first, last = rec["log"]["lines"]
    return lines[max(0, first - 1 - context): min(len(lines), last + context)]


EXCERPT_LINES = 400
EXCERPT_LINE_CHARS = 2000
"""A cited line longer than this ships cut, with a note (as the provenance pages show it): one 1 MB
line cited by many records would otherwise ship once per record."""


def _cut(line):
    if len(line) <= EXCERPT_LINE_CHARS:
        return line
    return (line[:EXCERPT_LINE_CHARS] + f" [... {len(line) - EXCERPT_LINE_CHARS} more characters of this line left out; "
            "the whole log is in results/ ...]")


def excerpt_text(results_dir, rec, limit=EXCERPT_LINES):
    """A record's cited log lines as shipped on their own: all of them, or the first and last
    limit/2 with a line saying how many are left out (a family-level record may cite thousands)."""
    lines = [_cut(line) for line in cited_lines(log_lines(results_dir, rec), rec)]
    if len(lines) > limit:
        lines = lines[:limit // 2] + [f"[... {len(lines) - limit} lines left out; the whole log is "
                                      f"results/{rec['log']['path']} ...]"] + lines[-limit // 2:]
    return "\n".join(lines) + "\n"
