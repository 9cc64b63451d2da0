"""The reviewed lists of runs in archive/: runs named there by the sha256 of their run.json.

Run data is written by whoever makes the runs, so a rule over runs alone is one a forger meets by
writing one run more.  Two facts are therefore not read from runs but from a list in archive/, which
the archive's seal (archive/SHA256SUMS) covers, so adding a line is a deliberate reseal a review sees:

- SEALED: the runs recorded before the citation rule, each as it was recorded (sealed_problems);
- CONFIRMING: the runs a maintainer accepted as re-measurements on the publication machine; only these
  confirm a new level over changed code (pages.history.unconfirmed).  A second forged run at the same
  commit 'confirmed' a forged ResNet-18 0.4x as another code's level, unflagged.

run.json lists every file's sha256, so its own sha256 seals the run.
"""
import re
import sys
from pathlib import Path

from study import citation
from reportgen.errors import ReportError

SEALED = "runs-before-named.txt"
"""archive/<this> (beside results/): the runs recorded before study.citation.NAMED_FROM, one per line as
'<run id> <sha256 of its run.json>', the only runs dated before it that load, each as it was recorded: a
run made now and dated back (to a real commit of its day) fell outside the citation rule, its evidence
shown unchecked, and an old run edited with its run.json resealed (ORT 1.82x faster, its cited line
still the old median) was published as current.  In results/ it was a file any run's pull request could
edit unnoticed."""

CONFIRMING = "runs-confirming.txt"
"""archive/<this>: the runs that may confirm a new level, '<run id> <sha256 of its run.json>' a line: runs a
maintainer made (``reportgen retest``) and accepted (``python -m reportgen.data.runlists --confirm RUN ...``,
then the archive's reseal).  A run not listed measures and is published like any other, but a level it
repeats stays flagged as new."""


HEADER = """# The runs that may confirm a new level (reportgen/data/runlists.py CONFIRMING), one per line as
# '<run id> <sha256 of its run.json>': runs a maintainer made with `reportgen retest` and accepted.  A run not
# listed is published like any other, but a level it repeats stays flagged as new.  Add runs with
# `python -m reportgen.data.runlists --confirm RUN_ID ...`, then `python -m reportgen.data.archive --reseal`.
"""


def manifest_sha256(run_dir):
    """The sha256 of a run's run.json (bounded read, no links followed), as the lists give it."""
    import hashlib
    from reportgen.data import plainfile
    return hashlib.sha256(plainfile.read_bytes(Path(run_dir) / "run.json", 1 << 26)).hexdigest()


def sealed_list(results_dir, name=SEALED):
    """The path of a list for a results folder: archive/<name> beside it."""
    return Path(results_dir).parent / "archive" / name


def _read(path, wanted, describe):
    """({run id: sha256}, problems) of the list at ``path``: None for the list when there is none; a line
    that is not '<run id ``wanted`` accepts> <sha256>' is a problem naming the file and line."""
    from reportgen.data import plainfile
    from study import schema
    try:
        text = plainfile.read_text(path, 1 << 20)
    except FileNotFoundError:
        return None, []
    except (OSError, ReportError, UnicodeDecodeError) as exc:
        return None, list(getattr(exc, "problems", None) or [f"{path}: cannot read ({type(exc).__name__})"])
    out, listed = [], {}
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if line and not line.startswith("#"):
            parts = line.split()
            if not (len(parts) == 2 and schema._RUN_ID.fullmatch(parts[0]) and wanted(parts[0])
                    and re.fullmatch(r"[0-9a-f]{64}", parts[1]) and parts[0] not in listed):
                out.append(f"{path}:{number}: {line[:120]!r} is not '<{describe}> <the sha256 of its run.json>' "
                           "(each run once)")
                continue
            listed[parts[0]] = parts[1]
    return listed, out


def _differs(run, listed, path, why):
    """A problem when the run's run.json is not the one the list seals, else None."""
    try:
        sha = manifest_sha256(run.path)
    except (OSError, ReportError) as exc:
        return f"{run.path / 'run.json'}: cannot be read to compare with its seal ({type(exc).__name__})"
    if sha != listed[run.run_id]:
        return f"{run.path / 'run.json'}: differs from its sha256 in {path} ({why})"
    return None


