"""Removing what an interrupted command left behind, whatever it is, without following a link.

A leftover under a name the project writes may be a folder (the usual case), a file, a link planted
in a pull request, or nothing. ``shutil.rmtree`` refuses a link and a file; told to ignore errors it
left them in place, and every later command then failed on the name (a campaign commit) or said
"removed" at every start (retest's stale folders). Both layers remove leftovers through this one
function: a link is unlinked, never followed into its target.
"""
import contextlib
import os
import re
import shutil
import stat


def remove(path, strict=True):
    """Remove ``path``: a folder with its content, or a file or link (the link itself). Nothing there is
    fine. ``strict``: an error is raised; otherwise what cannot be removed stays and the call returns
    False (the caller checks and says so)."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return True
    try:
        if stat.S_ISDIR(mode):
            shutil.rmtree(path)
        else:
            os.unlink(path)
    except FileNotFoundError:
        pass
    except OSError:
        if strict:
            raise
    return not os.path.lexists(path)


def restore(path, old):
    """Put ``old`` back as ``path`` when a command stopped between the two renames of a swap
    (``path`` -> ``old``, new -> ``path``) left only ``old``: the last published state, which the next
    command would otherwise take for none and remove. Only a real folder is put back, never a link.
    True when it was."""
    if os.path.lexists(path) or not os.path.isdir(old) or os.path.islink(old):
        return False
    os.rename(old, path)
    return True


def stopped_swap(path):
    """What a command that finds no ``path`` says of a ``path``.old a swap stopped between its renames left (the
    last published state, which the next build puts back first); '' without one."""
    old = f"{path}.old"
    if os.path.lexists(path) or not os.path.isdir(old) or os.path.islink(old):
        return ""
    return f" ({old} holds the site a build stopped while publishing left: the next `reportgen build` puts it back)"


def sweep(kind):
    """Remove the scratch folders of ``kind`` (``reportgen-<kind>-<pid>-...`` under the system's
    temporary folder) whose process is gone: a command or an experiment killed (-9, a retest's timeout)
    could not remove its own."""
    import tempfile
    top = tempfile.gettempdir()
    prefix = f"reportgen-{kind}-"
    try:
        names = os.listdir(top)
    except OSError:
        names = []
    for name in names:
        pid = name[len(prefix):].split("-", 1)[0]
        # ASCII digits of a pid that can be (pid_max is at most 2^22): "²" passed isdigit() and int()
        # refused it, a pid of 20 digits overflowed os.kill, and either stopped every later command
        if not (name.startswith(prefix) and re.fullmatch(r"[0-9]{1,7}", pid)) or _alive(int(pid)):
            continue
        path = os.path.join(top, name)
        try:
            info = os.lstat(path)
        except OSError:
            continue
        if stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid():   # ours, never a link
            remove(path, strict=False)


def scratch(kind, at_exit=False):
    """A private temporary folder for one command (``reportgen-<kind>-<pid>-...`` under the system's
    temporary folder), after removing the ones of ``kind`` that earlier commands of this user left
    when they were killed (their process is gone): a serve closed with its terminal, or a verify
    killed with -9, left a copy of the whole site in /tmp for good.  ``at_exit``: removed when this
    process ends (for a folder used until then, not by one block)."""
    import tempfile
    sweep(kind)
    prefix = f"reportgen-{kind}-"
    folder = tempfile.mkdtemp(prefix=f"{prefix}{os.getpid()}-")
    if at_exit:
        import atexit
        atexit.register(remove, folder, False)
    return folder


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (OSError, OverflowError, ValueError):   # another user's process, or no pid at all: left alone
        return True
    return True


EXPERIMENT = "experiment"
"""The kind of an experiment's scratch folders (model exports, compiled libraries): retest sweeps them."""


@contextlib.contextmanager
def temporary(kind=EXPERIMENT):
    """A scratch folder for one block, removed after it; one left by a process that was killed in the
    block (a retest stopped by SIGTERM, its timeout or -9: a quick e2e run left 134 MB of ONNX and TFLite
    exports in /tmp for good) goes at the next sweep of its kind (retest sweeps experiments' at start)."""
    folder = scratch(kind)
    try:
        yield folder
    finally:
        remove(folder, strict=False)
