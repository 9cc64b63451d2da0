"""The fifty-sixth round of the hostile corpus (issue #29).

Site set (4 of 14 failed; three fixed here): a docs page with CRLF line ends or a byte-order mark hid
its front matter from every check while MkDocs applied it ('template: 404.html' turned a page into
the 404 page); a checkout in a folder whose name is not UTF-8, or a user with no home folder, made
every run 'cannot be checked' (the cache's names).  The data set's findings of this round are left to
the next session (the issue's note), as is the fourth: a docs link's download= named any file (a run
log saved as the install guide's page), now only the linked file's own name.

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
import inspect

from test_hostile_round4 import _expect

MUTATIONS = {}
SPECIAL = {case: None for case in ("front_matter_line_ends", "checkout_path_bytes", "no_home", "download_other_name")}


def test_front_matter_is_read_as_mkdocs_reads_it(tmp_path):
    from reportgen.data import plainfile
    page = tmp_path / "x.md"
    for raw in (b"---\r\ntemplate: 404.html\r\n---\r\n# x\r\n", b"\xef\xbb\xbf---\ntemplate: 404.html\n---\n# x\n",
                b"---\rtemplate: 404.html\r---\r# x\r"):
        page.write_bytes(raw)
        said = plainfile.front_matter_problem("docs/x.md", page)
        assert said and _expect("front_matter_line_ends") in said, raw
    page.write_bytes(b"---\r\ntitle: ok\r\n---\r\n# x\r\n")
    assert plainfile.front_matter_problem("docs/x.md", page) is None


def test_the_cache_names_any_checkout_path(tmp_path, monkeypatch):
    import os
    from pathlib import Path
    from reportgen.data import load
    odd = Path(os.fsdecode(b"/tmp/R\xe9sum\xe9/p/results/runs/x"))
    monkeypatch.setenv("REPORTGEN_CACHE", str(tmp_path))
    named = load._hash_memory(odd)   # a UnicodeEncodeError before
    assert named is not None and named.parent == tmp_path / "hashes" and named.suffix == ".json"
    assert _expect("checkout_path_bytes") in inspect.getsource(load._hash_memory)
    monkeypatch.delenv("REPORTGEN_CACHE")
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setattr(Path, "home", classmethod(lambda cls: (_ for _ in ()).throw(RuntimeError("no home"))))
    assert load.cache_dir() is None
    assert _expect("no_home") in inspect.getsource(load.cache_dir)


def test_a_download_keeps_the_linked_file_s_name():
    from reportgen.publish import pagecontent
    said = pagecontent.content_problem("docs/x.md", '<p><a href="data/logs/run.log" download="\u5b89\u88c5.html">x</a></p>')
    assert said and said.startswith("docs/x.md: <a download=") and _expect("download_other_name") in said
    for ok in ('<a href="data/logs/run.log?x=1" download="run.log">x</a>', '<a href="data/t.csv" download>x</a>'):
        assert pagecontent.content_problem("docs/x.md", f"<p>{ok}</p>") is None