def sealed_problems(results_dir, runs):
    """Runs dated before NAMED_FROM that the sealed list does not list, and list lines that are no run id
    of that time.  No archive beside results/ (a test's results folder, a new study's): each run as
    dated; a project's archive without the list is refused by the archive's seal."""
    path = sealed_list(results_dir)
    listed, out = _read(path, lambda run_id: not citation.bound(run_id),
                        f"the id of a run dated before {citation.NAMED_FROM}")
    if listed is None:
        return out
    for run in runs:
        if citation.bound(run.run_id):
            continue
        if run.run_id not in listed:
            out.append(f"{run.path / 'run.json'}: run_id: dated before {citation.NAMED_FROM} (the citation rule) but "
                       f"not one of the runs recorded before it ({path}); a run made now is dated now")
            continue
        differs = _differs(run, listed, path, "a run recorded before the citation rule is published as it was "
                                              "recorded: its files are never edited")
        if differs:
            out.append(differs)
    return out


def confirming(results_dir, runs):
    """({run id} of the runs the CONFIRMING list accepts, problems): a listed run whose run.json differs
    from its line is a problem naming the run (a line of a run results/ no longer holds confirms nothing:
    no other run.json has its sha256).  No list: no run confirms (every new level stays flagged)."""
    path = sealed_list(results_dir, CONFIRMING)
    listed, out = _read(path, lambda _run_id: True, "the id of a run a maintainer accepted")
    if not listed:
        return set(), out
    held = {run.run_id: run for run in runs}
    accepted = set()
    for run_id in sorted(listed):
        if run_id not in held:
            continue
        differs = _differs(held[run_id], listed, path, "a run accepted as a confirmation is published as it "
                                                       "was accepted: its files are never edited")
        if differs:
            out.append(differs)
        else:
            accepted.add(run_id)
    return accepted, out


def main(argv=None):
    """python -m reportgen.data.runlists --confirm RUN_ID [RUN_ID ...]: list runs of results/runs/ in
    archive/CONFIRMING, each with the sha256 of its run.json (then reseal the archive and commit both)."""
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) < 2 or args[0] != "--confirm":
        print("usage: python -m reportgen.data.runlists --confirm RUN_ID [RUN_ID ...]", file=sys.stderr)
        return 2
    from study import schema
    from reportgen.data import plainfile
    results = Path("results")
    path = sealed_list(results, CONFIRMING)
    linked = [p for p in [plainfile.linked_folder_problem(path.parent, Path.cwd(), "the archive")] + [
        plainfile.linked_folder_problem(results / "runs" / run_id, Path.cwd(), "the run")
        for run_id in args[1:] if schema._RUN_ID.fullmatch(run_id)] if p]
    if linked:   # a committed link 'archive -> elsewhere' had the list written outside the project
        print("\n".join(f"error: {p}" for p in linked), file=sys.stderr)
        return 1
    listed, problems = _read(path, lambda _run_id: True, "the id of a run a maintainer accepted")
    listed = listed or {}
    lines = []
    for run_id in args[1:]:
        if not schema._RUN_ID.fullmatch(run_id) or not (results / "runs" / run_id / "run.json").is_file():
            problems.append(f"{results / 'runs' / run_id[:120]}: not a run of results/runs/")
        elif run_id not in listed:
            try:
                lines.append(f"{run_id} {manifest_sha256(results / 'runs' / run_id)}")
            except (OSError, ReportError) as exc:   # the reason itself (a link, a size), not the exception's name
                problems.extend(getattr(exc, "problems", None) or [
                    f"{results / 'runs' / run_id / 'run.json'}: cannot be read "
                    f"({getattr(exc, 'strerror', None) or type(exc).__name__})"])
            listed[run_id] = ""
    if problems:
        print("\n".join(f"error: {p}" for p in problems), file=sys.stderr)
        return 1
    try:   # the list whole, as a new plain file: a list committed as a link is replaced, never written through
        text = plainfile.read_text(path, 1 << 20) if path.exists() or path.is_symlink() else HEADER
        plainfile.replace_whole(path, (text.rstrip("\n") + "\n" + "".join(line + "\n" for line in lines)).encode())
    except (OSError, ReportError, UnicodeDecodeError) as exc:
        print(f"error: {path}: cannot be written: {getattr(exc, 'strerror', None) or exc}", file=sys.stderr)
        return 1
    print(f"listed {len(lines)} run(s) in {path}; now `python -m reportgen.data.archive --reseal` and commit both")
    return 0


if __name__ == "__main__":
    sys.exit(main())
