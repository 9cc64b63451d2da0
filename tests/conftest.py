import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).parent))

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
def built_site(tmp_path_factory):
    """The site built once from the committed results, in a throw-away project copy."""
    from reportgen.commands import build
    dest = copy_project(tmp_path_factory.mktemp("built") / "project")
    build.build(dest, dest / "site")
    return dest
