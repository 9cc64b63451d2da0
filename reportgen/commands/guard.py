"""python -m reportgen.commands.guard PARENT_PID -- CMD...: run CMD, and take its whole process group
down the moment the retest that started it dies, even by SIGKILL.

`reportgen retest` starts every family through this guard, in a new session (so the guard
leads the family's process group, which TVM's popen workers and MetaSchedule builders
inherit). Three things end the group:

- the retest's timeout or SIGTERM: it kills the group (``os.killpg``);
- the retest dying: the kernel sends the guard SIGTERM (``PR_SET_PDEATHSIG``), and the
  guard's stdin, a pipe only the retest holds open, reads end-of-file; either way the
  guard SIGKILLs every descendant and the group, itself last;
- the family ending: the guard exits with the family's status.
"""
import ctypes
import os
import signal
import subprocess
import sys
import threading

PR_SET_PDEATHSIG = 1


def _descendants():
    try:
        import psutil
        return psutil.Process().children(recursive=True)
    except Exception:  # psutil missing or a process gone: the group kill still runs
        return []


def kill_group(*_args):
    """SIGKILL every descendant (also those that left the group) and the group itself."""
    for proc in _descendants():
        try:
            proc.kill()
        except Exception:
            pass
    os.killpg(os.getpgrp(), signal.SIGKILL)


def _set_pdeathsig(sig):
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, int(sig), 0, 0, 0)
    except (OSError, AttributeError):  # not Linux: the stdin watch below still works
        pass


def _watch_parent():
    """Block on stdin (a pipe from the retest); end-of-file means the retest is gone."""
    try:
        while os.read(0, 4096):
            pass
    except OSError:
        pass
    kill_group()


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if len(argv) < 3 or argv[1] != "--":
        print("usage: python -m reportgen.commands.guard PARENT_PID -- CMD...", file=sys.stderr)
        return 2
    parent = int(argv[0])
    signal.signal(signal.SIGTERM, kill_group)
    _set_pdeathsig(signal.SIGTERM)
    if os.getppid() != parent:  # the retest died before the death signal was armed
        kill_group()
    threading.Thread(target=_watch_parent, daemon=True).start()
    child = subprocess.Popen(argv[2:], stdin=subprocess.DEVNULL)
    code = child.wait()
    if code < 0:  # die of the same signal, so the retest sees the family's real status
        try:
            signal.signal(-code, signal.SIG_DFL)
        except (OSError, ValueError):  # SIGKILL/SIGSTOP cannot be handled: they need no reset
            pass
        os.kill(os.getpid(), -code)
    return code


if __name__ == "__main__":
    sys.exit(main())
