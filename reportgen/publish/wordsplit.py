"""The cache of the site search's Chinese word splitter (jieba), kept in this user's cache folder.

MkDocs Material's search splits Chinese text with jieba, which by default keeps its dictionary as
a marshal file in the shared temporary folder ($TMPDIR/jieba.cache, /tmp by default): any local
user could plant one there and so decide how the build splits words, or stop it with an internal
error (a planted ({'\u7684': 1}, 0) divides by log(0)).  Before each build the cache is moved into the
folder where reportgen keeps its other caches (load.cache_dir: REPORTGEN_CACHE, else
~/.cache/tvm-study-reportgen), or into a private folder of this build when caches are off; a cache
there that is not a sound dictionary is removed, and jieba rebuilds it.
"""
import marshal
import os
import stat
from pathlib import Path

from reportgen.data import plainfile
from study import leftovers

CACHE_NAME = "jieba.cache"
MIN_WORDS = 10_000
"""Entries a sound dictionary has at least (jieba's default one has about 350 000)."""


def _folder():
    from reportgen.data import load
    # the same trust rule as the build's other caches (load._cache_folder): a cache folder of another
    # user, or one others may write (a shared REPORTGEN_CACHE of mode 0777), could hold a planted
    # dictionary that passes ``sound`` and decides how the site's search splits words
    folder = load._cache_folder("jieba")
    if folder is not None:
        try:
            load.make_private(folder)
            if load._cache_folder("jieba") is not None and not folder.is_symlink() and folder.is_dir():
                return folder
        except OSError:
            pass
    # mode 0700, this build's own, removed when it ends (every build without a trusted cache left 9 MB
    # in /tmp for good); a killed build's goes at the next
    return Path(leftovers.scratch("jieba", at_exit=True))


def sound(value):
    """True when ``value`` is what jieba caches: ({word: count >= 0}, a total > 0 no smaller than any
    count), for a dictionary of at least MIN_WORDS entries."""
    if not (isinstance(value, tuple) and len(value) == 2):
        return False
    freq, total = value
    if not (isinstance(freq, dict) and len(freq) >= MIN_WORDS and isinstance(total, int) and total > 0):
        return False
    return all(isinstance(w, str) and isinstance(n, int) and 0 <= n <= total for w, n in freq.items())


def _load(cache):
    """The cache's dictionary, or None (after removing it) when it is missing or not sound."""
    try:
        if not stat.S_ISREG(os.lstat(cache).st_mode):
            raise ValueError("not a plain file")
        value = marshal.loads(plainfile.read_bytes(cache))
        if sound(value):
            return value
    except FileNotFoundError:
        return None
    except Exception:   # noqa: BLE001 - marshal raises several kinds on a corrupt file; all mean: rebuild
        pass
    try:
        os.unlink(cache)
    except OSError:
        pass
    return None


def prepare():
    """Point jieba at this user's cache folder, with a sound dictionary or none (it then rebuilds
    one there).  Returns the folder, or None when jieba is not installed (no Chinese splitting)."""
    try:
        import jieba
    except ImportError:
        return None
    folder = _folder()
    import logging
    jieba.setLogLevel(logging.CRITICAL)   # a dump that failed (a full disk) printed a traceback in the build
    import time
    for stale in folder.glob("tmp*"):   # jieba's temporaries of a dump cut short (this folder is the study's),
        try:                            # an hour old: another build's dump in progress is left alone
            if stale.is_file() and not stale.is_symlink() and time.time() - stale.stat().st_mtime > 3600:
                stale.unlink()
        except OSError:
            pass
    splitter = jieba.dt
    with splitter.lock:
        splitter.tmp_dir, splitter.cache_file = str(folder), None
        value = _load(folder / CACHE_NAME) if splitter.dictionary == jieba.DEFAULT_DICT else None
        if value is not None:
            splitter.FREQ, splitter.total = value
            splitter.initialized = True
        else:
            splitter.initialized = False   # a dictionary read earlier from elsewhere is not kept
    return folder
