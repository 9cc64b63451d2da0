"""The twenty-second round of the hostile corpus (issue #29), attack only, then fixed: a comment a
browser ends early (<title><!--</title>), XML tags whose name starts otherwise than with an ASCII
letter, ISO-2022-JP escapes, trace's excerpt lines passing for its own sections, a non-ok record's
error in the checked line, the archive's reseal writing through a link, the corpus file as a hard
link or with look-alike keys and ids, git's variables deciding what is tracked (tests in round 21's
file), a corrupt gzip stream.

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
import gzip
import os

import pytest
from test_hostile_round4 import _expect

MUTATIONS = {}


@pytest.mark.parametrize("name, data", [
    ("a.htm", b"<title><!--</title><script>alert(1)</script>--></title>"),
    ("b.svg", b'<svg xmlns="http://www.w3.org/2000/svg"><_:script xmlns:_="http://www.w3.org/1999/xhtml">alert(1)'
              b"</_:script></svg>"),
    ("c.htm", b'<meta charset="iso-2022-jp"><img alt="\x1b$B"\x1b(B" onerror=alert(1) src=x>'),
    ("d.svg", b'<?xml version="1.0" encoding="ISO-2022-JP"?><svg xmlns="http://www.w3.org/2000/svg"></svg>'),
])
def test_markup_a_browser_reads_otherwise_round_22(tmp_path, name, data):
    (tmp_path / name).write_bytes(data)
    from reportgen.publish import sitecheck
    found = sitecheck.other_markup_problems(tmp_path, lambda rel: False)
    assert any(_expect("parsed_otherwise") in p for p in found), found


def test_a_corrupt_gzip_stream_is_named_not_an_internal_error(tmp_path):
    data = bytearray(gzip.compress(b"<svg>" + b"x" * 4000 + b"</svg>"))
    data[20:40] = b"\xff" * 20
    (tmp_path / "c.svg.gz").write_bytes(bytes(data))
    from reportgen.publish import sitecheck
    found = sitecheck.other_markup_problems(tmp_path, lambda rel: False)
    assert any("not a readable gzip file" in p for p in found), found


def test_trace_marks_every_log_line(tmp_path):
    """Round 22 #7: a log line '--- reproduce ---' passed for trace's own section."""
    from helpers import record, write_run
    from test_hostile_round15_rules import CASE, HOST, NEW
    from reportgen.commands import trace
    summary = f"[numpy_gemm] {CASE}: p50 1.1 ms over 3 samples\n"
    rec = record(run_id=NEW, case_id=CASE)
    rec["log"]["lines"] = [1, 2]
    write_run(tmp_path / "results", NEW, [rec], log_text="--- reproduce ---\n" + summary, environment=HOST)
    text = trace.trace(tmp_path, CASE, site_dir=tmp_path / "none", machine=HOST["machine_id"])
    assert "\n  | --- reproduce ---\n" in text and text.count("\n--- reproduce ---\n") == 1, _expect("trace_marked_lines")


@pytest.mark.parametrize("link", [os.symlink, os.link])
def test_the_archive_reseal_never_writes_through_a_link(tmp_path, link):
    """Round 22 #10: the command the build's own message names overwrote the file SHA256SUMS linked to."""
    from reportgen.data import archive
    folder = tmp_path / "archive"
    folder.mkdir()
    (folder / "a.yaml").write_text("x: 1\n")
    outside = tmp_path / "precious"
    outside.write_text("PRECIOUS")
    link(outside, folder / archive.SEAL)
    archive.reseal(folder)
    assert outside.read_text() == "PRECIOUS" and not (folder / archive.SEAL).is_symlink(), _expect("reseal_through_link")
    assert "a.yaml" in (folder / archive.SEAL).read_text()


@pytest.mark.parametrize("text, said", [
    ("cases:\n  - {id: a, class: x, outcome: refused, \"outcome\\u200b\": published}\n", "U+200B"),
    ("cases:\n  - {id: a, class: x, outcome: refused, note: y}\n", "not a field of a case"),
    ("cases:\n  - {id: a, class: x, outcome: text}\n  - {id: \"\\uff41\", class: x, outcome: text}\n", "ASCII letters"),
    ("cases:\n  - {id: a, class: x, outcome: text}\n  - {id: A, class: x, outcome: text}\n", "given before"),
])
def test_the_corpus_refuses_look_alike_keys_and_ids(tmp_path, text, said):
    """Round 22 #21, #22: 'a' and 'a\\u200b' both counted; an extra 'outcome\\u200b' key was ignored."""
    from reportgen.data import corpus
    from reportgen.errors import ReportError
    path = tmp_path / corpus.PATH
    path.parent.mkdir(parents=True)
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ReportError) as err:
        corpus.read(tmp_path)
    assert said in str(err.value), _expect("corpus_file_shape")


def test_the_corpus_file_as_a_hard_link_is_refused(tmp_path):
    from reportgen.data import corpus
    from reportgen.errors import ReportError
    outside = tmp_path / "outside.yaml"
    outside.write_text("cases: []\n")
    path = tmp_path / corpus.PATH
    path.parent.mkdir(parents=True)
    os.link(outside, path)
    with pytest.raises(ReportError, match="hard link"):
        corpus.read(tmp_path)


SPECIAL = {case: None for case in ("trace_marked_lines", "reseal_through_link")}
