"""The ninety-first round of the hostile corpus (issue #29), site set: attack only, then fixed.

18 probes, 6 failed (4 weak).  Mended here: print.html and study.pdf rewritten after the build (the unconfirmed
flags cut out of the printout, a sentence reversed; a PDF of any bytes with an OpenAction script), their sha256
updated in site-files.json, passed verify: the print page is held to the one `reportgen pdf` assembles from a fresh
build, and the PDF may hold nothing active.  Left open: figures typed into docs prose in Chinese or Roman numerals,
with units the check does not list, in site_name or through a words file; serve's connection cap counts threads;
`reportgen pdf` after a build killed between its renames; a `http:x/y` link; --root and the package's words.

The case ids below are entries of tests/data/hostile/cases.yaml (test_hostile.py finds each one's test).
"""
import json

from test_hostile_round4 import _expect

MUTATIONS, SPECIAL = {}, dict.fromkeys(("print_page_rebuilt", "pdf_nothing_active"))


def _site(folder, files):
    from reportgen.publish import sitecheck
    folder.mkdir()
    for name, data in files.items():
        (folder / name).write_bytes(data)
    (folder / "machine.json").write_text(json.dumps({"publication_machine": "0" * 12, "reason": "newest"}))
    sitecheck.write_manifest(folder)
    return folder


def test_a_print_page_is_held_to_the_one_pdf_assembles(tmp_path):
    from reportgen.publish import sitecheck
    page = b"<p>the flags</p>"
    site = _site(tmp_path / "site", {"index.html": b"<p>x</p>", "print.html": b"<p>flags cut</p>"})

    def build(_root, fresh, _machine):
        return _site(fresh, {"index.html": b"<p>x</p>"})
    said = sitecheck.rebuild_problems(tmp_path, site, build, printed=lambda fresh: page)
    assert [p for p in said if p.startswith(f"{site / 'print.html'}: ") and _expect("print_page_rebuilt") in p], said
    (site / "print.html").write_bytes(page)
    sitecheck.write_manifest(site)
    assert sitecheck.rebuild_problems(tmp_path, site, build, printed=lambda fresh: page) == []


def test_the_pdf_holds_nothing_active(tmp_path):
    from reportgen.publish import sitecheck
    pdf = tmp_path / "study.pdf"
    pdf.write_bytes(b"%PDF-1.4\n1 0 obj<</Type/Catalog/OpenAction<</S/JavaScript/JS(app.alert(1))>>>>endobj\n%%EOF\n")
    said = sitecheck.pdf_problems(tmp_path)
    assert said and said[0].startswith(f"{pdf}: ") and _expect("pdf_nothing_active") in said[0]
    pdf.write_bytes(b"<html>")
    assert "not a PDF" in sitecheck.pdf_problems(tmp_path)[0]
    pdf.write_bytes(b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R/AAx 1>>endobj\n%%EOF\n")   # a name that begins so
    assert sitecheck.pdf_problems(tmp_path) == []
