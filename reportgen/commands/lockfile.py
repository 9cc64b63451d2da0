"""Lock files that can never be turned against the machine they run on.

A lock file sits in a folder a checkout controls (beside the site, in results/runs/), so a
pull request can commit one as a symlink to any file of whoever runs ``make site``.  Every lock
of reportgen is opened here: never through a symlink (``O_NOFOLLOW``), only as a regular file
with no other name (a hard link),
and refused with a one-line error naming the path otherwise -- nothing is written anywhere else.
"""
import errno
import os
import stat

from reportgen.errors import ReportError


def open_lock(path, create=True):
    """An fd of the regular file ``path`` (created when missing and ``create``), opened for
    reading and writing without following a symlink; ReportError for anything else.
    Raises FileNotFoundError when it is missing and ``create`` is False."""
    flags = os.O_RDWR | os.O_NOFOLLOW | (os.O_CREAT if create else 0)
    try:
        fd = os.open(path, flags, 0o644)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise ReportError(f"{path}: the lock file is a symlink; refusing to follow it "
                              "(remove it: a lock file is never committed)") from exc
        if exc.errno == errno.EISDIR:   # a folder under the lock's name (committed, or left by hand)
            raise ReportError(f"{path}: the lock file is not a regular file; refusing to use it "
                              "(remove it: a lock file is never committed)") from exc
        raise
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise ReportError(f"{path}: the lock file is not a regular file; refusing to use it "
                          "(remove it: a lock file is never committed)")
    if info.st_nlink > 1:   # a hard link: truncating it would empty the file's other name
        os.close(fd)
        raise ReportError(f"{path}: the lock file is a hard link to another file; refusing to write it "
                          "(remove it: a lock file is never committed)")
    return fd
