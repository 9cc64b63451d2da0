import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).parent))


@pytest.fixture
def project(tmp_path):
    """A throw-away copy of the project (code, archive, docs, committed results)."""
    dest = tmp_path / "project"
    ignore = shutil.ignore_patterns(".venv", "site", "site.*", ".git", "__pycache__", ".cache", "*.egg-info")
    shutil.copytree(ROOT, dest, ignore=ignore)
    return dest


@pytest.fixture(scope="session")
def built_site(tmp_path_factory):
    """The site built once from the committed results, in a throw-away project copy."""
    from reportgen import build
    dest = tmp_path_factory.mktemp("built") / "project"
    ignore = shutil.ignore_patterns(".venv", "site", "site.*", ".git", "__pycache__", ".cache", "*.egg-info")
    shutil.copytree(ROOT, dest, ignore=ignore)
    build.build(dest, dest / "site")
    return dest
