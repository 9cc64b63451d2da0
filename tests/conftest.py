import atexit
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).parent))
# read_jsonl remembers validated files in the user's cache; tests keep theirs to themselves, and remove
# it when the session's process ends (each run left one folder in /tmp: hundreds after a few days)
os.environ["REPORTGEN_CACHE"] = tempfile.mkdtemp(prefix="reportgen-validated-")
atexit.register(shutil.rmtree, os.environ["REPORTGEN_CACHE"], True)

# What a throw-away project copy leaves out: build outputs, and the state of any retest or build
# running in this checkout right now (its .tmp- run folder, campaign swaps, locks).
IGNORE = shutil.ignore_patterns(".venv", "site", "site.*", ".git", "__pycache__", ".cache", "*.egg-info",
                                ".tmp-*", ".trash-*", ".old-*", ".*.lock", "output")


def copy_project(dest):
    """A copy of the project (code, archive, docs, committed results) at ``dest``."""
    shutil.copytree(ROOT, dest, ignore=IGNORE)
    return dest


@pytest.fixture
def project(tmp_path):
    """A throw-away copy of the project (code, archive, docs, committed results)."""
    return copy_project(tmp_path / "project")


@pytest.fixture(scope="session")
def built_site(tmp_path_factory, worker_id):   # worker_id: pytest-xdist's ("master" without workers)
    """The site built once from the committed results, in a throw-away project copy.

    Shared by the whole session: tests that only read it take it directly; a test that changes
    the project or its site takes ``built_copy`` instead.  Under pytest-xdist (``make test`` runs
    two workers) the first worker to get here builds it in the folder all workers share and the
    others wait on a lock and read the same copy, so the tier pays for one build, not one per worker."""
    from reportgen.commands import build
    if worker_id == "master":
        dest = copy_project(tmp_path_factory.mktemp("built") / "project")
        build.build(dest, dest / "site")
        return dest
    import fcntl
    shared = tmp_path_factory.getbasetemp().parent / "built-site"
    shared.mkdir(exist_ok=True)
    with open(shared / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        dest, done = shared / "project", shared / ".built"
        if not done.exists():
            shutil.rmtree(dest, ignore_errors=True)
            copy_project(dest)
            build.build(dest, dest / "site")
            done.touch()
    return dest


def copy_built(built_site, dest):
    """A copy of the built project (code, results and its published site) at ``dest``: a few
    seconds of copying instead of a build."""
    shutil.copytree(built_site, dest, symlinks=True)
    return dest


@pytest.fixture
def built_copy(built_site, tmp_path):
    """This test's own copy of the built project, free to change (its site is the published one)."""
    return copy_built(built_site, tmp_path / "copy")


@pytest.fixture(autouse=True)
def _package_words():
    """A CLI call with --root points the words at that project (words.use_root); each test starts and ends with
    the package checkout's, as a fresh `reportgen` process does."""
    from reportgen.data import words
    kept = words.ROOT, words.WORDS
    yield
    words.ROOT, words.WORDS = kept
