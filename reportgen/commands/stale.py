"""What a retest leaves when it is stopped, and how the next one settles it.

A retest measures into ``results/runs/.tmp-<run id>`` and holds ``.tmp-<run id>.lock`` (flock) while
it lives; its last step renames the folder to ``<run id>``. A retest killed before that leaves the
folder behind. The next retest's ``clean_stale`` removes such a folder, unless the run in it is
whole (killed between writing run.json and the rename): then it publishes it, but only a folder a
retest made, only if the published runs pass the build's own check before (else it keeps the
folder: another run's problem must not cost this one) and with it after. The check runs with the run
in place, so a marker ``.publishing-<run id>`` says so meanwhile: a retest killed during the check
(kill -9, power loss) leaves the marker, and the next clean_stale moves the run back to be judged
again, instead of leaving an unchecked run published.
"""
import fcntl
import os
import sys
from pathlib import Path

from study import leftovers, schema
from reportgen.commands import lockfile, stops
from reportgen.errors import ReportError

PUBLISHING = ".publishing-"


def _lock_path(tmp):
    return tmp.with_name(tmp.name + ".lock")


def _hold_lock(path):
    """Create and flock path (held until this process ends); a live retest holds its tmp's lock."""
    fd = lockfile.open_lock(path)
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    os.ftruncate(fd, 0)
    os.write(fd, f"{os.getpid()}\n".encode())
    return fd


def _is_live(lock):
    """True while another retest holds this lock file."""
    try:
        fd = lockfile.open_lock(lock, create=False)
    except (FileNotFoundError, ReportError):   # missing, or a planted symlink: nothing holds it
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return False
    except BlockingIOError:
        return True
    finally:
        os.close(fd)


def _check(runs_dir):
    """The build's own check of the published runs (plugin.checked_runs): its first problem, or None."""
    from reportgen.publish import plugin
    try:
        plugin.checked_runs(runs_dir.parent)
    except ReportError as exc:
        return exc.problems[0] if exc.problems else "refused"
    except Exception as exc:  # noqa: BLE001 - a check that breaks refuses as well
        return f"{type(exc).__name__}: {exc}"
    return None


def _made_by_retest(runs_dir, tmp):
    """A whole run in a folder a retest made: its lock beside it (clean_stale has left tracked folders
    alone before it asks)."""
    run_id = tmp.name[len(".tmp-"):]
    return (schema._RUN_ID.match(run_id) and not os.path.lexists(runs_dir / run_id) and not tmp.is_symlink()
            and (tmp / "run.json").is_file() and _lock_path(tmp).is_file())


def _publish_complete(runs_dir, tmp):
    """'published' when the whole run in ``tmp`` went into place, 'kept' when the published runs fail the
    build's check already (the leftover cannot be judged, so it waits), 'no' otherwise (to be removed)."""
    if not _made_by_retest(runs_dir, tmp):
        return "no"
    before = _check(runs_dir)
    if before is not None:
        return "kept: " + before
    run_id = tmp.name[len(".tmp-"):]
    final, marker = runs_dir / run_id, runs_dir / (PUBLISHING + run_id)
    if os.path.lexists(marker):   # one clean_stale did not settle (a commit's, or a link): never written through
        return f"kept: {marker.name} is in the way"
    with stops.held():   # not dropped: a Ctrl-C or kill during the check lands once the folder is back or kept
        os.close(os.open(marker, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644))
        os.rename(tmp, final)
        if _check(runs_dir) is not None:   # anything short of a valid run goes back, to be removed as before
            os.rename(final, tmp)
            leftovers.remove(marker, strict=False)
            return "no"
        leftovers.remove(marker, strict=False)
        return "published"


def _tracked(path):
    """True when git tracks ``path`` (a file, or files in a folder), or when git cannot tell inside a
    checkout (GIT_DIR pointing elsewhere, a checkout of another user): such a folder is left alone, not
    removed; False outside a checkout, or without git."""
    from reportgen.commands.build import git_tracked
    tracked = git_tracked(path)
    if tracked is not None:
        return bool(tracked)
    return any((folder / ".git").exists() for folder in path.resolve().parents)


def _unfinished_publishing(runs_dir):
    """Runs a killed clean_stale left in place unchecked (their marker is still there) go back to
    .tmp-<run id>, to be judged again below; a marker alone is removed."""
    for marker in sorted(Path(runs_dir).glob(PUBLISHING + "*")):
        run_id = marker.name[len(PUBLISHING):]
        final, tmp = Path(runs_dir) / run_id, Path(runs_dir) / f".tmp-{run_id}"
        if _tracked(marker) or _tracked(_lock_path(tmp)):   # only ones a retest left, never a commit's
            print(f"ignored {ascii(marker.name)[1:-1]}: tracked by git; a retest writes its markers, never a "
                  "commit (git rm --cached it)", file=sys.stderr, flush=True)
            continue
        if (schema._RUN_ID.match(run_id) and final.is_dir() and not final.is_symlink() and not os.path.lexists(tmp)
                and _lock_path(tmp).is_file() and not _is_live(_lock_path(tmp))):
            os.rename(final, tmp)
            print(f"checking again {ascii(run_id)[1:-1]}: its publishing was stopped before its check ended",
                  flush=True)
        leftovers.remove(marker, strict=False)


def clean_stale(runs_dir):
    """Remove .tmp-* folders no live retest holds (a killed retest's leftovers); say so."""
    _unfinished_publishing(runs_dir)
    removed = []
    for tmp in sorted(Path(runs_dir).glob(".tmp-*")):
        if _tracked(tmp):   # a commit's (a folder's files, or a file), not a retest's: never removed by one
            print(f"ignored {ascii(tmp.name)[1:-1]}: tracked by git, or git cannot tell; a retest leaves such "
                  "folders, never a commit (git rm -r --cached it)", file=sys.stderr, flush=True)
            continue
        if tmp.name.endswith(".lock"):
            if not tmp.with_name(tmp.name[:-5]).exists() and not _is_live(tmp):
                leftovers.remove(tmp, strict=False)
            continue
        if _is_live(_lock_path(tmp)):
            continue
        name = ascii(tmp.name)[1:-1]   # one line whatever the name holds (a newline forged a status line)
        outcome = _publish_complete(runs_dir, tmp)
        if outcome == "published":
            leftovers.remove(_lock_path(tmp), strict=False)
            print(f"published {name[len('.tmp-'):]}: a complete run left by a retest stopped while publishing",
                  flush=True)
            continue
        if outcome.startswith("kept"):
            print(f"kept {name}: a complete run left by a stopped retest, not published while the published "
                  f"runs fail the build's check ({ascii(outcome[len('kept: '):])[1:-1][:300]}); fix them and "
                  "retest again", file=sys.stderr, flush=True)
            continue
        if not leftovers.remove(tmp, strict=False):   # a link or file planted under the name included
            print(f"could not remove {name}: left by a retest that is no longer running; remove it by hand",
                  file=sys.stderr, flush=True)
            continue
        leftovers.remove(_lock_path(tmp), strict=False)
        removed.append(tmp)
        print(f"removed {name}: left by a retest that is no longer running", flush=True)
    return removed
