"""The thirteenth round of the hostile corpus (issue #29): YAML values that PyYAML reads without a
YAMLError (an integer of 5000 digits, a lone surrogate escape) and keys spelled twice (1 and 0x1,
yes and true, two merge keys); a record's target text that is JSON but no object; a built site's
data files nested 10^5 deep; a run artifact of a type a static host serves as a document; a lone
surrogate written into the site; docs/ names holding bidi or zero-width characters; and `serve`
printing a request line's escape sequences raw.

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
import os
import socket
import threading
from types import SimpleNamespace

import pytest
from conftest import ROOT
from test_hostile_round4 import _expect

from reportgen.commands import serve
from reportgen.data import archive, plainfile
from reportgen.errors import ReportError
from reportgen.pages import writeup
from reportgen.publish import nofollow, sitecheck, verify
from reportgen.render.figures import record_file

MUTATIONS = {}

YAML = {"yaml_int_5000_digits": "title: x\nn: " + "1" * 5000 + "\n",
        "yaml_surrogate_escape": 'title: "a\\ud800b"\n',
        "yaml_key_twice_as_hex": "1: a\n0x1: b\n",
        "yaml_key_twice_as_bool": "yes: a\ntrue: b\n",
        "yaml_key_twice_as_null": "null: a\n~: b\n",
        "yaml_merge_key_twice": "<<: {title: a}\n<<: {title: b}\n"}


@pytest.mark.parametrize("case", sorted(YAML))
def test_a_yaml_data_file_beyond_what_it_may_hold_is_refused_naming_the_file(case, tmp_path):
    """Before round 13 an integer of 5000 digits was a ValueError (int's 4300-digit limit), not a
    YAMLError: 'internal error'; "\\ud800" loaded, then failed the page's write naming no file; and
    two spellings of one key (or two merge keys) kept the last silently."""
    path = tmp_path / "t.yaml"
    path.write_text(YAML[case], encoding="utf-8")
    with pytest.raises(ReportError) as err:
        archive._load_yaml(path, "tables")
    assert [p for p in err.value.problems if p.startswith(str(path)) and _expect(case) in p and "\n" not in p]


def test_the_committed_words_and_archive_still_load():
    from reportgen.data import words
    for path in sorted(words.WORDS.glob("*.yaml")):
        assert words.catalog(path.stem)
    assert archive.read_archive(ROOT / "archive")


@pytest.mark.parametrize("target", ["[" * 5000, "5", '"x"', "[1]", "null", ""])
def test_a_target_text_that_is_no_json_object_is_shown_inert(target):
    """extra.target is typed only as a string: 5000 "[" was a RecursionError and "5" or "[1]" an
    AttributeError (no .items()) on the write-up page, each an 'internal error'."""
    got = writeup._target_dict(target)
    assert isinstance(got, dict) and isinstance(got.get("kind"), str)
    assert writeup._kind(SimpleNamespace(record={"case": {}, "extra": {"target": target}})) is not None or not target
    assert writeup._target_dict('{"kind": "llvm", "mcpu": "x"}') == {"kind": "llvm", "mcpu": "x"}


def test_site_data_nested_deep_is_a_difference_not_an_internal_error(tmp_path):
    """verify compared site/data/runs/<run>/run.json and site/data/records/... with json.loads and
    caught only ValueError: 10^5 "[" planted there was a RecursionError."""
    site = tmp_path / "site"
    rec = {"id": "numpy_gemm/n=32", "run_id": "R"}
    for rel in ("data/runs/R/run.json", f"data/records/R/{record_file(rec['id'])}"):
        (site / rel).parent.mkdir(parents=True)
        (site / rel).write_text("[" * 100_000)
    runs = [SimpleNamespace(run_id="R", manifest={"files": {}}, records=[rec])]
    lines = verify._published_data_problems(site, runs) + verify._published_records_problems(site, runs)
    assert len(lines) == 2 and all(_expect("site_run_json_deep") in p or "differs from record" in p for p in lines)


@pytest.mark.parametrize("name", ["x.svg", "x.xht", "x.shtml", "x.xsl", "x.js", "x"])
def test_a_run_artifact_of_an_active_type_is_not_shipped(name, tmp_path):
    """A page links a record's extra.artifacts, and the build ships what a page links: an SVG or
    XHTML artifact holding a script ran on the site's origin when opened (a static host sends no
    content policy with it; the markup check read only .html .htm .svg .xhtml .xml, and no
    namespaced <s:script>)."""
    site = tmp_path / "site"
    path = site / "data" / "runs" / "R" / "artifacts" / name
    path.parent.mkdir(parents=True)
    path.write_text('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>')
    runs = [SimpleNamespace(run_id="R", manifest={"files": {f"artifacts/{name}": "0" * 64}}, records=[])]
    lines = verify._published_data_problems(site, runs)
    assert [p for p in lines if p.startswith(str(path)) and _expect("site_ships_active_artifact") in p], lines
    ok = site / "data" / "runs" / "R" / "artifacts" / "x.tir.py"
    ok.write_text("x = 1\n")
    assert not [p for p in verify._published_data_problems(site, runs) if p.startswith(str(ok)) and "ships only" in p]


def test_a_namespaced_script_in_an_svg_is_an_inline_script(tmp_path):
    path = tmp_path / "a.svg"
    path.write_text('<svg xmlns="http://www.w3.org/2000/svg" xmlns:s="http://www.w3.org/2000/svg">'
                    "<s:script>alert(1)</s:script></svg>")
    lines = sitecheck.other_markup_problems(tmp_path, lambda rel: False)
    assert [p for p in lines if p.startswith(str(path)) and _expect("svg_namespaced_script") in p], lines


def test_a_lone_surrogate_written_into_the_site_names_the_file(tmp_path):
    with pytest.raises(ReportError) as err:
        nofollow.write_text(tmp_path, "x.html", "a\ud800b")
    assert str(tmp_path / "x.html") in str(err.value) and _expect("site_write_surrogate") in str(err.value)
    assert not (tmp_path / "x.html").exists()


@pytest.mark.parametrize("name", ["a\u202egpj.md", "b\u200b.md", "c\x1b[2J.md", os.fsdecode(b"d\xff.md")])
def test_a_docs_name_with_invisible_or_control_characters_is_refused(name, tmp_path):
    """MkDocs publishes a page under its file's name: "a<U+202E>gpj.md" reads as "adm.jpg", a
    zero-width twin as the page beside it, and a name not in UTF-8 fails the page's write."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text("x")
    with open(os.path.join(os.fsencode(docs), os.fsencode(name)), "w") as fh:
        fh.write("x")
    lines = plainfile.tree_problems(docs, "docs/")
    assert len(lines) == 1 and _expect("docs_name_bidi_zero_width") in lines[0], lines
    assert lines[0].isprintable()


def test_serve_prints_a_request_line_with_its_escapes_escaped(tmp_path, capsys):
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text("ok")
    sitecheck.write_manifest(site)   # serve answers only what a build listed
    httpd = serve.open_server(site, 0)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        with socket.create_connection(("127.0.0.1", httpd.server_address[1]), timeout=10) as conn:
            conn.sendall(b"GET /\x1b[2J\x1b]8;;http://e\x07x HTTP/1.0\r\n\r\n")
            while conn.recv(65536):
                pass
    finally:
        httpd.shutdown()
        httpd.server_close()
    out = capsys.readouterr().out
    assert _expect("serve_log_terminal_escape") in out and "\x1b" not in out and "\x07" not in out


SPECIAL = {case: None for case in YAML} | {
    "e2e_target_not_an_object": None, "site_run_json_deep": None, "site_ships_active_artifact": None,
    "svg_namespaced_script": None, "site_write_surrogate": None, "docs_name_bidi_zero_width": None,
    "serve_log_terminal_escape": None}
