"""The twenty-fifth round of the hostile corpus (issue #29), attack only, then fixed: the site side.

A page's <img name="currentScript"> hid document.currentScript from charts.js, which then loaded its
libraries from the image's folder; a chart spec in a <div>; host files in folders and server-side
suffixes; a docs file standing in for the theme's bundle; bidi characters that reached a page through
an entity, a placeholder or the front matter; serve reading the folder twice; temporary files a kill
left inside the folder they replace a file of; the PDF rewritten in place; a long request path.

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
import os
import socket
import subprocess
import sys
import threading
from pathlib import Path
from types import SimpleNamespace

import pytest
from conftest import ROOT
from test_hostile_round4 import _expect, _one_line
from test_hostile_round24 import _config, _page_problems

from reportgen.errors import ReportError

MUTATIONS = {}


@pytest.mark.parametrize("planted", ['<img name="currentScript" src="x/y/a.png" alt="">',
                                     '<form name="head"></form>', '<embed src="a.png">', '<object id="x"></object>',
                                     '<iframe name="currentScript"></iframe>'])
def test_an_element_naming_a_property_of_document_is_refused(tmp_path, planted):
    found = _page_problems(tmp_path, planted + _config())
    assert found and any(_expect("clobber_current_script") in line for line in found), found


def test_the_theme_search_form_is_the_one_named_form(tmp_path):
    assert _page_problems(tmp_path, '<form class="md-search__form" name="search"></form>' + _config()) == []


def test_the_site_scripts_find_themselves_where_no_page_element_can_hide_them():
    """charts.js and md-scope.js read their own element through Document.prototype, and charts.js reads
    a spec only from a JSON data <script>, dropping its usermeta."""
    charts = (ROOT / "docs/assets/js/charts.js").read_text(encoding="utf-8")
    scope = (ROOT / "docs/assets/js/md-scope.js").read_text(encoding="utf-8")
    assert 'getOwnPropertyDescriptor(Document.prototype, "currentScript")' in charts
    assert "document.currentScript ||" not in charts and "document.currentScript.src" not in scope
    assert "instanceof HTMLScriptElement" in charts and "delete spec.usermeta" in charts


@pytest.mark.parametrize("planted", ['<div id="spec-zz" hidden>{"mark": "point", "usermeta": {}}</div>',
                                     '<pre id="spec-zz">{"mark": "point"}</pre>'])
def test_a_spec_outside_a_data_script_is_refused(tmp_path, planted):
    found = _page_problems(tmp_path, '<div class="vchart" data-chart="zz"></div>' + planted + _config())
    assert found and any(_expect("spec_in_a_div") in line for line in found), found


@pytest.mark.parametrize("case, name, text", [
    ("host_control_file", "_worker.js/index.js", "export default {}"),
    ("host_control_file", "sub/.htaccess./x", "x"),
    ("server_side_document", "x.php", "<?php system($_GET['c']); ?>"),
    ("server_side_document", "a.php.txt", "text"),
    ("server_side_document", "z.phtml", "x"),
    ("server_side_document", "y.shtml", "x"),
])
def test_host_folders_and_server_programs_are_refused(tmp_path, case, name, text):
    from reportgen.publish import sitecheck
    (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / name).write_text(text)
    found = sitecheck.other_markup_problems(tmp_path, lambda rel: False)
    assert found and any(_expect(case) in line for line in found), found


@pytest.mark.parametrize("markup", ['<!--#exec cmd="cat /etc/passwd" -->', "<?php echo 1; ?>", "<?= 1 ?>"])
def test_server_side_markup_in_a_document_is_refused(tmp_path, markup):
    from reportgen.publish import sitecheck
    (tmp_path / "a.xml").write_text(f"<r>{markup}</r>")
    found = sitecheck.other_markup_problems(tmp_path, lambda rel: False)
    assert found and all(line.startswith(str(tmp_path / "a.xml")) for line in found), found


def test_a_docs_file_does_not_stand_in_for_the_themes(tmp_path):
    from reportgen.publish import plugin
    theme, docs = tmp_path / "theme", tmp_path / "docs"
    (theme / "assets/javascripts").mkdir(parents=True)
    (docs / "assets/javascripts").mkdir(parents=True)
    for folder in (theme, docs):
        (folder / "assets/javascripts/bundle.min.js").write_text("x")
    (docs / "index.md").write_text("# x")
    files = [SimpleNamespace(abs_src_path=str(docs / uri), src_uri=uri, dest_uri=uri.replace(".md", ".html"))
             for uri in ("index.md", "assets/javascripts/bundle.min.js")]
    line = plugin.theme_shadow_problem(files, str(docs), [str(theme)])
    assert line and line.startswith("docs/assets/javascripts/bundle.min.js:") and _expect("docs_shadow_theme") in line
    assert plugin.theme_shadow_problem(files[:1], str(docs), [str(theme)]) is None


@pytest.mark.parametrize("html", ["<p>Result: \u202efdp.txt</p>", "<p>a&#8203;b</p>", "<p>&#x202E;</p>",
                                  "<title>R \u202e</title>"])
def test_a_built_page_shows_no_bidi_or_zero_width_character(html):
    """Round 25: {{ "\\u202e" }}, &#x202E; or a front matter title "\\u202e" reached the page.  Every
    document sitecheck.Markup parses notes the first such character (verify reads each built page)."""
    from reportgen.publish import sitecheck
    parsed = sitecheck.Markup()
    parsed.feed(f"<html><head></head><body>{html}</body></html>")
    [message] = [p for p in sitecheck.markup_problems("site/notes.html", parsed) if "U+" in p]
    assert message.startswith("site/notes.html:1: holds") and _expect("bidi_as_built") in message


def test_a_front_matter_value_with_an_escaped_bidi_character_is_refused(tmp_path):
    from reportgen.publish import plugin
    (tmp_path / "notes.md").write_text('---\ntitle: "R \\u202efdp"\n---\n# x\n', encoding="utf-8")
    me = SimpleNamespace(book=SimpleNamespace(set_page=lambda uri: None), generated=set())
    page = SimpleNamespace(file=SimpleNamespace(src_uri="notes.md", abs_src_path=str(tmp_path / "notes.md")),
                           meta={"title": "R \u202efdp"})
    with pytest.raises(ReportError) as err:
        plugin.ReportgenPlugin.on_page_markdown(me, "# x\n", page, None, None)
    assert "front matter" in _one_line(err.value) and _expect("bidi_as_built") in str(err.value)


class Stopped:
    """serve.open_server's stand-in: notes the folder and list serve would answer from, then stops
    serving at once (as Ctrl-C does)."""
    served = {}

    def __init__(self, folder, port, listed=None):
        Stopped.served = {"folder": Path(folder), "listed": dict(listed or {}), "files": sorted(
            p.relative_to(folder).as_posix() for p in Path(folder).rglob("*") if p.is_file())}
        self.server_address = ("127.0.0.1", 1)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def serve_forever(self):
        raise KeyboardInterrupt


def test_serve_checks_and_answers_one_copy(tmp_path, monkeypatch):
    """Round 25: serve read the folder for its checks, then read site-files.json again to serve: a page
    planted and listed in between was served."""
    from reportgen.commands import serve
    from reportgen.publish import plugin, sitecheck, verify
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text(f"<html><head>{plugin.CSP_META}</head><body>home</body></html>")
    sitecheck.write_manifest(site)
    real = verify.script_problems

    def planting(root, folder):
        found = real(root, folder)
        (site / "late.html").write_text('<script src="x.js"></script>')   # after the checks read
        sitecheck.write_manifest(site)
        return found

    monkeypatch.setattr(verify, "script_problems", planting)
    monkeypatch.setattr(serve, "open_server", Stopped)
    serve.serve(site, 0, ROOT)
    served = Stopped.served
    assert served["folder"] != site and "late.html" not in served["listed"], _expect("serve_one_copy")
    assert served["files"] == ["index.html"] and not served["folder"].exists()


def test_serve_answers_a_path_too_long_for_the_file_system_with_404(tmp_path, capsys):
    from reportgen.commands import serve
    from reportgen.publish import sitecheck
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text("<p>home</p>")
    sitecheck.write_manifest(site)
    httpd = serve.open_server(site, 0)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        for path in ("/" + "a" * 300, "/" + "/".join(["abcdefgh"] * 600)):
            with socket.create_connection(("127.0.0.1", httpd.server_address[1]), timeout=10) as conn:
                conn.sendall(f"GET {path} HTTP/1.0\r\n\r\n".encode())
                assert conn.recv(100).startswith(b"HTTP/1.0 404"), _expect("serve_long_path")
    finally:
        httpd.shutdown()
        httpd.server_close()
    assert "request failed" not in capsys.readouterr().out


def test_a_write_killed_before_its_rename_leaves_nothing_in_the_folder(tmp_path):
    """Round 25: kill -9 between the temporary file and the rename left .site-files.json.<pid>.tmp in the
    site (refused as unlisted: serve refused the whole site) or .SHA256SUMS.<pid>.tmp in the archive."""
    folder = tmp_path / "site"
    folder.mkdir()
    (folder / "site-files.json").write_text("{}")
    code = ("import os, signal, sys; from reportgen.data import plainfile; "
            "os.replace = lambda *a: os.kill(os.getpid(), signal.SIGKILL); "
            "plainfile.replace_whole(sys.argv[1], b'new')")
    proc = subprocess.run([sys.executable, "-c", code, str(folder / "site-files.json")], capture_output=True,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)), timeout=60)
    assert proc.returncode == -9
    assert sorted(p.name for p in folder.iterdir()) == ["site-files.json"], _expect("tmp_outside_folder")
    assert (folder / "site-files.json").read_text() == "{}"


def test_a_reseal_with_a_leftover_of_its_own_pid_and_a_failed_write(tmp_path, monkeypatch, capsys):
    from reportgen.data import archive, plainfile
    (tmp_path / "archive").mkdir()
    (tmp_path / "archive" / "a.yaml").write_text("x: 1\n")
    for leftover in (tmp_path / f".archive-{archive.SEAL}.{os.getpid()}.tmp", tmp_path / "archive" / f".{archive.SEAL}.tmp"):
        leftover.write_text("left by a kill")   # a name of this pid (a container's pid 1 again), an older name
    (tmp_path / "archive" / f".{archive.SEAL}.tmp").unlink()   # (one in the archive would be sealed: never written there)
    assert archive.main(["--reseal", str(tmp_path / "archive")]) == 0
    assert sorted(p.name for p in (tmp_path / "archive").iterdir()) == [archive.SEAL, "a.yaml"]
    assert len(list(tmp_path.iterdir())) == 2   # the archive and the old leftover: no new temporary file

    def full(path, data):
        raise OSError(28, "No space left on device", str(path))

    monkeypatch.setattr(plainfile, "replace_whole", full)
    assert archive.main(["--reseal", str(tmp_path / "archive")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err and _expect("reseal_one_line") in err


def test_pdf_outputs_are_replaced_whole_and_a_cut_one_is_dropped_first(tmp_path, monkeypatch):
    """Round 25: study.pdf was rewritten in place (a full disk left it cut, listed with its old sha256,
    and every check refused the site until a full build)."""
    from reportgen.commands import pdf
    from reportgen.data import plainfile
    from reportgen.publish import sitecheck
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text("<p>x</p>")
    (site / pdf.PDF_NAME).write_bytes(b"%PDF old")
    sitecheck.write_manifest(site)

    def cut(path, data):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(plainfile, "replace_whole", cut)
    with pytest.raises(ReportError) as err:
        pdf._replace(site, pdf.PDF_NAME, b"%PDF new")
    assert _expect("pdf_replaced_whole") in _one_line(err.value)
    assert (site / pdf.PDF_NAME).read_bytes() == b"%PDF old" and sitecheck.manifest_problems(site) == []
    monkeypatch.undo()
    (site / pdf.PDF_NAME).write_bytes(b"%PDF cut")   # as a write in place once left it
    assert sitecheck.manifest_problems(site)
    assert sitecheck.drop_broken(site, [pdf.PRINT_PAGE, pdf.PDF_NAME]) == [pdf.PDF_NAME]
    assert sitecheck.manifest_problems(site) == [] and not (site / pdf.PDF_NAME).exists()


def test_the_print_page_links_its_styles():
    """An inline <style> is markup verify refuses in a page: print.html failed verify after `reportgen pdf`."""
    from reportgen.commands import pdf
    assert (ROOT / "docs" / pdf.PRINT_CSS).is_file()


@pytest.mark.parametrize("custom", ["docs/overrides", "."])
def test_a_theme_folder_in_docs_is_refused(tmp_path, custom):
    """Round 25 (low, mkdocs.yml): theme.custom_dir: docs/overrides made docs files the theme's templates,
    which MkDocs renders with its own unsandboxed Jinja (a main.html there wrote outside the project)."""
    from reportgen.publish import plugin
    (tmp_path / "docs" / "overrides").mkdir(parents=True)
    (tmp_path / "mkdocs.yml").write_text("site_name: x\n")
    config = SimpleNamespace(config_file_path=str(tmp_path / "mkdocs.yml"), docs_dir=str(tmp_path / "docs"),
                             site_name="x", theme=SimpleNamespace(custom_dir=str(tmp_path / custom)))
    me = SimpleNamespace(config=SimpleNamespace(results_dir="results", archive_dir="archive"))
    with pytest.raises(ReportError) as err:
        plugin.ReportgenPlugin.on_config(me, config)
    assert _expect("custom_dir_in_docs") in _one_line(err.value)


SPECIAL = {case: None for case in ("custom_dir_in_docs", "clobber_current_script", "spec_in_a_div", "server_side_document",
                                   "docs_shadow_theme", "bidi_as_built", "serve_one_copy", "serve_long_path",
                                   "tmp_outside_folder", "reseal_one_line", "pdf_replaced_whole")}
