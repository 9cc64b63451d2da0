"""The twenty-seventh round of the hostile corpus (issue #29), data side, attack only, then fixed: the
archive's seal read and written outside the error handling (a byte that is not UTF-8, a file name one
line cannot hold).

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
import os
import shutil
import subprocess
import sys

import pytest
from conftest import ROOT
from test_hostile_round4 import _expect

from reportgen.data import archive
from reportgen.errors import ReportError

MUTATIONS = {}


@pytest.fixture
def arch(tmp_path):
    shutil.copytree(ROOT / "archive", tmp_path / "archive")
    return tmp_path / "archive"


@pytest.mark.parametrize("planted", [b"# \xe9t\xe9\n", b"\xff\xfe"])
def test_a_seal_that_is_not_utf8_is_one_line_naming_it(arch, planted):
    seal = arch / archive.SEAL
    seal.write_bytes(planted + seal.read_bytes())
    found = archive.seal_problems(arch)
    assert len(found) == 1 and str(seal) in found[0] and _expect("archive_seal_not_utf8") in found[0], found
    with pytest.raises(ReportError) as err:
        archive.read_archive(arch)
    assert _expect("archive_seal_not_utf8") in str(err.value)


@pytest.mark.parametrize("name", [b"x\ny.yaml", b"\xff.yaml", b"x\ry.yaml"])
def test_a_name_the_seal_cannot_list_is_refused_before_resealing(arch, name):
    seal = arch / archive.SEAL
    before = seal.read_bytes()
    with open(os.path.join(bytes(arch), b"tables", name), "wb") as fh:
        fh.write(b"x: 1\n")
    run = subprocess.run([sys.executable, "-m", "reportgen.data.archive", "--reseal", str(arch)],
                         capture_output=True, env=dict(os.environ, PYTHONPATH=str(ROOT)), cwd=ROOT)
    err = run.stderr.decode("utf-8", "replace")
    assert run.returncode == 1 and "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert _expect("archive_name_unlistable") in err and "tables/" in err, err
    assert seal.read_bytes() == before, "the seal is left as it was"
    found = archive.seal_problems(arch)
    assert found and all("\n" not in line for line in found)
    assert any(_expect("archive_name_unlistable") in line for line in found), found


SPECIAL = {case: None for case in ("archive_seal_not_utf8", "archive_name_unlistable")}
