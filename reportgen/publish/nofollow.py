"""Writes into the site that never follow a link planted where a file is written.

A site folder (site/, site.tmp/) is ours, but a file in it may have been replaced by a symlink
to a file of whoever builds (``ln -s ~/.bashrc site/study.pdf``): every file reportgen writes
there is opened here with ``O_NOFOLLOW``, and a folder on the way is created, never followed.
A link is refused with one line naming the path; its target is untouched.
"""
import errno
import os
import stat
from pathlib import Path

from reportgen.errors import ReportError


def refuse(path):
    return ReportError(f"{path}: is a symlink; refusing to write through it (its target is left untouched; "
                       "remove the link)")


def make_dirs(top, rel):
    """top/rel as a folder (mkdir -p below ``top``), refusing a symlink at any step on the way:
    a link to a folder elsewhere would take the files written below it."""
    folder = Path(top)
    for part in Path(rel).parts:
        folder = folder / part
        try:
            os.mkdir(folder)
            continue
        except FileExistsError:
            pass
        if os.path.islink(folder):
            raise refuse(folder)
        if not folder.is_dir():
            raise ReportError(f"{folder}: exists and is not a folder; refusing to write below it")
    return folder


def write_bytes(top, rel, data):
    """Write ``data`` to the regular file top/rel (created or truncated), following no link from
    ``top`` down: neither a folder on the way nor the file itself."""
    rel = Path(rel)
    path = make_dirs(top, rel.parent) / rel.name
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK, 0o644)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise refuse(path) from exc
        if exc.errno == errno.ENXIO:   # a FIFO nobody reads
            raise ReportError(f"{path}: is not a regular file; refusing to write into it") from exc
        raise
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise ReportError(f"{path}: is not a regular file; refusing to write into it")
        if st.st_nlink > 1:   # a second name of a file elsewhere: truncating it would empty that one too
            raise ReportError(f"{path}: is a hard link ({st.st_nlink} names for one file); refusing to write "
                              "into it (remove it)")
        try:
            os.ftruncate(fd, 0)
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
        except OSError as exc:   # a full disk or a quota: say which file, as a failed open() does
            raise ReportError(f"{path}: cannot write ({exc.strerror or exc}); free space or fix the "
                              "folder, then run again") from exc
    finally:
        os.close(fd)
    return path


def write_text(top, rel, text):
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError as exc:   # a lone surrogate (an odd file name, a "\ud800" escape) names no file
        raise ReportError(f"{os.path.join(top, rel)}: cannot write: holds the lone surrogate U+{ord(text[exc.start]):04X} "
                          f"at character {exc.start}, which is not text (find where it came from)") from None
    return write_bytes(top, rel, data)
